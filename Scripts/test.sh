#!/usr/bin/env bash
# Every test: the Swift test suite, then the policy tests of Policies/ with their coverage.
# The README's test command, and what .ci/run runs after installing the system libraries.
set -euo pipefail
cd "$(dirname "$0")/.."
swift test
swift run policy-run test --coverage Policies/
