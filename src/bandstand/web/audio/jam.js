// The jam's cycles on the page's sound: each `events` message holds one cycle's events and the
// moment the cycle begins on the server's clock (`at`). Every tab plays each event to be heard
// at `at + begin × cycle_seconds`, so all tabs play in step with the server's transport; an
// event whose moment has passed is dropped, never played late (a reloaded tab, or one whose
// sound was just enabled, starts at the current position instead of replaying a backlog).
// Each event plays as the recording plays it: the member's General MIDI program (or the drum
// kit its bank picks), key and velocity, on a track per member and program (or kit).
//
// The server sends a cycle shortly before it begins, but the synthesizer cannot take back a
// note it was given: so, as the studio's SongPlayer does, the events are handed over with a
// short look-ahead (0.2 s; 1.6 s while the tab is hidden and its timers are throttled), and
// Stop silences the jam at once instead of playing out the rest of the cycle.

const KEEP = 4; // cycles remembered (the server sends the current and the next on connect)
const MARGIN = 0.005; // seconds: an event due sooner than this is too late to schedule
const LOOKAHEAD = 0.2; // seconds handed to the synthesizer ahead while the page is visible
const HIDDEN_LOOKAHEAD = 1.6; // … and while it is hidden (timers fire about once a second)
const INTERVAL = 25; // ms between passes

export class JamSound {
  constructor(engine, { lookahead = LOOKAHEAD, interval = INTERVAL } = {}) {
    this.engine = engine;
    this.lookahead = lookahead;
    this.interval = interval;
    this.cycles = new Map(); // cycle number → events message
    this.done = new Set(); // cycles whose events are queued (or played)
    this.pending = []; // [{at: server seconds, seconds, ev}] by time, not yet handed over
    this.timer = null;
    this.dropped = 0; // events whose time had passed
    this.perTrack = {}; // track id → notes scheduled, e.g. {"BEAT:drums": 48, "GROOVE:33": 16}
  }

  // An events message: remember it (for the playhead) and queue it when the sound is on.
  // Returns the notes handed to the synthesizer now.
  receive(msg) {
    const latest = Math.max(-1, ...this.cycles.keys());
    if (msg.cycle < latest - 1) { this.cycles.clear(); this.done.clear(); } // a new jam counts from 0 again
    this.cycles.set(msg.cycle, msg);
    for (const cycle of [...this.cycles.keys()].sort((a, b) => a - b).slice(0, -KEEP)) this.cycles.delete(cycle);
    if (this.done.size > 4 * KEEP) this.done = new Set([...this.done].slice(-KEEP));
    if (!this.engine.running) return 0;
    this.queue(msg);
    return this.tick();
  }

  // The sound was just enabled: play what is left of the remembered cycles.
  resume() {
    for (const cycle of [...this.cycles.keys()].sort((a, b) => a - b)) this.queue(this.cycles.get(cycle));
    return this.tick();
  }

  // The jam stopped: forget its cycles, hand over nothing more, silence what sounds.
  reset() {
    this.cycles.clear(); this.done.clear(); this.pending = [];
    clearInterval(this.timer); this.timer = null;
    this.engine.silence();
  }

  queue(msg) {
    const key = `${msg.cycle}@${msg.at}`; // a cycle of this jam (a restarted jam reuses the numbers)
    if (this.done.has(key) || !this.engine.running) return;
    this.done.add(key);
    const start = msg.at === null || msg.at === undefined ? this.engine.serverNow() + 0.1 : msg.at; // not in real time
    const seconds = msg.cycle_seconds;
    for (const ev of msg.events) {
      if (ev.key === null || ev.key === undefined) continue;
      this.pending.push({ at: start + ev.begin * seconds, seconds: Math.max(0.03, ev.duration * seconds), ev });
    }
    this.pending.sort((a, b) => a.at - b.at);
    if (this.timer === null && this.pending.length) this.timer = setInterval(() => this.tick(), this.interval);
  }

  // Hand over the events due within the look-ahead, each at the context time it is heard.
  tick() {
    const engine = this.engine;
    if (!engine.running) return 0;
    const now = engine.now(), horizon = now + (document.hidden ? HIDDEN_LOOKAHEAD : this.lookahead);
    const shift = engine.contextTimeOf(0); // server seconds → context time
    let scheduled = 0, i = 0;
    for (; i < this.pending.length; i++) {
      const { at, seconds, ev } = this.pending[i], when = at + shift;
      if (when > horizon) break;
      if (when < now + MARGIN) { this.dropped += 1; continue; }
      const drum = ev.program === null || ev.program === undefined;
      const kit = drum ? ev.kit || 0 : null; // a drum machine's bank picks the kit (bank 128 program)
      const id = `${ev.member}:${drum ? (kit ? `drums-${kit}` : "drums") : ev.program}`;
      if (!engine.tracks.has(id)) engine.setTrack(id, { program: drum ? kit : ev.program, drum });
      if (engine.note(id, ev.key, ev.velocity ?? 100, when, seconds, ev)) {
        scheduled += 1;
        this.perTrack[id] = (this.perTrack[id] || 0) + 1;
      }
    }
    this.pending.splice(0, i);
    if (!this.pending.length) { clearInterval(this.timer); this.timer = null; }
    return scheduled;
  }

  // Where the transport is for the listener: {cycle, fraction 0–1} of the latest cycle that has
  // begun on the server's clock, or null before the first.
  position() {
    const now = this.engine.serverNow();
    let best = null;
    for (const msg of this.cycles.values()) {
      if (msg.at !== null && msg.at !== undefined && msg.at <= now && (!best || msg.at > best.at)) best = msg;
    }
    if (!best) return null;
    return { cycle: best.cycle, fraction: Math.min(1, (now - best.at) / best.cycle_seconds) };
  }
}
