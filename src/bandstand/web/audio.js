// Web Audio playback from the page's own synthesized voices (no sample files):
// kick, snare, hats, clap, rim, toms, crash from noise and oscillators; bass, keys,
// leads, pads and blips from (detuned) oscillators through a filter and an envelope;
// a shared delay and a reverb send. Events arrive per cycle and are scheduled ahead on
// the audio clock; `scheduled` counts the notes scheduled so far.

const DRUMS = new Set(["bd", "kick", "sd", "snare", "hh", "hihat", "oh", "openhat", "cp", "clap", "rim", "lt", "mt", "ht", "tom", "cr", "crash", "rd", "ride", "cb", "cowbell", "sh", "shaker", "perc", "tambourine"]);
const WAVES = { sawtooth: "sawtooth", saw: "sawtooth", square: "square", sqr: "square", pulse: "square", triangle: "triangle", tri: "triangle", sine: "sine", sin: "sine" };
// named instruments: oscillator voices with their own envelope and a detuned second oscillator
const VOICES = {
  pad: { wave: "sawtooth", attack: 0.35, detune: 9, level: 0.55, cutoff: 1400 },
  strings: { wave: "sawtooth", attack: 0.25, detune: 6, level: 0.55, cutoff: 2200 },
  choir: { wave: "triangle", attack: 0.3, detune: 7, level: 0.6, cutoff: 1800 },
  supersaw: { wave: "sawtooth", attack: 0.01, detune: 14, level: 0.6, cutoff: 3500 },
  lead: { wave: "square", attack: 0.01, detune: 5, level: 0.6, cutoff: 3000 },
  piano: { wave: "triangle", attack: 0.003, decay: 0.9, level: 0.9 },
  superpiano: { wave: "triangle", attack: 0.003, decay: 0.9, level: 0.9 },
  keys: { wave: "triangle", attack: 0.003, decay: 0.7, level: 0.9 },
  epiano: { wave: "sine", attack: 0.003, decay: 1.1, detune: 3, level: 1.0 },
  rhodes: { wave: "sine", attack: 0.003, decay: 1.1, detune: 3, level: 1.0 },
  organ: { wave: "square", attack: 0.01, level: 0.45, cutoff: 2500 },
  bass: { wave: "sawtooth", attack: 0.005, level: 1.0, cutoff: 700 },
  synthbass: { wave: "sawtooth", attack: 0.005, level: 1.0, cutoff: 900 },
  jvbass: { wave: "square", attack: 0.005, level: 0.9, cutoff: 800 },
  bell: { wave: "sine", attack: 0.002, decay: 1.5, detune: 1200, level: 0.6 },
  marimba: { wave: "sine", attack: 0.002, decay: 0.35, level: 1.0 },
  vibraphone: { wave: "sine", attack: 0.002, decay: 1.2, detune: 4, level: 0.8 },
};

export const SOUND_NAMES = [...DRUMS, ...Object.keys(WAVES), ...Object.keys(VOICES)];

export class Engine {
  constructor() {
    this.ctx = null;
    this.scheduled = 0;
    this.nextCycleStart = null;
    this.lastCycle = null;
  }

  ensure() {
    if (this.ctx) return this.ctx;
    const ctx = new (window.AudioContext || window.webkitAudioContext)();
    this.ctx = ctx;
    this.master = ctx.createGain();
    this.master.gain.value = 0.7;
    const comp = ctx.createDynamicsCompressor();
    this.master.connect(comp).connect(ctx.destination);
    this.delay = ctx.createDelay(2.0);
    this.delay.delayTime.value = 0.375;
    const feedback = ctx.createGain();
    feedback.gain.value = 0.4;
    const delayOut = ctx.createGain();
    delayOut.gain.value = 0.5;
    this.delay.connect(feedback).connect(this.delay);
    this.delay.connect(delayOut).connect(this.master);
    this.reverb = ctx.createConvolver();
    this.reverb.buffer = this.impulse(2.2);
    const reverbOut = ctx.createGain();
    reverbOut.gain.value = 0.35;
    this.reverb.connect(reverbOut).connect(this.master);
    this.noise = this.noiseBuffer();
    return ctx;
  }

