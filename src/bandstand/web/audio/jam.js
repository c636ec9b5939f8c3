// The jam's cycles on the page's sound: each `events` message holds one cycle's events and the
// moment the cycle begins on the server's clock (`at`). Every tab schedules each event to be
// heard at `at + begin × cycle_seconds`, so all tabs play in step with the server's transport;
// an event whose moment has passed is dropped, never played late (a reloaded tab, or one
// whose sound was just enabled, starts at the current position instead of replaying a backlog).
// Each event plays as the recording plays it: the member's General MIDI program (or the drum
// kit), key and velocity, on a track per member and program.

const KEEP = 4; // cycles remembered (the server sends the current and the next on connect)
const MARGIN = 0.005; // seconds: an event due sooner than this is too late to schedule

export class JamSound {
  constructor(engine) {
    this.engine = engine;
    this.cycles = new Map(); // cycle number → events message
    this.done = new Set(); // cycles already handed to the engine
    this.dropped = 0; // events whose time had passed
    this.perTrack = {}; // track id → notes scheduled, e.g. {"BEAT:drums": 48, "GROOVE:33": 16}
  }

  // An events message: remember it (for the playhead) and schedule it when the sound is on.
  receive(msg) {
    const latest = Math.max(-1, ...this.cycles.keys());
    if (msg.cycle < latest - 1) { this.cycles.clear(); this.done.clear(); } // a new jam counts from 0 again
    this.cycles.set(msg.cycle, msg);
    for (const cycle of [...this.cycles.keys()].sort((a, b) => a - b).slice(0, -KEEP)) this.cycles.delete(cycle);
    if (this.done.size > 4 * KEEP) this.done = new Set([...this.done].slice(-KEEP));
    return this.engine.running ? this.schedule(msg) : 0;
  }

  // The sound was just enabled: play what is left of the remembered cycles.
  resume() {
    let n = 0;
    for (const cycle of [...this.cycles.keys()].sort((a, b) => a - b)) n += this.schedule(this.cycles.get(cycle));
    return n;
  }

  reset() { this.cycles.clear(); this.done.clear(); this.engine.silence(); }

  // The context time at which the cycle of `msg` begins for the listener.
  cycleStart(msg) {
    if (msg.at === null || msg.at === undefined) return this.engine.now() + 0.1; // not played in real time
    return this.engine.contextTimeOf(msg.at);
  }

  schedule(msg) {
    const key = `${msg.cycle}@${msg.at}`; // a cycle of this jam (a restarted jam reuses the numbers)
    if (this.done.has(key) || !this.engine.running) return 0;
    this.done.add(key);
    const engine = this.engine, start = this.cycleStart(msg), seconds = msg.cycle_seconds;
    const earliest = engine.now() + MARGIN;
    let scheduled = 0;
    for (const ev of msg.events) {
      if (ev.key === null || ev.key === undefined) continue;
      const when = start + ev.begin * seconds;
      if (when < earliest) { this.dropped += 1; continue; }
      const drum = ev.program === null || ev.program === undefined;
      const id = `${ev.member}:${drum ? "drums" : ev.program}`;
      if (!engine.tracks.has(id)) engine.setTrack(id, { program: drum ? 0 : ev.program, drum });
      if (engine.note(id, ev.key, ev.velocity ?? 100, when, Math.max(0.03, ev.duration * seconds), ev)) {
        scheduled += 1;
        this.perTrack[id] = (this.perTrack[id] || 0) + 1;
      }
    }
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
