// The chat: each request to POST /api/v1/stream becomes a turn that draws the stream as it
// arrives — what the server understood (`state`), the plan as a checklist that ticks
// (`plan`, `planStepUpdate`), the tool calls grouped per instrument (folded), the generators,
// reasoning and answers, a variation's phrases (`meta → phrase* → done`), agent teams
// (`preflight`, `status`, `agentComplete`, by agentId) and the end (`complete`).

import { esc } from "./dom.js";

const MODE_ICONS = { EDITING: "✎", COMPOSING: "♪", REASONING: "?" };
const STEP_MARKS = { pending: "○", active: "◌", completed: "✓", failed: "✗", skipped: "–" };

export class ChatTurn {
  constructor(box, prompt) {
    this.box = box;
    this.steps = new Map(); // step id → {label, track, li}
    this.groups = new Map(); // instrument → {details, list, count}
    this.agents = new Map(); // agent id → element
    this.phrases = 0;
    this.el = document.createElement("article");
    this.el.className = "turn";
    this.el.innerHTML = `<div class="ask">${esc(prompt).replace(/\n/g, "<br>")}</div><div class="reply"></div>`;
    this.reply = this.el.querySelector(".reply");
    box.appendChild(this.el);
    this.scroll();
  }

  scroll() { this.box.scrollTop = this.box.scrollHeight; }

  add(html, cls = "") {
    const div = document.createElement("div");
    div.className = cls; div.innerHTML = html;
    this.reply.appendChild(div);
    this.scroll();
    return div;
  }

  group(name) {
    const key = name || "Song";
    let g = this.groups.get(key);
    if (!g) {
      const details = document.createElement("details");
      details.className = "tools";
      details.innerHTML = `<summary><b>${esc(key)}</b> <span class="count"></span></summary><ul></ul>`;
      this.reply.appendChild(details);
      g = { details, list: details.querySelector("ul"), count: 0 };
      this.groups.set(key, g);
    }
    return g;
  }

  instrument(ev) {
    const step = ev.stepId ? this.steps.get(ev.stepId) : null;
    return step?.track || ev.params?.track || ev.role || ev.agentId || null;
  }

  toolLine(g, html, cls = "") {
    const li = document.createElement("li"); li.className = cls; li.innerHTML = html;
    g.list.appendChild(li); g.count += 1;
    g.details.querySelector(".count").textContent = `${g.count} step${g.count === 1 ? "" : "s"}`;
    this.scroll();
  }

  // The plan as a checklist: the server's (`plan`), or — for a turn that sends none (a variation
  // written by the built-in musicians) — one made of the work as it happens: each part written,
  // then the proposal. A step is added pending or active and ticks when it completes.
  checklist(title = "The plan") {
    if (!this.planList) {
      const div = this.add(`<div class="plan-title">${esc(title)}</div><ol class="plan"></ol>`, "plan-box");
      this.planList = div.querySelector("ol");
    }
    return this.planList;
  }

  step(id, label, status, extra = {}) {
    let step = this.steps.get(id);
    if (!step) {
      const li = document.createElement("li");
      li.dataset.step = id;
      li.innerHTML = `<span class="mark"></span> <span class="what"></span>`;
      this.checklist().appendChild(li);
      step = { label, track: extra.track || null, li };
      this.steps.set(id, step);
    }
    step.li.className = `step ${status}`;
    step.li.querySelector(".mark").textContent = STEP_MARKS[status] || "•";
    step.li.querySelector(".what").textContent = label;
    this.scroll();
    return step;
  }

  agent(ev) {
    let el = this.agents.get(ev.agentId);
    if (!el) {
      el = this.add("", "agent");
      this.agents.set(ev.agentId, el);
    }
    return el;
  }

  event(ev) {
    const handler = HANDLERS[ev.type];
    if (handler) handler(this, ev);
  }

  // A variation in a musician's words: the server's musical diff per part ({part: line}), the
  // parts it leaves alone left out ("string pad: new part, 14 notes in bars 9–12").
  describe(diff) {
    const lines = Object.entries(diff || {}).filter(([, line]) => line && line !== "unchanged");
    const plain = this.metaEl?.querySelector(".plain");
    if (plain && lines.length) plain.innerHTML = lines.map(([part, line]) => `<b>${esc(part)}</b>: ${esc(line)}`).join("; ");
  }
}

