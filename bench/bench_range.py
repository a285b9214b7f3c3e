#!/usr/bin/env python3
"""Range check vs. one `git diff --name-only` subprocess per commit.

Generates a history (default 1,120 commits: linear work, side branches merged
back, renames across the `when` boundary, mode changes, deletions, evil
merges) with `git fast-import`, then measures in one run:

  baseline  the checkpoint rule computed as the reference checker does it:
            one `git rev-list`, then `git diff --name-only PARENT COMMIT`
            (first parent) per commit;
  mergedrv  `history.check_range(..., only={"checkpoint"})` in-process, and
            the whole `mergedrv check --base --head` command as a process.

It prints both times, the ratio, and whether the verdicts agree on every
non-merge commit (merges differ by design: mergedrv judges what the merge
introduced, the baseline its first-parent diff).

    .venv/bin/python bench/bench_range.py [--commits 1120] [--seed 7] [--runs 5] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mergedrv import config, history  # noqa: E402
from mergedrv.git import repository  # noqa: E402

CONFIG = """\
[[record]]
name = "MODEL"
path = ".agents/model-matrix.md"
key = "ID"

[[checkpoint]]
when = ["src/**", "include/**", ".agents/model-matrix.md"]
require = ["README.md", "docs/BENCHMARKS.md"]
"""
DOCS = ("README.md", "docs/BENCHMARKS.md")


# --- generating a history -----------------------------------------------------


def _matrix(keys: list[str]) -> str:
    rows = "".join(f"| `{k}` | TODO |\n" for k in keys)
    return f"# Models\n\n| ID | State |\n|----|-------|\n{rows}"


class _History:
    """Writes a fast-import stream while tracking each branch's files."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.out: list[bytes] = []
        self.mark = 0
        self.when = 1_700_000_000
        self.keys = [f"MODEL-{i}" for i in range(5)]

    def commit(self, branch: str, state: dict, changes: dict, message: str, parents: list[int]) -> int:
        """Apply ``changes`` (path -> text, None deletes, (mode, text)) to ``state``; return the mark."""
        self.mark += 1
        self.when += 60
        msg = message.encode()
        lines = [f"commit refs/heads/{branch}", f"mark :{self.mark}",
                 f"committer Bench <bench@example.com> {self.when} +0000", f"data {len(msg)}"]
        self.out.append("\n".join(lines).encode() + b"\n" + msg + b"\n")
        if parents:
            self.out.append(f"from :{parents[0]}\n".encode())
            for p in parents[1:]:
                self.out.append(f"merge :{p}\n".encode())
        for path, change in changes.items():
            if change is None:
                state.pop(path, None)
                self.out.append(f"D {path}\n".encode())
                continue
            mode, text = change if isinstance(change, tuple) else ("100644", change)
            data = text.encode()
            state[path] = (mode, text)
            self.out.append(f"M {mode} inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
        self.out.append(b"\n")
        return self.mark

    def work(self, state: dict, n: int, tag: str) -> dict:
        """One ordinary commit's changes: some source, maybe docs, maybe the record."""
        rng = self.rng
        changes: dict = {}
        kind = rng.random()
        if kind < 0.35:
            changes[f"src/mod{rng.randrange(40)}.c"] = f"int v{n} = {rng.random()};\n" * rng.randint(1, 30)
        elif kind < 0.45:
            changes[f"include/api{rng.randrange(8)}.h"] = f"#define V{n} {n}\n"
        elif kind < 0.55:
            self.keys.append(f"MODEL-{tag}{n}")
            changes[".agents/model-matrix.md"] = _matrix(self.keys)
        elif kind < 0.62:
            moved = [p for p in state if p.startswith(("src/", "lib/")) and p.endswith(".c")]
            if moved:  # rename across the `when` boundary, sometimes with an edit
                old = rng.choice(moved)
                new = ("lib/" if old.startswith("src/") else "src/") + old.split("/", 1)[1].replace(".c", f"_{n}.c")
                text = state[old][1] + (f"// touched {n}\n" if rng.random() < 0.5 else "")
                changes[old] = None
                changes[new] = text
        elif kind < 0.66:
            victims = [p for p in state if p.startswith("src/")]
            if victims:
                changes[rng.choice(victims)] = None
        elif kind < 0.70:
            scripts = [p for p in state if p.startswith("src/")]
            if scripts:
                p = rng.choice(scripts)
                changes[p] = ("100755" if state[p][0] == "100644" else "100644", state[p][1])
        else:
            changes[f"notes/n{rng.randrange(30)}.txt"] = f"note {n}\n"
        if rng.random() < 0.45:
            changes["README.md"] = f"readme {n}\n"
        if rng.random() < 0.45:
            changes["docs/BENCHMARKS.md"] = f"benchmarks {n}\n"
        return changes or {"notes/empty.txt": f"{n}\n"}


def generate(path: Path, commits: int, seed: int = 7) -> tuple[str, str]:
    """A repository at ``path`` with ``commits`` commits on main; returns (root, head) hashes."""
    rng = random.Random(seed)
    h = _History(rng)
    main: dict = {}
    first = {".mergedrv.toml": CONFIG, "README.md": "readme\n", "docs/BENCHMARKS.md": "b\n",
             ".agents/model-matrix.md": _matrix(h.keys), "src/mod0.c": "int x;\n"}
    tip = h.commit("main", main, first, "root", [])
    n = 1
    while n < commits:
        if rng.random() < 0.05 and commits - n > 6:
            # a side branch of 2-4 commits, merged back (sometimes with an evil change)
            side = dict(main)
            side_tip = tip
            for _ in range(rng.randint(2, 4)):
                changes = h.work(side, n, "s")
                changes.pop(".agents/model-matrix.md", None)
                changes = {(k.replace("notes/", "notes/side/") if k.startswith("notes/") else k): v for k, v in changes.items()}
                side_tip = h.commit("side", side, changes or {"notes/side/x.txt": f"{n}\n"}, f"side {n}", [side_tip])
                n += 1
            main_changes = {"notes/main.txt": f"main {n}\n"}
            tip = h.commit("main", main, main_changes, f"main {n}", [tip])
            n += 1
            merged = {p: v for p, v in side.items() if main.get(p) != v and p not in main_changes}
            merged.update({p: None for p in main if p not in side and p not in main_changes and p != "notes/main.txt"})
            if rng.random() < 0.3:
                merged[f"src/evil{n}.c"] = "evil\n"
            tip = h.commit("main", main, merged, f"merge side {n}", [tip, side_tip])
            n += 1
            continue
        tip = h.commit("main", main, h.work(main, n, "m"), f"work {n}", [tip])
        n += 1
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, input=b"".join(h.out), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=path, check=True)
    root = subprocess.run(["git", "rev-list", "--max-parents=0", "main"], cwd=path, capture_output=True,
                          text=True, check=True).stdout.split()[0]
    head = subprocess.run(["git", "rev-parse", "main"], cwd=path, capture_output=True, text=True, check=True).stdout.strip()
    return root, head


