"""The worked example of docs/python.md runs, and gdr's layer output agrees
with the same layer over a PyTorch token loop."""

import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("torch")
EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "examples", "python", "gated_deltanet_layer.py")


@pytest.mark.parametrize("gate", ["scalar", "channel"])
def test_the_layer_example_runs_and_agrees_with_a_torch_loop(gate):
    run = subprocess.run([sys.executable, EXAMPLE, "--hidden", "64", "--heads", "2", "--head-dim", "16",
                          "--gate", gate, "--prefill", "20", "--decode", "3"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "gdr (torch.ops.gdr)" in run.stdout and "PyTorch loop" in run.stdout
    difference = re.search(r"max \|gdr - PyTorch loop\| / \(1 \+ max \|gdr\|\) = (\S+)", run.stdout)
    assert difference and float(difference.group(1)) < 1e-5, run.stdout
