// web/audio/pedal.js, the sustain pedal as the song player plays it, under node's test runner
// (run by tests/web/test_audio_modules.py). The same release as the WAV render: a note ends at
// its note-off unless the pedal is down then, when it ends at the first pedal-up after it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { pedalStretches, releaseAt, sustainedEnds } from "../../src/bandstand/web/audio/pedal.js";

const cc = (beat, value, number = 64) => ({ beat, cc: number, value });
const note = (pitch, start, duration) => ({ pitch, start, duration, velocity: 90 });

test("the pedal's down stretches: ≥ 64 holds, other controllers and repeats change nothing", () => {
  const controls = [cc(0, 127), cc(1, 100), cc(2, 7, 11), cc(3, 63), cc(3.5, 10), cc(4, 64), cc(6, 0), cc(8, 90)];
  assert.deepEqual(pedalStretches(controls, 10), [{ down: 0, up: 3 }, { down: 4, up: 6 }, { down: 8, up: 10 }]);
  assert.deepEqual(pedalStretches([], 10), []);
  assert.deepEqual(pedalStretches(undefined), []);
  // down and up at one beat, in that order: the pedal is not down at any instant
  assert.deepEqual(pedalStretches([cc(2, 127), cc(2, 0)], 10), []);
  // given out of order: read in beat order
  assert.deepEqual(pedalStretches([cc(3, 0), cc(1, 127)], 10), [{ down: 1, up: 3 }]);
});

test("a note-off while the pedal is down is released at the pedal-up; an event at the note-off counts", () => {
  const stretches = pedalStretches([cc(0, 127), cc(3, 0), cc(5, 127), cc(7, 0)], 20);
  assert.equal(releaseAt(stretches, 1), 3); // held
  assert.equal(releaseAt(stretches, 3), 3); // the pedal comes up at the note-off: not held
  assert.equal(releaseAt(stretches, 4), 4); // pedal up
  assert.equal(releaseAt(stretches, 5), 7); // the pedal goes down at the note-off: held
  assert.equal(releaseAt(stretches, 8), 8);
  assert.equal(releaseAt(stretches, -1), -1);
});

test("each note's end with the pedal: held, not held, and a pedal never lifted holds to the song's end", () => {
  const notes = [note(60, 0, 1), note(64, 1, 2.5), note(67, 3.5, 0.5), note(72, 6, 1)];
  const stretches = pedalStretches([cc(0, 127), cc(3, 0), cc(4, 127)], 9);
  assert.deepEqual(sustainedEnds(notes, stretches), [3, 3.5, 9, 9]);
  assert.deepEqual(sustainedEnds(notes, []), [1, 3.5, 4, 7]); // no pedal: the note-offs
});

test("striking a held key again releases the held note there; an earlier overlap does not", () => {
  const stretches = pedalStretches([cc(0, 127), cc(8, 0)], 10);
  // C at 0–1 is held until C is struck again at 2; that one (2–3) is held until C again at 5,
  // which is held to the pedal-up; E (1–1.5) is held to 8 (no other E)
  const notes = [note(60, 0, 1), note(64, 1, 0.5), note(60, 2, 1), note(60, 5, 1)];
  assert.deepEqual(sustainedEnds(notes, stretches), [2, 8, 5, 8]);
  // a strike at the very note-off: released there (the note-off is first, then the strike)
  assert.deepEqual(sustainedEnds([note(60, 0, 1), note(60, 1, 1)], stretches), [1, 8]);
  // struck again before its own note-off, the key is still held by the hand, not the pedal:
  // the first note sounds past it, to the pedal-up (the later strike came before it was held)
  assert.deepEqual(sustainedEnds([note(60, 0, 4), note(60, 1, 1)], stretches), [8, 8]);
});
