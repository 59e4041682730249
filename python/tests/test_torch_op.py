"""torch.ops.gdr: ExecuTorch's schema, against the float64 reference; the
.out variant; zero copy; errors; the fake implementation under tracing."""

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


def test_out_variant_writes_the_given_tensors_without_copies(rng):
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


@pytest.mark.skipif(not hasattr(torch.library, "opcheck"), reason="torch.library.opcheck needs torch >= 2.4")
def test_opcheck(rng):
    inputs = tensors(make_inputs(rng, B=1, H=4, T=5))
    torch.library.opcheck(torch.ops.gdr.gated_delta_rule.default, tuple(inputs))


@pytest.mark.skipif(not hasattr(torch, "compile"), reason="torch.compile needs torch >= 2.0")
def test_torch_compile_runs_the_op(rng):
    inputs = tensors(make_inputs(rng, B=1, H=4, T=5))
    compiled = torch.compile(lambda *a: torch.ops.gdr.gated_delta_rule(*a)[0] + 1, fullgraph=True)
    assert torch.equal(compiled(*inputs), torch.ops.gdr.gated_delta_rule(*inputs)[0] + 1)
