# Independent check of gdr-run against the numpy float64 reference of the
# Python tests (python/tests/contract.py) on shapes and decay values the C++
# tests do not use; in the test command as gdr_run_numpy_check:
#   /usr/bin/python3 test/tools/check_with_numpy.py build/tools/gdr-run auto,chunked
# Exits non-zero if any route misses the contract's 1e-4 bar.
import numpy as np, subprocess, sys, os, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "tests"))
from contract import reference, relative_error, ERROR_BAR
failed = False
exe = os.path.abspath(sys.argv[1])
os.chdir(tempfile.mkdtemp())
routes = sys.argv[2].split(",")
rng = np.random.default_rng(2026)
for (B, H, T, K, V, dreg) in [(2, 3, 77, 20, 36, "u"), (1, 5, 200, 48, 24, "near"), (3, 1, 9, 7, 5, "zeros"), (1, 2, 150, 40, 24, "zeros"), (1, 3, 70, 33, 65, "e^-5")]:
    def nrm(x): return x / np.linalg.norm(x, axis=-1, keepdims=True)
    q = nrm(rng.standard_normal((B, H, T, K))).astype(np.float32)
    k = nrm(rng.standard_normal((B, H, T, K))).astype(np.float32)
    v = rng.standard_normal((B, H, T, V)).astype(np.float32)
    d = rng.uniform(0, 1, (B, H, T, K)) if dreg != "near" else rng.uniform(0.9, 1, (B, H, T, K))
    if dreg == "zeros": d[rng.uniform(size=d.shape) < 0.2] = 0
    if dreg == "e^-5": d = np.full(d.shape, np.exp(-5.0))
    d = d.astype(np.float32)
    b = rng.uniform(0, 1, (B, H, T)).astype(np.float32)
    s0 = rng.standard_normal((B, H, K, V)).astype(np.float32)
    for n, a in dict(q=q, k=k, v=v, d=d, b=b, s=s0).items(): np.save(n + ".npy", a)
    out, S = reference(q, k, v, d, b, s0)
    for route in routes:
        for name in ("o.npy", "f.npy"):  # read next: this route's, not the last one's
            if os.path.exists(name): os.remove(name)
        r = subprocess.run([exe, "--query", "q.npy", "--key", "k.npy", "--value", "v.npy", "--decay", "d.npy",
                            "--beta", "b.npy", "--initial-state", "s.npy", "--out", "o.npy", "--final-state", "f.npy",
                            "--route", route, "--threads", "2"], capture_output=True, text=True)
        if r.returncode:
            print(route, "FAILED", r.stderr.strip()); failed = True; continue
        o = np.load("o.npy"); f = np.load("f.npy")
        err = max(relative_error(o, out), relative_error(f, S))
        failed |= not err <= ERROR_BAR
        print(f"B={B} H={H} T={T} K={K} V={V} decay={dreg:5s} route={route:18s} max rel err {err:.2e}")
sys.exit(1 if failed else 0)
