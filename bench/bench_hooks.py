#!/usr/bin/env python3
"""What the installed hooks add to a commit.

Builds a repository holding the real vllm.cpp records (the 252 KB model
matrix, the roadmap, the 1.2 MB parity ledger) with the worked configuration
of the README (every check configured, plus a checkpoint rule), runs
`mergedrv install`, then measures in one run, interleaved, median of N:

  python      `python -c pass`: the bare interpreter start;
  no-verify   `git commit --no-verify` of a commit editing one cell of the matrix;
  hooked      the same commit through the hooks (pre-commit `check --staged`
              and commit-msg `check --message-file --only pin-claims`).

It prints the hook cost (hooked - no-verify) and that cost in interpreter
starts of the same run.  `--inherited` first commits an old finding (a row
with an extra cell), so every hooked commit also checks what its parent had.
`--addition` makes each commit add one row instead: the hooked commit is then
the whole loop of #18 item 1 (pre-commit fixes the pin, rollups and counts and
restages them, prepare-commit-msg writes the claim, commit-msg judges it); the
no-verify commit adds its row with `mergedrv fix` run before it, untimed.

`--repo DIR` measures on a repository of your own instead (the real vllm.cpp
sparse clone of docs/performance.md, with `mergedrv init`'s proposal committed
and `mergedrv install` run): the commits are made on its branch, which is put
back where it was (`git reset --hard`) at the end.

`--against OTHER/.venv/bin/mergedrv` also commits through another build's
mergedrv in each round (a baseline in the same run).  CPU times (user +
system of the processes) are printed beside the wall times.

    .venv/bin/python bench/bench_hooks.py [--runs 15] [--inherited] [--addition] [--against MERGEDRV] [--keep DIR | --repo DIR]
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

from tests.checks_helpers import MATRIX, WORKED_CONFIG, make_records_repo, row_line  # noqa: E402

CHECKPOINT = '\n[[checkpoint]]\nwhen = ["src/**"]\nrequire = ["README.md"]\n'
ROW = "MODEL-TEXT-bloom-bloom-for-causal-lm"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def build(repo: Path, inherited: bool) -> None:
    repo.mkdir(parents=True)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "bench@example.com")
    _git(repo, "config", "user.name", "Bench")
    make_records_repo(repo, config=WORKED_CONFIG + CHECKPOINT)
    if inherited:
        path = repo / MATRIX
        row = row_line(path, "MODEL-TEXT-arcee-arcee-for-causal-lm")
        path.write_text(path.read_text(encoding="utf-8").replace(row, row + " extra |", 1), encoding="utf-8")
        _git(repo, "commit", "-q", "--no-verify", "-am", "an old finding")
    exe = Path(sys.executable).with_name("mergedrv")
    subprocess.run([str(exe) if exe.exists() else "mergedrv", "install"], cwd=repo, check=True, capture_output=True)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--no-verify", "-m", "install")


class Editor:
    """Edits the Owner cell of one row to a new value per commit."""

    def __init__(self, repo: Path) -> None:
        self.path = repo / MATRIX
        self.n = 0

    def next(self) -> None:
        text = self.path.read_text(encoding="utf-8")
        row = row_line(self.path, ROW)
        cells = row.split("|")
        self.n += 1
        cells[-2] = f" owner-{self.n} "
        self.path.write_text(text.replace(row, "|".join(cells), 1), encoding="utf-8")


class Adder:
    """Adds one new row (a new key) below the same row per commit."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.path = repo / MATRIX
        self.n = 0

    def next(self) -> None:
        text = self.path.read_text(encoding="utf-8")
        row = row_line(self.path, ROW)
        self.n += 1
        cells = row.split("|")
        cells[1] = f" `MODEL-TEXT-bench-{self.n}` "
        self.path.write_text(text.replace(row, row + "\n" + "|".join(cells), 1), encoding="utf-8")
        _git(self.repo, "add", MATRIX)


def _fixed(repo: Path) -> None:
    """`mergedrv fix`, then stage it all (the no-verify commit's preparation, untimed)."""
    exe = Path(sys.executable).with_name("mergedrv")
    subprocess.run([str(exe) if exe.exists() else "mergedrv", "fix"], cwd=repo, capture_output=True)
    _git(repo, "add", "-A")


