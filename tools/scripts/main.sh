#!/usr/bin/env bash
# Sets up (installs, builds) and runs the main job on the built-in default
# shape (B=1, H=32, K=V=128; decode and a 512-token prefill, 1 and 2
# threads): every implementation side by side. Prints where the report is.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/scripts/setup.sh release
mkdir -p reports
build/tools/gdr-bench --H 32 --T 1,512 --threads 1,2 --json reports/bench.json | tee reports/bench.txt
echo
echo "report: $(pwd)/reports/bench.txt (table) and $(pwd)/reports/bench.json (records)"
