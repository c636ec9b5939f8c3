// The studio page: songs, the arrangement of one song (with its piano roll, chat, variation
// review and history), and the session log view — one page, three views chosen by the address:
//
//   #/                 the songs, and a new song from a prompt
//   #/song/ID          a song: play it, change it by hand or by asking, review, undo, export
//   #/logs, #/logs/RUN a run of agents (live), #/board the task board (live)
//
// The page only translates: every change is a tool call or a request to /api/v1, and what the
// server answers is what the page shows. Sound starts only after a click (audio/). For tests,
// `window.studio` exposes the state (the view, the player, frame times).

import { AudioEngine } from "/static/audio/index.js";
import { ApiError, get, post, stream } from "./api.js";
import { ChatTurn } from "./chat.js";
import { $, esc, toast } from "./dom.js";
import { Exports, exportLinks, showHistory } from "./history.js";
import { BoardView, RunView, listRuns } from "./logview.js";
import { PianoRoll } from "./pianoroll.js";
import { barOf, barStart, indexProject, phraseNotes, toSong, withPhrases, withTracks } from "./project.js";
import { Review } from "./review.js";
import { composeSong, importSong, listSongs } from "./songs.js";
import { Arrangement } from "./timeline.js";
import { TrackHeads } from "./tracks.js";
import { followTransport } from "./remote.js";
import { Transport } from "./transport.js";
import { Scratch } from "./scratch.js";

// An address with ?token= opens the page once (the server swaps it for the cookie and sends the
// browser on without it); should one still show, it leaves the address and the history at once.
if (new URLSearchParams(location.search).has("token")) {
  history.replaceState(null, "", location.pathname + location.hash);
}

const audio = new AudioEngine();
const state = {
  projectId: null, data: null, view: null, // the song at HEAD
  variation: null, accepted: null, proposal: null, ab: "A", // the variation under review
  roll: null, // {trackId, regionId, ghosts}
  busy: 0, logView: null, streaming: null,
  remote: null, // stops following the server's transport of the open song
};
window.studio = { state, audio, get view() { return state.view; } };

// ---------------------------------------------------------------------- views

const arrangement = new Arrangement($("#arrange"), {
  heads: $("#heads"),
  onSelect: () => {},
  onOpen: (region, track) => openRoll(track.id, region.id),
  onSeek: (beat) => transport.seek(beat),
  onLoop: (section) => { state.autoLoop = false; transport.toggleLoop(section); },
});
const heads = new TrackHeads($("#heads"), $("#track-dialog"), {
  onMix: (trackId, mix) => { audio.setMix(trackId, mix); showAudible(); },
  onTool: (calls, request) => applyTools(calls, request),
  effectTypes: () => effectTypes(),
});
const roll = new PianoRoll($("#roll"), { onEdit: (edit) => rollEdit(edit), onClose: () => closeRoll() });
const review = new Review($("#review"), {
  onFocus: (phrase) => focusPhrase(phrase),
  onAudition: (phrase) => audition(phrase),
  onAccept: (ids) => commitVariation(ids),
  onDiscard: () => discardVariation(),
  onAgain: () => ask("try something different"),
  onChange: (accepted) => { state.accepted = accepted; refreshProposal(); },
});
const transport = new Transport(audio, arrangement, { song: () => toSong(audible()), view: () => state.view });
for (const name of ["player", "loop", "cursor"]) { // what the transport holds, as the page's state
  Object.defineProperty(state, name, { get: () => transport[name], set: (v) => { transport[name] = v; }, enumerable: true });
}
window.studio.arrangement = arrangement;
window.studio.roll = roll;
window.studio.transport = transport;
const scratch = new Scratch({
  audio,
  context: () => ({ key: state.view?.key || null, tempo: state.view?.tempo || null }),
  stopSong: () => transport.stop(),
  say: (text, kind) => { const line = $("#scratch-status"); line.textContent = text; line.dataset.kind = kind; },
});
window.studio.scratch = scratch;
const exports = new Exports($(".exports"), () => state.projectId);
window.studio.exports = exports;

