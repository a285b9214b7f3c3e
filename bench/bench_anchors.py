"""Benchmark `mergedrv anchors --to`: 400 citations against a generated upstream
of several thousand files at two revisions.

    .venv/bin/python bench/bench_anchors.py [--files 4000] [--citations 400] [--runs 5]

The upstream is written with `git fast-import` (a pin, then commits that delete,
rename and move files, turn functions into methods, rename classes and shift
lines).  Baselines measured in the same run: the interpreter start
(`mergedrv --version`), and git itself listing both trees and reading every
cited blob at both revisions (`git ls-tree -r` + `git cat-file --batch`).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MERGEDRV = [sys.executable, "-m", "mergedrv"]


def module_source(i: int, shift: int = 0, method_from: set[str] = frozenset(), renamed: dict[str, str] | None = None, drop: set[str] = frozenset()) -> str:
    renamed = renamed or {}
    lines = ["# generated module"] * shift + [f'"""Module {i}."""', "import os", "", f"LIMIT_{i} = {i}", ""]
    for f in range(6):
        name = f"func_{i}_{f}"
        if name in method_from or name in drop:
            continue
        lines += [f"def {name}(x, y={f}):", f"    total = x + y + {i}", "    for k in range(3):", "        total += k", "    return total", "", ""]
    for c in range(2):
        cls = renamed.get(f"Model{i}_{c}", f"Model{i}_{c}")
        lines += [f"class {cls}:", f'    """Class {c} of module {i}."""', ""]
        for m in range(4):
            lines += [f"    def method_{m}(self, x):", f"        return x * {m} + {c}", ""]
        if c == 0:
            for name in sorted(method_from):
                lines += [f"    def {name}(self, x, y=0):", "        return x + y", ""]
        lines.append("")
    return "\n".join(lines) + "\n"


def header_source(i: int) -> str:
    return (
        f"#pragma once\nnamespace vt {{\nvoid Kernel{i}(float* x, int n);\nclass Op{i} {{\n public:\n"
        f"  void forward(float* x);\n  int size() const {{ return {i}; }}\n}};\n}}  // namespace vt\n#define VT_OP_{i} {i}\n"
    )


def py_path(i: int) -> str:
    return f"pkg/area{i % 20}/group{(i // 20) % 10}/mod_{i}.py"


def build_upstream(root: Path, n_files: int, seed: int) -> dict:
    """Write the upstream with fast-import; returns what changed, by construction."""
    rng = random.Random(seed)
    n_headers = max(n_files // 10, 10)
    picks = rng.sample(range(n_files), 140)
    plan = {
        "deleted": picks[0:20],
        "renamed": picks[20:40],
        "moved_fn": picks[40:60],  # func_i_0 moves to a new module
        "to_method": picks[60:80],  # func_i_1 becomes a method of Model{i}_0
        "shifted": picks[80:110],  # three lines inserted at the top
        "class_renamed": picks[110:120],  # Model{i}_1 -> Model{i}_1V2
    }
    stream: list[bytes] = []
    mark = [0]

    def commit(message: str, ops: list[str | tuple[str, str]]) -> None:
        mark[0] += 1
        msg = message.encode()
        out = [f"commit refs/heads/main\nmark :{mark[0]}\ncommitter Up <up@example.com> {1700000000 + mark[0]} +0000\n".encode()]
        out.append(b"data %d\n%s\n" % (len(msg), msg))
        if mark[0] > 1:
            out.append(f"from :{mark[0] - 1}\n".encode())
        for op in ops:
            if isinstance(op, tuple):
                path, text = op
                data = text.encode()
                out.append(f"M 100644 inline {path}\n".encode() + b"data %d\n" % len(data) + data + b"\n")
            else:
                out.append(op.encode() + b"\n")
        stream.append(b"".join(out))

    files = [(py_path(i), module_source(i)) for i in range(n_files)]
    files += [(f"csrc/ops/op_{i}.h", header_source(i)) for i in range(n_headers)]
    files += [(f"pkg/area{a}/__init__.py", "") for a in range(20)]
    commit("Initial import", files)
    for k in range(0, 20, 4):
        commit(f"Remove deprecated modules batch {k // 4}", [f"D {py_path(i)}" for i in plan["deleted"][k : k + 4]])
    for i in plan["renamed"]:
        commit(f"Move mod_{i} to the new layout", [f"R {py_path(i)} pkg/new_layout/mod_{i}.py"])
    moved_ops: list[str | tuple[str, str]] = []
    for i in plan["moved_fn"]:
        moved_ops.append((py_path(i), module_source(i, drop={f"func_{i}_0"})))
        moved_ops.append((f"pkg/moved/home_{i}.py", f"def func_{i}_0(x, y=0):\n    return x + y\n"))
    commit("Move helpers to pkg/moved", moved_ops)
    commit("Turn helpers into methods", [(py_path(i), module_source(i, method_from={f"func_{i}_1"})) for i in plan["to_method"]])
    commit("Add headers", [(py_path(i), module_source(i, shift=3)) for i in plan["shifted"]])
    commit("Rename classes", [(py_path(i), module_source(i, renamed={f"Model{i}_1": f"Model{i}_1V2"})) for i in plan["class_renamed"]])
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(stream), check=True)
    subprocess.run(["git", "tag", "pin", "main~" + str(mark[0] - 1)], cwd=root, check=True)
    subprocess.run(["git", "tag", "to", "main"], cwd=root, check=True)
    plan["n_headers"] = n_headers
    return plan


def build_records(root: Path, upstream: Path, plan: dict, n_files: int, n_cites: int, seed: int) -> None:
    rng = random.Random(seed + 1)
    changed = set().union(*(set(v) for k, v in plan.items() if k != "n_headers"))
    rows = []
    special = []
    for i in plan["deleted"][:10] + plan["renamed"][:10]:
        special.append(f"`{py_path(i)}::Model{i}_0.method_1`")
    for i in plan["moved_fn"][:10]:
        special.append(f"`{py_path(i)}::func_{i}_0`")
    for i in plan["to_method"][:10]:
        special.append(f"`{py_path(i)}::func_{i}_1`")
    for i in plan["shifted"][:10]:
        special.append(f"`{py_path(i)}:8-12`")
    for i in plan["class_renamed"][:10]:
        special.append(f"`mod_{i}.py::Model{i}_1`")
    plain = [i for i in range(n_files) if i not in changed]
    while len(special) < n_cites:
        i = rng.choice(plain)
        form = rng.randrange(5)
        if form == 0:
            special.append(f"`{py_path(i)}::func_{i}_{rng.randrange(6)}`")
        elif form == 1:
            special.append(f"`{py_path(i)}::Model{i}_{rng.randrange(2)}.method_{rng.randrange(4)}`")
        elif form == 2:
            special.append(f"`mod_{i}.py:{rng.randrange(1, 60)}`")
        elif form == 3:
            h = rng.randrange(plan["n_headers"])
            special.append(f"`csrc/ops/op_{h}.h::vt::Op{h}::forward`")
        else:
            special.append(f"`{py_path(i)}::LIMIT_{i}`")
    for n, cite in enumerate(special[:n_cites]):
        rows.append(f"| `ROW-{n:04d}` | {cite} | {'✅' if n % 3 else 'INVENTORIED'} |")
    matrix = "# Matrix\n\n| ID | Upstream | State |\n|---|---|---|\n" + "\n".join(rows) + "\n"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "matrix.md").write_text(matrix)
    (root / ".mergedrv.toml").write_text(f'[[record]]\nname = "M"\npath = "matrix.md"\nkey = "ID"\n\n[anchors]\nupstream = "{upstream}"\nshow = ["State"]\n')


def timed(cmd: list[str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess]:
    """Wall time and CPU time (user + system) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc


