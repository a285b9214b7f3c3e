#!/usr/bin/env python3
"""Benchmark the merge driver against baselines measured in the same run.

1. A realistic three-way merge of the real model matrix (base: the f887c34c
   fixture; each side adds, edits and deletes rows in different tables):
   the driver's median wall time next to `git merge-file` on the same files
   and the bare interpreter start (`python -I -c pass`, same interpreter;
   its runs interleaved with the driver's, wall and CPU time; target <= 4x).
   The driver is started as `mergedrv install` has git start it (the
   interpreter, -I, the package's __main__.py), in a git repository (so its
   decision log is written); the console script's figure is shown beside it.
   The same on the real coordination record (two key columns, detached
   rows): each side adds a claim (ours to the claims table, theirs among the
   detached rows below it) and edits a row of the handoff queue.
   The state log (a prose log, both sides append a dated section; the
   trimmed copy in tests/data, or the full 1.6 MB one given by --state):
   the driver against the interpreter start of the same run (target <= 5x).
2. Scaling on synthetic tables of 1k, 10k and 100k rows: wall time and peak
   memory (max RSS) of one driver process; then the shapes that were
   quadratic, and a million tiny rows (`| K7 | v |`) in one table.

Not a test: absolute times vary between machines; compare the columns.
    .venv/bin/python bench/bench_merge.py [--runs 21] [--sizes 1000,10000,100000] [--tiny 1000000] [--state PATH]
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
MATRIX = ROOT / "tests" / "data" / "model-matrix.f887c34c.md"
COORDINATION = ROOT / "tests" / "data" / "coordination.d85906ae.md"
sys.path.insert(0, str(ROOT))
from tests.helpers import tiny_rows  # noqa: E402 - the shape the tests bound too
CONFIG = (
    '[[record]]\nname = "MODEL"\npath = "model-matrix.md"\nkey = "ID"\n\n'
    '[[record]]\nname = "CLAIM"\npath = "coordination.md"\nkey = ["Claim", "Priority"]\n'
    "key_pattern = { Claim = '^CLAIM-[A-Z0-9.-]+$', Priority = '^[0-9]+$' }\n"
)
STATE = ROOT / "tests" / "data" / "state.trimmed.d85906ae.md"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str], cwd: Path, restore: tuple[Path, bytes] | None = None, cpu: list[float] | None = None) -> tuple[float, int]:
    """Wall seconds and max RSS (KiB) of one run of ``cmd`` (its CPU seconds appended to ``cpu``)."""
    if restore:
        restore[0].write_bytes(restore[1])
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if cpu is not None:
        cpu.append(usage.ru_utime + usage.ru_stime)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{cmd[0]} failed with {proc.returncode}")
    return elapsed, usage.ru_maxrss


def median_ms(cmd: list[str], cwd: Path, runs: int, restore=None) -> float:
    timed(cmd, cwd, restore)  # warm the page cache
    return 1000 * statistics.median(timed(cmd, cwd, restore)[0] for _ in range(runs))


def paired_ms(a: list[str], b: list[str], cwd: Path, runs: int, restore=None) -> tuple[float, float, float, float]:
    """Median wall ms and median CPU ms of ``a`` and of ``b``, their runs
    interleaved (a, b, a, b...) so that a busy machine slows both alike."""
    timed(a, cwd, restore), timed(b, cwd)  # warm the page cache
    wall_a, wall_b, cpu_a, cpu_b = [], [], [], []
    for _ in range(runs):
        wall_a.append(timed(a, cwd, restore, cpu_a)[0])
        wall_b.append(timed(b, cwd, None, cpu_b)[0])
    return tuple(1000 * statistics.median(x) for x in (wall_a, wall_b, cpu_a, cpu_b))  # type: ignore[return-value]


def edit_matrix(lines: list[bytes], side: str) -> list[bytes]:
    """Ours edits MODEL-TEXT; theirs edits MODEL-MM and MODEL-EMBED."""
    out = list(lines)

    def rows(prefix: bytes) -> list[int]:
        return [i for i, line in enumerate(out) if line.startswith(b"| `" + prefix)]

    if side == "ours":
        text = rows(b"MODEL-TEXT-")
        out[text[3]] = out[text[3]].replace(b"`INVENTORIED`", b"`SPIKE`")
        out.insert(text[10] + 1, b"| `MODEL-TEXT-bench-ours-new` | `BenchOurs` | x | causal generation / text | none | - | `INVENTORIED` | none | unassigned |")
        del out[text[20]]
    else:
        mm = rows(b"MODEL-MM-")
        out[mm[5]] = out[mm[5]].replace(b"| unassigned |", b"| bench |")
        out.insert(mm[-1] + 1, b"| `MODEL-MM-bench-theirs-new` | `BenchTheirs` | x | multimodal | none | - | `INVENTORIED` | none | unassigned |")
        emb = rows(b"MODEL-EMBED-")
        del out[emb[2]]
    return out


def edit_coordination(data: bytes, side: str) -> bytes:
    """Ours adds a claim to the table and edits handoff 2; theirs adds one
    among the detached rows and edits handoff 3."""
    lines = data.split(b"\n")

    def at(prefix: bytes) -> int:
        return next(i for i, line in enumerate(lines) if line.startswith(prefix))

    if side == "ours":
        i = at(b"| 2 | ")
        lines[i] = lines[i][:-2] + b" (ours) |"
        lines.insert(at(b"| `CLAIM-BACKEND-PLATFORM-1` |") + 1, b"| `CLAIM-BENCH-OURS-1` | `ENG-X` | a | wt | a | `src/a` | ACTIVE | 2026-07-30 |")
    else:
        i = at(b"| 3 | ")
        lines[i] = lines[i][:-2] + b" (theirs) |"
        lines.insert(at(b"| `CLAIM-QUANT-GGUF-COMPUTE-1` |") + 1, b"| `CLAIM-BENCH-THEIRS-1` | `ENG-Y` | b | wt | b | `src/b` | ACTIVE | 2026-07-30 |")
    return b"\n".join(lines)


def coordination_ms(work: Path, exe: list[str], runs: int) -> float:
    """The driver's median ms on the coordination record (see the module doc)."""
    data = COORDINATION.read_bytes()
    (work / "O.md").write_bytes(data)
    (work / "B.md").write_bytes(edit_coordination(data, "theirs"))
    restore = (work / "A.md", edit_coordination(data, "ours"))
    driver = [*exe, "merge", "O.md", "A.md", "B.md", "-p", "coordination.md"]
    timed(driver, work, restore)
    merged = (work / "A.md").read_bytes()
    assert b"CLAIM-BENCH-OURS-1" in merged and b"CLAIM-BENCH-THEIRS-1" in merged and b"<<<<<<<" not in merged
    return median_ms(driver, work, runs, restore)