CPU: dict[str, list[float]] = {}  # the CPU time (user + system) of each timed command's processes, by name


def _timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, name: str = "") -> float:
    before = os.times()
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    took = time.perf_counter() - started
    after = os.times()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stdout}{proc.stderr}")
    CPU.setdefault(name, []).append(after.children_user - before.children_user + after.children_system - before.children_system)
    return took


def measure(repo: Path, runs: int, addition: bool = False, against: str | None = None) -> dict[str, list[float]]:
    """Each round: the interpreter start, a commit without the hooks, one
    through them, and (``against``: another build's mergedrv, run by the same
    hooks through $MERGEDRV) one more through that build's."""
    editor = Adder(repo) if addition else Editor(repo)
    out: dict[str, list[float]] = {"python": [], "no-verify": [], "hooked": [], "against": []}
    other = {**os.environ, "MERGEDRV": against} if against else None
    for i in range(runs + 1):
        python = _timed([sys.executable, "-c", "pass"], repo, name="python")
        editor.next()
        if addition:
            _fixed(repo)
        bare = _timed(["git", "commit", "-q", "--no-verify", "-am", f"change {editor.n}"], repo, name="no-verify")
        editor.next()
        hooked = _timed(["git", "commit", "-q", "-am", f"change {editor.n}"], repo, name="hooked")
        if other is not None:
            editor.next()
            out["against"].append(_timed(["git", "commit", "-q", "-am", f"change {editor.n}"], repo, other, name="against"))
        if i:  # the first round warms the caches
            out["python"].append(python)
            out["no-verify"].append(bare)
            out["hooked"].append(hooked)
        else:
            out["against"][:] = []
            for kept in CPU.values():
                kept[:] = []
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--inherited", action="store_true", help="the tree holds an old finding")
    ap.add_argument("--addition", action="store_true", help="each commit adds a row (the hooks fix and claim)")
    ap.add_argument("--keep", help="build the repository in this directory and keep it")
    ap.add_argument("--repo", help="measure on this repository (mergedrv installed, its configuration committed); its branch is put back after")
    ap.add_argument("--against", help="another build's mergedrv (a baseline), timed through the same hooks in the same rounds")
    args = ap.parse_args(argv)
    if args.repo and (args.keep or args.inherited):
        ap.error("--repo measures the repository as it is: without --keep and --inherited")
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="mergedrv-bench-hooks-"))
    repo = Path(args.repo).resolve() if args.repo else tmp / "repo"
    start = None
    try:
        # the bytecode an installed package has (PYTHONDONTWRITEBYTECODE would
        # otherwise make every hook recompile mergedrv from source)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "mergedrv")], check=True)
        if args.repo:
            start = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()
        else:
            build(repo, args.inherited)
        env_path = os.environ.get("PATH", "")
        os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env_path}"
        t = {k: statistics.median(v) for k, v in measure(repo, args.runs, args.addition, args.against).items() if v}
        cpu = {k: statistics.median(v) for k, v in CPU.items() if v}
        cost = t["hooked"] - t["no-verify"]
        print(f"python -c pass           {t['python'] * 1000:7.1f} ms (CPU {cpu['python'] * 1000:.1f} ms)")
        print(f"git commit --no-verify   {t['no-verify'] * 1000:7.1f} ms")
        print(f"git commit (hooks)       {t['hooked'] * 1000:7.1f} ms")
        print(f"hook cost                {cost * 1000:7.1f} ms = {cost / t['python']:.1f}x the interpreter start "
              f"(median of {args.runs}{', tree with an inherited finding' if args.inherited else ''}{', ' + args.repo if args.repo else ''}"
              f"{', one-row additions' if args.addition else ', one-cell edits'})")
        print(f"hook CPU                 {(cpu['hooked'] - cpu['no-verify']) * 1000:7.1f} ms = "
              f"{(cpu['hooked'] - cpu['no-verify']) / cpu['python']:.1f}x the interpreter start's")
        if args.against:
            other = t["against"] - t["no-verify"]
            print(f"hook cost, {args.against}: {other * 1000:.1f} ms = {other / t['python']:.1f}x the interpreter start "
                  f"(CPU {(cpu['against'] - cpu['no-verify']) / cpu['python']:.1f}x)")
        print(f"(load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})")
    finally:
        if start is not None:
            _git(repo, "reset", "-q", "--hard", start)
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
