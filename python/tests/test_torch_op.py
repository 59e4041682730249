"""torch.ops.gdr: ExecuTorch's schema, against the float64 reference; the
.out variant; zero copy; errors; the fake implementation under tracing;
token-major and varlen calls through the keyword arguments, and the pool op
that updates state slots in place."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import gdr  # noqa: E402  (registers torch.ops.gdr)
from gdr import torch_ops  # noqa: E402
from contract import assert_within_contract, make_inputs, reference  # noqa: E402

NAMES = ("query", "key", "value", "decay", "beta", "initial_state")
HEAD_FORMS = {
    "plain": dict(B=2, H=4, T=7),
    "grouped readout, scalar decay (ExecuTorch)": dict(H=4, Hq=8, T=9, scalar_decay=True),
    "grouped values (Qwen3-Next)": dict(H=4, Hk=2, T=6),
    "T = 0": dict(B=1, H=2, T=0),
}


def tensors(arrays):
    return [torch.from_numpy(arrays[n]) for n in NAMES]


def yardstick(arrays):
    return gdr.gated_delta_rule(**arrays, route="reference")


@pytest.mark.parametrize("form", HEAD_FORMS)
def test_op_matches_float64(form, rng):
    arrays = make_inputs(rng, **HEAD_FORMS[form])
    out, final_state = torch.ops.gdr.gated_delta_rule(*tensors(arrays))
    assert out.dtype == torch.float32 and final_state.shape == arrays["initial_state"].shape
    assert_within_contract((out.numpy(), final_state.numpy()), yardstick(arrays), reference(*arrays.values()))


@pytest.mark.parametrize("form", HEAD_FORMS)
def test_python_kernels_match_float64(form, rng):
    # What torch.ops.gdr runs under a torch the C++ kernels were not built for.
    arrays = make_inputs(rng, **HEAD_FORMS[form])
    out, final_state = torch_ops.gated_delta_rule(*tensors(arrays))
    assert_within_contract((out.numpy(), final_state.numpy()), yardstick(arrays), reference(*arrays.values()))


def test_out_variant_writes_and_returns_the_given_tensors(rng):
    arrays = make_inputs(rng, H=4, Hq=8, T=5)
    inputs = tensors(arrays)
    out = torch.full((1, 8, 5, 16), float("nan"))
    final_state = torch.full((1, 4, 16, 16), float("nan"))
    got = torch.ops.gdr.gated_delta_rule.out(*inputs, out=out, final_state_out=final_state)
    assert got[0].data_ptr() == out.data_ptr() and got[1].data_ptr() == final_state.data_ptr()
    want = torch.ops.gdr.gated_delta_rule(*inputs)
    assert torch.equal(out, want[0]) and torch.equal(final_state, want[1])


@pytest.mark.parametrize("change, message", [
    (lambda t: t.__setitem__(0, t[0].double()), "query: expected float32, got float64"),
    (lambda t: t.__setitem__(1, t[1].transpose(2, 3).contiguous().transpose(2, 3)),
     "key: expected a contiguous tensor"),
    (lambda t: t.__setitem__(3, t[3][..., :8].contiguous()),
     "decay: shape (1, 4, 6, 8) does not match the expected (1, 4, 6, 16)"),
    (lambda t: t.__setitem__(5, t[5][:, :2].contiguous()), "initial_state: shape (1, 2, 16, 16)"),
])
@pytest.mark.parametrize("variant", ["functional", "out"])
def test_bad_input_raises_naming_the_argument_and_writes_nothing(change, message, variant, rng):
    inputs = tensors(make_inputs(rng, B=1, H=4, T=6))
    change(inputs)
    out = torch.full((1, 4, 6, 16), 7.0)
    final_state = torch.full((1, 4, 16, 16), 7.0)
    with pytest.raises(ValueError) as caught:
        if variant == "out":
            torch.ops.gdr.gated_delta_rule.out(*inputs, out=out, final_state_out=final_state)
        else:
            torch.ops.gdr.gated_delta_rule(*inputs)
    assert message in str(caught.value), str(caught.value)
    assert bool((out == 7.0).all()) and bool((final_state == 7.0).all())


def test_an_out_of_the_wrong_shape_is_refused(rng):
    inputs = tensors(make_inputs(rng, B=1, H=4, Hq=8, T=6))
    with pytest.raises(ValueError, match=r"out: shape \(1, 4, 6, 16\) does not match the expected \(1, 8, 6, 16\)"):
        torch.ops.gdr.gated_delta_rule.out(*inputs, out=torch.empty(1, 4, 6, 16),
                                           final_state_out=torch.empty(1, 4, 16, 16))


FORMS = ("query", "key", "value", "decay", "beta")
# Forms through the keyword arguments: (make_inputs' arguments, cu_seqlens).
KEYWORD_FORMS = {
    "token-major, grouped values, scalar decay (Qwen3-Next)":
        (dict(H=4, Hk=2, T=6, layout="bthd", scalar_decay=True), None),
    "varlen with an empty and a one-token sequence": (dict(H=2, seqlens=[5, 0, 1, 12]), [0, 5, 5, 6, 18]),
    "token-major varlen, grouped readout": (dict(H=2, Hq=4, seqlens=[3, 9, 1], layout="bthd"), [0, 3, 12, 13]),
}
KERNELS = {"registered": lambda: torch.ops.gdr, "Python": lambda: torch_ops}


def keyword_call(rng, form, dtype=torch.int32):
    inputs, offsets = KEYWORD_FORMS[form]
    arrays = make_inputs(rng, **inputs)
    kwargs = {"layout": inputs.get("layout", "bhtd")}
    if offsets is not None:
        kwargs["cu_seqlens"] = torch.tensor(offsets, dtype=dtype)
    return arrays, kwargs


def numpy_kwargs(kwargs):
    return {k: v.numpy() if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}


@pytest.mark.parametrize("kernels", KERNELS)
@pytest.mark.parametrize("form", KEYWORD_FORMS)
def test_keyword_forms_match_float64(form, kernels, rng):
    arrays, kwargs = keyword_call(rng, form, torch.int64 if kernels == "Python" else torch.int32)
    out, final_state = KERNELS[kernels]().gated_delta_rule(*tensors(arrays), **kwargs)
    want = reference(*arrays.values(), **numpy_kwargs(kwargs))
    assert tuple(out.shape) == want[0].shape and tuple(final_state.shape) == want[1].shape
    assert_within_contract((out.numpy(), final_state.numpy()),
                           gdr.gated_delta_rule(**arrays, route="reference", **numpy_kwargs(kwargs)), want)
    # The .out variant writes the same bits into the tensors given.
    given = (torch.full_like(out, float("nan")), torch.full_like(final_state, float("nan")))
    KERNELS[kernels]().gated_delta_rule_out(*tensors(arrays), **kwargs, out=given[0], final_state_out=given[1]) \
        if kernels == "Python" else \
        torch.ops.gdr.gated_delta_rule.out(*tensors(arrays), **kwargs, out=given[0], final_state_out=given[1])
    assert torch.equal(given[0], out) and torch.equal(given[1], final_state)


def pool_call(rng):
    # Qwen3-Next's decode-and-prefill mix: token-major, grouped values,
    # scalar decay, four sequences (one empty) in a pool of six slots; one
    # starts from zeros (-1), one moves to another slot, slots 3 and 5 are
    # no sequence's.
    arrays = make_inputs(rng, H=4, Hk=2, seqlens=[4, 0, 1, 7], layout="bthd", scalar_decay=True, pool_rows=6)
    offsets = torch.tensor([0, 4, 4, 5, 12], dtype=torch.int32)
    initial, final = torch.tensor([2, -1, 1, 0]), torch.tensor([2, 4, 1, 0])
    return arrays, offsets, initial, final


@pytest.mark.parametrize("kernels", KERNELS)
def test_pool_op_updates_its_slots_in_place(kernels, rng):
    arrays, offsets, initial, final = pool_call(rng)
    pool = torch.from_numpy(arrays["initial_state"].copy())
    before = pool.clone()
    op = KERNELS[kernels]().gated_delta_rule_pool
    out = op(*tensors(arrays)[:5], pool, initial, final, layout="bthd", cu_seqlens=offsets)
    numpy_args = dict(layout="bthd", cu_seqlens=offsets.numpy(), initial_state_indices=initial.numpy(),
                      final_state_indices=final.numpy())
    want = reference(*arrays.values(), **numpy_args, final_state=before.numpy())
    yardstick = gdr.gated_delta_rule(**arrays, route="reference", **numpy_args, final_state=before.numpy().copy())
    assert_within_contract((out.numpy(), pool.numpy()), yardstick, want)
    # Slots no sequence writes keep their bits; the functional op on the
    # same states gives the same bits as the pool's update in place.
    assert torch.equal(pool[[3, 5]], before[[3, 5]])
    gathered = torch.stack([before[i] if i >= 0 else torch.zeros_like(before[0]) for i in initial.tolist()])
    functional = torch.ops.gdr.gated_delta_rule(*tensors(arrays)[:5], gathered, layout="bthd", cu_seqlens=offsets)
    assert torch.equal(out, functional[0]) and torch.equal(pool[final], functional[1])


@pytest.mark.parametrize("change, message", [
    (lambda a: a.__setitem__("final", torch.tensor([2, 4, 2, 0])),
     "final_state_indices: sequences 0 and 2 both write slot 2"),
    (lambda a: a.__setitem__("initial", torch.tensor([2, -1, 6, 0])),
     "initial_state_indices[2] = 6 is out of range [-1, 6)"),
    (lambda a: a.__setitem__("final", torch.tensor([2.0, 4.0, 1.0, 0.0])),
     "final_state_indices: expected int32 or int64, got float32"),
    (lambda a: a.__setitem__("initial", torch.tensor([2, -1, 1, 0], dtype=torch.int16)),
     "initial_state_indices: expected int32 or int64, got int16"),
    (lambda a: a.__setitem__("initial", torch.tensor([[2, -1, 1, 0]])),
     "initial_state_indices: expected rank 1, got shape (1, 4)"),
    (lambda a: a.__setitem__("pool", a["pool"][:, :2].contiguous()), "state_pool: shape (6, 2, 16, 16)"),
    (lambda a: a.__setitem__("offsets", torch.tensor([0, 4, 4, 5, 11], dtype=torch.int32)),
     "cu_seqlens: the last offset must be T=12, got 11"),
])
@pytest.mark.parametrize("kernels", KERNELS)
def test_pool_op_refuses_bad_slots_naming_them_and_writes_nothing(change, message, kernels, rng):
    arrays, offsets, initial, final = pool_call(rng)
    args = {"pool": torch.from_numpy(arrays["initial_state"].copy()), "offsets": offsets, "initial": initial,
            "final": final}
    change(args)
    before = args["pool"].clone()
    with pytest.raises(ValueError) as caught:
        KERNELS[kernels]().gated_delta_rule_pool(*tensors(arrays)[:5], args["pool"], args["initial"], args["final"],
                                                 layout="bthd", cu_seqlens=args["offsets"])
    assert message in str(caught.value), str(caught.value)
    assert torch.equal(args["pool"], before)


@pytest.mark.parametrize("kernels", KERNELS)
def test_a_mix_of_meta_and_cpu_tensors_is_refused(kernels, rng):
    # Any meta argument sends the call to the fake kernel, which computes
    # nothing: it must say so rather than return outputs of no values.
    arrays, offsets, initial, final = pool_call(rng)
    pool = torch.from_numpy(arrays["initial_state"].copy())
    before = pool.clone()
    op = torch.ops.gdr.gated_delta_rule_pool if kernels == "registered" else torch_ops.gated_delta_rule_pool_fake
    with pytest.raises(ValueError, match=r"^initial_state_indices: expected a tensor on query's device \(cpu\), "
                                         r"got meta$"):
        op(*tensors(arrays)[:5], pool, initial.to("meta"), final, layout="bthd", cu_seqlens=offsets)
    assert torch.equal(pool, before)


@pytest.mark.parametrize("kernels", KERNELS)
def test_the_out_variant_names_its_outputs_as_the_schema_does(kernels, rng):
    inputs = tensors(make_inputs(rng, B=1, H=4, T=6))
    out_variant = torch.ops.gdr.gated_delta_rule.out if kernels == "registered" else torch_ops.gated_delta_rule_out
    with pytest.raises(ValueError, match=r"^final_state_out: shape \(1, 2, 16, 16\) does not match"):
        out_variant(*inputs, out=torch.empty(1, 4, 6, 16), final_state_out=torch.empty(1, 2, 16, 16))


def test_a_bad_layout_is_refused_naming_it(rng):
    inputs = tensors(make_inputs(rng, B=1, H=2, T=3))
    for op in (torch.ops.gdr.gated_delta_rule, torch_ops.gated_delta_rule):
        with pytest.raises(ValueError, match="^layout: expected 'bhtd' or 'bthd', got 'bdth'$"):
            op(*inputs, layout="bdth")


@pytest.mark.parametrize("kernels", KERNELS)
def test_fake_kernels_give_the_keyword_forms_shapes(kernels, rng):
    arrays, offsets, initial, final = pool_call(rng)
    meta = [t.to("meta") for t in tensors(arrays)]
    ops = KERNELS[kernels]()
    fake, fake_pool = (ops.gated_delta_rule, ops.gated_delta_rule_pool) if kernels == "registered" \
        else (ops.gated_delta_rule_fake, ops.gated_delta_rule_pool_fake)
    out = fake_pool(*meta[:5], meta[5], initial.to("meta"), final.to("meta"), layout="bthd",
                    cu_seqlens=offsets.to("meta"))
    assert out.device.type == "meta" and tuple(out.shape) == (1, 12, 4, 16)
    functional = fake(*meta[:5], torch.empty(4, 4, 16, 16, device="meta"), layout="bthd",
                      cu_seqlens=offsets.to("meta"))
    assert tuple(functional[0].shape) == (1, 12, 4, 16) and tuple(functional[1].shape) == (4, 4, 16, 16)
    with pytest.raises(ValueError, match=r"^initial_state: shape \(6, 4, 16, 16\) does not match"):
        fake(*meta, layout="bthd", cu_seqlens=offsets.to("meta"))


def test_meta_tensors_give_the_output_shapes(rng):
    inputs = [t.to("meta") for t in tensors(make_inputs(rng, B=2, H=4, Hq=8, T=6, scalar_decay=True))]
    out, final_state = torch.ops.gdr.gated_delta_rule(*inputs)
    assert out.device.type == "meta" and tuple(out.shape) == (2, 8, 6, 16)
    assert tuple(final_state.shape) == (2, 4, 16, 16)
    with pytest.raises(ValueError, match="key: has 3 heads"):
        torch.ops.gdr.gated_delta_rule(inputs[0], inputs[1][:, :3].contiguous(), *inputs[2:])


@pytest.mark.parametrize("kernels", ["registered", "Python"])
def test_fake_kernels_check_the_shapes(kernels, rng):
    # The registered Meta kernel, and the Python fallback's fake kernels.
    fake, fake_out = (torch.ops.gdr.gated_delta_rule, torch.ops.gdr.gated_delta_rule.out) if kernels == "registered" \
        else (torch_ops.gated_delta_rule_fake, torch_ops.gated_delta_rule_out_fake)
    inputs = [t.to("meta") for t in tensors(make_inputs(rng, B=1, H=4, Hq=8, T=6))]
    assert tuple(fake(*inputs)[0].shape) == (1, 8, 6, 16)
    with pytest.raises(ValueError, match="^key: has 3 heads, which does not divide value's 4$"):
        fake(inputs[0], inputs[1][:, :3].contiguous(), *inputs[2:])
    with pytest.raises(ValueError, match=r"^final_state_out: shape \(1, 2, 16, 16\) does not match"):
        fake_out(*inputs, out=torch.empty(1, 8, 6, 16, device="meta"),
                 final_state_out=torch.empty(1, 2, 16, 16, device="meta"))


def test_fake_tensor_tracing_records_the_op(rng):
    from torch.fx.experimental.proxy_tensor import make_fx

    inputs = tensors(make_inputs(rng, B=1, H=4, T=5))

    def layer(query, key, value, decay, beta, initial_state):
        out, final_state = torch.ops.gdr.gated_delta_rule(query, key, value, decay, beta, initial_state)
        return out * 2, final_state

    graph = make_fx(layer, tracing_mode="fake")(*inputs)
    assert "torch.ops.gdr.gated_delta_rule.default" in graph.code
    traced, eager = graph(*inputs), layer(*inputs)
    assert torch.equal(traced[0], eager[0]) and torch.equal(traced[1], eager[1])


def test_fake_tensor_tracing_records_the_pool_op_and_its_update(rng):
    from torch.fx.experimental.proxy_tensor import make_fx

    arrays, offsets, initial, final = pool_call(rng)
    inputs = tensors(arrays)[:5]
    pool = torch.from_numpy(arrays["initial_state"])

    def layer(query, key, value, decay, beta, state_pool, offsets, initial, final):
        out = torch.ops.gdr.gated_delta_rule_pool(query, key, value, decay, beta, state_pool, initial, final,
                                                  layout="bthd", cu_seqlens=offsets)
        return out * 2

    graph = make_fx(layer, tracing_mode="fake")(*inputs, pool.clone(), offsets, initial, final)
    assert "torch.ops.gdr.gated_delta_rule_pool.default" in graph.code
    traced_pool, eager_pool = pool.clone(), pool.clone()
    traced = graph(*inputs, traced_pool, offsets, initial, final)
    eager = layer(*inputs, eager_pool, offsets, initial, final)
    assert torch.equal(traced, eager) and torch.equal(traced_pool, eager_pool)
    assert not torch.equal(traced_pool, pool)


def test_python_kernels_are_registered_where_the_cpp_ones_do_not_load(rng, tmp_path):
    # A copy of the package without torch_version.txt: gdr.torch_ops
    # registers its Python kernels under the same schemas, in a new process.
    import os
    import shutil
    import subprocess
    import sys

    package = os.path.dirname(gdr.__file__)
    shutil.copytree(package, tmp_path / "gdr", ignore=shutil.ignore_patterns("torch_version.txt", "__pycache__"))
    script = """