def synthetic(n: int, side: str) -> bytes:
    head = b"# Synthetic\n\n| ID | Name | State | Owner | Notes |\n|---|---|---|---|---|\n"
    rows = [f"| `S-{i:06d}` | name {i} | INVENTORIED | owner{i % 7} | {'note ' * 40}|\n".encode() for i in range(n)]
    if side == "ours":
        rows[n // 3] = rows[n // 3].replace(b"INVENTORIED", b"SPIKE")
        rows.insert(n // 2, b"| `S-ours-new` | new | INVENTORIED | o | x |\n")
        del rows[n // 5]
    elif side == "theirs":
        rows[n // 3 + 1] = rows[n // 3 + 1].replace(b"owner", b"OWNER")
        rows.append(b"| `S-theirs-new` | new | INVENTORIED | t | y |\n")
        del rows[(2 * n) // 3]
    return head + b"".join(rows) + b"\nEnd.\n"


def renamed_dividers(n: int, side: str) -> bytes:
    """``n`` group dividers, each above one row; ours renames every divider,
    theirs edits every 100th row."""
    rows = []
    for i in range(n):
        label = f"Group {i}" if side == "ours" else f"group {i}"
        state = "t" if side == "theirs" and i % 100 == 0 else "x"
        rows.append(f"| | **{label}** | |\n| `K-{i}` | v{i} | {state} |\n")
    return ("| ID | Item | State |\n|---|---|---|\n" + "".join(rows)).encode()


def one_row_tables(n: int, side: str) -> bytes:
    """``n`` one-row tables under one heading; each side edits some rows."""
    out = ["# H\n\n"]
    for i in range(n):
        v = "ours" if side == "ours" and i % 50 == 0 else "theirs" if side == "theirs" and i % 70 == 1 else "x"
        out.append(f"| ID | v |\n|---|---|\n| `K-{i}` | {v} |\n\n")
    return "".join(out).encode()


def self_check_ms(base: bytes, ours: bytes, theirs: bytes, runs: int) -> tuple[float, float]:
    """Median in-process ms of the self-check after the keyed merge, and of
    the whole merge (parse, merge, self-check)."""
    sys.path.insert(0, str(ROOT))
    from mergedrv import model
    from mergedrv.merge import Options, merge, merge_documents, self_check

    opts = Options(key="ID")
    checks, wholes = [], []
    for _ in range(runs):
        docs = model.parse_many([base, ours, theirs], "ID")
        result, occ = merge_documents(docs, opts)
        start = time.perf_counter()
        assert self_check(docs, ours, theirs, result, opts, occ) is None
        checks.append(time.perf_counter() - start)
        start = time.perf_counter()
        assert merge(base, ours, theirs, opts).fallback is None
        wholes.append(time.perf_counter() - start)
    return 1000 * statistics.median(checks), 1000 * statistics.median(wholes)


def state_log(work: Path, exe: list[str], path: Path, runs: int, start_ms: float) -> None:
    """Both sides append a dated section to the state log (a prose log)."""
    (work / ".mergedrv.toml").write_text('[[log]]\npath = "state.md"\n')
    base = path.read_bytes()
    ours = base + "\n## 2026-07-25 — ours: a section\n\nOurs did a thing.\n\n| Gate | State |\n|---|---|\n| a | PASS |\n".encode()
    theirs = base + "\n## 2026-07-25 — theirs: a section\n\nTheirs did another.\n".encode()
    (work / "O.md").write_bytes(base)
    (work / "B.md").write_bytes(theirs)
    driver = [*exe, "merge", "O.md", "A.md", "B.md", "-p", "state.md"]
    timed(driver, work, (work / "A.md", ours))
    assert (work / "A.md").read_bytes() == ours + theirs[len(base) :], "the state log merge is not base + ours' + theirs'"
    d = median_ms(driver, work, runs, (work / "A.md", ours))
    print(f"state log ({len(base) // 1024} KB; both sides append a section), median of {runs} runs:")
    print(f"  mergedrv merge      {d:7.1f} ms   ({d / start_ms:.1f}x the interpreter start; target <= 5x)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--tiny", type=int, default=1_000_000, help="rows of the tiny-rows shape (0: skip it)")
    ap.add_argument("--state", type=Path, default=STATE, help="the state log to merge (default: the trimmed copy in tests/data)")
    args = ap.parse_args()
    script = shutil.which("mergedrv", path=str(Path(sys.executable).parent)) or "mergedrv"
    from mergedrv.commands.install import driver_start

    exe = driver_start(script)  # as `mergedrv install` has git start it
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "mergedrv")], check=True, stdout=subprocess.DEVNULL)
    with tempfile.TemporaryDirectory(prefix="mergedrv-bench-") as tmp:
        work = Path(tmp)
        subprocess.run(["git", "init", "-q", str(work)], check=True)  # as in a real merge: the driver logs it in the git folder
        (work / ".mergedrv.toml").write_text(CONFIG)
        base = MATRIX.read_bytes().split(b"\n")
        (work / "O.md").write_bytes(MATRIX.read_bytes())
        ours = b"\n".join(edit_matrix(base, "ours"))
        (work / "B.md").write_bytes(b"\n".join(edit_matrix(base, "theirs")))
        restore = (work / "A.md", ours)
        driver = [*exe, "merge", "O.md", "A.md", "B.md", "-p", "model-matrix.md"]
        timed(driver, work, restore)
        assert b"MODEL-MM-bench-theirs-new" in (work / "A.md").read_bytes()
        d, p, dc, pc = paired_ms(driver, [sys.executable, "-I", "-c", "pass"], work, args.runs, restore)
        g = median_ms(["git", "merge-file", "-p", "A.md", "O.md", "B.md"], work, args.runs, restore)
        print(f"real model matrix ({len(ours) // 1024} KB a side), median of {args.runs} runs, interleaved with the interpreter start's:")
        print(f"  mergedrv merge      {d:7.1f} ms   ({d / p:.1f}x the interpreter start, target <= 4x; started as install has git start it)")
        print(f"  (CPU time           {dc:7.1f} ms   ({dc / pc:.1f}x the interpreter start's {pc:.1f} ms CPU))")
        c = median_ms([script, *driver[len(exe):]], work, args.runs, restore)
        print(f"  (the console script {c:7.1f} ms   ({c / p:.1f}x): its own `import re` first)")
        print(f"  git merge-file      {g:7.1f} ms")
        print(f"  python -I -c pass   {p:7.1f} ms")
        c, m = self_check_ms(MATRIX.read_bytes(), ours, (work / "B.md").read_bytes(), args.runs)
        print(f"  of which self-check {c:7.1f} ms   (in process; the whole keyed merge {m:.1f} ms)")
        k = coordination_ms(work, exe, args.runs)
        print(f"real coordination record ({COORDINATION.stat().st_size // 1024} KB; two key columns, detached rows), median of {args.runs} runs:")
        print(f"  mergedrv merge      {k:7.1f} ms   ({k / p:.1f}x the interpreter start)")
        state_log(work, exe, args.state, args.runs, p)
        (work / ".mergedrv.toml").write_text(CONFIG)
        driver = [*exe, "merge", "O.md", "A.md", "B.md", "-p", "model-matrix.md"]
        print("synthetic table scaling (median of 3 runs each):")
        print(f"  {'rows':>7}  {'MB a side':>9}  {'seconds':>8}  {'peak RSS MB':>11}  {'RSS / input':>11}")
        for n in (int(x) for x in args.sizes.split(",")):
            o = synthetic(n, "base")
            (work / "O.md").write_bytes(o)
            (work / "B.md").write_bytes(synthetic(n, "theirs"))
            a = synthetic(n, "ours")
            runs = sorted(timed(driver, work, (work / "A.md", a)) for _ in range(3))
            secs, rss = runs[1][0], max(r[1] for r in runs)
            merged = (work / "A.md").read_bytes()
            assert b"S-ours-new" in merged and b"S-theirs-new" in merged
            size = len(o) / 1e6
            print(f"  {n:>7}  {size:9.1f}  {secs:8.2f}  {rss / 1024:11.0f}  {rss * 1024 / (3 * len(o)):10.1f}x")
        print("shapes that were quadratic (median of 3 runs each):")
        shapes = [("renamed group dividers", renamed_dividers, 16000), ("one-row tables under one heading", one_row_tables, 8000)]
        if args.tiny:
            shapes.append(("tiny rows in one table", tiny_rows, args.tiny))
        for name, make, n in shapes:
            (work / "O.md").write_bytes(make(n, "base"))
            (work / "B.md").write_bytes(make(n, "theirs"))
            a = make(n, "ours")
            runs = sorted(timed(driver, work, (work / "A.md", a)) for _ in range(3))
            rss = max(r[1] for r in runs)
            print(f"  {name} ({n}, {len(a) // 1024} KB a side): {runs[1][0]:.2f} s, peak RSS {rss / 1024:.0f} MB"
                  f" ({rss * 1024 / len(a):.0f}x a side)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