function show(name) {
  for (const id of ["songs-view", "song-view", "logs-view"]) $(`#${id}`).hidden = id !== `${name}-view`;
  for (const a of document.querySelectorAll("[data-nav]")) a.classList.toggle("on", a.dataset.nav === name || (name === "song" && a.dataset.nav === "songs"));
  $("#transport").hidden = name !== "song";
  if (name !== "song") $("#song-title").textContent = "";
}

async function route() {
  const [, view, arg] = (location.hash || "#/").slice(1).split("/");
  state.logView?.stop(); state.logView = null;
  if (view === "song" && arg) { show("song"); await openSong(decodeURIComponent(arg)); return; }
  transport.stop();
  state.projectId = null;
  state.remote?.(); state.remote = null;
  if (view === "logs" || view === "board") {
    show("logs");
    listRuns($("#runs"), $("#runs-root")).catch((e) => toast(e.message, "error"));
    const box = $("#log");
    if (view === "board") state.logView = new BoardView(box);
    else if (arg) state.logView = new RunView(box, decodeURIComponent(arg));
    else box.innerHTML = `<p class="muted">Choose a run: its agents and what they said, live as they work.</p>`;
    return;
  }
  show("songs");
  listSongs($("#songs"), $("#songs-root")).catch((e) => toast(e.message, "error"));
}

// ---------------------------------------------------------------------- a song

async function openSong(projectId) {
  if (state.projectId !== projectId) {
    transport.stop(); closeRoll(); clearVariation(); exports.cancel();
    $("#chat").innerHTML = "";
    state.projectId = projectId;
    exportLinks($(".exports"), projectId);
    state.remote?.();
    state.remote = followTransport(projectId, transport, { onError: (e) => toast(e.message, "error") });
  }
  await post(`/projects/${encodeURIComponent(projectId)}/open`); // a composed song becomes a project (GETs only read)
  await reload();
  showSuggestions();
  arrangement.open();
  showHistory($("#history"), projectId).catch(() => {});
  resumeVariation().catch(() => {});
}

// Read the song at HEAD and show it everywhere (a playing song switches to it where it is). Reads
// may overlap (a change's own, another tab's seen by `watchHead`, a song opened meanwhile): a read
// answered after a newer one was asked for is not shown — it waits for the newer one, which is —
// so a late answer never shows an older HEAD, or the song before, over the newer.
let reading = null;
async function reload() {
  const mine = get(`/projects/${encodeURIComponent(state.projectId)}?view=true`);
  reading = mine;
  const data = await mine;
  if (reading !== mine) {
    for (let newer = null; newer !== reading;) { newer = reading; await newer.catch(() => {}); }
    return state.view;
  }
  state.data = data;
  state.view = indexProject({ ...data.project, view: data.view || data.project.view });
  const v = state.view;
  $("#song-title").innerHTML = `<b>${esc(v.name || state.projectId)}</b>`;
  $("#facts").textContent = `${v.key || ""} · ${Math.round(v.tempo)} BPM · ${v.bars} bars · r${data.revision}`;
  if (!state.variation) showArrangement();
  if (state.variation) {
    review.setStale(state.variation.baseRevision !== data.revision);
    refreshProposal();
  }
  transport.heard();
  showAudible();
  if (state.roll) {
    openRoll(state.roll.trackId, state.roll.regionId, { keep: true });
    // the roll's status names the revision shown (an undo, a redo, another tab moved HEAD); a save
    // in flight says so until it is answered
    if ($("#roll-status").textContent !== "saving…") $("#roll-status").textContent = `revision ${data.revision}`;
  }
  return v;
}

