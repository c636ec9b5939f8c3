// Evaluate pattern code with Strudel and print its haps as JSON.
// Input (stdin): a JSON list of {code, begin, end} (begin/end as numbers or "n/d" strings).
// Double-quoted strings are mini-notation, as in the Strudel REPL's transpiler.
// Output (stdout): a JSON list, per input: {haps: [{whole, part, value}]} or {error}.
// Spans are [begin, end] exact rationals as "n/d" strings; whole is null when continuous.
import { readFileSync } from 'node:fs';

// Strudel logs to the console on import; keep stdout for the JSON answer.
console.log = (...args) => console.error(...args);
const core = await import('@strudel/core');
const miniModule = await import('@strudel/mini');
const tonal = await import('@strudel/tonal');
const { transpile } = await import('./transpile.mjs');

const Fraction = core.Fraction;
// strudel.cc's REPL replaces core's cpm (fast(n / 60)) with one against the scheduler's tempo,
// 0.5 cycles per second until a program sets another (core/repl.mjs).
const cpm = core.register('cpm', function (n, pat) {
  return pat._fast(n / 60 / 0.5);
});
const scope = { ...core, ...miniModule, ...tonal, cpm };
delete scope.default;
const names = Object.keys(scope).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k));

function frac(x) {
  const f = Fraction(x);
  const n = f.s * f.n;
  return f.d == 1 ? `${n}` : `${n}/${f.d}`;
}

function jsonValue(v) {
  if (v === undefined) return null;
  if (typeof v === 'function') return '<function>';
  if (v && typeof v === "object" && "n" in v && "d" in v && "s" in v) {
    return { fraction: frac(v) };
  }
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

function span(s) {
  return s ? [frac(s.begin), frac(s.end)] : null;
}

const jobs = JSON.parse(readFileSync(0, 'utf8'));
const results = [];
const cache = new Map();
for (const { code, begin, end } of jobs) {
  try {
    let pat = cache.get(code);
    if (pat === undefined) {
      const body = `return (${transpile(code)});`;
      pat = new Function(...names, body)(...names.map((k) => scope[k]));
      pat = core.reify(pat);
      cache.set(code, pat);
    }
    const haps = pat.query(new core.State(new core.TimeSpan(Fraction(begin), Fraction(end))));
    results.push({
      haps: haps.map((h) => ({ whole: span(h.whole), part: span(h.part), value: jsonValue(h.value) })),
    });
  } catch (err) {
    results.push({ error: String(err && err.message ? err.message : err) });
  }
}
process.stdout.write(JSON.stringify(results));