  resume() { this.ensure(); return this.ctx.resume(); }

  stop() {
    this.nextCycleStart = null;
    this.lastCycle = null;
    if (this.ctx) this.ctx.suspend();
  }

  impulse(seconds) {
    const ctx = this.ctx, rate = ctx.sampleRate, len = Math.floor(rate * seconds);
    const buf = ctx.createBuffer(2, len, rate);
    for (let c = 0; c < 2; c++) {
      const d = buf.getChannelData(c);
      for (let i = 0; i < len; i++) d[i] = (Math.random() * 2 - 1) * Math.pow(1 - i / len, 2.5);
    }
    return buf;
  }

  noiseBuffer() {
    const ctx = this.ctx, len = ctx.sampleRate;
    const buf = ctx.createBuffer(1, len, ctx.sampleRate);
    const d = buf.getChannelData(0);
    for (let i = 0; i < len; i++) d[i] = Math.random() * 2 - 1;
    return buf;
  }

  // Schedule one cycle's events (message type "events").
  scheduleCycle(msg) {
    const ctx = this.ensure();
    const now = ctx.currentTime;
    if (this.nextCycleStart === null || this.lastCycle === null || msg.cycle !== this.lastCycle + 1 || this.nextCycleStart < now) {
      this.nextCycleStart = now + 0.12;
    }
    const start = this.nextCycleStart;
    const dur = msg.cycle_seconds;
    for (const ev of msg.events) {
      this.play(ev, start + ev.begin * dur, Math.max(0.03, ev.duration * dur));
      this.scheduled += 1;
    }
    this.lastCycle = msg.cycle;
    this.nextCycleStart = start + dur;
    return msg.events.length;
  }

  out(ev, t) {
    const ctx = this.ctx;
    const pan = ctx.createStereoPanner();
    pan.pan.value = Math.max(-1, Math.min(1, (ev.pan ?? 0.5) * 2 - 1));
    pan.connect(this.master);
    if (ev.delay > 0) {
      const send = ctx.createGain(); send.gain.value = Math.min(1, ev.delay); pan.connect(send).connect(this.delay);
    }
    if (ev.room > 0) {
      const send = ctx.createGain(); send.gain.value = Math.min(1, ev.room); pan.connect(send).connect(this.reverb);
    }
    return pan;
  }

  play(ev, t, dur) {
    const name = ev.sound;
    if (DRUMS.has(name)) return this.drum(name, ev, t);
    return this.synth(VOICES[name] || { wave: WAVES[name] || "triangle" }, ev, t, dur);
  }

  env(gainNode, t, peak, attack, release) {
    gainNode.gain.setValueAtTime(0.0001, t);
    gainNode.gain.exponentialRampToValueAtTime(Math.max(0.0002, peak), t + attack);
    gainNode.gain.exponentialRampToValueAtTime(0.0001, t + attack + release);
  }

  noiseHit(ev, t, { type = "highpass", freq = 7000, q = 0.7, release = 0.05, level = 0.5 }) {
    const ctx = this.ctx, src = ctx.createBufferSource();
    src.buffer = this.noise;
    const filter = ctx.createBiquadFilter(); filter.type = type; filter.frequency.value = freq; filter.Q.value = q;
    const g = ctx.createGain();
    this.env(g, t, level * (ev.gain ?? 0.8), 0.002, release);
    src.connect(filter).connect(g).connect(this.out(ev, t));
    src.start(t); src.stop(t + release + 0.05);
  }

  tone(ev, t, { f0, f1, release, level = 0.9, wave = "sine" }) {
    const ctx = this.ctx, osc = ctx.createOscillator(), g = ctx.createGain();
    osc.type = wave;
    osc.frequency.setValueAtTime(f0, t);
    osc.frequency.exponentialRampToValueAtTime(Math.max(20, f1), t + release);
    this.env(g, t, level * (ev.gain ?? 0.8), 0.002, release);
    osc.connect(g).connect(this.out(ev, t));
    osc.start(t); osc.stop(t + release + 0.05);
  }