// What is heard (and drawn): the song, or the variation's proposal when B is chosen; under review,
// A has the lanes of the parts B adds (empty), so both show the same tracks.
function audible() {
  if (state.ab === "B" && state.proposal) return state.proposal;
  return (state.variation && state.base) || state.view;
}

// The lanes and their heads for what is heard (a part the variation adds gets both).
function showArrangement() {
  const shown = audible();
  heads.render(shown);
  arrangement.setView(shown);
  showAudible();
}

// A solo dims the other lanes and heads, a mute its own: what the page's mixer lets be heard.
function showAudible() {
  const shown = audible(); if (!shown) return;
  const silent = shown.tracks.filter((t) => !t.proposed && audio.tracks.has(t.id) && !audio.audible(t.id)).map((t) => t.id);
  arrangement.setSilenced(silent);
  for (const head of document.querySelectorAll("#heads .head")) head.classList.toggle("silenced", silent.includes(head.dataset.track));
}

// Changes go to the server one after another, in the order they were made (two quick undos are
// two undos; an edit made while another is saving follows it).
let queue = Promise.resolve();
function serial(work) {
  state.busy += 1;
  const run = () => Promise.resolve().then(work).finally(() => { state.busy -= 1; });
  const next = queue.then(run, run);
  queue = next.catch(() => {});
  return next;
}

function applyTools(calls, request) { return serial(() => applyToolsNow(calls, request)); }

async function applyToolsNow(calls, request) {
  state.busy += 1;
  try {
    const out = await post(`/projects/${encodeURIComponent(state.projectId)}/tools`, { calls, request });
    toast(out.changed === false ? "nothing changed" : `${request} — revision ${out.revision}`);
    await reload();
    showHistory($("#history"), state.projectId).catch(() => {});
    return out;
  } catch (error) {
    toast(error.message, "error");
    await reload().catch(() => {});
    return null;
  } finally { state.busy -= 1; }
}

let effectList = null;
function effectTypes() { return effectList || []; }
async function loadTools() {
  try {
    const doc = await get("/protocol/tools.json");
    const tools = doc.tools || doc;
    const fx = (Array.isArray(tools) ? tools : []).find((t) => t.name === "add_insert_effect");
    effectList = fx?.parameters?.properties?.type?.enum || [];
  } catch { effectList = []; }
}

// ---------------------------------------------------------------------- the piano roll

function findRegion(trackId, regionId) {
  const track = state.view?.tracks.find((t) => t.id === trackId);
  const region = track?.regions.find((r) => r.id === regionId);
  return track && region ? { track, region } : null;
}

function openRoll(trackId, regionId, { keep = false, ghosts = null } = {}) {
  const found = findRegion(trackId, regionId);
  if (!found) { closeRoll(); return; }
  state.roll = { trackId, regionId, ghosts: ghosts ?? (keep ? state.roll?.ghosts : null) };
  $("#roll-panel").hidden = false;
  const first = barOf(state.view, found.region.start_beat), last = barOf(state.view, found.region.start_beat + found.region.length_beats - 1e-6);
  $("#roll-title").textContent = `${found.track.name} · ${found.region.name || "region"} · bars ${first}–${last}`;
  roll.open(found.track, found.region, { drumNames: state.view.drumNames, beatsPerBar: state.view.beatsPerBar, ghosts: state.roll.ghosts || [] });
  arrangement.select(regionId);
  if (!keep) roll.scroller.focus();
}

function closeRoll() {
  state.roll = null;
  $("#roll-panel").hidden = true;
  arrangement.resize();
}

