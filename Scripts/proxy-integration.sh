#!/usr/bin/env bash
# Real proxies in front of a tiny upstream, with `policy-run serve` deciding each request:
# nginx (Debian's nginx-light, auth_request) and Caddy (Debian's caddy, forward_auth). Allowed
# and denied requests end to end, with the user the policy's output names forwarded to the
# upstream. Run by Scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
run=${POLICY_RUN:-$PWD/.build/debug/policy-run}
command -v nginx >/dev/null || { echo "proxy integration: nginx is not installed (apt-get install nginx-light)" >&2; exit 1; }
command -v caddy >/dev/null || { echo "proxy integration: caddy is not installed (apt-get install caddy)" >&2; exit 1; }

work=$(mktemp -d)
serve_pid=""
cleanup() {
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
    [ -n "${caddy_pid:-}" ] && kill "$caddy_pid" 2>/dev/null || true
    [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true
    [ -f "$work/routed-nginx.pid" ] && kill "$(cat "$work/routed-nginx.pid")" 2>/dev/null || true
    [ -n "${routed_pid:-}" ] && kill "$routed_pid" 2>/dev/null || true
    [ -f "$work/bound-nginx.pid" ] && kill "$(cat "$work/bound-nginx.pid")" 2>/dev/null || true
    [ -n "${bound_pid:-}" ] && kill "$bound_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# start_nginx CONF PIDFILE: nginx on CONF, once its pid file is written.
start_nginx() {
    nginx -c "$1" -p "$work"
    for _ in $(seq 1 50); do [ -f "$2" ] && break; sleep 0.1; done
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
secret_and_tokens() {
    python3 - "$@" <<'PY'
import base64, hashlib, hmac, json, os, sys, time
b64 = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
key = os.urandom(32)
now = int(time.time())
def token(**changes):
    claims = {"iss": "https://issuer.example", "aud": "api", "sub": "alice", "scope": "read write", "iat": now - 60, "exp": now + 600}
    claims.update(changes)
    signing_input = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." + b64(json.dumps(claims).encode())
    return signing_input + "." + b64(hmac.new(key, signing_input.encode(), hashlib.sha256).digest())
print(b64(key))
print(token())
print(token(exp=now - 3600, iat=now - 7200))
print(token(scope="write"))
print(token(scope="read admin"))
PY
}

mapfile -t generated < <(secret_and_tokens)
export NGINX_TEST_KEY=${generated[0]}
valid=${generated[1]} expired=${generated[2]} no_scope=${generated[3]} both_scopes=${generated[4]}

mkdir -p "$work/policies" "$work/tmp"
# Where nginx may write, in both configurations.
temp_paths="client_body_temp_path $work/tmp/body; proxy_temp_path $work/tmp/proxy; fastcgi_temp_path $work/tmp/fastcgi;
    uwsgi_temp_path $work/tmp/uwsgi; scgi_temp_path $work/tmp/scgi;"
cat > "$work/policies/api.yaml" <<'YAML'
policy: api
token:
  algorithms: [HS256]
  keys: {secret: '${env:NGINX_TEST_KEY}'}
  issuer: https://issuer.example
  audience: api
  claims:
    scope: {contains: read}
outputs:
  user: claims.sub
YAML

serve_port=$(free_port)
"$run" serve --policies "$work/policies" --listen "127.0.0.1:$serve_port" 2> "$work/serve.log" &
serve_pid=$!
for _ in $(seq 1 100); do grep -q "serving " "$work/serve.log" 2>/dev/null && break; sleep 0.1; done
grep -q "serving " "$work/serve.log" || { cat "$work/serve.log" >&2; exit 1; }

proxy_port=$(free_port)
upstream_port=$(free_port)
cat > "$work/nginx.conf" <<CONF
daemon on;
master_process off;
pid $work/nginx.pid;
error_log $work/error.log;
events {}
http {
    access_log $work/access.log;
    $temp_paths
    upstream policy_serve {
        server 127.0.0.1:$serve_port;
        keepalive 32;
        keepalive_timeout 20s;
    }
    server {
        listen 127.0.0.1:$proxy_port;
        location / {
            auth_request /_authz;
            auth_request_set \$user \$upstream_http_x_auth_user;
            proxy_set_header X-User \$user;
            proxy_pass http://127.0.0.1:$upstream_port;
        }
        location = /_authz {
            internal;
            proxy_pass http://policy_serve/v1/authz/api;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header X-Forwarded-Method \$request_method;
            proxy_set_header X-Forwarded-Uri \$request_uri;
            proxy_set_header X-Forwarded-Host \$host;
        }
    }
    server {
        listen 127.0.0.1:$upstream_port;
        location / { return 200 "upstream: \$request_method \$request_uri for user \$http_x_user\n"; }
    }
}
CONF
start_nginx "$work/nginx.conf" "$work/nginx.pid"

passed=0 failed=0
# answer NAME EXPECTED_STATUS EXPECTED_TEXT URL [curl arguments...]
answer() {
    local name=$1 status=$2 text=$3 url=$4; shift 4
    local answer got
    answer=$(curl -s -i "$@" "$url")
    got=$(printf '%s' "$answer" | head -1 | awk '{print $2}')
    if [ "$got" = "$status" ] && printf '%s' "$answer" | grep -q -- "$text"; then
        passed=$((passed + 1)); printf 'ok    %-34s %s  %s\n' "$name" "$got" "$(printf '%s' "$answer" | grep -- "$text" | head -1 | tr -d '\r')"
    else
        failed=$((failed + 1)); printf 'FAIL  %-34s expected %s with "%s", got:\n%s\n' "$name" "$status" "$text" "$answer"
    fi
}
# check NAME EXPECTED_STATUS EXPECTED_TEXT [curl arguments...], against $proxy_port
check() {
    local name=$1 status=$2 text=$3; shift 3
    answer "$name" "$status" "$text" "http://127.0.0.1:$proxy_port/orders/42?view=full" "$@"
}
check "valid token reaches the upstream" 200 "for user alice" -H "Authorization: Bearer $valid"
check "expired token" 401 'error="invalid_token", error_description="token_expired"' -H "Authorization: Bearer $expired"
check "token without the read scope" 403 "403 Forbidden" -H "Authorization: Bearer $no_scope"
check "forged token" 401 'error="invalid_token"' -H "Authorization: Bearer ${valid}x"
check "no token" 401 "WWW-Authenticate: Bearer"
# The documented upstream keepalive: nginx holds its connection to the server open between calls.
kept=$(ss -Htn state established "( dport = :$serve_port )" | wc -l)
if [ "$kept" -ge 1 ]; then
    passed=$((passed + 1)); printf 'ok    %-34s %s\n' "upstream keepalive to the server" "$kept connection(s) kept open"
else
    failed=$((failed + 1)); printf 'FAIL  %-34s no connection from nginx to the server stayed open\n' "upstream keepalive to the server"
fi

# Caddy: forward_auth copies the output header to the upstream request.
caddy_port=$(free_port)
cat > "$work/Caddyfile" <<CADDY
{
    auto_https off
    admin off
    storage file_system $work/caddy
}
http://127.0.0.1:$caddy_port {
    forward_auth 127.0.0.1:$serve_port {
        uri /v1/authz/api
        copy_headers X-Auth-User>X-User
    }
    reverse_proxy 127.0.0.1:$upstream_port
}
CADDY
HOME=$work XDG_DATA_HOME=$work XDG_CONFIG_HOME=$work caddy run --config "$work/Caddyfile" --adapter caddyfile > "$work/caddy.log" 2>&1 &
caddy_pid=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$caddy_port/" && break; sleep 0.1; done
proxy_port=$caddy_port
check "caddy: valid token reaches the upstream" 200 "for user alice" -H "Authorization: Bearer $valid"
check "caddy: expired token" 401 'error="invalid_token", error_description="token_expired"' -H "Authorization: Bearer $expired"
check "caddy: token without the read scope" 403 'error="insufficient_scope"' -H "Authorization: Bearer $no_scope"
check "caddy: no token" 401 "Www-Authenticate: Bearer"

# The differential: nginx in front of `policy-serve`'s route table, and an upstream that says
# which path it would serve ($uri, nginx's own normalisation). For every spelling of a path, the
# route policy-serve chose (named by the output header each route sets) and the path the
# upstream received must name the same policy, or the request is refused before the upstream.
cat > "$work/policies/admin.yaml" <<'YAML'
policy: admin
token:
  algorithms: [HS256]
  keys: {secret: '${env:NGINX_TEST_KEY}'}
  issuer: https://issuer.example
  audience: api
  claims:
    scope: {contains: admin}
outputs:
  user: claims.sub
YAML
cat > "$work/serve.yaml" <<YAML
listen: 127.0.0.1:$(free_port)
policies: policies
routes:
  - match: {path_prefix: /admin/}
    policy: admin
    outputs: {user: X-Route-Admin}
  - match: {path_prefix: /}
    policy: api
    outputs: {user: X-Route-User}
YAML
routed_port=$(sed -n 's/^listen: 127.0.0.1://p' "$work/serve.yaml")
"$run" serve --config "$work/serve.yaml" 2> "$work/routed.log" &
routed_pid=$!
for _ in $(seq 1 100); do grep -q "serving " "$work/routed.log" 2>/dev/null && break; sleep 0.1; done
grep -q "serving " "$work/routed.log" || { cat "$work/routed.log" >&2; exit 1; }
routed_proxy_port=$(free_port) routed_upstream_port=$(free_port)
cat > "$work/routed-nginx.conf" <<CONF
daemon on;
master_process off;
pid $work/routed-nginx.pid;
error_log $work/routed-error.log;
events {}
http {
    access_log off;
    $temp_paths
    server {
        listen 127.0.0.1:$routed_proxy_port;
        location / {
            auth_request /_authz;
            auth_request_set \$route_admin \$upstream_http_x_route_admin;
            auth_request_set \$route_user \$upstream_http_x_route_user;
            proxy_set_header X-Route-Admin \$route_admin;
            proxy_set_header X-Route-User \$route_user;
            proxy_pass http://127.0.0.1:$routed_upstream_port;
        }
        location = /_authz {
            internal;
            proxy_pass http://127.0.0.1:$routed_port/v1/authz;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header X-Forwarded-Method \$request_method;
            proxy_set_header X-Forwarded-Proto \$scheme;
            proxy_set_header X-Forwarded-Uri \$request_uri;
            proxy_set_header X-Forwarded-Host \$host;
        }
    }
    server {
        listen 127.0.0.1:$routed_upstream_port;
        location / { return 200 "uri=\$uri admin=\$http_x_route_admin user=\$http_x_route_user\n"; }
    }
}
CONF
start_nginx "$work/routed-nginx.conf" "$work/routed-nginx.pid"
for spelling in /admin/users /orders/1 /public/x /%61dmin/users //admin/users /./admin/users /public/../admin/users \
                /public/%2e%2e/admin/users /public/%2E%2E/admin/users /admin/%2e/users /admin//users /admin%2Fusers \
                /public%2F..%2Fadmin/users /admin\;x/users "/admin;jsessionid=1" "/public/..;/admin/users" "/.;/admin/users" \
                /admin%3Bx/users /ADMIN/users /admin%20/users /.. /public/../../admin/users; do
    answer=$(curl -s --path-as-is -H "Authorization: Bearer $both_scopes" -w ' %{http_code}' "http://127.0.0.1:$routed_proxy_port$spelling")
    code=${answer##* }
    if [ "$code" != 200 ]; then
        passed=$((passed + 1)); printf 'ok    %-34s %s  refused before the upstream\n' "route $spelling" "$code"
        continue
    fi
    uri=$(printf '%s' "$answer" | sed -n 's/^uri=\([^ ]*\) .*/\1/p')
    chose=$(printf '%s' "$answer" | grep -q 'admin=alice' && echo admin || echo api)
    served=$(case "$uri" in /admin/*) echo admin ;; *) echo api ;; esac)
    if [ "$chose" = "$served" ]; then
        passed=$((passed + 1)); printf 'ok    %-34s %s  routed %s, upstream served %s\n' "route $spelling" "$code" "$chose" "$uri"
    else
        failed=$((failed + 1)); printf 'FAIL  %-34s routed %s, but the upstream served %s (%s)\n' "route $spelling" "$chose" "$uri" "$answer"
    fi
done
kill "$(cat "$work/routed-nginx.pid")" "$routed_pid" 2>/dev/null || true

# Sender-constrained tokens through nginx: a DPoP-bound request (RFC 9449) and a
# certificate-bound one over a client-certificate listener (RFC 8705), each with its tampered
# variants. Keys, certificates, tokens and proofs are made by openssl and Python's cryptography.
bound_proxy_port=$(free_port)
bound_tls_port=$(free_port)
bound_upstream_port=$(free_port)
bound_port=$(free_port)
mkdir -p "$work/bound" "$work/bound-policies"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=test-client-ca \
    -keyout "$work/bound/ca.key" -out "$work/bound/ca.pem" 2>/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$work/bound/server.key" -out "$work/bound/server.pem" 2>/dev/null
for client in alice mallory; do
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$client" \
        -keyout "$work/bound/$client.key" -out "$work/bound/$client.csr" 2>/dev/null
    openssl x509 -req -in "$work/bound/$client.csr" -CA "$work/bound/ca.pem" -CAkey "$work/bound/ca.key" -CAcreateserial -days 2 \
        -out "$work/bound/$client.pem" 2>/dev/null
done
cat > "$work/bound/mint.py" <<'PY'
import base64, hashlib, hmac, json, os, sys, time, uuid
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
b64 = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
work, what = sys.argv[1], sys.argv[2]
key = base64.urlsafe_b64decode(os.environ["NGINX_TEST_KEY"] + "==")
def token(cnf):
    now = int(time.time())
    claims = {"iss": "https://issuer.example", "aud": "api", "sub": "alice", "iat": now - 60, "exp": now + 600, "cnf": cnf}
    signing_input = b64(json.dumps({"alg": "HS256", "typ": "at+jwt"}).encode()) + "." + b64(json.dumps(claims).encode())
    return signing_input + "." + b64(hmac.new(key, signing_input.encode(), hashlib.sha256).digest())
client_path = os.path.join(work, "dpop-client.pem")
if not os.path.exists(client_path):
    open(client_path, "wb").write(ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
client = serialization.load_pem_private_key(open(client_path, "rb").read(), None)
numbers = client.public_key().public_numbers()
jwk = {"crv": "P-256", "kty": "EC", "x": b64(numbers.x.to_bytes(32, "big")), "y": b64(numbers.y.to_bytes(32, "big"))}
jkt = b64(hashlib.sha256(json.dumps(jwk, separators=(",", ":"), sort_keys=True).encode()).digest())
if what == "dpop-token":
    print(token({"jkt": jkt}))
elif what == "certificate-token":
    der = x509.load_pem_x509_certificate(open(sys.argv[3], "rb").read()).public_bytes(serialization.Encoding.DER)
    print(token({"x5t#S256": b64(hashlib.sha256(der).digest())}))
else:
    method, url, access_token = sys.argv[3], sys.argv[4], sys.argv[5]
    claims = {"jti": str(uuid.uuid4()), "htm": method, "htu": url, "iat": int(time.time()),
              "ath": b64(hashlib.sha256(access_token.encode()).digest())}
    signing_input = b64(json.dumps({"typ": "dpop+jwt", "alg": "ES256", "jwk": jwk}).encode()) + "." + b64(json.dumps(claims).encode())
    r, s = decode_dss_signature(client.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    print(signing_input + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big")))
PY
mint() { python3 "$work/bound/mint.py" "$work/bound" "$@"; }
cat > "$work/bound-policies/dpop-orders.yaml" <<YAML
policy: dpop-orders
token:
  algorithms: [HS256]
  keys: {secret: '\${env:NGINX_TEST_KEY}'}
  issuer: https://issuer.example
  audience: api
request:
  dpop: {algorithms: [ES256], origins: ['http://127.0.0.1:$bound_proxy_port']}
outputs:
  user: claims.sub
YAML
cat > "$work/bound-policies/mtls-orders.yaml" <<'YAML'
policy: mtls-orders
token:
  algorithms: [HS256]
  keys: {secret: '${env:NGINX_TEST_KEY}'}
  issuer: https://issuer.example
  audience: api
request:
  certificate_binding: {header: X-Client-Cert}
outputs:
  user: claims.sub
YAML
"$run" serve --policies "$work/bound-policies" --listen "127.0.0.1:$bound_port" 2> "$work/bound-serve.log" &
bound_pid=$!
for _ in $(seq 1 100); do grep -q "serving " "$work/bound-serve.log" 2>/dev/null && break; sleep 0.1; done
grep -q "serving " "$work/bound-serve.log" || { cat "$work/bound-serve.log" >&2; exit 1; }
authz_location() {
    cat <<CONF
        location = /_authz {
            internal;
            proxy_pass http://127.0.0.1:$bound_port/v1/authz/$1;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header X-Forwarded-Method \$request_method;
            proxy_set_header X-Forwarded-Proto \$scheme;
            proxy_set_header X-Forwarded-Uri \$request_uri;
            proxy_set_header X-Forwarded-Host \$host;
            proxy_set_header X-Client-Cert \$ssl_client_escaped_cert;
        }
        location / {
            auth_request /_authz;
            auth_request_set \$user \$upstream_http_x_auth_user;
            auth_request_set \$challenge \$upstream_http_www_authenticate;
            add_header WWW-Authenticate \$challenge always;
            proxy_set_header X-User \$user;
            proxy_pass http://127.0.0.1:$bound_upstream_port;
        }
CONF
}
cat > "$work/bound-nginx.conf" <<CONF
daemon on;
master_process off;
pid $work/bound-nginx.pid;
error_log $work/bound-error.log;
events {}
http {
    access_log $work/bound-access.log;
    $temp_paths
    server {
        listen 127.0.0.1:$bound_proxy_port;
$(authz_location dpop-orders)
        location /plain/ {
            auth_request /_mtls;
            proxy_pass http://127.0.0.1:$bound_upstream_port;
        }
        location = /_mtls {
            internal;
            proxy_pass http://127.0.0.1:$bound_port/v1/authz/mtls-orders;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header X-Forwarded-Uri \$request_uri;
            proxy_set_header X-Client-Cert \$ssl_client_escaped_cert;
        }
    }
    server {
        listen 127.0.0.1:$bound_tls_port ssl;
        ssl_certificate $work/bound/server.pem;
        ssl_certificate_key $work/bound/server.key;
        ssl_client_certificate $work/bound/ca.pem;
        ssl_verify_client on;
$(authz_location mtls-orders)
    }
    server {
        listen 127.0.0.1:$bound_upstream_port;
        location / { return 200 "upstream: \$request_method \$request_uri for user \$http_x_user\n"; }
    }
}
CONF
start_nginx "$work/bound-nginx.conf" "$work/bound-nginx.pid"
dpop_url="http://127.0.0.1:$bound_proxy_port/orders/42"
dpop_token=$(mint dpop-token)
proof=$(mint proof GET "$dpop_url" "$dpop_token")
answer "DPoP-bound request" 200 "for user alice" "$dpop_url?view=full" -H "Authorization: DPoP $dpop_token" -H "DPoP: $proof"
answer "DPoP proof replayed" 401 'error="invalid_dpop_proof", error_description="dpop_proof_replayed"' "$dpop_url" \
    -H "Authorization: DPoP $dpop_token" -H "DPoP: $proof"
answer "DPoP proof for another method" 401 'dpop_htm_mismatch' "$dpop_url" -X DELETE \
    -H "Authorization: DPoP $dpop_token" -H "DPoP: $(mint proof GET "$dpop_url" "$dpop_token")"
answer "DPoP proof for another URL" 401 'dpop_htu_mismatch' "$dpop_url" \
    -H "Authorization: DPoP $dpop_token" -H "DPoP: $(mint proof GET "http://127.0.0.1:$bound_proxy_port/admin" "$dpop_token")"
answer "DPoP-bound token as a bearer token" 401 'dpop_proof_missing' "$dpop_url" -H "Authorization: Bearer $dpop_token"
answer "DPoP token without a proof" 401 'DPoP error="invalid_dpop_proof", error_description="dpop_proof_missing"' "$dpop_url" \
    -H "Authorization: DPoP $dpop_token"
mtls_url="https://127.0.0.1:$bound_tls_port/orders/42"
certificate_token=$(mint certificate-token "$work/bound/alice.pem")
answer "certificate-bound request" 200 "for user alice" "$mtls_url" --cacert "$work/bound/server.pem" \
    --cert "$work/bound/alice.pem" --key "$work/bound/alice.key" -H "Authorization: Bearer $certificate_token"
answer "bound token, another certificate" 401 'certificate_binding_mismatch' "$mtls_url" --cacert "$work/bound/server.pem" \
    --cert "$work/bound/mallory.pem" --key "$work/bound/mallory.key" -H "Authorization: Bearer $certificate_token"
answer "no client certificate at all" 400 "" "$mtls_url" --cacert "$work/bound/server.pem" -H "Authorization: Bearer $certificate_token"
forged=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(open(sys.argv[1]).read(), safe=""))' "$work/bound/alice.pem")
answer "a forged X-Client-Cert over plain HTTP" 401 'client_certificate_missing' "http://127.0.0.1:$bound_proxy_port/plain/x" \
    -H "Authorization: Bearer $certificate_token" -H "X-Client-Cert: $forged"
kill "$(cat "$work/bound-nginx.pid")" "$bound_pid" 2>/dev/null || true

echo "proxy integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
