#!/usr/bin/env bash
# Builds the libFuzzer binary (release, AddressSanitizer, into .build-fuzz) and fuzzes one target.
#
#   Fuzz/run.sh TARGET SECONDS [libFuzzer options...]   fuzz TARGET for SECONDS
#   Fuzz/run.sh merge TARGET                              fold Fuzz/work/TARGET into the corpus, minimised
#   Fuzz/run.sh list                                      the targets
#
# New inputs go to Fuzz/work/TARGET (not committed); crashes to Fuzz/work/TARGET/crash-*. The
# committed seeds and corpus are in Fuzz/corpus/TARGET, the dictionary in Fuzz/dict/TARGET.dict.
# `swift test` replays every committed input without mutation.
#
# LeakSanitizer is off (-detect_leaks=0): Swift keeps pointers in the spare bits of enum
# payloads (the compiled chain's indirect cases), which it cannot see, so a policy held in a
# static reads as leaked. Memory that grows per input still stops the run at -rss_limit_mb.
set -euo pipefail
cd "$(dirname "$0")/.."
targets="token jwks json policy request callback batch"

build() {
    swift build --product PolicyFuzz --scratch-path .build-fuzz -c release \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DFUZZING >&2
}

case "${1:-}" in
list) echo "$targets" ;;
merge)
    target=${2:?target}
    build
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 POLICY_FUZZ_TARGET=$target .build-fuzz/release/PolicyFuzz -merge=1 -rss_limit_mb=2048 -detect_leaks=0 "Fuzz/corpus/$target" "Fuzz/work/$target"
    ;;
"") echo "usage: Fuzz/run.sh TARGET SECONDS [libFuzzer options] | merge TARGET | list" >&2; exit 2 ;;
*)
    target=$1
    seconds=${2:?seconds}
    shift 2
    [[ " $targets " == *" $target "* ]] || { echo "unknown target '$target'; one of: $targets" >&2; exit 2; }
    build
    mkdir -p "Fuzz/work/$target"
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 POLICY_FUZZ_TARGET=$target exec .build-fuzz/release/PolicyFuzz -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=0 \
        -max_len=70000 -dict="Fuzz/dict/$target.dict" -artifact_prefix="Fuzz/work/$target/" -print_final_stats=1 "$@" \
        "Fuzz/work/$target" "Fuzz/corpus/$target"
    ;;
esac
