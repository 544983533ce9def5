#!/bin/sh
# make-man.sh PROGRAM TEMPLATE VERSION DATADIR > stepformer.1
# The manual page: the hand-written template (data/stepformer.1.in) with the
# window's options, every command's own --help text and the window's keys
# (`PROGRAM keys --man`, from its command table) put in, so the page follows
# the program. Commands are the ones `PROGRAM --help` lists.
set -eu
prog=$1 template=$2 version=$3 datadir=$4

# Plain text as roff: backslashes, leading dots and quotes, and hyphens.
roff() {
    sed -e 's/\\/\\e/g' -e 's/^\([.'"'"']\)/\\\&\1/' -e 's/-/\\-/g'
}

gui_help() {
    echo ".nf"
    "$prog" --help | sed -n '1,/^commands:/p' | sed '$d' | roff
    echo ".fi"
}

commands() {
    for c in $("$prog" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p'); do
        echo ".SS $c"
        echo ".nf"
        "$prog" "$c" --help | roff
        echo ".fi"
    done
}

date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%Y-%m-%d)
gui=$(gui_help)
cmds=$(commands)
keys=$("$prog" keys --man)
awk -v gui="$gui" -v cmds="$cmds" -v keys="$keys" -v version="$version" -v datadir="$datadir" -v date="$date" '
    /^@GUI_HELP@$/ { print gui; next }
    /^@COMMANDS@$/ { print cmds; next }
    /^@KEYS@$/ { print keys; next }
    { gsub(/@VERSION@/, version); gsub(/@DATADIR@/, datadir); gsub(/@DATE@/, date); print }
' "$template"
