#!/usr/bin/env python3
"""`mergedrv init` on generated repositories of the sizes the budget names.

  small  40 markdown files and 1,100 commits: the real model matrix (rows
         edited and added), roadmap, coordination file (its handoff queue
         grows), engine matrix (a section grid) and parity ledger (appended)
         from tests/data, a state log growing at its end, a README with an options
         table, a benchmark table edited in place, and prose documents;
  large  10,000 markdown files (one in twenty holds a table) and 300 commits,
         every tenth a merge of a topic branch that added a row while main
         edited the same file's prose.

Histories are written with `git fast-import`; each case then times whole
`mergedrv init --print` processes (median of --runs) against `python -c pass`
and `git log -p -U1` alone, in the same run.  ``--repo DIR`` times a real
tree instead (a clone of vllm.cpp): elapsed, user and system time of each
run (git's included), medians, against `python -c pass` and `git log
--oneline` over its history, with the load average before and after.

    .venv/bin/python bench/bench_init.py [--case small|large|both] [--runs 3] [--keep DIR]
    .venv/bin/python bench/bench_init.py --repo /tmp/vr [--runs 5]
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"


class FastImport:
    """Commits on main through one `git fast-import` process."""

    def __init__(self, repo: Path) -> None:
        self.proc = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=repo, stdin=subprocess.PIPE)
        self.n = 0

    def commit(self, files: dict[str, bytes], message: str, ref: str = "main", parent: int | None = None, merge: int | None = None) -> int:
        """A commit on ``ref`` (after ``parent``, the previous commit by default; ``merge``: its second parent); returns its mark."""
        self.n += 1
        out = [f"commit refs/heads/{ref}\nmark :{self.n}\ncommitter A <a@example.com> {1_700_000_000 + self.n * 600} +0000\n".encode()]
        msg = message.encode()
        out.append(b"data %d\n%s\n" % (len(msg), msg))
        if self.n > 1:
            out.append(b"from :%d\n" % (parent if parent is not None else self.n - 1))
        if merge is not None:
            out.append(b"merge :%d\n" % merge)
        for path, data in files.items():
            out.append(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
        self.proc.stdin.write(b"".join(out))
        return self.n

    def close(self) -> None:
        self.proc.stdin.close()
        if self.proc.wait() != 0:
            raise SystemExit("git fast-import failed")


def _prose(rng: random.Random, n: int) -> bytes:
    words = "the engine keeps a record of every change and its parity with upstream kernels".split()
    return (" ".join(rng.choice(words) for _ in range(n)) + "\n").encode()


GRID = """
[[record]]
name = "ENG"
path = "e.md"
key = "ID"
"""


def _grid_kept(lines: list[bytes]) -> bytes:
    """The engine matrix with its section grid's Rows and Total kept up with its rows (the one stale state row stays)."""
    sys.path.insert(0, str(ROOT))
    from mergedrv import config, derived, model

    data = b"".join(lines)
    from tests.checks_helpers import ENGINE_GRID

    record = config.loads(GRID + ENGINE_GRID).records[0]
    found = derived.derive(model.parse(data, "ID"), record).numbers
    kept = [n for n in found if n.what.endswith("column 'Rows'") or " row 'Total' " in n.what
            or (" row 'KV cache and memory' " not in n.what and n.found != n.want)]
    return derived.rewrite(data, kept, lambda n: n.want)


