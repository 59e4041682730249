"""gdr.gated_delta_rule on NumPy arrays: every form of the interface against
the float64 reference, on the generated routes; the errors."""

import os
import re

import numpy as np
import pytest

import gdr
from contract import assert_within_contract, make_inputs, reference

# name: (make_inputs arguments, gated_delta_rule arguments beyond the arrays)
FORMS = {
    "plain": (dict(B=2, H=4, T=9), {}),
    "zeros initial state": (dict(B=1, H=2, T=5), {"initial_state": None}),
    "T = 0": (dict(B=2, H=2, T=0), {}),
    "grouped readout, scalar decay (ExecuTorch)": (dict(H=4, Hq=8, T=11, scalar_decay=True), {}),
    "grouped values, scalar decay, token-major (Qwen3-Next)":
        (dict(H=4, Hk=2, T=10, scalar_decay=True, layout="bthd"), {"layout": "bthd"}),
    "varlen with empty sequences, token-major":
        (dict(H=2, seqlens=[5, 0, 1, 12], layout="bthd"),
         {"layout": "bthd", "cu_seqlens": np.array([0, 5, 5, 6, 18], dtype=np.int32)}),
    "everything: GVA, scalar decay, token-major, varlen, slots": (
        dict(H=4, Hk=2, seqlens=[7, 1, 0, 9], scalar_decay=True, layout="bthd", pool_rows=6),
        {"layout": "bthd", "cu_seqlens": np.array([0, 7, 8, 8, 17], dtype=np.int64),
         "initial_state_indices": np.array([3, -1, 0, 5], dtype=np.int64),
         "final_state_indices": np.array([1, 4, 2, 0], dtype=np.int32)}),
}
# The chunked route reads one query per state head (auto takes recurrent there).
ROUTES = ["auto", "recurrent", "chunked"]


def call_reference(arrays, extra, final_state=None):
    kwargs = {k: extra[k] for k in ("layout", "cu_seqlens", "initial_state_indices", "final_state_indices")
              if k in extra}
    initial = extra.get("initial_state", arrays["initial_state"])
    return reference(arrays["query"], arrays["key"], arrays["value"], arrays["decay"], arrays["beta"], initial,
                     final_state=final_state, **kwargs)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("form", FORMS)
def test_every_form_matches_float64(form, route, rng):
    shape_args, extra = FORMS[form]
    arrays = make_inputs(rng, **shape_args)
    args = dict(arrays, **extra)
    pool = None
    if "final_state_indices" in extra:  # written into a given pool: rows no sequence writes stay
        pool = rng.standard_normal(arrays["initial_state"].shape).astype(np.float32)
        args["final_state"] = pool.copy()
    got = gdr.gated_delta_rule(**args, route=route)
    if pool is not None:
        args["final_state"] = pool.copy()
    yardstick = gdr.gated_delta_rule(**args, route="reference")
    assert_within_contract(got, yardstick, call_reference(arrays, extra, final_state=pool))
    assert got[0].dtype == np.float32 and got[0].flags.c_contiguous


def test_in_place_equals_functional_bit_for_bit(rng):
    arrays = make_inputs(rng, H=4, seqlens=[6, 3, 8], pool_rows=3)
    indices = {"cu_seqlens": np.array([0, 6, 9, 17], dtype=np.int64),
               "initial_state_indices": np.array([2, 0, 1], dtype=np.int64),
               "final_state_indices": np.array([2, 0, 1], dtype=np.int64)}
    out, functional = gdr.gated_delta_rule(**arrays, **indices)
    pool = arrays["initial_state"]
    before = pool.copy()
    out_in_place, updated = gdr.gated_delta_rule(**arrays, **indices, in_place=True)
    assert updated is pool, "in place without final_state updates initial_state"
    assert not np.array_equal(pool, before)
    np.testing.assert_array_equal(pool, functional)
    np.testing.assert_array_equal(out_in_place, out)


