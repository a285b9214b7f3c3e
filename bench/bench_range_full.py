#!/usr/bin/env python3
"""The range check with every check configured, on a history shaped like the real one.

Generates (with `git fast-import`) a history of 1,120 commits over the real
records: the 252 KB model matrix, the roadmap and the 1.2 MB parity ledger
under the worked configuration of the README (every record check, plus a
checkpoint rule).  Half the commits append a row to the ledger, one in ten
edits one cell of the matrix, the rest change source files.  Then measures,
in one run, best of N (the history is repacked after fast-import, as a clone
is: `--no-repack` keeps fast-import's pack, whose blobs are deltas of
whatever was written before them):

  baseline  one `git diff --name-only PARENT COMMIT` per commit (the
            reference checker's method, for its one rule);
  mergedrv  `mergedrv check --base ROOT --head HEAD` as a process (every check),
            and `--only table-shape,log-append-only`.

    .venv/bin/python bench/bench_range_full.py [--commits 1120] [--runs 3] [--keep DIR] [--no-repack]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.checks_helpers import LEDGER, MATRIX, ROADMAP, WORKED_CONFIG  # noqa: E402
from tests.helpers import DATA  # noqa: E402

CHECKPOINT = '\n[[checkpoint]]\nwhen = ["src/**"]\nrequire = ["README.md"]\n'
ROW = "| `MODEL-TEXT-bloom-bloom-for-causal-lm` |"


def _blob(path: str, data: bytes) -> bytes:
    return f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n"


def generate(repo: Path, commits: int, repack: bool = True) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    matrix = (DATA / "model-matrix.f887c34c.md").read_text(encoding="utf-8")
    ledger = (DATA / "parity-ledger.d85906ae.md").read_bytes()
    files = {".mergedrv.toml": (WORKED_CONFIG + CHECKPOINT).encode(), MATRIX: matrix.encode(),
             ROADMAP: (DATA / "roadmap_v1.d85906ae.md").read_bytes(), LEDGER: ledger,
             ".agents/retired-keys.md": b"# Retired keys\n\n", "README.md": b"# readme\n", "src/a.c": b"int a;\n"}
    out = [b"commit refs/heads/main\nmark :1\ncommitter B <b@example.com> 1700000000 +0000\ndata 4\nroot\n"]
    out += [_blob(p, d) for p, d in files.items()]
    for n in range(2, commits + 1):
        changes: dict[str, bytes] = {}
        if n % 2 == 0:
            ledger += f"| 2026-07-{n % 28 + 1:02d} `{n:07x}` | entry {n} | none | `DONE` |\n".encode()
            changes[LEDGER] = ledger
        elif n % 10 == 1:
            line = next(x for x in matrix.split("\n") if x.startswith(ROW))
            cells = line.split("|")
            cells[-2] = f" owner-{n} "
            matrix = matrix.replace(line, "|".join(cells), 1)
            changes[MATRIX] = matrix.encode()
        else:
            changes["src/a.c"] = f"int a = {n};\n".encode()
            changes["README.md"] = f"# readme {n}\n".encode()
        msg = f"commit {n}".encode()
        out.append(f"commit refs/heads/main\nmark :{n}\ncommitter B <b@example.com> {1700000000 + n * 60} +0000\n"
                   f"data {len(msg)}\n".encode() + msg + f"\nfrom :{n - 1}\n".encode())
        out += [_blob(p, d) for p, d in changes.items()]
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(out), check=True)
    subprocess.run(["git", "reset", "-q", "--hard"], cwd=repo, check=True)
    if repack:  # fast-import's pack is not a clone's: it deltas each blob against the previous one written, whatever its path
        subprocess.run(["git", "repack", "-adfq"], cwd=repo, check=True)


def baseline(repo: Path) -> None:
    revs = subprocess.run(["git", "rev-list", "--reverse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True).stdout.split()
    for parent, commit in zip(revs, revs[1:]):
        subprocess.run(["git", "diff", "--name-only", parent, commit], cwd=repo, capture_output=True, check=True)


def _best(runs: int, fn) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--commits", type=int, default=1120)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", help="build the history in this directory and keep it")
    ap.add_argument("--no-repack", action="store_true", help="keep fast-import's pack (git's docs advise `git repack -adf` after it; a clone's pack is repacked)")
    args = ap.parse_args(argv)
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="mergedrv-bench-range-full-"))
    repo = tmp / "repo"
    try:
        if not repo.exists():
            generate(repo, args.commits, repack=not args.no_repack)
        exe = str(Path(sys.executable).with_name("mergedrv"))
        root = "0" * 40
        # the bytecode, as an install has it (install.sh writes it; with
        # PYTHONDONTWRITEBYTECODE set every run would compile ~45 modules)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "mergedrv")], check=True, stdout=subprocess.DEVNULL)

        def check(*extra: str) -> None:
            p = subprocess.run([exe, "check", "--base", root, "--head", "HEAD", *extra], cwd=repo, capture_output=True, text=True)
            if p.returncode not in (0, 1):
                raise SystemExit(p.stderr)

        base = _best(args.runs, lambda: baseline(repo))
        full = _best(args.runs, check)
        logs = _best(args.runs, lambda: check("--only", "table-shape,log-append-only"))
        print(f"load average {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} cores")
        print(f"git diff --name-only per commit (baseline) {base:7.2f} s")
        print(f"mergedrv check, every check                {full:7.2f} s = {full / base:.2f}x the baseline")
        print(f"mergedrv check --only table-shape,log-...  {logs:7.2f} s = {logs / base:.2f}x the baseline")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
