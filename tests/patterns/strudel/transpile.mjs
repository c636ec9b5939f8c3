// The REPL's rule for strings: every double-quoted literal is mini-notation, m("...", offset).
export function transpile(code) {
  let out = '';
  let i = 0;
  while (i < code.length) {
    const c = code[i];
    if (c === "'" || c === '`') {
      let j = i + 1;
      while (j < code.length && code[j] !== c) j += code[j] === '\\' ? 2 : 1;
      out += code.slice(i, j + 1);
      i = j + 1;
    } else if (c === '"') {
      let j = i + 1;
      while (j < code.length && code[j] !== '"') j += code[j] === '\\' ? 2 : 1;
      out += `m(${code.slice(i, j + 1)}, ${i})`;
      i = j + 1;
    } else {
      out += c;
      i += 1;
    }
  }
  return out;
}

