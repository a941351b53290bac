#!/usr/bin/env bash
# Two `policy-run serve` instances on 127.0.0.1 sharing one PostgreSQL (Debian's, started here in
# a directory of its own) as their replay store: a DPoP proof used at one instance is refused at
# the other; with PostgreSQL stopped, both refuse at once (503, replay_store_unavailable) instead
# of letting a proof through; with it started again, they recover by themselves. Proofs and
# tokens are made by Python's jwcrypto, not by the engine. Run by Scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
run=${POLICY_RUN:-$PWD/.build/debug/policy-run}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "replay store integration: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }

work=$(mktemp -d)
chmod 755 "$work"
pids=()
# PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres user.
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -f "$work/pg/postmaster.pid" ] && as_postgres "$bin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# The cluster: password (SCRAM) authentication over TCP, the socket in the work directory.
pg_port=$(free_port)
mkdir -p "$work/pg" "$work/socket"
[ "$(id -u)" = 0 ] && chown postgres "$work/pg" "$work/socket"
echo postgres-admin > "$work/pw" && chmod 644 "$work/pw"
as_postgres "$bin/initdb" -D "$work/pg" -U postgres --pwfile="$work/pw" --auth-host=scram-sha-256 --auth-local=trust >/dev/null
start_pg() {
    as_postgres "$bin/pg_ctl" -D "$work/pg" -l "$work/socket/pg.log" -w \
        -o "-c listen_addresses=127.0.0.1 -c port=$pg_port -c unix_socket_directories=$work/socket -c fsync=off" start >/dev/null
}
start_pg
as_postgres "$bin/psql" -q -h "$work/socket" -p "$pg_port" -U postgres -c "CREATE ROLE policy LOGIN PASSWORD 'replay-secret'" \
    -c "CREATE DATABASE policy OWNER policy" >/dev/null

# A client key, an issuer secret, and a proof maker (jwcrypto): `proof URL TOKEN` prints a fresh proof.
python3 - "$work" <<'PY'
import json, os, sys
from jwcrypto import jwk
work = sys.argv[1]
client = jwk.JWK.generate(kty="EC", crv="P-256")
open(os.path.join(work, "client.json"), "w").write(client.export_private())
open(os.path.join(work, "secret"), "w").write(jwk.JWK.generate(kty="oct", size=256).export())
PY
cat > "$work/mint.py" <<'PY'
import base64, hashlib, json, os, sys, time, uuid
from jwcrypto import jwk, jws, jwt
work, what = sys.argv[1], sys.argv[2]
client = jwk.JWK.from_json(open(os.path.join(work, "client.json")).read())
if what == "token":
    secret = jwk.JWK.from_json(open(os.path.join(work, "secret")).read())
    claims = {"iss": "https://auth.example.com", "sub": "alice", "exp": int(time.time()) + 600, "cnf": {"jkt": client.thumbprint()}}
    token = jwt.JWT(header={"alg": "HS256", "typ": "at+jwt"}, claims=claims)
    token.make_signed_token(secret)
    print(token.serialize())
else:
    url, token = sys.argv[3], sys.argv[4]
    ath = base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).rstrip(b"=").decode()
    claims = {"jti": str(uuid.uuid4()), "htm": "GET", "htu": url, "iat": int(time.time()), "ath": ath}
    proof = jws.JWS(json.dumps(claims).encode())
    proof.add_signature(client, alg="ES256", protected=json.dumps({"typ": "dpop+jwt", "alg": "ES256", "jwk": json.loads(client.export_public())}))
    print(proof.serialize(compact=True))
