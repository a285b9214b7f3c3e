"""Scratch repositories holding small vllm.cpp-like records, wired with `mergedrv install`."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from mergedrv import model

from tests.helpers import MERGEDRV, git

ROADMAP = ".agents/roadmap.md"
MATRIX = ".agents/model-matrix.md"
LEDGER = ".agents/parity-ledger.md"
CONFIG = """\
[[record]]
name = "MODEL"
path = ".agents/model-matrix.md"
key = "ID"
key_pattern = '^MODEL-[A-Za-z0-9_.-]+$'

[[record]]
name = "ROAD"
path = ".agents/roadmap.md"
key = "Block"

[[log]]
path = ".agents/parity-ledger.md"
"""
ROAD_HEAD = "# Roadmap\n\n## Top-level portfolio\n\n| Order | Block | Big area / outcome | State |\n|---:|---|---|---|\n"
MATRIX_HEAD = "# Model parity matrix\n\n## MODEL-TEXT - Text generation\n\n| ID | Item | State | Owner |\n|---|---|---|---|\n"
LEDGER_TEXT = "# Parity ledger (append-only)\n\n| Date / commit | What it does |\n|---|---|\n| 2026-07-02 `462d673` | Project record |\n"


def road_row(n: int, key: str, text: str = "area", state: str = "PARTIAL") -> str:
    return f"| {n} | `{key}` | {text} | `{state}` |\n"


def model_row(key: str, item: str, state: str = "INVENTORIED", owner: str = "unassigned") -> str:
    return f"| `{key}` | `{item}` | `{state}` | {owner} |\n"


def roadmap(*rows: str) -> str:
    return ROAD_HEAD + "".join(rows)


def matrix(*rows: str) -> str:
    return MATRIX_HEAD + "".join(rows)


BASE_ROAD = [road_row(i, f"ROAD-V1-C{i}", f"area {i}") for i in range(1, 6)]
BASE_MODELS = [model_row(f"MODEL-TEXT-m{i}", f"M{i}ForCausalLM") for i in range(1, 5)]


def mergedrv(cwd, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*MERGEDRV, *args], cwd=cwd, capture_output=True, text=True, input=input)


def write(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def commit(repo: Path, files: dict[str, str], message: str) -> str:
    write(repo, files)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", message)
    return git(repo, "rev-parse", "HEAD").stdout.strip()


def seed(repo: Path) -> None:
    """The base records and configuration, committed on main."""
    commit(
        repo,
        {".mergedrv.toml": CONFIG, ROADMAP: roadmap(*BASE_ROAD), MATRIX: matrix(*BASE_MODELS), LEDGER: LEDGER_TEXT},
        "records",
    )


def install(repo: Path) -> subprocess.CompletedProcess:
    proc = mergedrv(repo, "install")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def keys(data: str | bytes, key: str) -> list[str]:
    raw = data.encode() if isinstance(data, str) else data
    return [row.key for row in model.parse(raw, key=key).rows()]


def keys_at(repo: Path, rev: str, path: str, key: str) -> list[str]:
    return keys(git(repo, "show", f"{rev}:{path}").stdout, key)


def snapshot(repo: Path) -> dict[str, str]:
    """Hashes and modes of every file install may touch, and the local git config."""
    out = {}
    common = Path(git(repo, "rev-parse", "--git-common-dir").stdout.strip())
    common = common if common.is_absolute() else repo / common
    hooks_path = git(repo, "config", "--get", "core.hooksPath", check=False).stdout.strip()
    folders = [common / "hooks", common]
    if hooks_path:
        folders.append(repo / hooks_path)
    for folder in folders:
        if not folder.is_dir():
            continue
        for f in sorted(folder.iterdir()):
            if f.is_file() and f.name not in ("index", "ORIG_HEAD", "COMMIT_EDITMSG") and not f.name.endswith(".lock"):
                out[str(f.relative_to(repo))] = f"{oct(f.stat().st_mode)} {hashlib.sha256(f.read_bytes()).hexdigest()}"
    for name in (".gitattributes", ".pre-commit-config.yaml"):
        f = repo / name
        out[name] = hashlib.sha256(f.read_bytes()).hexdigest() if f.exists() else "absent"
    out["git config --list"] = git(repo, "config", "--list", "--local").stdout
    return out