async function rollEdit(edit) {
  const { regionId } = state.roll;
  const calls = {
    update: () => [{ name: "update_notes", args: { region: regionId, notes: edit.changes } }],
    remove: () => [{ name: "remove_notes", args: { region: regionId, note_ids: edit.ids } }],
    add: () => [{ name: "add_notes", args: { region: regionId, notes: edit.notes } }],
  }[edit.kind]();
  const words = { update: `edit ${edit.changes?.length} note${edit.changes?.length === 1 ? "" : "s"}`,
    remove: `delete ${edit.ids?.length} note${edit.ids?.length === 1 ? "" : "s"}`, add: "add a note" }[edit.kind];
  $("#roll-status").textContent = "saving…";
  const out = await applyTools(calls, `piano roll: ${words}`);
  $("#roll-status").textContent = out ? `revision ${out.revision}` : "not saved";
}

// ---------------------------------------------------------------------- chat and variations

// An empty chat offers a first step: a few requests that fit this song (the server's, drawn from
// its parts and sections); a click asks one.
function showSuggestions() {
  const chat = $("#chat"), offered = state.view?.suggestions || [];
  if (chat.querySelector(".turn") || !offered.length) return;
  chat.innerHTML = `<div class="chips" aria-label="things to ask"><p class="muted">Ask the band for a change, for instance:</p>
    ${offered.map((s) => `<button type="button" class="chip-ask" data-ask="${esc(s)}">${esc(s)}</button>`).join("")}</div>`;
}

async function ask(prompt) {
  if (!state.projectId || !prompt.trim()) return;
  $("#chat .chips")?.remove();
  if (state.streaming) state.streaming.abort();
  const controller = new AbortController();
  state.streaming = controller;
  selectTab("chat");
  const turn = new ChatTurn($("#chat"), prompt);
  const phrases = [];
  let meta = null;
  $("#send").disabled = true;
  try {
    await stream("/stream", { prompt, projectId: state.projectId, conversationId: state.conversationId || undefined }, (ev) => {
      turn.event(ev);
      if (ev.type === "state" && ev.conversationId) state.conversationId = ev.conversationId;
      if (ev.type === "meta") { meta = ev; phrases.length = 0; }
      else if (ev.type === "phrase") phrases.push(ev);
    }, { signal: controller.signal });
  } catch (error) {
    if (error.name !== "AbortError") turn.event({ type: "error", message: error.message });
  } finally {
    $("#send").disabled = false;
    if (state.streaming === controller) state.streaming = null;
  }
  const done = turn.done;
  if (done?.variationId && meta && phrases.length) await showVariation({ variationId: done.variationId, meta, phrases, turn });
  else if (done?.success && done.revision && done.revision !== state.data?.revision) {
    await reload(); showHistory($("#history"), state.projectId).catch(() => {});
  }
}

async function showVariation({ variationId, meta, phrases, turn = null }) {
  let detail = {};
  try { detail = await get(`/variations/${encodeURIComponent(variationId)}`); } catch { /* the events suffice */ }
  turn?.describe(detail.diff);
  state.variation = { variationId, meta, phrases, intent: meta.intent, explanation: meta.explanation, diff: detail.diff,
    baseRevision: meta.baseRevision, stale: meta.baseRevision !== state.data?.revision, addedTracks: detail.addedTracks || [] };
  state.accepted = new Set(phrases.map((p) => p.phraseId));
  review.show(state.variation);
  $("#review-badge").hidden = false; $("#review-badge").textContent = String(phrases.length);
  $("#ab").hidden = false;
  refreshProposal();
  selectTab("review");
}

// Reopen a variation left ready (a reload, a second tab).
async function resumeVariation() {
  const list = await get(`/projects/${encodeURIComponent(state.projectId)}/variations`);
  const ready = (list.variations || []).filter((v) => v.state === "ready" && !v.stale).pop();
  if (!ready || state.variation) return;
  const detail = await get(`/variations/${encodeURIComponent(ready.variation_id)}`);
  const events = detail.events || [];
  const meta = events.find((e) => e.type === "meta");
  const phrases = events.filter((e) => e.type === "phrase");
  if (meta && phrases.length) await showVariation({ variationId: ready.variation_id, meta, phrases });
}

