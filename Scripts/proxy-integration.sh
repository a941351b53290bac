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
    rm -rf "$work"
}
trap cleanup EXIT

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
nginx -c "$work/nginx.conf" -p "$work"
for _ in $(seq 1 50); do [ -f "$work/nginx.pid" ] && break; sleep 0.1; done

passed=0 failed=0
# check NAME EXPECTED_STATUS EXPECTED_TEXT [curl arguments...], against $proxy_port
check() {
    local name=$1 status=$2 text=$3; shift 3
    local answer
    answer=$(curl -s -i "$@" "http://127.0.0.1:$proxy_port/orders/42?view=full")
    local got
    got=$(printf '%s' "$answer" | head -1 | awk '{print $2}')
    if [ "$got" = "$status" ] && printf '%s' "$answer" | grep -q -- "$text"; then
        passed=$((passed + 1)); printf 'ok    %-34s %s  %s\n' "$name" "$got" "$(printf '%s' "$answer" | grep -- "$text" | head -1 | tr -d '\r')"
    else
        failed=$((failed + 1)); printf 'FAIL  %-34s expected %s with "%s", got:\n%s\n' "$name" "$status" "$text" "$answer"
    fi
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
nginx -c "$work/routed-nginx.conf" -p "$work"
for _ in $(seq 1 50); do [ -f "$work/routed-nginx.pid" ] && break; sleep 0.1; done
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

echo "proxy integration: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
