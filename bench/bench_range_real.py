#!/usr/bin/env python3
"""The range check over a real repository's whole history, against the
repository's own checker in the same run.

Given a clone of mudler/vllm.cpp (any clone whose tree holds
`scripts/check-doc-checkpoint.py`; a sparse one of `.agents docs README.md
scripts` is enough), it writes `mergedrv init --print`'s unedited proposal
to a temporary file, then measures, interleaved, best and median of N:

  baseline  `python3 scripts/check-doc-checkpoint.py --base ROOT --head HEAD`
            (one `git diff --name-only` per commit: its one rule);
  mergedrv  `mergedrv check --config PROPOSAL --base ROOT --head HEAD`
            (every check, each commit against its parent(s)), as a user
            runs it: one process per usable CPU;
  one-proc  the same with `--jobs 1`: one process.

Wall time and CPU time (user + system, children included) of each, and the
ratios.  Exit codes of both are printed, not judged (both report findings).

    .venv/bin/python bench/bench_range_real.py CLONE [--runs 3] [--config FILE]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MERGEDRV = [sys.executable, "-m", "mergedrv"]


def timed(cmd: list[str], cwd: Path, env: dict | None = None) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the process and its children, exit code)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clone", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--config", type=Path, help="a configuration to use instead of init's proposal")
    args = ap.parse_args()
    repo = args.clone.resolve()
    if not (repo / "scripts/check-doc-checkpoint.py").is_file():
        print(f"{repo}: no scripts/check-doc-checkpoint.py (a clone of mudler/vllm.cpp is needed)", file=sys.stderr)
        return 2
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    root = subprocess.run(["git", "rev-list", "--max-parents=0", "HEAD"], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.split()[-1]
    commits = int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo, capture_output=True, text=True,
                                 check=True).stdout)
    with tempfile.TemporaryDirectory() as tmp:
        config = args.config
        if config is None:
            config = Path(tmp) / "proposal.toml"
            proposal = subprocess.run([*MERGEDRV, "init", "--print"], cwd=repo, capture_output=True, env=env)
            if proposal.returncode != 0:
                print(proposal.stderr.decode("utf-8", "replace"), file=sys.stderr)
                return 2
            config.write_bytes(proposal.stdout)
        base = ["python3", "scripts/check-doc-checkpoint.py", "--base", root, "--head", "HEAD"]
        ours = [*MERGEDRV, "check", "--config", str(config), "--base", root, "--head", "HEAD"]
        got: dict[str, list[tuple[float, float, int]]] = {"baseline": [], "mergedrv": [], "one-proc": []}
        for _ in range(args.runs):
            got["baseline"].append(timed(base, repo))
            got["mergedrv"].append(timed(ours, repo, env))
            got["one-proc"].append(timed([*ours, "--jobs", "1"], repo, env))
    load = os.getloadavg()[0]
    print(f"{repo}: {commits} commits, load average {load:.1f}, {args.runs} runs each, interleaved")
    for name, runs in got.items():
        walls, cpus = [w for w, _, _ in runs], [c for _, c, _ in runs]
        print(f"  {name:9} wall best {min(walls):6.2f} s median {statistics.median(walls):6.2f} s   "
              f"CPU best {min(cpus):6.2f} s median {statistics.median(cpus):6.2f} s   exit {runs[-1][2]}")
    b = got["baseline"]
    for name in ("mergedrv", "one-proc"):
        m = got[name]
        print(f"  ratio ({name} / baseline): wall {statistics.median([x[0] for x in m]) / statistics.median([x[0] for x in b]):.2f}x, "
              f"CPU {statistics.median([x[1] for x in m]) / statistics.median([x[1] for x in b]):.2f}x")
    print(f"  usable CPUs: {len(os.sched_getaffinity(0))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
