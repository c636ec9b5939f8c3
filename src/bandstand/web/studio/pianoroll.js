// The piano roll of one region: see, select, move, resize, delete and add notes, and change their
// velocity. Drum regions show one named row per drum sound (General MIDI names). Every finished
// gesture is reported once, as the edit a tool call makes (`onEdit`):
//
//   {kind: "update", changes: [{id, start?, pitch?, duration?, velocity?}]}   → update_notes
//   {kind: "remove", ids: [...]}                                             → remove_notes
//   {kind: "add", notes: [{pitch, start, duration, velocity}]}              → add_notes
//
// The roll shows the edit at once; the page sends it and reloads the region from the answer.
// Keys: arrows move the selection (←/→ a grid step, ↑/↓ a semitone or drum row, Shift+↑/↓ an
// octave), Alt+↑/↓ velocity ±8, Delete removes, Ctrl+A selects all, Insert/N adds a note at the
// cursor, Escape closes. Times are beats from the region's start.

const KEYS = 64; // px: the keyboard or the drum names (wider for drums)
const DRUM_KEYS = 132;
const VELOCITY = 56; // px: the velocity lane
const ROW = 12, DRUM_ROW = 18;
const EDGE = 6; // px from a note's end that resizes it
const STANDARD_KIT = [36, 38, 42, 46, 49, 51, 45, 50];
const NAMES = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"];
const BLACK = new Set([1, 3, 6, 8, 10]);

export function pitchName(pitch) { return `${NAMES[pitch % 12]}${Math.floor(pitch / 12) - 1}`; }

export class PianoRoll {
  constructor(root, { onEdit = () => {}, onClose = () => {} } = {}) {
    this.root = root;
    this.onEdit = onEdit;
    this.onClose = onClose;
    this.grid = 0.25; // beats
    this.pxPerBeat = 40;
    this.notes = [];
    this.selection = new Set();
    this.drag = null;
    this.frameMs = [];
    root.innerHTML = `<canvas class="roll-canvas" aria-hidden="true"></canvas>
      <div class="roll-scroll" tabindex="0" aria-label="piano roll: arrows move notes, Delete removes, N adds, Escape closes"><div class="roll-spacer"></div></div>`;
    this.canvas = root.querySelector(".roll-canvas");
    this.ctx = this.canvas.getContext("2d", { alpha: false });
    this.scroller = root.querySelector(".roll-scroll");
    this.spacer = root.querySelector(".roll-spacer");
    this.scroller.addEventListener("scroll", () => this.invalidate(), { passive: true });
    this.scroller.addEventListener("pointerdown", (e) => this.down(e));
    this.scroller.addEventListener("pointermove", (e) => this.move(e));
    this.scroller.addEventListener("pointerup", (e) => this.up(e));
    this.scroller.addEventListener("dblclick", (e) => this.addAt(e));
    this.scroller.addEventListener("keydown", (e) => this.key(e));
    new ResizeObserver(() => this.resize()).observe(root);
  }

  // ------------------------------------------------------------------ content

  // Show `region` of `track` (a view track: drum, colour) with its notes; `drumNames` {pitch: name}.
  open(track, region, { drumNames = {}, beatsPerBar = 4, ghosts = [] } = {}) {
    const same = this.region?.id === region.id;
    this.track = track; this.region = region; this.drumNames = drumNames; this.beatsPerBar = beatsPerBar;
    this.ghosts = ghosts; // [{pitch, start, duration, change}] the variation's notes before/after
    this.notes = (region.notes || []).map((n) => ({ ...n }));
    if (!same) this.selection.clear();
    else for (const id of [...this.selection]) if (!this.notes.some((n) => n.id === id)) this.selection.delete(id);
    this.rows = this.makeRows();
    this.resize();
    if (!same) this.scrollToNotes();
  }

  makeRows() {
    if (!this.track.drum) return null; // melodic: every pitch, 127 at the top
    const used = new Set(this.notes.map((n) => n.pitch));
    for (const g of this.ghosts) used.add(g.pitch);
    for (const p of STANDARD_KIT) used.add(p);
    return [...used].sort((a, b) => b - a);
  }

