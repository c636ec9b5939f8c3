// A studio project as the page uses it: the project JSON of GET /api/v1/projects/{id} (tracks,
// regions with their notes in beats from the region's start, sections, the tempo map, the mix)
// indexed for drawing and playing. Pure functions, no DOM: tested under node (tests/web).
//
//   const view = indexProject(projectJson)
//   view.bars, view.beatsPerBar, view.tracks[i].notes   // absolute beats, sorted by start
//   view.barStarts                                       // the beat each bar starts at (the metre map's), and the end
//   view.tracks[i].controls                              // CC events [{beat, cc, value}], the same
//   toSong(view)                                         // what audio/player.js plays
//   withPhrases(view, phrases, acceptedIds?)             // the proposal of a variation, for A/B
//   withTracks(view, addedTracks)                        // … with the parts it adds as lanes

export const DEFAULT_COLOURS = ["#e5484d", "#3e8ed0", "#8e4ec6", "#30a46c", "#f5a524", "#12a594", "#d6409f", "#978365"];

export function beatsPerBar(project) {
  const ts = project.time_signature || { numerator: 4, denominator: 4 };
  return (ts.numerator * 4) / ts.denominator;
}

// The beat at which 1-based `bar` starts, following the project's metre map (`time_signature` from
// bar 1, then `metre_changes`: a 3/4 bridge's bars are three beats long); `starts` caches them.
function barStarter(project) {
  const changes = [...(project.metre_changes || [])].sort((a, b) => a.bar - b.bar);
  const lengthOf = (bar) => {
    let beats = beatsPerBar(project);
    for (const c of changes) if (c.bar <= bar) beats = beatsPerBar(c);
    return beats;
  };
  const starts = [0];
  const startOf = (bar) => {
    while (starts.length < bar) starts.push(starts[starts.length - 1] + lengthOf(starts.length));
    return starts[bar - 1];
  };
  return { startOf, starts };
}

// The level of a track's send to the bus named "Reverb" (the room the page's synth plays).
function reverbSend(track, buses) {
  const room = (buses || []).find((b) => String(b.name).toLowerCase() === "reverb");
  return room ? (track.sends || []).find((s) => s.bus_id === room.id)?.level ?? 0 : 0;
}

export function indexProject(project) {
  const bpb = beatsPerBar(project);
  let end = 0;
  const tracks = (project.tracks || []).map((track, i) => {
    const notes = [], controls = [];
    for (const region of track.regions || []) {
      end = Math.max(end, region.start_beat + region.length_beats);
      for (const n of region.notes || []) {
        notes.push({ id: n.id, region: region.id, start: region.start_beat + n.start, duration: n.duration,
          pitch: n.pitch, velocity: n.velocity });
      }
      for (const c of region.cc || []) controls.push({ beat: region.start_beat + c.beat, cc: c.cc, value: c.value });
    }
    notes.sort((a, b) => a.start - b.start || a.pitch - b.pitch);
    controls.sort((a, b) => a.beat - b.beat); // stable: events at one beat keep their order
    let low = 127, high = 0;
    for (const n of notes) { low = Math.min(low, n.pitch); high = Math.max(high, n.pitch); }
    return {
      id: track.id, name: track.name, role: track.role || "", colour: track.colour || DEFAULT_COLOURS[i % DEFAULT_COLOURS.length],
      drum: track.drum_kit !== null && track.drum_kit !== undefined, program: track.program ?? 0,
      volume: track.volume ?? 1, pan: track.pan ?? 0.5, mute: Boolean(track.mute), solo: Boolean(track.solo),
      reverb: reverbSend(track, project.buses), inserts: track.inserts || [], sends: track.sends || [],
      regions: [...(track.regions || [])].sort((a, b) => a.start_beat - b.start_beat),
      notes, controls, low: notes.length ? low : 60, high: notes.length ? high : 60, source: track,
    };
  });
  const { startOf, starts } = barStarter(project);
  for (const s of project.sections || []) end = Math.max(end, startOf(s.start_bar + s.bars));
  let bars = 1;
  while (startOf(bars + 1) < end - 1e-9) bars++;
  startOf(bars + 1);
  return { project, id: project.id, name: project.name, tempo: project.tempo, tempoChanges: project.tempo_changes || [],
    key: project.key, beatsPerBar: bpb, bars, lengthBeats: startOf(bars + 1), tracks, barStarts: starts.slice(0, bars + 1),
    sections: (project.sections || []).map((s) => ({ ...s, start: startOf(s.start_bar), end: startOf(s.start_bar + s.bars) })),
    chords: project.view?.chords || [], drumNames: project.view?.drum_names || {}, instruments: project.view?.instruments || {},
    suggestions: project.view?.suggestions || [],
    revision: project.revision };
}

// The song audio/player.js plays: each track's notes and controller events (the sustain pedal)
// in beats, its sound and its mix, and the song's length.
export function toSong(view) {
  return {
    tempo: view.tempo,
    tempoChanges: view.tempoChanges.map((c) => ({ beat: c.beat, bpm: c.bpm })),
    length: view.lengthBeats,
    tracks: view.tracks.map((t) => ({ id: t.id, program: t.program, drum: t.drum, volume: t.volume, pan: t.pan,
      mute: t.mute, solo: t.solo, reverb: t.reverb, notes: t.notes, controls: t.controls })),
  };
}

