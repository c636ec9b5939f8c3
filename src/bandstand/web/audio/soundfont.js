// The SoundFont voices: the General MIDI SoundFont the WAV render uses (served at
// /audio/soundfont.sf2), played by spessasynth_lib (Apache-2.0; an AudioWorklet synthesizer
// installed from npm by the setup and served at /audio/vendor/…). Notes are sent with their
// audio-clock time and the worklet starts them on its render quantum (2.9 ms at 44.1 kHz).
//
// The worklet keeps its own clock, which can start a few tens of milliseconds behind the
// context's (it counts the quanta it rendered since it was built). `calibrate()` measures the
// difference once, with an inaudible note (CC7 = 1) on a spare channel caught by a probe
// worklet, and every later time is shifted by it.
//
// Same interface as OscillatorVoices: setup(channel, program, drum), control(channel, cc,
// value, when), noteOn(channel, key, velocity, when, duration), silence(), tap(channel, node).

const PROBE = `class Probe extends AudioWorkletProcessor {
  constructor() { super(); this.armed = false; this.port.onmessage = () => { this.armed = true; }; }
  process(inputs) {
    const input = inputs[0];
    if (this.armed && input.length) {
      for (let c = 0; c < input.length; c++) {
        const data = input[c];
        for (let i = 0; i < data.length; i++) {
          if (data[i] !== 0) { this.armed = false; this.port.postMessage(currentFrame + i); return true; }
        }
      }
    }
    return true;
  }
}
registerProcessor("bandstand-onset-probe", Probe);`;

const MAX_CHANNELS = 64;

export class SoundFontVoices {
  // Load the synthesizer and the SoundFont into `ctx` (throws when either is missing).
  static async load(ctx, output, status) {
    const [lib, bank] = await Promise.all([
      import(status.synth.module),
      fetch(status.soundfont.url).then((r) => {
        if (!r.ok) throw new Error(`SoundFont: HTTP ${r.status}`);
        return r.arrayBuffer();
      }),
      ctx.audioWorklet.addModule(status.synth.processor),
    ]);
    const synth = new lib.WorkletSynthesizer(ctx);
    synth.connect(output);
    await synth.soundBankManager.addSoundBank(bank, "gm");
    await synth.isReady;
    return new SoundFontVoices(ctx, synth, status);
  }

  constructor(ctx, synth, status) {
    this.ctx = ctx;
    this.synth = synth;
    this.kind = "soundfont";
    this.name = status.soundfont.name;
    this.offset = 0; // worklet clock − context clock, from calibrate()
  }

  get channelCount() { return this.synth.channelCount; }

  ensureChannels(n) {
    while (this.synth.channelCount < Math.min(n, MAX_CHANNELS)) this.synth.addNewChannel();
  }

  setup(channel, program, drum) {
    this.ensureChannels(channel + 1);
    this.synth.controllerChange(channel, 7, 100);
    this.synth.midiChannels[channel]?.setDrums(Boolean(drum));
    this.synth.programChange(channel, program); // on a drum channel the program picks the kit, as the WAV render does
    this.synth.controllerChange(channel, 91, 0); // no room and no chorus unless the track's mix sends
    this.synth.controllerChange(channel, 93, 0); // to the room (CC91), as in the render
  }

  control(channel, cc, value, when = null) {
    if (when === null) this.synth.controllerChange(channel, cc, value);
    else this.synth.controllerChange(channel, cc, value, { time: when + this.offset });
  }

  noteOn(channel, key, velocity, when, duration) {
    const on = when + this.offset, off = on + Math.max(0.02, duration);
    this.synth.noteOn(channel, key, velocity, { time: on });
    this.synth.noteOff(channel, key, { time: off });
    return 1;
  }

  // A meter's view of one channel's dry sound (the synthesizer's sixteen channel outputs; `tapKey`
  // names the output a channel shares).
  tapKey(channel) { return channel % 16; }
  tap(channel, node) { this.synth.connectChannel(node, channel); }

  // Stop every sounding note now. Notes already handed to the worklet still start (the worklet
  // cannot take them back), so callers hand over only a short look-ahead and mute first.
  silence() { this.synth.stopAll(true); }

  // Measure the worklet's clock against the context's: an inaudible hi-hat on the last channel
  // at a known time; the probe reports the frame where it starts. Returns the offset (s).
  async calibrate() {
    const ctx = this.ctx, channel = this.synth.channelCount - 1;
    await ctx.audioWorklet.addModule(URL.createObjectURL(new Blob([PROBE], { type: "text/javascript" })));
    const probe = new AudioWorkletNode(ctx, "bandstand-onset-probe");
    const silent = ctx.createGain(); silent.gain.value = 0;
    this.synth.connect(probe); probe.connect(silent).connect(ctx.destination);
    try {
      this.synth.midiChannels[channel]?.setDrums(true);
      this.synth.programChange(channel, 0);
      this.synth.controllerChange(channel, 7, 1);
      this.synth.controllerChange(channel, 91, 0);
      this.synth.controllerChange(channel, 93, 0);
      await new Promise((r) => setTimeout(r, 30));
      const heard = new Promise((resolve) => { probe.port.onmessage = (e) => resolve(e.data); });
      probe.port.postMessage("arm");
      const when = ctx.currentTime + 0.1;
      this.synth.noteOn(channel, 42, 127, { time: when });
      this.synth.noteOff(channel, 42, { time: when + 0.05 });
      const frame = await Promise.race([heard, new Promise((r) => setTimeout(() => r(null), 2000))]);
      if (frame !== null) {
        const quantum = Math.ceil((when * ctx.sampleRate) / 128) * 128; // events start on a render quantum
        this.offset = Math.max(-0.2, Math.min(0.2, -(frame - quantum) / ctx.sampleRate));
      }
    } finally {
      this.synth.controllerChange(channel, 7, 100);
      this.synth.disconnect(probe);
      probe.disconnect();
    }
    return this.offset;
  }
}
