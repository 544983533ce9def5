#!/bin/sh
# tools/web/deps.sh - the libraries the browser build links, built once from
# Debian's own source packages with Debian's emscripten (its ports cannot be
# downloaded here, and should not be): SDL2, freetype, harfbuzz, SDL2_ttf,
# SDL2_image, cJSON, nettle's SHA-256 and cglm's headers. The sources are
# fetched first, then three chains build side by side (SDL2 then SDL2_image;
# freetype then harfbuzz; cJSON, nettle, cglm), SDL2_ttf last: most of the
# time goes into CMake's configure checks, one emcc compile and link each,
# which run one at a time within a library. About seven minutes the first
# time on two busy cores (eleven one library after another); then a few
# stamp checks.
#
#   tools/web/deps.sh            install emscripten (as root), fetch and build
#                                whatever is missing from the cache, print its path
#   tools/web/deps.sh path       print the cache folder only
#
# The cache is $STEPFORMER_WEB_CACHE, else /var/cache/stepformer-web when that
# can be written (it outlives the clone, so CI builds the libraries once), else
# build/web-deps. A library is rebuilt when its stamp file is missing.
# `apt-get source` reads a sources list of the cache's own (deb-src lines for
# the archive the system uses), never the system's lists.
set -eu

here=$(cd "$(dirname "$0")/../.." && pwd)
cache_dir() {
    if [ -n "${STEPFORMER_WEB_CACHE:-}" ]; then echo "$STEPFORMER_WEB_CACHE"; return; fi
    if mkdir -p /var/cache/stepformer-web 2>/dev/null && [ -w /var/cache/stepformer-web ]; then
        echo /var/cache/stepformer-web; return
    fi
    echo "$here/build/web-deps"
}
CACHE=$(cache_dir)
[ "${1:-}" = path ] && { echo "$CACHE"; exit 0; }

# emcc's optimizer (acorn) and the font subsetter (fontTools) come from Debian;
# msgfmt (gettext) and node/npm come with the project's own packages
HOST_PKGS="emscripten node-acorn python3-fonttools cmake make dpkg-dev"
missing=""
for p in $HOST_PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "web deps: missing Debian packages:$missing (run: sudo apt-get install$missing)" >&2
        exit 1
    fi
    echo "web deps: installing$missing"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends $missing >/dev/null
fi
export NODE_PATH=/usr/share/nodejs
# Debian's emscripten ships its system libraries prebuilt in a frozen cache
# (/usr/share/emscripten/cache): leave EM_CACHE alone so that one is used.
PREFIX="$CACHE/prefix"
SRC="$CACHE/src"
mkdir -p "$PREFIX" "$SRC"

