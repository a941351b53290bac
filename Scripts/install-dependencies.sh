#!/usr/bin/env bash
# Installs what is missing, as root on Debian: `main` the C libraries the package links (what the
# quickstart's check needs to build); `tests` those plus nginx, Caddy and ss for the forward-auth
# integration, PostgreSQL for the shared replay store's, Chromium and its driver for the browser
# tests, and from PyPI jsonschema and PyYAML (the schema check), cryptography, the Spark
# package (PySpark 4 with pyarrow and pandas), django-oauth-toolkit, Authlib and waitress at
# pinned versions (the OpenID Provider integration), and Selenium (the browser tests). Run by Scripts/quickstart.sh and
# Scripts/test.sh; does nothing when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-tests}
packages=(libssl-dev libsodium-dev zlib1g-dev libre2-dev libcurl4-openssl-dev pkg-config)
[ "$what" = tests ] && packages+=(nginx-light caddy curl iproute2 postgresql chromium chromium-driver)
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
    # The OpenID Provider of Scripts/oidc-provider-integration.sh and its client, at exact versions:
    # django-oauth-toolkit with the Django, oauthlib and jwcrypto it builds ID tokens with, Authlib
    # (OAuth2Session) with its joserfc, and the waitress WSGI server.
    oidc_provider=(django-oauth-toolkit==3.4.1 django==5.2.19 oauthlib==4.0.1 jwcrypto==1.6.1
                   authlib==1.9.10 joserfc==1.8.0 waitress==3.0.2 selenium==4.51.0)
    # Each module checked: pyspark alone passes without the pyarrow and pandas mapInArrow needs;
    # the provider's packages by their installed versions.
    python3 -c 'import sys, importlib.metadata as metadata
import jsonschema, yaml, cryptography, pyspark, pyarrow, pandas, policy_spark, oauth2_provider, authlib, waitress, selenium
sys.exit(any(metadata.version(name) != version for name, version in (pin.split("==") for pin in sys.argv[1:])))' \
        "${oidc_provider[@]}" 2>/dev/null \
        || python3 -m pip install --quiet jsonschema pyyaml cryptography ./spark "${oidc_provider[@]}"
fi
