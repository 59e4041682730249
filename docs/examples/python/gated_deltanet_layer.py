"""A Gated DeltaNet / Kimi Delta Attention style layer on torch.ops.gdr.

    PYTHONPATH=build/python /usr/bin/python3 docs/examples/python/gated_deltanet_layer.py

Projections, the decay gate (scalar per head as Gated DeltaNet, or per
channel as KDA), beta, L2-normalised query and key, then the recurrence
through torch.ops.gdr.gated_delta_rule (ExecuTorch's schema), for a prefill
and a run of decode steps that carry the state. The same layer runs the
recurrence as a plain PyTorch loop (what a model without a fused op does),
and through ExecuTorch's llama::gated_delta_rule when ExecuTorch is
installed; it prints their times side by side and the outputs' difference.
"""

import argparse
import math
import time

import torch
import torch.nn.functional as F

import gdr  # noqa: F401  (registers torch.ops.gdr)


def recurrence_in_torch(query, key, value, decay, beta, state):
    """The op as a token loop in PyTorch ops, [B, H, T, D] tensors."""
    outs = []
    if decay.dim() == 3:
        decay = decay.unsqueeze(-1)
    for t in range(query.shape[2]):
        state = state * decay[:, :, t].unsqueeze(-1)
        k = key[:, :, t]
        delta = beta[:, :, t].unsqueeze(-1) * (value[:, :, t] - torch.einsum("bhkv,bhk->bhv", state, k))
        state = state + k.unsqueeze(-1) * delta.unsqueeze(-2)
        outs.append(torch.einsum("bhkv,bhk->bhv", state, query[:, :, t]))
    return torch.stack(outs, dim=2), state


def executorch_op():
    """ExecuTorch's op when its custom ops are installed, else None."""
    try:
        import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401
        return torch.ops.llama.gated_delta_rule
    except (ImportError, AttributeError, RuntimeError):
        return None


class GatedDeltaLayer(torch.nn.Module):
    def __init__(self, hidden, heads, head_dim, gate="scalar"):
        super().__init__()
        self.heads, self.head_dim, self.gate = heads, head_dim, gate
        inner = heads * head_dim
        self.q_proj = torch.nn.Linear(hidden, inner, bias=False)
        self.k_proj = torch.nn.Linear(hidden, inner, bias=False)
        self.v_proj = torch.nn.Linear(hidden, inner, bias=False)
        # Gated DeltaNet: one decay per head, exp(-exp(A_log) * softplus(a + dt_bias));
        # KDA: one per key channel.
        self.a_proj = torch.nn.Linear(hidden, heads if gate == "scalar" else inner, bias=False)
        self.A_log = torch.nn.Parameter(torch.log(torch.empty(heads).uniform_(1, 16)))
        self.dt_bias = torch.nn.Parameter(torch.zeros(heads if gate == "scalar" else inner))
        self.b_proj = torch.nn.Linear(hidden, heads, bias=False)
        self.o_proj = torch.nn.Linear(inner, hidden, bias=False)

    def heads_first(self, x, width):
        # [B, T, H*D] -> [B, H, T, D] (a view for T = 1, one copy otherwise)
        B, T, _ = x.shape
        return x.view(B, T, self.heads, width).transpose(1, 2).contiguous()

    def forward(self, x, state, recurrence):
        B, T, _ = x.shape
        D = self.head_dim
        q = F.normalize(self.heads_first(self.q_proj(x), D), dim=-1) / math.sqrt(D)
        k = F.normalize(self.heads_first(self.k_proj(x), D), dim=-1)
        v = self.heads_first(self.v_proj(x), D)
        a = self.a_proj(x) + self.dt_bias
        if self.gate == "scalar":
            decay = torch.exp(-self.A_log.exp() * F.softplus(a)).transpose(1, 2).contiguous()  # [B, H, T]
        else:
            rate = self.A_log.exp().repeat_interleave(D)
            decay = self.heads_first(torch.exp(-rate * F.softplus(a) / D), D)  # [B, H, T, K]
        beta = torch.sigmoid(self.b_proj(x)).transpose(1, 2).contiguous()  # [B, H, T]
        out, state = recurrence(q, k, v, decay, beta, state)
        return self.o_proj(out.transpose(1, 2).reshape(B, T, -1)), state


