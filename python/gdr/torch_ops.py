"""torch.ops.gdr: the op with the schema of ExecuTorch's llama::gated_delta_rule.

    out, final_state = torch.ops.gdr.gated_delta_rule(query, key, value, decay, beta, initial_state)
    torch.ops.gdr.gated_delta_rule.out(query, ..., initial_state, out=o, final_state_out=s)

CPU float32 contiguous tensors, [B, heads, T, D] (head-major), one sequence
per batch row; the shapes decide the form (grouped readout or grouped
values, scalar or channelwise decay). The tensors' memory is passed to the
kernel as it is: no copy. A fake implementation lets torch.compile,
torch.export and make_fx trace it. Forward only (no autograd formula).
Imported by ``import gdr`` when torch is importable.
"""

import os

import torch

from . import _gdr

_ARGS = "Tensor query, Tensor key, Tensor value, Tensor decay, Tensor beta, Tensor initial_state"
SCHEMA = f"({_ARGS}) -> (Tensor, Tensor)"
OUT_SCHEMA = f"({_ARGS}, *, Tensor(a!) out, Tensor(b!) final_state_out) -> (Tensor(a!), Tensor(b!))"
_NAMES = ("query", "key", "value", "decay", "beta", "initial_state", "out", "final_state_out")


def _check(name, t):
    # What a tensor without data (fake, meta) can be checked for; the C++
    # API's checks (shapes, overlaps) come after.
    if not isinstance(t, torch.Tensor):
        raise ValueError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if t.dtype != torch.float32:
        raise ValueError(f"{name}: expected float32, got {str(t.dtype).replace('torch.', '')}")
    if not t.is_contiguous():
        raise ValueError(f"{name}: expected a contiguous tensor (.contiguous())")


def _operand(name, t):
    # A tensor the kernel can read: float32, contiguous, on the CPU.
    _check(name, t)
    if not t.is_cpu:
        raise ValueError(f"{name}: expected a CPU tensor, got device '{t.device}'")
    return t.data_ptr(), t.shape


def _shapes(tensors):
    # (out, final_state_out) shapes, after the checks a tensor without data
    # allows: dtype, contiguity and the C++ API's shape rules and messages.
    for name, t in zip(_NAMES, tensors):
        _check(name, t)
    return _gdr.torch_op_shapes([t.shape for t in tensors])


def _run(tensors):
    # torch's intra-op thread count (torch.set_num_threads), as its own CPU ops use.
    _gdr.run_pointers([_operand(n, t) for n, t in zip(_NAMES, tensors)], "auto", torch.get_num_threads())


def gated_delta_rule_fake(query, key, value, decay, beta, initial_state):
    out_shape, final_shape = _shapes((query, key, value, decay, beta, initial_state))
    return value.new_empty(out_shape), initial_state.new_empty(final_shape)


def gated_delta_rule(query, key, value, decay, beta, initial_state):
    out, final_state = gated_delta_rule_fake(query, key, value, decay, beta, initial_state)
    _run((query, key, value, decay, beta, initial_state, out, final_state))
    return out, final_state


def gated_delta_rule_out(query, key, value, decay, beta, initial_state, *, out, final_state_out):
    _run((query, key, value, decay, beta, initial_state, out, final_state_out))
    return out, final_state_out


def gated_delta_rule_out_fake(query, key, value, decay, beta, initial_state, *, out, final_state_out):
    _shapes((query, key, value, decay, beta, initial_state, out, final_state_out))
    return out, final_state_out


_OPS = (("gated_delta_rule", SCHEMA, gated_delta_rule, gated_delta_rule_fake),
        ("gated_delta_rule.out", OUT_SCHEMA, gated_delta_rule_out, gated_delta_rule_out_fake))


def _cpp_kernels_for_this_torch():
    # gdr._gdr_torch is built against one torch (python/CMakeLists.txt) and
    # loaded only by that one: another's C++ ABI may differ.
    path = os.path.join(os.path.dirname(__file__), "torch_version.txt")
    try:
        with open(path) as f:
            built_for = f.read().strip()
    except OSError:
        return False
    return built_for == torch.__version__


KERNELS = "Python"  # which kernels torch.ops.gdr runs: "C++" or "Python"
if _cpp_kernels_for_this_torch():
    from . import _gdr_torch  # noqa: F401  (defines and implements the ops)
    KERNELS = "C++"
elif hasattr(torch.library, "register_fake"):  # torch >= 2.4
    for _name, _schema, _impl, _fake in _OPS:
        torch.library.define(f"gdr::{_name}", _schema)
        torch.library.impl(f"gdr::{_name}", "cpu", _impl)
        torch.library.register_fake(f"gdr::{_name}", _fake)
else:  # torch 1.13 to 2.3: a Meta kernel is what fake tensors run
    _library = torch.library.Library("gdr", "DEF")
    for _name, _schema, _impl, _fake in _OPS:
        _library.define(_name + _schema)
        _library.impl(_name, _impl, "CPU")
        _library.impl(_name, _fake, "Meta")
        _library.impl(_name, _fake, "AutogradMeta")  # 1.13 has no autograd fallthrough for meta tensors
