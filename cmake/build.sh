#!/usr/bin/env bash
# build.sh JOBS PGO: build/ for make build and make run (RelWithDebInfo).
# PGO=1: profile-guided (README, Development): an instrumented dmlscope in
# build-pgo, trained by cmake/pgo-train.sh, then build/ compiled with its
# profiles.  PGO=0: without (a quicker rebuild while editing).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-2} pgo=${2:-1}
if [ "$pgo" = 0 ]; then
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDMLS_PGO=OFF >/dev/null
else
	cmake -S . -B build-pgo -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDMLS_PGO=GENERATE >/dev/null
	cmake --build build-pgo -j"$jobs" --target dmlscope
	cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDMLS_PGO=USE >/dev/null
	bash cmake/pgo-train.sh build-pgo build
fi
cmake --build build -j"$jobs"
