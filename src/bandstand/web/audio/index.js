// bandstand's sound in the browser, one module for every page (the jam and the studio).
//
// The page plays the same General MIDI instruments as the WAV render: the SoundFont the server
// renders with, through an in-page synthesizer (soundfont.js). When the synthesizer or the
// SoundFont cannot load, the oscillator voices (oscillator.js) play instead and `mode` says so.
// Nothing makes a sound before `enable()` is called from a user gesture (a click); `preload()`
// (on page open) loads the synthesizer and the SoundFont beforehand, silently, so the click waits
// only for the context to resume.
//
//   const audio = new AudioEngine(); audio.preload();
//   button.onclick = async () => { await audio.enable(); };         // "click to enable sound"
//   audio.mode                 // "soundfont" | "oscillator" | null (not enabled yet)
//   audio.loading              // true from enable() until the voices are ready
//   audio.setTrack("bass", { program: 33, volume: 1, pan: 0.5 });  // a GM program, or drum: true
//   audio.note("bass", 40, 100, audio.now() + 0.1, 0.5);          // key, velocity, context time, seconds
//   audio.setMix("bass", { mute: true });                // volume 0–1.5, pan 0–1, mute, solo, reverb 0–1
//   audio.setTracks(song.tracks)  // exactly one song's tracks (others let go); audio.audible("bass")
//   audio.setMasterVolume(0.8);                          // the listener's own level, 0–1.5 (1 = unity)
//   audio.levels()             // {peak, rms} in dBFS of what is heard now (a meter)
//   audio.trackLevels()        // {id: {peak, rms}} per track, before the master level
//
// Songs (the studio page) play through a SongPlayer (player.js), which schedules ahead on the
// audio clock, loops a section and switches between two versions while playing:
//
//   const player = audio.play(song, { fromBeat: 0, loop: { start: 16, end: 32 } });
//   player.position()          // the beat being heard now (output latency accounted for)
//   player.switchTo(otherSong) // A/B: the other version from the next scheduled beat on
//   player.setLoop(null); player.seek(64); player.stop();
//
// where `song` is { tempo, tempoChanges?: [{beat, bpm}], length?, tracks: [{ id, program, drum,
// volume, pan, mute, solo, reverb, notes: [{ start, duration, pitch, velocity }],
// controls?: [{ beat, cc, value }] }] } in beats — the shape of `bandstand.score.Song` / a studio
// project's tracks. Of the controllers the player plays the sustain pedal (CC64, see pedal.js);
// `length` is where a pedal never lifted lets go (default: the last note's end).
//
// The jam page's cycles go through JamSound (jam.js). Times: `now()` is the context's clock;
// `heardNow()` is the context time reaching the listener now; `contextTimeOf(unixSeconds)` is
// the context time at which a sound is heard at that wall-clock moment (the server's clock,
// after `syncClock()`), so every tab hears a cycle at the same moment.

import { OscillatorVoices, SOUND_NAMES } from "./oscillator.js";
import { SoundFontVoices } from "./soundfont.js";
import { SongPlayer } from "./player.js";

export { SongPlayer, SOUND_NAMES };

const STATUS_URL = "/api/v1/audio";
const CHANNELS = { soundfont: 64, oscillator: 256 };

// A track's mix as MIDI controllers: volume (linear, 1 = unity, the render's fader) → CC7 on the
// SoundFont's curve (gain = (cc/127)²; unity = 100, as in the WAV render); pan 0–1 → CC10.
export function volumeToCC(volume) {
  return Math.max(0, Math.min(127, Math.round(100 * Math.sqrt(Math.max(0, volume)))));
}
export function panToCC(pan) { return Math.max(0, Math.min(127, Math.round(pan * 127))); }

// Peak and RMS (dBFS, −Infinity in silence) of what an analyser holds now.
function measure(analyser, buffer) {
  analyser.getFloatTimeDomainData(buffer);
  let peak = 0, sum = 0;
  for (const v of buffer) { const a = Math.abs(v); if (a > peak) peak = a; sum += v * v; }
  const db = (x) => (x > 0 ? 20 * Math.log10(x) : -Infinity);
  return { peak: db(peak), rms: db(Math.sqrt(sum / buffer.length)) };
}

