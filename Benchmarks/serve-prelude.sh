# Sourced by serve-load.sh, serve-proxy-load.sh and serve-soak.sh: the release binary and wrk they need, a scratch
# directory removed on exit with every process started (add PIDs to `pids`), and free ports.
run=${POLICY_RUN:-$PWD/.build/release/policy-run}
[ -x "$run" ] || { echo "build first: swift build -c release --product policy-run" >&2; exit 2; }
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 2; }

work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# summarize NAME WRK-OUTPUT → "NAME|rate|p50|p99|errors"
summarize() {
    local name=$1 out=$2
    local rate p50 p99 errors non2xx
    rate=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
    p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
    errors=$(echo "$out" | awk '/Socket errors/ {gsub(",", ""); print $4 + $6 + $8 + $10}')
    non2xx=$(echo "$out" | awk '/Non-2xx/ {print $5}')
    echo "$name|$rate|$p50|$p99|$(( ${errors:-0} + ${non2xx:-0} ))"
}
