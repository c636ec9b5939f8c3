// The transport: play from the cursor (the click that plays also enables the sound), pause, back
// to the start, seek, loop a section, switch what is heard (A/B, a new revision) while playing, and
// the playhead — every frame the beat being heard (`SongPlayer.position()`), which the view follows
// unless a person scrolled — with the position as bar.beat.sixteenth; the master level and its
// meter (peak and RMS of what is heard), and each track's meter beside its head.

import { $ } from "./dom.js";
import { formatPosition } from "./project.js";

export class Transport {
  // `song()` is what to hear now (the song, or a variation's proposal); `view()` the song's view.
  constructor(audio, arrangement, { song, view }) {
    this.audio = audio;
    this.arrangement = arrangement;
    this.song = song;
    this.view = view;
    this.player = null;
    this.loop = null;
    this.cursor = 0;
    audio.onChange(() => this.renderSound());
    this.renderSound();
    this.buttons();
    requestAnimationFrame(() => this.frame());
  }

  buttons() {
    $("#play").textContent = this.player ? "⏸" : "▶";
    $("#play").title = this.player ? "pause (Space)" : "play (Space)";
    $("#loop").setAttribute("aria-pressed", String(Boolean(this.loop)));
    $("#loop").classList.toggle("on", Boolean(this.loop));
  }

  async play() {
    if (!this.view()) return;
    if (this.player) { this.pause(); return; }
    await this.enableSound();
    const loop = this.loop, from = loop && (this.cursor < loop.start || this.cursor >= loop.end) ? loop.start : this.cursor;
    this.player = this.audio.play(this.song(), { fromBeat: from, loop });
    this.buttons();
  }

  pause() {
    if (!this.player) return;
    this.cursor = Math.max(0, this.player.position());
    this.player.stop(); this.player = null;
    this.buttons();
  }

  stop() {
    if (this.player) { this.player.stop(); this.player = null; }
    this.cursor = 0;
    this.buttons();
  }

  seek(beat) {
    this.cursor = beat;
    if (this.player) this.player.seek(beat);
    this.arrangement.setPosition(beat);
  }

  // What is heard changed (A/B, a new revision): the player takes it over from its next beat.
  // Stopped, the engine still takes the song's tracks and mix (an undo, another song), so the
  // next ▶ starts from that song's mixer state.
  heard() {
    if (!this.view()) return;
    const song = this.song();
    if (this.player) this.player.switchTo(song);
    else if (song) this.audio.setTracks(song.tracks);
  }

  // Loop exactly `loop` ({start, end} in beats, or null) and, playing or not, hear it from its start.
  setLoop(loop) {
    this.loop = loop ? { start: loop.start, end: loop.end } : null;
    this.arrangement.setLoop(this.loop);
    this.player?.setLoop(this.loop);
    if (this.loop) this.seek(this.loop.start);
    this.buttons();
  }

  // Loop `section` (default: the one being heard); the same section again ends the loop.
  toggleLoop(section = null) {
    const target = section || this.currentSection();
    const same = this.loop && target && this.loop.start === target.start && this.loop.end === target.end;
    this.setLoop(!target || same ? null : target);
  }

  // Loop the beats {start, end} (null: no loop); a playing song moves into the loop.
  setLoop(range) {
    this.loop = range ? { start: range.start, end: range.end } : null;
    this.arrangement.setLoop(this.loop);
    this.player?.setLoop(this.loop);
    if (this.loop && this.player) {
      const pos = this.player.position();
      if (pos < this.loop.start || pos >= this.loop.end) this.player.seek(this.loop.start);
    }
    this.buttons();
  }

  currentSection() {
    const view = this.view(), beat = this.player ? this.player.position() : this.cursor;
    return view?.sections.find((s) => beat >= s.start && beat < s.end) || view?.sections[0] || null;
  }

  // Every frame: the playhead and the meters' bars (transforms: no layout). The readings — the
  // position and the dB figures, text that lays the page out when it changes — are written while
  // playing on every READING_FRAMES-th frame only (~10 a second), all in that one frame; stopped,
  // the position follows at once (a seek, a click in the ruler).
  frame() {
    const view = this.view();
    this.frames = (this.frames || 0) + 1;
    const read = !this.player || this.frames % READING_FRAMES === 0;
    if (view) {
      const beat = this.player ? this.player.position() : this.cursor;
      this.arrangement.setPosition(beat);
      if (this.player && this.arrangement.following()) this.arrangement.reveal(beat);
      if (read) setText($("#position"), formatPosition(beat, view.beatsPerBar, view.barStarts));
    }
    this.meter(read);
    requestAnimationFrame(() => this.frame());
  }

  // The master meter: what is heard, after the master level (peak and RMS, −60…0 dBFS). Read
  // only while something plays or a level is still falling; its dB reading when `read`.
  meter(read) {
    if (!this.audio.running || (!this.player && !(this.shown > -60))) return;
    const now = this.audio.levels(); if (!now) return;
    this.shown = now.peak;
    this.levels = now;
    const box = $("#master-meter");
    setBar(box.querySelector(".peak"), now.peak);
    setBar(box.querySelector(".rms"), now.rms);
    if (read) setText($("#master-db"), now.peak > -60 ? `${now.peak.toFixed(0)} dB` : "−∞");
    this.trackMeters(read);
  }

  // Each track head's meter (peak, and RMS as the loudness reading in dB), beside the master's.
  trackMeters(read) {
    const levels = this.audio.trackLevels(); if (!levels) return;
    this.trackLevels = levels;
    for (const head of document.querySelectorAll("#heads .head")) {
      const now = levels[head.dataset.track], meter = head.querySelector(".track-meter"); if (!meter) continue;
      const peak = now ? now.peak : -Infinity, rms = now ? now.rms : -Infinity;
      setBar(meter.querySelector(".peak"), peak);
      setBar(meter.querySelector(".rms"), rms);
      if (read) setText(head.querySelector(".db"), rms > -60 ? rms.toFixed(0) : "−∞");
    }
  }

  renderSound() {
    const audio = this.audio, button = $("#sound"), on = audio.running;
    button.textContent = on ? (audio.mode === "soundfont" ? `🔊 ${audio.voices.name}` : "🔊 oscillator voices")
      : audio.loading ? "… loading sound" : "🔇 Click to enable sound";
    button.classList.toggle("on", on);
    button.title = on ? (audio.mode === "soundfont" ? "the General MIDI SoundFont of the WAV render"
      : `the SoundFont synthesizer could not load (${audio.loadError || "unknown"}); playing oscillator voices`)
      : "the browser plays nothing until you click";
  }

  async enableSound() {
    if (this.audio.running) return;
    $("#sound").textContent = "… loading sound";
    await this.audio.enable();
  }
}

// While playing, the readings (position, dB) change on every this many frames; the bars every frame.
const READING_FRAMES = 6;

// A meter's bar at `db` (−60…0 dBFS) as its horizontal scale, written only when it changed.
function setBar(bar, db) {
  const scale = Math.max(0, Math.min(1, (db + 60) / 60)).toFixed(3);
  if (bar.meterScale === scale) return;
  bar.meterScale = scale;
  bar.style.transform = `scaleX(${scale})`;
}

// Text written only when it changed (the same text written again still lays the page out).
function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}
