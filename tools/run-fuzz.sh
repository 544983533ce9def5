#!/bin/sh
# run-fuzz.sh [--runs N] SECONDS BIN... - run each libFuzzer target on a
# scratch copy of its seed corpus (tests/fuzz/corpus_NAME), so the committed
# corpus is not modified. Fails if any target finds a crash.
#
# By default each target runs for SECONDS with a random seed (make fuzz:
# exploring). With --runs N it runs N inputs from seed 1 instead, the same
# inputs on every machine with this compiler (CI: a failure there is a
# failure here, reproducible with the same command); SECONDS then caps the
# time only.
set -e
runs=
if [ "$1" = "--runs" ]; then
    runs=$2
    shift 2
fi
secs=$1
shift
status=0
for bin in "$@"; do
    name=$(basename "$bin" | sed 's/^fuzz_//')
    work=$(mktemp -d)
    if [ -d "tests/fuzz/corpus_$name" ]; then
        cp -r "tests/fuzz/corpus_$name/." "$work/"
    fi
    if [ -n "$runs" ]; then
        how="-seed=1 -runs=$runs"
        echo "fuzzing $name: $runs inputs from seed 1 (at most ${secs}s)"
    else
        how=
        echo "fuzzing $name for ${secs}s"
    fi
    # shellcheck disable=SC2086
    if ! "$bin" -max_total_time="$secs" $how -rss_limit_mb=2048 -malloc_limit_mb=512 \
        -max_len=16384 -print_final_stats=1 -artifact_prefix="build/fuzz/$name-" \
        "$work" >"build/fuzz/$name.log" 2>&1; then
        tail -40 "build/fuzz/$name.log"
        echo "fuzz $name: FAILED (artifacts in build/fuzz/)"
        status=1
    else
        grep -E "stat::number_of_executed_units|cov:" "build/fuzz/$name.log" | tail -2
        echo "fuzz $name: ok"
    fi
    rm -rf "$work"
done
exit $status
