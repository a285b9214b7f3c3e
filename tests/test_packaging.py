"""Packaging as the ecosystem expects: the wheel and the sdist of `python -m build`
installed in clean virtual environments (a smoke test: `mergedrv demo`), and the
pre-commit framework using mergedrv's hooks from a clone tagged as a release:
the documented snippet, and the entry `mergedrv install` writes.  Offline: the
build, pip and pre-commit use the package index this machine is configured with."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mergedrv import __version__

from tests.helpers import ROOT, git
from tests.install_helpers import BASE_MODELS, CONFIG, LEDGER, LEDGER_TEXT, MATRIX, ROAD_HEAD, ROADMAP, commit, matrix, mergedrv, model_row, road_row, seed

IGNORE = shutil.ignore_patterns(".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis", "bench")
TAG = f"v{__version__}"


def _run(*args, cwd=None, timeout=600, env=None) -> subprocess.CompletedProcess:
    full = None if env is None else {**os.environ, **env}
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=full)


def _smoke(venv: Path) -> None:
    exe = venv / "bin" / "mergedrv"
    for flag in ("--version", "-V"):
        version = _run(exe, flag)
        assert version.returncode == 0 and version.stdout.strip() == f"mergedrv {__version__}", version.stderr
    demo = _run(exe, "demo", timeout=300)
    assert demo.returncode == 0, demo.stderr[-2000:]
    assert "mergedrv:  1 file conflicted (double-definition)" in demo.stdout  # the bundled samples are in it


def test_the_wheel_built_from_the_sdist_installs_in_a_clean_venv_and_runs_the_demo(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=IGNORE)
    built = _run(sys.executable, "-m", "build", "--outdir", tmp_path / "dist", src)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    [wheel] = (tmp_path / "dist").glob("*.whl")
    [sdist] = (tmp_path / "dist").glob("*.tar.gz")
    assert wheel.name == f"mergedrv-{__version__}-py3-none-any.whl" and sdist.name == f"mergedrv-{__version__}.tar.gz"
    listing = _run("tar", "tzf", sdist).stdout
    assert f"mergedrv-{__version__}/LICENSE" in listing and "/mergedrv/samples/model-matrix.md" in listing
    # `python -m build` builds the wheel from the sdist it made: the wheel
    # installed here is what pip builds from the sdist (one clean venv proves both)
    assert "Building wheel from sdist" in built.stdout + built.stderr, built.stdout[-2000:]
    venv = tmp_path / "from-dist"
    assert _run(sys.executable, "-m", "venv", venv).returncode == 0
    pip = _run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel)
    assert pip.returncode == 0, pip.stderr[-2000:]
    _smoke(venv)


# --- the pre-commit framework, from a clone tagged as a release --------------------


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """A clone of this repository tagged with the version's tag, and one pre-commit home for the module."""
    top = tmp_path_factory.mktemp("release")
    clone = top / "mergedrv-clone"
    git(top, "clone", "-q", str(ROOT), str(clone))
    git(clone, "tag", TAG)
    return f"file://{clone}", {"PRE_COMMIT_HOME": str(top / "pre-commit-home")}


def _snippet() -> str:
    """The `.pre-commit-config.yaml` snippet of docs/ci.md, as written there."""
    text = (ROOT / "docs" / "ci.md").read_text()
    [block] = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if f"rev: {TAG}" in b]
    return block


def _commit(repo: Path, message: str, env: dict) -> subprocess.CompletedProcess:
    return _run("git", "commit", "-q", "-m", message, cwd=repo, env=env)


def _double_key(repo: Path) -> str:
    """Stage a key defined twice; the finding the plain hook's check prints for it."""
    (repo / MATRIX).write_text(matrix(*BASE_MODELS, BASE_MODELS[0]))
    git(repo, "add", MATRIX)
    plain = mergedrv(repo, "check", "--staged")
    assert plain.returncode == 1
    return plain.stdout.strip()


