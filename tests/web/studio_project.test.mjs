// web/studio's pure parts (the project index, A/B proposals, positions, the SSE parser), under
// node's test runner (run by tests/web/test_audio_modules.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { barOf, barStart, formatPosition, indexProject, notesIn, phraseNotes, toSong, withPhrases, withTracks } from "../../src/bandstand/web/studio/project.js";
import { parseSSE } from "../../src/bandstand/web/studio/api.js";

const note = (id, pitch, start, duration = 1, velocity = 90) => ({ id, pitch, start, duration, velocity });
const PROJECT = {
  id: "p", name: "Song", tempo: 96, key: "E minor", time_signature: { numerator: 3, denominator: 4 },
  sections: [{ name: "Verse", start_bar: 1, bars: 4, energy: 0.5 }, { name: "Chorus", start_bar: 5, bars: 2, energy: 0.9 }],
  buses: [{ id: "b1", name: "Reverb", inserts: [] }],
  tracks: [
    { id: "t1", name: "Bass", role: "bass", program: 33, drum_kit: null, volume: 0.8, pan: 0.4, mute: false, solo: false,
      inserts: [], sends: [{ bus_id: "b1", level: 0.3 }],
      regions: [{ id: "r2", track_id: "t1", name: "Chorus", start_beat: 12, length_beats: 6, notes: [note("n3", 40, 1)] },
        { id: "r1", track_id: "t1", name: "Verse", start_beat: 0, length_beats: 12, notes: [note("n2", 43, 2), note("n1", 40, 0)] }] },
    { id: "t2", name: "Drums", role: "drums", program: null, drum_kit: 0, regions: [], sends: [] },
  ],
  revision: 3,
};

test("a project is indexed in song beats: sorted notes, bars, sections, the room's send", () => {
  const view = indexProject(PROJECT);
  assert.equal(view.beatsPerBar, 3);
  assert.equal(view.bars, 6);
  assert.deepEqual(view.tracks[0].notes.map((n) => [n.id, n.start]), [["n1", 0], ["n2", 2], ["n3", 13]]);
  assert.deepEqual(view.tracks[0].regions.map((r) => r.id), ["r1", "r2"]);
  assert.deepEqual(view.sections.map((s) => [s.start, s.end]), [[0, 12], [12, 18]]);
  assert.equal(view.tracks[0].reverb, 0.3);
  assert.equal(view.tracks[1].drum, true);
  const song = toSong(view);
  assert.equal(song.tempo, 96);
  assert.deepEqual(song.tracks.map((t) => [t.id, t.drum, t.volume, t.notes.length]), [["t1", false, 0.8, 3], ["t2", true, 1, 0]]);
});

test("a track's controller events (the sustain pedal) go to the player in song beats, with the song's length", () => {
  const piano = { id: "t3", name: "Keys", role: "chords", program: 0, drum_kit: null, sends: [], regions: [
    { id: "r4", track_id: "t3", start_beat: 12, length_beats: 6, notes: [note("n5", 60, 0, 2)], cc: [{ beat: 0.05, cc: 64, value: 127 }, { beat: 5.94, cc: 64, value: 0 }] },
    { id: "r3", track_id: "t3", start_beat: 0, length_beats: 12, notes: [note("n4", 60, 0, 2)], cc: [{ beat: 11.94, cc: 64, value: 0 }, { beat: 0.05, cc: 64, value: 127 }] }] };
  const song = toSong(indexProject({ ...PROJECT, tracks: [...PROJECT.tracks, piano] }));
  assert.equal(song.length, 18);
  assert.deepEqual(song.tracks[2].controls.map((c) => [c.beat, c.cc, c.value]), [[0.05, 64, 127], [11.94, 64, 0], [12.05, 64, 127], [17.94, 64, 0]]);
  assert.deepEqual(song.tracks[0].controls, []);
});

test("notes sounding in a window, including one that started before it", () => {
  const notes = [note("a", 1, 0, 4), note("b", 1, 3, 1), note("c", 1, 9, 1)];
  assert.deepEqual(notesIn(notes, 2, 5).map((n) => n.id), ["a", "b"]);
  assert.deepEqual(notesIn(notes, 4.5, 9).map((n) => n.id), []);
});

const PHRASE = {
  type: "phrase", phraseId: "ph1", trackId: "t1", regionId: "r1", startBeat: 0, endBeat: 12, label: "Bass · bars 1–4",
  noteChanges: [
    { change: "removed", before: { noteId: "n2", pitch: 43, startBeat: 2, durationBeats: 1, velocity: 90 }, after: null },
    { change: "added", before: null, after: { noteId: "n9", pitch: 47, startBeat: 5, durationBeats: 0.5, velocity: 70 } },
    { change: "modified", before: { noteId: "n1", pitch: 40, startBeat: 0, durationBeats: 1, velocity: 90 },
      after: { noteId: "n1", pitch: 40, startBeat: 0, durationBeats: 2, velocity: 100 } },
  ],
};
const CHORUS = { ...PHRASE, phraseId: "ph2", regionId: "r2", startBeat: 12, endBeat: 18,
  noteChanges: [{ change: "added", before: null, after: { noteId: "n8", pitch: 52, startBeat: 0, durationBeats: 1, velocity: 80 } }] };

