// Variation review: the phrases of a proposed change, per part, each with its bars and what it
// adds, removes and changes; tick the ones to keep and accept them (or all), discard it, or ask
// for "something different". The arrangement highlights the phrases; focusing one opens its
// region's notes, before (outlined) and after (filled).

import { esc } from "./dom.js";

export class Review {
  constructor(root, { onFocus = () => {}, onAudition = () => {}, onAccept = () => {}, onDiscard = () => {}, onAgain = () => {},
    onChange = () => {} } = {}) {
    this.root = root;
    this.handlers = { onFocus, onAudition, onAccept, onDiscard, onAgain, onChange };
    this.variation = null;
    root.addEventListener("click", (e) => this.click(e));
    root.addEventListener("change", (e) => this.tick(e));
  }

  // `variation`: {variationId, baseRevision, intent, explanation, phrases: [phrase events], diff?, stale?}
  show(variation) {
    this.variation = variation;
    this.accepted = new Set(variation ? variation.phrases.map((p) => p.phraseId) : []);
    this.focused = null;
    this.render();
  }

  clear() { this.show(null); }

  // Whether the song moved on since the proposal was made (it can be accepted only from its base).
  setStale(stale) {
    if (!this.variation || this.variation.stale === stale) return;
    this.variation.stale = stale;
    this.render();
  }

  get phrases() { return this.variation?.phrases || []; }

  render() {
    const v = this.variation;
    if (!v) { this.root.innerHTML = `<p class="muted">No variation to review. Ask for a change in the chat.</p>`; return; }
    const byPart = new Map();
    for (const p of v.phrases) {
      const part = p.label.split(" · ")[0];
      if (!byPart.has(part)) byPart.set(part, []);
      byPart.get(part).push(p);
    }
    const counts = (p) => {
      const c = { added: 0, removed: 0, modified: 0 };
      for (const n of p.noteChanges || []) c[n.change] += 1;
      return c;
    };
    const stale = v.stale ? `<div class="stale">⚠ This proposal was made for revision ${v.baseRevision}; the song has moved on since.
      Discard it and ask again.</div>` : "";
    const off = v.stale ? "disabled" : "";
    const diff = v.diff ? Object.entries(v.diff).filter(([, line]) => line).map(([part, line]) => `<li><b>${esc(part)}</b>: ${esc(line)}</li>`).join("") : "";
    this.root.innerHTML = `
      <div class="review-head"><b>${esc(v.intent || "Proposed change")}</b>
        ${v.explanation ? `<div class="muted">${esc(v.explanation)}</div>` : ""}
        ${diff ? `<ul class="diff">${diff}</ul>` : ""}</div>
      ${stale}<div class="review-actions">
        <button class="primary" data-act="accept-all" title="accept every phrase" ${off}>Accept all</button>
        <button data-act="accept" title="accept the ticked phrases only" ${off}>Accept ${this.accepted.size} of ${v.phrases.length}</button>
        <button data-act="discard">Discard</button>
        <button data-act="again" title="another take (“try something different”)">Try something different</button>
      </div>
      ${[...byPart.entries()].map(([part, list]) => `
        <section class="part"><h4>${esc(part)}</h4><ul class="phrases">${list.map((p) => {
          const c = counts(p);
          return `<li class="phrase ${this.focused === p.phraseId ? "focused" : ""}" data-phrase="${esc(p.phraseId)}">
            <label><input type="checkbox" ${this.accepted.has(p.phraseId) ? "checked" : ""} aria-label="keep ${esc(p.label)}"></label>
            <button class="audition" data-act="audition" title="hear this phrase alone, as proposed (B), looped" aria-label="hear ${esc(p.label)}">▶</button>
            <button class="link" data-act="focus" title="show its notes">${esc(p.label.split(" · ")[1] || p.label)}</button>
            <span class="counts"><span class="add">+${c.added}</span> <span class="rem">−${c.removed}</span> <span class="mod">~${c.modified}</span></span>
            ${(p.tags || []).length ? `<span class="muted tags">${esc(p.tags.join(", "))}</span>` : ""}</li>`;
        }).join("")}</ul></section>`).join("")}`;
  }

  click(e) {
    const button = e.target.closest("button[data-act]"); if (!button || !this.variation) return;
    const act = button.dataset.act;
    if (act === "audition") {
      const id = button.closest("[data-phrase]").dataset.phrase;
      this.handlers.onAudition(this.phrases.find((p) => p.phraseId === id));
    } else if (act === "focus") {
      const id = button.closest("[data-phrase]").dataset.phrase;
      this.focused = id; this.render();
      this.handlers.onFocus(this.phrases.find((p) => p.phraseId === id));
    } else if (act === "accept-all") this.handlers.onAccept(null);
    else if (act === "accept") this.handlers.onAccept([...this.accepted]);
    else if (act === "discard") this.handlers.onDiscard();
    else if (act === "again") this.handlers.onAgain();
  }

  tick(e) {
    const box = e.target.closest("input[type=checkbox]"); if (!box) return;
    const id = box.closest("[data-phrase]").dataset.phrase;
    if (box.checked) this.accepted.add(id); else this.accepted.delete(id);
    const label = this.root.querySelector('[data-act="accept"]');
    if (label) label.textContent = `Accept ${this.accepted.size} of ${this.phrases.length}`;
    this.handlers.onChange(new Set(this.accepted));
  }
}