  get keysWidth() { return this.track?.drum ? DRUM_KEYS : KEYS; }
  get rowHeight() { return this.track?.drum ? DRUM_ROW : ROW; }
  get rowCount() { return this.rows ? this.rows.length : 128; }
  rowOf(pitch) { return this.rows ? this.rows.indexOf(pitch) : 127 - pitch; }
  pitchOfRow(row) {
    const r = Math.max(0, Math.min(this.rowCount - 1, row));
    return this.rows ? this.rows[r] : 127 - r;
  }

  layout() {
    const length = this.region?.length_beats || 16;
    this.spacer.style.width = `${this.keysWidth + Math.ceil(length * this.pxPerBeat) + 40}px`;
    this.spacer.style.height = `${this.rowCount * this.rowHeight + VELOCITY}px`;
  }

  resize() {
    const ratio = window.devicePixelRatio || 1;
    const w = this.root.clientWidth, h = this.root.clientHeight;
    this.canvas.width = Math.max(1, Math.round(w * ratio)); this.canvas.height = Math.max(1, Math.round(h * ratio));
    this.canvas.style.width = `${w}px`; this.canvas.style.height = `${h}px`;
    this.ratio = ratio;
    if (this.region) {
      // fit the region's width when it is short enough to be read that way
      const fit = (w - this.keysWidth - 24) / this.region.length_beats;
      this.pxPerBeat = Math.max(16, Math.min(96, fit));
      this.layout();
    }
    this.invalidate();
  }

  scrollToNotes() {
    if (!this.notes.length || this.rows) { this.scroller.scrollTop = 0; return; }
    const top = Math.max(...this.notes.map((n) => n.pitch)), low = Math.min(...this.notes.map((n) => n.pitch));
    const mid = (top + low) / 2;
    this.scroller.scrollTop = Math.max(0, this.rowOf(Math.round(mid)) * ROW - (this.root.clientHeight - VELOCITY) / 2);
    this.scroller.scrollLeft = 0;
  }

  // ------------------------------------------------------------------ geometry

  xOf(beat) { return this.keysWidth + beat * this.pxPerBeat - this.scroller.scrollLeft; }
  beatAt(x) { return (x - this.keysWidth + this.scroller.scrollLeft) / this.pxPerBeat; }
  yOfRow(row) { return row * this.rowHeight - this.scroller.scrollTop; }
  rowAt(y) { return Math.floor((y + this.scroller.scrollTop) / this.rowHeight); }
  get velocityTop() { return this.root.clientHeight - VELOCITY; }
  snap(beat) { return Math.max(0, Math.round(beat / this.grid) * this.grid); }

  at(e) {
    const box = this.scroller.getBoundingClientRect();
    return { x: e.clientX - box.left, y: e.clientY - box.top };
  }

  noteAt(x, y) {
    if (y >= this.velocityTop) {
      // the velocity lane: the note whose bar is nearest in time
      const beat = this.beatAt(x);
      let best = null;
      for (const n of this.notes) if (Math.abs(n.start - beat) * this.pxPerBeat < 5 && (!best || this.selection.has(n.id))) best = n;
      return best ? { note: best, part: "velocity" } : null;
    }
    const row = this.rowAt(y), beat = this.beatAt(x);
    for (let i = this.notes.length - 1; i >= 0; i--) {
      const n = this.notes[i];
      if (this.rowOf(n.pitch) !== row || beat < n.start || beat > n.start + n.duration) continue;
      const endX = this.xOf(n.start + n.duration);
      return { note: n, part: endX - x <= EDGE ? "end" : "body" };
    }
    return null;
  }

  // ------------------------------------------------------------------ gestures

