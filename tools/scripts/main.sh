#!/usr/bin/env bash
# Sets up (installs, builds) and runs the main job on the built-in default
# shape (B=1, H=32, K=V=128): compiles both generated routes ahead of time
# for this CPU (object + header), then benchmarks them against the baselines
# (decode and a 512-token prefill, 1 and 2 threads). Prints where the
# report is. (Autotuning is not built yet: the routes run their measured
# default schedules.)
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/scripts/setup.sh release
mkdir -p reports/kernels
echo "== compiling for this CPU"
build/tools/gdr-compile --route recurrent --K 128 --V 128 --out reports/kernels/recurrent_k128_v128
build/tools/gdr-compile --route chunked --K 128 --V 128 --out reports/kernels/chunked_k128_v128
build/tools/gdr-compile --runtime reports/kernels/halide_runtime.o
echo "== benchmarking"
build/tools/gdr-bench --H 32 --T 1,512 --threads 1,2 --json reports/bench.json | tee reports/bench.txt
echo
echo "report: $(pwd)/reports/bench.txt (table) and $(pwd)/reports/bench.json (records);"
echo "        kernels: $(pwd)/reports/kernels/"