def small(repo: Path, commits: int = 1100, seed: int = 7) -> None:
    rng = random.Random(seed)
    fi = FastImport(repo)
    matrix = (DATA / "model-matrix.f887c34c.md").read_bytes().splitlines(keepends=True)
    rows = [i for i, line in enumerate(matrix) if line.startswith(b"| `MODEL-")]
    ledger = (DATA / "parity-ledger.d85906ae.md").read_bytes().splitlines(keepends=True)
    head = next(i for i, line in enumerate(ledger) if line.startswith(b"|---")) + 1
    shown = head + 40
    state = [b"# State log (append; newest last)\n\n"]
    docs = {f"docs/doc{i}.md": [b"# Doc %d\n\n" % i, _prose(rng, 40)] for i in range(32)}
    coord = (DATA / "coordination.d85906ae.md").read_bytes().splitlines(keepends=True)
    queue = next(i for i, line in enumerate(coord) if line.startswith(b"| 11 | "))
    handoff = coord.pop(queue)  # the handoff queue's last row, added later
    engine = (DATA / "engine-matrix.2c0c076e.md").read_bytes().splitlines(keepends=True)
    engine_rows = [i for i, line in enumerate(engine) if line.startswith(b"| `") and b"-" in line[:20]]
    later = [engine.pop(engine_rows[-1]), engine.pop(engine_rows[len(engine_rows) // 2])]  # rows added later
    road = (DATA / "roadmap_v1.d85906ae.md").read_bytes().splitlines(keepends=True)
    road_later = [i for i, line in enumerate(road) if line.startswith((b"| C9 |", b"| D5 |", b"| 14 | `ROAD-V1-D5`"))]
    road_rows = [(i, road[i]) for i in road_later]
    for i in reversed(road_later):
        del road[i]
    readme = b"# Tool\n\n| Option | Default | Meaning |\n|---|---|---|\n| `OPT_A` | OFF | a |\n"
    files = {".agents/model-matrix.md": b"".join(matrix), ".agents/roadmap_v1.md": b"".join(road),
             ".agents/parity-ledger.md": b"".join(ledger[:shown]), ".agents/state.md": b"".join(state), "README.md": readme,
             ".agents/coordination.md": b"".join(coord), ".agents/engine-matrix.md": _grid_kept(engine),
             **{p: b"".join(v) for p, v in docs.items()}}
    fi.commit(files, "start")
    added = 0
    for c in range(2, commits + 1):
        files = {}
        if c % 3 == 0:  # a matrix row's state changes, or a row is added
            i = rng.choice(rows)
            if c % 9 == 0:
                added += 1
                matrix.insert(i + 1, re.sub(rb"^\| `MODEL-[^`]*`", b"| `MODEL-NEW-%d`" % added, matrix[i]))
                rows = [j if j <= i else j + 1 for j in rows] + [i + 1]
            else:
                matrix[i] = matrix[i].replace(b"`INVENTORIED`", b"`SPIKE`", 1)
            files[".agents/model-matrix.md"] = b"".join(matrix)
        if c % 2 == 0 and shown < len(ledger):
            shown += 1
            files[".agents/parity-ledger.md"] = b"".join(ledger[:shown])
        if c % 4 == 1:
            state.append(b"- **2026-07-%02d** " % (c % 28 + 1) + _prose(rng, 30))
            files[".agents/state.md"] = b"".join(state)
        if c % 5 == 2:
            path = rng.choice(list(docs))
            docs[path][rng.randrange(1, len(docs[path]))] = _prose(rng, 40)
            files[path] = b"".join(docs[path])
        if c % 100 == 7:  # the engine matrix and roadmap are touched up now and then
            for path, text in ((".agents/engine-matrix.md", engine), (".agents/roadmap_v1.md", road)):
                text.append(b"\n" + _prose(rng, 12))
                files[path] = b"".join(text)
        if c in (300, 600):  # rows added to the engine matrix (its grid not kept up), the roadmap's tracks
            engine.insert(engine_rows[len(engine_rows) // 2] if c == 300 else engine_rows[-1] - 1, later.pop())
            files[".agents/engine-matrix.md"] = _grid_kept(engine)
            i, row = road_rows.pop(0)
            road.insert(min(i, len(road)), row)
            files[".agents/roadmap_v1.md"] = b"".join(road)
        if c == commits // 2:  # the handoff queue grows
            coord.insert(queue, handoff)
            files[".agents/coordination.md"] = b"".join(coord)
        if c % 50 == 0:
            files["docs/BENCHMARKS.md"] = b"# Benchmarks\n\n| Model | tok/s |\n|---|---|\n| a | %d |\n| b | %d |\n" % (c, c * 2)
        if not files:  # else a state entry
            state.append(b"- **2026-08-%02d** " % (c % 28 + 1) + _prose(rng, 20))
            files[".agents/state.md"] = b"".join(state)
        fi.commit(files, f"change {c}")
    fi.close()
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, check=True)


def large(repo: Path, files_n: int = 10_000, commits: int = 300, seed: int = 7, table_every: int = 20) -> None:
    rng = random.Random(seed)
    fi = FastImport(repo)
    docs = {}
    for i in range(files_n):
        path = f"area{i % 50}/sub{i % 7}/note{i}.md"
        text = b"# Note %d\n\n" % i + _prose(rng, 60)
        if i % table_every == 0:
            text += b"\n| ID | What |\n|---|---|\n" + b"".join(b"| `N%d-%d` | w |\n" % (i, k) for k in range(5))
        docs[path] = text
    main = fi.commit(docs, "start")
    paths = list(docs)
    tables = [p for i, p in enumerate(paths) if i % table_every == 0]
    for c in range(2, commits + 1):
        files = {}
        if c % 10 == 0:  # a topic branch adds a row while main edits the same file's prose: a merge joins them
            path = rng.choice(tables)
            k = docs[path].count(b"\n| `N")
            row = b"| `N%s-%d` | w |\n" % (path.rsplit("note", 1)[1][:-3].encode(), k)
            topic = fi.commit({path: docs[path] + row}, f"topic {c}", ref=f"topic{c}", parent=main)
            head, rest = docs[path].split(b"\n\n", 1)
            ours = head + b"\n\n" + _prose(rng, 8) + rest
            mid = fi.commit({path: ours}, f"main {c}", parent=main)
            docs[path] = ours + row
            main = fi.commit({path: docs[path]}, f"Merge topic{c}", parent=mid, merge=topic)
            continue
        for path in rng.sample(paths, 5):
            k = docs[path].count(b"\n| `N")
            row = b"| `N%s-%d` | w |\n" % (path.rsplit("note", 1)[1][:-3].encode(), k) if k else b""
            docs[path] = docs[path] + row if row else docs[path] + _prose(rng, 10)
            files[path] = docs[path]
        main = fi.commit(files, f"change {c}", parent=main)
    fi.close()
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, check=True)


def _time(cmd: list[str], cwd: Path, runs: int) -> tuple[float, subprocess.CompletedProcess]:
    times = []
    proc = None
    for _ in range(runs):
        t = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times), proc


def _cpu(cmd: list[str], cwd: Path, runs: int) -> tuple[list[float], list[float], list[float], subprocess.CompletedProcess]:
    """Elapsed, user and system seconds (its children's included) of each of ``runs`` runs of ``cmd``."""
    import resource

    wall, user, system = [], [], []
    proc = None
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True)
        wall.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        user.append(after.ru_utime - before.ru_utime)
        system.append(after.ru_stime - before.ru_stime)
    return wall, user, system, proc


def measure_tree(repo: Path, runs: int) -> None:
    """`mergedrv init --print` on a real tree, against the interpreter's start and git's own walk of the history."""
    import os

    load = os.getloadavg()
    rows = []
    for name, cmd in (("python -c pass", [sys.executable, "-c", "pass"]),
                      ("git log --oneline", ["git", "log", "--oneline"]),
                      ("mergedrv init --print", [sys.executable, "-m", "mergedrv", "init", "--print"])):
        wall, user, system, proc = _cpu(cmd, repo, runs)
        if proc.returncode not in (0, 1):
            raise SystemExit(proc.stderr.decode())
        rows.append((name, wall, user, system))
    n = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    print(f"{repo}: {n} commits, median of {runs} (load average {load[0]:.2f} before, {os.getloadavg()[0]:.2f} after)")
    for name, wall, user, system in rows:
        print(f"  {name:22} elapsed {statistics.median(wall):.2f} s (runs {', '.join(f'{w:.2f}' for w in wall)}), "
              f"user {statistics.median(user):.2f} s, sys {statistics.median(system):.2f} s")


def measure(name: str, repo: Path, runs: int) -> None:
    mergedrv = [sys.executable, "-m", "mergedrv", "init", "--print"]
    md = subprocess.run(["git", "ls-files", "*.md"], cwd=repo, capture_output=True, text=True).stdout.count("\n")
    n = subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    base, _ = _time([sys.executable, "-c", "pass"], repo, runs)
    log, _ = _time(["git", "log", "--no-merges", "-p", "-U1", "--format=%H", "--", "*.md"], repo, runs)
    took, proc = _time(mergedrv, repo, runs)
    if proc.returncode not in (0, 1):
        raise SystemExit(proc.stderr.decode())
    out = proc.stdout.decode()
    found = (out.count("\n[[record]]"), out.count("\n[[log]]"), out.count("\nkey = ["), out.count("\n[[record.grid]]"),
             out.count("\ndetached_rows = "))
    print(f"{name}: {md} markdown files, {n} commits: mergedrv init {took:.2f} s (median of {runs}); "
          f"git log -p -U1 alone {log:.2f} s; python -c pass {base:.3f} s; {found[0]} records, {found[1]} logs "
          f"({found[2]} with several key columns, {found[3]} section grids, {found[4]} with detached rows)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--case", choices=("small", "large", "both"), default="both")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--table-every", type=int, default=20, help="large: one file in N holds a table (default 20)")
    ap.add_argument("--keep", help="build the repositories under this folder and keep them")
    ap.add_argument("--repo", help="time init on this real tree instead of the generated ones")
    ns = ap.parse_args()
    if ns.repo:
        measure_tree(Path(ns.repo), ns.runs)
        return
    top = Path(ns.keep) if ns.keep else Path(tempfile.mkdtemp(prefix="bench-init-"))
    try:
        for name, build in (("small", small), ("large", large)):
            if ns.case not in (name, "both"):
                continue
            repo = top / name
            if not (repo / ".git").exists():
                repo.mkdir(parents=True, exist_ok=True)
                subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
                t = time.perf_counter()
                build(repo) if name == "small" else build(repo, table_every=ns.table_every)
                print(f"{name}: generated in {time.perf_counter() - t:.1f} s", file=sys.stderr)
            measure(name, repo, ns.runs)
    finally:
        if not ns.keep:
            shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main()
