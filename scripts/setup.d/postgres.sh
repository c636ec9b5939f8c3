# Sourced by scripts/test: a throwaway PostgreSQL server on loopback for the
# board tests, unless BANDSTAND_TEST_POSTGRES already names one. Installs
# Debian's postgresql when missing; stops the server when the tests end.
if [ -z "${BANDSTAND_TEST_POSTGRES:-}" ]; then
    pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    if [ -z "$pg_bin" ]; then
        apt_install postgresql
        pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    fi
    pg_data=$(mktemp -d /tmp/bandstand-pg.XXXXXX)
    pg_port=$(free_port)
    pg_as=()
    if [ "$(id -u)" = 0 ]; then
        # PostgreSQL refuses to run as root: run it as the postgres user.
        id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
        chown postgres "$pg_data"
        pg_as=(runuser -u postgres --)
    fi
    "${pg_as[@]}" "$pg_bin/initdb" -D "$pg_data/db" -A trust -U bandstand >/dev/null
    "${pg_as[@]}" "$pg_bin/pg_ctl" -D "$pg_data/db" -l "$pg_data/log" -w \
        -o "-p $pg_port -k $pg_data -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null
    export BANDSTAND_TEST_POSTGRES="postgresql://bandstand@127.0.0.1:$pg_port/postgres"
    _bandstand_pg_stop() { "${pg_as[@]}" "$pg_bin/pg_ctl" -D "$pg_data/db" -m fast stop >/dev/null 2>&1; rm -rf "$pg_data"; }
    on_exit _bandstand_pg_stop
    echo "setup: PostgreSQL for the tests at $BANDSTAND_TEST_POSTGRES" >&2
fi
