// The session log view (the runtime's phase 1): watch a team run, an agent session or the board.
//
// A run: one banner per agent (its role — leader, teammate, or what a team agent announced —
// its state, backend, turns and cost), then what happened in time order: each agent's turn as one
// card (its input folded, the text it wrote, tool calls folded, the reply), message cards for
// leader → teammate tasks and teammate → leader results, and the end. Events of the studio's agent
// teams (agentId, section) group by agent the same way. Live over SSE; a finished run's log replays
// in the same view (▶ Replay plays it again at its own pace, faster).
// The board: every task with its state, who works it, its heartbeat's age (ticking) and whether it
// is stale, and the messages, newest first.

import { ApiError, follow, get } from "./api.js";
import { esc, timeAgo } from "./dom.js";

const STATE_CLASS = { processing: "st-busy", starting: "st-busy", waiting_for_input: "st-idle", completed: "st-ok", failed: "st-bad",
  timed_out: "st-bad", stopped: "st-idle", working: "st-busy", done: "st-ok" };

function short(value, limit = 600) {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 1);
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

export class RunView {
  constructor(root, name) {
    this.root = root;
    this.name = name;
    this.reset();
    root.innerHTML = `<header class="log-head"><h2>${esc(name)}</h2>
        <span class="live muted" id="log-live">connecting…</span>
        <button id="log-replay" title="play the log again at its own pace (faster)">▶ Replay</button></header>
      <div class="banners" id="banners"></div><div class="feed" id="feed"></div>`;
    this.banners = root.querySelector("#banners");
    this.feed = root.querySelector("#feed");
    root.querySelector("#log-replay").onclick = () => this.replay();
    this.close = follow(`/runs/${encodeURIComponent(name)}/stream`, ["events"], (batch) => {
      root.querySelector("#log-live").textContent = batch.truncated ? "live (the log is longer than the view reads)" : "live";
      if (batch.from_start && this.all.length) { // a reconnected stream starts over: draw it afresh
        clearTimeout(this.replaying); this.all = []; this.banners.innerHTML = ""; this.feed.innerHTML = ""; this.reset();
      }
      for (const ev of batch.events) { this.all.push(ev); this.add(ev); }
    }, () => { const live = root.querySelector("#log-live"); if (live) live.textContent = "reconnecting…"; });
  }

  reset() {
    this.all = this.all || [];
    this.agents = new Map(); // agent key → {name, role, state, backend, turns, cost, el}
    this.cards = new Map(); // agent key + turn → card element
    this.leader = null; this.teammates = new Set();
  }

  stop() { this.close?.(); clearTimeout(this.replaying); }

  key(ev) { return ev.agent_id || ev.agentId || ev.session || "?"; }

  agent(key, ev = {}) {
    let a = this.agents.get(key);
    if (!a) {
      a = { name: key, role: "agent", state: "starting", backend: "", turns: 0, cost: 0, el: document.createElement("div") };
      a.el.className = "banner";
      this.agents.set(key, a);
      this.banners.appendChild(a.el);
    }
    if (ev.section) a.section = ev.section;
    return a;
  }

  banner(a) {
    const role = a.name === this.leader ? "leader" : this.teammates.has(a.name) ? "teammate" : a.role;
    a.el.dataset.agent = a.name;
    a.el.className = `banner ${STATE_CLASS[a.state] || ""}`;
    a.el.innerHTML = `<div class="banner-name"><b>${esc(a.name)}</b> <span class="chip">${esc(role)}</span></div>
      <div class="banner-state"><span class="dot"></span>${esc(String(a.state).replace(/_/g, " "))}</div>
      <div class="muted">${esc([a.backend, a.section, a.team ? "" : `${a.turns} turn${a.turns === 1 ? "" : "s"}`, a.cost ? `$${a.cost.toFixed(4)}` : ""].filter(Boolean).join(" · "))}</div>`;
  }

  // The card of an agent's turn (a session's turn number), or of its work (a team agent: `turn`
  // null), where what it says next goes.
  card(a, turn) {
    const id = `${a.name}#${turn}`;
    let card = this.cards.get(id);
    if (!card) {
      card = document.createElement("article");
      card.className = "turn-card";
      card.dataset.agent = a.name;
      const title = turn === null ? a.role : `turn ${Number(turn) + 1}`;
      card.innerHTML = `<header><b>${esc(a.name)}</b> <span class="muted">${esc(title)}</span></header><div class="body"></div>`;
      this.feed.appendChild(card);
      this.cards.set(id, card);
    }
    return card.querySelector(".body");
  }