PY
export REPLAY_TEST_KEY=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["k"])' "$work/secret")
export REPLAY_TEST_PGPASSWORD=replay-secret
token=$(python3 "$work/mint.py" "$work" token)
proof() { python3 "$work/mint.py" "$work" proof https://api.example.com/orders "$token"; }

mkdir -p "$work/policies"
cat > "$work/policies/orders.yaml" <<'YAML'
policy: orders
token:
  algorithms: [HS256]
  keys: {secret: '${env:REPLAY_TEST_KEY}'}
  issuer: https://auth.example.com
  expires: required
request:
  dpop: {algorithms: [ES256], origins: [https://api.example.com]}
outputs:
  user: claims.sub
YAML
cat > "$work/serve.yaml" <<YAML
policies: policies
replay_store:
  postgres: {host: 127.0.0.1, port: $pg_port, database: policy, user: policy, password_env: REPLAY_TEST_PGPASSWORD, timeout: 1s, tls: disable}
YAML
ports=()
for instance in a b; do
    port=$(free_port)
    "$run" serve --config "$work/serve.yaml" --listen "127.0.0.1:$port" 2> "$work/serve-$instance.log" &
    pids+=($!)
    ports+=("$port")
    for _ in $(seq 1 100); do grep -q "serving " "$work/serve-$instance.log" 2>/dev/null && break; sleep 0.1; done
    grep -q "serving " "$work/serve-$instance.log" || { cat "$work/serve-$instance.log" >&2; exit 1; }
done

passed=0 failed=0
# call INSTANCE PROOF: the status and WWW-Authenticate of a forward-auth call for GET https://api.example.com/orders.
call() {
    curl -s -o /dev/null -w '%{http_code} %header{www-authenticate}' "http://127.0.0.1:${ports[$1]}/v1/authz/orders" \
        -H "X-Forwarded-Proto: https" -H "X-Forwarded-Host: api.example.com" -H "X-Forwarded-Uri: /orders" \
        -H "Authorization: DPoP $token" -H "DPoP: $2"
}
expect() {
    local name=$1 wanted=$2 got=$3
    if [[ "$got" == $wanted* ]]; then
        passed=$((passed + 1)); printf 'ok    %-58s %s\n' "$name" "$got"
    else
        failed=$((failed + 1)); printf 'FAIL  %-58s expected %s, got %s\n' "$name" "$wanted" "$got"
    fi
}

first=$(proof)
expect "a fresh proof at instance A" "200" "$(call 0 "$first")"
expect "the same proof at instance B" '401 DPoP error="invalid_dpop_proof", error_description="dpop_proof_replayed"' "$(call 1 "$first")"
expect "the same proof at instance A again" '401 DPoP error="invalid_dpop_proof", error_description="dpop_proof_replayed"' "$(call 0 "$first")"
expect "a fresh proof at instance B" "200" "$(call 1 "$(proof)")"
rows=$(as_postgres "$bin/psql" -tA -h "$work/socket" -p "$pg_port" -U postgres -d policy -c "SELECT count(*) FROM policy_engine_replay")
expect "the table holds the two proofs' values, and no more" "2" "$rows"

# Racing: the same proof at both instances at once is accepted by exactly one.
raced=$(proof)
call 0 "$raced" > "$work/race-a" &
racer=$!
call 1 "$raced" > "$work/race-b"
wait "$racer"
wins=0
for answer in "$work/race-a" "$work/race-b"; do grep -q '^200' "$answer" && wins=$((wins + 1)); done
expect "one proof sent to both instances at once is accepted once" "1" "$wins"

as_postgres "$bin/pg_ctl" -D "$work/pg" -m fast stop >/dev/null
started=$(date +%s%N)
expect "PostgreSQL stopped: instance A refuses, never lets a proof through" "503" "$(call 0 "$(proof)")"
expect "PostgreSQL stopped: instance B refuses too" "503" "$(call 1 "$(proof)")"
took=$(( ($(date +%s%N) - started) / 1000000 ))
expect "both answered within their 1 s timeout each" "yes" "$([ "$took" -lt 5000 ] && echo yes || echo "no ($took ms)")"
verdict=$(curl -s "http://127.0.0.1:${ports[0]}/v1/check/orders" -d "{\"request\": {\"method\": \"GET\", \"url\": \"https://api.example.com/orders\",
    \"headers\": {\"Authorization\": \"DPoP $token\", \"DPoP\": \"$(proof)\"}}}")
expect "the verdict names replay_store_unavailable" "yes" "$(grep -q '"code":"replay_store_unavailable"' <<< "$verdict" && echo yes || echo "no: $verdict")"

start_pg
recovered=no
for _ in $(seq 1 40); do
    got=$(call 0 "$(proof)")
    [[ "$got" == 200* ]] && { recovered=yes; break; }
    sleep 0.25
done
expect "PostgreSQL started again: instance A recovers by itself" "yes" "$recovered"
expect "and instance B" "200" "$(call 1 "$(proof)")"
expect "a proof used before the outage is still refused" '401 DPoP error="invalid_dpop_proof", error_description="dpop_proof_replayed"' "$(call 1 "$first")"

echo "replay store integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
