#!/usr/bin/env python3
"""What the reference-transaction hook costs an ordinary commit.

git runs the hook on every ref update (commit, checkout, fetch, branch); the
script exits in the shell unless a rebase or `am` is updating a branch.  In a
fresh repository with `mergedrv install` done, this times N
`git commit --allow-empty --no-verify` (the other hooks skipped, so only
reference-transaction runs) with the hook, N with it moved away and N with
an empty `exit 0` hook in its place, in alternating rounds, and prints the
medians and the differences per commit.

    .venv/bin/python bench/bench_reference_transaction.py [--commits 40] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def commits(repo: Path, n: int) -> float:
    start = time.perf_counter()
    for i in range(n):
        git(repo, "commit", "-q", "--allow-empty", "--no-verify", "-m", f"c{i}")
    return (time.perf_counter() - start) / n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--commits", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        git(repo, "config", "user.email", "bench@example.com")
        git(repo, "config", "user.name", "bench")
        (repo / ".mergedrv.toml").write_text('[[record]]\nname = "K"\npath = "t.md"\nkey = "ID"\n')
        (repo / "t.md").write_text("| ID | v |\n|---|---|\n| K-1 | a |\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "base")
        subprocess.run([sys.executable, "-m", "mergedrv", "install"], cwd=repo, check=True, capture_output=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
        hook = repo / ".git" / "hooks" / "reference-transaction"
        away = repo / ".git" / "reference-transaction.away"
        with_hook, without, empty = [], [], []
        for _ in range(args.rounds):
            with_hook.append(commits(repo, args.commits))
            os.replace(hook, away)
            without.append(commits(repo, args.commits))
            hook.write_text("#!/bin/sh\nexit 0\n")
            hook.chmod(0o755)
            empty.append(commits(repo, args.commits))
            os.replace(away, hook)
    a, b, c = (statistics.median(x) * 1000 for x in (with_hook, without, empty))
    print(f"git commit --no-verify, median of {args.rounds} rounds x {args.commits} commits:")
    print(f"  with the reference-transaction hook: {a:.2f} ms")
    print(f"  without it:                          {b:.2f} ms")
    print(f"  with an empty `exit 0` hook:         {c:.2f} ms (the floor: git starting /bin/sh)")
    print(f"  the hook's cost per commit:          {a - b:+.2f} ms (it runs twice: prepared, committed); {a - c:+.2f} ms over the empty hook")
    return 0


if __name__ == "__main__":
    sys.exit(main())