  message(cls, from, to, text, ok = true) {
    const div = document.createElement("article");
    div.className = `message-card ${cls} ${ok ? "" : "failed"}`;
    div.innerHTML = `<header><b>${esc(from)}</b> → <b>${esc(to)}</b></header><div>${esc(short(text))}</div>`;
    this.feed.appendChild(div);
  }

  add(ev) {
    const handler = EVENTS[ev.type];
    if (handler) handler(this, ev);
    else if (ev.type && !QUIET.has(ev.type)) { // events of kinds this view does not know yet: shown folded, never lost
      const a = this.agent(this.key(ev), ev);
      const body = this.card(a, ev.turn ?? "-");
      body.insertAdjacentHTML("beforeend", `<details class="other"><summary>${esc(ev.type)}</summary><pre>${esc(short(ev, 2000))}</pre></details>`);
    }
  }

  replay() {
    clearTimeout(this.replaying);
    const events = [...this.all];
    this.banners.innerHTML = ""; this.feed.innerHTML = "";
    this.reset();
    let i = 0;
    const step = () => {
      if (i >= events.length) return;
      this.add(events[i]);
      const gap = i + 1 < events.length ? (events[i + 1].ts || 0) - (events[i].ts || 0) : 0;
      i += 1;
      this.replaying = setTimeout(step, Math.max(15, Math.min(600, gap * 250)));
    };
    step();
  }
}

const QUIET = new Set(["toolStart", "phrase"]); // said again by toolCall, counted by done

