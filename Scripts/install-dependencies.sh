#!/usr/bin/env bash
# Installs what is missing, as root on Debian: `main` the C libraries the package links (what the
# quickstart's check needs to build); `tests` those plus nginx, Caddy and ss for the forward-auth
# integration, and from PyPI jsonschema and PyYAML (the schema check), cryptography, and the
# Spark package (PySpark 4 with pyarrow and pandas). Run by Scripts/quickstart.sh and
# Scripts/test.sh; does nothing when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-tests}
packages=(libssl-dev libsodium-dev zlib1g-dev libre2-dev libcurl4-openssl-dev pkg-config)
[ "$what" = tests ] && packages+=(nginx-light caddy curl iproute2)
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}"
fi
if [ "$what" = tests ]; then
    # Each module checked: pyspark alone passes without the pyarrow and pandas mapInArrow needs.
    python3 -c 'import jsonschema, yaml, cryptography, pyspark, pyarrow, pandas, policy_spark' 2>/dev/null \
        || python3 -m pip install --quiet jsonschema pyyaml cryptography ./spark
fi
