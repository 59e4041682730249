#!/usr/bin/env bash
# Sets up (installs, builds) and runs every test: the release build's
# suites (gtest, lit), then the runtime and baselines again under ASan+UBSan.
set -euo pipefail
cd "$(dirname "$0")/../.."
export GDR_CACHE_DIR="$PWD/build/test-cache"  # tests never touch the user's ~/.cache/gdr
start=$(date +%s)
tools/scripts/setup.sh release sanitize
status=0
echo "== tests: release build"
ctest --test-dir build --output-on-failure -j2 || status=1
echo "== tests: AddressSanitizer + UndefinedBehaviorSanitizer build"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-sanitize --output-on-failure -j2 || status=1
echo "== test command took $(( $(date +%s) - start )) s"
exit $status