function refreshProposal() {
  if (!state.variation || !state.view) return;
  state.base = withTracks(state.view, state.variation.addedTracks);
  state.proposal = withPhrases(state.base, state.variation.phrases, state.accepted);
  showArrangement();
  arrangement.setHighlights(state.variation.phrases.map((p) => ({ ...p, accepted: state.accepted.has(p.phraseId),
    focused: state.focusedPhrase === p.phraseId })));
  if (state.ab === "B") transport.heard();
}

// The bars a variation changes (its phrases' span, whole bars): where B loops while you listen.
function changedBars() {
  const phrases = state.variation?.phrases || [], view = state.view;
  if (!phrases.length || !view) return null;
  const start = Math.min(...phrases.map((p) => p.startBeat)), end = Math.max(...phrases.map((p) => p.endBeat));
  const first = barOf(view, start), last = Math.max(first, barOf(view, end - 1e-6));  // whole bars of the metre map
  return { start: barStart(view, first), end: barStart(view, last + 1) };
}

function setAB(which) {
  state.ab = which === "B" && state.proposal ? "B" : "A";
  // B loops the changed bars (unless a loop was chosen by hand); A then plays the same bars
  if (state.ab === "B" && (!state.loop || state.autoLoop)) {
    const bars = changedBars();
    if (bars && !(state.loop && state.loop.start === bars.start && state.loop.end === bars.end)) {
      transport.setLoop(bars); state.autoLoop = true; arrangement.reveal(bars.start, { margin: 0.1 });
    }
  }
  $("#ab-a").setAttribute("aria-pressed", String(state.ab === "A"));
  $("#ab-b").setAttribute("aria-pressed", String(state.ab === "B"));
  $("#ab-a").classList.toggle("on", state.ab === "A"); $("#ab-b").classList.toggle("on", state.ab === "B");
  showArrangement();
  if (state.variation) arrangement.setHighlights(arrangement.highlights);
  transport.heard(); // from the next scheduled beat, while playing
}

function focusPhrase(phrase) {
  state.focusedPhrase = phrase.phraseId;
  refreshProposal();
  arrangement.reveal(phrase.startBeat, { center: true });
  const ghosts = phraseNotes(state.view, phrase);
  const found = findRegion(phrase.trackId, phrase.regionId);
  if (found) {
    const offset = found.region.start_beat;
    openRoll(phrase.trackId, phrase.regionId, { ghosts: ghosts.map((g) => ({ ...g, start: g.start - offset })) });
  }
}

// One phrase on its own: B (as ticked), its bars looped, playing.
async function audition(phrase) {
  if (!phrase) return;
  setAB("B");
  transport.setLoop({ start: phrase.startBeat, end: phrase.endBeat });
  state.autoLoop = true;
  arrangement.reveal(phrase.startBeat, { center: true });
  if (!transport.player) await transport.play();
}

function clearVariation() {
  state.variation = null; state.proposal = null; state.base = null; state.accepted = null; state.focusedPhrase = null;
  review.clear();
  $("#review-badge").hidden = true; $("#ab").hidden = true;
  if (state.ab === "B") setAB("A");
  if (state.autoLoop) { transport.setLoop(null); state.autoLoop = false; } // the review's loop ends with it
  if (state.view) showArrangement();
  arrangement.setHighlights([]);
  if (state.roll?.ghosts) openRoll(state.roll.trackId, state.roll.regionId, { ghosts: [] });
}

function commitVariation(ids) { return serial(() => commitNow(ids)); }

async function commitNow(ids) {
  const v = state.variation; if (!v) return;
  try {
    const out = await post(`/variations/${encodeURIComponent(v.variationId)}/commit`, ids ? { acceptedPhraseIds: ids } : {});
    toast(`accepted ${ids ? `${ids.length} of ${v.phrases.length} phrases` : "all"} — revision ${out.revision}`);
    clearVariation();
    await reload();
    showHistory($("#history"), state.projectId).catch(() => {});
    selectTab("history");
  } catch (error) { toast(error.message, "error"); }
}