const EVENTS = {
  team_started(v, ev) {
    v.leader = ev.leader; for (const t of ev.teammates || []) v.teammates.add(t);
    for (const name of [ev.leader, ...(ev.teammates || [])]) v.banner(v.agent(name));
    v.feed.insertAdjacentHTML("beforeend", `<div class="log-note">Team <b>${esc(ev.session)}</b>: ${esc(short(ev.prompt || ""))}</div>`);
  },
  session_started(v, ev) { const a = v.agent(v.key(ev), ev); a.backend = ev.backend; v.banner(a); },
  state_changed(v, ev) { const a = v.agent(v.key(ev), ev); a.state = ev.to_state; v.banner(a); },
  turn_started(v, ev) {
    const a = v.agent(v.key(ev), ev);
    v.card(a, ev.turn).insertAdjacentHTML("beforeend", `<details class="input"><summary>input</summary><pre>${esc(short(ev.input, 4000))}</pre></details>`);
  },
  text_delta(v, ev) {
    const body = v.card(v.agent(v.key(ev), ev), ev.turn);
    let text = body.querySelector(".text");
    if (!text) { text = document.createElement("div"); text.className = "text"; body.appendChild(text); }
    text.textContent = short(text.textContent + ev.text, 4000);
  },
  tool_use(v, ev) {
    const tool = ev.tool || {};
    v.card(v.agent(v.key(ev), ev), ev.turn).insertAdjacentHTML("beforeend",
      `<details class="tool"><summary>⚙ ${esc(tool.name || "tool")}</summary><pre>${esc(short(tool.input ?? tool.arguments ?? tool, 4000))}</pre></details>`);
  },
  turn_completed(v, ev) {
    const a = v.agent(v.key(ev), ev); a.turns += 1; a.cost += ev.cost_usd || 0; v.banner(a);
    const body = v.card(a, ev.turn);
    if (!body.querySelector(".text")) body.insertAdjacentHTML("beforeend", `<div class="text">${esc(short(ev.reply, 4000))}</div>`);
    body.insertAdjacentHTML("beforeend", `<div class="muted small">done in ${(ev.duration_s ?? 0).toFixed(2)} s</div>`);
  },
  turn_failed(v, ev) { v.card(v.agent(v.key(ev), ev), ev.turn).insertAdjacentHTML("beforeend", `<div class="error">✗ ${esc(ev.reason)}: ${esc(ev.error)}</div>`); },
  reply_invalid(v, ev) { v.card(v.agent(v.key(ev), ev), ev.turn).insertAdjacentHTML("beforeend", `<div class="warning">⚠ invalid reply (${esc(ev.action)}): ${esc(short(ev.error, 300))}</div>`); },
  session_ended(v, ev) { const a = v.agent(v.key(ev), ev); a.state = ev.state || "stopped"; v.banner(a); },
  delegated(v, ev) { v.message("delegated", v.leader || "leader", ev.to, ev.task); },
  teammate_result(v, ev) { v.message("result", ev.from_member, v.leader || "leader", ev.result, ev.ok); },
  leader_invalid(v, ev) { v.feed.insertAdjacentHTML("beforeend", `<div class="warning">⚠ the leader's reply was invalid: ${esc(short(ev.error, 300))}</div>`); },
  team_ended(v, ev) {
    v.feed.insertAdjacentHTML("beforeend", `<article class="message-card end"><header><b>Team ${esc(ev.reason)}</b> <span class="muted">${ev.rounds} rounds</span></header><div>${esc(short(ev.answer || "", 4000))}</div></article>`);
  },
  // the studio's agent teams: their stream written to a run log (`compose --team`), by agentId
  state(v, ev) { v.feed.insertAdjacentHTML("beforeend", `<div class="log-note">${esc(ev.state)}: ${esc(ev.intent)}</div>`); },
  plan(v, ev) {
    v.plan = document.createElement("article");
    v.plan.className = "turn-card plan-box";
    v.plan.innerHTML = `<header><b>${esc(ev.title)}</b></header><ol class="plan">${ev.steps.map((st) =>
      `<li class="step pending" data-step="${esc(st.stepId)}"><span class="mark">○</span> ${esc(st.label)}${st.agentId ? ` <span class="muted">${esc(st.agentId)}</span>` : ""}</li>`).join("")}</ol>`;
    v.feed.appendChild(v.plan);
  },
  planStepUpdate(v, ev) {
    const li = v.plan?.querySelector(`[data-step="${CSS.escape(ev.stepId)}"]`); if (!li) return;
    li.className = `step ${ev.status}`;
    li.querySelector(".mark").textContent = { active: "◌", completed: "✓", failed: "✗", skipped: "–" }[ev.status] || "•";
  },
  preflight(v, ev) {
    const a = v.agent(v.key(ev), ev); a.role = ev.role; a.team = true; a.state = "working"; v.banner(a);
    v.card(a, null).insertAdjacentHTML("beforeend", `<div>${esc(ev.label)}</div>`);
  },
  status(v, ev) { v.card(v.agent(v.key(ev), ev), null).insertAdjacentHTML("beforeend", `<div class="muted">… ${esc(ev.message)}</div>`); },
  reasoning(v, ev) { v.card(v.agent(v.key(ev), ev), null).insertAdjacentHTML("beforeend", `<div class="text">${esc(short(ev.content, 2000))}</div>`); },
  toolCall(v, ev) {
    v.card(v.agent(v.key(ev), ev), null).insertAdjacentHTML("beforeend",
      `<details class="tool"><summary>⚙ ${esc(ev.name)}</summary><pre>${esc(short(ev.params, 4000))}</pre></details>`);
  },
  toolError(v, ev) { v.card(v.agent(v.key(ev), ev), null).insertAdjacentHTML("beforeend", `<div class="error">✗ ${esc(ev.name)}: ${esc(ev.error)}</div>`); },
  generatorStart(v, ev) { v.card(v.agent(v.key(ev), ev), null).insertAdjacentHTML("beforeend", `<div class="muted">♪ ${esc(ev.generator)} writes the ${esc(ev.role)}</div>`); },
  generatorComplete(v, ev) { v.card(v.agent(v.key(ev), ev), null).insertAdjacentHTML("beforeend", `<div>♪ ${ev.noteCount} notes in ${Math.round(ev.durationMs)} ms</div>`); },
  agentComplete(v, ev) {
    const a = v.agent(v.key(ev), ev); a.state = ev.success ? "done" : "failed"; v.banner(a);
    if (ev.summary) v.card(a, null).insertAdjacentHTML("beforeend", `<div class="${ev.success ? "" : "error"}">${ev.success ? "✓" : "✗"} ${esc(ev.summary)}</div>`);
  },
  meta(v, ev) { v.feed.insertAdjacentHTML("beforeend", `<article class="message-card result"><header><b>Variation</b> ${esc(ev.intent)}</header><div>${esc(ev.explanation || "")}</div></article>`); },
  done(v, ev) { v.feed.insertAdjacentHTML("beforeend", `<div class="log-note">variation ${esc(ev.status)}: ${ev.phraseCount} phrases to review</div>`); },
  "summary.final"(v, ev) { v.feed.insertAdjacentHTML("beforeend", `<div class="log-note">${esc(ev.summary)}</div>`); },
  complete(v, ev) {
    v.feed.insertAdjacentHTML("beforeend", `<article class="message-card end ${ev.success ? "" : "failed"}"><header><b>${ev.success ? "Done" : "Failed"}</b>${ev.revision ? ` <span class="muted">revision ${ev.revision}</span>` : ""}</header><div>${esc(ev.error || (ev.warnings || []).join("; "))}</div></article>`);
  },
};

// ---------------------------------------------------------------------- the board

