// The jam page: connects to /ws/jam, renders the band (jam/band.js), the chat (jam/chat.js,
// replayed from the server's history on every connect), the context bar with its controls
// (tempo, energy), the bar-and-beat position, the combined pattern and "keep this"; plays the scheduled
// events through audio/ (the General MIDI SoundFont of the recording; oscillator voices when
// that cannot load) once the user has clicked to enable sound — from the current position
// of the transport, never a backlog. `window.bandstand` exposes state for tests (scheduled
// notes, per-track counts, who is sounding, last messages).
import { AudioEngine, SOUND_NAMES } from "/static/audio/index.js";
import { JamSound } from "/static/audio/jam.js";
import { Band } from "/static/jam/band.js";
import { Chat } from "/static/jam/chat.js";
import { codeHtml, esc } from "/static/jam/code.js";

// An address with ?token= opens the page once (the server swaps it for the cookie and sends the
// browser on without it); should one still show, it leaves the address and the history at once.
if (new URLSearchParams(location.search).has("token")) {
  history.replaceState(null, "", location.pathname + location.hash);
}

const $ = (id) => document.getElementById(id);
const ROLE_COLOURS = { drums: "var(--drums)", bass: "var(--bass)", melody: "var(--melody)", fx: "var(--fx)" };
const SOUNDING_WINDOW = 1 / 16; // a hit lights its member for at least a sixteenth of the bar
const audio = new AudioEngine();
const sound = new JamSound(audio);
const state = { jam: null, members: {}, socket: null, roundSeen: 0, lastRoundAt: 0, benched: new Set(), sounding: new Set() };
window.bandstand = {
  audio, sound, state, soundNames: SOUND_NAMES, messages: [],
  get scheduled() { return audio.scheduled; },
  get sounding() { return [...state.sounding]; },
};

function colourOf(name) { const m = state.members[name] || {}; return ROLE_COLOURS[m.role] || m.colour || "#888"; }
const chat = new Chat($("chat"), colourOf);
const band = new Band($("band"), { send, jam: () => state.jam, colourOf, benched: state.benched });

