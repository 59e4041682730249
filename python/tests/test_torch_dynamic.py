"""torch.ops.gdr with symbolic sizes (torch >= 2.4): torch.compile(dynamic=True)
and torch.export with a dynamic T or cu_seqlens' length trace the ops without
fixing those sizes, and give eager's bits; the fake kernels' Python rules give
the C++ check's results and messages.

Debian's torch 1.13 runs the last test only (the Python rules against the
C++ check, which keeps the two in step); the rest ran on torch 2.15
(2026-12-07, a venv, the package's Python kernels: build/python/gdr
without _gdr_torch*.so and torch_version.txt), 16 passed, 11 of them
failing before the symbolic rules.
"""

import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import gdr  # noqa: E402,F401  (registers torch.ops.gdr)
from gdr import _gdr, torch_ops  # noqa: E402
from contract import make_inputs  # noqa: E402

TORCH_2_4 = hasattr(torch.library, "register_fake")
needs_torch_2_4 = pytest.mark.skipif(not TORCH_2_4, reason="symbolic sizes in custom ops' fakes: torch >= 2.4")


def inputs(seed, state_rows=None, **sizes):
    # The contract's inputs as tensors, a generator per seed.
    arrays = make_inputs(np.random.default_rng(seed), pool_rows=state_rows, **{"T": 5, **sizes})
    return [torch.from_numpy(a) for a in arrays.values()]


def offsets(seqlens):
    return torch.tensor(np.concatenate([[0], np.cumsum(seqlens)]), dtype=torch.int32)


def layer(q, k, v, d, b, s, layout="bhtd"):
    out, final_state = torch.ops.gdr.gated_delta_rule(q, k, v, d, b, s, layout=layout)
    return out * 2, final_state


def varlen_layer(q, k, v, d, b, s, cu_seqlens):
    out, final_state = torch.ops.gdr.gated_delta_rule(q, k, v, d, b, s, layout="bthd", cu_seqlens=cu_seqlens)
    return out + 1, final_state


def pool_layer(q, k, v, d, b, pool, initial, final, cu_seqlens):
    out = torch.ops.gdr.gated_delta_rule_pool(q, k, v, d, b, pool, initial, final, layout="bthd",
                                              cu_seqlens=cu_seqlens)
    return out + 1


def slots(n, pool_rows):
    # Sequence i reads slot i (the last: zeros) and writes it back (the last: the pool's last row).
    return torch.tensor(list(range(n - 1)) + [-1]), torch.tensor(list(range(n - 1)) + [pool_rows - 1])


def equal(got, want):
    if isinstance(want, (tuple, list)):
        return len(got) == len(want) and all(equal(g, w) for g, w in zip(got, want))
    return got.shape == want.shape and torch.equal(got, want)


def compiled(fn, backend="aot_eager"):
    from torch._dynamo.testing import CompileCounterWithBackend

    torch._dynamo.reset()
    counter = CompileCounterWithBackend(backend)
    return torch.compile(fn, fullgraph=True, dynamic=True, backend=counter), counter


FORMS = {
    "plain": dict(B=2, H=4),
    "grouped readout": dict(B=2, H=4, Hq=8),
    "token-major, grouped values, scalar decay": dict(B=2, H=4, Hk=2, layout="bthd", scalar_decay=True),
}


@needs_torch_2_4
@pytest.mark.parametrize("form, backend", [(f, "aot_eager") for f in FORMS] + [("plain", "inductor")])
def test_compile_dynamic_T_gives_eagers_bits_without_a_graph_per_T(form, backend):
    kwargs = FORMS[form]
    layout = kwargs.get("layout", "bhtd")
    fn, counter = compiled(lambda *a: layer(*a, layout=layout), backend)
    Ts = (5, 9, 1, 2, 17, 33)
    with torch.no_grad():
        for T in Ts:
            args = inputs(T, T=T, **kwargs)
            assert equal(fn(*args), layer(*args, layout=layout)), f"T={T}"
    # torch itself specializes a size of 1 (a second graph for T = 1); a
    # fake kernel that reads the sizes as ints gives one graph per T (past
    # torch._dynamo.config.recompile_limit, 8, fullgraph=True fails).
    assert counter.frame_count <= 2, f"{counter.frame_count} graphs for T in {Ts}"


SEQLENS = ([4, 0, 1], [2, 3, 1, 3], [6, 2], [1, 1, 5, 0, 9], [3, 3, 3, 3, 3, 3])  # N = 3, 4, 2, 5, 6


@needs_torch_2_4
def test_compile_dynamic_cu_seqlens_gives_eagers_bits_without_a_graph_per_length():
    fn, counter = compiled(varlen_layer)
    with torch.no_grad():
        for i, seqlens in enumerate(SEQLENS):
            args = inputs(i, H=4, Hk=2, layout="bthd", scalar_decay=True, seqlens=seqlens) + [offsets(seqlens)]
            assert equal(fn(*args), varlen_layer(*args)), f"seqlens={seqlens}"
    assert counter.frame_count <= 2, f"{counter.frame_count} graphs for {len(SEQLENS)} batches"


