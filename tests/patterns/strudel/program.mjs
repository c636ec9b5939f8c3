// Run whole Strudel programs as strudel.cc's REPL does and print their haps and tempo as JSON.
// Input (stdin): a JSON list of {code, begin, end}. Output: per input {haps, cps} or {error}.
// The code goes through @strudel/transpiler 1.2.6 (labels become .p('label'), "…" and `…` become
// mini-notation, bare samples() get an await); what @strudel/core's repl.mjs adds around it is
// rebuilt here from that file: .p() blocks stacked in order (muted _x/x_, solo S…), setcpm/setcps
// on a scheduler starting at 0.5 cps, .cpm() against it, all()/each(). The parts that draw or load
// sounds are replaced by what they do to the haps: pianoroll/punchcard/spiral/pitchwheel (draw.mjs:
// onPaint, no change), scope/tscope/fscope/spectrum (webaudio: .analyze(id)), samples() (nothing),
// sliders (codemirror: ref to the value). .piano() is strudel.cc's, from @strudel/repl's prebake.
import { readFileSync } from 'node:fs';

console.log = (...args) => console.error(...args);
console.warn = (...args) => console.error(...args);
const core = await import('@strudel/core');
const miniModule = await import('@strudel/mini');
const tonal = await import('@strudel/tonal');
const { transpiler } = await import('@strudel/transpiler');

const { Fraction, Pattern, silence, stack, register, ref } = core;

let cps = 0.5;
let blocks = {};
let anonymous = 0;
let allTransforms = [];
let eachTransform;

Pattern.prototype.p = function (id) {
  if (typeof id === 'string' && (id.startsWith('_') || id.endsWith('_'))) return silence;
  if (id.includes('$')) {
    id = `${id}${anonymous}`;
    anonymous++;
  }
  blocks[id] = this;
  return this;
};
for (const name of ['pianoroll', 'punchcard', 'wordfall', 'spiral', 'pitchwheel', '_pianoroll', '_punchcard', '_spiral', '_pitchwheel']) {
  Pattern.prototype[name] = function () {
    return this;
  };
}
for (const name of ['scope', 'tscope', 'fscope', 'spectrum']) {
  Pattern.prototype[name] = function (config = {}) {
    return this.analyze(config.id ?? 1);
  };
}
// strudel.cc's prebake (@strudel/repl 1.2.6 prebake.mjs), as it is there.
const maxPan = core.noteToMidi('C8');
const panwidth = (pan, width) => pan * width + (1 - width) / 2;
Pattern.prototype.piano = function () {
  return this.fmap((v) => ({ ...v, clip: v.clip ?? 1 }))
    .s('piano')
    .release(0.1)
    .fmap((value) => {
      const midi = core.valueToMidi(value);
      const pan = panwidth(Math.min(Math.round(midi) / maxPan, 1), 0.5);
      return { ...value, pan: (value.pan || 1) * pan };
    });
};
const cpm = register('cpm', function (n, pat) {
  return pat._fast(n / 60 / cps);
});
const unpure = (x) => (x && x._Pattern ? x.__pure : x);
const program = {
  cpm,
  setcps: (x) => ((cps = unpure(x)), silence),
  setCps: (x) => ((cps = unpure(x)), silence),
  setcpm: (x) => ((cps = unpure(x) / 60), silence),
  setCpm: (x) => ((cps = unpure(x) / 60), silence),
  samples: async () => undefined,
  all: (f) => (allTransforms.push(f), silence),
  each: (f) => ((eachTransform = f), silence),
  sliderWithID: (id, value) => ref(() => value),
};

// As the REPL's evalScope does: every export is a global, so a program's const may shadow one.
const scope = { ...core, ...miniModule, ...tonal, ...program };
delete scope.default;
Object.assign(globalThis, scope);
const AsyncFunction = (async () => {}).constructor;

function frac(x) {
  const f = Fraction(x);
  const n = f.s * f.n;
  return f.d == 1 ? `${n}` : `${n}/${f.d}`;
}

function jsonValue(v) {
  if (v === undefined) return null;
  if (typeof v === 'function') return '<function>';
  if (v && typeof v === 'object' && 'n' in v && 'd' in v && 's' in v) return { fraction: frac(v) };
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
    return Object.is(v, -0) ? 0 : v;
  }
  if (Array.isArray(v)) return v.map(jsonValue);
  if (v && typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) out[k] = jsonValue(x);
    return out;
  }
  return v;
}

const span = (s) => (s ? [frac(s.begin), frac(s.end)] : null);

async function run(code) {
  cps = 0.5;
  blocks = {};
  anonymous = 0;
  allTransforms = [];
  eachTransform = undefined;
  const { output } = transpiler(code, { wrapAsync: false, addReturn: true, emitMiniLocations: false, emitWidgets: false });
  let pattern = await new AsyncFunction(`"use strict";${output}`)();
  if (Object.keys(blocks).length) {
    let patterns = [];
    let solo = false;
    for (const [key, value] of Object.entries(blocks)) {
      const soloed = key.length > 1 && key.startsWith('S');
      if (soloed && !solo) {
        patterns = [];
        solo = true;
      }
      if (!solo || soloed) patterns.push(value);
    }
    if (eachTransform) patterns = patterns.map((x) => eachTransform(x));
    pattern = stack(...patterns);
  } else if (eachTransform) {
    pattern = eachTransform(pattern);
  }
  for (const f of allTransforms) pattern = f(pattern);
  if (!core.isPattern(pattern)) pattern = silence;
  return pattern;
}

const jobs = JSON.parse(readFileSync(0, 'utf8'));
const results = [];
for (const { code, begin, end } of jobs) {
  try {
    const pat = await run(code);
    // The scheduler queries with its tempo in the controls (cyclist.mjs), which loopAt and fit read.
    const haps = pat.query(new core.State(new core.TimeSpan(Fraction(begin), Fraction(end)), { _cps: cps }));
    results.push({
      cps,
      haps: haps.map((h) => ({ whole: span(h.whole), part: span(h.part), value: jsonValue(h.value) })),
    });
  } catch (err) {
    results.push({ error: String(err && err.message ? err.message : err) });
  }
}
process.stdout.write(JSON.stringify(results));