class Timed:
    """A recurrence that adds up the time spent in it."""

    def __init__(self, recurrence):
        self.recurrence, self.seconds = recurrence, 0.0

    def __call__(self, *args):
        start = time.perf_counter()
        result = self.recurrence(*args)
        self.seconds += time.perf_counter() - start
        return result


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hidden", type=int, default=2048)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--head-dim", type=int, default=128)
    p.add_argument("--gate", choices=["scalar", "channel"], default="scalar")
    p.add_argument("--prefill", type=int, default=512, help="prefill tokens")
    p.add_argument("--decode", type=int, default=32, help="decode steps after the prefill")
    args = p.parse_args()

    torch.manual_seed(0)
    layer = GatedDeltaLayer(args.hidden, args.heads, args.head_dim, args.gate).eval()
    x = torch.randn(1, args.prefill + args.decode, args.hidden)
    state0 = torch.zeros(1, args.heads, args.head_dim, args.head_dim)
    recurrences = {"gdr (torch.ops.gdr)": torch.ops.gdr.gated_delta_rule, "PyTorch loop": recurrence_in_torch}
    if executorch_op() is not None:
        recurrences["ExecuTorch (torch.ops.llama)"] = executorch_op()

    def run(recurrence):
        # Seconds in the layer and in its recurrence, prefill then per decode step.
        prefill, decode = Timed(recurrence), Timed(recurrence)
        layer(x[:, :args.prefill], state0, recurrence)  # compile and warm up
        if args.decode:  # the decode step's kernel too (else its compile is timed: ~100x a first run's step)
            layer(x[:, args.prefill:args.prefill + 1], state0, recurrence)
        start = time.perf_counter()
        y, state = layer(x[:, :args.prefill], state0, prefill)
        prefill_layer = time.perf_counter() - start
        ys = [y]
        start = time.perf_counter()
        for t in range(args.prefill, args.prefill + args.decode):
            y, state = layer(x[:, t:t + 1], state, decode)
            ys.append(y)
        steps = max(args.decode, 1)
        decode_layer = (time.perf_counter() - start) / steps
        return (prefill.seconds, prefill_layer, decode.seconds / steps, decode_layer), torch.cat(ys, dim=1)

    print(f"layer: hidden {args.hidden}, {args.heads} heads of {args.head_dim}, {args.gate} decay; "
          f"prefill {args.prefill} tokens, then {args.decode} decode steps; torch {torch.__version__}, "
          f"{torch.get_num_threads()} thread(s)")
    if "ExecuTorch (torch.ops.llama)" not in recurrences:
        print("ExecuTorch's custom ops are not installed here: its column is left out")
    with torch.no_grad():
        results = {name: run(recurrence) for name, recurrence in recurrences.items()}
    base, base_y = results["gdr (torch.ops.gdr)"]
    print(f"{'recurrence':30} {'prefill: op':>12} {'(layer)':>10} {'decode step: op':>16} {'(layer)':>10}")
    for name, (times, _) in results.items():
        print(f"{name:30} {times[0] * 1e3:9.2f} ms {times[1] * 1e3:7.1f} ms {times[2] * 1e6:13.1f} us "
              f"{times[3] * 1e3:7.2f} ms   op: {times[0] / base[0]:.2f}x, {times[2] / base[2]:.2f}x of gdr")
    for name, (_, y) in results.items():
        if y is not base_y:
            diff = (y - base_y).abs().max().item() / (1 + base_y.abs().max().item())
            print(f"max |gdr - {name}| / (1 + max |gdr|) = {diff:.2e}")


if __name__ == "__main__":
    main()