async function discardVariation() {
  const v = state.variation; if (!v) return;
  try { await post(`/variations/${encodeURIComponent(v.variationId)}/discard`); toast("discarded"); } catch (error) { toast(error.message, "error"); }
  clearVariation();
}

function undo(redo = false) { return serial(() => undoNow(redo)); }

async function undoNow(redo) {
  if (!state.projectId) return;
  try {
    const out = await post(`/projects/${encodeURIComponent(state.projectId)}/${redo ? "redo" : "undo"}`);
    toast(`${redo ? "redone" : "undone"} — revision ${out.revision}`);
    await reload();
    showHistory($("#history"), state.projectId).catch(() => {});
  } catch (error) { toast(error instanceof ApiError ? error.message : String(error), "error"); }
}

// A branch made, checked out or merged (producer.branches): the song is reloaded as the branch's head.
function branchDo(path, body, said) { return serial(() => branchNow(path, body, said)); }

async function branchNow(path, body, said) {
  if (!state.projectId) return;
  try {
    const out = await post(`/projects/${encodeURIComponent(state.projectId)}/${path}`, body);
    toast(said(out));
    await reload();
  } catch (error) { toast(error instanceof ApiError ? error.message : String(error), "error"); }
  showHistory($("#history"), state.projectId).catch(() => {});
}

function selectTab(name) {
  for (const tab of document.querySelectorAll("[role=tab]")) tab.setAttribute("aria-selected", String(tab.dataset.tab === name));
  for (const panel of document.querySelectorAll("[data-panel]")) panel.hidden = panel.dataset.panel !== name;
}

// ---------------------------------------------------------------------- keyboard and wiring

const KEYS = {
  " ": () => transport.play(),
  Home: () => transport.seek(state.loop ? state.loop.start : 0),
  l: () => { state.autoLoop = false; transport.toggleLoop(); },
  "+": () => arrangement.zoomBy(1.25),
  "=": () => arrangement.zoomBy(1.25),
  "-": () => arrangement.zoomBy(0.8),
  0: () => arrangement.fit(),
  Enter: () => { const r = arrangement.selected && arrangement.regionById(arrangement.selected); if (r) openRoll(r.track.id, r.region.id); },
  a: () => state.variation && setAB(state.ab === "A" ? "B" : "A"),
  ArrowLeft: () => moveSelection(0, -1),
  ArrowRight: () => moveSelection(0, 1),
  ArrowUp: () => moveSelection(-1, 0),
  ArrowDown: () => moveSelection(1, 0),
  m: () => toggleSelected("mute"),
  s: () => toggleSelected("solo"),
  "?": () => showShortcuts(),
};

// The key sheet (? or the ? button: a phone has no keyboard to hover a hint with).
function showShortcuts() { const d = $("#shortcuts-dialog"); if (!d.open) d.showModal(); }

// The selected region: the next one in its track (←/→) or the one at the same time in the track
// above or below (↑/↓); the view scrolls to it.
function moveSelection(dTrack, dRegion) {
  const tracks = state.view?.tracks || [];
  const found = arrangement.selected && arrangement.regionById(arrangement.selected);
  let ti = found ? tracks.indexOf(found.track) : 0, target = null;
  if (!found) target = tracks.find((t) => t.regions.length)?.regions[0];
  else if (dRegion) {
    const list = found.track.regions, i = list.indexOf(found.region) + dRegion;
    target = list[Math.max(0, Math.min(list.length - 1, i))];
  } else {
    const at = found.region.start_beat;
    for (ti += dTrack; ti >= 0 && ti < tracks.length && !target; ti += dTrack) {
      const list = tracks[ti].regions;
      target = list.find((r) => r.start_beat <= at && at < r.start_beat + r.length_beats) || list[0] || null;
    }
  }
  if (!target) return;
  arrangement.select(target.id);
  arrangement.reveal(target.start_beat, { margin: 0.1 });
}

