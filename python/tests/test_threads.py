"""The GIL is released while a kernel runs: two Python threads calling at
once finish in about the time of one call on two cores."""

import threading
import time

import numpy as np
import pytest

import gdr
from contract import make_inputs

pytestmark = pytest.mark.serial  # timing: ctest runs it alone


def one_call(run):
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def two_at_once(run):
    barrier = threading.Barrier(2)
    def worker():
        barrier.wait()
        run()
    threads = [threading.Thread(target=worker) for _ in range(2)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start


def assert_two_threads_overlap(run):
    run()  # compile (or load) the kernel first
    # Best of seven: a busy machine only makes both numbers larger.
    alone = min(one_call(run) for _ in range(7))
    together = min(two_at_once(run) for _ in range(7))
    # Serialised calls take 2x; overlapped ones 1.0-1.4x on these VMs.
    assert together < 1.6 * alone, f"two threads at once took {together / alone:.2f}x one call"


def test_numpy_calls_from_two_threads_overlap(rng):
    arrays = make_inputs(rng, B=1, H=8, T=8192, K=64, V=64)  # tens of ms a call
    # An output per thread, allocated once: first-touch page faults of fresh
    # outputs in two threads at once contend in the kernel, not in gdr.
    outs = {}

    def run():
        out = outs.setdefault(threading.get_ident(), np.empty((1, 8, 8192, 64), dtype=np.float32))
        gdr.gated_delta_rule(**arrays, out=out, route="recurrent", threads=1)

    assert_two_threads_overlap(run)


def test_torch_op_calls_from_two_threads_overlap(rng):
    torch = pytest.importorskip("torch")
    arrays = make_inputs(rng, B=1, H=8, T=8192, K=64, V=64)
    inputs = [torch.from_numpy(arrays[n]) for n in ("query", "key", "value", "decay", "beta", "initial_state")]
    outs = {}

    def run():
        out = outs.setdefault(threading.get_ident(), (torch.empty(1, 8, 8192, 64), torch.empty(1, 8, 64, 64)))
        torch.ops.gdr.gated_delta_rule.out(*inputs, out=out[0], final_state_out=out[1])

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # each call on one core, as torch's own ops would run
    try:
        assert_two_threads_overlap(run)
    finally:
        torch.set_num_threads(threads)
