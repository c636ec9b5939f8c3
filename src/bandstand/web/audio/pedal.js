// The sustain pedal (CC64) as the song player plays it. In a MIDI synthesizer, a key let go
// while its channel's pedal is down (value ≥ 64) keeps sounding, marked sustained, until the
// pedal comes up (value < 64); striking the key again meanwhile releases the sustained voice.
// The player hands each note to the synthesizer with its start and its end at once (the
// worklet takes timed events and cannot take one back), so it plays the pedal by moving each
// note's end to the moment a synthesizer would release it; no CC64 reaches the synthesizer, and
// no pedal state lives in it to reset on play, seek, loop or A/B. Read from the track's events,
// the pedal at a seek point is what its events before that point left it.
//
// The release (issue #23's rule, for the page and the WAV render alike): a note ends at its
// note-off, unless the pedal is down at that instant (an event at the same beat counts as
// before it), when it ends at the first pedal-up at or after it — or, sooner, at the next
// strike of its key at or after its note-off (the note-off comes first, then the strike).

const SUSTAIN = 64;
const DOWN = 64; // values ≥ 64 hold

// The stretches [down, up) in beats in which a track's pedal is down, sorted, from its
// controller events [{beat, cc, value}] (events at one beat apply in the order given); a pedal
// still down after its last event comes up at `end` (the end of the song).
export function pedalStretches(controls, end = Infinity) {
  const events = (controls || []).filter((c) => c.cc === SUSTAIN)
    .map((c, i) => ({ beat: c.beat, down: c.value >= DOWN, i }))
    .sort((a, b) => a.beat - b.beat || a.i - b.i);
  const stretches = [];
  let down = null;
  for (const e of events) {
    if (e.down && down === null) down = e.beat;
    else if (!e.down && down !== null) {
      if (e.beat > down) stretches.push({ down, up: e.beat });
      down = null;
    }
  }
  if (down !== null && end > down) stretches.push({ down, up: end });
  return stretches;
}

// The beat at which a key let go at `beat` is released: the end of the pedal-down stretch that
// holds `beat`, else `beat` itself.
export function releaseAt(stretches, beat) {
  let lo = 0, hi = stretches.length; // the first stretch that goes down after `beat`
  while (lo < hi) { const mid = (lo + hi) >> 1; if (stretches[mid].down <= beat) lo = mid + 1; else hi = mid; }
  const held = stretches[lo - 1];
  return held && beat < held.up ? held.up : beat;
}

// Each note's end in beats (index for index; `notes` sorted by start) with the pedal played:
// held to the pedal-up, or to the next strike of its key at or after its note-off.
export function sustainedEnds(notes, stretches) {
  const strikes = new Map(); // key → the starts of its notes, in order
  for (const n of notes) {
    if (!strikes.has(n.pitch)) strikes.set(n.pitch, []);
    strikes.get(n.pitch).push(n.start);
  }
  return notes.map((n) => {
    const off = n.start + n.duration, held = releaseAt(stretches, off);
    if (held === off) return off;
    const starts = strikes.get(n.pitch);
    let lo = 0, hi = starts.length; // the first strike at or after the note-off
    while (lo < hi) { const mid = (lo + hi) >> 1; if (starts[mid] < off) lo = mid + 1; else hi = mid; }
    return lo < starts.length ? Math.min(held, starts[lo]) : held;
  });
}