test("a variation's proposal applies its phrases (all, or those accepted) for A/B", () => {
  const view = indexProject(PROJECT);
  const all = withPhrases(view, [PHRASE, CHORUS]);
  assert.deepEqual(all.tracks[0].notes.map((n) => [n.id, n.start, n.duration]), [["n1", 0, 2], ["n9", 5, 0.5], ["n8", 12, 1], ["n3", 13, 1]]);
  const some = withPhrases(view, [PHRASE, CHORUS], new Set(["ph2"]));
  assert.deepEqual(some.tracks[0].notes.map((n) => n.id), ["n1", "n2", "n8", "n3"]);
  assert.deepEqual(view.tracks[0].notes.map((n) => n.id), ["n1", "n2", "n3"]); // the base is left alone
  const drawn = phraseNotes(view, CHORUS);
  assert.deepEqual(drawn, [{ side: "after", change: "added", pitch: 52, start: 12, duration: 1, velocity: 80 }]);
});

test("positions read bar.beat.sixteenth", () => {
  assert.equal(formatPosition(0, 4), "1.1.1");
  assert.equal(formatPosition(5.75, 4), "2.2.4");
  assert.equal(formatPosition(7, 3), "3.2.1");
});

test("server-sent events are parsed: named events, multi-line data, comments", () => {
  const text = ": ping\n\nevent: events\ndata: {\"a\": 1}\n\ndata: line one\ndata: line two\n\n";
  assert.deepEqual(parseSSE(text), [{ kind: "events", data: '{"a": 1}' }, { kind: "message", data: "line one\nline two" }]);
});

test("a part a variation adds is a lane in A (empty) and B (its phrase's notes), with the proposal's range", () => {
  const view = indexProject(PROJECT);
  const added = [{ id: "t9", name: "String Pad", role: "pad", program: 48, drum_kit: null, regions: [
    { id: "r9", track_id: "t9", name: "Chorus", start_beat: 12, length_beats: 6, notes: [note("p1", 59, 0, 3), note("p2", 69, 3, 3)] }] }];
  const base = withTracks(view, added);
  assert.deepEqual(base.tracks.map((t) => t.id), ["t1", "t2", "t9"]);
  const lane = base.tracks[2];
  assert.equal(lane.proposed, true);
  assert.equal(lane.notes.length, 0);
  assert.deepEqual([lane.low, lane.high], [59, 69]);
  assert.equal(withTracks(base, added), base); // already there: nothing to add
  const phrase = { phraseId: "ph", trackId: "t9", regionId: "r9", startBeat: 12, endBeat: 18,
    noteChanges: [{ change: "added", after: { noteId: "p1", pitch: 59, startBeat: 0, durationBeats: 3, velocity: 80 } }] };
  const b = withPhrases(base, [phrase]);
  assert.deepEqual(b.tracks[2].notes.map((n) => [n.pitch, n.start]), [[59, 12]]);
  assert.deepEqual(toSong(b).tracks.map((t) => [t.id, t.program]), [["t1", 33], ["t2", 0], ["t9", 48]]);
});

test("a project with a metre map: each bar as long as its metre, sections on its bar lines", () => {
  const project = { ...PROJECT, time_signature: { numerator: 4, denominator: 4 },
    metre_changes: [{ bar: 5, time_signature: { numerator: 6, denominator: 8 } },
      { bar: 6, time_signature: { numerator: 4, denominator: 4 } }],
    sections: [{ name: "Verse", start_bar: 1, bars: 4, energy: 0.5 }, { name: "Bridge", start_bar: 5, bars: 1, energy: 0.6 },
      { name: "Chorus", start_bar: 6, bars: 2, energy: 0.9 }] };
  const view = indexProject(project);
  assert.equal(view.beatsPerBar, 4);
  assert.equal(view.bars, 7);
  assert.deepEqual(view.barStarts, [0, 4, 8, 12, 16, 19, 23, 27]);
  assert.deepEqual(view.sections.map((s) => [s.start, s.end]), [[0, 16], [16, 19], [19, 27]]);
  assert.equal(view.lengthBeats, 27);
  assert.equal(formatPosition(17.5, 4, view.barStarts), "5.2.3");  // in the 6/8 bar
  assert.equal(formatPosition(20, 4, view.barStarts), "6.2.1");  // a 4/4 bar after it, a beat earlier
});

test("bars of a metre map: the bar of a beat and the beat of a bar, past the end at the last bar's length", () => {
  const view = { beatsPerBar: 4, barStarts: [0, 4, 7, 11] };  // 4/4, 3/4, 4/4
  assert.deepEqual([0, 3.9, 4, 6.9, 7, 10.9, 11, 15].map((b) => barOf(view, b)), [1, 1, 2, 2, 3, 3, 4, 5]);
  assert.deepEqual([1, 2, 3, 4, 5].map((b) => barStart(view, b)), [0, 4, 7, 11, 15]);
});
