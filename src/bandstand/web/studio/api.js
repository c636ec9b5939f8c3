// The studio page's client of /api/v1: JSON requests, and the two kinds of event streams —
// a POST answered with text/event-stream (the studio stream, compose progress), read with fetch,
// and a GET stream read with EventSource (runs, the board). The page's cookie carries the token;
// nothing here knows it. Errors come back as `ApiError` with the server's one-line `detail`.

export const API = "/api/v1";

export class ApiError extends Error {
  constructor(status, detail) { super(detail); this.status = status; this.detail = detail; }
}

async function answer(response) {
  if (response.ok) {
    const kind = response.headers.get("content-type") || "";
    return kind.includes("json") ? response.json() : response;
  }
  let detail = `${response.status} ${response.statusText}`;
  try { const body = await response.json(); detail = typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail); } catch { /* not JSON */ }
  throw new ApiError(response.status, detail);
}

export async function get(path, { signal } = {}) {
  return answer(await fetch(API + path, { signal, headers: { accept: "application/json" } }));
}

export async function post(path, body = {}, { signal } = {}) {
  return answer(await fetch(API + path, {
    method: "POST", signal, headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  }));
}

// Parse an SSE body: blank-line separated blocks of `event:`/`data:` lines (comments start ':').
export function parseSSE(text) {
  const events = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let kind = "message"; const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") kind = value; else if (field === "data") data.push(value);
    }
    if (data.length) events.push({ kind, data: data.join("\n") });
  }
  return events;
}

// POST `body` to `path` and call onEvent(parsedJson, kind) for every SSE event as it arrives.
// Resolves when the stream ends; abort with `signal` (the server cancels the work it started).
export async function stream(path, body, onEvent, { signal } = {}) {
  const response = await fetch(API + path, {
    method: "POST", signal, headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body),
  });
  if (!response.ok) await answer(response);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const end = Math.max(buffer.lastIndexOf("\n\n"), buffer.lastIndexOf("\r\n\r\n"));
    if (end < 0) continue;
    const complete = buffer.slice(0, end); buffer = buffer.slice(end).replace(/^(\r?\n)+/, "");
    for (const ev of parseSSE(complete)) {
      let data; try { data = JSON.parse(ev.data); } catch { data = ev.data; }
      onEvent(data, ev.kind);
    }
  }
  for (const ev of parseSSE(buffer)) { try { onEvent(JSON.parse(ev.data), ev.kind); } catch { /* torn */ } }
}

// Follow a GET SSE stream: onEvent(json, kind) for each event of the named kinds. Returns close().
export function follow(path, kinds, onEvent, onError = () => {}) {
  const source = new EventSource(API + path);
  for (const kind of kinds) source.addEventListener(kind, (e) => onEvent(JSON.parse(e.data), kind));
  source.onerror = (e) => onError(e, source);
  return () => source.close();
}
