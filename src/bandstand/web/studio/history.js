// The history: every change, newest first, drawn as the branches' graph (each revision in its
// lane, the branches whose head it is beside it) — its revision, the request, who made it and what
// it changed — the undone ones marked; the branch to be on (switching checks it out), a new branch
// at HEAD, a merge of another branch; undo and redo (buttons, Ctrl-Z, Ctrl-Shift-Z); and the export
// links (MIDI, WAV, stems, MusicXML), which download what HEAD is now (the WAV and the stems with
// their progress and a Cancel: `Exports`).

import { get, stream } from "./api.js";
import { esc } from "./dom.js";

// Reads overlap (each change asks for the history, several changes a second under a quick Ctrl-Z):
// only the newest read is drawn, so an answer that comes late never puts an older history back.
let asked = 0;

export async function showHistory(box, projectId) {
  const mine = ++asked;
  const data = await get(`/projects/${encodeURIComponent(projectId)}/branches`);
  if (mine !== asked) return data; // a newer read was asked for: it draws
  box.innerHTML = data.graph.map((g) => {
    if (g.revision === null) return `<li class="joint"><span class="graph">${esc(g.graph)}</span></li>`;
    const labels = g.labels.map((l) => `<span class="branch-label${l.startsWith("HEAD -> ") ? " current" : ""}">${esc(l.replace("HEAD -> ", ""))}</span>`).join("");
    return `<li class="${g.undone ? "undone" : ""} ${g.head ? "head" : ""}" data-revision="${g.revision}" data-branch="${esc(g.branch)}">
      <span class="graph">${esc(g.graph)}</span>
      <span class="rev">r${g.revision}</span>
      <span class="what">${labels}${esc(g.words)}</span>
      <span class="muted who">${esc(g.branch)}${g.undone ? " · undone" : ""}${g.head ? " · HEAD" : ""}</span></li>`;
  }).join("");
  const options = (names) => names.map((n) => `<option value="${esc(n)}"${n === data.current ? " selected" : ""}>${esc(n)}</option>`).join("");
  const names = data.branches.map((b) => b.name);
  document.querySelector("#branch-select").innerHTML = options(names);
  const others = names.filter((n) => n !== data.current);
  document.querySelector("#merge-from").innerHTML = others.length ? options(others) : `<option value="">no other branch</option>`;
  document.querySelector("#branch-merge").disabled = !others.length;
  return data;
}

export function exportLinks(box, projectId) {
  for (const a of box.querySelectorAll("a[data-format]")) {
    a.href = `/api/v1/projects/${encodeURIComponent(projectId)}/export?format=${a.dataset.format}`;
  }
}

// The WAV and the stems take the render's time (half a minute for a long song): asked for from the
// page they are made with their progress shown — what is being rendered and how far, in percent —
// and a Cancel that stops the render (it closes the stream; the server stops within a block of
// work). Once ready the browser downloads the file. `box` holds the export links; `projectId()`
// says the song open now.
export class Exports {
  constructor(box, projectId) {
    this.box = box;
    this.projectId = projectId;
    this.running = null; // {format, controller}
    this.panel = box.querySelector(".export-progress");
    this.panel.querySelector(".cancel").onclick = () => this.cancel();
    box.addEventListener("click", (e) => {
      const a = e.target.closest("a[data-format]");
      if (!a || !PROGRESSIVE.has(a.dataset.format)) return;
      e.preventDefault();
      this.start(a.dataset.format);
    });
  }

  say(text, { percent = null, busy = false, kind = "" } = {}) {
    const panel = this.panel;
    panel.hidden = false;
    panel.dataset.kind = kind;
    panel.querySelector(".what").textContent = text;
    const bar = panel.querySelector("progress");
    bar.hidden = percent === null;
    if (percent !== null) bar.value = percent;
    panel.querySelector(".percent").textContent = percent === null ? "" : `${Math.round(percent)} %`;
    panel.querySelector(".cancel").hidden = !busy;
  }

  async start(format) {
    if (this.running) this.cancel();
    const controller = new AbortController(), label = LABELS[format], project = this.projectId();
    const job = { format, controller, events: [] };
    this.running = job; this.last = job; // (the browser test reads the last job's events)
    this.say(`${label}: starting…`, { percent: 0, busy: true, kind: "running" });
    let ready = null, ended = null;
    try {
      await stream(`/projects/${encodeURIComponent(project)}/export/stream`, { format }, (data, kind) => {
        job.events.push({ kind, data });
        if (kind === "progress") this.say(`${label}: ${data.message}`, { percent: data.percent, busy: true, kind: "running" });
        else if (kind === "ready") ready = data;
        else ended = { kind, data };
      }, { signal: controller.signal });
    } catch (error) {
      if (error.name === "AbortError") return; // cancel() said so
      ended = { kind: "failed", data: { detail: error.message } };
    } finally {
      if (this.running === job) this.running = null;
    }
    if (ready) {
      this.say(`${label} ready (${(ready.bytes / 1e6).toFixed(1)} MB) — downloading`, { percent: 100, kind: "ready" });
      const a = document.createElement("a");
      a.href = ready.url; a.download = ready.filename; a.className = "export-ready"; a.textContent = "download again";
      this.panel.querySelector(".what").append(" · ", a);
      a.click();
    } else if (ended) {
      this.say(`${label}: ${ended.kind === "cancelled" ? "cancelled" : `failed — ${ended.data.detail}`}`, { kind: ended.kind });
    }
  }

  cancel() {
    const job = this.running; if (!job) return;
    this.running = null;
    job.controller.abort();
    this.say(`${LABELS[job.format]}: cancelled — the render stopped, nothing was written`, { kind: "cancelled" });
  }
}

const PROGRESSIVE = new Set(["wav", "stems"]);
const LABELS = { wav: "WAV", stems: "Stems" };
