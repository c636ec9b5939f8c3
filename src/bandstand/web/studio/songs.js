// The songs: every project in the server's folder (newest change first), a new song from a
// prompt, with the compose graph's progress — one line per node (intent, harmony, arrangement,
// parts:drums, parts:bass, …, sound, assembly, validation, output) as it starts and finishes —
// and a MIDI file of one's own imported as a song (POST /projects/import, the file as the body).

import { API, ApiError, get, stream } from "./api.js";
import { esc } from "./dom.js";

const NODE_MARKS = { started: "◌", completed: "✓", skipped: "–", failed: "✗", retry: "↻" };

export async function listSongs(box, rootLabel) {
  const { projects } = await get("/projects");
  rootLabel.textContent = projects.length ? `${projects.length}` : "";
  box.innerHTML = projects.map((p) => `<li><a href="#/song/${encodeURIComponent(p.projectId)}" data-project="${esc(p.projectId)}">
      <b>${esc(p.name)}</b></a>
      <span class="muted">${esc([p.key, p.tempo ? `${Math.round(p.tempo)} BPM` : "", p.bars ? `${p.bars} bars` : "",
        (p.tracks || []).join(", "), p.revision ? `revision ${p.revision}` : ""].filter(Boolean).join(" · "))}</span></li>`).join("")
    || `<li class="muted">No songs yet: describe one above.</li>`;
  return projects;
}

// Compose a song from `body` ({prompt, bars?, seed?}), drawing the nodes' progress into `list`;
// resolves to the new project's summary.
export async function composeSong(body, list) {
  list.hidden = false; list.innerHTML = "";
  const nodes = new Map();
  const line = (node, status, text = "") => {
    let li = nodes.get(node);
    if (!li) { li = document.createElement("li"); li.dataset.node = node; list.appendChild(li); nodes.set(node, li); }
    li.className = `node ${status}`;
    li.innerHTML = `<span class="mark">${NODE_MARKS[status] || "•"}</span> <b>${esc(node)}</b> <span class="muted">${esc(text)}</span>`;
  };
  let session = null, finished = null;
  const onEvent = (ev) => {
    const kind = ev.type;
    if (kind === "pipeline_started") session = ev.sessionDir.split(/[\\/]/).pop();
    else if (kind === "node_started") line(ev.node, "started", ev.attempt > 1 ? `attempt ${ev.attempt}` : "");
    else if (kind === "node_completed") line(ev.node, "completed", ev.summary);
    else if (kind === "node_skipped") line(ev.node, "skipped", ev.reason || "");
    else if (kind === "node_failed") line(ev.node, "failed", ev.message || "");
    else if (kind === "node_retry") line(ev.node, "retry", ev.message || "");
    else if (kind === "pipeline_finished") finished = ev;
  };
  await stream("/projects/stream", body, onEvent);
  if (!finished || !["completed", "completed_partial"].includes(finished.status)) {
    throw new Error(`the song could not be composed: ${finished?.message || finished?.status || "no answer"}`);
  }
  return { projectId: session };
}

// Import a MIDI file (a File from a drop or the file picker) as a new song; resolves to its
// summary ({projectId, import: {parts, key, tempo, sections}}). The server's refusal (not MIDI,
// too big) is an ApiError with its one line.
export async function importSong(file) {
  const query = new URLSearchParams({ filename: file.name, name: file.name.replace(/\.midi?$/i, "") });
  const response = await fetch(`${API}/projects/import?${query}`, {
    method: "POST", headers: { "content-type": "application/octet-stream", accept: "application/json" }, body: file,
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, typeof body.detail === "string" ? body.detail : `${response.status} ${response.statusText}`);
  return body;
}
