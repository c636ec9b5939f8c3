# Sourced by scripts/test: the Strudel reference (@strudel/core, @strudel/mini and
# @strudel/tonal 1.2.6) under node, for the pattern engine's comparison tests and
# benchmark. Installs Debian's nodejs/npm when missing, runs `npm ci` in
# tests/patterns/strudel when its node_modules are missing or stale, and exports
# BANDSTAND_STRUDEL_DIR (the directory holding query.mjs and register.mjs).
_bandstand_strudel_dir="$(pwd)/tests/patterns/strudel"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    apt_install nodejs npm || true
fi
if command -v npm >/dev/null 2>&1; then
    if [ ! -f "$_bandstand_strudel_dir/node_modules/@strudel/core/package.json" ] \
        || [ "$_bandstand_strudel_dir/package-lock.json" -nt "$_bandstand_strudel_dir/node_modules/.package-lock.json" ]; then
        (cd "$_bandstand_strudel_dir" && npm ci --no-audit --no-fund --loglevel=error >&2) \
            || (cd "$_bandstand_strudel_dir" && npm install --no-audit --no-fund --loglevel=error >&2) \
            || echo "setup: npm could not install the Strudel reference" >&2
    fi
fi
export BANDSTAND_STRUDEL_DIR="$_bandstand_strudel_dir"
