#!/bin/sh
# xvfb-responsive.sh - the real window under Xvfb, on a base-size model
# (512/8/2048/6+6, 37,000 tokens; random, so every greedy decoding runs to
# its maximum length), typed into with xdotool while it decodes. The window
# logs how long it went between two looks at its event queue
# (STEPFORMER_STALL_LOG, app/cli/cmd_gui.c): the longest any key press could
# have waited. Prints that JSON line and a screenshot's path.
#
# Usage: tools/xvfb-responsive.sh [build/stepformer] [seconds of typing]
# Needs: apt-get install xvfb xdotool x11-apps imagemagick (only for the
# screenshot). Not part of `make test`: it is a measurement, not a check.
set -eu
bin=${1:-build/stepformer}
secs=${2:-20}
dir=$(mktemp -d)
trap 'kill $xpid 2>/dev/null || true; rm -rf "$dir"' EXIT
for tool in Xvfb xdotool; do
    command -v $tool >/dev/null || { echo "xvfb-responsive: $tool is missing (apt-get install xvfb xdotool)" >&2; exit 1; }
done
"$bin" init --preset base --vocab 37000 --out "$dir/base.safetensors" >/dev/null
disp=:$((90 + $$ % 9))
Xvfb $disp -screen 0 1600x1000x24 >/dev/null 2>&1 &
xpid=$!
sleep 1
src=$(seq 4 33 | sed 's/^/t/' | tr '\n' ' ')
DISPLAY=$disp STEPFORMER_STALL_LOG="$dir/stall.json" "$bin" --model "$dir/base.safetensors" \
    --src "$src" --view decode >"$dir/gui.log" 2>&1 &
gpid=$!
sleep 4
win=$(DISPLAY=$disp xdotool search --sync --name Stepformer | head -1)
DISPLAY=$disp xdotool key --window "$win" Return
end=$(( $(date +%s) + secs ))
n=0
while [ "$(date +%s)" -lt "$end" ]; do
    # each edit changes the sentence, so the decoding in flight is cancelled
    # and a new one starts
    DISPLAY=$disp xdotool type --window "$win" --delay 40 " t$((40 + n % 50))"
    sleep 0.3
    DISPLAY=$disp xdotool key --window "$win" --delay 60 BackSpace BackSpace BackSpace BackSpace
    sleep 0.2
    n=$((n + 1))
done
if command -v convert >/dev/null; then
    DISPLAY=$disp xwd -root -silent | convert xwd:- /tmp/xvfb-responsive.png && echo "screenshot: /tmp/xvfb-responsive.png"
fi
DISPLAY=$disp xdotool key --window "$win" ctrl+q
wait $gpid || { echo "xvfb-responsive: the window exited with an error:" >&2; cat "$dir/gui.log" >&2; exit 1; }
echo "edits: $n"
cat "$dir/stall.json"
