// The Scratch tab: any Strudel code, played in a loop on the page's sound. The server runs the
// code as strudel.cc does (POST /api/v1/patterns/play: checked in the song's key and tempo unless
// the code sets its own) and answers it as a song of a few cycles, which the page's player loops;
// the song's own player stops first, and playing the song stops the code.

import { post } from "./api.js";

const CYCLES = 4;

export class Scratch {
  // `audio`: the page's AudioEngine; `context()`: {key, tempo} of the open song (or nulls);
  // `stopSong()`: stops the song's player; `say(text, kind)`: a status line.
  constructor({ audio, context, stopSong, say }) {
    Object.assign(this, { audio, context, stopSong, say });
    this.player = null;
    this.last = null; // what the server said the code plays
  }

  get playing() { return this.player !== null; }

  async play(code) {
    const text = code.trim();
    if (!text) { this.say("Write some Strudel code first, e.g. s(\"bd sd\")", "error"); return null; }
    const { key, tempo } = this.context();
    let answer;
    try {
      answer = await post("/patterns/play", { code: text, cycles: CYCLES, ...(key ? { key } : {}), ...(tempo ? { tempo } : {}) });
    } catch (error) { this.say(error.detail || error.message, "error"); return null; }
    if (!this.audio.running) await this.audio.enable();
    this.stopSong();
    this.stop(false);
    const song = answer.song;
    this.audio.setTracks(song.tracks);
    this.player = this.audio.play(song, { fromBeat: 0, loop: { start: 0, end: song.length } });
    this.last = answer.played;
    const p = answer.played;
    const inKey = p.in_key === null ? "" : `; ${Math.round(p.in_key * 100)}% in key`;
    this.say(`playing: ${p.bpm} BPM; ${p.events_per_cycle} events per cycle; ${p.sounds.join(", ") || "no sounds"}${inKey}`
      + (p.warnings.length ? ` — ${p.warnings.join("; ")}` : ""), "ok");
    return answer;
  }

  stop(say = true) {
    if (this.player) { this.player.stop(); this.player = null; }
    if (say) this.say("stopped", "ok");
  }
}