export class BoardView {
  constructor(root) {
    this.root = root;
    this.messages = [];
    root.innerHTML = `<header class="log-head"><h2>Board</h2><span class="muted" id="board-url"></span><span class="live muted" id="board-live">connecting…</span></header>
      <table class="tasks"><thead><tr><th>task</th><th>state</th><th>worked by</th><th>phase</th><th>heartbeat</th><th>retries</th><th>last error</th></tr></thead><tbody id="tasks"></tbody></table>
      <h3>Messages</h3><ol class="board-messages" id="board-messages"></ol>`;
    this.close = () => {};
    this.ticker = setInterval(() => this.tick(), 1000);
    this.start();
  }

  // The board now (GET /board) first: when the server has none it says so, in one line, and the
  // view says how to make one instead of following a stream that cannot open.
  async start() {
    try {
      this.update(await get("/board"));
    } catch (error) {
      if (this.stopped) return;
      if (error instanceof ApiError && error.status === 404) { this.missing(error.message); return; }
    }
    if (this.stopped) return;
    this.close = follow("/board/stream", ["board"], (snap) => this.update(snap), () => {
      const live = this.root.querySelector("#board-live"); if (live) live.textContent = "reconnecting…";
    });
  }

  missing(detail) {
    this.root.querySelector("#board-live").textContent = "no board";
    this.root.querySelector(".tasks").hidden = true;
    this.root.querySelector("h3").hidden = true;
    this.root.querySelector("#board-messages").outerHTML = `<div class="no-board" id="no-board"><p><b>There is no task board yet.</b>
      ${esc(detail)}</p><p>Start one with <code>bandstand board init</code> (an SQLite file here), or serve another with
      <code>bandstand serve --board URL</code> (<code>sqlite:///PATH</code> or <code>postgresql://…</code>); then open this view again.</p></div>`;
  }

  stop() { this.stopped = true; this.close(); clearInterval(this.ticker); }

  update(snap) {
    this.root.querySelector("#board-live").textContent = "live";
    this.root.querySelector("#board-url").textContent = snap.url || "";
    this.snap = snap; this.received = Date.now();
    this.staleAfter = snap.stale_after_s;
    const seen = new Set(this.messages.map((m) => m.id)); // a reconnected stream starts with the newest again
    this.messages = [...snap.messages.filter((m) => !seen.has(m.id)), ...this.messages].sort((a, b) => b.id - a.id).slice(0, 200);
    this.render();
  }

  age(task) {
    if (task.heartbeat_age_s === null || task.heartbeat_age_s === undefined) return null;
    return task.heartbeat_age_s + (Date.now() - this.received) / 1000;
  }

  render() {
    const tasks = this.snap?.tasks || [];
    this.root.querySelector("#tasks").innerHTML = tasks.map((t) => {
      const age = this.age(t), stale = t.state === "working" && (age === null || age > this.staleAfter);
      return `<tr data-task="${esc(t.task_id)}" class="${stale ? "stale" : ""}"><td><b>${esc(t.task_id)}</b></td>
        <td><span class="chip state-${esc(t.state)}">${esc(t.state)}</span></td><td>${esc(t.worked_by || "—")}</td><td>${esc(t.phase || "")}</td>
        <td class="age">${timeAgo(age)}${stale ? ' <b class="bad">STALE</b>' : ""}</td><td>${t.retry_count}</td><td class="muted">${esc(t.last_error || "")}</td></tr>`;
    }).join("") || `<tr><td colspan="7" class="muted">no tasks</td></tr>`;
    this.root.querySelector("#board-messages").innerHTML = this.messages.map((m) => `<li class="type-${esc(m.message_type)}">
      <span class="muted">#${m.id} ${esc(m.timestamp)}</span> <b>${esc(m.task_id)}</b> <span class="chip">${esc(m.message_type)}</span>
      <span class="muted">${esc(m.from_session || "")}</span><div>${esc(short(m.message, 1200))}</div></li>`).join("");
  }

  tick() { if (this.snap) for (const row of this.root.querySelectorAll("tr[data-task]")) {
    const t = this.snap.tasks.find((x) => x.task_id === row.dataset.task);
    const age = t && this.age(t), stale = t && t.state === "working" && (age === null || age > this.staleAfter);
    if (t) row.querySelector(".age").innerHTML = `${timeAgo(age)}${stale ? ' <b class="bad">STALE</b>' : ""}`;
  } }
}

export async function listRuns(box, rootLabel) {
  const { runs, root } = await get("/runs");
  rootLabel.textContent = root;
  box.innerHTML = runs.map((r) => `<li><a href="#/logs/${encodeURIComponent(r.name)}">${esc(r.name)}</a>
    <span class="muted">${esc(r.kind)} · ${r.logs} log${r.logs === 1 ? "" : "s"} · ${new Date(r.modified * 1000).toLocaleString()}</span></li>`).join("")
    || `<li class="muted">no runs yet — <code>bandstand team run FILE --prompt …</code> writes one</li>`;
}