function connect() {
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/jam`);
  state.socket = socket;
  socket.onopen = () => { state.connectedAt = audio.serverNow(); $("conn").textContent = "connected"; $("conn").className = "conn on"; };
  socket.onclose = () => { $("conn").textContent = "offline"; $("conn").className = "conn off"; setTimeout(connect, 1000); };
  socket.onmessage = (e) => handle(JSON.parse(e.data));
}
function send(msg) { if (state.socket?.readyState === 1) state.socket.send(JSON.stringify(msg)); }

const HANDLERS = {
  jam_state_update(m) {
    const was = state.jam?.running;
    if (was !== undefined && was !== m.running) {
      chat.show(m);
      if (!m.running) sound.reset();
    }
    $("now-label").textContent = m.running ? "Now playing" : "Stopped — last combined pattern";
    $("downloads").hidden = m.round === 0;
    state.jam = m;
    for (const member of m.members) state.members[member.name] = member;
    band.render(m.members); renderContext(m.context, []); renderLayers(m.layers, m.combined_pattern);
    $("round").textContent = m.round;
    renderSound();
    $("start").disabled = m.running; $("stop").disabled = !m.running;
    $("keep").disabled = m.round === 0 || state.keeping;
    $("tempo").disabled = $("energy").disabled = !m.running;
    $("autopilot").checked = m.autopilot;
    $("interval").value = m.autopilot_interval; $("interval-label").textContent = `${m.autopilot_interval} s`;
    if (m.round !== state.roundSeen) { state.roundSeen = m.round; state.lastRoundAt = performance.now(); }
  },
  chat_history(m) { for (const line of m.messages) noteFirstLine(line); chat.replay(m.messages); },
  agent_thought(m) {
    Object.assign(state.members[m.member] ??= { name: m.member }, { thoughts: m.thought, reaction: m.reaction, pattern: m.pattern, status: m.status });
    chat.show(m);
    band.render(Object.values(state.members));
  },
  agent_status(m) { if (state.members[m.member]) { state.members[m.member].status = m.status; band.render([state.members[m.member]]); } },
  musical_context_update(m) { renderContext(m.context, m.changed); chat.show(m); },
  execute(m) { renderLayers(m.layers, m.code); },
  events(m) { if (state.jam?.running) sound.receive(m); },
  boss_directive_echo(m) { chat.show(m); },
  code_override(m) { band.accepted(m.member); chat.show(m); },
  jam_kept(m) { keeping(false); chat.show(m); },
  error(m) { keeping(false); chat.show({ ...m, pattern: band.refused(m.message) }); },
};

function handle(msg) {
  noteFirstLine(msg);
  window.bandstand.messages.push(msg);
  if (window.bandstand.messages.length > 500) window.bandstand.messages.shift();
  HANDLERS[msg.type]?.(msg);
}

function renderContext(ctx, changed) {
  $("ctx-key").textContent = ctx.key;
  $("ctx-scale").innerHTML = ctx.scale.map((n) => `<span>${esc(n)}</span>`).join("");
  $("ctx-chords").innerHTML = ctx.chords.map((c) => `<span>${esc(c)}</span>`).join("");
  $("ctx-bpm").textContent = ctx.bpm; $("ctx-time").textContent = ctx.time_signature;
  $("ctx-energy").textContent = ctx.energy;
  if (document.activeElement !== $("tempo")) $("tempo").value = ctx.bpm;
  if (document.activeElement !== $("energy")) $("energy").value = ctx.energy;
  if (changed.length) { $("context").classList.remove("flash"); void $("context").offsetWidth; $("context").classList.add("flash"); }
}

function renderLayers(layers, combined) {
  $("layers").innerHTML = layers.length ? layers.map((l) => {
    const m = state.members[l.member] || {};
    return `<div class="layer" data-member="${esc(l.member)}" style="--role:${colourOf(l.member)}"><span class="tag">${esc(m.emoji || "")} ${esc(l.member)}</span><code class="code">${codeHtml(l.code)}</code></div>`;
  }).join("") : `<span class="muted">silence</span>`;
  const box = $("combined");
  if (box.dataset.code !== combined) { box.dataset.code = combined; box.innerHTML = codeHtml(combined || "silence"); }
}

// @mention completion
function mentionCandidates(prefix) {
  const p = prefix.toLowerCase();
  return Object.values(state.members).filter((m) => m.name.toLowerCase().startsWith(p) || m.role.startsWith(p));
}
let menuIndex = 0;
function updateMenu() {
  const input = $("directive"), menu = $("mention-menu");
  const match = input.value.slice(0, input.selectionStart).match(/@([\w-]*)$/);
  const options = match ? mentionCandidates(match[1]) : [];
  if (!options.length) { menu.hidden = true; return; }
  menuIndex = Math.min(menuIndex, options.length - 1);
  menu.innerHTML = options.map((m, i) => `<div class="${i === menuIndex ? "sel" : ""}" data-name="${esc(m.name)}">${esc(m.emoji)} @${esc(m.name)} <span class="muted">${esc(m.role)}</span></div>`).join("");
  menu.hidden = false;
}
function completeMention(name) {
  const input = $("directive"), upto = input.value.slice(0, input.selectionStart);
  const rest = input.value.slice(input.selectionStart);
  input.value = upto.replace(/@([\w-]*)$/, `@${name} `) + rest;
  $("mention-menu").hidden = true; input.focus();
}

// Sound starts only on a click: the button says so until then, and what plays after.
const SOUND_LABELS = {
  soundfont: () => `🔊 ${audio.voices.name}`,
  oscillator: () => "🔊 oscillator voices",
};
function renderSound() {
  const button = $("sound");
  const on = audio.running;
  button.textContent = on ? SOUND_LABELS[audio.mode]() : audio.loading ? "… loading sound" : "🔇 Click to enable sound";
  button.classList.toggle("on", on);
  button.classList.toggle("attention", !on && !audio.loading && Boolean(state.jam?.running)); // the band plays, this tab is silent
  button.title = on ? (audio.mode === "soundfont" ? "the General MIDI SoundFont of the recording (jam.wav)"
    : `the SoundFont synthesizer could not load (${audio.loadError || "unknown"}); playing oscillator voices`)
    : audio.loading ? "loading the instruments (the SoundFont takes a few seconds)" : "the browser plays nothing until you click";
  button.classList.toggle("loading", !on && audio.loading);
}
async function enableSound() {
  if (audio.running) return;
  $("sound").textContent = "… loading sound";
  await audio.enable();
  sound.resume(); // from the transport's current position: what has passed is dropped
}
audio.onChange(renderSound);

// Where the band is, as heard: the playhead, bar and beat, and who is sounding now.
function beatsPerBar() { return Number(String(state.jam?.context?.time_signature || "4/4").split("/")[0]) || 4; }
function soundingAt(pos) {
  const names = new Set(), msg = pos && sound.cycles.get(pos.cycle);
  for (const ev of msg?.events || []) {
    if (ev.begin <= pos.fraction && pos.fraction < ev.begin + Math.max(ev.duration, SOUNDING_WINDOW)) names.add(ev.member);
  }
  return names;
}
function tickPlayhead() {
  const pos = state.jam?.running ? sound.position() : null, beats = beatsPerBar();
  const beat = pos ? Math.min(beats, Math.floor(pos.fraction * beats) + 1) : 0;
  setTransform($("playhead-bar"), `translateX(${pos ? (pos.fraction * 100 - 100).toFixed(1) : -100}%)`);
  const label = pos ? `bar ${pos.cycle + 1} · beat ${beat}/${beats}` : "";
  if ($("playhead-label").textContent !== label) $("playhead-label").textContent = label;
  const bar = pos ? `${pos.cycle + 1}.${beat}` : "—";
  if ($("bar-beat").textContent !== bar) $("bar-beat").textContent = bar;
  const dots = $("beats");
  if (dots.children.length !== beats) dots.innerHTML = "<i></i>".repeat(beats);
  [...dots.children].forEach((dot, i) => dot.classList.toggle("on", i + 1 === beat));
  const sounding = soundingAt(pos);
  if ([...sounding].join() !== [...state.sounding].join()) {
    state.sounding = sounding;
    band.showSounding(sounding);
    for (const layer of $("layers").children) layer.classList.toggle("sounding", sounding.has(layer.dataset.member));
  }
  const scheduled = `${audio.scheduled} notes scheduled`; // handed over a little ahead, as they come due
  if ($("scheduled-label").textContent !== scheduled) $("scheduled-label").textContent = scheduled;
  requestAnimationFrame(tickPlayhead);
}

// The playhead and the autopilot's progress move by transforms set only when they change: each
// frame is then the compositor's work (a width set every frame laid out and painted the page; the
// jam page ran at 15–20 fps while the band played).
const transforms = new WeakMap();
function setTransform(el, value) { if (transforms.get(el) !== value) { transforms.set(el, value); el.style.transform = value; } }

function tickProgress() {
  const jam = state.jam;
  let pct = 0;
  // the autopilot ticks every interval; a skipped tick simply starts the next period
  if (jam?.running && jam.autopilot) pct = ((((performance.now() - state.lastRoundAt) / 1000) % jam.autopilot_interval) / jam.autopilot_interval) * 100;
  setTransform($("progress-bar"), `scaleX(${(pct / 100).toFixed(3)})`);
  requestAnimationFrame(tickProgress);
}

// "Keep this": the server arranges the jam so far as a song project (its answer, jam_kept, links
// to it in the studio); the button waits for that answer or an error.
// The name a kept song gets unless the boss types another: the jam's first line — the boss's first
// directive, else the first thing a member said.
function noteFirstLine(m) {
  if (m.type === "boss_directive_echo" && m.text && !state.firstBoss) state.firstBoss = m.text.trim();
  if (m.type === "agent_thought" && m.thought && !state.firstThought) state.firstThought = m.thought.trim();
}
function defaultSongName() {
  const line = (state.firstBoss || state.firstThought || "jam song").replace(/\s+/g, " ");
  return line.length > 80 ? `${line.slice(0, 79).trimEnd()}…` : line;
}
function askName() {
  $("keep-name").value = defaultSongName();
  $("keep-form").hidden = false; $("keep").hidden = true;
  $("keep-name").focus(); $("keep-name").select();
}
function closeName() { $("keep-form").hidden = true; $("keep").hidden = false; }

function keeping(on) {
  state.keeping = on;
  $("keep").textContent = on ? "… keeping" : "★ Keep this";
  $("keep").disabled = on || !state.jam?.round;
}

const MASTER_KEY = "bandstand.jam.master";
function setMaster(value) {
  const level = audio.setMasterVolume(value);
  $("master").value = level; $("master-label").textContent = `${Math.round(level * 100)}%`;
  localStorage.setItem(MASTER_KEY, String(level));
}

function wire() {
  $("sound").onclick = enableSound;
  $("start").onclick = async () => {
    enableSound();
    const chosen = Object.keys(state.members).filter((n) => !state.benched.has(n));
    send({ type: "start_jam", members: state.benched.size ? chosen : null });
  };
  $("stop").onclick = () => {
    send({ type: "stop_jam" });
    if (state.jam) state.jam.running = false; // a cycle the server sent before it heard us is not played
    sound.reset();
  };
  $("keep").onclick = askName;
  $("keep-form").onsubmit = (e) => {
    e.preventDefault();
    const title = $("keep-name").value.trim() || defaultSongName();
    closeName(); keeping(true); send({ type: "keep_jam", title });
  };
  $("keep-cancel").onclick = closeName;
  $("keep-name").addEventListener("keydown", (e) => { if (e.key === "Escape") closeName(); });
  const autopilot = () => send({ type: "set_autopilot", enabled: $("autopilot").checked, interval: Number($("interval").value) });
  $("autopilot").onchange = autopilot;
  $("interval").oninput = () => { $("interval-label").textContent = `${$("interval").value} s`; };
  $("interval").onchange = autopilot;
  $("tempo").oninput = () => { $("ctx-bpm").textContent = $("tempo").value; };
  $("tempo").onchange = () => send({ type: "set_tempo", bpm: Number($("tempo").value) });
  $("energy").oninput = () => { $("ctx-energy").textContent = $("energy").value; };
  $("energy").onchange = () => send({ type: "set_energy", level: Number($("energy").value) });
  $("master").oninput = () => setMaster($("master").value);
  $("say").onsubmit = (e) => {
    e.preventDefault();
    const text = $("directive").value.trim(); if (!text) return;
    send({ type: "boss_directive", text }); $("directive").value = ""; $("mention-menu").hidden = true;
  };
  $("directive").addEventListener("input", () => { menuIndex = 0; updateMenu(); });
  $("directive").addEventListener("keydown", (e) => {
    const menu = $("mention-menu"); if (menu.hidden) return;
    const items = [...menu.children];
    if (e.key === "ArrowDown" || e.key === "ArrowUp") { e.preventDefault(); menuIndex = (menuIndex + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length; updateMenu(); }
    else if (e.key === "Tab" || e.key === "Enter") { e.preventDefault(); completeMention(items[menuIndex].dataset.name); }
    else if (e.key === "Escape") menu.hidden = true;
  });
  $("mention-menu").onclick = (e) => { const item = e.target.closest("[data-name]"); if (item) completeMention(item.dataset.name); };
  requestAnimationFrame(tickProgress);
  requestAnimationFrame(tickPlayhead);
}

wire();
renderSound();
setMaster(localStorage.getItem(MASTER_KEY) ?? 1);
audio.preload(); // the server's clock (the playhead before the sound is on), the synthesizer and the SoundFont, silently
connect();