export class AudioEngine {
  constructor({ statusUrl = STATUS_URL } = {}) {
    this.statusUrl = statusUrl;
    this.ctx = null;
    this.voices = null;
    this.status = null;
    this.serverOffset = 0; // server clock − this page's clock (s)
    this.tracks = new Map(); // id → {channel, program, drum, volume, pan, mute, solo}
    this.free = [];
    this.scheduled = 0; // notes scheduled so far
    this.listeners = new Set();
    this.loadError = null;
    this.master = 1; // the listener's level (the output gain); kept until the sound is on
  }

  get mode() { return this.voices?.kind ?? null; }
  get running() { return Boolean(this.voices) && this.ctx?.state === "running"; } // ready to play
  get loading() { return Boolean(this.enabling) && !this.voices; } // enable() called, the voices not ready yet

  onChange(fn) { this.listeners.add(fn); return () => this.listeners.delete(fn); }
  changed() { for (const fn of this.listeners) fn(this); }

  // Ask the server what it serves and how its clock stands: NTP-style, the sample with the
  // shortest round trip; an offset within half that round trip is no evidence of a skew (the
  // same machine, or synchronized clocks), so it counts as none.
  async syncClock(samples = 3) {
    let best = null;
    for (let i = 0; i < samples; i++) {
      const sent = Date.now();
      const response = await fetch(this.statusUrl, { cache: "no-store" });
      const status = await response.json();
      const back = Date.now();
      if (!best || back - sent < best.rtt) best = { rtt: back - sent, status, offset: status.now - (sent + back) / 2000 };
    }
    this.status = best.status;
    this.clockRtt = best.rtt / 1000;
    if (typeof best.status.now === "number") this.serverOffset = Math.abs(best.offset) <= this.clockRtt / 2 ? 0 : best.offset;
    return this.status;
  }

  // The audio context and its output (made once; suspended until a gesture resumes it).
  context() {
    if (!this.ctx) {
      this.ctx = new (window.AudioContext || window.webkitAudioContext)({ latencyHint: "interactive" });
      this.output = this.ctx.createGain();
      this.output.gain.value = this.master;
      this.output.connect(this.ctx.destination);
    }
    return this.ctx;
  }

  // Load the SoundFont synthesizer before anyone asks for sound (on page open): the module, the
  // worklet, the SoundFont's download and its parsing take seconds, and a ▶ should not wait for
  // them. Nothing sounds: the context stays suspended until enable() resumes it from a click.
  // Resolves when the voices are loaded (or could not be: enable() then falls back).
  preload() {
    if (this.voices) return Promise.resolve();
    if (!this.preloading) {
      this.preloadStarted = performance.now();
      this.preloading = (async () => {
        const ctx = this.context();
        const status = this.status || await this.syncClock();
        if (!status.synth?.available) throw new Error("the SoundFont synthesizer is not installed");
        if (!status.soundfont?.available) throw new Error(status.soundfont?.reason || "no SoundFont");
        const voices = await SoundFontVoices.load(ctx, this.output, status);
        this.preloadMs = performance.now() - this.preloadStarted;
        return voices;
      })();
      this.preloading.catch(() => {}); // enable() reads the failure
    }
    return this.preloading.then(() => {}, () => {});
  }