def git_baseline(upstream: Path, paths: list[str]) -> float:
    """git listing both trees and reading the cited blobs at both revisions."""
    start = time.perf_counter()
    for rev in ("pin", "to"):
        subprocess.run(["git", "ls-tree", "-r", rev], cwd=upstream, capture_output=True, check=True)
        batch = "".join(f"{rev}:{p}\n" for p in paths).encode()
        subprocess.run(["git", "cat-file", "--batch"], cwd=upstream, input=batch, capture_output=True, check=True)
    return time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=4000, help="Python modules in the upstream (plus a tenth as many C++ headers)")
    ap.add_argument("--citations", type=int, default=400)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        up = Path(tmp) / "upstream"
        plan = build_upstream(up, args.files, args.seed)
        rec = Path(tmp) / "records"
        build_records(rec, up, plan, args.files, args.citations, args.seed)
        n_tree = len(subprocess.run(["git", "ls-tree", "-r", "--name-only", "pin"], cwd=up, capture_output=True, text=True).stdout.split())
        commits = subprocess.run(["git", "rev-list", "--count", "pin..to"], cwd=up, capture_output=True, text=True).stdout.strip()
        print(f"upstream: {n_tree} files at the pin, {commits} commits to the newer revision (generated in {time.perf_counter() - t0:.2f} s)")

        cmd = [*MERGEDRV, "anchors", "--pin", "pin", "--to", "to", "--format", "json"]
        floor, anchors, cpu, gitread = [], [], [], []
        doc = None
        for _ in range(args.runs):
            floor.append(timed([*MERGEDRV, "--version"], rec)[0])
            wall, used, proc = timed(cmd, rec)
            if proc.returncode not in (0, 1):
                print(proc.stderr.decode(), file=sys.stderr)
                return 2
            anchors.append(wall)
            cpu.append(used)
            doc = json.loads(proc.stdout)
            cited = sorted({c["pin"]["resolved"] for c in doc["citations"] if c["pin"]["resolved"]})
            gitread.append(git_baseline(up, cited))
        assert doc is not None
        print(f"citations: {doc['pin']['checked']}; pin {doc['pin']['counts']}; to {doc['to']['counts']}; delta {doc['delta']}")
        removed = [c for c in doc["citations"] if c["removal"]]
        moved = [c for c in doc["citations"] if c["defined_at"] and c["defined_at"]["moved"]]
        lines = [c for c in doc["citations"] if c["line_move"] and c["line_move"]["status"] == "moved"]
        print(f"removals attributed: {len(removed)}; moves found: {len(moved)}; cited lines moved: {len(lines)}")
        # what the generator did, by construction: 10 citations per kind of change
        expected = {"fresh": args.citations - 50, "stale": 30, "file-absent": 20, "ambiguous": 0}
        ok = doc["to"]["counts"] == expected and len(removed) == 20 and len(moved) == 20 and len(lines) == 10
        print("results match the generated changes" if ok else f"MISMATCH: expected {expected}, 20 removals, 20 moves, 10 moved lines")
        med = statistics.median
        print(f"baseline  interpreter start (mergedrv --version): median {med(floor):.3f} s")
        print(f"baseline  git ls-tree + cat-file of cited blobs, both revisions: median {med(gitread):.3f} s")
        print(
            f"anchors   --pin --to, {doc['pin']['checked']} citations: median {med(anchors):.3f} s wall "
            f"(best {min(anchors):.3f} s), median {med(cpu):.3f} s CPU (target < 2 s)"
        )
        if not ok:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