function toggleSelected(what) {
  const found = arrangement.selected && arrangement.regionById(arrangement.selected);
  const button = found && $(`#heads .head[data-track="${CSS.escape(found.track.id)}"] button[data-act="${what}"]`);
  if (button) button.click();
}

function typing(e) { return e.target.closest("input, textarea, select, [contenteditable]"); }

function onKey(e) {
  if ($("#song-view").hidden) return;
  const mod = e.ctrlKey || e.metaKey;
  if (mod && e.key.toLowerCase() === "z" && !typing(e)) { e.preventDefault(); undo(e.shiftKey); return; }
  if (mod && e.key.toLowerCase() === "y" && !typing(e)) { e.preventDefault(); undo(true); return; }
  if (mod || e.altKey || typing(e)) return;
  if (e.key === "Enter" && e.target.closest("button, a, summary")) return; // the focused control's own click
  if (e.target.closest(".roll-scroll") && e.key !== " ") return; // the piano roll has its own keys
  const action = KEYS[e.key] || KEYS[e.key.toLowerCase()];
  if (action) { e.preventDefault(); action(); }
}

// The listener's master level (this tab's; remembered), heard at once.
const MASTER_KEY = "bandstand.studio.master";
function setMaster(value) {
  const level = audio.setMasterVolume(value);
  $("#master").value = String(level);
  localStorage.setItem(MASTER_KEY, String(level));
}

function wire() {
  $("#master").oninput = () => setMaster($("#master").value);
  setMaster(localStorage.getItem(MASTER_KEY) ?? 1);
  $("#sound").onclick = () => transport.enableSound();
  $("#shortcuts").onclick = () => showShortcuts();
  $("#play").onclick = () => { if (scratch.playing) scratch.stop(); transport.play(); };
  $("#stop").onclick = () => { transport.stop(); arrangement.reveal(0); };
  $("#loop").onclick = () => { state.autoLoop = false; transport.toggleLoop(); };
  $("#zoom-in").onclick = () => arrangement.zoomBy(1.25);
  $("#zoom-out").onclick = () => arrangement.zoomBy(0.8);
  $("#zoom-fit").onclick = () => arrangement.fit();
  $("#ab-a").onclick = () => setAB("A");
  $("#ab-b").onclick = () => setAB("B");
  $("#undo").onclick = () => undo(false);
  $("#redo").onclick = () => undo(true);
  $("#branch-select").onchange = (e) => branchDo("checkout", { target: e.target.value }, (o) => `on ${o.branch} — revision ${o.revision}`);
  $("#branch-new").onclick = () => branchDo("branches", { name: $("#branch-name").value.trim() }, (o) => `branch ${o.current} made — revision ${o.revision}`);
  $("#branch-merge").onclick = () => branchDo("merge", { branch: $("#merge-from").value }, (o) => `${o.summary} — revision ${o.revision}`);
  $("#roll-close").onclick = () => closeRoll();
  $("#roll-grid").onchange = () => { roll.grid = Number($("#roll-grid").value); roll.invalidate(); };
  $("#roll-velocity").onchange = () => roll.setVelocity(Math.max(1, Math.min(127, Number($("#roll-velocity").value) || 96)));
  $("#roll-delete").onclick = () => roll.key({ key: "Delete", preventDefault() {}, ctrlKey: false, metaKey: false });
  for (const tab of document.querySelectorAll("[role=tab]")) tab.onclick = () => selectTab(tab.dataset.tab);
  $("#scratch-play").onclick = () => scratch.play($("#scratch-code").value);
  $("#scratch-stop").onclick = () => scratch.stop();
  $("#scratch-code").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); scratch.play($("#scratch-code").value); }
  });
  $("#say").onsubmit = (e) => { e.preventDefault(); const text = $("#prompt").value; $("#prompt").value = ""; ask(text); };
  $("#prompt").addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("#say").requestSubmit(); } });
  $("#chat").addEventListener("click", (e) => {
    if (e.target.closest("button.review")) selectTab("review");
    const chip = e.target.closest("button[data-ask]"); if (chip) ask(chip.dataset.ask);
  });
  $("#new-song").onsubmit = async (e) => {
    e.preventDefault();
    const body = { prompt: $("#new-prompt").value.trim() };
    if ($("#new-bars").value) body.bars = Number($("#new-bars").value);
    if ($("#new-seed").value) body.seed = Number($("#new-seed").value);
    $("#compose").disabled = true;
    try {
      const made = await composeSong(body, $("#compose-progress"));
      if (made?.projectId) location.hash = `#/song/${encodeURIComponent(made.projectId)}`;
    } catch (error) { toast(error.message, "error"); } finally { $("#compose").disabled = false; }
  };
  wireImport();
  roll.scroller.addEventListener("pointerup", () => updateVelocityBox());
  roll.scroller.addEventListener("keyup", () => updateVelocityBox());
  document.addEventListener("keydown", onKey);
  // Space is play/pause everywhere but in text: it never also presses the button that has the focus
  document.addEventListener("keyup", (e) => { if (e.key === " " && !typing(e) && !$("#song-view").hidden) e.preventDefault(); });
  window.addEventListener("hashchange", () => route().catch((e) => toast(e.message, "error")));
}

