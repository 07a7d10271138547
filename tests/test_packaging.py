"""One import namespace: everything installs under `webnn_harness`."""
from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _setuptools_table() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_folder_is_listed_under_the_namespace():
    table = _setuptools_table()
    listed = set(table["packages"])
    found = set()
    for name, folder in table["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]))
    # A subpackage folder not listed in pyproject would be left out of the wheel.
    assert found <= listed, f"not listed in pyproject [tool.setuptools] packages: {sorted(found - listed)}"
    assert all(p == "webnn_harness" or p.startswith("webnn_harness.") for p in listed)


def test_a_folder_named_backends_in_the_working_directory_does_not_shadow_ours(tmp_path):
    # A user's repository with its own generic top-level folders.
    for name in ("backends", "reports", "cases", "harness"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("raise ImportError('the user\\'s own package')\n")
    out = subprocess.run([sys.executable, "-m", "webnn_harness", "backends"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "reference" in out.stdout
