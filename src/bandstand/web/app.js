// The jam page: connects to /ws/jam, renders the band, the chat, the context bar
// and the combined pattern, and plays the scheduled events through audio/ (the General MIDI
// SoundFont of the recording; oscillator voices when that cannot load) once the user has
// clicked to enable sound. `window.bandstand` exposes state for tests (scheduled notes,
// per-track counts, last messages).
import { AudioEngine, SOUND_NAMES } from "/static/audio/index.js";
import { JamSound } from "/static/audio/jam.js";

const $ = (id) => document.getElementById(id);
const ROLE_COLOURS = { drums: "var(--drums)", bass: "var(--bass)", melody: "var(--melody)", fx: "var(--fx)" };
const audio = new AudioEngine();
const sound = new JamSound(audio);
const state = { jam: null, members: {}, socket: null, roundSeen: 0, lastRoundAt: 0, stickToBottom: true, benched: new Set() };
window.bandstand = { audio, sound, state, soundNames: SOUND_NAMES, get scheduled() { return audio.scheduled; }, messages: [] };

function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
function colour(m) { return ROLE_COLOURS[m.role] || m.colour || "#888"; }

function connect() {
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/jam`);
  state.socket = socket;
  socket.onopen = () => { $("conn").textContent = "connected"; $("conn").className = "conn on"; };
  socket.onclose = () => { $("conn").textContent = "offline"; $("conn").className = "conn off"; setTimeout(connect, 1000); };
  socket.onmessage = (e) => handle(JSON.parse(e.data));
}
function send(msg) { if (state.socket?.readyState === 1) state.socket.send(JSON.stringify(msg)); }

const HANDLERS = {
  jam_state_update(m) {
    const was = state.jam?.running;
    if (was !== undefined && was !== m.running) {
      chat(m.running ? `▶ Jam started — ${esc(m.context.key)}, ${m.context.bpm} BPM` : `■ Jam stopped after ${m.round} round${m.round === 1 ? "" : "s"}`, "system");
      if (!m.running) sound.reset();
    }
    $("now-label").textContent = m.running ? "Now playing" : "Stopped — last combined pattern";
    $("downloads").hidden = m.round === 0;
    state.jam = m;
    for (const member of m.members) state.members[member.name] = member;
    renderBand(); renderContext(m.context, []); renderLayers(m.layers);
    $("round").textContent = m.round;
    $("start").disabled = m.running; $("stop").disabled = !m.running;
    $("autopilot").checked = m.autopilot;
    $("interval").value = m.autopilot_interval; $("interval-label").textContent = `${m.autopilot_interval} s`;
    if (m.round !== state.roundSeen) { state.roundSeen = m.round; state.lastRoundAt = performance.now(); }
  },
  agent_thought(m) {
    Object.assign(state.members[m.member] ??= {}, { thoughts: m.thought, reaction: m.reaction, pattern: m.pattern, status: m.status });
    addRoundMark(m.round);
    const member = state.members[m.member];
    const tag = m.complied_with_boss ? "" : `<span class="tag">✋ did not comply</span>`;
    const note = m.note ? `<span class="note">${esc(m.note)}</span>` : "";
    chat(`<span class="who">${esc(m.emoji)} ${esc(m.member)}</span>${esc(m.thought)} <span class="reaction">${esc(m.reaction)}</span>${tag}${note}`, "", colour(member));
    renderBand();
  },
  agent_status(m) { if (state.members[m.member]) { state.members[m.member].status = m.status; renderBand(); } },
  musical_context_update(m) { renderContext(m.context, m.changed); chat(`Context: ${esc(m.changed.join(", "))} → ${esc(m.context.key)}, energy ${m.context.energy}/10, ${m.context.bpm} BPM`, "system"); },
  execute(m) { renderLayers(m.layers); },
  events(m) { if (state.jam?.running) sound.receive(m); },
  boss_directive_echo(m) { chat(`<span class="who">🎤 BOSS${m.to.length ? " → " + esc(m.to.join(", ")) : ""}</span>${esc(m.text)}`, "boss"); },
  error(m) { chat(esc(m.message), "error"); },
};

function handle(msg) {
  window.bandstand.messages.push(msg);
  if (window.bandstand.messages.length > 500) window.bandstand.messages.shift();
  HANDLERS[msg.type]?.(msg);
}

let lastRoundMark = 0;
function addRoundMark(round) {
  if (round === lastRoundMark) return;
  lastRoundMark = round;
  const div = document.createElement("div"); div.className = "round-mark"; div.textContent = `— ROUND ${round} —`;
  append(div);
}
function chat(html, kind = "", role = "") {
  const div = document.createElement("div");
  div.className = `msg ${kind}`; if (role) div.style.setProperty("--role", role);
  div.innerHTML = html; append(div);
}
function append(node) {
  const box = $("chat"); box.appendChild(node);
  if (state.stickToBottom) box.scrollTop = box.scrollHeight;
}

function renderBand() {
  const box = $("band");
  const members = Object.values(state.members);
  box.innerHTML = members.map((m) => `
    <article class="card ${isOut(m) ? "inactive" : ""} ${state.jam?.running ? "" : "pickable"}" style="--role:${colour(m)}" data-member="${esc(m.name)}" title="${state.jam?.running ? "" : "click to choose who plays"}">
      <div class="card-head"><span class="emoji">${esc(m.emoji)}</span><span class="name">${esc(m.name)}</span>
        <span class="role">${esc(m.role)}</span><span class="light ${lightClass(m.status, m.pattern)}" title="${esc(m.status)}"></span></div>
      <div class="bubble">${esc(m.thoughts || "…")}${m.reaction ? `<span class="reaction">${esc(m.reaction)}</span>` : ""}</div>
      <div class="pattern">${esc(m.pattern || "silence")}</div>
      <div class="card-foot">
        <button class="mute ${m.muted ? "on" : ""}" data-act="mute">Mute</button>
        <button class="solo ${m.soloed ? "on" : ""}" data-act="solo">Solo</button>
        ${m.using_fallback || m.status === "error" || m.status === "timeout" ? `<span class="fallback">(fallback)</span>` : ""}
      </div>
    </article>`).join("");
}
function isOut(m) {
  return state.jam?.running ? m.active === false : state.benched.has(m.name);
}
function lightClass(status, pattern) {
  if (status === "idle") return state.jam?.running && pattern && pattern !== "silence" ? "ok" : "";
  return status;
}

function renderContext(ctx, changed) {
  $("ctx-key").textContent = ctx.key;
  $("ctx-scale").innerHTML = ctx.scale.map((n) => `<span>${esc(n)}</span>`).join("");
  $("ctx-chords").innerHTML = ctx.chords.map((c) => `<span>${esc(c)}</span>`).join("");
  $("ctx-bpm").textContent = ctx.bpm; $("ctx-time").textContent = ctx.time_signature;
  $("ctx-energy").textContent = ctx.energy; $("ctx-energy-bar").style.width = `${ctx.energy * 10}%`;
  if (changed.length) { $("context").classList.remove("flash"); void $("context").offsetWidth; $("context").classList.add("flash"); }
}

function renderLayers(layers) {
  $("layers").innerHTML = layers.length ? layers.map((l) => {
    const m = state.members[l.member] || {};
    return `<div class="layer" style="--role:${colour(m)}"><span class="tag">${esc(m.emoji || "")} ${esc(l.member)}</span><code>${esc(l.code)}</code></div>`;
  }).join("") : `<span class="muted">silence</span>`;
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
  button.textContent = on ? SOUND_LABELS[audio.mode]() : "🔇 Click to enable sound";
  button.classList.toggle("on", on);
  button.title = on ? (audio.mode === "soundfont" ? "the General MIDI SoundFont of the recording (jam.wav)"
    : `the SoundFont synthesizer could not load (${audio.loadError || "unknown"}); playing oscillator voices`)
    : "the browser plays nothing until you click";
}
async function enableSound() {
  if (audio.running) return;
  $("sound").textContent = "… loading sound";
  await audio.enable();
  sound.resume();
}
audio.onChange(renderSound);

// The playhead: where the transport is for the listener (the server's cycle, on its clock).
function tickPlayhead() {
  const pos = state.jam?.running ? sound.position() : null;
  $("playhead-bar").style.width = pos ? `${(pos.fraction * 100).toFixed(2)}%` : "0";
  $("playhead-label").textContent = pos ? `cycle ${pos.cycle + 1} · ${Math.floor(pos.fraction * beatsPerCycle()) + 1}/${beatsPerCycle()}` : "";
  const scheduled = `${audio.scheduled} notes scheduled`; // handed over a little ahead, as they come due
  if ($("scheduled-label").textContent !== scheduled) $("scheduled-label").textContent = scheduled;
  requestAnimationFrame(tickPlayhead);
}
function beatsPerCycle() { return Number(String(state.jam?.context?.time_signature || "4/4").split("/")[0]) || 4; }

function tickProgress() {
  const jam = state.jam;
  let pct = 0;
  // the autopilot ticks every interval; a skipped tick simply starts the next period
  if (jam?.running && jam.autopilot) pct = ((((performance.now() - state.lastRoundAt) / 1000) % jam.autopilot_interval) / jam.autopilot_interval) * 100;
  $("progress-bar").style.width = `${pct}%`;
  requestAnimationFrame(tickProgress);
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
  $("autopilot").onchange = () => send({ type: "set_autopilot", enabled: $("autopilot").checked, interval: Number($("interval").value) });
  $("interval").oninput = () => { $("interval-label").textContent = `${$("interval").value} s`; };
  $("interval").onchange = () => send({ type: "set_autopilot", enabled: $("autopilot").checked, interval: Number($("interval").value) });
  $("band").onclick = (e) => {
    const button = e.target.closest("button[data-act]");
    if (!button) {
      // before the jam starts, clicking a card chooses who plays
      const card = e.target.closest(".card");
      if (card && !state.jam?.running) {
        const name = card.dataset.member;
        if (state.benched.has(name)) state.benched.delete(name);
        else if (state.benched.size < Object.keys(state.members).length - 1) state.benched.add(name);
        renderBand();
      }
      return;
    }
    const name = button.closest(".card").dataset.member, m = state.members[name];
    if (button.dataset.act === "mute") send({ type: "set_mute", member: name, muted: !m.muted });
    else send({ type: "set_solo", member: name, soloed: !m.soloed });
  };
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
  $("chat").addEventListener("scroll", () => { const c = $("chat"); state.stickToBottom = c.scrollHeight - c.scrollTop - c.clientHeight < 40; });
  requestAnimationFrame(tickProgress);
  requestAnimationFrame(tickPlayhead);
}

wire();
renderSound();
audio.syncClock().catch(() => {}); // the server's clock, for the playhead before the sound is on
connect();
