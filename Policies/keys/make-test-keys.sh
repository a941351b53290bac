#!/usr/bin/env bash
# Generates the example test keys in this folder (see README.md: test keys only).
set -euo pipefail
cd "$(dirname "$0")"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out test-rs256.key.pem
openssl pkey -in test-rs256.key.pem -pubout -out test-rs256.pub.pem
# The public key as a JWKS with its kid, as an identity provider publishes it.
n=$(openssl rsa -pubin -in test-rs256.pub.pem -modulus -noout | cut -d= -f2)
python3 - "$n" > test-rs256.jwks.json <<'PY'
import base64, json, sys
b64url = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
n = bytes.fromhex(sys.argv[1])
print(json.dumps({"keys": [{"kty": "RSA", "kid": "test-rs256", "use": "sig", "alg": "RS256", "n": b64url(n), "e": "AQAB"}]}, indent=2))
PY