  down(e) {
    if (e.button !== 0 || !this.region) return;
    const { x, y } = this.at(e);
    if (x < this.keysWidth) return;
    const hit = this.noteAt(x, y);
    if (!hit) { if (!e.shiftKey) this.selection.clear(); this.invalidate(); return; }
    if (e.shiftKey) { if (this.selection.has(hit.note.id)) this.selection.delete(hit.note.id); else this.selection.add(hit.note.id); }
    else if (!this.selection.has(hit.note.id)) { this.selection.clear(); this.selection.add(hit.note.id); }
    this.scroller.setPointerCapture(e.pointerId);
    const chosen = this.notes.filter((n) => this.selection.has(n.id));
    this.drag = { part: hit.part, x, y, anchor: hit.note, moved: false,
      before: new Map(chosen.map((n) => [n.id, { start: n.start, pitch: n.pitch, duration: n.duration, velocity: n.velocity }])) };
    this.invalidate();
  }

  move(e) {
    const d = this.drag;
    if (!d) {
      const { x, y } = this.at(e);
      const hit = x >= this.keysWidth ? this.noteAt(x, y) : null;
      this.scroller.style.cursor = hit?.part === "end" ? "ew-resize" : hit?.part === "velocity" ? "ns-resize" : hit ? "grab" : "default";
      return;
    }
    const { x, y } = this.at(e);
    const beats = (x - d.x) / this.pxPerBeat;
    d.moved = d.moved || Math.abs(x - d.x) > 2 || Math.abs(y - d.y) > 2;
    if (!d.moved) return;
    const length = this.region.length_beats;
    const anchor = d.before.get(d.anchor.id);
    const shift = this.snap(anchor.start + beats) - anchor.start; // the grabbed note lands on the grid
    const rows = Math.round((y - d.y) / this.rowHeight);
    for (const n of this.notes) {
      const b = d.before.get(n.id); if (!b) continue;
      if (d.part === "body") {
        n.start = Math.min(length - this.grid, Math.max(0, b.start + shift));
        n.pitch = this.pitchOfRow(this.rowOf(b.pitch) + rows);
      } else if (d.part === "end") {
        n.duration = Math.max(this.grid, this.snap(b.start + b.duration + beats) - b.start);
      } else if (d.part === "velocity") {
        n.velocity = Math.max(1, Math.min(127, Math.round(b.velocity - ((y - d.y) / (VELOCITY - 8)) * 127)));
      }
    }
    this.invalidate();
  }

  up() {
    const d = this.drag; this.drag = null;
    if (!d?.moved) return;
    const changes = [];
    for (const n of this.notes) {
      const b = d.before.get(n.id); if (!b) continue;
      const change = { id: n.id };
      for (const field of ["start", "pitch", "duration", "velocity"]) if (n[field] !== b[field]) change[field] = n[field];
      if (Object.keys(change).length > 1) changes.push(change);
    }
    if (changes.length) this.onEdit({ kind: "update", changes });
  }

  addAt(e) {
    const { x, y } = this.at(e);
    if (x < this.keysWidth || y >= this.velocityTop || this.noteAt(x, y)) return;
    const start = Math.floor(this.beatAt(x) / this.grid) * this.grid;
    if (start < 0 || start >= this.region.length_beats) return;
    this.add(this.pitchOfRow(this.rowAt(y)), start);
  }

  add(pitch, start) {
    const duration = this.track.drum ? this.grid : Math.max(this.grid, 0.5);
    const note = { id: `pending-${Date.now()}`, pitch, start, duration, velocity: 96, pending: true };
    this.notes.push(note);
    this.selection.clear(); this.selection.add(note.id);
    this.invalidate();
    this.onEdit({ kind: "add", notes: [{ pitch, start, duration, velocity: 96 }] });
  }

