#!/usr/bin/env bash
# The README's main command: installs what the package needs when it is missing, then checks the
# bundled sample ID token against the Okta policy at the token's own time.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-dependencies.sh main
swift run policy-run check --policy Policies/okta-id-token.yaml --var nonce=n-0S6_WzA2Mj --now 2026-11-21T09:30:00Z @Policies/examples/sample-id-token.jwt