def line_aligned(shape):
    storage = np.zeros(int(np.prod(shape)) + 16, dtype=np.float32)
    start = (-storage.ctypes.data // 4) % 16
    array = storage[start:start + int(np.prod(shape))].reshape(shape)
    assert array.ctypes.data % 64 == 0 and array.flags.c_contiguous
    return array


def test_streamed_final_states_and_outputs_equal_cached_ones_bit_for_bit(rng):
    # K = V = 16: rows of 64 bytes, so a pool or out that starts a cache
    # line streams.
    arrays = make_inputs(rng, B=2, H=3, T=5)
    results = {}
    for stores in ("cached", "streaming"):  # ("auto" caches calls this small)
        out = line_aligned(arrays["value"].shape)
        final = line_aligned(arrays["initial_state"].shape)
        results[stores] = gdr.gated_delta_rule(**arrays, out=out, final_state=final, state_stores=stores,
                                               out_stores=stores)
    np.testing.assert_array_equal(results["streaming"][0], results["cached"][0])
    np.testing.assert_array_equal(results["streaming"][1], results["cached"][1])


def test_allocated_outputs_start_a_cache_line(rng):
    # So that gdr's own final states can stream (rows that start lines);
    # NumPy alone gives 16 bytes. Small and large (mmap'd) arrays, and a
    # pool written through final_state_indices.
    for B, H in ((1, 1), (2, 3), (4, 64)):
        arrays = make_inputs(rng, B=B, H=H, T=3)
        out, final = gdr.gated_delta_rule(**arrays)
        for a, shape in ((out, (B, H, 3, 16)), (final, (B, H, 16, 16))):
            assert a.shape == shape and a.dtype == np.float32
            assert a.flags.c_contiguous and a.flags.writeable
            assert a.ctypes.data % 64 == 0, (B, H, a.ctypes.data % 64)
        _, again = gdr.gated_delta_rule(**arrays, state_stores="cached")
        np.testing.assert_array_equal(final, again)
    arrays = make_inputs(rng, B=2, H=3, T=3)
    _, final = gdr.gated_delta_rule(**arrays)
    _, pool = gdr.gated_delta_rule(**arrays, final_state_indices=np.array([1, 0], dtype=np.int64))
    assert pool.ctypes.data % 64 == 0
    np.testing.assert_array_equal(pool, final[::-1])


def test_splitting_a_sequence_across_calls_equals_one_call(rng):
    arrays = make_inputs(rng, B=1, H=2, T=12)
    whole_out, whole_state = gdr.gated_delta_rule(**arrays)
    state = arrays["initial_state"]
    outs = []
    for t0, t1 in ((0, 5), (5, 6), (6, 12)):
        part = {n: np.ascontiguousarray(arrays[n][:, :, t0:t1]) for n in ("query", "key", "value", "decay", "beta")}
        o, state = gdr.gated_delta_rule(**part, initial_state=state)
        outs.append(o)
    np.testing.assert_allclose(np.concatenate(outs, axis=2), whole_out, rtol=0, atol=1e-5)
    np.testing.assert_allclose(state, whole_state, rtol=0, atol=1e-5)


def test_outputs_given_are_written_in_place_of_allocating(rng):
    arrays = make_inputs(rng, B=1, H=2, T=4)
    out = np.full((1, 2, 4, 16), np.nan, dtype=np.float32)
    final = np.full((1, 2, 16, 16), np.nan, dtype=np.float32)
    got_out, got_final = gdr.gated_delta_rule(**arrays, out=out, final_state=final)
    assert got_out is out and got_final is final
    assert np.all(np.isfinite(out)) and np.all(np.isfinite(final))


def bad(arrays, **changes):
    return dict(arrays, **changes)


@pytest.mark.parametrize("change, message", [
    (lambda a: bad(a, query=a["query"].astype(np.float64)), "query: expected float32, got float64"),
    (lambda a: bad(a, key=np.asfortranarray(a["key"])), "key: expected a C-contiguous array"),
    (lambda a: bad(a, value=a["value"].tolist()), "value: expected a numpy.ndarray, got list"),
    (lambda a: bad(a, value=a["value"][:, :3]), "key: has 4 heads, which does not divide value's 3"),
    (lambda a: bad(a, decay=np.ascontiguousarray(a["decay"][..., :8])),
     "decay: shape (1, 4, 6, 8) does not match the expected (1, 4, 6, 16) (channelwise decay, from query and value"),
    (lambda a: bad(a, beta=a["beta"][..., None]), "beta: shape (1, 4, 6, 1) does not match the expected (1, 4, 6)"),
    (lambda a: bad(a, initial_state=np.ascontiguousarray(a["initial_state"][:, :, :8])), "initial_state: shape (1, 4, 8, 16)"),
    (lambda a: bad(a, cu_seqlens=np.array([0, 5], dtype=np.int32)), "cu_seqlens: the last offset must be T=6, got 5"),
    (lambda a: bad(a, cu_seqlens=np.array([0.0, 6.0])), "cu_seqlens: expected int32 or int64, got float64"),
    (lambda a: bad(a, initial_state_indices=np.array([1], dtype=np.int64)),  # a pool of one row
     "initial_state_indices[0] = 1 is out of range [-1, 1)"),
    (lambda a: bad(a, layout="bhdt"), "layout: expected 'bhtd' or 'bthd', got 'bhdt'"),
    (lambda a: bad(a, route="fast"), "route: unknown route 'fast'"),
    (lambda a: bad(a, threads=-1), "threads: must be >= 0"),
    (lambda a: bad(a, state_stores="nontemporal"),
     "state_stores: expected 'auto', 'cached' or 'streaming', got 'nontemporal'"),
    (lambda a: bad(a, out_stores="fast"), "out_stores: expected 'auto', 'cached' or 'streaming', got 'fast'"),
])
def test_bad_input_is_one_line_naming_the_argument_and_writes_nothing(change, message, rng):
    arrays = make_inputs(rng, B=1, H=4, T=6)
    out = np.full((1, 4, 6, 16), 7.0, dtype=np.float32)
    final = np.full((1, 4, 16, 16), 7.0, dtype=np.float32)
    args = change(arrays)
    with pytest.raises(ValueError) as caught:
        gdr.gated_delta_rule(**args, out=out, final_state=final)
    text = str(caught.value)
    assert message in text and "\n" not in text, text
    assert np.all(out == 7.0) and np.all(final == 7.0), "a rejected call wrote an output"


def test_an_output_overlapping_an_input_is_refused(rng):
    arrays = make_inputs(rng, B=1, H=2, T=4, K=16, V=16)
    with pytest.raises(ValueError, match="final_state .*initial_state|initial_state .*final_state"):
        gdr.gated_delta_rule(**arrays, final_state=arrays["initial_state"])


def test_read_only_inputs_are_read(rng):
    arrays = make_inputs(rng, B=1, H=2, T=4)
    want = gdr.gated_delta_rule(**arrays)
    for a in arrays.values():
        a.flags.writeable = False
    got = gdr.gated_delta_rule(**arrays)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_read_only_output_is_refused(rng):
    arrays = make_inputs(rng, B=1, H=2, T=4)
    out = np.zeros((1, 2, 4, 16), dtype=np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="^out: the array is read-only$"):
        gdr.gated_delta_rule(**arrays, out=out)


def test_explain_names_the_route_and_schedule(rng):
    arrays = make_inputs(rng, B=1, H=4, T=3, K=32, V=32)
    assert re.fullmatch(r"recurrent \S+ \((default|tuned)\)", gdr.explain(**arrays, route="recurrent"))
    assert re.fullmatch(r"(recurrent|chunked) \S+ \((default|tuned)\)", gdr.explain(**arrays))
    assert gdr.explain(**arrays, route="reference") == "reference"
    # It reads only shapes: an in-place call's read-only pool is no error
    # (it was: "initial_state: the array is read-only").
    arrays["initial_state"].flags.writeable = False
    assert gdr.explain(**arrays, route="reference", in_place=True) == "reference"
    with pytest.raises(ValueError, match="^initial_state: the array is read-only$"):
        gdr.gated_delta_rule(**arrays, route="reference", in_place=True)


def test_version_is_the_projects():
    # CMake's project version (the module's) and the Python package's are one.
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    with open(os.path.join(root, "CMakeLists.txt")) as f:
        cmake = re.search(r"project\(gdr VERSION (\S+)", f.read()).group(1)
    with open(os.path.join(root, "python", "pyproject.toml")) as f:
        package = re.search(r'^version = "(.+)"$', f.read(), re.M).group(1)
    assert gdr.__version__ == cmake == package


def test_configure_names_a_bad_option(tmp_path):
    a_file = tmp_path / "f"
    a_file.write_text("")
    with pytest.raises(ValueError, match="cache_dir .*is a file"):
        gdr.configure(cache_dir=str(a_file))
    with pytest.raises(ValueError, match="verbosity"):
        gdr.configure(verbosity=3)
    gdr.configure()  # back to the environment's


def test_index_dtypes_equal_to_int64_are_taken(rng):
    # np.longlong is another dtype object than np.int64 on Linux, and equal.
    arrays = make_inputs(rng, H=2, seqlens=[3, 4])
    want = gdr.gated_delta_rule(**arrays, cu_seqlens=np.array([0, 3, 7], dtype=np.int64))
    got = gdr.gated_delta_rule(**arrays, cu_seqlens=np.array([0, 3, 7], dtype=np.longlong))
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_in_place_reads_a_read_only_initial_state_into_another_final_state(rng):
    arrays = make_inputs(rng, B=2, H=2, T=3)
    want = gdr.gated_delta_rule(**arrays)
    arrays["initial_state"].flags.writeable = False
    got = gdr.gated_delta_rule(**arrays, final_state=np.empty_like(arrays["initial_state"]), in_place=True)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_in_place_final_state_of_another_shape_at_the_same_address_is_refused(rng):
    arrays = make_inputs(rng, B=2, H=2, T=3)
    pool = arrays["initial_state"]
    before = pool.copy()
    with pytest.raises(ValueError, match="^final_state: "):
        gdr.gated_delta_rule(**arrays, final_state=pool[:1], in_place=True)
    np.testing.assert_array_equal(pool, before)


def test_more_query_heads_than_the_routes_read_is_a_value_error(rng):
    arrays = make_inputs(rng, B=1, H=1, Hq=16, T=2)
    with pytest.raises(ValueError, match="^query_heads: the generated routes read a state head out with at most 8"):
        gdr.gated_delta_rule(**arrays)
    got = gdr.gated_delta_rule(**arrays, route="reference")  # which reads any number
    assert got[0].shape == (1, 16, 2, 16)


@pytest.mark.parametrize("option, value, message", [
    ("threads", 1.5, "threads: expected an int, got float"),
    ("threads", 2**40, "threads: must be >= 0 (0: the runtime decides) and below 2**31, got 1099511627776"),
    ("route", None, "route: expected a str, got NoneType"),
    ("layout", 3, "layout: expected a str, got int"),
    ("in_place", "yes", "in_place: expected a bool, got str"),
    ("in_place", 2, "in_place: expected a bool, got int"),
    ("state_stores", b"auto", "state_stores: expected a str, got bytes"),
])
def test_a_keyword_of_the_wrong_type_is_one_line_naming_it(option, value, message, rng):
    arrays = make_inputs(rng, B=1, H=2, T=2)
    with pytest.raises(ValueError) as e:
        gdr.gated_delta_rule(**arrays, **{option: value})
    assert str(e.value) == message
