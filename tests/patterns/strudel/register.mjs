// Node resolve hook: @strudel/core 1.2.6 imports {SalatRepl} from '@kabelsalat/web', whose
// package has no "exports" map and whose "main" is an IIFE bundle. Map that one specifier
// to the package's ES module build, without touching node_modules.
import { register } from 'node:module';

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
