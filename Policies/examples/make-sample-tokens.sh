#!/usr/bin/env bash
# Mints the sample tokens in this folder with the test keys of ../keys, using openssl (and python3
# to turn ECDSA's DER signatures into the raw r || s that JWS uses). Every sample is valid at
# 2026-11-21T09:30:00Z with the inputs its policy's comment names.
set -euo pipefail
cd "$(dirname "$0")"
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
# DER ECDSA-Sig-Value on stdin → r || s, each left-padded to $1 bytes.
der_to_raw() {
    python3 -c '
import sys
der, size = sys.stdin.buffer.read(), int(sys.argv[1])
def integer(at):
    assert der[at] == 2
    length = der[at + 1]
    return der[at + 2:at + 2 + length], at + 2 + length
assert der[0] == 0x30 and der[1] < 0x80
r, at = integer(2)
s, _ = integer(at)
sys.stdout.buffer.write(b"".join(v.lstrip(b"\0").rjust(size, b"\0") for v in (r, s)))
' "$1"
}
# $1 header JSON, $2 claims JSON, $3 key, $4 rsa | ec → compact JWS on stdout
sign() {
    local input signature
    input="$(printf '%s' "$1" | b64url).$(printf '%s' "$2" | b64url)"
    if [[ $4 == rsa ]]; then
        signature=$(printf '%s' "$input" | openssl dgst -sha256 -sign "$3" | b64url)
    else
        signature=$(printf '%s' "$input" | openssl dgst -sha256 -sign "$3" | der_to_raw 32 | b64url)
    fi
    printf '%s.%s\n' "$input" "$signature"
}

# okta-id-token (--var nonce=n-0S6_WzA2Mj); iat 2026-11-21T09:00:00Z, valid for an hour.
sign '{"alg":"RS256","typ":"JWT","kid":"test-rs256"}' \
     '{"iss":"https://dev-123.okta.com/oauth2/default","sub":"00u1a2b3c4d5e6f7g8","aud":"0oa1b2c3d4","iat":1795251600,"exp":1795255200,"nonce":"n-0S6_WzA2Mj","auth_time":1795251590,"amr":["pwd","mfa"]}' \
     ../keys/test-rs256.key.pem rsa > sample-id-token.jwt

# rfc9068-access-token (no inputs needed; --var required_scope=orders:read also passes).
sign '{"alg":"RS256","typ":"at+jwt","kid":"test-rs256"}' \
     '{"iss":"https://auth.example.com/","sub":"5ba552d67","aud":"https://api.example.com","client_id":"s6BhdRkqt3","scope":"openid orders:read","jti":"dbe39bf3a3ba4238a513f51d6e1691c4","iat":1795251600,"exp":1795255200,"auth_time":1795251590}' \
     ../keys/test-rs256.key.pem rsa > sample-access-token.jwt

# id-token-with-code (--var nonce=n-0S6_WzA2Mj --var auth_code=SplxlOBeZQQYbYS6WxSbIA).
c_hash=$(printf '%s' SplxlOBeZQQYbYS6WxSbIA | openssl dgst -sha256 -binary | head -c 16 | b64url)
sign '{"alg":"ES256","typ":"JWT","kid":"test-es256"}' \
     '{"iss":"https://accounts.example.com","sub":"248289761001","aud":"com.example.ios","iat":1795251600,"exp":1795255200,"nonce":"n-0S6_WzA2Mj","c_hash":"'"$c_hash"'"}' \
     ../keys/test-es256.key.pem ec > sample-id-token-with-code.jwt

# gematik-discovery-document (no inputs); iat 2026-11-21T00:00:00Z, valid for 24 hours.
# Its header carries the signer's certificate (../keys/test-bp256r1.cert.pem) in x5c.
x5c=$(grep -v -- ----- ../keys/test-bp256r1.cert.pem | tr -d '\n')
sign '{"alg":"BP256R1","typ":"JWT","kid":"puk_disc_sig","x5c":["'"$x5c"'"]}' \
     '{"iss":"https://idp.example-ti.de","iat":1795219200,"exp":1795305600,"authorization_endpoint":"https://idp.example-ti.de/sign_response","sso_endpoint":"https://idp.example-ti.de/sso_response","token_endpoint":"https://idp.example-ti.de/token","uri_disc":"https://idp.example-ti.de/.well-known/openid-configuration","uri_puk_idp_enc":"https://idp.example-ti.de/idpEnc/jwk.json","uri_puk_idp_sig":"https://idp.example-ti.de/idpSig/jwk.json","jwks_uri":"https://idp.example-ti.de/jwks","subject_types_supported":["pairwise"],"id_token_signing_alg_values_supported":["BP256R1"],"response_types_supported":["code"],"scopes_supported":["openid","e-rezept"],"response_modes_supported":["query"],"grant_types_supported":["authorization_code"],"acr_values_supported":["gematik-ehealth-loa-high"],"token_endpoint_auth_methods_supported":["none"],"code_challenge_methods_supported":["S256"]}' \
     ../keys/test-bp256r1.key.pem ec > sample-discovery-document.jwt
