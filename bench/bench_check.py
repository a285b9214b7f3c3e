#!/usr/bin/env python3
"""`mergedrv check` on a repository holding the real vllm.cpp records.

Builds a repository with the model matrix (f887c34c, 326 rows), the roadmap,
the 1.2 MB parity ledger and the worked configuration of the README, then
measures in one run, median of N process runs each:

  python     `python -c pass`: the interpreter's own start;
  parse      a process that only imports the record model and parses the
             three record files once (the floor of any checker built on it);
  check      `mergedrv check` (working tree, against HEAD)      budget 150 ms;
  staged     `mergedrv check --staged` (index, pygit2)           budget 250 ms;
  commit     `mergedrv check --commit HEAD`.

    .venv/bin/python bench/bench_check.py [--runs 15] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.checks_helpers import LEDGER, MATRIX, ROADMAP, make_records_repo  # noqa: E402

PARSE_ONLY = f"""
from mergedrv import model
for path, key, log in (({MATRIX!r}, "ID", False), ({ROADMAP!r}, "Block", False), ({LEDGER!r}, None, True)):
    model.parse(open(path, "rb").read(), key, log)
"""


# as installed: bytecode is written once and reused (some shells set
# PYTHONDONTWRITEBYTECODE, which would time the compiler instead)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _median_ms(cmd: list[str], cwd: Path, runs: int) -> tuple[float, int]:
    times = []
    rc = 0
    for _ in range(runs):
        start = time.perf_counter()
        rc = subprocess.run(cmd, cwd=cwd, capture_output=True, env=ENV).returncode
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), rc


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--keep", metavar="DIR", help="build the repository here and keep it")
    args = ap.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-check-"))
    repo = work / "repo"
    repo.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run(["git", "config", "user.name", "bench"], cwd=repo, check=True)
    subprocess.run(["git", "config", "user.email", "bench@example.com"], cwd=repo, check=True)
    make_records_repo(repo)
    exe = [str(Path(sys.executable).parent / "mergedrv")]  # the console script, as hooks and pre-commit run it
    rows = [
        ("python", [sys.executable, "-c", "pass"], None),
        ("parse", [sys.executable, "-c", PARSE_ONLY], None),
        ("check", [*exe, "check"], 150),
        ("staged", [*exe, "check", "--staged"], 250),
        ("commit", [*exe, "check", "--commit", "HEAD"], None),
    ]
    results = {}
    for name, cmd, _ in rows:
        _median_ms(cmd, repo, 2)  # warm the caches
        results[name] = _median_ms(cmd, repo, args.runs)
    print(f"records: {MATRIX} 326 rows, {ROADMAP}, {LEDGER} ({(repo / LEDGER).stat().st_size // 1024} KiB); median of {args.runs} runs")
    ok = True
    for name, _, budget in rows:
        ms, rc = results[name]
        extra = f"  x{ms / results['parse'][0]:.2f} of parse" if name not in ("python", "parse") else ""
        verdict = ""
        if budget is not None:
            verdict = f"  budget {budget} ms: {'ok' if ms <= budget else 'OVER'}"
            ok = ok and ms <= budget
        print(f"  {name:7} {ms:7.1f} ms  exit {rc}{extra}{verdict}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
