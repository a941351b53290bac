#!/usr/bin/env bash
# Runs `Benchmarks dpop` with a PostgreSQL server of its own on loopback (Debian's, in a
# temporary directory, fsync on as in production), so that its rows for the shared replay store
# are measured: DPoP-bound decisions against bearer ones, and the jti recorded in PostgreSQL
# against in memory, in one run. Needs a release build: swift build -c release --product Benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "dpop-load: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }
work=$(mktemp -d)
chmod 755 "$work"
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() { as_postgres "$bin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
mkdir -p "$work/pg" "$work/socket"
[ "$(id -u)" = 0 ] && chown postgres "$work/pg" "$work/socket"
echo bench > "$work/pw" && chmod 644 "$work/pw"
as_postgres "$bin/initdb" -D "$work/pg" -U postgres --pwfile="$work/pw" --auth-host=scram-sha-256 --auth-local=trust >/dev/null
as_postgres "$bin/pg_ctl" -D "$work/pg" -l "$work/socket/pg.log" -w \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$work/socket" start >/dev/null
REPLAY_PG="127.0.0.1:$port:postgres:bench:postgres" "$(swift build -c release --show-bin-path)/Benchmarks" dpop
