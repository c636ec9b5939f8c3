// Evaluate a whole Strudel program the way the REPL does (@strudel/core's repl with
// @strudel/transpiler: `setcpm`, `const`, double-quoted mini-notation, the last expression
// is the pattern) and print its haps with onsets as JSON.
// Input (stdin): {"code": "...", "cycles": N}.
// Output (stdout): {"cps": number, "haps": [{"begin": "n/d", "end": "n/d", "value": {...}}]},
// with a value's note names given as MIDI numbers (`note`) and the name as written (`name`),
// or {"error": "..."}.
import { readFileSync } from 'node:fs';

console.log = (...args) => console.error(...args);
const core = await import('@strudel/core');
const mini = await import('@strudel/mini');
const tonal = await import('@strudel/tonal');
const { transpiler } = await import('@strudel/transpiler');

function frac(x) {
  const f = core.Fraction(x);
  const n = f.s * f.n;
  return f.d == 1 ? `${n}` : `${n}/${f.d}`;
}

const { code, cycles } = JSON.parse(readFileSync(0, 'utf8'));
let answer;
try {
  await core.evalScope(core, mini, tonal);
  const repl = core.repl({ transpiler, getTime: () => 0, defaultOutput: () => {} });
  const pattern = await repl.evaluate(code, false);
  if (!pattern) throw new Error(repl.state.evalError ? String(repl.state.evalError) : 'no pattern');
  const haps = pattern
    .queryArc(0, cycles)
    .filter((h) => h.hasOnset())
    .map((h) => {
      const value = { ...h.value };
      if (typeof value.note === 'string') {
        value.name = value.note;
        value.note = core.noteToMidi(value.note);
      }
      return { begin: frac(h.whole.begin), end: frac(h.whole.end), value };
    });
  answer = { cps: repl.scheduler.cps, haps };
} catch (err) {
  answer = { error: String(err && err.message ? err.message : err) };
}
process.stdout.write(JSON.stringify(answer));
process.exit(0);
