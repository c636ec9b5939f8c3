// Print each pattern's step count (Strudel's _steps, "n/d" or null) for a JSON list of codes on stdin.
import { readFileSync } from 'node:fs';
console.log = (...a) => console.error(...a);
const core = await import('@strudel/core');
const miniModule = await import('@strudel/mini');
const tonal = await import('@strudel/tonal');
const { transpile } = await import('./transpile.mjs');
const scope = { ...core, ...miniModule, ...tonal };
delete scope.default;
const names = Object.keys(scope).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k));
const codes = JSON.parse(readFileSync(0, 'utf8'));
const out = [];
for (const code of codes) {
  try {
    const pat = core.reify(new Function(...names, `return (${transpile(code)});`)(...names.map((k) => scope[k])));
    const s = pat._steps;
    out.push(s === undefined ? null : `${s.s * s.n}/${s.d}`);
  } catch (e) { out.push('error'); }
}
process.stdout.write(JSON.stringify(out));