  drum(name, ev, t) {
    switch (name) {
      case "bd": case "kick": this.tone(ev, t, { f0: 150, f1: 42, release: 0.35, level: 1.0 }); break;
      case "sd": case "snare":
        this.tone(ev, t, { f0: 220, f1: 160, release: 0.1, level: 0.5, wave: "triangle" });
        this.noiseHit(ev, t, { type: "bandpass", freq: 3000, q: 0.6, release: 0.16, level: 0.6 }); break;
      case "hh": case "hihat": case "sh": case "shaker": case "perc": this.noiseHit(ev, t, { freq: 8000, release: 0.04, level: 0.35 }); break;
      case "oh": case "openhat": case "tambourine": this.noiseHit(ev, t, { freq: 7000, release: 0.28, level: 0.3 }); break;
      case "cp": case "clap":
        for (const dt of [0, 0.011, 0.022]) this.noiseHit(ev, t + dt, { type: "bandpass", freq: 1400, q: 1.2, release: 0.09, level: 0.5 });
        break;
      case "rim": this.tone(ev, t, { f0: 1700, f1: 1500, release: 0.03, level: 0.5, wave: "square" }); break;
      case "lt": this.tone(ev, t, { f0: 120, f1: 80, release: 0.3 }); break;
      case "mt": case "tom": this.tone(ev, t, { f0: 170, f1: 115, release: 0.25 }); break;
      case "ht": this.tone(ev, t, { f0: 240, f1: 170, release: 0.2 }); break;
      case "cr": case "crash": case "rd": case "ride": this.noiseHit(ev, t, { freq: 5000, release: 1.1, level: 0.28 }); break;
      case "cb": case "cowbell": this.tone(ev, t, { f0: 800, f1: 790, release: 0.15, level: 0.4, wave: "square" }); break;
      default: this.noiseHit(ev, t, { release: 0.05 });
    }
  }

  synth(voice, ev, t, dur) {
    const ctx = this.ctx;
    const midi = ev.note ?? 60;
    const freq = 440 * Math.pow(2, (midi - 69) / 12);
    const filter = ctx.createBiquadFilter(); filter.type = "lowpass";
    const cutoff = ev.cutoff ?? voice.cutoff ?? (midi < 48 ? 900 : 3200);
    filter.frequency.setValueAtTime(Math.min(18000, cutoff * 2), t);
    filter.frequency.exponentialRampToValueAtTime(Math.max(80, cutoff), t + Math.min(0.25, dur));
    filter.Q.value = 2;
    const oscs = [0, voice.detune || 0].filter((d, i) => i === 0 || d).map((cents) => {
      const osc = ctx.createOscillator(); osc.type = voice.wave; osc.frequency.setValueAtTime(freq, t); osc.detune.value = cents;
      osc.connect(filter); return osc;
    });
    const g = ctx.createGain();
    const level = 0.32 * (ev.gain ?? 0.8) * (midi < 48 ? 1.5 : 1) * (voice.level ?? 1) / oscs.length;
    const attack = voice.attack ?? 0.01;
    const release = voice.decay ? Math.min(2.5, voice.decay) : Math.min(1.5, dur * 0.9 + 0.08) + attack;
    g.gain.setValueAtTime(0.0001, t);
    g.gain.exponentialRampToValueAtTime(level, t + attack);
    if (!voice.decay) g.gain.setValueAtTime(level, t + Math.max(attack + 0.001, dur * 0.6));
    g.gain.exponentialRampToValueAtTime(0.0001, t + release);
    let chain = filter;
    if (ev.crush) {
      const shaper = ctx.createWaveShaper();
      const steps = Math.pow(2, Math.max(1, Math.min(16, ev.crush)) - 1), curve = new Float32Array(256);
      for (let i = 0; i < 256; i++) curve[i] = Math.round((i / 127.5 - 1) * steps) / steps;
      shaper.curve = curve; chain = chain.connect(shaper);
    }
    chain.connect(g).connect(this.out(ev, t));
    for (const osc of oscs) { osc.start(t); osc.stop(t + release + 0.05); }
  }
}
