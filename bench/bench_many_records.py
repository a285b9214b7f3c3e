#!/usr/bin/env python3
"""`mergedrv check` on a configuration of many records (issue 21, item 5).

Builds, in a temporary folder, a repository whose `.mergedrv.toml` declares
N records (default 8,000), each its own file `records/rNNNNN.md` with a few
rows, half of them named by a glob (`records/rNNNNN*.md`) and half by path,
commits it, then times `mergedrv check` (working tree, against HEAD) once per
run and prints the median (wall and CPU: the machine may be shared) and how many git processes the check spawned.
Budget: at most 2 s for 8,000 records.

    .venv/bin/python bench/bench_many_records.py [--records 8000] [--runs 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
MERGEDRV = [sys.executable, "-m", "mergedrv"]


def build(repo: Path, records: int) -> None:
    """The repository: N record files of three rows each, and their configuration."""
    (repo / "records").mkdir(parents=True)
    config = []
    for i in range(records):
        name = f"records/r{i:05d}.md"
        rows = "".join(f"| `R{i}-{j}` | row {j} | OK |\n" for j in range(3))
        (repo / name).write_text(f"# Record {i}\n\n| ID | Name | State |\n|---|---|---|\n{rows}")
        path = f"records/r{i:05d}*.md" if i % 2 else name
        config.append(f'[[record]]\nname = "R{i}"\npath = "{path}"\nkey = "ID"\n')
    (repo / ".mergedrv.toml").write_text("\n".join(config))
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "records"]):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def git_wrapper(folder: Path, log: Path) -> dict:
    """An environment whose `git` on PATH logs each call, then runs the real one."""
    real = shutil.which("git")
    folder.mkdir()
    wrapper = folder / "git"
    wrapper.write_text(f'#!/bin/sh\necho "$1" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return {**ENV, "PATH": f"{folder}{os.pathsep}{ENV.get('PATH', '')}"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=8000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", metavar="DIR", help="build the repository here and keep it")
    opts = ap.parse_args()
    top = Path(opts.keep) if opts.keep else Path(tempfile.mkdtemp(prefix="mergedrv-bench-"))
    try:
        repo = top / "repo"
        build(repo, opts.records)
        times, cpu, rc = [], [], 0
        for _ in range(opts.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run([*MERGEDRV, "check"], cwd=repo, capture_output=True, env={**ENV, "PYTHONPATH": str(ROOT)})
            times.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            rc = proc.returncode
        log = top / "git.log"
        subprocess.run([*MERGEDRV, "check"], cwd=repo, capture_output=True, env={**git_wrapper(top / "bin", log), "PYTHONPATH": str(ROOT)})
        spawned = len(log.read_text().splitlines()) if log.exists() else 0
        print(f"records {opts.records}: check median {statistics.median(times):.2f} s over {opts.runs} runs "
              f"(min {min(times):.2f}, max {max(times):.2f}; CPU median {statistics.median(cpu):.2f} s), exit {rc}, git processes {spawned} (budget 2 s)")
        if rc != 0:
            print(proc.stdout.decode()[-2000:], proc.stderr.decode()[-2000:])
        return 0
    finally:
        if not opts.keep:
            shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
