#!/usr/bin/env bash
# Soak of `policy-run serve` (a benchmark, not a test): wrk holds 64 connections of forward-auth
# calls with RS256 tokens for SECONDS (default 600) while the policy is reloaded every 10 s
# (alternately by a changed file and by SIGHUP) and, half-way, the JWKS server rotates to a new
# key and the tokens switch to it (an unknown kid: one refetch). From 20% to 35% of the run the
# JWKS server answers only after 8 s and a call with an invented kid arrives every second (the
# cached kid must not wait for those refetches); from 60% to 70% 1,100 idle connections hold
# the connection cap while /healthz and /readyz are probed every second (they must answer).
# The server's RSS is sampled every 10 s. Prints the wrk totals, errors and non-2xx answers
# (the target is none), the slow phase's and the flood's figures, the reloads the server
# counted, the key fetches, and the RSS samples.
#
# Needs: wrk, python3 with `cryptography`, and a release build of policy-run. Usage:
#   Benchmarks/serve-soak.sh [SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
connections=${2:-64}
source Benchmarks/serve-prelude.sh
# The flood holds more connections than the cap (1,024), and each end needs a descriptor.
ulimit -n 8192 2>/dev/null || true

jwks_port=$(free_port)
mkdir -p "$work/jwks" "$work/policies"
rotate_at=$(( $(date +%s) + 20 + seconds / 2 ))

# Two RSA keys: the first published now, the second added at rotation; one token per key;
# a wrk script that switches to the second token at the rotation time.
python3 - "$work" "$rotate_at" "$seconds" <<'PY'
import base64, json, sys, time
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
work, rotate_at, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
b64 = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
keys = {kid: rsa.generate_private_key(public_exponent=65537, key_size=2048) for kid in ("soak-1", "soak-2")}
def jwk(kid):
    numbers = keys[kid].public_key().public_numbers()
    as_bytes = lambda n: n.to_bytes((n.bit_length() + 7) // 8, "big")
    return {"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": b64(as_bytes(numbers.n)), "e": b64(as_bytes(numbers.e))}
json.dump({"keys": [jwk("soak-1")]}, open(f"{work}/jwks/jwks.json", "w"))
json.dump({"keys": [jwk("soak-1"), jwk("soak-2")]}, open(f"{work}/rotated.json", "w"))
now = int(time.time())
def token(kid):
    header = b64(json.dumps({"alg": "RS256", "typ": "JWT", "kid": kid}).encode())
    claims = {"iss": "https://soak.example", "aud": "api", "sub": "soak-user", "iat": now - 60, "exp": now + seconds + 3600}
    signing_input = header + "." + b64(json.dumps(claims).encode())
    return signing_input + "." + b64(keys[kid].sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256()))
with open(f"{work}/invented.txt", "w") as invented:
    invented.write(token("soak-1").replace(b64(json.dumps({"alg": "RS256", "typ": "JWT", "kid": "soak-1"}).encode()),
                                           b64(json.dumps({"alg": "RS256", "typ": "JWT", "kid": "invented"}).encode())))
with open(f"{work}/soak.lua", "w") as lua:
    lua.write(f'first = "Bearer {token("soak-1")}"\nsecond = "Bearer {token("soak-2")}"\nrotate_at = {rotate_at}\n')
    lua.write("request = function()\n  local token = first\n  if os.time() >= rotate_at then token = second end\n"
              "  return wrk.format(nil, nil, {['Authorization'] = token})\nend\n")
PY

write_policy() {
    cat > "$work/policies/soak.yaml" <<EOF
# reload $1
policy: soak
token:
  algorithms: [RS256]
  keys: {jwks_uri: "http://127.0.0.1:$jwks_port/jwks.json", allow_http: true, cache_ttl: 1h, min_refresh_interval: 1s}
  issuer: https://soak.example
  audience: api
outputs:
  user: claims.sub
EOF
}
write_policy 0

# The JWKS server: the files of $work/jwks, answered 8 s late while $work/slow exists.
(cd "$work/jwks" && exec python3 - "$jwks_port" "$work/slow" > "$work/jwks.log" 2>&1 <<'PY'
import http.server, os, sys, time
class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if os.path.exists(sys.argv[2]):
            time.sleep(8)
        super().do_GET()
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
PY
) &
pids+=($!)
port=$(free_port)
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$jwks_port/jwks.json" > /dev/null && break; sleep 0.1; done
"$run" serve --policies "$work/policies" --listen "127.0.0.1:$port" 2> "$work/serve.log" &
serve_pid=$!
pids+=("$serve_pid")
base="http://127.0.0.1:$port"
for _ in $(seq 1 100); do [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/readyz")" = 200 ] && break; sleep 0.1; done
[ "$(curl -s -o /dev/null -w '%{http_code}' "$base/readyz")" = 200 ] || { cat "$work/serve.log" >&2; echo "the server never became ready" >&2; exit 1; }