# --- the baseline: one subprocess per commit ----------------------------------


def baseline(path: Path, cfg: config.Config, base: str, head: str) -> dict[str, bool]:
    """Commit -> failed, the reference way: `git diff --name-only` against the first parent."""
    listing = subprocess.run(["git", "rev-list", "--reverse", "--parents", f"{base}..{head}"], cwd=path,
                             capture_output=True, text=True, check=True).stdout.splitlines()
    verdicts = {}
    for line in listing:
        commit, *parents = line.split()
        if parents:
            args = ["git", "diff", "--name-only", parents[0], commit]
        else:
            args = ["git", "diff-tree", "--root", "--no-commit-id", "--name-only", "-r", commit]
        paths = {p for p in subprocess.run(args, cwd=path, capture_output=True, text=True, check=True).stdout.splitlines() if p}
        verdicts[commit] = bool(history.checkpoint(cfg, paths))
    return verdicts


def mergedrv_verdicts(path: Path, cfg: config.Config, base: str, head: str) -> tuple[dict[str, bool], set[str], float]:
    """Commit -> failed with mergedrv's range walk; the merge commits; the walk's seconds."""
    repo = repository(path)
    started = time.perf_counter()
    findings, _ = history.check_range(repo, cfg, base, head, only={"checkpoint"})
    seconds = time.perf_counter() - started
    failing = {f.commit for f in findings}
    commits = history.range_commits(repo, base, head)
    merges = {str(c.id) for c in commits if len(c.parents) > 1}
    return {str(c.id): c.short_id in failing for c in commits}, merges, seconds