  // Start the sound. Call it from a user gesture: it resumes the audio context, takes the
  // SoundFont synthesizer preload() loaded (or loads it now; when that fails, the oscillator
  // voices) and resolves to the mode.
  async enable() {
    if (this.voices) { await this.ctx.resume(); this.changed(); return this.mode; }
    if (this.enabling) return this.enabling;
    this.enableStarted = performance.now();
    const resumed = this.context().resume(); // within the gesture
    this.enabling = (async () => {
      this.changed(); // loading: a page says so until the voices are ready (the SoundFont takes seconds)
      let voices;
      try {
        voices = await (this.preloading || (this.preload(), this.preloading));
        await resumed;
        await voices.calibrate();
      } catch (error) {
        this.loadError = String(error?.message || error);
        voices = new OscillatorVoices(this.ctx, this.output);
      }
      await resumed;
      this.free = Array.from({ length: CHANNELS[voices.kind] }, (_, i) => i);
      this.voices = voices; // ready: from here on notes are played
      for (const [id, track] of this.tracks) this.assign(id, track);
      this.applyMix();
      this.enableMs = performance.now() - this.enableStarted; // what a ▶ waited for the sound (the browser test reads it)
      this.changed();
      return this.mode;
    })();
    return this.enabling;
  }

  // The listener's master level, 0–1.5 (1 = unity): this page only, not the band's mix.
  setMasterVolume(volume) {
    this.master = Math.max(0, Math.min(1.5, Number(volume) || 0));
    if (this.output) this.output.gain.setTargetAtTime(this.master, this.ctx.currentTime, 0.01);
    return this.master;
  }

  // What the listener hears now, measured after the master level: {peak, rms} in dBFS over the
  // last ~43 ms (−Infinity in silence; null before the sound is on). The analyser is made on the
  // first call, so a page that shows no meter pays nothing.
  levels() {
    if (!this.output) return null;
    if (!this.analyser) {
      this.analyser = this.ctx.createAnalyser();
      this.analyser.fftSize = 2048;
      this.meterBuffer = new Float32Array(this.analyser.fftSize);
      this.output.connect(this.analyser);
    }
    return measure(this.analyser, this.meterBuffer);
  }

  // Each track's level now, as levels() but before the master level (a mixer's track meters):
  // {id: {peak, rms}} for the tracks that have a voice channel; null before the sound is on. The
  // SoundFont synthesizer has sixteen dry outputs (channel mod 16: two tracks past the sixteenth
  // channel may share one); the oscillator voices one per channel. Analysers are made on demand.
  trackLevels() {
    if (!this.voices?.tap) return null;
    if (!this.taps) this.taps = new Map(); // the voices' output → {analyser, buffer}
    const out = {};
    for (const [id, track] of this.tracks) {
      if (track.channel === undefined) continue;
      const key = this.voices.tapKey(track.channel);
      let tap = this.taps.get(key);
      if (!tap) {
        const analyser = this.ctx.createAnalyser();
        analyser.fftSize = 1024;
        this.voices.tap(track.channel, analyser);
        tap = { analyser, buffer: new Float32Array(analyser.fftSize) };
        this.taps.set(key, tap);
      }
      out[id] = measure(tap.analyser, tap.buffer);
    }
    return out;
  }

  // Pause the sound (the context keeps its clock); enable() resumes it.
  async suspend() { if (this.ctx) { this.voices?.silence(); await this.ctx.suspend(); this.changed(); } }

  now() { return this.ctx ? this.ctx.currentTime : 0; }

  // The context time being heard now: the output timestamp when the browser gives one, else
  // the clock less the base and output latency.
  heardNow() {
    const ctx = this.ctx; if (!ctx) return 0;
    const stamp = ctx.getOutputTimestamp?.();
    if (stamp && stamp.contextTime > 0 && stamp.performanceTime > 0) {
      return stamp.contextTime + (performance.now() - stamp.performanceTime) / 1000;
    }
    return ctx.currentTime - (ctx.baseLatency || 0) - (ctx.outputLatency || 0);
  }

  // Seconds between scheduling a sound and hearing it (what heardNow() subtracts).
  latency() { return this.ctx ? this.ctx.currentTime - this.heardNow() : 0; }

  // The server's clock now (Unix seconds), as measured by syncClock().
  serverNow() { return Date.now() / 1000 + this.serverOffset; }

  // The context time at which a sound must be scheduled to be heard at `unixSeconds` on the
  // server's clock.
  contextTimeOf(unixSeconds) {
    return this.heardNow() + (unixSeconds - this.serverNow());
  }

  // ------------------------------------------------------------------ tracks and the mix

