#!/bin/sh
# po.sh - the gettext catalog of the window's words (see README, "Translating").
#   po.sh pot OUT     extract every _() / N_() / L(lang, "...") string of app/ into OUT
#   po.sh update      po/stepformer.pot from the sources, then msgmerge it into each po/LANG.po
#   po.sh check       fail unless the committed .pot equals what the sources give
#                     (its creation date aside) and each po/LANG.po translates every
#                     msgid of it, with no fuzzy or untranslated entry
# Run from the top of the source tree. Locations are kept per file, not per
# line, so moving code does not change the catalog.
set -e
POT=po/stepformer.pot
LANGS=$(cd po && ls *.po 2>/dev/null | grep -v '\..*\..*' | sed 's/\.po$//')

pot() {
    find app -name '*.[ch]' | LC_ALL=C sort > "$1.files"
    xgettext --from-code=UTF-8 --language=C -k_ -kN_ -kL:2 \
        --add-comments=TRANSLATORS: --add-location=file --sort-by-file \
        --package-name=stepformer --msgid-bugs-address=https://stepformer.github.io/ \
        -f "$1.files" -o "$1"
    rm -f "$1.files"
}

case "$1" in
pot) pot "$2" ;;
update)
    pot "$POT"
    for l in $LANGS; do
        msgmerge --quiet --update --backup=none --add-location=file "po/$l.po" "$POT"
    done ;;
check)
    tmp=$(mktemp)
    trap 'rm -f "$tmp"' EXIT
    pot "$tmp"
    if ! diff -u -I '^"POT-Creation-Date:' "$POT" "$tmp" > "$tmp.diff"; then
        echo "po: $POT is out of step with the sources (run: make po):"
        head -40 "$tmp.diff"
        rm -f "$tmp.diff"
        exit 1
    fi
    rm -f "$tmp.diff"
    for l in $LANGS; do
        stats=$(msgfmt --check --statistics -o /dev/null "po/$l.po" 2>&1) || { echo "po/$l.po: $stats"; exit 1; }
        echo "po/$l.po: $stats"
        case "$stats" in *fuzzy*|*untranslated*)
            echo "po/$l.po: every entry must be translated and none fuzzy"; exit 1 ;; esac
        msgcmp "po/$l.po" "$POT" 2>"$tmp.cmp" || { cat "$tmp.cmp"; echo "po/$l.po: misses msgids of $POT (run: make po, then translate)"; exit 1; }
        unused=$(grep -c 'this message is not used' "$tmp.cmp" || true)
        [ "$unused" = 0 ] || echo "po/$l.po: $unused entries no source uses (make po marks them obsolete)"
        rm -f "$tmp.cmp"
    done ;;
*) echo "usage: po.sh pot OUT | update | check" >&2; exit 2 ;;
esac
