#!/usr/bin/env bash
# Mints the sample tokens in this folder with the test keys of ../keys, using only openssl.
set -euo pipefail
cd "$(dirname "$0")"
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }

header='{"alg":"RS256","typ":"JWT","kid":"test-rs256"}'
claims='{"iss":"https://dev-123.okta.com/oauth2/default","sub":"00u1a2b3c4d5e6f7g8","aud":"0oa1b2c3d4","iat":1795251600,"exp":1795255200,"nonce":"n-0S6_WzA2Mj","auth_time":1795251590,"amr":["pwd","mfa"]}'
signing_input="$(printf '%s' "$header" | b64url).$(printf '%s' "$claims" | b64url)"
signature=$(printf '%s' "$signing_input" | openssl dgst -sha256 -sign ../keys/test-rs256.key.pem | b64url)
printf '%s.%s\n' "$signing_input" "$signature" > sample-id-token.jwt
