#!/bin/sh
# make-screenshots.sh [STEPFORMER] - remake the README's pictures in docs/img
# with `stepformer shot` (software renderer, no display needed).
set -e
B=${1:-build/stepformer}
D=docs/img
mkdir -p "$D"
S="i read books at home today"
$B shot --stage dec.cross.weights --layer 1 --head 0 --src "$S" --out $D/cross-attention.png
$B shot --stage dec.cross.weights --layer 1 --view lines --head -1 --src "$S" --out $D/lines.png
$B shot --stage dec.cross.weights --head -1 --src "$S" --out $D/heads.png
$B shot --stage dec.self.mask --src "i love china | do you like tea ?" --batch 0 --out $D/mask.png
$B shot --stage pos.enc --src "i read books today" --out $D/positional-encoding.png
$B shot --stage enc.norm1 --src "i read books today" --out $D/add-norm.png
$B shot --view decode --decode-pane beam --beam 4 --alpha 0.6 --src "do you like tea ?" --out $D/beam-search.png
$B shot --view decode --src "i read books today" --tgt "我 今天 读 书" --out $D/teacher-forcing.png
$B shot --view decode --lang zh --src "i read books today" --tgt "我 今天 读 书" --out $D/decode-zh.png
$B shot --lesson masks --step 3 --lang zh --out $D/lesson-zh.png
$B shot --stage enc.self.weights --layer 0 --head 2 --src "$S" --theme light --scale 1.6 --out $D/presenter-light.png
if $B shot --help | grep -q -- --train-steps; then
    $B shot --view train --task en2zh --train-steps 400 --out $D/train.png
fi
echo "pictures in $D"
