// Node resolve hooks for running Strudel 1.2.6 under plain node, without touching node_modules:
// - @strudel/core imports {SalatRepl} from '@kabelsalat/web', whose package has no "exports"
//   map and whose "main" is an IIFE bundle: use its ES module build instead;
// - @strudel/tonal (through chord-voicings, a CommonJS package) needs @tonaljs/* packages
//   whose "main" names dist/index.js while the published packages ship dist/index.cjs.
import { register, createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === '@kabelsalat/web') {
    return next('@kabelsalat/web/dist/index.mjs', context);
  }
  return next(specifier, context);
}
`),
  import.meta.url,
);

const require = createRequire(import.meta.url);
const Module = require('node:module');
const original = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  if (/^@tonaljs\/[a-z-]+$/.test(request)) {
    try {
      return original.call(this, request, parent, ...rest);
    } catch (err) {
      const pkg = original.call(this, `${request}/package.json`, parent, ...rest);
      const cjs = join(dirname(pkg), 'dist', 'index.cjs');
      if (existsSync(cjs)) return cjs;
      throw err;
    }
  }
  return original.call(this, request, parent, ...rest);
};
