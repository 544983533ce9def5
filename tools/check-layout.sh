#!/bin/sh
# check-layout.sh - the layout keeps telling the architecture (make check-core
# runs it): no folder holds more than 16 .c files, no .c file is longer than
# 900 lines, core/ and app/session/ include no SDL, core/ never exits or
# aborts, no view includes the window's headers, and the platform layer
# includes nothing above it (the App, the views, the session, the CLI). Prints each breach and
# fails if there is one.
bad=0
say() { echo "layout: $*"; bad=1; }

for d in $(find core app tests -type d); do
    n=$(find "$d" -maxdepth 1 -name '*.c' | wc -l)
    [ "$n" -le 16 ] || say "$d holds $n .c files (at most 16)"
done
for f in $(find core app tests -name '*.c'); do
    n=$(wc -l < "$f")
    [ "$n" -le 900 ] || say "$f has $n lines (at most 900)"
done
grep -rlE '#include *[<"]SDL' core app/session 2>/dev/null | while read -r f; do
    echo "layout: $f includes SDL (core/ and app/session/ never do)"; done | grep . && bad=1
grep -rnE '[^_a-z]exit *\(|[^_a-z]abort *\(' core | grep -v '^\s*/\?\*' | grep . &&
    say "core/ must not exit or abort"
for h in app.h panels.h host.h; do
    grep -rl "#include \"$h\"" app/views 2>/dev/null | while read -r f; do
        echo "layout: $f includes the window's $h"; done | grep . && bad=1
done
for h in cli.h gui.h commands.h; do
    grep -rl "#include \"$h\"" app/window 2>/dev/null | while read -r f; do
        echo "layout: $f (the window) includes the command line's $h"; done | grep . && bad=1
done
for h in app.h panels.h host.h view.h session.h cli.h gui.h lesson.h; do
    grep -rl "#include \"$h\"" app/platform 2>/dev/null | while read -r f; do
        echo "layout: $f (the platform layer) includes $h from above it"; done | grep . && bad=1
done
exit $bad
