# skiff build. Sources are found by wildcard: add a file under src/<layer>/ and it is built.
#   make            build/skiff (says which command installs the packages when they are missing)
#   make deps       install the Debian packages (scripts/deps.sh, as root)
#   make test       deps, unit tests (ASan+UBSan), fuzz smoke runs, end-to-end tests,
#                   their API/watch/scheduler/controller subset under TSan (build/skiff-tsan)
#   make unit T=test_store      one unit test (or several, space-separated)
#   make e2e K=watch            end-to-end tests whose names match (pytest -k)
#   make e2e-etcd               the end-to-end suite with the store on etcd (E=FILES: some of it)
#   make bench      benchmarks (not part of test)
#   make demo       start a one-node cluster and run the example
#   make format     clang-format over src/ (make test checks it)
#   make generate   regenerate committed generated code (check-generated: CI's comparison)
# demo, test and bench install the packages first and then build in a sub-make,
# so the pkg-config flags below are computed after the install.
CC       ?= gcc
PKGS     := libmicrohttpd gnutls libcurl jansson yajl sqlite3 libarchive libzstd libseccomp libnftables ldns yaml-0.1 zlib \
	    grpc libprotobuf-c
CFLAGS   ?= -O2 -g
# etcd's .proto files (scripts/etcd-proto.sh)
ETCD_PROTO ?= /usr/local/share/skiff/etcd-proto
DEPFLAGS  = -MMD -MP
WARN     := -Wall -Wextra -Werror -Wvla -Wshadow -Wformat=2 -Wno-unused-parameter -Wno-format-nonliteral -Wno-format-truncation
CPPFLAGS := -D_GNU_SOURCE -Isrc -Ibuild/gen $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libwslay (WebSocket framing of the agent's streaming server) ships no .pc file
LDLIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lwslay -lpthread -ldl -lm
# build/skiff allocates through mimalloc (first in the link, kept even if no
# symbol of it is named, so it replaces malloc for jansson and SQLite too);
# the sanitizer and fuzz builds keep their own allocators.
MALLOC_LIBS := -Wl,--push-state,--no-as-needed -lmimalloc -Wl,--pop-state
VERSION  := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

# Goals that need no libraries: they install them, or call a sub-make that
# parses this file again once they are installed.
NOLIB_GOALS := deps demo test bench down clean help generate check-generated format
ifneq ($(filter-out $(NOLIB_GOALS),$(or $(MAKECMDGOALS),all)),)
PKG_MISSING := $(strip $(foreach p,$(PKGS),$(if $(shell pkg-config --exists $(p) 2>/dev/null && echo y),,$(p))) \
	$(if $(wildcard /usr/include/wslay/wslay.h),,libwslay) \
	$(if $(wildcard $(ETCD_PROTO)/etcdserver/etcdserverpb/rpc.proto),,etcd-proto) $(if $(shell command -v protoc-c),,protobuf-c-compiler) \
	$(if $(shell command -v node),,nodejs) $(if $(shell command -v npm),,npm) $(if $(shell command -v xxd),,xxd))
ifneq ($(PKG_MISSING),)
$(error missing build libraries ($(PKG_MISSING)): run 'make deps' (as root: installs the Debian packages of scripts/deps.d/), then 'make' again; 'make demo' and 'make test' do both)
endif
endif

# etcd v3's messages (the store's gRPC transport, src/store/etcd*.c): C from
# etcd's .proto files, which scripts/etcd-proto.sh (make deps) extracts from
# Debian's golang-etcd-server-dev into ETCD_PROTO; their gogoproto and
# google.api annotations are dropped, the rest is etcd's.
ETCD_PB    := etcdserver/etcdserverpb/rpc mvcc/mvccpb/kv auth/authpb/auth
PB_SRC     := $(ETCD_PB:%=build/gen/etcd/%.pb-c.c)
PB_HDR     := $(ETCD_PB:%=build/gen/etcd/%.pb-c.h)
LIB_SRC  := $(sort $(shell find src -name '*.c' -not -path 'src/cmd/*')) build/gen/console-assets.c $(PB_SRC)
CMD_SRC  := $(sort $(wildcard src/cmd/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
FUZZ_SRC := $(sort $(wildcard fuzz/fuzz_*.c))

OBJ      := $(LIB_SRC:%.c=build/obj/%.o)
CMD_OBJ  := $(CMD_SRC:%.c=build/obj/%.o)
ASAN_OBJ := $(LIB_SRC:%.c=build/asan/%.o)
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
# The ASan build (build/skiff-asan, unit tests) has the store's fault injection
# (src/store/fault.c, docs/DEVELOPING.md); build/skiff never does.
FAULT    := -DSK_FAULT_INJECTION
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/unit/%)
FUZZ_BIN := $(FUZZ_SRC:fuzz/%.c=build/fuzz/%)

.PHONY: toolchain-check all test unit fuzz e2e e2e-etcd bench demo down deps clean asan tsan tsan-e2e test-bins generate check-generated format
all: build/skiff

build/obj/%.o: %.c build/obj/%.d
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) $(DEPFLAGS) -DSKIFF_VERSION='"$(VERSION)"' $(CFLAGS) $(WARN) -c $< -o $@

build/asan/%.o: %.c build/asan/%.d
	@mkdir -p $(dir $@)
	@echo "  CC-SAN  $<"
	@$(CC) $(CPPFLAGS) $(DEPFLAGS) -DSKIFF_VERSION='"$(VERSION)"' -O1 -g $(SAN) $(FAULT) $(WARN) -c $< -o $@

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
build/tsan/%.o: %.c build/tsan/%.d
	@mkdir -p $(dir $@)
	@echo "  CC-TSAN $<"
	@$(CC) $(CPPFLAGS) $(DEPFLAGS) -DSKIFF_VERSION='"$(VERSION)"' -O1 -g $(TSAN) $(WARN) -c $< -o $@

build/libskiff-tsan.a: $(TSAN_OBJ)
	@rm -f $@; ar rcs $@ $^

build/skiff-tsan: $(CMD_SRC:%.c=build/tsan/%.o) build/libskiff-tsan.a
	@echo "  LD      $@"
	@$(CC) $(TSAN) -o $@ $^ $(LDLIBS)
tsan: build/skiff-tsan

tsan-e2e: build/skiff-tsan
	@bash tests/run-tsan.sh

# The end-to-end suite on an etcd store, but the tests marked sqlite (not
# part of test: ~2x make test's e2e time; E=FILES picks some test files).
e2e-etcd: build/skiff-asan
	@bash tests/run-e2e-etcd.sh $(E)

build/unit/%: tests/unit/%.c build/libskiff-asan.a
	@mkdir -p build/unit
	@echo "  LD-UNIT $@"
	@$(CC) $(CPPFLAGS) $(DEPFLAGS) -O1 -g $(SAN) $(FAULT) $(WARN) -o $@ $< build/libskiff-asan.a $(LDLIBS) -lcmocka

FUZZ_OBJ := $(LIB_SRC:%.c=build/fuzzobj/%.o)
build/fuzzobj/%.o: %.c build/fuzzobj/%.d
	@mkdir -p $(dir $@)
	@echo "  CC-FUZZ $<"
	@clang $(CPPFLAGS) $(DEPFLAGS) -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -c $< -o $@

build/libskiff-fuzz.a: $(FUZZ_OBJ)
	@rm -f $@; ar rcs $@ $^

build/fuzz/%: fuzz/%.c build/libskiff-fuzz.a
	@mkdir -p build/fuzz
	@echo "  LD-FUZZ $@"
	@clang $(CPPFLAGS) $(DEPFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -o $@ $< build/libskiff-fuzz.a $(LDLIBS)

# The web console (console/, docs/ARCHITECTURE.md): npm ci from the committed
# package-lock.json into console/node_modules (once; offline after that),
# esbuild bundles console/src into build/console/, and scripts/console-assets.sh
# turns those files into C (xxd -i) linked into every build of the binary.
CONSOLE_SRC   := $(sort $(wildcard console/src/*))
CONSOLE_FILES := index.html app.js app.css
console/node_modules/.package-lock.json: console/package.json console/package-lock.json
	@echo "  NPM     console: npm ci"
	@cd console && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

build/console/app.js: $(CONSOLE_SRC) console/node_modules/.package-lock.json
	@mkdir -p build/console
	@echo "  ESBUILD $@"
	@console/node_modules/.bin/esbuild console/src/main.js --bundle --minify --format=esm \
		--target=es2020 --log-level=warning --outfile=$@
	@cp console/src/index.html console/src/app.css build/console/

$(PB_SRC) $(PB_HDR) &: $(ETCD_PB:%=$(ETCD_PROTO)/%.proto)
	@echo "  PROTOC  etcd v3 (build/gen/etcd)"
	@rm -rf build/gen/etcd build/proto && mkdir -p build/gen build/proto/etcd
	@for f in $(ETCD_PB); do mkdir -p build/proto/etcd/$$(dirname $$f); \
		awk '/^import "(gogoproto|google)\//{next} /^option \(gogoproto\./{next} \
			/option \(google\.api\.http\) = \{/{skip=1; next} skip&&/\};/{skip=0; next} skip{next} {print}' \
			$(ETCD_PROTO)/$$f.proto >build/proto/etcd/$$f.proto; done
	@cd build/proto && protoc-c --c_out=../gen $(ETCD_PB:%=etcd/%.proto)
# what includes the generated headers waits for them (a first build has no .d files)
$(foreach d,obj asan tsan fuzzobj,$(patsubst %.c,build/$(d)/%.o,$(wildcard src/store/etcd*.c))): $(PB_HDR)

build/gen/console-assets.c: build/console/app.js scripts/console-assets.sh
	@mkdir -p build/gen
	@echo "  GEN     $@"
	@bash scripts/console-assets.sh $@ build/console $(CONSOLE_FILES)

deps:
	@bash scripts/deps.sh

# Every test binary built, none run.
test-bins: all asan tsan $(UNIT_BIN) $(FUZZ_BIN)

# The test toolchain installed (tests/fresh-root.sh): a cmocka test under
# ASan+UBSan and under ThreadSanitizer, and a libFuzzer target, each linked
# with every library skiff links and run; the Python test packages import.
toolchain-check:
	@mkdir -p build/probe
	@echo "  PROBE   unit (ASan+UBSan), tsan, fuzz, python"
	@$(CC) $(CPPFLAGS) -O1 -g $(SAN) -o build/probe/unit tests/probe/unit.c $(LDLIBS) -lcmocka && build/probe/unit >/dev/null 2>&1
	@$(CC) $(CPPFLAGS) -O1 -g $(TSAN) -o build/probe/tsan tests/probe/unit.c $(LDLIBS) -lcmocka && build/probe/tsan >/dev/null 2>&1
	@clang $(CPPFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined -o build/probe/fuzz tests/probe/fuzz.c $(LDLIBS) && \
		build/probe/fuzz -runs=100 2>/dev/null
	@/usr/bin/python3 -c 'import pytest, kubernetes'

# T=test_store (or "test_store test_json") runs only those unit tests.
UNIT_SEL := $(if $(T),$(addprefix build/unit/,$(T)),$(UNIT_BIN))
# The console's page logic (console/src/model.js) runs under node's test runner
# with the unit tests (or with T=test_console).
unit: $(UNIT_SEL)
	@bash tests/run-unit.sh $(UNIT_SEL)
	@$(if $(T),$(if $(filter test_console,$(T)),node --test --test-reporter=spec tests/console/,:),node --test --test-reporter=spec tests/console/)

# Generated code (docs/DEVELOPING.md). src/api/protobuf-types.c is rendered
# from the committed description of k8s.io/api and apimachinery at
# K8S_API_REF; that description is extracted again only when K8S_API_REPO and
# APIMACHINERY_REPO name the upstream git repositories.
K8S_API_REF := v0.32.13
PB_DESC     := scripts/gen/k8s-protobuf-$(K8S_API_REF).tsv
PYTHON      ?= python3
export PYTHON

generate:
ifneq ($(K8S_API_REPO)$(APIMACHINERY_REPO),)
	@echo "  EXTRACT $(PB_DESC)"
	@$(PYTHON) scripts/gen-protobuf-types.py extract --api "$(K8S_API_REPO)" \
		--apimachinery "$(APIMACHINERY_REPO)" --ref $(K8S_API_REF) -o $(PB_DESC)
endif
	@echo "  RENDER  src/api/protobuf-types.c"
	@$(PYTHON) scripts/gen-protobuf-types.py render $(PB_DESC) -o src/api/protobuf-types.c

# clang-format over src/ (.clang-format); make test checks it (scripts/format.sh --check).
format:
	@bash scripts/format.sh

check-generated:
	@bash scripts/check-generated.sh $(K8S_API_REF) $(if $(K8S_API_REPO)$(APIMACHINERY_REPO),"$(K8S_API_REPO)" "$(APIMACHINERY_REPO)")

fuzz: $(FUZZ_BIN)
	@bash tests/run-fuzz.sh $(FUZZ_BIN)

# K=EXPR selects end-to-end tests by name (pytest -k EXPR), e.g. K=watch.
e2e: build/skiff build/skiff-asan
	@bash tests/run-e2e.sh $(if $(K),-k '$(K)')

# The builds run on every core (-j$(NPROC)) unless the caller gave -j.
NPROC := $(shell nproc 2>/dev/null || echo 2)
JOBS  := $(if $(filter -j%,$(MAKEFLAGS))$(findstring j,$(firstword $(MAKEFLAGS))),,-j$(NPROC))

test: deps
	@$(MAKE) $(JOBS) --no-print-directory all asan tsan
	@bash tests/run-all.sh

bench: deps
	@$(MAKE) $(JOBS) --no-print-directory all
	@bash bench/run.sh

demo: deps
	@$(MAKE) $(JOBS) --no-print-directory all
	@bash scripts/demo.sh

down:
	@bash scripts/down.sh

clean:
	rm -rf build

# Header dependencies written by the compiler (-MMD -MP) next to each object;
# an object without its .d file (built before it existed) is rebuilt.
build/obj/%.d build/asan/%.d build/tsan/%.d build/fuzzobj/%.d: ;
.PRECIOUS: build/obj/%.d build/asan/%.d build/tsan/%.d build/fuzzobj/%.d
-include $(shell find build \( -path build/ml-image -o -path build/images \) -prune -o -type f -name '*.d' -print 2>/dev/null)
