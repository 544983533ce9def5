#!/bin/sh
# deps.sh - the Debian packages Stepformer needs.
#   deps.sh install   apt-get install all of them
#   deps.sh ensure    install the missing ones when root, else say what to run
#   deps.sh list      print them
set -e
# the build (gettext: xgettext, msgmerge, msgfmt for po/; libunibreak: line
# breaking), the fonts, then the tools the export and install tests and
# `make deb` use (rsvg-convert, pdftotext, xmllint, desktop-file-validate,
# appstreamcli, man, bash-completion, dpkg-buildpackage, lintian)
PKGS="build-essential pkg-config clang libclang-rt-14-dev libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev
libcglm-dev libopenblas-dev libcjson-dev libcmocka-dev libfontconfig-dev libcairo2-dev libzip-dev libsentencepiece-dev
gettext libunibreak-dev nettle-dev libqrencode-dev
fonts-dejavu-core fonts-wqy-microhei
libxml2-utils
librsvg2-bin poppler-utils desktop-file-utils appstream man-db bash-completion
debhelper dpkg-dev fakeroot lintian"

missing() {
    for p in $PKGS; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || printf '%s ' "$p"
    done
}

install_pkgs() {
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends "$@"
}

case "${1:-ensure}" in
list) echo $PKGS ;;
install)
    # shellcheck disable=SC2086
    if [ "$(id -u)" = 0 ]; then install_pkgs $PKGS; else sudo sh "$0" install; fi ;;
ensure)
    m=$(missing)
    [ -z "$m" ] && exit 0
    if [ "$(id -u)" = 0 ]; then
        echo "installing missing Debian packages: $m"
        # shellcheck disable=SC2086
        install_pkgs $m
    else
        echo "missing Debian packages: $m"
        echo "run:  sudo apt-get install $m   (or: sudo make deps)"
        exit 1
    fi ;;
*) echo "usage: deps.sh install|ensure|list" >&2; exit 2 ;;
esac
