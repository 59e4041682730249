"""What a call through the Python entry points costs over the same call
through the C++ API (gdr::run on the same buffers), at the flagship decode
shape (B = 1, H = 32, K = V = 128, T = 1) by default.

    PYTHONPATH=build/python /usr/bin/python3 python/benchmarks/op_overhead.py [--threads N] [--T T]

Each round times one call of each, alternating (C++ timed inside C++ by
gdr._gdr.time_pointers, the others around the Python call), so that the
machine's drift hits all alike; prints medians and 10th percentiles. Each
call finds the caches as the previous call's state sweep left them; so does
torch's own aten.mul.out on 4 floats, timed the same way as the floor of
any torch op's dispatch in that state.
"""

import argparse
import statistics
import time

import numpy as np
import torch

import gdr
from gdr import _gdr, torch_ops


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=torch.get_num_threads(),
                   help="threads of every call (torch.set_num_threads for the torch op)")
    p.add_argument("--T", type=int, default=1)
    p.add_argument("--H", type=int, default=32)
    p.add_argument("--rounds", type=int, default=4000)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    H, T, D = args.H, args.T, 128
    inputs = [torch.randn(1, H, T, D), torch.randn(1, H, T, D), torch.randn(1, H, T, D),
              torch.rand(1, H, T, D), torch.rand(1, H, T), torch.randn(1, H, D, D)]
    out, final_state = torch.empty(1, H, T, D), torch.empty(1, H, D, D)
    pointers = [torch_ops._operand(n, t) for n, t in zip(torch_ops._NAMES, inputs + [out, final_state])]
    arrays = [t.numpy() for t in inputs]
    out_array, final_array = out.numpy(), final_state.numpy()  # views of the same memory
    op_out, op = torch.ops.gdr.gated_delta_rule.out, torch.ops.gdr.gated_delta_rule
    clock = time.perf_counter

    def around(call):
        start = clock()
        call()
        return clock() - start

    x, y, z = torch.ones(4), torch.ones(4), torch.empty(4)
    cases = {
        "C++ API (gdr::run)": lambda: _gdr.time_pointers(pointers, "auto", args.threads, 1),
        "torch.ops.aten.mul.out, 4 floats": lambda: around(lambda: torch.ops.aten.mul.out(x, y, out=z)),
        "torch.ops.gdr .out": lambda: around(lambda: op_out(*inputs, out=out, final_state_out=final_state)),
        "torch.ops.gdr (allocates outputs)": lambda: around(lambda: op(*inputs)),
        "gdr.gated_delta_rule, out given": lambda: around(
            lambda: gdr.gated_delta_rule(*arrays, out=out_array, final_state=final_array, threads=args.threads)),
    }
    times = {name: [] for name in cases}
    for _ in range(200):  # compile, warm up
        for run in cases.values():
            run()
    for _ in range(args.rounds):
        for name, run in cases.items():
            times[name].append(run())
    base = statistics.median(times["C++ API (gdr::run)"])
    print(f"B=1 H={H} K=V={D} T={T}, {args.threads} thread(s), torch {torch.__version__}, "
          f"torch.ops.gdr kernels: {torch_ops.KERNELS}; {args.rounds} alternating rounds")
    for name, samples in times.items():
        median, p10 = statistics.median(samples), np.percentile(samples, 10)
        print(f"  {name:36} median {median * 1e6:8.1f} us  p10 {p10 * 1e6:8.1f} us  "
              f"over the C++ API: {(median - base) * 1e6:+7.1f} us")


if __name__ == "__main__":
    main()
