"""Packaging as the ecosystem expects: a wheel from `python -m build` in a clean virtual
environment, and the pre-commit hooks used from another repository (`pre-commit try-repo`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from mergedrv import __version__

from tests.helpers import ROOT, git
from tests.install_helpers import BASE_MODELS, MATRIX, commit, matrix, model_row

IGNORE = shutil.ignore_patterns(".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis", "bench")


def _run(*args, cwd=None, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def test_wheel_installs_in_a_clean_venv_and_reports_its_version(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=IGNORE)
    built = _run(sys.executable, "-m", "build", "--wheel", "--outdir", tmp_path / "dist", src)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    [wheel] = (tmp_path / "dist").glob("*.whl")
    assert wheel.name == f"mergedrv-{__version__}-py3-none-any.whl"
    venv = tmp_path / "venv"
    assert _run(sys.executable, "-m", "venv", venv).returncode == 0
    pip = _run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel)
    assert pip.returncode == 0, pip.stderr[-2000:]
    exe = venv / "bin" / "mergedrv"
    version = _run(exe, "--version")
    assert version.returncode == 0 and version.stdout.strip() == f"mergedrv {__version__}"
    # the installed package merges (tree-sitter, the bundled grammar, the console script)
    base, ours, theirs = (tmp_path / n for n in ("o", "a", "b"))
    cfg = tmp_path / "mergedrv.toml"
    cfg.write_text('[[record]]\nname = "MODEL"\npath = "m.md"\nkey = "ID"\n')
    base.write_text(matrix(*BASE_MODELS))
    ours.write_text(matrix(*BASE_MODELS, model_row("MODEL-TEXT-a", "A")))
    theirs.write_text(matrix(*BASE_MODELS, model_row("MODEL-TEXT-b", "B")))
    merged = _run(exe, "merge", base, ours, theirs, "-p", "m.md", "--config", cfg)
    assert merged.returncode == 0, merged.stderr
    assert "MODEL-TEXT-a" in ours.read_text() and "MODEL-TEXT-b" in ours.read_text()


def test_pre_commit_try_repo_from_a_scratch_repository(tmp_path, repo):
    clone = tmp_path / "mergedrv-clone"
    git(tmp_path, "clone", "-q", str(ROOT), str(clone))
    commit(repo, {".mergedrv.toml": '[[record]]\nname = "MODEL"\npath = ".agents/model-matrix.md"\nkey = "ID"\n',
                  MATRIX: matrix(*BASE_MODELS)}, "a record")
    pre_commit = Path(sys.executable).with_name("pre-commit")
    good = _run(pre_commit, "try-repo", clone, "mergedrv", "--all-files", cwd=repo, timeout=600)
    assert good.returncode == 0, good.stdout[-3000:] + good.stderr[-3000:]
    assert "mergedrv record checks" in good.stdout and "Passed" in good.stdout
    (repo / MATRIX).write_text(matrix(*BASE_MODELS, BASE_MODELS[0]))  # a key defined twice
    git(repo, "add", MATRIX)
    bad = _run(pre_commit, "try-repo", clone, "keys-unique", cwd=repo, timeout=600)
    assert bad.returncode == 1, bad.stdout[-3000:]
    assert f"{MATRIX}:11: keys-unique: MODEL: key MODEL-TEXT-m1 is defined twice (first at line 7)" in bad.stdout and "Failed" in bad.stdout
