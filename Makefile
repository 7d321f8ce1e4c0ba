# Thin wrapper around CMake and scripts/. The two commands of the README:
#   make run    serve the API locally on :8080 (scripts/stack.sh: its own
#               MariaDB, nginx and svc-fcgi under .run/, demo data)
#   make test   install what is missing, build, run every test with ctest
#               (but the cluster's: make test-cluster)
# CI (.ci/run) adds test-asan, format-check and fuzz.
SHELL := /bin/bash
BUILD ?= build
TEST_BUILD ?= build-test
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
DEB_BUILD ?= build-deb
PREFIX ?= /usr/local
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
FUZZ_SECONDS ?= 60
FUZZERS := $(patsubst tests/fuzz/%_fuzz.cpp,%,$(wildcard tests/fuzz/*_fuzz.cpp))
FORMAT_FILES = $(shell find src tests -name '*.cpp' -o -name '*.hpp')

# ccache (CMakeLists.txt uses it when installed; install-deps.sh installs it)
# shares objects between $(BUILD) and $(TEST_BUILD): paths are made relative
# to the checkout, the build dir is left out of the hash, and -Werror (only
# $(TEST_BUILD) has it; it changes no object, only whether a warning stops the
# build) is ignored. So `make run` after `make test` links and compiles
# nothing again. A developer's own CCACHE_* settings win.
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR ?= 1
export CCACHE_IGNOREOPTIONS ?= -Werror

.PHONY: all build deps run stop status test test-cluster test-asan fuzz bench format format-check clean install deb

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: build
	@scripts/stack.sh up

stop:
	@scripts/stack.sh down

status:
	@scripts/stack.sh status

# Warnings are errors here, in a build dir of its own: -DSVC_WERROR=ON stays
# in $(TEST_BUILD)'s cache and never reaches the $(BUILD) of `make` and
# `make run`. (One shared dir would either keep -Werror for every later build
# or, passing the flag both ways, recompile everything each time `make` and
# `make test` alternate.) CMAKE_FLAGS come last, so they can override it.
# A test that skipped shows as "Skipped" (ctest SKIP_RETURN_CODE, issue 28)
# and is listed at the end; ctest-junit.xml keeps the count for CI.
# The build's output is kept in $(TEST_BUILD)/build.log: a warning that ccache
# replays from an object compiled without -Werror (by `make`) fails here too.
test: deps
	cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DSVC_WERROR=ON $(CMAKE_FLAGS)
	cmake --build $(TEST_BUILD) -j $(JOBS) 2>&1 | tee $(TEST_BUILD)/build.log; exit $${PIPESTATUS[0]}
	@! grep -n ': warning:' $(TEST_BUILD)/build.log || { echo 'make test: the warnings above fail the build'; exit 1; }
	cd $(TEST_BUILD) && ctest --output-on-failure --timeout 900 -LE cluster --output-junit ctest-junit.xml

# The cluster tests (tests/cluster, docs/cluster.md): three Galera nodes and
# two app hosts in network namespaces, faults injected; needs root. Same build
# dir as `make test`; the cluster's state goes to $(TEST_BUILD)/cluster.
test-cluster: deps
	cmake -S . -B $(TEST_BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DSVC_WERROR=ON $(CMAKE_FLAGS)
	cmake --build $(TEST_BUILD) -j $(JOBS) --target svc-fcgi svc-admin svc-sender
	cd $(TEST_BUILD) && ctest --output-on-failure --timeout 900 -L cluster

# The unit and handler tests under AddressSanitizer and UBSan (gcc, Debug).
# Any report fails its test: ASan always stops the process, UBSan is built
# without recovery and told to halt as well. The handler tests need the
# stack's MariaDB: selecting them makes ctest run the stack fixture
# (stack.up/stack.down, in $(ASAN_BUILD)/itest-stack) as in `make test`, so
# the programs of the stack are built here too.
SANITIZER_ENV = ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DSVC_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target svc-unit-tests svc-handler-tests svc-fcgi svc-admin svc-sender
	cd $(ASAN_BUILD) && $(SANITIZER_ENV) ctest --output-on-failure -R '^(unit|handlers)\.' --output-junit ctest-junit.xml

# libFuzzer targets (tests/fuzz/<name>_fuzz.cpp) in a clang build of their
# own, so the gcc build is untouched. Each runs FUZZ_SECONDS from its committed
# seeds (tests/fuzz/corpus/<name>/; what it finds goes to
# $(FUZZ_BUILD)/corpus/<name>/ and is reused next time). A crash, sanitizer
# report or broken invariant stops `make`; the input is left in
# $(FUZZ_BUILD)/artifacts/ (replay: $(FUZZ_BUILD)/tests/fuzz/<name>_fuzz FILE).
fuzz: deps
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
	  -DCMAKE_CXX_FLAGS_DEBUG='-g -O1' -DSVC_TESTS=OFF -DSVC_FUZZ=ON $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target svc-fuzzers
	@mkdir -p $(FUZZ_BUILD)/artifacts
	@for f in $(FUZZERS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$f; \
	  echo "fuzz: $$f for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_BUILD)/tests/fuzz/$${f}_fuzz -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
	    -artifact_prefix=$(FUZZ_BUILD)/artifacts/$$f- $(FUZZ_BUILD)/corpus/$$f tests/fuzz/corpus/$$f \
	    > $(FUZZ_BUILD)/$$f.log 2>&1 || { tail -n 60 $(FUZZ_BUILD)/$$f.log; exit 1; }; \
	  grep '^Done' $(FUZZ_BUILD)/$$f.log; \
	done

bench: deps
	@scripts/bench.sh

format:
	clang-format -i $(FORMAT_FILES)

format-check: deps
	clang-format --dry-run -Werror $(FORMAT_FILES)

clean:
	rm -rf $(BUILD) $(TEST_BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(DEB_BUILD)

# Installs the programs, migrations, units, sysusers/tmpfiles entries, nginx
# files, the sample /etc/svc/svc.conf and the docs under PREFIX (/etc when
# PREFIX=/usr), below DESTDIR when given: make install DESTDIR=/tmp/root PREFIX=/usr
# (packaging/install.cmake has the layout; docs/deploy.md the table).
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix $(PREFIX)

# The Debian package, from a Release build of its own ($(DEB_BUILD)), then
# lintian: any error fails the target. Result: $(DEB_BUILD)/svc_<version>-1_<arch>.deb
# (install it with apt install ./$(DEB_BUILD)/svc_*.deb).
deb: deps
	cmake -S . -B $(DEB_BUILD) -DCMAKE_BUILD_TYPE=Release -DSVC_TESTS=OFF $(CMAKE_FLAGS)
	cmake --build $(DEB_BUILD) -j $(JOBS)
	cd $(DEB_BUILD) && cpack -G DEB
	lintian --fail-on error $(DEB_BUILD)/svc_*.deb
