# Sourced by scripts/setup and scripts/test: the pages' SoundFont synthesizer
# (spessasynth_lib, Apache-2.0, from the npm registry), installed with `npm ci`
# into src/bandstand/web/vendor/node_modules from the committed package-lock.json,
# where `bandstand serve` serves it (/audio/vendor/…). Without npm the pages play
# their oscillator voices instead; nothing else depends on it.
_bandstand_vendor="$(pwd)/src/bandstand/web/vendor"
if command -v npm >/dev/null 2>&1; then
    if [ ! -f "$_bandstand_vendor/node_modules/spessasynth_lib/package.json" ] \
        || [ "$_bandstand_vendor/package-lock.json" -nt "$_bandstand_vendor/node_modules/.package-lock.json" ]; then
        (cd "$_bandstand_vendor" && npm ci --no-audit --no-fund --loglevel=error >&2) \
            || echo "setup: npm could not install the pages' synthesizer; they will play oscillator voices" >&2
    fi
else
    echo "setup: npm not found; the pages play oscillator voices (install nodejs and npm, then rerun scripts/setup for SoundFont sound)" >&2
fi
