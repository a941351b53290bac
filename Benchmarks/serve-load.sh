#!/usr/bin/env bash
# Load benchmark of `policy-run serve` (a benchmark, not a test): wrk on loopback against the
# server's trivial endpoint (/healthz: the HTTP stack's own ceiling, bare and with the same
# 800-byte Authorization header the token calls carry), then forward auth and check
# with RS256 access tokens, one repeated and 5,000 in turn (which the signature cache holds
# after their first pass), in the same run. Prints a Markdown table with
# each rate as a ratio of the trivial endpoint's, p50 and p99 latency, and errors.
#
# With UNIQUE=N (e.g. 200000), it then presents N distinct tokens PASSES times each (default
# 5), each of wrk's threads going through its share of them in turn: wrk runs until the server
# has answered N × PASSES forward-auth calls (polled from /metrics) and is then stopped. That
# row comes with /healthz driven by the same script (the ceiling for that request stream) and
# the signature cache's hits and misses over the run, from /metrics, and the server's CPU time
# per call for both.
#
# Needs: wrk (apt-get install wrk), python3 with `cryptography` (pip) to mint tokens, and a
# release build (`swift build -c release --product policy-run`). Usage:
#   [ROUNDS=3] [UNIQUE=200000 [PASSES=5]] Benchmarks/serve-load.sh [SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-64}
source Benchmarks/serve-prelude.sh

# Access tokens for the bundled rfc9068 policy, signed with its test key, valid for two hours:
# 5,000 (or UNIQUE, if more) distinct ones, signed on every core (RSA signing runs ~1,000/s a core).
unique=${UNIQUE:-0}
passes=${PASSES:-5}
python3 - "$work" "$unique" <<'PY'
import base64, json, multiprocessing, sys, time
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
work, unique = sys.argv[1], int(sys.argv[2])
key = serialization.load_pem_private_key(open("Policies/keys/test-rs256.key.pem", "rb").read(), None)
b64 = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
now = int(time.time())
header = b64(json.dumps({"alg": "RS256", "typ": "at+jwt", "kid": "test-rs256"}).encode())
def token(i):
    claims = {"iss": "https://auth.example.com/", "sub": f"user-{i}", "aud": "https://api.example.com", "client_id": "s6BhdRkqt3",
              "scope": "openid orders:read", "jti": f"jti-{i}", "iat": now - 60, "exp": now + 7200}
    signing_input = header + "." + b64(json.dumps(claims).encode())
    return signing_input + "." + b64(key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256()))
with multiprocessing.get_context("fork").Pool() as pool:
    tokens = pool.map(token, range(max(5000, unique)), chunksize=1000)
open(f"{work}/token", "w").write(tokens[0])
with open(f"{work}/unique.lua", "w") as lua:
    lua.write("tokens = {" + ",".join(f'"{t}"' for t in tokens[:5000]) + "}\n")
    lua.write("i = 0\nrequest = function()\n  i = i + 1\n  return wrk.format(nil, nil, {['Authorization'] = 'Bearer ' .. tokens[(i % #tokens) + 1]})\nend\n")
with open(f"{work}/check.lua", "w") as lua:
    lua.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
    lua.write(f'wrk.body = \'{{"token": "{tokens[0]}"}}\'\n')
if unique:
    open(f"{work}/tokens.txt", "w").write("\n".join(tokens[:unique]) + "\n")
PY
# Each of wrk's threads presents its share of tokens.txt (every THREADS-th line) in turn, over
# and over: every token comes back once per pass, after all the others.
cat > "$work/passes.lua" <<'LUA'
local made = 0
function setup(thread)
  thread:set("id", made)
  made = made + 1
end
function init(args)
  local threads, n = tonumber(args[2]), 0
  tokens = {}
  for line in io.lines(args[1]) do
    if n % threads == id then tokens[#tokens + 1] = "Bearer " .. line end
    n = n + 1
  end
  i = 0
end
function request()
  i = i % #tokens + 1
  return wrk.format(nil, nil, {["Authorization"] = tokens[i]})
end
LUA

port=$(free_port)
"$run" serve --policies Policies --listen "127.0.0.1:$port" 2> "$work/serve.log" &
server=$!
pids+=("$server")
for _ in $(seq 1 100); do grep -q "serving " "$work/serve.log" 2>/dev/null && break; sleep 0.1; done
base="http://127.0.0.1:$port"
token=$(cat "$work/token")
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$base/v1/authz/rfc9068-access-token")" = 200 ] \
    || { echo "the forward-auth call does not answer 200" >&2; exit 1; }

# measure NAME wrk-arguments... → "NAME|rate|p50|p99|errors"
measure() {
    local name=$1; shift
    summarize "$name" "$(wrk -t2 -c"$connections" -d"${seconds}s" --latency "$@")"
}
# Endpoints are measured in turn, ROUNDS times over (default 3), and each reports its median
# round: on two shared cores a single round's rate moves by a tenth from run to run.
rounds=${ROUNDS:-3}
names=("GET /healthz (the HTTP stack's ceiling)" "GET /healthz with the same Authorization header (the ceiling for that request)"
       "forward auth, one token repeated"
       "forward auth, 5,000 tokens in turn" "POST /v1/check, one token repeated")
calls=("$base/healthz"
       "-H|Authorization: Bearer $token|$base/healthz"
       "-H|Authorization: Bearer $token|$base/v1/authz/rfc9068-access-token"
       "-s|$work/unique.lua|$base/v1/authz/rfc9068-access-token"
       "-s|$work/check.lua|$base/v1/check/rfc9068-access-token")
