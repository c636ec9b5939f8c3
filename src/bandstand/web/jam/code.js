// Pattern code on the jam page: escaped, lightly coloured, and breakable only between tokens.
// Long code wraps before a method call (`.lpf(…)`), after a comma or an opening parenthesis
// and at the spaces of mini-notation strings — never inside a name, a number or a step
// (the CSS sets `white-space: pre-wrap` with no word breaking); a token wider than the box
// scrolls sideways instead of being cut.

export function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// strings (closed or not), names, numbers, spaces, any other character
const TOKEN = /("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`[^`]*`?)|([A-Za-z_$][\w$]*)|(\d+(?:\.\d+)?)|(\s+)|([\s\S])/g;

export function codeHtml(code) {
  let out = "", afterDot = false;
  for (const [text, string, name, number, , other] of String(code ?? "").matchAll(TOKEN)) {
    if (string) out += `<span class="c-str">${esc(text)}</span>`;
    else if (name) out += afterDot ? `<span class="c-fn">${esc(name)}</span>` : `<span class="c-name">${esc(name)}</span>`;
    else if (number) out += `<span class="c-num">${number}</span>`;
    else if (other === ".") out += "<wbr>.";
    else if (other === "," || other === "(") out += `${other}<wbr>`;
    else out += esc(text);
    afterDot = other === ".";
  }
  return out;
}
