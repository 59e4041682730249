"""torch.ops.gdr: the op with the schema of ExecuTorch's llama::gated_delta_rule,
keyword arguments for the rest of the interface, and a pool op for serving.

    out, final_state = torch.ops.gdr.gated_delta_rule(query, key, value, decay, beta, initial_state,
                                                      layout="bhtd", cu_seqlens=None)
    torch.ops.gdr.gated_delta_rule.out(query, ..., initial_state, out=o, final_state_out=s)
    out = torch.ops.gdr.gated_delta_rule_pool(query, key, value, decay, beta, state_pool,
                                              initial_state_indices, final_state_indices,
                                              layout="bthd", cu_seqlens=offsets)

CPU float32 contiguous tensors (offsets and indices int32 or int64, rank 1);
the shapes decide the form (grouped readout or grouped values, scalar or
channelwise decay), `layout` the order of tokens and heads, `cu_seqlens`
packs sequences into one batch row. The pool op reads each sequence's state
from its initial slot (-1: zeros) and writes it to its final slot of the
same pool, in place. The tensors' memory is passed to the kernel as it is:
no copy. Fake implementations let torch.compile, torch.export and make_fx
trace them, symbolic sizes too (a dynamic T or cu_seqlens' length stays
so: no graph per size). Forward only (no autograd formula). Imported by
``import gdr`` when torch is importable.
"""

import os

import torch

from . import _gdr

SCHEMAS = dict(_gdr.torch_op_schemas)  # name -> signature, as the C++ kernels define them
_NAMES = ("query", "key", "value", "decay", "beta", "initial_state", "out", "final_state_out")
_POOL_NAMES = ("query", "key", "value", "decay", "beta", "state_pool")


def _check(name, t):
    # What a tensor without data (fake, meta) can be checked for; the C++
    # API's checks (shapes, overlaps) come after. No backward: a tensor that
    # requires grad is refused, not run with the outputs cut from the graph.
    if not isinstance(t, torch.Tensor):
        raise ValueError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if torch.is_grad_enabled() and t.requires_grad:
        raise RuntimeError(f"{name}: requires grad, but torch.ops.gdr has no backward (forward only): call it under "
                           "torch.no_grad() or torch.inference_mode(), or on tensors that do not require grad")
    if t.dtype != torch.float32:
        raise ValueError(f"{name}: expected float32, got {str(t.dtype).replace('torch.', '')}")
    if not t.is_contiguous():
        raise ValueError(f"{name}: expected a contiguous tensor (.contiguous())")


