"""Shared by the checks tests: the worked configuration for the real vllm.cpp
records, a repository holding them, and a runner for `mergedrv check`."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.helpers import DATA, MERGEDRV, git

MATRIX = ".agents/model-matrix.md"
ROADMAP = ".agents/roadmap_v1.md"
LEDGER = ".agents/parity-ledger.md"
RETIRED = ".agents/retired-keys.md"

# The worked example: under it the real model matrix f887c34c (326 rows, its
# checklist rollup, its static summary and its prose counts), the roadmap and
# the parity ledger pass every check unmutated.
WORKED_CONFIG = r"""
[[record]]
name = "MODEL"
path = ".agents/model-matrix.md"
key = "ID"
key_pattern = '^MODEL-[A-Za-z0-9_.-]+$'
pin = 326
refs = ["Row"]
ref_files = [".agents/roadmap_v1.md", ".agents/parity-ledger.md"]
retired = ".agents/retired-keys.md"

[record.columns]
Upstream = '^(?:v[\d.]+ \w+ )?`registry\.py:\d[\d,-]*`(?:; `[\w./-]+/(?:[\w.-]+\.py::[\w.]+)?`)?(?: @ `[0-9a-f]{7,40}`)?$'
State = '^`(?:INVENTORIED|SPIKE|READY|ACTIVE|GATING|DONE|PARTIAL|BLOCKED)`'

[[record.rollup]]
heading = "Architecture-support checklist"
group = "State"
label = "State"
count = "Rows"
total = "Total"

[[record.rollup]]
heading = "Static summary and invariants"
group = "ID"
label = "Block"
count = "Implementation targets"

[[record.count]]
pattern = '(\d+) architecture rows are inventoried'

[[record.count]]
pattern = '(\d+) are past `INVENTORIED`'
where = { State = "!INVENTORIED" }

[[record.count]]
pattern = 'the remaining (\d+) are known'
where = { State = "INVENTORIED" }

[[record.count]]
pattern = 'the (\d+) non-`INVENTORIED` rows'
where = { State = "!INVENTORIED" }

[[record.count]]
pattern = '\*\*(\d+) category/target rows\*\*'
where = { ID = '~^MODEL-(TEXT|EMBED|LATE|REWARD|TOKCLS|SEQCLS|MM|SPEC|HFALIAS|HFBACKEND)-' }

[[record]]
name = "ROADMAP"
path = ".agents/roadmap_v1.md"
key = "Block"
key_pattern = '^ROAD-V1-[A-Z0-9-]+$'

[[log]]
path = ".agents/parity-ledger.md"
"""

RETIRED_TEXT = "# Retired keys\n\nKeys listed here were removed from their record on purpose; they are never reused.\n\n"


def make_records_repo(repo: Path, matrix: str = "model-matrix.f887c34c.md", config: str = WORKED_CONFIG) -> Path:
    """Commit the real records and the worked configuration in ``repo``."""
    (repo / ".agents").mkdir(exist_ok=True)
    shutil.copy(DATA / matrix, repo / MATRIX)
    shutil.copy(DATA / "roadmap_v1.d85906ae.md", repo / ROADMAP)
    shutil.copy(DATA / "parity-ledger.d85906ae.md", repo / LEDGER)
    (repo / RETIRED).write_text(RETIRED_TEXT)
    (repo / ".mergedrv.toml").write_text(config)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "records")
    return repo


def check(repo: Path, *args: str) -> tuple[int, list[str], str]:
    """Run `mergedrv check ARGS` in ``repo``: exit code, stdout lines, stderr."""
    proc = subprocess.run([*MERGEDRV, "check", *args], cwd=repo, capture_output=True, text=True, timeout=120)
    return proc.returncode, [line for line in proc.stdout.splitlines() if line], proc.stderr


def check_json(repo: Path, *args: str) -> tuple[int, list[dict]]:
    """Run `mergedrv check --format json ARGS`: exit code and the parsed findings."""
    proc = subprocess.run([*MERGEDRV, "check", "--format", "json", *args], cwd=repo, capture_output=True, text=True, timeout=120)
    return proc.returncode, json.loads(proc.stdout)


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace ``old`` by ``new`` in a file; the text must be there."""
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def _find(path: Path, test, what: str) -> int:
    for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if test(line):
            return n
    raise AssertionError(f"{what} not in {path}")


def line_of(path: Path, needle: str) -> int:
    """1-based line of the first line holding ``needle``."""
    return _find(path, lambda line: needle in line, repr(needle))


def key_line(path: Path, key: str) -> int:
    """1-based line of the row keyed ``key`` (its first cell)."""
    return _find(path, lambda line: line.startswith(f"| `{key}` |"), f"row {key}")


def row_line(path: Path, key: str) -> str:
    """The full line (without newline) of the row keyed ``key``."""
    return path.read_text(encoding="utf-8").split("\n")[key_line(path, key) - 1]


# The engine matrix fixture's section grid: its State column per section, under shortened headings.
ENGINE_GRID = """
[[record.grid]]
column = "State"
[record.grid.labels]
"Engine core and scheduling" = "Engine and scheduling"
"Parallelism and scale-out" = "Parallelism"
"Sampling and generation controls" = "Sampling and generation"
"Structured outputs and tool calling" = "Structured output and tools"
"Serving surface, CLI, and library" = "Serving, API, CLI, library"
"Long context and attention breadth" = "Long context and attention"
"Loading, tokenizer, and config" = "Loading, tokenizer, config"
"""
