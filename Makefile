# skiff build. Sources are found by wildcard: add a file under src/<layer>/ and it is built.
#   make            build/skiff
#   make test       deps, unit tests (ASan+UBSan), fuzz smoke runs, end-to-end tests,
#                   their API/watch/scheduler/controller subset under TSan (build/skiff-tsan)
#   make bench      benchmarks (not part of test)
#   make demo       start a one-node cluster and run the example
CC       ?= gcc
PKGS     := libmicrohttpd gnutls libcurl jansson yajl sqlite3 libarchive libzstd libseccomp
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Werror -Wvla -Wshadow -Wformat=2 -Wno-unused-parameter -Wno-format-nonliteral -Wno-format-truncation
CPPFLAGS := -D_GNU_SOURCE -Isrc $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -ldl -lm
# build/skiff allocates through mimalloc (first in the link, kept even if no
# symbol of it is named, so it replaces malloc for jansson and SQLite too);
# the sanitizer and fuzz builds keep their own allocators.
MALLOC_LIBS := -Wl,--push-state,--no-as-needed -lmimalloc -Wl,--pop-state
VERSION  := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

LIB_SRC  := $(sort $(shell find src -name '*.c' -not -path 'src/cmd/*'))
CMD_SRC  := $(sort $(wildcard src/cmd/*.c))
HDRS     := $(shell find src -name '*.h')
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))

OBJ      := $(LIB_SRC:%.c=build/obj/%.o)
CMD_OBJ  := $(CMD_SRC:%.c=build/obj/%.o)
ASAN_OBJ := $(LIB_SRC:%.c=build/asan/%.o)
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/unit/%)
FUZZ_BIN := $(FUZZ_SRC:fuzz/%.c=build/fuzz/%)

.PHONY: all test unit fuzz e2e bench demo down deps clean asan tsan tsan-e2e
all: build/skiff

build/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) -DSKIFF_VERSION='"$(VERSION)"' $(CFLAGS) $(WARN) -c $< -o $@

build/asan/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	@echo "  CC-SAN  $<"
	@$(CC) $(CPPFLAGS) -DSKIFF_VERSION='"$(VERSION)"' -O1 -g $(SAN) $(WARN) -c $< -o $@

build/libskiff.a: $(OBJ)
	@rm -f $@; ar rcs $@ $^

build/libskiff-asan.a: $(ASAN_OBJ)
	@rm -f $@; ar rcs $@ $^

build/skiff: $(CMD_OBJ) build/libskiff.a
	@echo "  LD      $@"
	@$(CC) $(CFLAGS) -o $@ $(CMD_OBJ) build/libskiff.a $(MALLOC_LIBS) $(LDLIBS)

# ASan+UBSan build of the whole binary, used by part of the end-to-end suite.
build/skiff-asan: $(CMD_SRC:%.c=build/asan/%.o) build/libskiff-asan.a
	@echo "  LD      $@"
	@$(CC) $(SAN) -o $@ $^ $(LDLIBS)
asan: build/skiff-asan

# ThreadSanitizer build of the whole binary (objects under build/tsan/), run
# by tests/run-tsan.sh over the API, watch, scheduler and controller tests.
# Like the other sanitizer builds it keeps the C library's allocator.
TSAN     := -fsanitize=thread -fno-omit-frame-pointer
TSAN_OBJ := $(LIB_SRC:%.c=build/tsan/%.o)
build/tsan/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	@echo "  CC-TSAN $<"
	@$(CC) $(CPPFLAGS) -DSKIFF_VERSION='"$(VERSION)"' -O1 -g $(TSAN) $(WARN) -c $< -o $@

build/libskiff-tsan.a: $(TSAN_OBJ)
	@rm -f $@; ar rcs $@ $^

build/skiff-tsan: $(CMD_SRC:%.c=build/tsan/%.o) build/libskiff-tsan.a
	@echo "  LD      $@"
	@$(CC) $(TSAN) -o $@ $^ $(LDLIBS)
tsan: build/skiff-tsan

tsan-e2e: build/skiff-tsan
	@bash tests/run-tsan.sh

build/unit/%: tests/unit/%.c build/libskiff-asan.a
	@mkdir -p build/unit
	@echo "  LD-UNIT $@"
	@$(CC) $(CPPFLAGS) -O1 -g $(SAN) $(WARN) -o $@ $< build/libskiff-asan.a $(LDLIBS) -lcmocka

FUZZ_OBJ := $(LIB_SRC:%.c=build/fuzzobj/%.o)
build/fuzzobj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	@echo "  CC-FUZZ $<"
	@clang $(CPPFLAGS) -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -c $< -o $@

build/libskiff-fuzz.a: $(FUZZ_OBJ)
	@rm -f $@; ar rcs $@ $^

build/fuzz/%: fuzz/%.c build/libskiff-fuzz.a
	@mkdir -p build/fuzz
	@echo "  LD-FUZZ $@"
	@clang $(CPPFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -o $@ $< build/libskiff-fuzz.a $(LDLIBS)

deps:
	@bash scripts/deps.sh

unit: $(UNIT_BIN)
	@bash tests/run-unit.sh $(UNIT_BIN)

fuzz: $(FUZZ_BIN)
	@bash tests/run-fuzz.sh $(FUZZ_BIN)

e2e: build/skiff build/skiff-asan
	@bash tests/run-e2e.sh

test: deps
	@$(MAKE) --no-print-directory all asan tsan
	@bash tests/run-all.sh

bench: deps all
	@bash bench/run.sh

demo: deps all
	@bash scripts/demo.sh

down:
	@bash scripts/down.sh

clean:
	rm -rf build
