#!/usr/bin/env python3
"""`mergedrv check --staged` on a real tree, with `mergedrv init`'s full proposal.

Give it a clone whose HEAD holds the configuration `mergedrv init` proposed
(the vllm.cpp sparse clone of docs/performance.md: clone, `mergedrv init`,
commit `.mergedrv.toml`).  It measures in one run, interleaved, median of N:

  python        `python -c pass`: the bare interpreter start;
  staged        `mergedrv check --staged` after a one-cell edit of the model
                matrix is staged (the pre-commit hook's check);
  fix           `mergedrv check --staged --fix` after a one-row addition is
                staged (the hook fixes the pin, rollups and counts and
                restages them); the index and work tree are put back, untimed,
                before each run.

Each `--mergedrv PATH` is timed in the same rounds (a baseline build beside
the one being measured); the first is the default `mergedrv` beside this
Python.  The exit statuses and the standard output of every build must
agree (stderr's line counting the inherited findings counts them where a
build looked, so it differs between builds that look at more or less).

    .venv/bin/python bench/bench_staged_real.py /tmp/vllm [--runs 5] [--mergedrv OTHER/.venv/bin/mergedrv]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

MATRIX = ".agents/model-matrix.md"
ROW = "MODEL-TEXT-bloom-bloom-for-causal-lm"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def _row(text: str, key: str) -> str:
    return next(line for line in text.split("\n") if line.startswith(f"| `{key}` "))


def _reset(repo: Path) -> None:
    _git(repo, "reset", "-q", "HEAD", "--", MATRIX, ".mergedrv.toml")
    _git(repo, "checkout", "-q", "HEAD", "--", MATRIX, ".mergedrv.toml")


def _edit_cell(repo: Path, n: int) -> None:
    path = repo / MATRIX
    text = path.read_text(encoding="utf-8")
    row = _row(text, ROW)
    cells = row.split("|")
    cells[-2] = f" owner-{n} "
    path.write_text(text.replace(row, "|".join(cells), 1), encoding="utf-8")
    _git(repo, "add", MATRIX)


def _add_row(repo: Path) -> None:
    path = repo / MATRIX
    text = path.read_text(encoding="utf-8")
    row = _row(text, ROW)
    cells = row.split("|")
    cells[1] = " `MODEL-TEXT-bench-added` "
    path.write_text(text.replace(row, row + "\n" + "|".join(cells), 1), encoding="utf-8")
    _git(repo, "add", MATRIX)


CPU: dict[str, list[float]] = {}  # user + system time of each timed command's processes


def _run(cmd: list[str], repo: Path, name: str = "") -> tuple[float, int, str]:
    before = os.times()
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=repo, capture_output=True, text=True)
    took = time.perf_counter() - started
    after = os.times()
    CPU.setdefault(name, []).append(after.children_user - before.children_user + after.children_system - before.children_system)
    return took, proc.returncode, proc.stdout  # (stderr's count of inherited findings is where a build looked)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--mergedrv", action="append", default=[], help="another build's mergedrv, timed in the same rounds")
    args = ap.parse_args(argv)
    here = Path(sys.executable).with_name("mergedrv")
    builds = [str(here if here.exists() else "mergedrv"), *args.mergedrv]
    for exe in builds:  # the bytecode an installed package has (with PYTHONDONTWRITEBYTECODE set, none is written)
        python = str(Path(exe).with_name("python"))
        where = subprocess.run([python, "-c", "import mergedrv, os; print(os.path.dirname(mergedrv.__file__))"],
                               capture_output=True, text=True, check=True).stdout.strip()
        subprocess.run([python, "-m", "compileall", "-q", where], check=True, capture_output=True)
    repo = args.repo.resolve()
    times: dict[str, list[float]] = {"python": []}
    said: dict[tuple[str, str], set] = {}
    try:
        for i in range(args.runs + 1):
            python = _run([sys.executable, "-c", "pass"], repo, "python" if i else "")[0]
            if i:
                times["python"].append(python)
            for b, exe in enumerate(builds):
                for mode in ("staged", "fix"):
                    _reset(repo)
                    if mode == "staged":
                        _edit_cell(repo, i)
                        cmd = [exe, "check", "--staged"]
                    else:
                        _add_row(repo)
                        cmd = [exe, "check", "--staged", "--fix"]
                    took, status, out = _run(cmd, repo, f"{mode} {b}" if i else "")
                    said.setdefault((mode, f"{status}\n{out}"), set()).add(b)
                    if i:
                        times.setdefault(f"{mode} {b}", []).append(took)
    finally:
        _reset(repo)
    python = statistics.median(times["python"])
    cpu = {k: statistics.median(v) for k, v in CPU.items() if k}
    print(f"python -c pass                     {python * 1000:7.1f} ms (CPU {cpu['python'] * 1000:.0f} ms)")
    for mode, what in (("staged", "check --staged (one-cell edit)"), ("fix", "check --staged --fix (one-row addition)")):
        for b, exe in enumerate(builds):
            t = statistics.median(times[f"{mode} {b}"])
            c = cpu[f"{mode} {b}"]
            print(f"{what:40} {t * 1000:7.1f} ms = {t / python:5.1f}x (CPU {c * 1000:.0f} ms = {c / cpu['python']:.1f}x)   {exe}")
    for (mode, out), who in sorted(said.items()):
        if len(who) != len(builds):
            print(f"builds {sorted(who)} differ on {mode}:\n{out}", file=sys.stderr)
            return 1
    print(f"(median of {args.runs}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