: > "$work/rounds"
for round in $(seq 1 "$rounds"); do
    for i in "${!names[@]}"; do
        IFS='|' read -r -a arguments <<< "${calls[$i]}"
        echo "$i|$(measure "${names[$i]}" "${arguments[@]}")" >> "$work/rounds"
    done
done

echo "Serve load, $(nproc) cores, wrk -t2 -c$connections -d${seconds}s, median of $rounds rounds, $(date -u +%FT%TZ)"
python3 - "$work/rounds" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    index, name, rate, p50, p99, errors = line.rstrip("\n").split("|")
    rows.setdefault(int(index), []).append((float(rate), name, p50, p99, int(errors)))
def median(runs):
    return sorted(runs)[len(runs) // 2]
ceiling = median(rows[0])[0]
same_request = median(rows[1])[0]
print("| endpoint | requests/s | / /healthz | / /healthz, same header | p50 | p99 | errors and non-2xx (all rounds) | rounds' requests/s |")
print("|---|---:|---:|---:|---:|---:|---:|---|")
for index in sorted(rows):
    rate, name, p50, p99, _ = median(rows[index])
    errors = sum(run[4] for run in rows[index])
    every = ", ".join(f"{run[0]:.0f}" for run in rows[index])
    print(f"| {name} | {rate:.0f} | {rate / ceiling:.2f} | {rate / same_request:.2f} | {p50} | {p99} | {errors} | {every} |")
PY

[ "$unique" -gt 0 ] || exit 0
# The server's CPU time so far, in microseconds (user and system, from /proc): CPU per call is
# steadier than a rate on a machine whose other load comes and goes.
cpu_us() { awk -v tick="$(getconf CLK_TCK)" '{print ($14 + $15) * 1000000 / tick}' "/proc/$server/stat"; }
# A counter of /metrics, by its name and labels as printed.
metric() { curl -s "$base/metrics" | awk -v name="$1" 'index($0, name " ") == 1 {print $2}'; }
valid='policy_decisions_total{policy="rfc9068-access-token",endpoint="authz",result="valid"}'
hit='policy_signature_cache_lookups_total{result="hit"}'
miss='policy_signature_cache_lookups_total{result="miss"}'
target=$(( unique * passes ))
before=$(metric "$valid"); hits=$(metric "$hit"); misses=$(metric "$miss"); cpu=$(cpu_us)
wrk -t2 -c"$connections" -d3600s --latency -s "$work/passes.lua" "$base/v1/authz/rfc9068-access-token" "$work/tokens.txt" 2 > "$work/passes.out" &
wrk_pid=$!
pids+=("$wrk_pid")
while kill -0 "$wrk_pid" 2>/dev/null && [ $(( $(metric "$valid") - ${before:-0} )) -lt "$target" ]; do sleep 0.5; done
kill -INT "$wrk_pid" 2>/dev/null || true
wait "$wrk_pid" || true
answered=$(( $(metric "$valid") - ${before:-0} ))
cpu=$(awk -v now="$(cpu_us)" -v then="$cpu" -v calls="$answered" 'BEGIN {printf "%.1f", (now - then) / calls}')
hits=$(( $(metric "$hit") - ${hits:-0} )); misses=$(( $(metric "$miss") - ${misses:-0} ))
passes_row=$(summarize "forward auth, $unique tokens × $passes in turn" "$(cat "$work/passes.out")")
control_cpu=$(cpu_us)
control_out=$(wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$work/passes.lua" "$base/healthz" "$work/tokens.txt" 2)
control_cpu=$(awk -v now="$(cpu_us)" -v then="$control_cpu" -v calls="$(echo "$control_out" | awk '/requests in/ {print $1}')" \
    'BEGIN {printf "%.1f", (now - then) / calls}')
control=$(summarize "GET /healthz driven by the same script (the ceiling for that request stream)" "$control_out")

echo
echo "Distinct tokens, $(nproc) cores, wrk -t2 -c$connections until $target forward-auth calls were answered, $(date -u +%FT%TZ)"
python3 - "$work/rounds" "$passes_row" "$control" "$answered" "$hits" "$misses" "$unique" "$cpu" "$control_cpu" <<'PY'
import sys
rounds, passes_row, control, answered, hits, misses, unique, cpu, control_cpu = sys.argv[1:]
ceiling = sorted(float(line.split("|")[2]) for line in open(rounds) if line.startswith("0|"))
ceiling = ceiling[len(ceiling) // 2]
control_rate = float(control.split("|")[1])
print("| endpoint | requests/s | / /healthz (median above) | / /healthz, same script | server CPU a call | p50 | p99 | errors and non-2xx | calls answered | presentations a token | signature cache hit rate |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for row, calls, cpu_call in ((passes_row, int(answered), cpu), (control, None, control_cpu)):
    name, rate, p50, p99, errors = row.split("|")
    rate = float(rate)
    lookups = int(hits) + int(misses)
    extra = f"{calls} | {calls / int(unique):.2f} | {int(hits) / max(1, lookups):.3f} ({hits} hits, {misses} misses)" if calls else " | | "
    print(f"| {name} | {rate:.0f} | {rate / ceiling:.2f} | {rate / control_rate:.2f} | {cpu_call} µs | {p50} | {p99} | {errors} | {extra} |")
PY