def test_the_documented_snippet_runs_from_a_clone_at_the_release_tag(tmp_path, release):
    url, env = release
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    seed(repo)
    snippet = _snippet()
    assert re.search(r"repo: \S+", snippet) and "id: mergedrv" in snippet
    commit(repo, {".pre-commit-config.yaml": re.sub(r"repo: \S+", f"repo: {url}", snippet)}, "pre-commit")
    pre_commit = Path(sys.executable).with_name("pre-commit")
    inst = _run(pre_commit, "install", "-t", "pre-commit", "-t", "commit-msg", "-t", "pre-merge-commit", cwd=repo, env=env)
    assert inst.returncode == 0, inst.stdout + inst.stderr
    (repo / MATRIX).write_text(matrix(*BASE_MODELS, model_row("MODEL-TEXT-new", "NewForCausalLM")))
    git(repo, "add", MATRIX)
    good = _commit(repo, "a row", env)
    assert good.returncode == 0, good.stdout[-3000:] + good.stderr[-3000:]
    assert "mergedrv record checks" in good.stdout + good.stderr
    finding = _double_key(repo)
    bad = _commit(repo, "a key twice", env)
    assert bad.returncode != 0 and finding in bad.stdout + bad.stderr, bad.stdout[-3000:] + bad.stderr[-3000:]


RECORDED = CONFIG.replace('key_pattern = \'^MODEL-[A-Za-z0-9_.-]+$\'\n', "key_pattern = '^MODEL-[A-Za-z0-9_.-]+$'\n\n[[record.count]]\npattern = '(\\d+) models are tracked'\n", 1)


def test_install_writes_an_entry_the_framework_runs_as_the_plain_hooks_run(tmp_path, release):
    url, env = release
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    tracked = matrix(*BASE_MODELS) + "\n4 models are tracked.\n"
    commit(repo, {".mergedrv.toml": RECORDED, MATRIX: tracked, ROADMAP: ROAD_HEAD + road_row(1, "ROAD-A"), LEDGER: LEDGER_TEXT,  # install refuses untracked record paths
                  ".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks:\n      - id: own\n        name: own\n        entry: 'true'\n        language: system\n        stages: [pre-commit]\n"}, "records")
    proc = _run(*_mergedrv(), "install", "--pre-commit-repo", url, "--pre-commit-rev", TAG, cwd=repo, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = (repo / ".pre-commit-config.yaml").read_text()
    assert f"repo: \"{url}\"" in text and f"rev: \"{TAG}\"" in text and str(Path(sys.executable).parent) not in text
    git(repo, "add", ".pre-commit-config.yaml", ".gitattributes")
    first = _commit(repo, "mergedrv through the framework", env)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    finding = _double_key(repo)
    bad = _commit(repo, "a key twice", env)
    assert bad.returncode != 0 and finding in bad.stdout + bad.stderr, bad.stdout[-3000:] + bad.stderr[-3000:]
    # a stale count: the framework's hook fixes it and fails once, as the framework expects of a fixer
    (repo / MATRIX).write_text(matrix(*BASE_MODELS, model_row("MODEL-TEXT-new", "New")) + "\n4 models are tracked.\n")
    git(repo, "add", MATRIX)
    stale = _commit(repo, "a row, the count left stale", env)
    said = stale.stdout + stale.stderr
    assert stale.returncode != 0 and "fixed: MODEL count '(\\d+) models are tracked' 4 -> 5" in said, said[-3000:]
    assert "5 models are tracked." in (repo / MATRIX).read_text()
    git(repo, "add", MATRIX)
    fixed = _commit(repo, "a row", env)
    assert fixed.returncode == 0, fixed.stdout[-3000:] + fixed.stderr[-3000:]
    # and `mergedrv fix` is there for a framework user: the manual hook
    (repo / MATRIX).write_text(matrix(*BASE_MODELS, model_row("MODEL-TEXT-new", "New"), model_row("MODEL-TEXT-two", "Two")) + "\n5 models are tracked.\n")
    git(repo, "add", MATRIX)  # (the framework sets unstaged changes aside while its hooks run)
    pre_commit = Path(sys.executable).with_name("pre-commit")
    _run(pre_commit, "run", "mergedrv-fix", "--hook-stage", "manual", cwd=repo, env=env)
    assert "6 models are tracked." in (repo / MATRIX).read_text()


def _mergedrv() -> list[str]:
    from tests.helpers import MERGEDRV

    return list(MERGEDRV)
