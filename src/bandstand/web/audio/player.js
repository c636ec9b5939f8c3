// A song played from a beat with a look-ahead clock: every `interval` seconds the notes that
// start in the next `lookahead` seconds are handed to the engine with their audio-clock times
// (the worklet cannot take a note back, so the window stays short; a hidden tab, whose timers
// fire at most once a second, schedules further ahead). Loops a section, seeks, and switches
// between two versions of a song while playing (A/B): the other version takes over exactly
// where the scheduled notes end, and the notes still sounding from the first are released
// there. The sustain pedal (CC64 in a track's `controls`) holds notes as a MIDI synthesizer
// does: it moves their ends (pedal.js). See index.js for the song's shape.

import { pedalStretches, sustainedEnds } from "./pedal.js";

const LOOKAHEAD = 0.2; // seconds scheduled ahead while the page is visible
const HIDDEN_LOOKAHEAD = 1.6; // … and while it is hidden (timers are throttled to 1 Hz)
const INTERVAL = 25; // ms between scheduling passes
const START_DELAY = 0.08; // seconds from play() to the first beat

// The song's tempo map: beats ↔ seconds from the song's start. As `bandstand.score.Song`
// reads it: the song's tempo at beat 0, then the changes in beat order; of two changes on one
// beat (or a change at beat 0 and the song's tempo) the later one holds.
export function tempoMap(song) {
  const byBeat = new Map([[0, song.tempo || 120]]);
  const changes = [...(song.tempoChanges || [])].sort((a, b) => a.beat - b.beat);
  for (const c of changes) byBeat.set(Math.max(0, c.beat), c.bpm);
  const segments = [];
  for (const [beat, bpm] of [...byBeat.entries()].sort((a, b) => a[0] - b[0])) {
    const last = segments[segments.length - 1];
    segments.push({ beat, bpm, second: last ? last.second + ((beat - last.beat) * 60) / last.bpm : 0 });
  }
  const at = (key, value) => {
    let seg = segments[0];
    for (const s of segments) { if (s[key] <= value) seg = s; else break; }
    return seg;
  };
  return {
    seconds(beat) { const s = at("beat", beat); return s.second + ((beat - s.beat) * 60) / s.bpm; },
    beat(second) { const s = at("second", second); return s.beat + ((second - s.second) * s.bpm) / 60; },
  };
}

// The song's end in beats: its `length` when given, else where its last note or controller
// event ends (a pedal still down there comes up then).
function songEnd(song) {
  if (song.length != null) return song.length;
  let end = 0;
  for (const track of song.tracks || []) {
    for (const n of track.notes || []) end = Math.max(end, n.start + n.duration);
    for (const c of track.controls || []) end = Math.max(end, c.beat);
  }
  return end;
}

// Each track's notes sorted by start, for a binary search of a window, and where each ends
// with the pedal played.
function indexSong(song) {
  const end = songEnd(song);
  return (song.tracks || []).map((track) => {
    const notes = [...(track.notes || [])].sort((a, b) => a.start - b.start);
    return { track, notes, ends: sustainedEnds(notes, pedalStretches(track.controls, end)) };
  });
}

function firstAtOrAfter(notes, beat) {
  let lo = 0, hi = notes.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (notes[mid].start < beat) lo = mid + 1; else hi = mid; }
  return lo;
}

export class SongPlayer {
  constructor(engine, song, { fromBeat = 0, loop = null, lookahead = LOOKAHEAD, interval = INTERVAL } = {}) {
    this.engine = engine;
    this.lookahead = lookahead;
    this.interval = interval;
    this.loop = loop;
    this.fromBeat = fromBeat;
    this.timer = null;
    this.spans = []; // [{ctx, beat, until}] — which beats play from which context time (for position())
    this.load(song);
  }

  load(song) {
    this.song = song;
    this.tempo = tempoMap(song);
    this.index = indexSong(song);
    this.engine.setTracks(this.index.map(({ track }) => track)); // this song's tracks only
  }

  get playing() { return this.timer !== null; }

  start() {
    this.anchor(this.engine.now() + START_DELAY, this.fromBeat);
    this.timer = setInterval(() => this.tick(), this.interval);
    this.tick();
    return this;
  }

  // From context time `ctx` on, beat `beat` plays; scheduling continues from there.
  anchor(ctx, beat) {
    this.origin = { ctx, second: this.tempo.seconds(beat) };
    this.cursor = beat;
    this.spans.push({ ctx, beat });
    if (this.spans.length > 8) this.spans.shift();
  }

  ctxOf(beat) { return this.origin.ctx + this.tempo.seconds(beat) - this.origin.second; }
  beatOf(ctx) { return this.tempo.beat(this.origin.second + ctx - this.origin.ctx); }

  tick() {
    const engine = this.engine;
    if (!engine.running) return;
    const ahead = document.hidden ? HIDDEN_LOOKAHEAD : this.lookahead;
    const horizon = engine.now() + ahead;
    for (let guard = 0; guard < 64; guard++) {
      let until = this.beatOf(horizon);
      const end = this.loop ? this.loop.end : Infinity;
      if (until > end) until = end;
      if (until > this.cursor) this.scheduleRange(this.cursor, until);
      this.cursor = Math.max(this.cursor, until);
      if (!(this.loop && this.cursor >= end)) break;
      this.anchor(this.ctxOf(end), this.loop.start); // the loop starts again where it ended
    }
  }

  // Each note is handed over with its end (the worklet cannot take a note-off back), so the
  // pedal is played here, from the song known ahead: the end is where a synthesizer given the
  // CC64 events on time would release the note (pedal.js). While looping, a pedal-up past the
  // loop's end is never played: the loop lets the pedal go where it jumps back.
  scheduleRange(from, to) {
    for (const { track, notes, ends } of this.index) {
      for (let i = firstAtOrAfter(notes, from); i < notes.length && notes[i].start < to; i++) {
        const n = notes[i], off = n.start + n.duration;
        const end = this.loop && ends[i] > off ? Math.max(off, Math.min(ends[i], this.loop.end)) : ends[i];
        const when = this.ctxOf(n.start);
        this.engine.note(track.id, n.pitch, n.velocity ?? 100, when, this.ctxOf(end) - when);
      }
    }
  }

  // The beat being heard now (the output latency accounted for).
  position() {
    const heard = this.engine.heardNow();
    let span = this.spans[0];
    for (const s of this.spans) if (s.ctx <= heard) span = s;
    if (!span) return this.fromBeat;
    return this.tempo.beat(this.tempo.seconds(span.beat) + heard - span.ctx);
  }

  setLoop(loop) { this.loop = loop; }

  // A/B: play `song` (the other version, same track ids) from where the scheduled notes end.
  switchTo(song) {
    const at = this.ctxOf(this.cursor);
    for (const { track } of this.index) {
      const t = this.engine.tracks.get(track.id);
      if (t?.channel !== undefined) this.engine.voices?.control(t.channel, 123, 0, at); // all notes off
    }
    const beat = this.cursor, ctx = at;
    this.load(song);
    this.anchor(ctx, beat);
  }

  seek(beat) {
    this.engine.silence();
    this.anchor(this.engine.now() + START_DELAY, beat);
    this.spans = this.spans.slice(-1);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = null;
    this.engine.silence();
  }
}
