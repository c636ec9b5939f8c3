// The arrangement view: a bar ruler with the sections and the chord symbols, one lane per track
// with its regions (and a sketch of their notes), a loop range, variation phrases highlighted with
// their notes before and after, and a playhead that shows the beat being heard.
//
// Drawing is virtual: one canvas the size of the viewport is redrawn (at most once a frame) for
// what is visible; a transparent scroller on top of it gives native scrolling (wheel, touch,
// scrollbars) and receives the pointer. The playhead is a separate element moved by a transform,
// so playing redraws nothing. The track headers (DOM, built by the page) follow the vertical scroll.

import { notesIn, formatPosition, phraseNotes } from "./project.js";

export const RULER = 58; // px: sections (18), chords (18), bar numbers (22)
export const LANE = 64;
const MIN_PX_PER_BEAT = 1.5, MAX_PX_PER_BEAT = 160;
const READABLE_BAR = 44; // px a bar needs for its chord symbol to be read at the opening zoom
// How a chord symbol may be shown, most legible first: whole, then as its triad, in 11 and 9 px.
const triad = (symbol) => { const m = /^([A-G][#b]?)(m(?!aj))?/.exec(symbol); return m ? m[1] + (m[2] || "") : symbol; };
const CHORD_FORMS = [
  ["600 11px ui-monospace, monospace", (s) => s], ["600 11px ui-monospace, monospace", triad],
  ["600 9px ui-monospace, monospace", (s) => s], ["600 9px ui-monospace, monospace", triad],
];
const CHANGE_COLOURS = { added: "#46d17d", removed: "#ff6b6b", modified: "#f5a524" };

// Text that fits `width`: whole, shortened with an ellipsis, or not at all (never squeezed).
function label(ctx, text, x, y, width) {
  if (width < 14) return;
  if (ctx.measureText(text).width <= width) { ctx.fillText(text, x, y); return; }
  let cut = text.length;
  while (cut > 1 && ctx.measureText(`${text.slice(0, cut)}…`).width > width) cut -= 1;
  if (cut > 1) ctx.fillText(`${text.slice(0, cut)}…`, x, y);
}

// A lane's vertical scale: the track's pitch range (at least an octave) over the lane's height.
function pitchScale(track, y) {
  const span = Math.max(12, track.high - track.low + 1), top = (track.high + track.low) / 2 + span / 2;
  return { span, y: (pitch) => y + 16 + ((top - pitch) / span) * (LANE - 22) };
}

export class Arrangement {
  constructor(root, { heads, onSelect = () => {}, onOpen = () => {}, onSeek = () => {}, onLoop = () => {} } = {}) {
    this.root = root;
    this.heads = heads;
    this.handlers = { onSelect, onOpen, onSeek, onLoop };
    this.pxPerBeat = 10;
    this.view = null;
    this.highlights = [];
    this.silenced = new Set(); // ids of the tracks not heard (muted, or another track soloed): drawn dimmed
    this.loop = null;
    this.selected = null; // region id
    this.position = null;
    this.frameMs = []; // how long the last redraws took (the browser test reads them), `draws` how many
    root.innerHTML = `<canvas class="arr-canvas" aria-hidden="true"></canvas>
      <div class="arr-playhead" hidden></div>
      <div class="arr-scroll" tabindex="0" aria-label="arrangement: arrows choose a region, Enter opens its notes, M and S mute and solo its track"><div class="arr-spacer"></div></div>`;
    this.canvas = root.querySelector(".arr-canvas");
    this.ctx = this.canvas.getContext("2d", { alpha: false });
    this.scroller = root.querySelector(".arr-scroll");
    this.spacer = root.querySelector(".arr-spacer");
    this.playhead = root.querySelector(".arr-playhead");
    this.userScrolledAt = -Infinity; // when a person (not the playhead following the sound) last scrolled
    this.scroller.addEventListener("scroll", () => {
      if (Math.abs(this.scroller.scrollLeft - (this.expectedLeft ?? -1)) > 1) this.userScrolledAt = performance.now();
      this.syncHeads(); this.invalidate();
    }, { passive: true });
    this.scroller.addEventListener("wheel", (e) => this.wheel(e), { passive: false });
    this.scroller.addEventListener("pointerdown", (e) => this.pointer(e));
    this.scroller.addEventListener("dblclick", (e) => { const hit = this.hit(e); if (hit?.region) this.handlers.onOpen(hit.region, hit.track); });
    new ResizeObserver(() => this.resize()).observe(root);
    this.resize();
  }

  // ------------------------------------------------------------------ state in

  setView(view) {
    this.view = view;
    if (this.selected && !this.regionById(this.selected)) this.selected = null;
    this.layout();
  }

  // Variation phrases to highlight (`phrase` events; `accepted: false` dims one, `focused` marks it).
  setHighlights(phrases) {
    this.highlights = (phrases || []).map((p) => ({ ...p, notes: this.view ? phraseNotes(this.view, p) : [] }));
    this.invalidate();
  }
  setLoop(loop) { this.loop = loop; this.invalidate(); }
  setSilenced(ids) { this.silenced = new Set(ids); this.invalidate(); }
  select(regionId) { this.selected = regionId; this.invalidate(); }

  regionById(id) {
    for (const t of this.view?.tracks || []) for (const r of t.regions) if (r.id === id) return { region: r, track: t };
    return null;
  }

  // ------------------------------------------------------------------ geometry

  get width() { return this.root.clientWidth; }
  get height() { return this.root.clientHeight; }
  beatAt(x) { return (this.scroller.scrollLeft + x) / this.pxPerBeat; }
  xOf(beat) { return beat * this.pxPerBeat - this.scroller.scrollLeft; }

  layout() {
    const beats = this.view ? this.view.lengthBeats + this.view.beatsPerBar * 2 : 0;
    this.spacer.style.width = `${Math.ceil(beats * this.pxPerBeat)}px`;
    this.spacer.style.height = `${RULER + (this.view?.tracks.length || 0) * LANE}px`;
    this.syncHeads();
    this.invalidate();
  }

  resize() {
    this.viewWidth = this.width; // the playhead's bound, measured here rather than every frame
    const ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.max(1, Math.round(this.width * ratio));
    this.canvas.height = Math.max(1, Math.round(this.height * ratio));
    this.canvas.style.width = `${this.width}px`; this.canvas.style.height = `${this.height}px`;
    this.ratio = ratio;
    this.invalidate();
  }

  syncHeads() { if (this.heads) this.heads.style.transform = `translateY(${-this.scroller.scrollTop}px)`; }

  // Zoom by `factor` keeping the beat under x (default: the middle) where it is.
  zoomBy(factor, x = this.width / 2) {
    const beat = this.beatAt(x);
    this.pxPerBeat = Math.min(MAX_PX_PER_BEAT, Math.max(MIN_PX_PER_BEAT, this.pxPerBeat * factor));
    this.layout();
    this.scroller.scrollLeft = Math.max(0, beat * this.pxPerBeat - x);
  }

  // Fit the whole song in the viewport.
  fit() {
    if (!this.view) return;
    this.pxPerBeat = Math.min(MAX_PX_PER_BEAT, Math.max(MIN_PX_PER_BEAT, (this.width - 24) / (this.view.lengthBeats + 1)));
    this.layout();
    this.scroller.scrollLeft = 0;
  }

  // The zoom a song opens at: the whole song when its bars are wide enough to read a chord a bar
  // (READABLE_BAR px), else that wide from the start (scroll, or 0 / fit, for the whole song).
  open() {
    if (!this.view) return;
    this.fit();
    const least = READABLE_BAR / this.view.beatsPerBar;
    if (this.pxPerBeat < least) { this.pxPerBeat = Math.min(MAX_PX_PER_BEAT, least); this.layout(); this.scroller.scrollLeft = 0; }
  }

  // Make `beat` visible (the playhead following the sound, a phrase being reviewed).
  reveal(beat, { margin = 0.15, center = false } = {}) {
    const x = this.xOf(beat), w = this.viewWidth;
    if (center || x < w * margin * 0.5 || x > w * (1 - margin)) {
      this.scroller.scrollLeft = Math.max(0, beat * this.pxPerBeat - w * (center ? 0.5 : margin));
      this.expectedLeft = this.scroller.scrollLeft;
    }
  }

  // The playhead may pull the view along unless a person scrolled in the last `ms`.
  following(ms = 2500) { return performance.now() - this.userScrolledAt > ms; }

  wheel(e) {
    if (!(e.ctrlKey || e.metaKey)) return; // plain wheel and trackpads scroll natively
    e.preventDefault();
    const box = this.scroller.getBoundingClientRect();
    this.zoomBy(Math.exp(-e.deltaY * 0.002), e.clientX - box.left);
  }

  // ------------------------------------------------------------------ pointer

  hit(e) {
    const box = this.scroller.getBoundingClientRect();
    const x = e.clientX - box.left, y = e.clientY - box.top;
    const beat = this.beatAt(x);
    if (y < RULER) return { ruler: y < 18 ? "section" : "bar", beat };
    const lane = Math.floor((y - RULER + this.scroller.scrollTop) / LANE);
    const track = this.view?.tracks[lane];
    if (!track) return { beat };
    const region = track.regions.find((r) => beat >= r.start_beat && beat < r.start_beat + r.length_beats);
    return { beat, track, region };
  }

  pointer(e) {
    if (!this.view || e.button !== 0) return;
    const hit = this.hit(e);
    if (hit.ruler === "section") {
      const section = this.view.sections.find((s) => hit.beat >= s.start && hit.beat < s.end);
      if (section) this.handlers.onLoop(section);
    } else if (hit.ruler === "bar") {
      const lines = this.barLines(0, Math.max(0, hit.beat));  // the start of the bar clicked (the metre map's)
      this.handlers.onSeek(lines.length ? lines[lines.length - 1][0] : 0);
    } else if (hit.region) {
      this.selected = hit.region.id;
      this.handlers.onSelect(hit.region, hit.track);
      this.invalidate();
    }
  }

  // ------------------------------------------------------------------ drawing

  invalidate() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => { this.pending = 0; this.draw(); });
  }

  draw() {
    const started = performance.now();
    const { ctx, ratio } = this;
    const w = this.width, h = this.height;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = "#14171d"; ctx.fillRect(0, 0, w, h);
    if (!this.view) return;
    const view = this.view, ppb = this.pxPerBeat, left = this.scroller.scrollLeft, top = this.scroller.scrollTop;
    const from = left / ppb, to = (left + w) / ppb;
    const bpb = view.beatsPerBar;

    // lanes (clipped below the ruler)
    ctx.save();
    ctx.beginPath(); ctx.rect(0, RULER, w, h - RULER); ctx.clip();
    this.drawGrid(from, to, RULER, h);
    const first = Math.max(0, Math.floor(top / LANE)), last = Math.min(view.tracks.length, Math.ceil((top + h - RULER) / LANE));
    for (let i = first; i < last; i++) this.drawLane(view.tracks[i], RULER + i * LANE - top, from, to);
    this.drawHighlights(from, to, top);
    if (this.loop) {
      ctx.fillStyle = "rgba(245,165,36,0.07)";
      ctx.fillRect(this.xOf(this.loop.start), RULER, (this.loop.end - this.loop.start) * ppb, h - RULER);
    }
    ctx.restore();

    this.drawRuler(from, to, w, bpb);
    this.frameMs.push(performance.now() - started);
    this.draws = (this.draws || 0) + 1;
    if (this.frameMs.length > 600) this.frameMs.splice(0, 300);
  }

  drawGrid(from, to, y0, y1) {
    const { ctx } = this, ppb = this.pxPerBeat;
    const beatLines = ppb >= 12, lines = this.barLines(from, to), bars = new Set(lines.map(([beat]) => beat));
    ctx.lineWidth = 1;
    const line = (beat, colour) => {
      ctx.strokeStyle = colour;
      const x = Math.round(this.xOf(beat)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, y0); ctx.lineTo(x, y1); ctx.stroke();
    };
    if (beatLines) for (let beat = Math.floor(from); beat <= to; beat++) if (!bars.has(beat)) line(beat, "#1d2129");
    for (const [beat] of lines) line(beat, "#2a2f3a");
  }

  // [beat, 0-based bar] of every bar line from `from` to `to`: the metre map's (a 3/4 bar is three
  // beats), past the song's end at its last bar's length.
  barLines(from, to) {
    const starts = this.view.barStarts || [0], out = [];
    const last = starts.length - 1, tail = last > 0 ? starts[last] - starts[last - 1] : this.view.beatsPerBar;
    for (let bar = 0; ; bar++) {
      const beat = bar <= last ? starts[bar] : starts[last] + (bar - last) * tail;
      if (beat > to) break;
      if (beat >= from - tail) out.push([beat, bar]);
    }
    return out;
  }

  drawLane(track, y, from, to) {
    const { ctx } = this, ppb = this.pxPerBeat;
    ctx.fillStyle = "rgba(255,255,255,0.015)"; ctx.fillRect(0, y, this.width, LANE);
    ctx.fillStyle = "#232833"; ctx.fillRect(0, y + LANE - 1, this.width, 1);
    const { span, y: pitchY } = pitchScale(track, y);
    const dim = track.mute || this.silenced.has(track.id);
    for (const region of track.regions) {
      const start = region.start_beat, end = start + region.length_beats;
      if (end < from || start > to) continue;
      const x = this.xOf(start), rw = region.length_beats * ppb;
      const selected = region.id === this.selected;
      ctx.globalAlpha = dim ? 0.3 : 1;
      ctx.fillStyle = track.colour + "33"; ctx.fillRect(x + 1, y + 2, rw - 2, LANE - 5);
      ctx.fillStyle = track.colour + "aa"; ctx.fillRect(x + 1, y + 2, rw - 2, 12);
      ctx.strokeStyle = selected ? "#ffffff" : track.colour; ctx.lineWidth = selected ? 2 : 1;
      ctx.strokeRect(x + 1.5, y + 2.5, rw - 3, LANE - 6);
      if (rw > 30) {
        ctx.fillStyle = "#0f1115"; ctx.font = "600 10px system-ui, sans-serif";
        label(ctx, region.name || track.name, Math.max(x, 0) + 4, y + 11, rw - 8 - Math.max(0, -x));
      }
      ctx.globalAlpha = 1;
    }
    // the notes, as a sketch (visible ones only)
    ctx.fillStyle = dim ? track.colour + "4d" : track.colour;
    const noteH = Math.max(1.5, Math.min(4, (LANE - 22) / span));
    for (const n of notesIn(track.notes, from, to)) {
      ctx.fillRect(this.xOf(n.start), pitchY(n.pitch) - noteH / 2, Math.max(1, n.duration * ppb - 0.5), noteH);
    }
  }

  drawHighlights(from, to, top) {
    const { ctx } = this, ppb = this.pxPerBeat, view = this.view;
    for (const phrase of this.highlights) {
      const lane = view.tracks.findIndex((t) => t.id === phrase.trackId);
      const start = phrase.startBeat, end = phrase.endBeat;
      if (lane < 0 || end < from || start > to) continue;
      const y = RULER + lane * LANE - top, track = view.tracks[lane];
      const accepted = phrase.accepted !== false;
      ctx.fillStyle = accepted ? "rgba(245,165,36,0.16)" : "rgba(139,147,165,0.10)";
      ctx.fillRect(this.xOf(start), y + 1, (end - start) * ppb, LANE - 3);
      ctx.strokeStyle = accepted ? "#f5a524" : "#5b6272"; ctx.lineWidth = phrase.focused ? 2.5 : 1.5;
      ctx.setLineDash(accepted ? [] : [4, 3]);
      ctx.strokeRect(this.xOf(start) + 0.5, y + 1.5, (end - start) * ppb - 1, LANE - 4);
      ctx.setLineDash([]);
      const pitchY = pitchScale(track, y).y;
      for (const n of phrase.notes) {
        const x = this.xOf(n.start), nw = Math.max(2, n.duration * ppb - 0.5);
        if (n.side === "before") { ctx.strokeStyle = CHANGE_COLOURS.removed; ctx.lineWidth = 1; ctx.strokeRect(x + 0.5, pitchY(n.pitch) - 2, nw, 4); }
        else { ctx.fillStyle = CHANGE_COLOURS[n.change === "modified" ? "modified" : "added"]; ctx.fillRect(x, pitchY(n.pitch) - 2, nw, 4); }
      }
    }
  }

  drawRuler(from, to, w, bpb) {
    const { ctx } = this, ppb = this.pxPerBeat, view = this.view;
    ctx.fillStyle = "#171a21"; ctx.fillRect(0, 0, w, RULER);
    // sections
    ctx.font = "600 11px system-ui, sans-serif";
    view.sections.forEach((s, i) => {
      if (s.end < from || s.start > to) return;
      const x = this.xOf(s.start), sw = (s.end - s.start) * ppb;
      const looped = this.loop && this.loop.start === s.start && this.loop.end === s.end;
      ctx.fillStyle = looped ? "#f5a524" : (i % 2 ? "#2b3240" : "#323a4a");
      ctx.fillRect(x + 1, 1, sw - 2, 16);
      ctx.fillStyle = looped ? "#1a1300" : "#d8dce6";
      label(ctx, (looped ? "⟳ " : "") + s.name, Math.max(x, 0) + 5, 13, sw - 10 - Math.max(0, -x));
    });
    // chords: every change laid out to be read (layoutChords), none drawn over another
    this.chordLabels = this.layoutChords(from, to);
    ctx.fillStyle = "#f5a524";
    for (const l of this.chordLabels) { ctx.font = l.font; ctx.fillText(l.text, l.x, l.y); }
    // bar numbers: every bar, or every 2, 4, 8 … when they would crowd
    const starts = view.barStarts || [0];
    const shortest = Math.min(bpb, ...starts.slice(1).map((b, i) => b - starts[i]));
    const barPx = shortest * ppb;
    let every = 1; while (barPx * every < 28) every *= 2;
    ctx.font = "11px system-ui, sans-serif"; ctx.strokeStyle = "#3a4150"; ctx.lineWidth = 1;
    for (const [beat, bar] of this.barLines(from, to)) {  // the metre map's bar lines
      const x = Math.round(this.xOf(beat)) + 0.5;
      const labelled = bar % every === 0;
      ctx.beginPath(); ctx.moveTo(x, labelled ? 38 : 48); ctx.lineTo(x, RULER); ctx.stroke();
      if (labelled) { ctx.fillStyle = "#8b93a5"; ctx.fillText(String(bar + 1), x + 3, 50); }
    }
    if (this.loop) {
      ctx.fillStyle = "#f5a524";
      ctx.fillRect(this.xOf(this.loop.start), RULER - 3, (this.loop.end - this.loop.start) * ppb, 3);
    }
    ctx.fillStyle = "#2a2f3a"; ctx.fillRect(0, RULER - 1, w, 1);
  }

  // The chord changes in view as labels that do not overlap: each at its beat on the upper or the
  // lower of two rows (stacked when a neighbour's label still runs), whole if it fits, else
  // abbreviated to its triad ("C#m7" → "C#m"), in a smaller type at close quarters; what fits in
  // neither row is left out (zoom in to read the fast changes). A repeated symbol is not a change.
  layoutChords(from, to) {
    const { ctx } = this, ppb = this.pxPerBeat, chords = this.view.chords, labels = [];
    const rows = [-Infinity, -Infinity], ys = [28, 37], gap = 3;
    let previous = null;
    for (let i = 0; i < chords.length; i++) {
      const c = chords[i], next = chords[i + 1]?.beat ?? this.view.lengthBeats;
      if (c.symbol === previous) continue;
      previous = c.symbol;
      if (next < from || c.beat > to) continue;
      const x = this.xOf(c.beat) + 2;
      CHORD_FORMS.some(([font, shorten]) => {
        ctx.font = font;
        const text = shorten(c.symbol), w = ctx.measureText(text).width;
        const row = rows.findIndex((end) => x >= end + gap);
        if (row < 0) return false;
        // a label may run into the next chord's span (the next then takes the other row), no further
        const room = 2 * (next - c.beat) * ppb - gap;
        if (w > room) return false;
        rows[row] = x + w;
        labels.push({ symbol: c.symbol, text, font, x, y: ys[row], w, row });
        return true;
      });
    }
    return labels;
  }

  // The playhead at the beat being heard (null hides it). Cheap: a transform, no redraw, and no
  // layout — the width is the one the last resize measured, and what did not change is not written.
  setPosition(beat) {
    this.position = beat;
    if (beat === null || beat === undefined || !this.view) { if (!this.playhead.hidden) this.playhead.hidden = true; return; }
    const x = this.xOf(beat), hidden = x < 0 || x > this.viewWidth;
    if (this.playhead.hidden !== hidden) this.playhead.hidden = hidden;
    const transform = `translateX(${x.toFixed(1)}px)`;
    if (this.playheadAt !== transform) { this.playheadAt = transform; this.playhead.style.transform = transform; }
    const position = formatPosition(beat, this.view.beatsPerBar, this.view.barStarts);
    if (this.playhead.dataset.position !== position) this.playhead.dataset.position = position;
  }
}