const HANDLERS = {
  state(t, ev) { // the mode in words; the engine's name for the request one hover away
    t.mode = ev.state;
    t.add(`${MODE_ICONS[ev.state] || "•"} <b>${esc(ev.state.toLowerCase())}</b>`, "state").title = ev.intent || "";
  },
  plan(t, ev) {
    t.checklist(ev.title);
    for (const s of ev.steps) t.step(s.stepId, s.label, "pending", { track: s.trackName || s.agentId || null });
  },
  planStepUpdate(t, ev) {
    const step = t.steps.get(ev.stepId); if (!step) return;
    t.step(ev.stepId, step.label, ev.status);
    if (ev.error) step.li.title = ev.error;
  },
  toolStart(t, ev) { t.toolLine(t.group(t.instrument(ev)), `… ${esc(ev.label)}`, "tool-start"); },
  toolCall(t, ev) {
    const args = Object.entries(ev.params || {}).filter(([k]) => k !== "notes")
      .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : v}`).join(", ");
    const notes = Array.isArray(ev.params?.notes) ? ` +${ev.params.notes.length} notes` : "";
    t.toolLine(t.group(t.instrument(ev)), `<code>${esc(ev.name)}</code>(${esc(args)})${notes}`, "tool-call");
  },
  toolError(t, ev) {
    const g = t.group(t.instrument(ev));
    g.details.open = true;
    t.toolLine(g, `✗ <code>${esc(ev.name)}</code>: ${esc(ev.error)}`, "tool-error");
  },
  generatorStart(t, ev) {
    if (!ev.stepId) t.step(`write:${ev.role}`, `write the ${ev.role}${ev.bars ? ` (${ev.bars} bars)` : ""}`, "active");
    t.toolLine(t.group(t.instrument(ev)), `♪ ${esc(ev.generator)} writes the ${esc(ev.role)}${ev.bars ? ` (${ev.bars} bars)` : ""}`, "gen");
  },
  generatorComplete(t, ev) {
    if (!ev.stepId) t.step(`write:${ev.role}`, `write the ${ev.role}: ${ev.noteCount} notes`, "completed");
    t.toolLine(t.group(t.instrument(ev)), `♪ ${esc(ev.role)}: ${ev.noteCount} notes in ${Math.round(ev.durationMs)} ms`, "gen");
  },
  reasoning(t, ev) {
    if (!t.thinking) { t.thinking = t.add(`<details class="thinking" open><summary>thinking</summary><div></div></details>`); }
    t.thinking.querySelector("div").textContent += ev.content;
    t.scroll();
  },
  content(t, ev) {
    if (t.thinking) t.thinking.querySelector("details").open = false;
    if (!t.answer) t.answer = t.add("", "answer");
    t.answer.textContent += ev.content;
    t.scroll();
  },
  meta(t, ev) { // what changes, in words, once the variation's diff is read (describe); the engine's detail folded
    t.variation = ev.variationId;
    if (t.planList) t.step("propose", "compare with the song: the phrases that change", "active");
    const counts = ev.noteCounts || {};
    t.metaEl = t.add(`<b>Proposed</b> <span class="plain">${esc(ev.intent)}</span>
      <details class="how"><summary>details</summary><div class="muted">${esc(ev.intent)}${ev.explanation ? ` — ${esc(ev.explanation)}` : ""}
      (+${counts.added || 0} −${counts.removed || 0} ~${counts.modified || 0} notes${ev.cost ? `, ${esc(ev.cost)}` : ""})</div></details>`, "meta");
  },
  phrase(t) { t.phrases += 1; },
  done(t, ev) {
    if (t.steps.has("propose")) {
      t.step("propose", ev.status === "ready" ? `${ev.phraseCount} phrase${ev.phraseCount === 1 ? "" : "s"} to review` : `proposal ${ev.status}`,
        ev.status === "ready" ? "completed" : "failed");
    }
    t.add(ev.status === "ready" ? `<button class="review" data-variation="${esc(ev.variationId)}">Review ${ev.phraseCount} phrase${ev.phraseCount === 1 ? "" : "s"}</button>`
      : `variation ${esc(ev.status)}`, "done");
  },
  "summary.final"(t, ev) { // the engine's account of a proposal joins its folded detail; other turns show it
    const how = t.metaEl?.querySelector(".how div");
    if (how) how.insertAdjacentHTML("beforeend", `<div>${esc(ev.summary)}</div>`);
    else t.add(esc(ev.summary), "summary");
  },
  preflight(t, ev) {
    t.agent(ev).innerHTML = `<span class="chip">${esc(ev.role)}</span> <b>${esc(ev.agentId)}</b>${ev.section ? ` · ${esc(ev.section)}` : ""} — ${esc(ev.label)} <span class="agent-state">working</span>`;
  },
  status(t, ev) {
    if (ev.agentId) { const el = t.agent(ev); let s = el.querySelector(".agent-status"); if (!s) { s = document.createElement("div"); s.className = "agent-status muted"; el.appendChild(s); } s.textContent = ev.message; }
    else t.add(esc(ev.message), "status muted");
  },
  agentComplete(t, ev) {
    const el = t.agent(ev), state = el.querySelector(".agent-state");
    if (state) { state.textContent = ev.success ? "done" : "failed"; state.className = `agent-state ${ev.success ? "ok" : "bad"}`; }
  },
  error(t, ev) { t.add(`✗ ${esc(ev.message)}`, "error"); },
  complete(t, ev) {
    t.done = ev;
    t.el.classList.add(ev.success ? "turn-ok" : "turn-failed");
    if (!ev.success && ev.error) t.add(`✗ ${esc(ev.error)}`, "error");
    for (const w of ev.warnings || []) t.add(`⚠ ${esc(w)}`, "warning");
  },
};
