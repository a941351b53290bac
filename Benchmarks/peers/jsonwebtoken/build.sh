#!/usr/bin/env bash
# build.sh TARGET_DIR — builds jsonwebtoken-peer with Debian's Rust toolchain and Debian's crate
# sources (offline), installing those packages first when any is missing. The last line on stdout
# is the absolute path of the binary. On failure: one line on stderr, non-zero exit.
set -euo pipefail

die() { echo "jsonwebtoken-peer build: $*" >&2; exit 1; }

[ $# -eq 1 ] && [ -n "$1" ] || die "usage: build.sh TARGET_DIR"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$1" || die "cannot create target directory $1"
target_dir="$(cd "$1" && pwd)"

# Debian's toolchain only (rustc 1.63, cargo 0.66 in bookworm), never a rustup one on PATH.
export PATH="/usr/bin:/bin:/usr/sbin:/sbin${PATH:+:$PATH}"
export RUSTC=/usr/bin/rustc CARGO=/usr/bin/cargo
# A CARGO_HOME of our own: no ~/.cargo/config.toml (a rustup install's) can redirect the build.
export CARGO_HOME="$target_dir/cargo-home"
unset RUSTUP_TOOLCHAIN RUSTC_WRAPPER CARGO_BUILD_RUSTC CARGO_BUILD_RUSTC_WRAPPER CARGO_BUILD_TARGET CARGO_TARGET_DIR RUSTFLAGS 2>/dev/null || true

packages=(cargo rustc librust-jsonwebtoken-dev librust-serde-json-dev librust-serde-dev
          "librust-serde+serde-derive-dev" librust-base64-dev)
missing=()
for package in "${packages[@]}"; do
    status="$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)"
    [ "$status" = "install ok installed" ] || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" -eq 0 ] || die "not root, cannot install missing Debian packages: ${missing[*]}"
    apt_log="$target_dir/jsonwebtoken-peer-apt.log"
    apt-get update -q >"$apt_log" 2>&1 \
        || die "apt-get update failed: $(grep -E '^(E|W):' "$apt_log" | tail -n 1) (log: $apt_log)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$apt_log" 2>&1 \
        || die "apt-get install ${missing[*]} failed: $(grep -E '^E:' "$apt_log" | tail -n 1) (log: $apt_log)"
fi
[ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ] || die "Debian's /usr/bin/cargo or /usr/bin/rustc is missing after install"

# cargo reads .cargo/config.toml (crates.io replaced by /usr/share/cargo/registry) from the
# current directory upward: build from this folder.
cd "$here"
log="$target_dir/jsonwebtoken-peer-build.log"
if ! /usr/bin/cargo build --release --offline --manifest-path "$here/Cargo.toml" \
        --target-dir "$target_dir" >"$log" 2>&1; then
    rm -f "$here/Cargo.lock"
    die "cargo build failed: $(grep -m 1 -E '^error' "$log" || tail -n 1 "$log") (log: $log)"
fi
# A lock file for a build against one machine's registry is no part of the source.
rm -f "$here/Cargo.lock"

binary="$target_dir/release/jsonwebtoken-peer"
[ -x "$binary" ] || die "cargo succeeded but $binary is missing"
echo "$binary"
