// Small DOM helpers the studio's modules share.

export const $ = (selector, root = document) => root.querySelector(selector);

export function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

// A short message at the bottom of the page (errors say what went wrong in one line).
export function toast(text, kind = "") {
  const box = document.getElementById("toasts");
  if (!box) return;
  const div = document.createElement("div");
  div.className = `toast ${kind}`; div.textContent = text; div.setAttribute("role", kind === "error" ? "alert" : "status");
  box.appendChild(div);
  setTimeout(() => div.remove(), kind === "error" ? 8000 : 3500);
}

export function timeAgo(seconds) {
  if (seconds === null || seconds === undefined) return "never";
  if (seconds < 60) return `${Math.round(seconds)} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
