// The fallback voices: Web Audio's own oscillators and noise, no sample files — kick, snare,
// hats, clap, rim, toms, crash from noise and oscillators; bass, keys, leads, pads and blips
// from (detuned) oscillators through a filter and an envelope; a shared delay and a reverb
// send. The page plays these only when the SoundFont synthesizer (soundfont.js) cannot load.
// Same interface as SoundFontVoices: setup(channel, program, drum), control(channel, cc,
// value), noteOn(channel, key, velocity, when, duration, hint), silence(channel), tap(channel, node).

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

// General MIDI program families → the named voice that sounds closest (GM programs in
// groups of eight: piano, chromatic percussion, organ, guitar, bass, strings, ensemble,
// brass, reed, pipe, synth lead, synth pad, synth effects, ethnic, percussive, effects).
const FAMILY_VOICES = ["piano", "marimba", "organ", "keys", "bass", "strings", "strings", "lead",
  "lead", "sine", "lead", "pad", "pad", "keys", "marimba", "triangle"];
// General MIDI drum keys → the synthesized drum that stands in for it.
const DRUM_KEYS = { 35: "bd", 36: "bd", 37: "rim", 38: "sd", 39: "cp", 40: "sd", 41: "lt", 42: "hh", 43: "lt",
  44: "hh", 45: "mt", 46: "oh", 47: "mt", 48: "ht", 49: "cr", 50: "ht", 51: "rd", 52: "cr", 53: "rd", 54: "sh",
  55: "cr", 56: "cb", 57: "cr", 59: "rd", 69: "sh", 70: "sh" };

export class OscillatorVoices {
  constructor(ctx, output) {
    this.ctx = ctx;
    this.kind = "oscillator";
    this.channels = new Map(); // channel → {program, drum, gain, pan, volume, expression}
    this.master = ctx.createGain();
    this.master.gain.value = 0.7;
    const comp = ctx.createDynamicsCompressor();
    this.master.connect(comp).connect(output);
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
  }

  // A channel plays one track: its program (or the drum kit), behind its own fader and panner.
  setup(channel, program, drum) {
    let ch = this.channels.get(channel);
    if (!ch) {
      const gain = this.ctx.createGain(), pan = this.ctx.createStereoPanner(), room = this.ctx.createGain();
      gain.connect(pan).connect(this.master);
      room.gain.value = 0; pan.connect(room).connect(this.reverb);
      const meter = this.meters?.get(channel); if (meter) pan.connect(meter);
      ch = { gain, pan, room, volume: 100, expression: 127 };
      this.channels.set(channel, ch);
    }
    ch.program = program; ch.drum = drum;
  }

  // MIDI controllers 7 (volume), 10 (pan), 11 (expression: the mute) and 91 (the room's send),
  // as a synthesizer reads them.
  control(channel, cc, value) {
    const ch = this.channels.get(channel); if (!ch) return;
    if (cc === 91) { ch.room.gain.value = value / 127; return; }
    if (cc === 7) ch.volume = value; else if (cc === 11) ch.expression = value;
    else if (cc === 10) ch.pan.pan.value = Math.max(-1, Math.min(1, (value - 64) / 63));
    ch.gain.gain.value = Math.pow((ch.volume / 127) * (ch.expression / 127), 2) / Math.pow(100 / 127, 2);
  }

  // A meter's view of one channel (after its fader and panner; kept across silence()).
  tapKey(channel) { return channel; }
  tap(channel, node) {
    if (!this.meters) this.meters = new Map();
    this.meters.set(channel, node);
    this.channels.get(channel)?.pan.connect(node);
  }

  // Cut every note, sounding or scheduled: each channel's old fader is disconnected and replaced.
  silence() {
    for (const [channel, ch] of [...this.channels]) {
      ch.gain.disconnect(); ch.room.disconnect();
      this.channels.delete(channel);
      this.setup(channel, ch.program, ch.drum);
      this.control(channel, 7, ch.volume); this.control(channel, 11, ch.expression);
      this.control(channel, 91, Math.round(ch.room.gain.value * 127));
    }
  }

  // One note at context time `when`; `hint` is the jam's event (its sound name, cutoff, crush,
  // delay, room) when there is one, else the voice comes from the channel's program.
  noteOn(channel, key, velocity, when, duration, hint = null) {
    const ch = this.channels.get(channel);
    const bus = ch ? ch.gain : this.master;
    const ev = { ...(hint || {}), note: ch?.drum ? null : key, gain: hint?.gain ?? velocity / 127 };
    let name = hint?.sound;
    if (!name || !(DRUMS.has(name) || WAVES[name] || VOICES[name])) {
      name = ch?.drum ? DRUM_KEYS[key] || "perc" : FAMILY_VOICES[Math.floor((ch?.program ?? 0) / 8)];
    }
    this.bus = bus;
    this.play(name, ev, when, Math.max(0.03, duration));
    return 1;
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

  out(ev, t) {
    const ctx = this.ctx;
    const pan = ctx.createStereoPanner();
    pan.pan.value = Math.max(-1, Math.min(1, (ev.pan ?? 0.5) * 2 - 1));
    pan.connect(this.bus || this.master);
    if (ev.delay > 0) {
      const send = ctx.createGain(); send.gain.value = Math.min(1, ev.delay); pan.connect(send).connect(this.delay);
    }
    if (ev.room > 0) {
      const send = ctx.createGain(); send.gain.value = Math.min(1, ev.room); pan.connect(send).connect(this.reverb);
    }
    return pan;
  }

  play(name, ev, t, dur) {
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