// A MIDI file dropped anywhere on the songs view (or chosen with the picker) becomes a song, opened.
function wireImport() {
  const view = $("#songs-view"), zone = $("#import-drop"), picker = $("#import-file");
  const bring = async (file) => {
    if (!file) return;
    zone.classList.add("over");
    try {
      const made = await importSong(file);
      const found = made.import;
      toast(`${file.name}: ${found.parts.map((p) => p.role).join(", ")} · ${found.key} · ${Math.round(found.tempo)} BPM`);
      location.hash = `#/song/${encodeURIComponent(made.projectId)}`;
    } catch (error) { toast(error.message, "error"); } finally { zone.classList.remove("over"); picker.value = ""; }
  };
  picker.onchange = () => bring(picker.files[0]);
  view.addEventListener("dragover", (e) => { if (e.dataTransfer?.types.includes("Files")) { e.preventDefault(); zone.classList.add("over"); } });
  view.addEventListener("dragleave", (e) => { if (e.target === view) zone.classList.remove("over"); });
  view.addEventListener("drop", (e) => { e.preventDefault(); zone.classList.remove("over"); bring(e.dataTransfer?.files[0]); });
}

// Another tab, the command line or an agent may change the song: while the page is visible it
// checks HEAD every few seconds and shows the new revision when there is one.
const WATCH_MS = 4000;
async function watchHead() {
  if (state.projectId && !document.hidden && !state.busy && !state.streaming && state.data) {
    try {
      const head = await get(`/projects/${encodeURIComponent(state.projectId)}?notes=false`);
      if (head.revision !== state.data.revision && !state.busy) {
        // in the queue of changes, so an edit made meanwhile is read after this, never before
        await serial(async () => {
          await reload();
          showHistory($("#history"), state.projectId).catch(() => {});
        });
        if (!state.variation) resumeVariation().catch(() => {});
      }
    } catch { /* the next check will tell */ }
  }
  setTimeout(watchHead, WATCH_MS);
}

function updateVelocityBox() {
  const chosen = roll.notes.filter((n) => roll.selection.has(n.id));
  $("#roll-velocity").value = chosen.length ? String(chosen[chosen.length - 1].velocity) : "";
}

wire();
loadTools();
setTimeout(watchHead, WATCH_MS);
audio.preload(); // the synthesizer and the SoundFont load now, so the first ▶ waits only for the context
route().catch((e) => toast(e.message, "error"));