  key(e) {
    const chosen = this.notes.filter((n) => this.selection.has(n.id) && !n.pending);
    const mod = e.ctrlKey || e.metaKey;
    if (e.key === "Escape") { this.onClose(); return; }
    if (mod && e.key.toLowerCase() === "a") { e.preventDefault(); for (const n of this.notes) this.selection.add(n.id); this.invalidate(); return; }
    if (mod) return; // Ctrl-Z and friends are the page's
    if ((e.key === "n" || e.key === "Insert") && this.region) {
      e.preventDefault();
      const last = chosen[chosen.length - 1];
      this.add(last ? last.pitch : (this.rows ? this.rows[0] : 60), last ? Math.min(this.region.length_beats - this.grid, last.start + this.grid) : 0);
      return;
    }
    if (!chosen.length) return;
    if (e.key === "Delete" || e.key === "Backspace") {
      e.preventDefault();
      const ids = chosen.map((n) => n.id);
      this.notes = this.notes.filter((n) => !this.selection.has(n.id));
      this.selection.clear(); this.invalidate();
      this.onEdit({ kind: "remove", ids });
      return;
    }
    const moves = {
      ArrowLeft: (n) => ({ start: Math.max(0, this.snap(n.start - this.grid)) }),
      ArrowRight: (n) => ({ start: Math.min(this.region.length_beats - this.grid, this.snap(n.start + this.grid)) }),
      ArrowUp: (n) => (e.altKey ? { velocity: Math.min(127, n.velocity + 8) } : { pitch: this.pitchOfRow(this.rowOf(n.pitch) - (e.shiftKey && !this.rows ? 12 : 1)) }),
      ArrowDown: (n) => (e.altKey ? { velocity: Math.max(1, n.velocity - 8) } : { pitch: this.pitchOfRow(this.rowOf(n.pitch) + (e.shiftKey && !this.rows ? 12 : 1)) }),
    };
    if (!moves[e.key]) return;
    e.preventDefault();
    const changes = [];
    for (const n of chosen) {
      const change = moves[e.key](n);
      const real = Object.fromEntries(Object.entries(change).filter(([k, v]) => n[k] !== v));
      if (Object.keys(real).length) { Object.assign(n, real); changes.push({ id: n.id, ...real }); }
    }
    this.invalidate();
    if (changes.length) this.onEdit({ kind: "update", changes });
  }

  setVelocity(velocity) {
    const changes = this.notes.filter((n) => this.selection.has(n.id) && !n.pending && n.velocity !== velocity)
      .map((n) => { n.velocity = velocity; return { id: n.id, velocity }; });
    this.invalidate();
    if (changes.length) this.onEdit({ kind: "update", changes });
  }

  // ------------------------------------------------------------------ drawing

