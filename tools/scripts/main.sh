#!/usr/bin/env bash
# Sets up (installs, builds) and runs the main job on the built-in default
# shape (B=1, H=32, K=V=128): compiles both generated routes ahead of time
# for this CPU (object + header), tunes both routes' schedules for this CPU
# (gdr-tune: decode and a 512-token prefill, 1 and 2 threads; report in
# reports/tune.{md,json} with its SVG plots beside it, winners in the tuning
# database the routes read), then benchmarks the tuned routes against the
# baselines. Prints where the reports and the plots are. About 100 s on the 2-core dev VM once built (tuning: ~60 s).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/scripts/setup.sh release
mkdir -p reports/kernels
threads=1,2
[ "$(nproc)" -ge 2 ] || threads=1
echo "== compiling for this CPU"
build/tools/gdr-compile --route recurrent --K 128 --V 128 --shared 1 --out reports/kernels/recurrent_k128_v128
build/tools/gdr-compile --route chunked --K 128 --V 128 --out reports/kernels/chunked_k128_v128
build/tools/gdr-compile --runtime reports/kernels/halide_runtime.o
echo "== tuning for this CPU"
build/tools/gdr-tune --B 1 --H 32 --K 128 --V 128 --T 1,512 --threads "$threads" --seconds 0.5 \
  --report reports/tune | tee reports/tune.txt
db=$(sed -n 's/^tuning db: \(.*\) ([0-9]* records written.*/\1/p' reports/tune.txt)
echo "== benchmarking (auto, recurrent and chunked run the tuned schedules; T = 0, the state copy, is decode's floor)"
build/tools/gdr-bench --impl auto,recurrent,chunked,baseline-two-pass,baseline-chunked \
  --H 32 --T 0,1,512 --threads "$threads" --json reports/bench.json | tee reports/bench.txt
echo
echo "reports: $(pwd)/reports/tune.md (tuning: every candidate, winners) and $(pwd)/reports/tune.json"
echo "plots:   $(pwd)/reports/tune-time-per-token.svg (time per token against T, the crossover)"
echo "         $(pwd)/reports/tune-chunked-grid.svg (chunked route: chunk x vector width)"
echo "         $(pwd)/reports/tune-decode-bandwidth.svg (decode against the copy floor)"
echo "         $(pwd)/reports/bench.txt (benchmark table) and $(pwd)/reports/bench.json (records)"
echo "kernels: $(pwd)/reports/kernels/"
echo "tuning database (read by the routes): $db"
