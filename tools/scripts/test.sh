#!/usr/bin/env bash
# Sets up (installs, builds) and runs every test: the release build's
# suites (gtest, lit), the same suites built with GCC, a check that the clang
# and GCC builds emit the same IR, then the runtime and baselines again under
# ASan+UBSan.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$(date +%s)
tools/scripts/setup.sh release gcc sanitize
status=0
echo "== tests: release build (clang)"
ctest --test-dir build --output-on-failure -j2 || status=1
echo "== tests: release build with GCC"
ctest --test-dir build-gcc --output-on-failure -j2 || status=1
echo "== emitted IR: clang build against GCC build"
tools/scripts/compare-ir.sh build/tools/gdr-opt build-gcc/tools/gdr-opt || status=1
echo "== tests: AddressSanitizer + UndefinedBehaviorSanitizer build"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-sanitize --output-on-failure -j2 || status=1
echo "== test command took $(( $(date +%s) - start )) s"
exit $status