  // Declare (or change) a track: { program 0–127 | drum: true, volume, pan, mute, solo, reverb }
  // (reverb: the level 0–1 of its send to the room, as a studio track's send to the Reverb bus).
  setTrack(id, spec) {
    const old = this.tracks.get(id);
    const track = { volume: 1, pan: 0.5, mute: false, solo: false, reverb: 0, program: 0, drum: false, ...(old || {}), ...spec };
    this.tracks.set(id, track);
    if (this.voices && (!old || old.program !== track.program || old.drum !== track.drum || old.channel === undefined)) {
      this.assign(id, track);
    }
    this.applyMix();
    return track;
  }

  removeTrack(id) {
    const track = this.tracks.get(id);
    if (track?.channel !== undefined) this.free.push(track.channel);
    this.tracks.delete(id);
    this.applyMix();
  }

  setMix(id, mix) { const track = this.tracks.get(id); if (track) { Object.assign(track, mix); this.applyMix(); } }

  // The tracks of one song, exactly, each with its sound and its mix: a track the engine held that
  // the song does not have (another song's, a part since removed) is let go, so a solo or a mute
  // never reaches past the song it was set in.
  setTracks(tracks) {
    const keep = new Set(tracks.map((t) => t.id));
    for (const id of [...this.tracks.keys()]) if (!keep.has(id)) this.removeTrack(id);
    for (const t of tracks) {
      const { program = 0, drum = false, volume = 1, pan = 0.5, mute = false, solo = false, reverb = 0 } = t;
      this.setTrack(t.id, { program, drum, volume, pan, mute, solo, reverb });
    }
  }

  // Whether a track is heard now: not muted, and not silenced by another track's solo.
  audible(id) {
    const track = this.tracks.get(id);
    if (!track) return false;
    const soloing = [...this.tracks.values()].some((t) => t.solo);
    return !track.mute && (!soloing || track.solo);
  }

  // Give a track a channel: a free one, else the one of the track that played longest ago.
  assign(id, track) {
    if (track.channel === undefined) {
      let channel = this.free.shift();
      if (channel === undefined) {
        const [oldest] = [...this.tracks.entries()].filter(([, t]) => t.channel !== undefined && t !== track)
          .sort((a, b) => (a[1].lastUsed ?? 0) - (b[1].lastUsed ?? 0));
        channel = oldest[1].channel; oldest[1].channel = undefined;
      }
      track.channel = channel;
    }
    this.voices.setup(track.channel, track.program, track.drum);
  }

  // Volume, pan, mute, solo and the room → CC7, CC10, CC11 (expression 0 = muted) and CC91.
  applyMix() {
    if (!this.voices) return;
    const soloing = [...this.tracks.values()].some((t) => t.solo);
    for (const track of this.tracks.values()) {
      if (track.channel === undefined) continue;
      const audible = !track.mute && (!soloing || track.solo); // as audible(id), without a lookup per track
      this.voices.control(track.channel, 7, volumeToCC(track.volume));
      this.voices.control(track.channel, 10, panToCC(track.pan));
      this.voices.control(track.channel, 11, audible ? 127 : 0);
      this.voices.control(track.channel, 91, Math.round(Math.max(0, Math.min(1, track.reverb)) * 127));
    }
  }

  // ------------------------------------------------------------------ notes

  // Schedule one note of track `id` at context time `when` for `duration` seconds. Returns
  // whether it was scheduled (not when the sound is off or the time has passed).
  note(id, key, velocity, when, duration, hint = null) {
    const track = this.tracks.get(id);
    if (!track || !this.voices || !this.running || when < this.ctx.currentTime) return false;
    if (track.channel === undefined) this.assign(id, track);
    track.lastUsed = when;
    this.voices.noteOn(track.channel, key, Math.max(1, Math.min(127, Math.round(velocity))), when, duration, hint);
    this.scheduled += 1;
    return true;
  }

  // Stop every sound now (scheduled notes included, as far as the voices can).
  silence() { this.voices?.silence(); }

  play(song, options = {}) { return new SongPlayer(this, song, options).start(); }
}
