"""Importing gdr into a Python its extension was not built for says so, and
names that Python and the extension found, instead of Python's "partially
initialized module" message; any other failure to load keeps its own."""

import os
import shutil
import subprocess
import sys

import gdr


def copy_of_gdr(tmp_path):
    """A copy of the built package (without the torch parts) and the name of its extension."""
    copy = tmp_path / "gdr"
    shutil.copytree(os.path.dirname(gdr.__file__), copy,
                    ignore=shutil.ignore_patterns("_gdr_torch*", "torch_ops.py", "__pycache__"))
    (extension,) = [f for f in os.listdir(copy) if f.startswith("_gdr.")]
    return copy, extension


def import_error(tmp_path):
    run = subprocess.run([sys.executable, "-c", "import gdr"], cwd=tmp_path, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(tmp_path)), timeout=120)
    assert run.returncode != 0
    return run.stderr.strip().splitlines()[-1]


def test_an_extension_for_another_python_is_named(tmp_path):
    copy, extension = copy_of_gdr(tmp_path)
    # Under a tag no interpreter has: this Python does not load it, as
    # another minor version would not.
    other = "_gdr.cpython-00-none.so"
    os.rename(copy / extension, copy / other)
    last = import_error(tmp_path)
    assert last.startswith("ImportError: gdr: its extension module _gdr does not load into this Python"), last
    assert sys.executable in last and other in last and "pip install ./python" in last, last


def test_an_extension_that_fails_to_load_keeps_its_own_message(tmp_path):
    copy, extension = copy_of_gdr(tmp_path)
    (copy / extension).write_bytes(b"not an ELF file")
    last = import_error(tmp_path)
    assert "does not load into this Python" not in last and extension in last, last
