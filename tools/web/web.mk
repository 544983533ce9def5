# tools/web/web.mk - the browser build (README "In the browser"), run by
# `make web`: the same C compiled by Debian's emscripten against the
# libraries tools/web/deps.sh builds from Debian sources, into build/web/
# (index.html, stepformer.js, stepformer.wasm, stepformer.data).
#
# Left out, with a line where the user would look: cairo (SVG/PDF export:
# app/platform/web/vector_none.c), sentencepiece (Marian folders:
# core/data/web/spm_none.c), libzip (pytorch_model.bin), OpenBLAS (the
# project's own kernels, core/sys/blas_own.c with SIMD128:
# core/sys/web/blas_web.c), fontconfig
# (fixed font files: font_find_web.c), threads (the window's trainer steps
# in the frames instead).

export NODE_PATH := /usr/share/nodejs
WEB_CACHE  := $(shell tools/web/deps.sh path)
WP         := $(WEB_CACHE)/prefix
OUT        := build/web
OBJ        := build/web-obj
STAGE      := build/web-stage
EMCC       ?= emcc
EMAR       ?= emar

# the source folders (the Makefile passes its own lists)
DIRS ?= core/model core/train core/decode core/data core/io core/sys \
        app/session app/session/labs app/session/lesson \
        app/platform app/ui app/views app/views/decode app/views/train app/views/pe \
        app/window app/window/explain app/window/lesson app/cli app/cli/bench
INC  := $(addprefix -I,$(DIRS)) -Iapp/platform/web -Itools/web/include \
        -I$(WP)/include -I$(WP)/include/SDL2 -I$(WP)/include/cjson
# what the desktop build has and the browser does not (see above)
LEFT_OUT := app/platform/font_find.c app/platform/ren_cairo.c app/cli/main.c
SRC  := $(filter-out $(LEFT_OUT),$(foreach d,$(DIRS),$(wildcard $(d)/*.c))) \
        $(wildcard core/*/web/*.c app/platform/web/*.c)
MAIN := app/cli/web/web_main.c
OBJS := $(SRC:%.c=$(OBJ)/%.o)

WEB_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -msimd128 -fno-math-errno -fno-trapping-math \
              -Wall -Wextra -Wno-unused-parameter -Wno-unused-function -MMD -MP \
              -DSTEPFORMER_DATADIR='"/share/stepformer"'
LIBS := $(WP)/lib/libSDL2_ttf.a $(WP)/lib/libharfbuzz.a $(WP)/lib/libfreetype.a $(WP)/lib/libSDL2_image.a $(WP)/lib/libSDL2.a \
        $(WP)/lib/libcjson.a $(WP)/lib/libnettle.a
API  := _main,_malloc,_free,_sf_set_source,_sf_set_target,_sf_set_stage,_sf_set_lang,_sf_open_lesson,_sf_open_model,_sf_dump,_sf_link,_sf_apply_link,_sf_bench_frames,_sf_state,_sf_paste
LDFLAGS_WEB := -O2 -msimd128 -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=128MB -sTOTAL_STACK=8MB \
               -sEXPORTED_FUNCTIONS=$(API) -sEXPORTED_RUNTIME_METHODS=ccall,cwrap,FS,UTF8ToString \
               -sFORCE_FILESYSTEM=1 -lidbfs.js -lGL -sMIN_WEBGL_VERSION=1 \
               --pre-js tools/web/api.js

.PHONY: web deps stage
web: $(OUT)/index.html

# the libraries (make web runs tools/web/deps.sh first; this is for a direct
# make -f tools/web/web.mk)
$(WP)/.built-nettle:
	tools/web/deps.sh >/dev/null

$(OBJ)/%.o: %.c | $(WP)/.built-nettle
	@mkdir -p $(dir $@)
	$(EMCC) $(WEB_CFLAGS) $(INC) -c $< -o $@

# EM_ASM (JS inside C) needs the GNU dialect: only in the one file that has it
$(OBJ)/app/platform/web/plat_web.o: WEB_CFLAGS += -std=gnu11

$(OBJ)/libstepformer.a: $(OBJS)
	@rm -f $@
	$(EMAR) rcs $@ $^

# the page's files: models, lessons, the compiled catalog, fonts (the CJK
# font cut to the characters the catalog, lessons and vocabularies use plus
# GB2312's hanzi)
$(STAGE)/.done: tools/web/stage.sh $(wildcard assets/models/*.safetensors) $(wildcard lessons/*/*) po/zh_CN.po
	tools/web/stage.sh $(STAGE)
	@touch $@

$(OUT)/index.html: $(OBJ)/app/cli/web/web_main.o $(OBJ)/libstepformer.a $(STAGE)/.done tools/web/shell.html tools/web/api.js
	@mkdir -p $(OUT)
	rm -f $(OUT)/index.* $(OUT)/stepformer.*
	$(EMCC) $(OBJ)/app/cli/web/web_main.o $(OBJ)/libstepformer.a $(LIBS) $(LDFLAGS_WEB) \
	    --preload-file $(STAGE)@/ -o $(OUT)/stepformer.js
	sed 's|{{{ SCRIPT }}}|<script async src="stepformer.js"></script>|' tools/web/shell.html > $@
	@du -sh $(OUT) | sed 's/^/web: /'

-include $(OBJS:.o=.d) $(OBJ)/app/cli/web/web_main.d
