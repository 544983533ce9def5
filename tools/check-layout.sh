#!/bin/sh
# check-layout.sh [ROOT [BUILD]] - the layout keeps telling the architecture
# (make check-core runs it on the tree at ROOT, default ".", whose objects
# are in BUILD, default ROOT/build): no files call each other in a circle,
# no folder holds more than 16 .c files, core/ and app/session/ include no
# SDL, core/ never exits or aborts, no view includes the window's headers,
# the session's or the engine's machinery, the platform layer includes
# nothing above it (the App, the views, the session, the CLI), and the App,
# the Session and the decode and train tabs' state keep at most 40, 50, 25
# and 25 members. Prints each breach and fails if there is one. A .c file
# longer than 900 lines is only a warning: a file is split by what its parts
# are for, not to stay under a number, and a split that was not made so
# shows as a circle.
#
# A circle: file A calls a function of file B and B, through any number of
# files, calls one of A's. A call is what the linker sees (one of A's
# object's undefined symbols is a function of B's object), or a call in A's
# text of a function-like macro or static inline function that B's header
# defines and A includes. A .c file and its own header (the same name, or
# NAME_internal.h) are one file; a header without a .c of its name is a
# file of its own. Types, constants and variables shared through a header
# are no tie: a header that several files implement is a module's face.
# Each circle is printed as
#   layout: circle: a.c -> b.c -> a.c (what a.c calls of b.c; what b.c calls of a.c)
root=${1:-.}
cd "$root" || exit 2
build=${2:-build}
bad=0
say() { echo "layout: $*"; bad=1; }

# Circles known when this rule came: each line is one, as its files or
# folders (ending in /); a circle all of whose files are on one line is
# reported but does not fail. They go when the parts that break them land
# (none left), and with them their lines, until this list is empty.
KNOWN_CIRCLES='
'

# ---- circles between files ----

# The sources whose objects are read, one a line. The browser build's own
# files (app/*/web/, built by make web into build/web-obj) have no native
# object; their includes are checked below with everything else.
sources=$(find core app \( -name '*.c' -o -name '*.cc' \) -not -path '*/web/*' 2>/dev/null | sort)
files=$(find core app \( -name '*.c' -o -name '*.cc' -o -name '*.h' \) 2>/dev/null | sort)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "unit FILE OWNER" for every source and header: the file a header's
# names count as defined in.
for f in $files; do
    owner=$f
    case $f in *.h)
        stem=${f%.h}
        for c in "$stem.c" "$stem.cc" "${stem%_internal}.c"; do
            if [ -f "$c" ]; then owner=$c; break; fi
        done;;
    esac
    echo "unit $f $owner"
done > "$tmp/units"

# "inc FILE HEADER-NAME" for every quoted include.
printf '%s\n' $files | xargs grep -oE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"' /dev/null |
    sed 's/^\([^:]*\):.*"\(.*\)"$/inc \1 \2/' > "$tmp/incs"

# "def FUNCTION FILE" and "use SYMBOL FILE" from each source's object: the
# calls the linker sees (one nm for all the objects).
missing=0
for f in $sources; do
    o="$build/${f%.*}.o"
    if [ -f "$o" ]; then echo "obj $o $f"; else missing=1; fi
done > "$tmp/objs"
[ "$missing" = 0 ] || say "some objects are missing under $build (build first: make all)"
awk '{ print $2 }' "$tmp/objs" | xargs nm -A -P /dev/null 2>/dev/null | awk -v objs="$tmp/objs" '
    BEGIN { while ((getline l < objs) > 0) { split(l, w, " "); src[w[2] ":"] = w[3] } }
    !($1 in src) { next }
    $3 == "U" { print "use", $2, src[$1]; next }
    $3 == "T" { print "def", $2, src[$1] }' > "$tmp/syms"

