#!/usr/bin/env bash
# Generates the example test keys in this folder (see README.md: test keys only).
# Existing keys are kept, so the signed examples stay valid; delete a key's files to renew it
# and then run ../examples/make-sample-tokens.sh.
set -euo pipefail
cd "$(dirname "$0")"

# $1 name, $2.. genpkey options
generate() {
    local name=$1; shift
    [[ -f $name.key.pem ]] && return
    openssl genpkey "$@" -out "$name.key.pem"
    openssl pkey -in "$name.key.pem" -pubout -out "$name.pub.pem"
}

generate test-rs256 -algorithm RSA -pkeyopt rsa_keygen_bits:2048
generate test-es256 -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -pkeyopt ec_param_enc:named_curve
generate test-bp256r1 -algorithm EC -pkeyopt ec_paramgen_curve:brainpoolP256r1 -pkeyopt ec_param_enc:named_curve
# The tenant key Authentication Hub clients encrypt request fields to (RSA-OAEP-256).
generate test-tenant-enc -algorithm RSA -pkeyopt rsa_keygen_bits:2048
# gematik's IDP (all BP256R1): its token signing key (puk_idp_sig), the key clients encrypt to
# (puk_idp_enc), and the authentication keys of two smart cards: an insured's eGK (C.CH.AUT)
# and a practice's SMC-B (C.HCI.AUT), whose certificates make-test-certificates.py issues.
for name in test-idp-sig test-idp-enc test-egk-aut test-smcb-aut; do
    generate $name -algorithm EC -pkeyopt ec_paramgen_curve:brainpoolP256r1 -pkeyopt ec_param_enc:named_curve
done
# The IDP's own AES-256 key for its SSO tokens (JWE dir, A256GCM), which only the IDP reads.
[[ -f test-idp-sso.jwks.json ]] || python3 -c '
import base64, json, os
print(json.dumps({"keys": [{"kty": "oct", "kid": "idp-sso", "use": "enc", "alg": "dir",
                            "k": base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()}]}, indent=2))
' > test-idp-sso.jwks.json

# The RSA and P-256 public keys as JWK Sets with their kid, as an identity provider publishes them.
# (gematik publishes its brainpool discovery key as a certificate, so that one stays PEM.)
n=$(openssl rsa -pubin -in test-rs256.pub.pem -modulus -noout | cut -d= -f2)
python3 - "$n" > test-rs256.jwks.json <<'PY'
import base64, json, sys
b64url = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
n = bytes.fromhex(sys.argv[1])
print(json.dumps({"keys": [{"kty": "RSA", "kid": "test-rs256", "use": "sig", "alg": "RS256", "n": b64url(n), "e": "AQAB"}]}, indent=2))
PY
openssl pkey -pubin -in test-es256.pub.pem -outform DER | python3 -c '
import base64, json, sys
b64url = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
point = sys.stdin.buffer.read()[-65:]   # the uncompressed point 04 || x || y ends the SubjectPublicKeyInfo
assert point[0] == 4
print(json.dumps({"keys": [{"kty": "EC", "kid": "test-es256", "use": "sig", "alg": "ES256", "crv": "P-256",
                            "x": b64url(point[1:33]), "y": b64url(point[33:])}]}, indent=2))
' > test-es256.jwks.json
