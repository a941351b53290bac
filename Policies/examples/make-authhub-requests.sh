#!/usr/bin/env bash
# Makes the encrypted authhub-authenticate requests its test file reads (JWE is randomised, so
# they are generated once and committed). Needs a built policy-run: POLICY_RUN=path, or it uses
# .build/debug/policy-run from the repository root.
set -euo pipefail
cd "$(dirname "$0")"
run=${POLICY_RUN:-../../.build/debug/policy-run}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Policies differing from authhub-authenticate.yaml in one encryption setting, to make refusals.
variant() { sed "$1" ../authhub-authenticate.yaml > "$scratch/$2.yaml"; cp -r ../keys ../rfc9068-access-token.yaml "$scratch/"; }
variant 's/algorithms: \[RSA-OAEP-256\]/algorithms: [RSA-OAEP]/' other-alg
variant 's#key: {pem_file: keys/test-tenant-enc.key.pem}#key: {pem_file: keys/test-rs256.pub.pem}#' other-key
encrypt() { "$run" encrypt --policy "$1" --var server_nonce="$2" authhub-authenticate.request.json; }
encrypt ../authhub-authenticate.yaml Qm9uam91cg > authhub-authenticate.encrypted.json
encrypt ../authhub-authenticate.yaml b3RoZXI > authhub-authenticate.other-nonce.json
encrypt "$scratch/other-alg.yaml" Qm9uam91cg > authhub-authenticate.other-alg.json
encrypt "$scratch/other-key.yaml" Qm9uam91cg > authhub-authenticate.other-key.json
# Both fields' JWEs mark a header parameter critical that no one understands (the header is
# edited, so the JWE would not decrypt either: crit is refused before decryption is tried).
python3 - <<'PY'
import base64, json
def b64(data): return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
def unb64(text): return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
request = json.load(open("authhub-authenticate.encrypted.json"))
def with_crit(jwe):
    parts = jwe.split(".")
    header = json.loads(unb64(parts[0]))
    header.update({"crit": ["x-tenant-policy"], "x-tenant-policy": "strict"})
    parts[0] = b64(json.dumps(header, separators=(",", ":")).encode())
    return ".".join(parts)
body = request["body"]
body["password"] = with_crit(body["password"])
body["device"]["signature"]["iaAuthData"] = with_crit(body["device"]["signature"]["iaAuthData"])
json.dump(request, open("authhub-authenticate.crit.json", "w"), indent=2)
PY
