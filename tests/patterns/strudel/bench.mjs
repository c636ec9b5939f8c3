// Benchmark Strudel: query each pattern cycle by cycle and count haps per second.
// Input (stdin): {"codes": [...], "cycles": N, "rounds": R}. Output: JSON list of {code, haps, seconds}
// (seconds: the best of R rounds).
import { readFileSync } from 'node:fs';

console.log = (...args) => console.error(...args);
const core = await import('@strudel/core');
const miniModule = await import('@strudel/mini');
const tonal = await import('@strudel/tonal');
const { transpile } = await import('./transpile.mjs');

const scope = { ...core, ...miniModule, ...tonal };
delete scope.default;
const names = Object.keys(scope).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k));
const { codes, cycles, rounds } = JSON.parse(readFileSync(0, 'utf8'));
const out = [];
for (const code of codes) {
  const pat = core.reify(new Function(...names, `return (${transpile(code)});`)(...names.map((k) => scope[k])));
  // warm up the JIT on the same pattern
  for (let c = 0; c < 300; c++) pat.query(new core.State(new core.TimeSpan(core.Fraction(c), core.Fraction(c + 1))));
  // best of `rounds` timings, like the Python side
  let best = Infinity;
  let haps = 0;
  for (let round = 0; round < rounds; round++) {
    haps = 0;
    const t0 = process.hrtime.bigint();
    for (let c = 0; c < cycles; c++) {
      haps += pat.query(new core.State(new core.TimeSpan(core.Fraction(c), core.Fraction(c + 1)))).length;
    }
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  out.push({ code, haps, seconds: best });
}
process.stdout.write(JSON.stringify(out));
