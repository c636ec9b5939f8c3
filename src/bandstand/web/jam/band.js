// The band's cards: one per member, built once and updated in place (so an open editor, a
// fader being dragged or a scrolled pattern survive the jam's updates). Each card has the
// member's status light and a "sounding" light (lit while its notes are being heard), the
// thought bubble, the pattern (editable in place: the boss's code is validated by the server
// like any reply — a refusal is shown in the editor with its reason), mute, solo and a
// volume fader.
import { codeHtml, esc } from "/static/jam/code.js";

const CARD = `
  <div class="card-head"><span class="emoji"></span><span class="name"></span><span class="role"></span>
    <span class="activity" title="sounding now"></span><span class="light"></span></div>
  <div class="bubble"><span class="thought"></span><span class="reaction"></span></div>
  <div class="pattern code"></div>
  <form class="editor" hidden>
    <textarea class="code" spellcheck="false" aria-label="pattern code"></textarea>
    <div class="editor-error" hidden></div>
    <div class="editor-actions"><button type="submit" class="primary">▶ Play it</button>
      <button type="button" data-act="cancel">Cancel</button><span class="muted">Ctrl+Enter plays · Esc cancels</span></div>
  </form>
  <div class="card-foot">
    <button type="button" class="mute" data-act="mute">Mute</button>
    <button type="button" class="solo" data-act="solo">Solo</button>
    <button type="button" class="edit" data-act="edit" title="write this member's pattern yourself">✎ Edit</button>
    <label class="fader" title="this member's volume in the band (the recording too)">Vol
      <input type="range" min="0" max="1.5" step="0.05" value="1" data-act="volume"><span class="vol-value">100%</span></label>
    <span class="fallback"></span>
  </div>`;

