#!/usr/bin/env bash
# Load benchmark of `policy-serve` behind the proxies docs/serve.md configures (a benchmark, not
# a test): wrk on loopback against nginx (auth_request) and Caddy (forward_auth), each in front
# of a trivial upstream, with one RS256 access token repeated. Each proxy is measured without
# asking the server (its own ceiling), asking it with a new connection per call, and asking it
# over kept-alive upstream connections, in the same run; prints a Markdown table with each rate
# as a ratio of that proxy's ceiling, and the TCP connections opened per 1,000 calls (each one
# closed leaves a socket in TIME_WAIT for a minute).
#
# Needs: wrk, nginx (nginx-light), caddy, python3 with `cryptography`, and a release build
# (`swift build -c release --product policy-run --product policy-serve`). Usage:
#   [ROUNDS=3] Benchmarks/serve-proxy-load.sh [SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-64}
source Benchmarks/serve-prelude.sh
command -v nginx >/dev/null || { echo "nginx is not installed (apt-get install nginx-light)" >&2; exit 2; }
command -v caddy >/dev/null || { echo "caddy is not installed (apt-get install caddy)" >&2; exit 2; }

token=$(python3 Benchmarks/access-tokens.py 1)
serve_port=$(free_port)
"$run" serve --policies Policies --listen "127.0.0.1:$serve_port" 2> "$work/serve.log" &
pids+=($!)
for _ in $(seq 1 100); do grep -q "serving " "$work/serve.log" 2>/dev/null && break; sleep 0.1; done

upstream_port=$(free_port) plain_port=$(free_port) closing_port=$(free_port) keepalive_port=$(free_port)
authz_headers='proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header X-Forwarded-Method $request_method;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header X-Forwarded-Uri $request_uri;
            proxy_set_header X-Forwarded-Host $host;'
cat > "$work/nginx.conf" <<CONF
daemon on;
master_process off;
pid $work/nginx.pid;
error_log $work/error.log;
worker_rlimit_nofile 65536;
events { worker_connections 16384; }
http {
    access_log off;
    client_body_temp_path $work/body; proxy_temp_path $work/proxy; fastcgi_temp_path $work/fastcgi;
    uwsgi_temp_path $work/uwsgi; scgi_temp_path $work/scgi;
    upstream app { server 127.0.0.1:$upstream_port; keepalive 64; }
    upstream policy_serve { server 127.0.0.1:$serve_port; keepalive 64; }
    server {
        listen 127.0.0.1:$upstream_port;
        location / { return 200 "upstream\n"; }
    }
    # The proxy's ceiling: the upstream without asking the server.
    server {
        listen 127.0.0.1:$plain_port;
        location / { proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
    # A new connection to the server for every call (nginx's default for proxy_pass to an address).
    server {
        listen 127.0.0.1:$closing_port;
        location / { auth_request /_authz; proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection ""; }
        location = /_authz {
            internal;
            proxy_pass http://127.0.0.1:$serve_port/v1/authz/rfc9068-access-token;
            $authz_headers
        }
    }
    # As docs/serve.md writes it: an upstream block with keepalive, HTTP/1.1, no Connection header.
    server {
        listen 127.0.0.1:$keepalive_port;
        location / { auth_request /_authz; proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection ""; }
        location = /_authz {
            internal;
            proxy_pass http://policy_serve/v1/authz/rfc9068-access-token;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            $authz_headers
        }
    }
}
CONF
nginx -c "$work/nginx.conf" -p "$work"
for _ in $(seq 1 50); do [ -f "$work/nginx.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$work/nginx.pid")")

caddy_plain=$(free_port) caddy_auth=$(free_port)
cat > "$work/Caddyfile" <<CONF
{
    admin off
    auto_https off
    storage file_system $work/caddy
}
http://127.0.0.1:$caddy_plain {
    reverse_proxy 127.0.0.1:$upstream_port
}
http://127.0.0.1:$caddy_auth {
    forward_auth 127.0.0.1:$serve_port {
        uri /v1/authz/rfc9068-access-token
        copy_headers X-Auth-Sub
    }
    reverse_proxy 127.0.0.1:$upstream_port
}
CONF
HOME=$work XDG_DATA_HOME=$work XDG_CONFIG_HOME=$work caddy run --config "$work/Caddyfile" --adapter caddyfile > "$work/caddy.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$caddy_auth/" && break; sleep 0.1; done

for port in "$closing_port" "$keepalive_port" "$caddy_auth"; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "http://127.0.0.1:$port/orders/1")" = 200 ] \
        || { echo "the proxy on $port does not answer 200 with the token" >&2; exit 1; }
done

# TCP connections accepted on this machine so far (every listener: wrk's to the proxy, the
# proxy's to the server and to the upstream).
accepted() { awk '$1 == "Tcp:" && $2 ~ /^[0-9]/ {print $7}' /proc/net/snmp; }
# measure NAME URL → "NAME|rate|p50|p99|errors|connections accepted per 1,000 calls"
measure() {
    local name=$1 url=$2 out before
    before=$(accepted)
    out=$(wrk -t2 -c"$connections" -d"${seconds}s" --latency -H "Authorization: Bearer $token" "$url")
    local opened=$(( $(accepted) - before ))
    local calls
    calls=$(echo "$out" | awk '/requests in/ {print $1}')
    echo "$(summarize "$name" "$out")|$(( opened * 1000 / (calls > 0 ? calls : 1) ))"
}
rounds=${ROUNDS:-3}
names=("nginx, no auth (its ceiling)" "nginx auth_request, a connection per call" "nginx auth_request, upstream keepalive (docs/serve.md)"
       "Caddy, no auth (its ceiling)" "Caddy forward_auth (keeps connections alive by default)")
urls=("http://127.0.0.1:$plain_port/orders/1" "http://127.0.0.1:$closing_port/orders/1" "http://127.0.0.1:$keepalive_port/orders/1"
      "http://127.0.0.1:$caddy_plain/orders/1" "http://127.0.0.1:$caddy_auth/orders/1")
ceilings=(0 0 0 3 3)
: > "$work/rounds"
for round in $(seq 1 "$rounds"); do
    for i in "${!names[@]}"; do
        echo "$i|$(measure "${names[$i]}" "${urls[$i]}")" >> "$work/rounds"
    done
done
echo "| proxy path | req/s (median of $rounds) | of the proxy's ceiling | p50 | p99 | errors | connections opened per 1,000 calls |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for i in "${!names[@]}"; do
    median=$(awk -F'|' -v i="$i" '$1 == i' "$work/rounds" | sort -t'|' -k3 -g | awk -v n="$rounds" 'NR == int((n + 1) / 2)')
    ceiling=$(awk -F'|' -v i="${ceilings[$i]}" '$1 == i' "$work/rounds" | sort -t'|' -k3 -g | awk -F'|' -v n="$rounds" 'NR == int((n + 1) / 2) {print $3}')
    IFS='|' read -r _ name rate p50 p99 errors waiting <<< "$median"
    printf '| %s | %.0f | %.2f | %s | %s | %s | %s |\n' "$name" "$rate" "$(echo "$rate / $ceiling" | bc -l)" "$p50" "$p99" "$errors" "$waiting"
done