def _check_indices(name, t):
    # Offsets and slot indices: int32 or int64, rank 1, contiguous.
    if not isinstance(t, torch.Tensor):
        raise ValueError(f"{name}: expected a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in (torch.int32, torch.int64):
        raise ValueError(f"{name}: expected int32 or int64, got {str(t.dtype).replace('torch.', '')}")
    if t.dim() != 1:
        raise ValueError(f"{name}: expected rank 1, got shape {tuple(t.shape)}")
    if not t.is_contiguous():
        raise ValueError(f"{name}: expected a contiguous tensor (.contiguous())")


def _on_cpu(name, t):
    if not t.is_cpu:
        raise ValueError(f"{name}: expected a CPU tensor, got device '{t.device}'")


def _operand(name, t):
    # A tensor the kernel can read: float32, contiguous, on the CPU.
    _check(name, t)
    _on_cpu(name, t)
    return t.data_ptr(), t.shape


def _index_operand(name, t):
    if t is None:
        return None
    _check_indices(name, t)
    _on_cpu(name, t)
    return t.data_ptr(), str(t.dtype).replace("torch.", ""), t.shape[0]


def _shapes(names, tensors, layout, cu_seqlens, slots=(None, None)):
    # (out, final_state_out) shapes, after the checks a tensor without data
    # allows: dtype, contiguity and the C++ API's shape rules and messages.
    for name, t in zip(names, tensors):
        _check(name, t)
    indices = {"cu_seqlens": cu_seqlens, "initial_state_indices": slots[0], "final_state_indices": slots[1]}
    for name, t in indices.items():
        if t is not None:
            _check_indices(name, t)
    # Fake kernels run when any argument is a meta tensor: a mix with CPU
    # ones would give outputs of no values and write nothing.
    for name, t in list(zip(names, tensors)) + list(indices.items()):
        if t is not None and t.device != tensors[0].device:
            raise ValueError(f"{name}: expected a tensor on query's device ({tensors[0].device}), got {t.device}")
    shapes = [tuple(t.shape) for t in tensors]
    index_shapes = {n: None if t is None else tuple(t.shape) for n, t in indices.items()}
    if all(isinstance(size, int) for shape in shapes + list(index_shapes.values()) if shape for size in shape):
        return _gdr.torch_op_shapes(shapes, layout, **index_shapes)
    # Symbolic sizes (torch.SymInt: torch.compile's dynamic shapes,
    # torch.export's Dims, make_fx's "symbolic" mode): the C++ check would
    # read each as an int, which fixes it to its example's value (a guard:
    # a recompile per T; export refuses a dynamic Dim so fixed).
    return _symbolic_shapes(names, shapes, layout, **index_shapes)


# The most query heads per state head the generated routes read out
# (compiler/include/gdr/compiler/kernel_spec.h, kMaxGeneratedReadouts): the
# route the ops run (auto) refuses more, and so must a fake kernel where the
# C++ check cannot run.
_MAX_READOUTS = 8


def _require(cond, message):
    # A rule on sizes: a bool (plain ints), or a torch.SymBool that
    # torch._check_value makes a guard (torch.compile), a constraint on the
    # Dims (torch.export: one whose range breaks it is refused, with the fix)
    # or a runtime assert. ValueError(message()) if it is false.
    if isinstance(cond, bool):
        if not cond:
            raise ValueError(message())
    else:
        torch._check_value(cond, message)


def _value(size):
    # A size in a message, once its rule has failed: its value in this call
    # (the guard int() adds no longer matters), or its symbol where it has
    # none (an unbacked size).
    try:
        return int(size)
    except Exception:
        return size


def _shape_string(shape):
    return str(tuple(_value(size) for size in shape))


def _max(a, b):
    return max(a, b) if isinstance(a, int) and isinstance(b, int) else torch.sym_max(a, b)


def _symbolic_shapes(names, shapes, layout, cu_seqlens=None, initial_state_indices=None, final_state_indices=None):
    # _gdr.torch_op_shapes on sizes some of which are symbolic, in plain
    # Python arithmetic that keeps them so: gdr::shape_call's rules
    # (runtime/src/array_shapes.cpp) in its order and with its messages, and
    # the route's limit on query heads per state head (gdr::jit::takes). Not
    # checked: that byte counts fit in 64 bits (validate_sizes), which the
    # CPU kernel checks when it runs. On plain ints it gives what the C++
    # check gives.
    if layout not in ("bhtd", "bthd"):
        raise ValueError(f"layout: expected 'bhtd' or 'bthd', got '{layout}'")
    pool = initial_state_indices is not None  # the pool op: state_pool is both states, indexed
    name = dict(zip(("query", "key", "value", "decay", "beta", "initial_state", "out", "final_state"), names))
    token_major = layout == "bthd"
    order = "T, heads" if token_major else "heads, T"
    in_layout = f" (layout='{layout}')"
    sizes_from = f"from {name['query']} and {name['value']}{in_layout}"
    q, k, v, decay, beta, initial = shapes[:6]

    def rank_4(field, shape, width):
        if len(shape) != 4:
            raise ValueError(f"{name[field]}: expected rank 4 [B, {order}, {width}]{in_layout}, got shape "
                             f"{_shape_string(shape)}")

    rank_4("query", q, "K")
    rank_4("value", v, "V")
    heads_at = 2 if token_major else 1
    B, T, Hq, K = q[0], q[3 - heads_at], q[heads_at], q[3]
    H, V = v[heads_at], v[3]
    for field, size, what, shape in (("query", B, "B", q), ("query", K, "K", q), ("value", H, "H (its heads)", v),
                                     ("value", V, "V", v)):
        _require(size > 0, lambda: f"{name[field]}: {what} must be positive, got shape {_shape_string(shape)}"
                                   f"{in_layout}")

    def tensor(heads, width=None):  # `heads` heads in the layout; no width: one value per token
        shape = (B, T, heads) if token_major else (B, heads, T)
        return shape if width is None else shape + (width,)

    def agree(field, got, want, what):
        def message():
            return (f"{name[field]}: shape {_shape_string(got)} does not match the expected {_shape_string(want)} "
                    f"({what}{sizes_from})")
        if len(got) != len(want):
            raise ValueError(message())
        for got_size, want_size in zip(got, want):
            _require(got_size == want_size, message)

    agree("value", v, tensor(H, V), "B and T ")
    rank_4("key", k, "K")
    Hk = k[heads_at]
    agree("key", k, tensor(Hk, K), "")

    def key_heads():
        return f"{name['key']}: has {_value(Hk)} heads, which does not divide value's {_value(H)}"

    _require(Hk != 0, key_heads)
    _require(H % Hk == 0, key_heads)

    def query_heads():
        return f"{name['query']}: has {_value(Hq)} heads; neither it nor value's {_value(H)} is a multiple of the other"

    _require(Hq != 0, query_heads)
    _require((H % Hq == 0) | (Hq % H == 0), query_heads)
    if len(decay) not in (3, 4):
        raise ValueError(f"{name['decay']}: expected rank 4 (channelwise, [B, {order}, K]) or 3 (scalar, [B, "
                         f"{order}]){in_layout}, got shape {_shape_string(decay)}")
    scalar = len(decay) == 3
    agree("decay", decay, tensor(H, None if scalar else K), "scalar decay, " if scalar else "channelwise decay, ")
    agree("beta", beta, tensor(H), "")
    out = tensor(_max(Hq, H), V)
    if len(shapes) == 8:
        agree("out", shapes[6], out, "")

    N = B  # sequences: B, or the offsets' count less one
    if cu_seqlens is not None:
        _require(B == 1, lambda: f"cu_seqlens: a variable-length batch needs B = 1, but {name['query']} has "
                                 f"B = {_value(B)}")
        _require(cu_seqlens[0] >= 1, lambda: "cu_seqlens: needs at least one offset (0), got none")
        N = cu_seqlens[0] - 1

    def sequences():
        return f"{_value(N)} sequence{'' if _value(N) == 1 else 's'} ({'B' if cu_seqlens is None else 'cu_seqlens'})"

    for field, shape in (("initial_state_indices", initial_state_indices),
                         ("final_state_indices", final_state_indices)):
        if shape is not None:
            _require(shape[0] == N, lambda: f"{field}: has {_value(shape[0])} entries, but there are {sequences()}")

    def pool_agrees(field, shape, indexed):  # [rows, H, K, V]; rows = N unless indices say where
        def message():
            want = (f"(S, {_value(H)}, {_value(K)}, {_value(V)}) for a pool of S rows" if indexed else
                    f"{_shape_string((N, H, K, V))} ({sequences()}, H and V from {name['value']}, K from "
                    f"{name['query']})")
            return f"{name[field]}: shape {_shape_string(shape)} does not match the expected {want}"
        if len(shape) != 4:
            raise ValueError(message())
        for got_size, want_size in zip(shape, (None if indexed else N, H, K, V)):
            if want_size is not None:
                _require(got_size == want_size, message)

    pool_agrees("initial_state", initial, pool)
    if pool:  # one pool, read and written in place at the slots
        final = initial
    elif len(shapes) == 8:
        pool_agrees("final_state", shapes[7], False)
        final = shapes[7]
    else:
        final = (N, H, K, V)
    # At most _MAX_READOUTS query heads per state head: Hq // H, where Hq is
    # a multiple of H if it is larger (checked above).
    _require(Hq <= _MAX_READOUTS * H, lambda: f"query_heads: the generated routes read a state head out with at "
                                             f"most {_MAX_READOUTS} query heads, got {_value(Hq) // _value(H)} "
                                             f"(query_heads={_value(Hq)}, H={_value(H)})")
    return out, final


def _written(t):
    # A tensor written in place (out=, a pool) has changed, as autograd must
    # see (an inference tensor keeps no version). torch >= 2.1 says how;
    # before, an in-place op on an empty view of t bumps the version counter
    # every view of t shares, and writes nothing.
    if t.is_inference():
        return
    if hasattr(torch.autograd.graph, "increment_version"):
        torch.autograd.graph.increment_version(t)
    else:
        t.view(-1)[:0].add_(0)


def _run(names, tensors, layout, cu_seqlens, slots=(None, None)):
    # torch's intra-op thread count (torch.set_num_threads), as its own CPU ops use.
    _gdr.run_pointers([_operand(n, t) for n, t in zip(names, tensors)], "auto", torch.get_num_threads(), layout,
                      _index_operand("cu_seqlens", cu_seqlens), _index_operand("initial_state_indices", slots[0]),
                      _index_operand("final_state_indices", slots[1]))


def gated_delta_rule_fake(query, key, value, decay, beta, initial_state, *, layout="bhtd", cu_seqlens=None):
    inputs = (query, key, value, decay, beta, initial_state)
    out_shape, final_shape = _shapes(_NAMES, inputs, layout, cu_seqlens)
    return value.new_empty(out_shape), initial_state.new_empty(final_shape)


def gated_delta_rule(query, key, value, decay, beta, initial_state, *, layout="bhtd", cu_seqlens=None):
    out, final_state = gated_delta_rule_fake(query, key, value, decay, beta, initial_state, layout=layout,
                                             cu_seqlens=cu_seqlens)
    _run(_NAMES, (query, key, value, decay, beta, initial_state, out, final_state), layout, cu_seqlens)
    return out, final_state


def gated_delta_rule_out_fake(query, key, value, decay, beta, initial_state, *, layout="bhtd", cu_seqlens=None,
                              out, final_state_out):
    _shapes(_NAMES, (query, key, value, decay, beta, initial_state, out, final_state_out), layout, cu_seqlens)
    return out, final_state_out


def gated_delta_rule_out(query, key, value, decay, beta, initial_state, *, layout="bhtd", cu_seqlens=None, out,
                         final_state_out):
    # Shapes first: the schema's names in messages, as the C++ kernels give them.
    gated_delta_rule_out_fake(query, key, value, decay, beta, initial_state, layout=layout, cu_seqlens=cu_seqlens,
                              out=out, final_state_out=final_state_out)
    _run(_NAMES, (query, key, value, decay, beta, initial_state, out, final_state_out), layout, cu_seqlens)
    _written(out)
    _written(final_state_out)
    return out, final_state_out


def gated_delta_rule_pool_fake(query, key, value, decay, beta, state_pool, initial_state_indices,
                               final_state_indices, *, layout="bhtd", cu_seqlens=None):
    out_shape, _ = _shapes(_POOL_NAMES, (query, key, value, decay, beta, state_pool), layout, cu_seqlens,
                           (initial_state_indices, final_state_indices))
    return value.new_empty(out_shape)


def gated_delta_rule_pool(query, key, value, decay, beta, state_pool, initial_state_indices, final_state_indices,
                          *, layout="bhtd", cu_seqlens=None):
    slots = (initial_state_indices, final_state_indices)
    out = gated_delta_rule_pool_fake(query, key, value, decay, beta, state_pool, *slots, layout=layout,
                                     cu_seqlens=cu_seqlens)
    _run(_POOL_NAMES + ("out", "state_pool"), (query, key, value, decay, beta, state_pool, out, state_pool), layout,
         cu_seqlens, slots)
    _written(state_pool)
    return out


_OPS = (("gated_delta_rule", gated_delta_rule, gated_delta_rule_fake),
        ("gated_delta_rule.out", gated_delta_rule_out, gated_delta_rule_out_fake),
        ("gated_delta_rule_pool", gated_delta_rule_pool, gated_delta_rule_pool_fake))


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


def _import_cpp_kernels():
    # A torch whose C++ ABI differs from the runtime's (PyPI wheels before
    # 2.7 use the old std::string) leaves symbols unresolved: the Python
    # kernels then, with a warning, not a failed `import gdr`.
    try:
        from . import _gdr_torch  # noqa: F401  (defines and implements the ops)
    except ImportError as e:
        import warnings
        warnings.warn(f"gdr: torch.ops.gdr runs its Python kernels: the C++ ones do not load ({e})")
        return False
    return True


KERNELS = "Python"  # which kernels torch.ops.gdr runs: "C++" or "Python"
_FAKES_BY_REGISTER_FAKE = hasattr(torch.library, "register_fake")  # torch >= 2.4
if _cpp_kernels_for_this_torch() and _import_cpp_kernels():
    KERNELS = "C++"  # defined and implemented in C++; from torch 2.4 their fakes are these
elif _FAKES_BY_REGISTER_FAKE:
    for _name, _impl, _fake in _OPS:
        torch.library.define(f"gdr::{_name}", SCHEMAS[_name])
        torch.library.impl(f"gdr::{_name}", "cpu", _impl)
else:  # torch 1.13 to 2.3: a Meta kernel is what fake tensors run
    _library = torch.library.Library("gdr", "DEF")
    for _name, _impl, _fake in _OPS:
        _library.define(_name + SCHEMAS[_name])
        _library.impl(_name, _impl, "CPU")
        _library.impl(_name, _fake, "Meta")
        _library.impl(_name, _fake, "AutogradMeta")  # 1.13 has no autograd fallthrough for meta tensors
if _FAKES_BY_REGISTER_FAKE:  # either kernels' fakes (the C++ ones register no Meta kernel there)
    for _name, _impl, _fake in _OPS:
        torch.library.register_fake(f"gdr::{_name}", _fake)
