// Benchmark Strudel: query each pattern cycle by cycle and count haps per second.
// Input (stdin): {"codes": [...], "cycles": N}. Output: JSON list of {code, haps, seconds}.
import { readFileSync } from 'node:fs';

console.log = (...args) => console.error(...args);
const core = await import('@strudel/core');
const miniModule = await import('@strudel/mini');
const tonal = await import('@strudel/tonal');
const { transpile } = await import('./transpile.mjs');

const scope = { ...core, ...miniModule, ...tonal };
delete scope.default;
const names = Object.keys(scope).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k));
const { codes, cycles } = JSON.parse(readFileSync(0, 'utf8'));
const out = [];
for (const code of codes) {
  const pat = core.reify(new Function(...names, `return (${transpile(code)});`)(...names.map((k) => scope[k])));
  // warm up the JIT on the same pattern
  for (let c = 0; c < 300; c++) pat.query(new core.State(new core.TimeSpan(core.Fraction(c), core.Fraction(c + 1))));
  let haps = 0;
  const t0 = process.hrtime.bigint();
  for (let c = 0; c < cycles; c++) {
    haps += pat.query(new core.State(new core.TimeSpan(core.Fraction(c), core.Fraction(c + 1)))).length;
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  out.push({ code, haps, seconds });
}
process.stdout.write(JSON.stringify(out));
