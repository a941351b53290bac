#!/usr/bin/env bash
# Builds the libFuzzer binary (release, AddressSanitizer, into .build-fuzz) and fuzzes one target.
#
#   Fuzz/run.sh TARGET SECONDS [libFuzzer options...]   fuzz TARGET for SECONDS
#   Fuzz/run.sh merge TARGET                              fold Fuzz/work/TARGET into the corpus, minimised
#   Fuzz/run.sh list                                      the targets
#   Fuzz/run.sh report                                    campaign totals per target
#
# New inputs go to Fuzz/work/TARGET (not committed); crashes to Fuzz/work/TARGET/crash-*. The
# committed seeds and corpus are in Fuzz/corpus/TARGET, the dictionary in Fuzz/dict/TARGET.dict.
# Each run's log is kept in Fuzz/work/logs and its figures appended to Fuzz/work/campaign.tsv
# (UTC start, target, seconds, executions, coverage edges, features, exit status), which
# `report` sums per target.
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
report)
    [[ -f Fuzz/work/campaign.tsv ]] || { echo "no campaign yet (Fuzz/work/campaign.tsv)" >&2; exit 1; }
    awk -F'\t' '{ runs[$2]++; secs[$2] += $3; execs[$2] += $4; if ($5+0 > cov[$2]) cov[$2] = $5+0; if ($6+0 > ft[$2]) ft[$2] = $6+0; if ($7 != 0) bad[$2]++ }
        END { printf "%-9s %5s %8s %12s %6s %7s %s\n", "target", "runs", "seconds", "executions", "cov", "ft", "ended early (crash, timeout, interrupted)";
              for (t in runs) printf "%-9s %5d %8d %12d %6d %7d %d\n", t, runs[t], secs[t], execs[t], cov[t], ft[t], bad[t] }' Fuzz/work/campaign.tsv
    ;;
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
    mkdir -p "Fuzz/work/$target" Fuzz/work/logs
    started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    log="Fuzz/work/logs/$target-$started.log"
    clock=$SECONDS
    set +e
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 POLICY_FUZZ_TARGET=$target .build-fuzz/release/PolicyFuzz -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=0 \
        -max_len=70000 -dict="Fuzz/dict/$target.dict" -artifact_prefix="Fuzz/work/$target/" -print_final_stats=1 "$@" \
        "Fuzz/work/$target" "Fuzz/corpus/$target" 2> >(tee "$log" >&2)
    status=$?
    set -e
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    coverage=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1 | awk '{print $2 "\t" $4}')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$started" "$target" "$((SECONDS - clock))" "${executions:-?}" "${coverage:-?\t?}" "$status" >>Fuzz/work/campaign.tsv
    exit "$status"
    ;;
esac