import numpy as np, torch, gdr
from gdr import torch_ops
from contract import make_inputs
assert torch_ops.KERNELS == "Python", torch_ops.KERNELS
a = make_inputs(np.random.default_rng(1), H=2, seqlens=[3, 0, 2], layout="bthd", pool_rows=4)
t = [torch.from_numpy(a[n]) for n in ("query", "key", "value", "decay", "beta")]
offsets = torch.tensor([0, 3, 3, 5])
out, final = torch.ops.gdr.gated_delta_rule(*t, torch.from_numpy(a["initial_state"][:3]), layout="bthd",
                                            cu_seqlens=offsets)
pool = torch.from_numpy(a["initial_state"].copy())
pooled = torch.ops.gdr.gated_delta_rule_pool(*t, pool, torch.tensor([0, 1, 2]), torch.tensor([0, 1, 2]),
                                             layout="bthd", cu_seqlens=offsets)
assert torch.equal(out, pooled) and torch.equal(pool[:3], final)
slots = torch.tensor([0, 1, 2], device="meta")
meta = torch.ops.gdr.gated_delta_rule_pool(*[x.to("meta") for x in t], pool.to("meta"), slots, slots,
                                           layout="bthd", cu_seqlens=offsets.to("meta"))
assert meta.device.type == "meta" and tuple(meta.shape) == (1, 5, 2, 16)
print("ok")
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.path.dirname(__file__)]))
    # In tmp_path: "-c" puts the working folder first on sys.path.
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr


