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
#   make deps       apt-get install every Debian package the project needs

PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
SANITIZE ?= 0
FUZZ_SECONDS ?= 60

BUILD := build
ifeq ($(SANITIZE),1)
BUILD := build/san
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

PKGS_CORE := openblas libcjson
PKGS_APP  := sdl2 SDL2_ttf SDL2_image cglm fontconfig
PKGS_TEST := cmocka

WARN    := -Wall -Wextra -Wshadow -Wno-unused-parameter
CFLAGS  ?= -O2 -g -ftree-vectorize -fno-math-errno -fno-trapping-math
CPPFLAGS_ALL = -std=c11 -D_GNU_SOURCE -pthread -MMD -MP $(WARN) $(SAN_FLAGS)
CORE_CFLAGS = $(shell pkg-config --cflags $(PKGS_CORE))
APP_CFLAGS  = $(shell pkg-config --cflags $(PKGS_CORE) $(PKGS_APP)) \
              -DSTEPFORMER_DATADIR='"$(PREFIX)/share/stepformer"'
TEST_CFLAGS = $(APP_CFLAGS) $(shell pkg-config --cflags $(PKGS_TEST))
LIBS_CORE = $(shell pkg-config --libs $(PKGS_CORE)) -lm -pthread
LIBS_APP  = $(shell pkg-config --libs $(PKGS_APP)) $(LIBS_CORE)
LIBS_TEST = $(LIBS_APP) $(shell pkg-config --libs $(PKGS_TEST))

CORE_SRC := $(wildcard core/*.c)
APP_SRC  := $(filter-out app/main.c,$(wildcard app/*.c))
TEST_SRC := $(wildcard tests/test_*.c)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
APP_OBJ  := $(APP_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

.PHONY: all run test test-run test-tsan bench fuzz models deps deps-check clean install check-core

all: $(BUILD)/stepformer

$(BUILD)/core/%.o: core/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(CORE_CFLAGS) -c $< -o $@

$(BUILD)/app/%.o: app/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(APP_CFLAGS) -Icore -c $< -o $@

$(BUILD)/libcore.a: $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libapp.a: $(APP_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/stepformer: $(BUILD)/app/main.o $(BUILD)/libapp.a $(BUILD)/libcore.a
	$(CC) $(CFLAGS) $(SAN_FLAGS) -pthread $^ -o $@ $(LIBS_APP)

$(BUILD)/tests/%: tests/%.c $(BUILD)/libapp.a $(BUILD)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS) $(TEST_CFLAGS) -Icore -Iapp -Itests $< \
	    $(BUILD)/libapp.a $(BUILD)/libcore.a -o $@ $(LIBS_TEST)

# make test / make run first make sure the Debian packages are there.
deps-check:
	@tools/deps.sh ensure

test: deps-check
	@$(MAKE) --no-print-directory test-run

test-run: $(BUILD)/stepformer $(TEST_BIN)
	@tools/run-tests.sh $(BUILD)

run: deps-check
	@$(MAKE) --no-print-directory all
	$(BUILD)/stepformer

# The window's training thread, the trainer's helper thread and a reader of
# their publications, all instrumented by ThreadSanitizer: any data race
# fails the run. The worker needs the engine only, so no SDL is built.
TSAN_SRC := tests/test_train_worker.c app/train_worker.c app/data_args.c app/cli.c $(CORE_SRC)
build/tsan/test_train_worker: $(TSAN_SRC) $(wildcard core/*.h) app/train_worker.h app/data_args.h tests/test_util.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -pthread $(WARN) -O1 -g -fsanitize=thread \
	    $(CORE_CFLAGS) $(shell pkg-config --cflags $(PKGS_TEST)) -Icore -Iapp -Itests \
	    $(TSAN_SRC) -o $@ $(LIBS_CORE) $(shell pkg-config --libs $(PKGS_TEST))

test-tsan: deps-check
	@$(MAKE) --no-print-directory build/tsan/test_train_worker
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" OPENBLAS_NUM_THREADS=1 build/tsan/test_train_worker

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
# (app/lesson.c needs no SDL, so its fuzzer builds like the engine's)
FUZZ_DEPS := $(CORE_SRC) app/lesson.c
build/fuzz/%: tests/fuzz/%.c $(FUZZ_DEPS) $(wildcard core/*.h) app/lesson.h
	@mkdir -p $(dir $@)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	    $(CORE_CFLAGS) -Icore -Iapp $< $(FUZZ_DEPS) -o $@ $(LIBS_CORE)

fuzz: deps-check
	@$(MAKE) --no-print-directory $(FUZZ_BIN)
	@tools/run-fuzz.sh $(FUZZ_SECONDS) $(FUZZ_BIN)

check-core:
	@! grep -rnE '#include *[<"]SDL|[^_a-z]exit *\(|abort *\(' core || \
	    (echo "core/ must not include SDL or exit" && false)

clean:
	rm -rf build

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/stepformer
	install -m 755 $(BUILD)/stepformer $(DESTDIR)$(PREFIX)/bin/stepformer
	cp -r lessons assets $(DESTDIR)$(PREFIX)/share/stepformer/

-include $(CORE_OBJ:.o=.d) $(APP_OBJ:.o=.d) $(BUILD)/app/main.d
