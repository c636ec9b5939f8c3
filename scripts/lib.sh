# Shell helpers shared by scripts/setup, scripts/test and scripts/setup.d/*.sh.

apt_install() {
    # apt_install PACKAGE... — install the Debian packages that are missing (needs root).
    local missing=() p
    for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        echo "setup: please install these Debian packages: ${missing[*]}" >&2
        return 1
    fi
    if [ -z "${BANDSTAND_APT_UPDATED:-}" ]; then
        apt-get update -qq >/dev/null
        export BANDSTAND_APT_UPDATED=1
    fi
    echo "setup: installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

_bandstand_exit_cmds=()
_bandstand_run_exit() {
    local c
    for c in "${_bandstand_exit_cmds[@]}"; do eval "$c" || true; done
}
on_exit() {
    # on_exit 'COMMAND' — run COMMAND when the calling script ends (several may be registered).
    _bandstand_exit_cmds+=("$1")
    trap _bandstand_run_exit EXIT
}