@pytest.mark.skipif(not hasattr(torch.library, "opcheck"), reason="torch.library.opcheck needs torch >= 2.4")
def test_opcheck(rng):
    inputs = tensors(make_inputs(rng, B=1, H=4, T=5))
    torch.library.opcheck(torch.ops.gdr.gated_delta_rule.default, tuple(inputs))


@pytest.mark.skipif(not hasattr(torch, "compile"), reason="torch.compile needs torch >= 2.0")
def test_torch_compile_runs_the_op(rng):
    inputs = tensors(make_inputs(rng, B=1, H=4, T=5))
    compiled = torch.compile(lambda *a: torch.ops.gdr.gated_delta_rule(*a)[0] + 1, fullgraph=True)
    assert torch.equal(compiled(*inputs), torch.ops.gdr.gated_delta_rule(*inputs)[0] + 1)


@pytest.mark.parametrize("kernels", KERNELS)
def test_gradients_are_refused_not_dropped(kernels, rng):
    # No backward: with grad mode on, a tensor that requires grad is an
    # error naming it (its outputs would otherwise be cut from the graph in
    # silence); under no_grad the same call runs.
    arrays = make_inputs(rng, B=1, H=2, T=3)
    args = tensors(arrays)
    args[2].requires_grad_(True)
    op = KERNELS[kernels]()
    with pytest.raises(RuntimeError, match="^value: requires grad, but torch.ops.gdr has no backward"):
        op.gated_delta_rule(*args)
    with torch.no_grad():
        out, _ = op.gated_delta_rule(*args)
    assert not out.requires_grad


