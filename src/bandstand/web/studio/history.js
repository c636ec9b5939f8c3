// The history: every change, newest first — its revision, the request, who made it and what it
// changed — the undone ones marked; undo and redo (buttons, Ctrl-Z, Ctrl-Shift-Z); and the
// export links (MIDI, WAV, stems, MusicXML), which download what HEAD is now.

import { get } from "./api.js";
import { esc } from "./dom.js";

export async function showHistory(box, projectId) {
  const { entries, head } = await get(`/projects/${encodeURIComponent(projectId)}/history`);
  box.innerHTML = [...entries].reverse().map((e) => {
    const changes = (e.changes || []).length;
    return `<li class="${e.undone ? "undone" : ""} ${e.head ? "head" : ""}" data-revision="${e.revision}">
      <span class="rev">r${e.revision}</span>
      <span class="what">${esc(e.request || e.summary || e.kind || "change")}</span>
      ${e.request && e.summary && e.summary !== e.request ? `<span class="muted summary">${esc(e.summary)}</span>` : ""}
      <span class="muted who">${esc(e.author || "")}${changes ? ` · ${changes} change${changes === 1 ? "" : "s"}` : ""}${e.undone ? " · undone" : ""}${e.head ? " · HEAD" : ""}</span></li>`;
  }).join("");
  return { entries, head };
}

export function exportLinks(box, projectId) {
  for (const a of box.querySelectorAll("a[data-format]")) {
    a.href = `/api/v1/projects/${encodeURIComponent(projectId)}/export?format=${a.dataset.format}`;
  }
}
