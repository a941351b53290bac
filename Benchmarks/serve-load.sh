#!/usr/bin/env bash
# Load benchmark of `policy-run serve` (a benchmark, not a test): wrk on loopback against the
# server's trivial endpoint (/healthz: the HTTP stack's own ceiling, bare and with the same
# 800-byte Authorization header the token calls carry), then forward auth and check
# with RS256 access tokens, repeated and unique (5,000: more than the signature cache holds, so
# every one is verified), in the same run. Prints a Markdown table with
# each rate as a ratio of the trivial endpoint's, p50 and p99 latency, and errors.
#
# Needs: wrk (apt-get install wrk), python3 with `cryptography` (pip) to mint tokens, and a
# release build (`swift build -c release --product policy-run`). Usage:
#   [ROUNDS=3] Benchmarks/serve-load.sh [SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-64}
source Benchmarks/serve-prelude.sh

# Access tokens for the bundled rfc9068 policy, signed with its test key, valid for an hour.
python3 - "$work" <<'PY'
import base64, json, sys, time
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
work = sys.argv[1]
key = serialization.load_pem_private_key(open("Policies/keys/test-rs256.key.pem", "rb").read(), None)
b64 = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
now = int(time.time())
header = b64(json.dumps({"alg": "RS256", "typ": "at+jwt", "kid": "test-rs256"}).encode())
def token(i):
    claims = {"iss": "https://auth.example.com/", "sub": f"user-{i}", "aud": "https://api.example.com", "client_id": "s6BhdRkqt3",
              "scope": "openid orders:read", "jti": f"jti-{i}", "iat": now - 60, "exp": now + 3600}
    signing_input = header + "." + b64(json.dumps(claims).encode())
    return signing_input + "." + b64(key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256()))
tokens = [token(i) for i in range(5000)]
open(f"{work}/token", "w").write(tokens[0])
with open(f"{work}/unique.lua", "w") as lua:
    lua.write("tokens = {" + ",".join(f'"{t}"' for t in tokens) + "}\n")
    lua.write("i = 0\nrequest = function()\n  i = i + 1\n  return wrk.format(nil, nil, {['Authorization'] = 'Bearer ' .. tokens[(i % #tokens) + 1]})\nend\n")
with open(f"{work}/check.lua", "w") as lua:
    lua.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
    lua.write(f'wrk.body = \'{{"token": "{tokens[0]}"}}\'\n')
PY

port=$(free_port)
"$run" serve --policies Policies --listen "127.0.0.1:$port" 2> "$work/serve.log" &
pids+=($!)
for _ in $(seq 1 100); do grep -q "serving " "$work/serve.log" 2>/dev/null && break; sleep 0.1; done
base="http://127.0.0.1:$port"
token=$(cat "$work/token")
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$base/v1/authz/rfc9068-access-token")" = 200 ] \
    || { echo "the forward-auth call does not answer 200" >&2; exit 1; }

# measure NAME wrk-arguments... → "NAME|rate|p50|p99|errors"
measure() {
    local name=$1; shift
    local out
    out=$(wrk -t2 -c"$connections" -d"${seconds}s" --latency "$@")
    local rate p50 p99 errors non2xx
    rate=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
    p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
    errors=$(echo "$out" | awk '/Socket errors/ {gsub(",", ""); print $4 + $6 + $8 + $10}')
    non2xx=$(echo "$out" | awk '/Non-2xx/ {print $5}')
    echo "$name|$rate|$p50|$p99|$(( ${errors:-0} + ${non2xx:-0} ))"
}
# Endpoints are measured in turn, ROUNDS times over (default 3), and each reports its median
# round: on two shared cores a single round's rate moves by a tenth from run to run.
rounds=${ROUNDS:-3}
names=("GET /healthz (the HTTP stack's ceiling)" "GET /healthz with the same Authorization header (the ceiling for that request)"
       "forward auth, one token repeated"
       "forward auth, 5,000 unique tokens (each verified)" "POST /v1/check, one token repeated")
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
