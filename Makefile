# dmlscope: thin wrapper around CMake.  See README.md.
#   make            build build/dmlscope
#   make run        build, then analyze the bundled real sample
#   make check      build (normal, ASan+UBSan, MPI) and run every test
#   make bench      speed and memory beside tcpdump and the study's pipeline
#   make testbed    run real PyTorch jobs in network namespaces (root;
#                   MATRIX=testbed/matrix-issue9.txt DATASET=dir: the widened matrix)
#   make validate   every job of every run of DATASET against its truth
#   make install    install dmlscope and its man page (PREFIX=/usr/local)

BUILD_DEPS := cmake pkg-config gcc python3 libpcap-dev libgsl-dev libjansson-dev libcmocka-dev libfftw3-dev zlib1g-dev liblzma-dev \
              libzstd-dev liblz4-dev
TEST_DEPS  := tcpdump tshark g++ protobuf-compiler python3-statsmodels python3-pandas python3-numpy \
              python3-torch python3-torchvision iproute2 nftables clang libclang-rt-14-dev chromium \
              libopenmpi-dev openmpi-bin tcpreplay zstd lz4
# make testbed only (no make check test needs them): Open MPI jobs via mpi4py
TESTBED_DEPS := openmpi-bin python3-mpi4py
SHELL := /bin/bash
PREFIX ?= /usr/local
JOBS ?= 2
PGO ?= 1
SAMPLE ?= samples/pytorch_ddp-mobilenetv2-adam-16-gloo-normal-ring

.PHONY: all build build-asan build-mpi deps deps-test run check bench testbed validate install clean fuzz fuzz-smoke

all: build

# Install missing Debian packages when root; otherwise print the missing line.
define ensure_pkgs
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    (apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "missing packages; run: sudo apt-get install -y$$missing"; exit 1; fi; \
	fi
endef

deps:
	$(call ensure_pkgs,$(BUILD_DEPS))

deps-test: deps
	$(call ensure_pkgs,$(TEST_DEPS))

# PGO=1 (the default): build/ is compiled with the profiles of an
# instrumented build (build-pgo) run over the bundled samples and generated
# captures (cmake/build.sh; README, Development); PGO=0 builds without.
build: deps
	@bash cmake/build.sh $(JOBS) $(PGO)

build-asan: deps
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DDMLS_SANITIZE=ON >/dev/null
	@cmake --build build-asan -j$(JOBS)

# dmlscope with MPI (doc/mpi.md): only the binary, for the mpirun tests
build-mpi: deps-test
	@cmake -S . -B build-mpi -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDMLS_MPI=ON >/dev/null
	@cmake --build build-mpi -j$(JOBS) --target dmlscope

# make run shows the result, not the compiler's progress (its log is kept
# in build/build.log and printed only when the build fails).
run: deps
	@mkdir -p build
	@bash cmake/build.sh $(JOBS) $(PGO) >build/build.log 2>&1 || { cat build/build.log; exit 1; }
	@./build/dmlscope analyze $(SAMPLE)

check: deps-test build build-asan build-mpi
	cd build && ctest --output-on-failure -j$(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j$(JOBS) -LE slow -E 'integration/testbed'
	cd build-mpi && ctest --output-on-failure -R 'integration/mpi'
	$(MAKE) --no-print-directory fuzz-smoke

fuzz: deps-test
	@CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DDMLS_SANITIZE=ON -DDMLS_FUZZ=ON >/dev/null
	@cmake --build build-fuzz -j$(JOBS)

# Run the ingest fuzzer briefly (FUZZ_SECONDS), seeded from the samples and,
# when present, tcpdump's test captures (DMLS_CORPUS, else
# ../shared/corpus/tcpdump-tests beside the source tree; optional); new
# inputs go to a temporary dir.  fuzz_serial replays tests/data/fuzz_serial
# (inputs that once failed) before it fuzzes.
FUZZ_SECONDS ?= 30
FUZZ_SERIAL_SECONDS ?= 10
SRCDIR := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
DMLS_CORPUS ?= $(SRCDIR)/../shared/corpus/tcpdump-tests
fuzz-smoke: fuzz
	@tmp=$$(mktemp -d); seeds="$$(ls -d samples/*/ tests/data 2>/dev/null)"; \
	if [ -d "$(DMLS_CORPUS)" ]; then seeds="$$seeds $(DMLS_CORPUS)"; \
	else echo "fuzz-smoke: no corpus at '$(DMLS_CORPUS)' (set DMLS_CORPUS): samples only"; fi; \
	log=$$tmp.log; \
	./build-fuzz/fuzz_ingest -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -timeout=10 \
	  -artifact_prefix=$$tmp.ingest- -print_final_stats=1 $$tmp $$seeds >$$log 2>&1; rc=$$?; \
	if [ $$rc = 0 ]; then tail -4 $$log; else grep -v -E '^#[0-9]+' $$log | tail -40; fi; \
	rm -rf $$tmp/*; [ $$rc = 0 ] || { rm -rf $$tmp $$log; exit $$rc; }; \
	echo "fuzz-smoke: serialized states (an MPI rank's input), $(FUZZ_SERIAL_SECONDS) s"; \
	./build-fuzz/fuzz_serial -max_total_time=$(FUZZ_SERIAL_SECONDS) -rss_limit_mb=2048 -timeout=10 \
	  -artifact_prefix=$$tmp.serial- -print_final_stats=1 $$tmp tests/data/fuzz_serial >$$log 2>&1; rc=$$?; \
	if [ $$rc = 0 ]; then tail -4 $$log; else grep -v -E '^#[0-9]+' $$log | tail -40; fi; \
	rm -rf $$tmp $$log; exit $$rc

# tcpdump is the yardstick, tcpreplay feeds watch: installed when root (skipped when missing)
bench: build
	-$(call ensure_pkgs,tcpdump tcpreplay)
	bash bench/run.sh

testbed: build
	$(call ensure_pkgs,$(TESTBED_DEPS))
	bash testbed/make-dataset.sh

validate: build
	bash testbed/validate.sh

install: build
	cmake --install build --prefix $(PREFIX)

clean:
	rm -rf build build-pgo build-asan build-fuzz build-mpi