@needs_torch_2_4
def test_compile_dynamic_pool_op_gives_eagers_bits_and_pool_without_a_graph_per_length():
    fn, counter = compiled(pool_layer)
    with torch.no_grad():
        for i, seqlens in enumerate(SEQLENS):
            args = inputs(i, H=4, Hk=2, layout="bthd", scalar_decay=True, seqlens=seqlens, state_rows=8)
            pools = args[5].clone(), args[5].clone()
            initial, final = slots(len(seqlens), 8)
            got = fn(*args[:5], pools[0], initial, final, offsets(seqlens))
            want = pool_layer(*args[:5], pools[1], initial, final, offsets(seqlens))
            assert equal(got, want) and equal(pools[0], pools[1]), f"seqlens={seqlens}"
            assert not equal(pools[0], args[5])
    assert counter.frame_count <= 2, f"{counter.frame_count} graphs for {len(SEQLENS)} batches"


class Layer(torch.nn.Module):
    def __init__(self, layout):
        super().__init__()
        self.layout = layout

    def forward(self, q, k, v, d, b, s):
        return layer(q, k, v, d, b, s, layout=self.layout)


class Varlen(torch.nn.Module):
    def forward(self, q, k, v, d, b, s, cu_seqlens):
        return varlen_layer(q, k, v, d, b, s, cu_seqlens)


class Pool(torch.nn.Module):
    def forward(self, q, k, v, d, b, pool, initial, final, cu_seqlens):
        return pool_layer(q, k, v, d, b, pool, initial, final, cu_seqlens)


@needs_torch_2_4
@pytest.mark.parametrize("layout", ["bhtd", "bthd"])
def test_export_with_dynamic_T_gives_eagers_bits(layout):
    from torch.export import Dim, export

    T = Dim("T", min=1, max=4096)
    t_dim = 2 if layout == "bhtd" else 1
    program = export(Layer(layout), tuple(inputs(0, B=2, H=4, Hq=8, T=7, layout=layout)),
                     dynamic_shapes=({t_dim: T},) * 5 + (None,))
    for T in (7, 3, 12, 1):
        args = inputs(T, B=2, H=4, Hq=8, T=T, layout=layout)
        assert equal(program.module()(*args), layer(*args, layout=layout)), f"T={T}"


@needs_torch_2_4
def test_export_with_dynamic_cu_seqlens_gives_eagers_bits():
    from torch.export import Dim, export

    # (Not Dim("N"): sympy reads "N" as its function N() in derived Dims.)
    T, N = Dim("T", min=1, max=4096), Dim("sequences", min=1, max=256)
    example = [4, 0, 1]
    varlen = export(Varlen(), (*inputs(0, H=4, Hk=2, layout="bthd", seqlens=example), offsets(example)),
                    dynamic_shapes=({1: T},) * 5 + ({0: N}, {0: N + 1}))
    args = inputs(0, H=4, Hk=2, layout="bthd", seqlens=example, state_rows=8)
    pool = export(Pool(), (*args[:5], args[5], *slots(3, 8), offsets(example)),
                  dynamic_shapes=({1: T},) * 5 + (None, {0: N}, {0: N}, {0: N + 1}))
    for i, seqlens in enumerate(SEQLENS + ([7],)):
        args = inputs(i, H=4, Hk=2, layout="bthd", seqlens=seqlens) + [offsets(seqlens)]
        assert equal(varlen.module()(*args), varlen_layer(*args)), f"seqlens={seqlens}"
        args = inputs(i, H=4, Hk=2, layout="bthd", seqlens=seqlens, state_rows=8)
        pools = args[5].clone(), args[5].clone()
        got = pool.module()(*args[:5], pools[0], *slots(len(seqlens), 8), offsets(seqlens))
        want = pool_layer(*args[:5], pools[1], *slots(len(seqlens), 8), offsets(seqlens))
        assert equal(got, want) and equal(pools[0], pools[1]), f"seqlens={seqlens}"


@needs_torch_2_4
def test_export_states_the_shape_rules_as_relations_between_dims():
    # The fake kernel's rules reach export as constraints: Dims the op
    # relates, given as unrelated, are refused with the relation.
    from torch._dynamo.exc import UserError
    from torch.export import Dim, export

    T, T2, N, C = Dim("T", max=4096), Dim("T2", max=4096), Dim("sequences", max=256), Dim("C", max=257)
    example = [4, 0, 1]
    args = (*inputs(0, H=4, layout="bthd", seqlens=example), offsets(example))
    with pytest.raises(UserError, match=r"T2 = T"):
        export(Varlen(), args, dynamic_shapes=({1: T}, {1: T2}) + ({1: T},) * 3 + ({0: N}, {0: N + 1}))
    with pytest.raises(UserError, match=r"C = sequences \+ 1"):
        export(Varlen(), args, dynamic_shapes=({1: T},) * 5 + ({0: N}, {0: C}))


