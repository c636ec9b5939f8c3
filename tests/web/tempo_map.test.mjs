// web/audio/player.js's tempo map, under node's test runner (run by tests/web/test_audio_modules.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { tempoMap } from "../../src/bandstand/web/audio/player.js";

const close = (a, b) => assert.ok(Math.abs(a - b) < 1e-9, `${a} != ${b}`);

test("a steady tempo: a beat lasts 60/bpm seconds", () => {
  const map = tempoMap({ tempo: 120 });
  close(map.seconds(8), 4);
  close(map.beat(4), 8);
});

test("tempo changes: each segment at its own tempo, and back again", () => {
  const map = tempoMap({ tempo: 120, tempoChanges: [{ beat: 4, bpm: 60 }, { beat: 8, bpm: 240 }] });
  close(map.seconds(4), 2); // 4 beats at 120
  close(map.seconds(8), 6); // then 4 beats at 60
  close(map.seconds(12), 7); // then 4 beats at 240
  for (const beat of [0, 1.5, 4, 5.25, 8, 11, 30]) close(map.beat(map.seconds(beat)), beat);
});

test("changes given out of order are read in order; one at beat 0 is the opening tempo (as Song.tempo_map)", () => {
  const map = tempoMap({ tempo: 100, tempoChanges: [{ beat: 8, bpm: 50 }, { beat: 0, bpm: 200 }, { beat: 4, bpm: 100 }] });
  close(map.seconds(4), 1.2); // 4 beats at 200
  close(map.seconds(8), 3.6); // 4 at 100
  close(map.seconds(9), 4.8); // 1 at 50
});
