#!/usr/bin/env bash
# Generates the example test keys in this folder (see README.md: test keys only).
set -euo pipefail
cd "$(dirname "$0")"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out test-rs256.key.pem
openssl pkey -in test-rs256.key.pem -pubout -out test-rs256.pub.pem