# "hfn NAME HEADER": the function-like macros and static inline functions
# of headers, called without the linker seeing it; "call NAME FILE": a file
# calling one (comments and strings left out).
printf '%s\n' $files | grep '\.h$' | xargs awk '
    /^[[:space:]]*#[[:space:]]*define[[:space:]]+[A-Za-z_][A-Za-z0-9_]*\(/ {
        s = $0; sub(/^[[:space:]]*#[[:space:]]*define[[:space:]]+/, "", s); sub(/\(.*/, "", s)
        print "hfn", s, FILENAME
    }
    /^[[:space:]]*static[[:space:]]+inline[^(]*\(/ {
        s = $0; sub(/\(.*/, "", s); sub(/.*[^A-Za-z0-9_]/, "", s)
        print "hfn", s, FILENAME
    }' /dev/null > "$tmp/hfns"
printf '%s\n' $files | xargs awk -v hf="$tmp/hfns" '
    BEGIN { while ((getline l < hf) > 0) { split(l, w, " "); want[w[2]] = 1 } }
    FNR == 1 { incomment = 0 }
    {
        line = $0; out = ""
        while (line != "") {
            if (incomment) {
                k = index(line, "*/")
                if (!k) { line = ""; break }
                line = substr(line, k + 2); incomment = 0; continue
            }
            if (match(line, /\/\*|\/\/|"|'\''/) == 0) { out = out line; break }
            out = out substr(line, 1, RSTART - 1)
            tok = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
            if (tok == "//") break
            if (tok == "/*") { incomment = 1; continue }
            # a string or character literal: skip to its closing quote
            while (line != "" && substr(line, 1, 1) != tok) {
                line = substr(line, (substr(line, 1, 1) == "\\") ? 3 : 2)
            }
            line = substr(line, 2); out = out " "
        }
        while (match(out, /[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(/)) {
            name = substr(out, RSTART, RLENGTH); sub(/[[:space:]]*\($/, "", name)
            if (name in want && !((FILENAME, name) in seen)) {
                seen[FILENAME, name] = 1; print "call", name, FILENAME
            }
            out = substr(out, RSTART + RLENGTH)
        }
    }' /dev/null > "$tmp/calls"

printf '%s\n' "$KNOWN_CIRCLES" | grep . > "$tmp/known"

# Edges "A B NAME", then the strongly connected groups of files, each
# reported by as few shortest circles as cover its files.
cat "$tmp/units" "$tmp/incs" "$tmp/syms" "$tmp/hfns" "$tmp/calls" | awk -v known="$tmp/known" '
    $1 == "unit" { owner[$2] = $3; hname = $2; sub(/.*\//, "", hname); by_name[hname] = $2; next }
    $1 == "inc" { incs[$2] = incs[$2] " " $3; next }
    $1 == "def" { if (($2 in defd) && defd[$2] != $3) dup[$2] = 1; defd[$2] = $3; next }
    $1 == "use" { use_n++; use_sym[use_n] = $2; use_from[use_n] = $3; next }
    $1 == "hfn" { if (($2 in hfn) && hfn[$2] != $3) hdup[$2] = 1; hfn[$2] = $3; next }
    $1 == "call" { call_n++; call_name[call_n] = $2; call_from[call_n] = $3; next }
    function edge(a, b, name) {
        if (a == b || a == "" || b == "") return
        if (!((a, b) in names)) { names[a, b] = ""; succ[a] = succ[a] " " b; nodes[a] = 1; nodes[b] = 1 }
        if (index(" " names[a, b] " ", " " name " ")) return
        names[a, b] = names[a, b] (names[a, b] == "" ? "" : " ") name
    }
    function said(a, b,   n, i, ws, s) {
        n = split(names[a, b], ws, " ")
        s = ""
        for (i = 1; i <= n && i <= 4; i++) s = s (i > 1 ? ", " : "") ws[i]
        if (n > 4) s = s ", +" (n - 4) " more"
        return s
    }
    # are the n files f[1..n] all on one line of the known circles?
    function is_known(f, n,   l, i, j, p, hit) {
        for (l = 1; l <= kn; l++) {
            for (i = 1; i <= n; i++) {
                hit = 0
                for (j = 1; j <= known_n[l] && !hit; j++) {
                    p = known_at[l, j]
                    hit = p == f[i] || (p ~ /\/$/ && index(f[i], p) == 1)
                }
                if (!hit) break
            }
            if (i > n) return 1
        }
        return 0
    }
    # does file f include header h, directly or through other headers?
    function includes(f, h,   todo, done, n, i, x, m, hs, k, p) {
        n = 1; todo[1] = f; done[f] = 1
        for (i = 1; i <= n; i++) {
            m = split(incs[todo[i]], hs, " ")
            for (k = 1; k <= m; k++) {
                p = by_name[hs[k]]
                if (p == "" || (p in done)) continue
                if (p == h) return 1
                done[p] = 1; todo[++n] = p
            }
        }
        return 0
    }
    END {
        for (i = 1; i <= use_n; i++) {
            s = use_sym[i]
            if ((s in defd) && !(s in dup)) edge(use_from[i], defd[s], s)
        }
        for (i = 1; i <= call_n; i++) {
            s = call_name[i]; h = hfn[s]; f = call_from[i]
            if (!(s in hdup) && owner[f] != owner[h] && includes(f, h)) edge(owner[f], owner[h], s)
        }
        # the files in a sorted list, so that the report does not change
        n = 0
        for (v in nodes) list[++n] = v
        for (i = 2; i <= n; i++) {
            v = list[i]
            for (j = i - 1; j >= 1 && list[j] > v; j--) list[j + 1] = list[j]
            list[j + 1] = v
        }
        # what each file reaches (breadth first)
        for (i = 1; i <= n; i++) {
            u = list[i]
            head = 1; tail = 0
            m = split(succ[u], nx, " ")
            for (k = 1; k <= m; k++) if (!((u, nx[k]) in reach)) { reach[u, nx[k]] = 1; q[++tail] = nx[k] }
            while (head <= tail) {
                cur = q[head++]
                m = split(succ[cur], nx, " ")
                for (k = 1; k <= m; k++)
                    if (!((u, nx[k]) in reach)) { reach[u, nx[k]] = 1; q[++tail] = nx[k] }
            }
        }
        while ((getline line < known) > 0) {
            kn++
            m = split(line, kw, " ")
            for (k = 1; k <= m; k++) known_at[kn, k] = kw[k]
            known_n[kn] = m
        }
        for (i = 1; i <= n; i++) {
            u = list[i]
            if (covered[u] || !((u, u) in reach)) continue
            # the shortest circle through u, within the files that u
            # reaches and that reach u back
            delete par
            head = 1; tail = 0; found = ""
            q[++tail] = u; par[u] = ""
            while (head <= tail && found == "") {
                cur = q[head++]
                m = split(succ[cur], nx, " ")
                for (k = 1; k <= m && found == ""; k++) {
                    x = nx[k]
                    if (x == u) found = cur
                    else if (!(x in par) && ((x, u) in reach)) { par[x] = cur; q[++tail] = x }
                }
            }
            path = u
            for (x = found; x != u; x = par[x]) path = x " -> " path
            path = u " -> " path
            m = split(path, pw, " -> ")
            ties = ""
            for (k = 1; k < m; k++) {
                covered[pw[k]] = 1
                ties = ties (k > 1 ? "; " : "") said(pw[k], pw[k + 1])
            }
            print (is_known(pw, m - 1) ? "known" : "circle"), path " (" ties ")"
        }
    }' > "$tmp/circles"
while read -r kind rest; do
    if [ "$kind" = known ]; then
        echo "layout: known circle (listed in tools/check-layout.sh): $rest"
    else
        say "circle: $rest"
    fi
done < "$tmp/circles"

# ---- sizes and includes ----

for d in $(find core app tests -type d 2>/dev/null); do
    n=$(find "$d" -maxdepth 1 -name '*.c' | wc -l)
    [ "$n" -le 16 ] || say "$d holds $n .c files (at most 16)"
done
for f in $(find core app tests -name '*.c' 2>/dev/null); do
    n=$(wc -l < "$f")
    [ "$n" -le 900 ] || echo "layout: warning: $f has $n lines (more than 900: is it still one thing?)"
done
grep -rlE '#include *[<"]SDL' core app/session 2>/dev/null | while read -r f; do
    echo "layout: $f includes SDL (core/ and app/session/ never do)"; done | grep . && bad=1
grep -rnE '[^_a-z]exit *\(|[^_a-z]abort *\(' core 2>/dev/null | grep -v '^\s*/\?\*' | grep . &&
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
# views draw from the Scene: no session header, no Session, no engine
# machinery (what runs a model, a decoder, training or files)
for h in session.h session_int.h ses_pass.h train_worker.h train_run.h decoder.h decode.h \
         decstep.h forward.h sample.h ops.h gemm_small.h parallel.h rng.h headstats.h file.h \
         checkpoint.h marian.h train.h atomic.h safetensors.h model_open.h; do
    grep -rl "#include \"$h\"" app/views 2>/dev/null | while read -r f; do
        echo "layout: $f (a view) includes $h"; done | grep . && bad=1
done
grep -rlw Session app/views 2>/dev/null | while read -r f; do
    echo "layout: $f (a view) names the Session"; done | grep . && bad=1

# the window's big structs stay small: at most this many members each
# (a member is a declarator at the struct's top level; a nested struct
# counts as one)
fields() { # FILE NAME: the members of "typedef struct ... { ... } NAME;"
    awk -v name="$2" '
        /typedef struct/ && !depth { body = ""; inside = 1 }
        inside {
            line = $0
            sub(/\/\/.*/, "", line)
            body = body " " line
            n = gsub(/\{/, "{", line); m = gsub(/\}/, "}", line)
            depth += n - m
            if (depth == 0 && m > 0) {
                inside = 0
                if (body ~ ("}[ \t]*" name "[ \t]*;")) { print body; exit }
            }
        }' "$1" | sed 's:/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/::g' | awk '
        { s = $0; sub(/^[^{]*\{/, "", s); sub(/\}[^}]*$/, "", s)
          out = ""; d = 0
          for (i = 1; i <= length(s); i++) {
              c = substr(s, i, 1)
              if (c == "{") { d++; continue }
              if (c == "}") { d--; continue }
              if (d == 0) out = out c
          }
          n = 0; k = split(out, st, ";")
          for (i = 1; i <= k; i++) {
              t = st[i]; gsub(/^[ \t]+|[ \t]+$/, "", t)
              if (t == "") continue
              if (t ~ /\(/) { n++; continue }
              n += gsub(/,/, ",", t) + 1
          }
          print n }'
}
for cap in "app/window/app.h App 40" "app/session/session.h Session 50" \
           "app/views/decode/view_decode.h DecodeUi 25" "app/views/train/view_train.h TrainUi 25"; do
    set -- $cap
    [ -f "$1" ] || continue
    n=$(fields "$1" "$2")
    if [ -z "$n" ]; then say "no struct $2 found in $1"
    elif [ "$n" -gt "$3" ]; then say "$2 ($1) has $n members (at most $3: group the ones that belong together)"
    fi
done
exit $bad
