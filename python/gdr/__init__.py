"""gdr: the channelwise gated delta rule, compiled for this CPU.

    out, final_state = gdr.gated_delta_rule(query, key, value, decay, beta, initial_state)

NumPy arrays in (float32, C-contiguous), NumPy arrays out; the shapes decide
the form (docs/op-contract.md, "The whole interface"). Kernels are compiled
on first use for the call's shape and this CPU, and kept in the kernel cache
($GDR_CACHE_DIR, else ~/.cache/gdr) with gdr-tune's tuning database. When
torch is importable, ``import gdr`` also registers ``torch.ops.gdr``
(``gated_delta_rule`` and ``gated_delta_rule.out``, ExecuTorch's schema).
"""

import numbers

import numpy as _np

try:
    from . import _gdr
except ImportError as _error:
    # Python's own message for an extension built for another interpreter
    # (no file this one would load) is "cannot import name '_gdr' from
    # partially initialized module". Any other failure is left as it is.
    import glob as _glob
    import importlib.machinery as _machinery
    import os as _os
    import sys as _sys

    _here = _os.path.dirname(__file__)
    if any(_os.path.exists(_os.path.join(_here, "_gdr" + s)) for s in _machinery.EXTENSION_SUFFIXES):
        raise
    _built = sorted(_os.path.basename(f) for f in _glob.glob(_os.path.join(_here, "_gdr.*")))
    raise ImportError(
        "gdr: its extension module _gdr does not load into this Python ({} {}.{}): found {}. "
        "It loads only into the Python it was built for (the build's Python3_EXECUTABLE; "
        "tools/scripts/setup.sh uses /usr/bin/python3): run that one, or build for this one "
        "with `{} -m pip install ./python`. ({})".format(
            _sys.executable, _sys.version_info[0], _sys.version_info[1],
            ", ".join(_built) if _built else "none (is this the source folder python/gdr?)",
            _sys.executable, _error)) from _error

__version__ = _gdr.__version__
__all__ = ["gated_delta_rule", "explain", "configure", "__version__"]


def gated_delta_rule(query, key, value, decay, beta, initial_state=None, *, out=None, final_state=None,
                     route="auto", threads=0, layout="bhtd", cu_seqlens=None, initial_state_indices=None,
                     final_state_indices=None, in_place=False, state_stores="auto", out_stores="auto"):
    """Runs the op; returns (out, final_state).

    query [B, Hq, T, K], key [B, Hk, T, K], value [B, H, T, V], decay
    [B, H, T, K] (channelwise) or [B, H, T] (scalar), beta [B, H, T]; with
    layout="bthd" the token and head dimensions swap ([B, T, heads, D]).
    initial_state [N or pool rows, H, K, V] (None: zeros). out and
    final_state are allocated unless given. cu_seqlens (int32 or int64,
    B = 1) packs N sequences into T tokens; initial_state_indices and
    final_state_indices pick each sequence's rows of the state pools (-1:
    start from zeros). in_place=True lets final_state be initial_state
    (the default when final_state is None): the pool is updated.

    Raises ValueError naming the argument, with nothing written, on bad
    input; RuntimeError if a kernel cannot be built or fails. threads=0
    lets the runtime decide. state_stores="streaming" writes the final
    states with non-temporal stores (they skip the cache: for a model that
    runs its other layers before this state is read again), "cached"
    through the cache; "auto" streams calls whose states outgrow the L2
    caches, except in place; out_stores likewise for out (streamed when
    the call's data outgrows the L2 caches). The GIL is released while the kernel runs.
    """
    _check_options(route=route, threads=threads, layout=layout, in_place=in_place, state_stores=state_stores,
                   out_stores=out_stores)
    return _gdr.gated_delta_rule(query, key, value, decay, beta, initial_state, out, final_state, route,
                                 threads, layout, cu_seqlens, initial_state_indices, final_state_indices,
                                 in_place, state_stores, out_stores)


def explain(query, key, value, decay, beta, initial_state=None, *, route="auto", threads=0, layout="bhtd",
            cu_seqlens=None, initial_state_indices=None, final_state_indices=None, in_place=False):
    """Which route and schedule gated_delta_rule would run for these
    arguments, e.g. "recurrent w16-vt128-u1-p4 (tuned)". Reads only shapes."""
    _check_options(route=route, threads=threads, layout=layout, in_place=in_place)
    return _gdr.explain(query, key, value, decay, beta, initial_state, route, threads, layout, cu_seqlens,
                        initial_state_indices, final_state_indices, in_place)


def _check_options(**options):
    # The keyword arguments' types, so that a wrong one is one ValueError
    # line naming it (not pybind11's TypeError listing every argument).
    for name, value in options.items():
        if name == "in_place":
            # A bool, NumPy's too, or 0 and 1 (which pybind11 took before).
            if not isinstance(value, (bool, _np.bool_)) and not (isinstance(value, numbers.Integral)
                                                                and value in (0, 1)):
                raise ValueError(f"in_place: expected a bool, got {type(value).__name__}")
        elif name == "threads":
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise ValueError(f"threads: expected an int, got {type(value).__name__}")
            if not 0 <= value < 2**31:
                raise ValueError(f"threads: must be >= 0 (0: the runtime decides) and below 2**31, got {value}")
        elif not isinstance(value, str):
            raise ValueError(f"{name}: expected a str, got {type(value).__name__}")


def configure(cache_dir="", tuning_db="", verbosity=-1):
    """Sets the kernel cache folder ("off": none), the tuning database
    ("off": default schedules) and how much gdr says on stderr (0..2); empty
    or negative: from the environment, as at import."""
    _gdr.configure(cache_dir, tuning_db, verbosity)


try:
    import torch as _torch  # noqa: F401
except ImportError:
    pass
else:
    from . import torch_ops as _torch_ops  # noqa: F401  (registers torch.ops.gdr)
