"""Importing gdr into a Python its extension was not built for says so, and
names that Python and the extension found, instead of Python's "partially
initialized module" message."""

import os
import shutil
import subprocess
import sys

import gdr


def test_an_extension_for_another_python_is_named(tmp_path):
    package = os.path.dirname(gdr.__file__)
    copy = tmp_path / "gdr"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("_gdr_torch*", "torch_ops.py", "__pycache__"))
    # The built extension under another interpreter's tag: this Python does
    # not load it, as another minor version would not.
    (extension,) = [f for f in os.listdir(copy) if f.startswith("_gdr.")]
    other = "_gdr.cpython-39-x86_64-linux-gnu.so"
    os.rename(copy / extension, copy / other)
    run = subprocess.run([sys.executable, "-c", "import gdr"], cwd=tmp_path, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(tmp_path)), timeout=120)
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: gdr: its extension module _gdr does not load into this Python"), last
    assert sys.executable in last and other in last and "pip install ./python" in last, last
