# Stepformer - build, run, test, bench, models, deps, install.
#
#   make            build build/stepformer
#   make run        open the app on the bundled model (installs what is missing)
#   make test       build and run every test; ends with "N passed, N failed"
#   make test SANITIZE=1   the same under AddressSanitizer + UBSan
#   make test-tsan  the training worker's threads under ThreadSanitizer
#   make bench      performance figures (JSON lines)
#   make fuzz       libFuzzer targets (clang), FUZZ_SECONDS each
#   make models     retrain the shipped models in assets/models/
#   make po         po/stepformer.pot from the sources, merged into po/*.po
#   make deps       apt-get install every Debian package the project needs
#   make install    the program, its data, menu entry, icons, manual page,
#                   AppStream metadata and bash completion (PREFIX, DESTDIR)
#   make deb        build/stepformer_VERSION_ARCH.deb (dpkg-buildpackage)
#   make web        build/web/: the window as a static page (emscripten)
#   make web-test   that page in a headless Chromium against the native build

VERSION  := 0.9.0
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
CXX      ?= c++
SANITIZE ?= 0
FUZZ_SECONDS ?= 60

BUILD := build
ifeq ($(SANITIZE),1)
BUILD := build/san
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

# desktop files (see "installing" below)
APP_ID     := io.github.stepformer
ICON_SIZES := 48 128 256
ICON_PNGS  := $(foreach s,$(ICON_SIZES),$(BUILD)/share/icons/$(s)x$(s)/stepformer.png)

PKGS_CORE := openblas libcjson libzip sentencepiece
PKGS_APP  := sdl2 SDL2_ttf SDL2_image cglm fontconfig cairo libunibreak nettle libqrencode
PKGS_TEST := cmocka
# app/session's own (the scene codes' SHA-256): the TSan build links it
PKGS_SESSION := nettle

WARN    := -Wall -Wextra -Wshadow -Wno-unused-parameter
CFLAGS  ?= -O2 -g -ftree-vectorize -fno-math-errno -fno-trapping-math
CPPFLAGS_ALL = -std=c11 -D_GNU_SOURCE -pthread -MMD -MP $(WARN) $(SAN_FLAGS) $(CPPFLAGS)
CORE_CFLAGS = $(shell pkg-config --cflags $(PKGS_CORE))
APP_CFLAGS  = $(shell pkg-config --cflags $(PKGS_CORE) $(PKGS_APP)) \
              -DSTEPFORMER_DATADIR='"$(PREFIX)/share/stepformer"'
TEST_CFLAGS = $(APP_CFLAGS) $(shell pkg-config --cflags $(PKGS_TEST))
LIBS_CORE = $(shell pkg-config --libs $(PKGS_CORE)) -lstdc++ -lm -pthread
LIBS_APP  = $(shell pkg-config --libs $(PKGS_APP)) $(LIBS_CORE)
LIBS_TEST = $(LIBS_APP) $(shell pkg-config --libs $(PKGS_TEST))

# The layers (see README.md, "Layout"): core/ is the engine, app/session/
# drives it without SDL, app/platform/ is the only code that includes SDL,
# app/ui, app/views, app/window and app/cli sit on top. Every folder is on
# the include path of the layers allowed to use it.
CORE_DIRS    := core/model core/train core/decode core/data core/io core/sys core/interp
SESSION_DIRS := app/session app/session/labs app/session/lesson
APP_DIRS     := app/platform app/ui app/views app/views/lab app/views/decode app/views/train app/views/pe app/window app/window/explain app/window/lesson app/window/share app/cli app/cli/class app/cli/heads app/cli/bench
CORE_INC     := $(addprefix -I,$(CORE_DIRS))
SESSION_INC  := $(addprefix -I,$(SESSION_DIRS)) $(CORE_INC)
APP_INC      := $(addprefix -I,$(APP_DIRS)) $(SESSION_INC)