# --- the cache's own apt configuration: deb-src for the system's archive ---
APT="$CACHE/apt"
apt_cmd() {
    apt-get -q -o Dir::Etc::SourceList="$APT/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
        -o Dir::State::Lists="$APT/lists" -o Dir::Cache="$APT/cache" -o APT::Sandbox::User=root "$@"
}
apt_ready() {
    [ -f "$APT/updated" ] && return 0
    mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial"
    uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
    suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${uri:-http://deb.debian.org/debian} $suite main" \
        >"$APT/sources.list"
    apt_cmd update >/dev/null
    touch "$APT/updated"
}
# fetch NAME: unpack Debian's source package NAME once; prints its folder
fetch() {
    d=$(ls -d "$SRC/$1"-[0-9]*/ 2>/dev/null | head -1 || true)
    if [ -z "$d" ]; then
        apt_ready
        (cd "$SRC" && apt_cmd source --only-source "$1" >"$SRC/$1.log" 2>&1) ||
            { echo "web deps: apt-get source $1 failed (see $SRC/$1.log)" >&2; exit 1; }
        d=$(ls -d "$SRC/$1"-[0-9]*/ | head -1)
    fi
    echo "${d%/}"
}
stamp() { [ -f "$PREFIX/.built-$1" ]; }
done_() { touch "$PREFIX/.built-$1"; echo "web deps: $1 built ($(($(date +%s) - t0)) s)"; }
J=${JOBS:-2}
CM="emcmake cmake -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$PREFIX -DCMAKE_PREFIX_PATH=$PREFIX -DCMAKE_FIND_ROOT_PATH=$PREFIX -DBUILD_SHARED_LIBS=OFF"
cmake_build() { # NAME SRCDIR cmake-args...
    n=$1; s=$2; shift 2
    b="$CACHE/obj/$n"; rm -rf "$b"; mkdir -p "$b"
    (cd "$b" && $CM "$@" "$s" && emmake make -j"$J" && emmake make install) >"$CACHE/obj/$n.log" 2>&1 ||
        { echo "web deps: $n failed (see $CACHE/obj/$n.log)" >&2; exit 1; }
}
# cmake_dep NAME PACKAGE cmake-args...: Debian's source package PACKAGE built
# with cmake as NAME, unless NAME's stamp says it was
cmake_dep() {
    stamp "$1" && return 0
    t0=$(date +%s)
    s=$(fetch "$2")
    n=$1; shift 2
    cmake_build "$n" "$s" "$@"
    done_ "$n"
}

# every source package first, one after another (the cache's apt lists and
# archives are shared), so that the chains below only build
for np in sdl2:libsdl2 freetype:freetype harfbuzz:harfbuzz sdl2_ttf:libsdl2-ttf sdl2_image:libsdl2-image \
    cjson:cjson nettle:nettle; do
    stamp "${np%%:*}" || fetch "${np#*:}" >/dev/null
done
stamp harfbuzz || rm -f "$PREFIX/.built-sdl2_ttf" # SDL2_ttf is built against it from now on

# SDL2 with what the window uses: video, render, events, timers (no audio,
# joysticks, haptics, sensors or power: fewer files, a smaller page)
chain_sdl() {
    cmake_dep sdl2 libsdl2 -DSDL_SHARED=OFF -DSDL_STATIC=ON -DSDL_TEST=OFF \
        -DSDL_AUDIO=OFF -DSDL_JOYSTICK=OFF -DSDL_HAPTIC=OFF -DSDL_HIDAPI=OFF -DSDL_SENSOR=OFF -DSDL_POWER=OFF
    cmake_dep sdl2_image libsdl2-image -DSDL2IMAGE_VENDORED=OFF -DSDL2IMAGE_SAMPLES=OFF -DSDL2IMAGE_BACKEND_STB=ON \
        -DSDL2IMAGE_AVIF=OFF -DSDL2IMAGE_JPG=OFF -DSDL2IMAGE_JXL=OFF -DSDL2IMAGE_TIF=OFF -DSDL2IMAGE_WEBP=OFF \
        -DSDL2IMAGE_DEPS_SHARED=OFF -DSDL2_DIR="$PREFIX/lib/cmake/SDL2"
}
FT_ARGS="-DFREETYPE_LIBRARY=$PREFIX/lib/libfreetype.a -DFREETYPE_INCLUDE_DIRS=$PREFIX/include/freetype2
    -DFREETYPE_INCLUDE_DIR_ft2build=$PREFIX/include/freetype2 -DFREETYPE_INCLUDE_DIR_freetype2=$PREFIX/include/freetype2"
# harfbuzz: SDL2_ttf shapes with it on the desktop (Debian's build), so the
# page's text gets the same kerning and widths as the native window
chain_text() {
    cmake_dep freetype freetype -DFT_DISABLE_ZLIB=ON -DFT_DISABLE_BZIP2=ON -DFT_DISABLE_PNG=ON \
        -DFT_DISABLE_HARFBUZZ=ON -DFT_DISABLE_BROTLI=ON
    cmake_dep harfbuzz harfbuzz -DHB_HAVE_FREETYPE=ON -DHB_BUILD_SUBSET=OFF -DHB_BUILD_UTILS=OFF $FT_ARGS
}
chain_small() {
    cmake_dep cjson cjson -DENABLE_CJSON_TEST=OFF -DBUILD_SHARED_AND_STATIC_LIBS=OFF -DENABLE_CUSTOM_COMPILER_FLAGS=OFF
    # nettle: the scene codes' SHA-256 of a model file is all the window
    # takes from it, so only sha256.c and what it calls (the compression
    # function in C, the big-endian writer) are compiled, without nettle's
    # configure (its sources need no config.h when HAVE_CONFIG_H is unset)
    if ! stamp nettle; then
        t0=$(date +%s)
        s=$(fetch nettle)
        b="$CACHE/obj/nettle"; rm -rf "$b"; mkdir -p "$b"
        (cd "$b" && for f in sha256 sha256-compress write-be32; do
            emcc -O2 -I"$s" -c "$s/$f.c" -o "$f.o" || exit 1
        done && emar rcs libnettle.a sha256.o sha256-compress.o write-be32.o &&
            mkdir -p "$PREFIX/lib" "$PREFIX/include/nettle" && cp libnettle.a "$PREFIX/lib/" &&
            cp "$s"/*.h "$PREFIX/include/nettle/") >"$CACHE/obj/nettle.log" 2>&1 ||
            { echo "web deps: nettle failed (see $CACHE/obj/nettle.log)" >&2; exit 1; }
        done_ nettle
    fi
    # libqrencode: its Debian source is missing from the archive here (404);
    # tools/web/include/qrencode.h stands in, and Q says QR codes are left out.
    # libunibreak: its Debian source (1.1-2.1) is missing from the archive here
    # (404), so the browser build breaks lines with a small UAX #14 subset of its
    # own (app/platform/web/linebreak_web.c).
    if ! stamp cglm; then
        t0=$(date +%s)
        # header-only and the same on every architecture: its source package's
        # headers, or (when the archive here lacks the source) the installed
        # libcglm-dev's, which are the same files
        if s=$(fetch cglm 2>/dev/null); then inc="$s/include/cglm"; else inc=/usr/include/cglm; fi
        [ -f "$inc/cglm.h" ] || { echo "web deps: no cglm headers (apt-get install libcglm-dev)" >&2; exit 1; }
        mkdir -p "$PREFIX/include"; rm -rf "$PREFIX/include/cglm"; cp -r "$inc" "$PREFIX/include/cglm"
        done_ cglm
    fi
}
chain_sdl & p1=$!
chain_text & p2=$!
chain_small & p3=$!
ok=1
wait $p1 || ok=0
wait $p2 || ok=0
wait $p3 || ok=0
[ $ok = 1 ] || { echo "web deps: a library failed to build (its log is named above)" >&2; exit 1; }
cmake_dep sdl2_ttf libsdl2-ttf -DSDL2TTF_VENDORED=OFF -DSDL2TTF_HARFBUZZ=ON -DSDL2TTF_SAMPLES=OFF \
    -Dharfbuzz_LIBRARY="$PREFIX/lib/libharfbuzz.a" -Dharfbuzz_INCLUDE_PATH="$PREFIX/include/harfbuzz" \
    -DSDL2TTF_INSTALL=ON -DSDL2_DIR="$PREFIX/lib/cmake/SDL2" $FT_ARGS
echo "$CACHE"
