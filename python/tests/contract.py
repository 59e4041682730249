"""The op's float64 reference over the whole interface, the contract's
inputs and its accuracy bars (docs/op-contract.md), for the Python tests.
Written independently of the C++ reference (reference/src/reference.cpp):
a second reading of the contract."""

import numpy as np

ERROR_BAR, YARDSTICK_FACTOR, YARDSTICK_FLOOR = 1e-4, 8, 1e-6


def make_inputs(rng, B=1, H=4, T=9, K=16, V=16, Hq=None, Hk=None, scalar_decay=False, layout="bhtd",
                seqlens=None, pool_rows=None):
    """The contract's inputs: L2-normalised query and key, decay U(0.9, 1),
    beta U(0, 1), states N(0, 1). seqlens packs sequences (B = 1); pool_rows
    makes the initial state a pool of that many rows. Arrays in `layout`."""
    Hq, Hk = Hq or H, Hk or H
    if seqlens is not None:
        B, T = 1, int(sum(seqlens))
    def unit(heads):
        x = rng.standard_normal((B, heads, T, K))
        return x / np.linalg.norm(x, axis=-1, keepdims=True)
    arrays = {
        "query": unit(Hq), "key": unit(Hk), "value": rng.standard_normal((B, H, T, V)),
        "decay": rng.uniform(0.9, 1.0, (B, H, T) if scalar_decay else (B, H, T, K)),
        "beta": rng.uniform(0.0, 1.0, (B, H, T)),
    }
    if layout == "bthd":
        arrays = {n: np.swapaxes(a, 1, 2) for n, a in arrays.items()}
    arrays = {n: np.ascontiguousarray(a, dtype=np.float32) for n, a in arrays.items()}
    N = len(seqlens) if seqlens is not None else B
    arrays["initial_state"] = rng.standard_normal((pool_rows or N, H, K, V)).astype(np.float32)
    return arrays


def reference(query, key, value, decay, beta, initial_state=None, layout="bhtd", cu_seqlens=None,
              initial_state_indices=None, final_state_indices=None, final_state=None):
    """float64 out and final state pool of the whole interface, from the
    contract's recurrence. final_state: the pool final_state_indices writes
    into (rows no sequence writes keep their contents)."""
    q, k, v, d, b = (np.asarray(x, dtype=np.float64) for x in (query, key, value, decay, beta))
    if layout == "bthd":
        q, k, v, d, b = (np.swapaxes(x, 1, 2) for x in (q, k, v, d, b))
    B, Hq, T, K = q.shape
    Hk, H, V = k.shape[1], v.shape[1], v.shape[3]
    if cu_seqlens is None:
        sequences = [(row, 0, T) for row in range(B)]
    else:
        sequences = [(0, int(cu_seqlens[i]), int(cu_seqlens[i + 1])) for i in range(len(cu_seqlens) - 1)]
    N = len(sequences)
    out = np.zeros((B, max(Hq, H), T, V))
    if final_state is not None:
        pool = np.array(final_state, dtype=np.float64)
    elif final_state_indices is not None:
        pool = np.zeros((initial_state.shape[0], H, K, V))
    else:
        pool = np.zeros((N, H, K, V))
    for i, (row, t0, t1) in enumerate(sequences):
        source = i if initial_state_indices is None else int(initial_state_indices[i])
        for h in range(H):
            S = np.zeros((K, V)) if initial_state is None or source < 0 else \
                np.array(initial_state[source, h], dtype=np.float64)
            kh = h // (H // Hk)
            # (query head, out head) pairs reading state head h
            readers = [(h // (H // Hq), h)] if Hq <= H else [(j, j) for j in range(h * (Hq // H), (h + 1) * (Hq // H))]
            for t in range(t0, t1):
                S = S * (d[row, h, t] if d.ndim == 3 else d[row, h, t][:, None])
                kt = k[row, kh, t]
                delta = b[row, h, t] * (v[row, h, t] - S.T @ kt)
                S = S + np.outer(kt, delta)
                for j, o in readers:
                    out[row, o, t] = S.T @ q[row, j, t]
            pool[i if final_state_indices is None else int(final_state_indices[i]), h] = S
    if layout == "bthd":
        out = np.swapaxes(out, 1, 2)
    return out, pool


def relative_error(got, want):
    """max |got - want| / (1 + |want|); NaN anywhere counts as infinite."""
    got = np.asarray(got, dtype=np.float64)
    e = np.abs(got - want) / (1 + np.abs(want))
    return float("inf") if not np.all(np.isfinite(got)) else float(e.max(initial=0.0))


def assert_within_contract(got, yardstick, want):
    """got and yardstick (the float32 reference route's result): tuples of
    (out, final_state), want the float64 reference's."""
    for g, y, w, name in zip(got, yardstick, want, ("out", "final_state")):
        assert np.shape(g) == np.shape(y) == np.shape(w), f"{name}: shape {np.shape(g)}, want {np.shape(w)}"
    error = max(relative_error(g, w) for g, w in zip(got, want))
    yard = max(relative_error(y, w) for y, w in zip(yardstick, want))
    assert error <= ERROR_BAR, f"error {error:.3g} > {ERROR_BAR}"
    assert error <= YARDSTICK_FACTOR * yard + YARDSTICK_FLOOR, \
        f"error {error:.3g} > {YARDSTICK_FACTOR} x the float32 recurrence's {yard:.3g} + {YARDSTICK_FLOOR}"