@pytest.mark.parametrize("kernels", KERNELS)
def test_the_pool_op_and_out_variant_bump_what_they_write(kernels, rng):
    # Autograd sees the writes: a copy of the pool saved for a backward is
    # stale after the pool op, and says so at backward. The Python kernels
    # too, on a torch without torch.autograd.graph.increment_version
    # (before 2.1: the backward ran on the stale copy, a wrong gradient).
    ops = KERNELS[kernels]()
    arrays, offsets, initial, final = pool_call(rng)
    pool = torch.from_numpy(arrays["initial_state"].copy())
    before = pool._version
    ops.gated_delta_rule_pool(*tensors(arrays)[:5], pool, initial, final, layout="bthd", cu_seqlens=offsets)
    assert pool._version > before
    plain = make_inputs(rng, B=1, H=2, T=3)
    out, state = ops.gated_delta_rule(*tensors(plain))
    versions = (out._version, state._version)
    (ops.gated_delta_rule.out if kernels == "registered" else ops.gated_delta_rule_out)(
        *tensors(plain), out=out, final_state_out=state)
    assert out._version > versions[0] and state._version > versions[1]
    weight = torch.ones(1, requires_grad=True)
    pool = torch.from_numpy(arrays["initial_state"].copy())
    saved = weight * pool  # saves pool for the backward
    ops.gated_delta_rule_pool(*tensors(arrays)[:5], pool, initial, final, layout="bthd", cu_seqlens=offsets)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        saved.sum().backward()


@pytest.mark.parametrize("kernels", KERNELS)
def test_more_query_heads_than_the_routes_read_is_the_callers_error(kernels, rng):
    # 16 query heads per state head: refused as bad input (ValueError naming
    # query_heads), by the fake kernels too, so that a traced call runs.
    arrays = make_inputs(rng, B=1, H=1, Hq=16, T=2)
    with pytest.raises(ValueError, match="^query_heads: the generated routes read a state head out with at most 8"):
        KERNELS[kernels]().gated_delta_rule(*tensors(arrays))
    meta = [t.to("meta") for t in tensors(arrays)]
    fake = torch_ops.gated_delta_rule_fake if kernels == "Python" else torch.ops.gdr.gated_delta_rule
    with pytest.raises(ValueError, match="^query_heads: "):
        fake(*meta)