BAD = {
    "key heads": (lambda a: a.__setitem__(1, a[1][:, :3].contiguous()), "key: has 3 heads"),
    "key T": (lambda a: a.__setitem__(1, a[1][:, :, :4].contiguous()), "key: shape (2, 4, 4, 16) does not match"),
    "decay K": (lambda a: a.__setitem__(3, a[3][..., :8].contiguous()), "decay: shape (2, 4, 5, 8) does not match"),
    "state heads": (lambda a: a.__setitem__(5, a[5][:, :3].contiguous()), "initial_state: shape (2, 3, 16, 16)"),
}


@needs_torch_2_4
@pytest.mark.parametrize("bad", BAD)
def test_symbolic_tracing_refuses_what_eager_refuses_with_its_message(bad):
    from torch.fx.experimental.proxy_tensor import make_fx

    change, message = BAD[bad]
    args = inputs(1, B=2, H=4, T=5)
    change(args)
    with pytest.raises(ValueError) as eager:
        layer(*args)
    assert message in str(eager.value)
    with pytest.raises(ValueError) as traced:
        make_fx(lambda *x: layer(*x), tracing_mode="symbolic")(*args)
    assert str(traced.value) == str(eager.value)


@needs_torch_2_4
def test_symbolic_make_fx_graph_runs_other_sizes():
    from torch.fx.experimental.proxy_tensor import make_fx

    graph = make_fx(lambda *x: layer(*x), tracing_mode="symbolic")(*inputs(1, B=2, H=4, Hq=8, T=5))
    for T in (3, 11):
        args = inputs(T, B=2, H=4, Hq=8, T=T)
        assert equal(graph(*args), layer(*args))


def shape_sets():
    # Valid calls of every form, and each with one size off by one, zero,
    # or a dimension dropped: (shapes, layout, index shapes).
    B, T, K, V = 2, 5, 16, 8
    for layout, (Hq, Hk, H), scalar, varlen, out_variant, pool in itertools.product(
            ("bhtd", "bthd"), ((4, 4, 4), (8, 4, 4), (4, 2, 4), (32, 4, 4), (40, 4, 4), (3, 4, 4), (4, 3, 4)),
            (False, True), (False, True), (False, True), (False, True)):
        if out_variant and pool:
            continue
        b = 1 if varlen else B
        N = 3 if varlen else B

        def tensor(heads, width=None):
            shape = (b, T, heads) if layout == "bthd" else (b, heads, T)
            return shape + (() if width is None else (width,))

        shapes = [tensor(Hq, K), tensor(Hk, K), tensor(H, V), tensor(H) if scalar else tensor(H, K), tensor(H),
                  (6 if pool else N, H, K, V)]
        if out_variant:
            shapes += [tensor(max(Hq, H), V), (N, H, K, V)]
        indices = {"cu_seqlens": (N + 1,) if varlen else None,
                   "initial_state_indices": (N,) if pool else None, "final_state_indices": (N,) if pool else None}
        yield shapes, layout, indices
        for i, shape in enumerate(shapes):
            for j in range(len(shape)):
                for size in (shape[j] - 1, shape[j] + 1, 0):
                    changed = list(shapes)
                    changed[i] = shape[:j] + (size,) + shape[j + 1:]
                    yield changed, layout, indices
            yield shapes[:i] + [shape[:-1]] + shapes[i + 1:], layout, indices
        for name, shape in indices.items():
            if shape is not None:
                yield shapes, layout, dict(indices, **{name: (shape[0] + 1,)})
                yield shapes, layout, dict(indices, **{name: (0,)})
    yield shapes, "bdth", indices


def outcome(check, shapes, layout, indices, names):
    try:
        return tuple(tuple(s) for s in check(*((shapes, layout) if names is None else (names, shapes, layout)),
                                             **indices))
    except ValueError as e:
        return str(e)


def test_the_python_rules_give_the_cpp_checks_results_and_messages():
    # _symbolic_shapes on plain ints is _gdr.torch_op_shapes: every rule,
    # its order and its message (torch_op_schema.h's names).
    checked = 0
    for shapes, layout, indices in shape_sets():
        names = torch_ops._POOL_NAMES if indices["initial_state_indices"] else torch_ops._NAMES
        want = outcome(_gdr.torch_op_shapes, shapes, layout, indices, None)
        got = outcome(torch_ops._symbolic_shapes, shapes, layout, indices, names)
        assert got == want, (shapes, layout, indices)
        checked += 1
    assert checked > 5000