// A variation's new parts (`addedTracks` of GET /variations/{id}: project tracks) as lanes of the
// view, their regions without notes (the phrases bring those, withPhrases): A shows where B adds a
// part, B plays it. Their pitch range is the proposal's, so both draw the notes where B does.
export function withTracks(view, added) {
  const have = new Set(view.tracks.map((t) => t.id));
  const fresh = (added || []).filter((t) => !have.has(t.id));
  if (!fresh.length) return view;
  const full = indexProject({ ...view.project, tracks: fresh }).tracks;
  const empty = indexProject({ ...view.project, tracks: fresh.map((t) => ({ ...t,
    regions: (t.regions || []).map((r) => ({ ...r, notes: [], cc: [] })) })) }).tracks;
  const tracks = empty.map((t, i) => ({ ...t, low: full[i].low, high: full[i].high, proposed: true,
    colour: fresh[i].colour || DEFAULT_COLOURS[(view.tracks.length + i) % DEFAULT_COLOURS.length] }));
  return { ...view, tracks: [...view.tracks, ...tracks] };
}

// First index of `notes` (sorted by start) whose start is ≥ beat.
export function firstAt(notes, beat) {
  let lo = 0, hi = notes.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (notes[mid].start < beat) lo = mid + 1; else hi = mid; }
  return lo;
}

// Notes sounding in [from, to): a note may start before `from` (at most `maxLength` beats before).
export function notesIn(notes, from, to, maxLength = 16) {
  const out = [];
  for (let i = firstAt(notes, from - maxLength); i < notes.length && notes[i].start < to; i++) {
    if (notes[i].start + notes[i].duration > from) out.push(notes[i]);
  }
  return out;
}

// A variation's proposal for A/B: the base with each phrase's note changes applied (all phrases,
// or those whose ids are in `accepted`). Phrases are the `phrase` events of the stream (camelCase):
// their notes are timed from their region's start; a note added to a region the base lacks is
// timed from the phrase's first bar.
export function withPhrases(view, phrases, accepted = null) {
  const byTrack = new Map(view.tracks.map((t) => [t.id, { ...t, notes: [...t.notes] }]));
  const regionStart = new Map();
  for (const t of view.tracks) for (const r of t.regions) regionStart.set(r.id, r.start_beat);
  for (const phrase of phrases) {
    if (accepted && !accepted.has(phrase.phraseId)) continue;
    const track = byTrack.get(phrase.trackId);
    if (!track) continue;
    const offset = regionStart.get(phrase.regionId) ?? phrase.startBeat;
    for (const change of phrase.noteChanges || []) {
      if (change.before) {
        const id = change.before.noteId;
        const at = track.notes.findIndex((n) => (id ? n.id === id
          : n.pitch === change.before.pitch && Math.abs(n.start - (offset + change.before.startBeat)) < 1e-6));
        if (at >= 0) track.notes.splice(at, 1);
      }
      if (change.after) {
        track.notes.push({ id: change.after.noteId || `${phrase.phraseId}-${track.notes.length}`, region: phrase.regionId,
          start: offset + change.after.startBeat, duration: change.after.durationBeats, pitch: change.after.pitch,
          velocity: change.after.velocity, changed: change.change });
      }
    }
  }
  const tracks = view.tracks.map((t) => {
    const out = byTrack.get(t.id);
    out.notes.sort((a, b) => a.start - b.start || a.pitch - b.pitch);
    return out;
  });
  return { ...view, tracks };
}

// Where a phrase is on the song's time line, and its notes before/after in song beats.
export function phraseNotes(view, phrase) {
  const region = view.tracks.flatMap((t) => t.regions).find((r) => r.id === phrase.regionId);
  const offset = region ? region.start_beat : phrase.startBeat;
  const out = [];
  for (const change of phrase.noteChanges || []) {
    for (const side of ["before", "after"]) {
      const n = change[side];
      if (n) out.push({ side, change: change.change, pitch: n.pitch, start: offset + n.startBeat, duration: n.durationBeats, velocity: n.velocity });
    }
  }
  return out;
}

// Bar.beat.sixteenth of a beat position, 1-based, as DAWs show it.
// The 1-based bar holding `beat` in an indexed project (its metre map's bars; past its end, bars
// of its last bar's length), and the beat a 1-based bar starts at.
export function barOf(view, beat) {
  const starts = view.barStarts || [0], last = starts.length - 1, bpb = view.beatsPerBar;
  if (last < 1 || beat >= starts[last]) {
    const tail = last >= 1 ? starts[last] - starts[last - 1] : bpb;
    return last + 1 + Math.floor((beat - (starts[last] || 0)) / tail + 1e-9);
  }
  let bar = 1;
  while (bar < last && starts[bar] <= beat + 1e-9) bar++;
  return bar;
}

export function barStart(view, bar) {
  const starts = view.barStarts || [0], last = starts.length - 1;
  if (bar - 1 <= last) return starts[Math.max(0, bar - 1)];
  const tail = last >= 1 ? starts[last] - starts[last - 1] : view.beatsPerBar;
  return starts[last] + (bar - 1 - last) * tail;
}

export function formatPosition(beat, bpb, starts = null) {
  const b = Math.max(0, beat);
  let bar = Math.floor(b / bpb) + 1, inBar = b - (bar - 1) * bpb;
  if (starts && starts.length > 1 && b < starts[starts.length - 1]) {  // the metre map's bars (view.barStarts)
    bar = 1;
    while (bar < starts.length - 1 && starts[bar] <= b + 1e-9) bar++;
    inBar = b - starts[bar - 1];
  }
  const beatNo = Math.floor(inBar) + 1;
  const six = Math.floor((inBar - Math.floor(inBar)) * 4) + 1;
  return `${bar}.${beatNo}.${six}`;
}