export class Band {
  // `send(message)` talks to the server; `jam()` is the latest jam state.
  constructor(box, { send, jam, colourOf, benched }) {
    this.box = box;
    this.send = send;
    this.jam = jam;
    this.colourOf = colourOf;
    this.benched = benched;
    this.cards = new Map(); // name → element
    this.pendingEdit = null; // the member whose edit awaits the server's answer
    box.addEventListener("click", (e) => this.click(e));
    box.addEventListener("change", (e) => {
      const input = e.target.closest('input[data-act="volume"]');
      if (input) this.send({ type: "set_volume", member: input.closest(".card").dataset.member, volume: Number(input.value) });
    });
    box.addEventListener("input", (e) => {
      const input = e.target.closest('input[data-act="volume"]');
      if (input) input.nextElementSibling.textContent = `${Math.round(input.value * 100)}%`;
    });
    box.addEventListener("submit", (e) => { e.preventDefault(); this.play(e.target.closest(".card").dataset.member); });
    box.addEventListener("keydown", (e) => {
      const editor = e.target.closest(".editor"); if (!editor) return;
      const name = editor.closest(".card").dataset.member;
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); this.play(name); }
      else if (e.key === "Escape") { e.preventDefault(); this.closeEditor(name); }
    });
  }

  card(m) {
    let card = this.cards.get(m.name);
    if (!card) {
      card = document.createElement("article");
      card.className = "card"; card.dataset.member = m.name; card.innerHTML = CARD;
      this.cards.set(m.name, card);
      this.box.appendChild(card);
    }
    return card;
  }

  render(members) {
    const running = Boolean(this.jam()?.running);
    for (const m of members) {
      const card = this.card(m), q = (s) => card.querySelector(s);
      card.style.setProperty("--role", this.colourOf(m.name));
      card.classList.toggle("inactive", running ? m.active === false : this.benched.has(m.name));
      card.classList.toggle("pickable", !running);
      card.title = running ? "" : "click to choose who plays";
      setText(q(".emoji"), m.emoji); setText(q(".name"), m.name); setText(q(".role"), m.role);
      const light = q(".light");
      light.className = `light ${lightClass(m, running)}`; light.title = m.status;
      setText(q(".thought"), m.thoughts || "…"); setText(q(".reaction"), m.reaction || "");
      const pattern = m.pattern || "silence", box = q(".pattern");
      if (box.dataset.code !== pattern) { box.dataset.code = pattern; box.innerHTML = codeHtml(pattern); }
      q(".mute").classList.toggle("on", Boolean(m.muted));
      q(".solo").classList.toggle("on", Boolean(m.soloed));
      q(".edit").disabled = !running || m.active === false;
      const fader = q('input[data-act="volume"]'), volume = m.volume ?? 1;
      if (document.activeElement !== fader && Number(fader.value) !== volume) {
        fader.value = volume; fader.nextElementSibling.textContent = `${Math.round(volume * 100)}%`;
      }
      setText(q(".fallback"), m.using_fallback || m.status === "error" || m.status === "timeout" ? "(fallback)" : "");
      if (!running && !q(".editor").hidden) this.closeEditor(m.name);
    }
  }

  // Which members are being heard now (a Set of names): their "sounding" lights.
  showSounding(names) {
    for (const [name, card] of this.cards) card.classList.toggle("sounding", names.has(name));
  }

  click(e) {
    const card = e.target.closest(".card"); if (!card) return;
    const name = card.dataset.member, m = this.jam()?.members.find((x) => x.name === name) || {};
    const act = e.target.closest("[data-act]")?.dataset.act;
    if (act === "mute") this.send({ type: "set_mute", member: name, muted: !m.muted });
    else if (act === "solo") this.send({ type: "set_solo", member: name, soloed: !m.soloed });
    else if (act === "edit") this.openEditor(name, m.pattern || "silence");
    else if (act === "cancel") this.closeEditor(name);
    else if (!act && !this.jam()?.running && !e.target.closest(".editor, .fader")) {
      // before the jam starts, clicking a card chooses who plays
      if (this.benched.has(name)) this.benched.delete(name);
      else if (this.benched.size < this.cards.size - 1) this.benched.add(name);
      this.render(this.jam()?.members || []);
    }
  }

  openEditor(name, code) {
    const card = this.cards.get(name), editor = card.querySelector(".editor"), area = editor.querySelector("textarea");
    area.value = code;
    area.rows = Math.min(8, Math.max(3, Math.ceil(code.length / 40)));
    editor.querySelector(".editor-error").hidden = true;
    editor.hidden = false; card.classList.add("editing");
    card.querySelector(".pattern").hidden = true;
    area.focus();
  }

  closeEditor(name) {
    const card = this.cards.get(name); if (!card) return;
    card.querySelector(".editor").hidden = true; card.classList.remove("editing");
    card.querySelector(".pattern").hidden = false;
    if (this.pendingEdit === name) this.pendingEdit = null;
  }

  play(name) {
    const code = this.cards.get(name).querySelector("textarea").value.trim();
    if (!code) return;
    this.pendingEdit = name; this.pendingCode = code;
    this.send({ type: "override_code", member: name, code });
  }

  // The server took the boss's code for `name`: the editor closes.
  // (Another tab's rewrite leaves an editor open here alone.)
  accepted(name) { if (this.pendingEdit === name) this.closeEditor(name); }

  // An error while an edit awaited its answer: shown in that editor, which stays open.
  // Returns the refused code (null when no edit was waiting).
  refused(message) {
    const name = this.pendingEdit; if (!name) return null;
    const box = this.cards.get(name).querySelector(".editor-error");
    box.innerHTML = esc(message); box.hidden = false;
    this.pendingEdit = null;
    return this.pendingCode;
  }
}

function setText(node, text) { if (node.textContent !== text) node.textContent = text; }

function lightClass(m, running) {
  if (m.status === "idle") return running && m.pattern && m.pattern !== "silence" ? "ok" : "";
  return m.status;
}
