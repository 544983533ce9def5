#!/bin/sh
# run-fuzz.sh SECONDS BIN... - run each libFuzzer target for SECONDS on a
# scratch copy of its seed corpus (tests/fuzz/corpus_NAME), so the committed
# corpus is not modified. Fails if any target finds a crash.
set -e
secs=$1
shift
status=0
for bin in "$@"; do
    name=$(basename "$bin" | sed 's/^fuzz_//')
    work=$(mktemp -d)
    if [ -d "tests/fuzz/corpus_$name" ]; then
        cp -r "tests/fuzz/corpus_$name/." "$work/"
    fi
    echo "fuzzing $name for ${secs}s"
    if ! "$bin" -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=512 \
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
