#!/bin/sh
# run-tests.sh BUILD [PROGRAM...] - run the given test programs (by default
# every BUILD/tests/test_*; the Makefile passes the ones its sources make, so
# a program left over from a renamed test does not run), TEST_JOBS at a time
# (default: the number of cores), then report them in sorted order: sum
# cmocka's verdicts and end with "N passed, N failed". A program that
# crashes, exits non-zero without a failed-test verdict, or prints no
# verdict at all counts as one failure. Output of failing programs is shown
# in full. Every test program uses files of its own process (tu_tmp), so
# they can run side by side.
build=${1:-build}
[ $# -gt 0 ] && shift
programs=$*
[ -n "$programs" ] || programs=$(ls "$build"/tests/test_* 2>/dev/null | grep -v '\.d$')
export SDL_VIDEODRIVER=${SDL_VIDEODRIVER:-offscreen}
export SDL_AUDIODRIVER=dummy
# under SANITIZE=1: leaks of system libraries we cannot free (tests/lsan.supp)
supp=$(cd "$(dirname "$0")/.." && pwd)/tests/lsan.supp
[ -f "$supp" ] && export LSAN_OPTIONS="suppressions=$supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
# programs side by side: one OpenBLAS thread each, so they do not fight for the cores
[ "$jobs" -gt 1 ] && export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-2}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# each program's output in $logs/NAME.log and its exit status in NAME.rc
printf '%s\n' $programs | sort | while read -r t; do
    [ -x "$t" ] && echo "$t"
done | xargs -r -P "$jobs" -I{} sh -c \
    'n=$(basename "$1"); timeout 600 "$1" >"$2/$n.log" 2>&1; echo $? >"$2/$n.rc"' sh {} "$logs"

# The sum of cmocka's "[  PASSED  ] N test(s)" (or FAILED) lines in $1.
verdicts() {
    sed -n "s/^\[  $2  \] \([0-9]*\) test.*/\1/p" "$1" | awk '{s+=$1} END {print s+0}'
}

passed=0
failed=0
for t in $(printf '%s\n' $programs | sort); do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    log="$logs/$name.log"
    rc=$(cat "$logs/$name.rc" 2>/dev/null || echo 1)
    p=$(verdicts "$log" PASSED)
    f=$(verdicts "$log" FAILED)
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
