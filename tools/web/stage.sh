#!/bin/sh
# tools/web/stage.sh DIR - the files the browser build preloads (its .data):
#   DIR/share/stepformer/assets/models/*.safetensors   the shipped models
#   DIR/share/stepformer/lessons/{en,zh}/              the lessons
#   DIR/share/stepformer/locale/zh_CN/LC_MESSAGES/stepformer.mo
#   DIR/fonts/DejaVuSans.ttf, DejaVuSansMono.ttf       Latin
#   DIR/fonts/wqy-microhei-subset.ttf                  Chinese: WenQuanYi Micro Hei cut
#       (fontTools.subset, Debian python3-fonttools) to every character of the catalog, the lessons and the
#       models' vocabularies, plus the 7,445 characters of GB2312
set -eu
D=$1
rm -rf "$D"
S="$D/share/stepformer"
mkdir -p "$S/assets/models" "$S/lessons" "$S/locale/zh_CN/LC_MESSAGES" "$D/fonts"
cp assets/models/*.safetensors "$S/assets/models/"
for l in lessons/*/; do
    mkdir -p "$S/$l"
    cp "$l"*.txt "$S/$l"
done
msgfmt --check -o "$S/locale/zh_CN/LC_MESSAGES/stepformer.mo" po/zh_CN.po
cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf "$D/fonts/"
chars="$D/chars.txt"
python3 - "$chars" po/zh_CN.po lessons/*/*.txt assets/models/*.safetensors <<'PY'
import sys, json, struct
out, files = sys.argv[1], sys.argv[2:]
cs = set()
for f in files:
    data = open(f, 'rb').read()
    if f.endswith('.safetensors'):  # the header's metadata holds the vocabularies
        n = struct.unpack('<Q', data[:8])[0]
        data = data[8:8 + n]
    cs.update(data.decode('utf-8', 'replace'))
for hi in range(0xA1, 0xF8):        # GB2312: symbols and both levels of hanzi
    for lo in range(0xA1, 0xFF):
        try:
            cs.update(bytes([hi, lo]).decode('gb2312'))
        except UnicodeDecodeError:
            pass
cs.update(chr(c) for c in range(0x20, 0x7F))
cs.discard('\ufffd')
open(out, 'w', encoding='utf-8').write(''.join(sorted(c for c in cs if c.isprintable())))
PY
/usr/bin/python3 -m fontTools.subset /usr/share/fonts/truetype/wqy/wqy-microhei.ttc --font-number=0 --text-file="$chars" \
    --output-file="$D/fonts/wqy-microhei-subset.ttf" --layout-features='*' --no-hinting
rm -f "$chars"
