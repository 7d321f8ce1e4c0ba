# Thin wrapper around CMake and scripts/. The two commands of the README:
#   make run    serve the API locally on :8080: scripts/stack.sh starts a
#               MariaDB server, svc-fcgi, nginx and the sinks in .run/ (demo data)
#   make test   install what is missing, build, run every test with ctest
BUILD ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all build deps run stop status test test-asan bench format clean

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

# CI runs this: warnings are errors here.
test: CMAKE_FLAGS += -DSVC_WERROR=ON
test: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DSVC_WERROR=ON
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure --timeout 900

test-asan: deps
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSVC_SANITIZE=ON
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ctest --output-on-failure -R unit

bench: deps
	@scripts/bench.sh

format:
	clang-format -i $$(find src tests -name '*.cpp' -o -name '*.hpp')

clean:
	rm -rf $(BUILD) build-asan
