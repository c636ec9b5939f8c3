// The history: every change, newest first, drawn as the branches' graph (each revision in its
// lane, the branches whose head it is beside it) — its revision, the request, who made it and what
// it changed — the undone ones marked; the branch to be on (switching checks it out), a new branch
// at HEAD, a merge of another branch; undo and redo (buttons, Ctrl-Z, Ctrl-Shift-Z); and the export
// links (MIDI, WAV, stems, MusicXML), which download what HEAD is now.

import { get } from "./api.js";
import { esc } from "./dom.js";

export async function showHistory(box, projectId) {
  const data = await get(`/projects/${encodeURIComponent(projectId)}/branches`);
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