rss() { awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status"; }
echo "Serve soak, $(nproc) cores, wrk -t2 -c$connections -d${seconds}s, reload every 10 s, key rotation at +$(( rotate_at - $(date +%s) ))s, $(date -u +%FT%TZ)"
wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$work/soak.lua" "$base/v1/authz/soak" > "$work/wrk.out" &
wrk_pid=$!
pids+=("$wrk_pid")
samples=("0 $(rss)")
started=$(date +%s)
reloads=0
rotated=no

# The slow key server and the unknown kids: one call a second, timed.
(
    sleep $(( seconds / 5 ))
    touch "$work/slow"
    end=$(( $(date +%s) + seconds * 15 / 100 ))
    while (( $(date +%s) < end )); do
        curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -H "Authorization: Bearer $(cat "$work/invented.txt")" "$base/v1/authz/soak" >> "$work/invented.log"
        sleep 1
    done
    rm -f "$work/slow"
) &
pids+=($!)
# The connection flood: 1,100 idle connections past the cap of 1,024, and the probes meanwhile.
(
    sleep $(( seconds * 6 / 10 ))
    python3 - "$port" "$(( seconds / 10 ))" "$work/probes.log" <<'PY'
import socket, sys, time, urllib.request
port, hold, log = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
idle = []
for _ in range(1100):
    try:
        idle.append(socket.create_connection(("127.0.0.1", port), timeout=2))
    except OSError:
        break
with open(log, "w") as out:
    end = time.time() + hold
    while time.time() < end:
        for probe in ("healthz", "readyz"):
            try:
                status = urllib.request.urlopen(f"http://127.0.0.1:{port}/{probe}", timeout=2).status
            except Exception as error:
                status = getattr(error, "code", "error")
            out.write(f"{len(idle)} {probe} {status}\n")
        time.sleep(1)
for connection in idle:
    connection.close()
PY
) &
pids+=($!)

while kill -0 "$wrk_pid" 2>/dev/null; do
    sleep 10
    kill -0 "$wrk_pid" 2>/dev/null || break
    reloads=$(( reloads + 1 ))
    if (( reloads % 2 )); then write_policy "$reloads"; else kill -HUP "$serve_pid"; fi
    # Published 5 to 15 s before the tokens switch: the provider rotates before its tokens do.
    if [ "$rotated" = no ] && (( $(date +%s) >= rotate_at - 15 )); then
        mv "$work/rotated.json" "$work/jwks/jwks.json"
        rotated=yes
    fi
    samples+=("$(( $(date +%s) - started )) $(rss)")
done
wait "$wrk_pid" || true

out=$(cat "$work/wrk.out")
requests=$(echo "$out" | awk '/requests in/ {print $1}')
rate=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
p50=$(echo "$out" | awk '$1 == "50%" {print $2}')
p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
errors=$(echo "$out" | awk '/Socket errors/ {gsub(",", ""); print $4 + $6 + $8 + $10}')
non2xx=$(echo "$out" | awk '/Non-2xx/ {print $5}')
metrics=$(curl -s "$base/metrics")
echo "| requests | requests/s | p50 | p99 | socket errors | non-2xx |"
echo "|---:|---:|---:|---:|---:|---:|"
echo "| $requests | $rate | $p50 | $p99 | ${errors:-0} | ${non2xx:-0} |"
echo
echo "slow key server (8 s) with an invented kid every second: $(wc -l < "$work/invented.log" 2>/dev/null || echo 0) calls;" \
    "answers $(awk '{print $1}' "$work/invented.log" 2>/dev/null | sort | uniq -c | tr -s ' ' | tr '\n' ',' )" \
    "slowest $(awk 'BEGIN {m = 0} $2 > m {m = $2} END {print m}' "$work/invented.log" 2>/dev/null) s (max_wait 1 s)"
echo "connection flood: $(head -1 "$work/probes.log" 2>/dev/null | awk '{print $1}') idle connections held;" \
    "probes $(wc -l < "$work/probes.log" 2>/dev/null || echo 0), of which not 200: $(awk '$3 != 200' "$work/probes.log" 2>/dev/null | wc -l)"
echo "reloads asked: $reloads; the server counted:"
echo "$metrics" | grep -E '^policy_reloads_total' || echo "(none)"
echo "key fetches and lookups:"
echo "$metrics" | grep -E '^policy_key_(fetches|cache_lookups)_total' | sed 's/source="[^"]*",//'
echo "decisions:"
echo "$metrics" | grep -E '^policy_decisions_total'
echo
echo "RSS (KiB) by second: ${samples[*]}" | sed 's/ \([0-9]*\) \([0-9]*\)/ \1s=\2/g'
python3 - "${samples[@]}" <<'PY'
import sys
values = [int(sample.split()[1]) for sample in sys.argv[1:]]
settled = values[len(values) // 10:] or values
print(f"RSS: start {values[0]} KiB, after the first tenth {settled[0]} KiB, max {max(values)} KiB, end {values[-1]} KiB; "
      f"growth over the last nine tenths {settled[-1] - settled[0]:+d} KiB")
PY