CORE_SRC    := $(foreach d,$(CORE_DIRS),$(wildcard $(d)/*.c))
# the one C++ file: the wrapper over libsentencepiece (core/data/spm.cc)
CORE_CXX_SRC := $(foreach d,$(CORE_DIRS),$(wildcard $(d)/*.cc))
SESSION_SRC := $(foreach d,$(SESSION_DIRS),$(wildcard $(d)/*.c))
APP_SRC     := $(filter-out app/cli/main.c,$(foreach d,$(APP_DIRS),$(wildcard $(d)/*.c))) $(SESSION_SRC)
CORE_HDR    := $(foreach d,$(CORE_DIRS),$(wildcard $(d)/*.h))
SESSION_HDR := $(foreach d,$(SESSION_DIRS),$(wildcard $(d)/*.h))
# every tests/<layer>/[<folder>/]test_*.c (fuzz targets are built apart)
TEST_SRC := $(wildcard tests/*/test_*.c tests/*/*/test_*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o) $(CORE_CXX_SRC:%.cc=$(BUILD)/%.o)
APP_OBJ  := $(APP_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(addprefix $(BUILD)/tests/,$(basename $(notdir $(TEST_SRC))))

.PHONY: all run test test-build test-run test-tsan bench fuzz models deps deps-check clean install check-core deb po web web-test FORCE

# The window's words (po/, README "Translating"): po/LANG.po compiled into
# $(BUILD)/locale/LANG/LC_MESSAGES/stepformer.mo, found at run time beside
# the program (paths_locale); po/zh_CN.BRANCH.po files are fragments that
# are folded into po/zh_CN.po, not built.
PO_LANGS := $(foreach f,$(basename $(notdir $(wildcard po/*.po))),$(if $(findstring .,$(f)),,$(f)))
MO_FILES := $(PO_LANGS:%=$(BUILD)/locale/%/LC_MESSAGES/stepformer.mo)

all: $(BUILD)/stepformer $(BUILD)/share/stepformer.1 $(ICON_PNGS) $(MO_FILES)

$(BUILD)/locale/%/LC_MESSAGES/stepformer.mo: po/%.po
	@mkdir -p $(dir $@)
	msgfmt --check -o $@ $<

po:
	po/po.sh update

$(BUILD)/core/%.o: core/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(CORE_CFLAGS) $(CORE_INC) -c $< -o $@

$(BUILD)/core/%.o: core/%.cc
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -MMD -MP -Wall -Wextra -Wshadow $(SAN_FLAGS) $(CFLAGS) $(CORE_INC) -c $< -o $@

$(BUILD)/app/session/%.o: app/session/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(CORE_CFLAGS) $(SESSION_INC) -DSTEPFORMER_DATADIR='"$(PREFIX)/share/stepformer"' -c $< -o $@

$(BUILD)/app/%.o: app/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(APP_CFLAGS) $(APP_INC) -c $< -o $@

$(BUILD)/libcore.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libapp.a: $(APP_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/stepformer: $(BUILD)/app/cli/main.o $(BUILD)/libapp.a $(BUILD)/libcore.a
	$(CC) $(CFLAGS) $(SAN_FLAGS) $(LDFLAGS) -pthread $^ -o $@ $(LIBS_APP)

# Test programs live in tests/<layer>/ and are built flat into build/tests/.
define test_rule
$(BUILD)/tests/$(basename $(notdir $(1))): $(1) $(BUILD)/libapp.a $(BUILD)/libcore.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CPPFLAGS_ALL) $$(CFLAGS) $$(TEST_CFLAGS) $$(APP_INC) -Itests $$< \
	    $(BUILD)/libapp.a $(BUILD)/libcore.a -o $$@ $$(LIBS_TEST)
endef
$(foreach t,$(TEST_SRC),$(eval $(call test_rule,$(t))))

# The browser build (README "In the browser"): build/web/ from the same C with
# Debian's emscripten (tools/web/web.mk; the libraries come from
# tools/web/deps.sh, built once into a cache), and its test in a headless
# Chromium against the native program (tools/web/test.sh).
web:
	@tools/web/deps.sh >/dev/null
	@$(MAKE) --no-print-directory -f tools/web/web.mk web DIRS="$(CORE_DIRS) $(SESSION_DIRS) $(APP_DIRS)"

web-test: web $(BUILD)/stepformer
	tools/web/test.sh

# make test / make run first make sure the Debian packages are there.
deps-check:
	@tools/deps.sh ensure

# make run and make test build with every core (JOBS=N to choose).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

test: deps-check
	@$(MAKE) --no-print-directory -j$(JOBS) test-build
	@$(MAKE) --no-print-directory test-run

test-build: $(BUILD)/stepformer $(MO_FILES) $(TEST_BIN)

test-run: check-core $(BUILD)/stepformer $(MO_FILES) $(TEST_BIN)
	@tools/run-tests.sh $(BUILD) $(TEST_BIN)

run: deps-check
	@$(MAKE) --no-print-directory -j$(JOBS) all
	$(BUILD)/stepformer

# The window's training thread, the trainer's helper thread and a reader of
# their publications (and of the probe's passes it hands over), all
# instrumented by ThreadSanitizer: any data race fails the run. The worker
# needs the engine only, so no SDL is built.
TSAN_SRC := $(SESSION_SRC) $(CORE_SRC)
TSAN_TESTS := test_train_worker test_train_probe
build/tsan/cxx/%.o: core/%.cc
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O1 -g -fsanitize=thread $(CORE_INC) -c $< -o $@
build/tsan/test_%: tests/session/test_%.c $(TSAN_SRC) $(CORE_CXX_SRC:core/%.cc=build/tsan/cxx/%.o) $(CORE_HDR) $(SESSION_HDR) tests/test_util.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -pthread $(WARN) -O1 -g -fsanitize=thread \
	    $(CORE_CFLAGS) $(shell pkg-config --cflags $(PKGS_SESSION) $(PKGS_TEST)) $(SESSION_INC) -Itests \
	    $< $(TSAN_SRC) $(CORE_CXX_SRC:core/%.cc=build/tsan/cxx/%.o) -o $@ $(LIBS_CORE) \
	    $(shell pkg-config --libs $(PKGS_SESSION) $(PKGS_TEST))

test-tsan: deps-check
	@$(MAKE) --no-print-directory $(TSAN_TESTS:%=build/tsan/%)
	for t in $(TSAN_TESTS); do \
	    TSAN_OPTIONS="halt_on_error=1 exitcode=66" OPENBLAS_NUM_THREADS=1 build/tsan/$$t || exit 1; done

bench: deps-check
	@$(MAKE) --no-print-directory all
	$(BUILD)/stepformer bench

models: deps-check
	@$(MAKE) --no-print-directory all
	tools/make-models.sh $(BUILD)/stepformer

deps:
	tools/deps.sh install

# libFuzzer targets: tests/fuzz/fuzz_NAME.c with seed corpus tests/fuzz/corpus_NAME/.
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)
# (app/session/ needs no SDL, so its fuzzers build like the engine's)
FUZZ_DEPS := $(CORE_SRC) app/session/lesson/lesson.c app/session/lesson/lesson_predict.c
FUZZ_CXX_OBJ := $(CORE_CXX_SRC:core/%.cc=build/fuzz/cxx/%.o)
build/fuzz/cxx/%.o: core/%.cc
	@mkdir -p $(dir $@)
	clang++ -std=c++17 -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr $(CORE_INC) -c $< -o $@
# the engine is compiled once for all the targets, with coverage, then linked into each
FUZZ_C_OBJ := $(FUZZ_DEPS:%.c=build/fuzz/obj/%.o)
.SECONDARY: $(FUZZ_C_OBJ) $(FUZZ_CXX_OBJ)
build/fuzz/obj/%.o: %.c $(CORE_HDR) $(SESSION_HDR)
	@mkdir -p $(dir $@)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
	    $(CORE_CFLAGS) $(SESSION_INC) -c $< -o $@
build/fuzz/%: tests/fuzz/%.c $(FUZZ_C_OBJ) $(FUZZ_CXX_OBJ) $(CORE_HDR) $(SESSION_HDR)
	@mkdir -p $(dir $@)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	    $(CORE_CFLAGS) $(SESSION_INC) $< $(FUZZ_C_OBJ) $(FUZZ_CXX_OBJ) -o $@ $(LIBS_CORE)

fuzz: deps-check
	@$(MAKE) --no-print-directory -j2 $(FUZZ_BIN)
	@tools/run-fuzz.sh $(FUZZ_SECONDS) $(FUZZ_BIN)

# The layout's rules (tools/check-layout.sh): no circle between files, read
# from the objects (so they are built first), folders of at most 16 .c
# files; core/ and app/session/ never include SDL; core/ never exits.
check-core: $(CORE_OBJ) $(APP_OBJ) $(BUILD)/app/cli/main.o
	@tools/check-layout.sh . $(BUILD)
	@! grep -rnE '#include *[<"]SDL|[^_a-z]exit *\(|[^_a-z]abort *\(' core || \
	    (echo "core/ must not include SDL or exit" && false)
	@! grep -rnE '#include *[<"]SDL' app/session || \
	    (echo "app/session/ must not include SDL" && false)

clean:
	rm -rf build

# --- installing ------------------------------------------------------------
# The layout an admin (or debian/rules) installs under DESTDIR/PREFIX:
#   bin/stepformer
#   share/stepformer/{lessons,assets/models}   the data (see info --paths)
#   share/applications/stepformer.desktop, share/metainfo/APPID.metainfo.xml
#   share/icons/hicolor/{scalable,48x48,128x128,256x256}/apps/stepformer.*
#   share/man/man1/stepformer.1, share/bash-completion/completions/stepformer
#   share/locale/LANG/LC_MESSAGES/stepformer.mo
SHARE      := $(DESTDIR)$(PREFIX)/share

$(BUILD)/share/icons/%/stepformer.png: data/icons/stepformer.svg
	@mkdir -p $(dir $@)
	rsvg-convert -w $(firstword $(subst x, ,$*)) -h $(firstword $(subst x, ,$*)) $< -o $@

# PREFIX is compiled in (the last place data is looked for) and named in
# the manual: what uses it is rebuilt when it changes.
$(BUILD)/prefix.txt: FORCE
	@mkdir -p $(BUILD)
	@echo '$(PREFIX)' | cmp -s - $@ || echo '$(PREFIX)' > $@
$(BUILD)/app/session/paths.o: $(BUILD)/prefix.txt
FORCE:

# The manual page follows the program's own --help texts (tools/make-man.sh).
$(BUILD)/share/stepformer.1: data/stepformer.1.in tools/make-man.sh $(BUILD)/stepformer $(BUILD)/prefix.txt
	@mkdir -p $(dir $@)
	tools/make-man.sh $(BUILD)/stepformer $< $(VERSION) $(PREFIX)/share/stepformer > $@.tmp
	mv $@.tmp $@

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(SHARE)/stepformer/assets
	install -m 755 $(BUILD)/stepformer $(DESTDIR)$(PREFIX)/bin/stepformer
	cp -r lessons $(SHARE)/stepformer/
	cp -r assets/models $(SHARE)/stepformer/assets/
	install -D -m 644 data/stepformer.desktop $(SHARE)/applications/stepformer.desktop
	install -D -m 644 data/$(APP_ID).metainfo.xml $(SHARE)/metainfo/$(APP_ID).metainfo.xml
	install -D -m 644 data/icons/stepformer.svg $(SHARE)/icons/hicolor/scalable/apps/stepformer.svg
	for s in $(ICON_SIZES); do \
	    install -D -m 644 $(BUILD)/share/icons/$${s}x$${s}/stepformer.png \
	        $(SHARE)/icons/hicolor/$${s}x$${s}/apps/stepformer.png || exit 1; done
	install -D -m 644 $(BUILD)/share/stepformer.1 $(SHARE)/man/man1/stepformer.1
	install -D -m 644 data/stepformer.bash-completion $(SHARE)/bash-completion/completions/stepformer
	install -d $(SHARE)/locale
	for l in $(PO_LANGS); do \
	    install -D -m 644 $(BUILD)/locale/$$l/LC_MESSAGES/stepformer.mo \
	        $(SHARE)/locale/$$l/LC_MESSAGES/stepformer.mo || exit 1; done

# The Debian package, built by dpkg-buildpackage from a clean copy of the
# tree in build/deb/ (so no object of another PREFIX is reused), then moved
# to build/: stepformer_$(VERSION)_ARCH.deb with its .buildinfo/.changes.
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
deb:
	rm -rf build/deb
	mkdir -p build/deb/stepformer-$(VERSION)
	tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C build/deb/stepformer-$(VERSION)
	cd build/deb/stepformer-$(VERSION) && dpkg-buildpackage -us -uc -b -Jauto
	mv build/deb/stepformer_$(VERSION)_$(DEB_ARCH).deb build/deb/stepformer_$(VERSION)_$(DEB_ARCH).buildinfo \
	    build/deb/stepformer_$(VERSION)_$(DEB_ARCH).changes build/
	@echo "built build/stepformer_$(VERSION)_$(DEB_ARCH).deb"

# A test moved to another folder leaves its old path in its .d file (-MP
# covers headers only): a missing tests/...c is no error, the test rebuilds.
tests/%.c: ;
-include $(CORE_OBJ:.o=.d) $(APP_OBJ:.o=.d) $(BUILD)/app/cli/main.d $(TEST_BIN:=.d)