  invalidate() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => { this.pending = 0; this.draw(); });
  }

  draw() {
    const started = performance.now();
    const { ctx, ratio } = this;
    const w = this.root.clientWidth, h = this.root.clientHeight;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.fillStyle = "#14171d"; ctx.fillRect(0, 0, w, h);
    if (!this.region) return;
    const rh = this.rowHeight, kw = this.keysWidth, vt = this.velocityTop;
    const firstRow = Math.max(0, this.rowAt(0)), lastRow = Math.min(this.rowCount - 1, this.rowAt(vt));
    // rows
    for (let r = firstRow; r <= lastRow; r++) {
      const y = this.yOfRow(r), pitch = this.pitchOfRow(r);
      ctx.fillStyle = !this.rows && BLACK.has(pitch % 12) ? "#171b22" : (this.rows && r % 2 ? "#181c23" : "#1b1f27");
      ctx.fillRect(kw, y, w - kw, rh);
      ctx.fillStyle = "#232833"; ctx.fillRect(kw, y + rh - 1, w - kw, 1);
    }
    // beats and bars
    const fromBeat = Math.max(0, this.beatAt(kw)), toBeat = Math.min(this.region.length_beats, this.beatAt(w));
    for (let b = Math.floor(fromBeat / this.grid) * this.grid; b <= toBeat + 1e-9; b += this.grid) {
      const bar = Math.abs(b / this.beatsPerBar - Math.round(b / this.beatsPerBar)) < 1e-9;
      const beat = Math.abs(b - Math.round(b)) < 1e-9;
      ctx.fillStyle = bar ? "#3a4150" : beat ? "#2a2f3a" : "#1f232c";
      ctx.fillRect(Math.round(this.xOf(b)), 0, 1, vt);
    }
    const endX = this.xOf(this.region.length_beats);
    if (endX < w) { ctx.fillStyle = "rgba(0,0,0,0.35)"; ctx.fillRect(endX, 0, w - endX, vt); }
    // notes
    const colour = this.track.colour || "#3e8ed0";
    for (const n of this.notes) {
      const r = this.rowOf(n.pitch); if (r < firstRow || r > lastRow) continue;
      const x = this.xOf(n.start), y = this.yOfRow(r), nw = Math.max(3, n.duration * this.pxPerBeat - 1);
      if (x + nw < kw || x > w) continue;
      const chosen = this.selection.has(n.id);
      ctx.globalAlpha = 0.45 + 0.55 * (n.velocity / 127);
      ctx.fillStyle = chosen ? "#ffffff" : colour; ctx.fillRect(x, y + 1, nw, rh - 2);
      ctx.globalAlpha = 1;
      ctx.strokeStyle = chosen ? colour : "#0f1115"; ctx.lineWidth = 1; ctx.strokeRect(x + 0.5, y + 1.5, nw - 1, rh - 3);
    }
    // the variation's notes over them: before (outlined red) and after (filled green, amber when changed)
    for (const g of this.ghosts) {
      const r = this.rowOf(g.pitch); if (r < firstRow || r > lastRow) continue;
      const x = this.xOf(g.start), y = this.yOfRow(r), nw = Math.max(3, g.duration * this.pxPerBeat - 1);
      if (g.side === "before") { ctx.strokeStyle = "#ff6b6b"; ctx.lineWidth = 2; ctx.strokeRect(x + 1, y + 1.5, nw - 2, rh - 3); }
      else { ctx.fillStyle = g.change === "modified" ? "#f5a524cc" : "#46d17dcc"; ctx.fillRect(x + 1, y + 3, nw - 2, rh - 6); }
    }
    // velocity lane
    ctx.fillStyle = "#171a21"; ctx.fillRect(kw, vt, w - kw, VELOCITY);
    ctx.fillStyle = "#2a2f3a"; ctx.fillRect(kw, vt, w - kw, 1);
    for (const n of this.notes) {
      const x = this.xOf(n.start); if (x < kw - 2 || x > w) continue;
      const bh = (n.velocity / 127) * (VELOCITY - 8);
      ctx.fillStyle = this.selection.has(n.id) ? "#ffffff" : colour;
      ctx.fillRect(x, vt + VELOCITY - 2 - bh, 3, bh);
    }
    // keys / drum names
    ctx.font = this.rows ? "11px system-ui, sans-serif" : "9px system-ui, sans-serif";
    for (let r = firstRow; r <= lastRow; r++) {
      const y = this.yOfRow(r), pitch = this.pitchOfRow(r);
      const black = !this.rows && BLACK.has(pitch % 12);
      ctx.fillStyle = this.rows ? (r % 2 ? "#1e222b" : "#232833") : black ? "#0f1115" : "#d8dce6";
      ctx.fillRect(0, y, kw, rh);
      ctx.fillStyle = "#2a2f3a"; ctx.fillRect(0, y + rh - 1, kw, 1);
      if (this.rows) { ctx.fillStyle = "#d8dce6"; ctx.fillText(this.drumNames[pitch] || `note ${pitch}`, 6, y + rh - 5, kw - 10); }
      else if (pitch % 12 === 0) { ctx.fillStyle = "#0f1115"; ctx.fillText(pitchName(pitch), kw - 26, y + rh - 3); }
    }
    ctx.fillStyle = "#171a21"; ctx.fillRect(0, vt, kw, VELOCITY);
    ctx.fillStyle = "#8b93a5"; ctx.font = "10px system-ui, sans-serif"; ctx.fillText("velocity", 6, vt + 16);
    this.frameMs.push(performance.now() - started);
    this.draws = (this.draws || 0) + 1;
    if (this.frameMs.length > 600) this.frameMs.splice(0, 300);
  }
}
