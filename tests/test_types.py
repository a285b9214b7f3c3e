"""Type checking: mypy on the whole package with the [tool.mypy] configuration
of pyproject.toml (every function body checked; strict for the ground floor,
the model's core and config/)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT


def test_mypy_finds_no_errors():
    pytest.importorskip("mypy")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary", "--cache-dir", str(ROOT / ".mypy_cache")],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