def _best(runs: int, fn):
    """The fastest of ``runs`` calls (the machine is shared): (seconds, last result)."""
    best, result = float("inf"), None
    for _ in range(runs):
        started = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - started)
    return best, result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--commits", type=int, default=1120)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--keep", help="build the history in this directory and keep it")
    ap.add_argument("--runs", type=int, default=5, help="repeat each measurement, keep the fastest (default 5)")
    args = ap.parse_args(argv)
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-range-"))
    if args.keep and tmp.exists():
        shutil.rmtree(tmp)
    try:
        root, head = generate(tmp, args.commits, args.seed)
        cfg = config.loads(CONFIG)
        base = history.EMPTY_TREE  # from the root commit

        t_ref, ref = _best(args.runs, lambda: baseline(tmp, cfg, root, head))
        runs = [mergedrv_verdicts(tmp, cfg, base, head) for _ in range(args.runs)]
        ours, merges = runs[-1][0], runs[-1][1]
        t_ours = min(r[2] for r in runs)
        cli = [str(Path(sys.executable).parent / "mergedrv"), "check", "--base", base, "--head", head]
        t_cli, proc = _best(args.runs, lambda: subprocess.run([*cli, "--only", "checkpoint"], cwd=tmp,
                                                               capture_output=True, text=True))
        t_full, full = _best(args.runs, lambda: subprocess.run(cli, cwd=tmp, capture_output=True, text=True))
        t_start, _ = _best(args.runs, lambda: subprocess.run(
            [sys.executable, "-c", "import mergedrv.cli, mergedrv.commands.check, mergedrv.history, mergedrv.git as g; g.core()"]))

        compared = [c for c in ref if c not in merges]
        differ = [c for c in compared if ref[c] != ours[c]]
        merge_differ = [c for c in merges if ref.get(c) != ours.get(c)]
        print(f"history: {len(ours)} commits ({len(merges)} merges), {sum(ours.values())} failing the checkpoint rule")
        print(f"best of {args.runs} runs each, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"baseline (git diff --name-only per commit): {t_ref:.3f}s for {len(ref)} commits (root excluded)")
        print(f"mergedrv range walk, in-process:            {t_ours:.3f}s  -> {t_ref / t_ours:.1f}x faster")
        print(f"mergedrv check --only checkpoint, process:  {t_cli:.3f}s  -> {t_ref / t_cli:.1f}x faster"
              f" (of which {t_start:.3f}s is starting Python, importing mergedrv and loading pygit2's core; exit {proc.returncode})")
        print(f"mergedrv check, every range check, process: {t_full:.3f}s (exit {full.returncode}: "
              f"{full.stderr.strip().splitlines()[-1] if full.stderr.strip() else ''})")
        print(f"verdicts on {len(compared)} non-merge commits: {len(compared) - len(differ)} identical, {len(differ)} differ")
        print(f"merges judged differently from the first-parent baseline: {len(merge_differ)} of {len(merges)}")
        return 1 if differ else 0
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
