#!/usr/bin/env bash
# Every test: the Swift test suite, the policy tests of Policies/ with their coverage, lint of
# every policy and test file, the policies and test files checked against schema/ by an
# independent validator (Python jsonschema), real nginx and Caddy in front of `policy-run serve`, two
# servers sharing a real PostgreSQL as their replay store, a
# real OpenID Provider (django-oauth-toolkit) on loopback whose tokens, callbacks and key rotation
# `policy-run` judges, the example package (a Hummingbird service, a custom rule) built and run
# against this checkout, policy_spark on a local[2] Spark against the policy-run built here, and
# the HTML reports and the playground (`policy-run play`) in headless Chromium (screenshots in
# artifacts/browser-screenshots).
# The README's test command, and what .ci/run runs; it installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-dependencies.sh tests
swift test
# Every public declaration of what a service imports is documented; the counts are printed.
python3 Scripts/count-public-declarations.py Sources/PolicyJOSE Sources/PolicyRuntime Sources/PolicyEngine Sources/Rules
swift run policy-run test --coverage Policies/
swift run policy-run lint Policies/*.yaml
python3 Scripts/validate-schemas.py
bash Scripts/proxy-integration.sh
bash Scripts/replay-store-integration.sh
POLICY_RUN="$(swift build --show-bin-path)/policy-run" bash Scripts/oidc-provider-integration.sh
POLICY_RUN="$(swift build --show-bin-path)/policy-run" PYTHONPATH=spark:spark/tests \
    python3 -m unittest discover --start-directory spark/tests --top-level-directory spark/tests
POLICY_RUN="$(swift build --show-bin-path)/policy-run" python3 -m unittest discover --start-directory Tests/Browser --top-level-directory Tests/Browser
# The examples build against this checkout as another package would (their own build folder),
# and the custom rule decides two tokens: what they use stays public.
swift build --package-path Examples/hummingbird-service --scratch-path .build-examples
swift run --package-path Examples/hummingbird-service --scratch-path .build-examples --skip-build TenantRule
