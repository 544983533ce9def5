#!/bin/sh
# run-tests.sh BUILD [PROGRAM...] - run the given test programs (by default
# every BUILD/tests/test_*; the Makefile passes the ones its sources make, so
# a program left over from a renamed test does not run) in sorted order,
# sum cmocka's verdicts and end with "N passed, N failed". A program that
# crashes, exits non-zero without a failed-test verdict, or prints no
# verdict at all counts as one failure. Output of failing programs is shown
# in full.
build=${1:-build}
[ $# -gt 0 ] && shift
programs=$*
[ -n "$programs" ] || programs=$(ls "$build"/tests/test_* 2>/dev/null)
export SDL_VIDEODRIVER=${SDL_VIDEODRIVER:-offscreen}
export SDL_AUDIODRIVER=dummy
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-2}
passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# The sum of cmocka's "[  PASSED  ] N test(s)" (or FAILED) lines in $log.
verdicts() {
    sed -n "s/^\[  $1  \] \([0-9]*\) test.*/\1/p" "$log" | awk '{s+=$1} END {print s+0}'
}

for t in $(printf '%s\n' $programs | sort); do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    timeout 600 "$t" >"$log" 2>&1
    rc=$?
    p=$(verdicts PASSED)
    f=$(verdicts FAILED)
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
        echo "$name: exited with status $rc without a failed-test verdict"
    elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
        f=1
        echo "$name: printed no verdict"
    fi
    if [ "$f" -gt 0 ]; then
        cat "$log"
    fi
    printf '%-28s %4d passed %4d failed\n' "$name" "$p" "$f"
    passed=$((passed + p))
    failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
