"""Generated three-way merges of keyed documents, and the oracle that checks
a merge result (used by tests/merge/test_fuzz_merge.py and bench/fuzz_merge.py).

Documents: keyed tables under headings, in list items and in block quotes,
prose between them; each side edits cells, deletes, adds, moves rows between
tables and reorders them, adds or drops a column, edits prose; then CRLF/LF
mixes, a BOM and byte noise.  Marker sizes 1..50.
"""

from __future__ import annotations

import random
import subprocess
import tempfile
from pathlib import Path

from mergedrv import model
from mergedrv.merge import Options, merge
from mergedrv.merge import Markers, hunks

CONTAINERS = ("", "- ", "> ", "  ")


def _bare(line: bytes) -> bytes:
    return line.rstrip(b"\r\n")  # a last line without LF may keep or gain a CR


class Doc:
    """tables: [container, heading, columns, rows]; rows: [key, cells...]."""

    def __init__(self, rnd: random.Random, nkeys: int = 12) -> None:
        keys = [f"K-{i}" for i in rnd.sample(range(100), nkeys)]
        self.tables = []
        self.prose = [f"para {rnd.randint(0, 9)} " + rnd.choice(["text", "<<< x", "=== y", "> quote", "| pipe", "stray\rCR"]) for _ in range(4)]
        n = rnd.randint(1, 4)
        for t in range(n):
            cols = ["ID", "V"] + (["W"] if rnd.random() < 0.5 else [])
            mine = keys[t::n]
            rows = [[k, *(rnd.choice(["a", "b", "c", "-", ""]) for _ in cols[1:])] for k in mine]
            self.tables.append([rnd.choice(CONTAINERS), f"T{t}" if rnd.random() < 0.8 else "T", cols, rows])

    def copy(self) -> "Doc":
        d = Doc.__new__(Doc)
        d.tables = [[c, h, list(cols), [list(r) for r in rows]] for c, h, cols, rows in self.tables]
        d.prose = list(self.prose)
        return d

    def render(self) -> bytes:
        out = []
        for i, (cont, heading, cols, rows) in enumerate(self.tables):
            out.append(f"## {heading}\n\n{self.prose[i % len(self.prose)]}\n\n")
            pre = cont
            lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
            lines += ["| " + " | ".join(r) + " |" for r in rows]
            if cont == "- ":
                out.append("- item\n\n" + "".join(f"  {ln}\n" for ln in lines))
            else:
                out.append("".join(f"{pre}{ln}\n" for ln in lines))
            out.append("\n")
        out.append(self.prose[-1] + "\n")
        return "".join(out).encode()


def edit(rnd: random.Random, d: Doc, side: str) -> Doc:
    d = d.copy()
    for _ in range(rnd.randint(1, 5)):
        op = rnd.choice(["cell", "cell", "delete", "add", "move", "reorder", "column", "prose", "dropcol"])
        t = rnd.choice(d.tables)
        rows = t[3]
        if op == "cell" and rows:
            r = rnd.choice(rows)
            if len(r) > 1:
                r[rnd.randrange(1, len(r))] = f"{side}{rnd.randint(0, 9)}"
        elif op == "delete" and rows:
            rows.pop(rnd.randrange(len(rows)))
        elif op == "add":
            k = f"K-{rnd.randint(0, 120)}"
            rows.insert(rnd.randint(0, len(rows)), [k, *(f"{side}-new" for _ in t[2][1:])])
        elif op == "move" and rows:
            r = rows.pop(rnd.randrange(len(rows)))
            other = rnd.choice(d.tables)
            if len(r) != len(other[2]):
                r = (r + ["m"] * len(other[2]))[: len(other[2])]
            if rnd.random() < 0.5 and len(r) > 1:
                r[-1] = f"{side}-moved"
            other[3].insert(rnd.randint(0, len(other[3])), r)
        elif op == "reorder" and len(rows) > 1:
            rnd.shuffle(rows)
        elif op == "column":
            t[2].append(f"{side.upper()}C")
            for r in rows:
                r.append(rnd.choice(["-", f"{side}x", ""]))
        elif op == "dropcol" and len(t[2]) > 2:
            t[2].pop()
            for r in rows:
                r.pop()
        elif op == "prose":
            i = rnd.randrange(len(d.prose))
            d.prose[i] = d.prose[i] + f" {side}"
    return d


def noise(rnd: random.Random, data: bytes) -> bytes:
    lines = model.split_lines(data)
    if not lines:
        return data
    if rnd.random() < 0.3:  # CRLF on some lines
        lines = [ln[:-1] + b"\r\n" if ln.endswith(b"\n") and not ln.endswith(b"\r\n") and rnd.random() < 0.5 else ln for ln in lines]
    if rnd.random() < 0.15:
        i = rnd.randrange(len(lines))
        lines[i] = rnd.choice([b"\xff", b"\r", b"\x00", b"|", b"<<<<<<< x", b"\t"]) + lines[i]
    out = b"".join(lines)
    if rnd.random() < 0.1:
        out = out.rstrip(b"\n")
    return out


def case(seed: int) -> tuple[bytes, bytes, bytes, int]:
    rnd = random.Random(seed)
    base = Doc(rnd, rnd.randint(0, 12))
    ours, theirs = edit(rnd, base, "ours"), edit(rnd, base, "theirs")
    o, a, b = base.render(), ours.render(), theirs.render()
    if rnd.random() < 0.3:
        o, a, b = noise(rnd, o), noise(rnd, a), noise(rnd, b)
    if rnd.random() < 0.1:
        bom = b"\xef\xbb\xbf"
        o, a, b = (bom + x if rnd.random() < 0.7 else x for x in (o, a, b))
    size = rnd.choice([7, 7, 7, rnd.randint(1, 50)])
    return o, a, b, size


def git_merge_file(base: bytes, ours: bytes, theirs: bytes, size: int) -> tuple[bytes, int]:
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            p = Path(tmp) / name
            p.write_bytes(data)
            paths.append(str(p))
        proc = subprocess.run(
            ["git", "merge-file", "-p", "--diff3", f"--marker-size={size}", "-L", "ours", "-L", "base", "-L", "theirs", *paths],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    return proc.stdout, proc.returncode


def _rows(data: bytes, key="ID", pattern=None) -> dict[str, set[bytes]]:
    try:
        doc = model.parse(data, key, key_pattern=pattern)
    except model.Unmodelable:
        return {}
    out: dict[str, set[bytes]] = {}
    for r in doc.rows():
        out.setdefault(r.key, set()).add(_bare(r.lines[0]))
    return out


def lost_lines(base: bytes, ours: bytes, theirs: bytes, out: bytes, key="ID", pattern=None) -> list[bytes]:
    """Lines ours or theirs added or kept that the result lacks, where the
    other side did not delete or change them (counted: a line each side
    deleted one copy of is gone)."""
    have = {_bare(x) for x in model.split_lines(out)}
    count = []
    for data in (base, ours, theirs):
        c: dict[bytes, int] = {}
        for x in model.split_lines(data):
            c[_bare(x)] = c.get(_bare(x), 0) + 1
        count.append(c)
    rows = [_rows(x, key, pattern) for x in (base, ours, theirs)]
    return _unaccounted(count, rows, lambda line: line in have)


def _unaccounted(count: list[dict[bytes, int]], rows: list[dict[str, set[bytes]]], kept) -> list[bytes]:
    """The lines of ours and theirs (``count[1]``, ``count[2]``) that ``kept``
    does not find in the result, leaving out lines both sides together
    deleted and rows of a key the other side changed."""
    keys = [{ln: k for k, lns in r.items() for ln in lns} for r in rows]
    missing = []
    for n in (1, 2):
        other = 3 - n
        for line in count[n]:
            if kept(line) or not line.strip():
                continue
            if line in count[0]:
                if count[1].get(line, 0) + count[2].get(line, 0) - count[0][line] < 1:
                    continue
            else:
                k = keys[n].get(line)
                if k is not None and k in rows[0] and rows[other].get(k) != rows[0][k]:
                    continue
            missing.append(line)
    return missing


def doubled_keys(base: bytes, ours: bytes, theirs: bytes, out: bytes, size: int, key="ID", pattern=None) -> list[str]:
    """Keys that stand more than once outside conflict regions (more often
    than a side itself defines them): in the clean text alone (the regions
    dropped), or in both of its readings with each conflict region as its
    ours part and as its theirs part (counting the rows of clean lines)."""
    allowed: dict[str, int] = {}  # a key a side itself defines twice is that side's
    try:  # each side read alone, and as the merge reads it beside the other versions (a group row one side made an entry is no group)
        readings = [model.parse(data, key, key_pattern=pattern) for data in (ours, theirs)]
        readings += model.parse_many([base, ours, theirs], key, key_pattern=pattern)[1:]
    except model.Unmodelable:
        return []
    for doc in readings:
        ks = [r.key for r in doc.rows()]
        for k in set(ks):
            allowed[k] = max(allowed.get(k, 0), ks.count(k))
    parts = hunks(out, size)
    # the clean text alone (regions dropped) doubles what both readings do,
    # and more where a header stands inside a region: both are asked, as an
    # oracle that reads the clean text alone would be
    clean_text = b"".join(ln for h in parts if h.clean is not None for ln in h.clean)
    try:
        keys = [r.key for r in model.parse(clean_text, key, key_pattern=pattern).rows()]
        naive = {k for k in keys if keys.count(k) > max(1, allowed.get(k, 0))}
    except model.Unmodelable:
        naive = set()
    found = None
    for side in ("ours", "theirs"):
        lines: list[bytes] = []
        clean: set[int] = set()
        for h in parts:
            if h.clean is not None:
                clean.update(range(len(lines), len(lines) + len(h.clean)))
                lines.extend(h.clean)
            else:
                lines.extend(getattr(h, side))
        try:
            keys = [r.key for r in model.parse(b"".join(lines), key, key_pattern=pattern).rows() if r.line in clean]
        except model.Unmodelable:
            continue
        dup = {k for k in keys if keys.count(k) > max(1, allowed.get(k, 0))}
        found = dup if found is None else found & dup
    return sorted(naive | (found or set()))


def run_one(base: bytes, ours: bytes, theirs: bytes, size: int, log: bool = False, key="ID", pattern=None) -> tuple[str | None, object]:
    """(what is wrong or None, the result); ``log``: merged as a log;
    ``key``, ``pattern``: the record's key column(s) and key_pattern."""
    opts = Options(markers=Markers(size), key=None, log=True) if log else Options(markers=Markers(size), key=key)
    opts.key_pattern = pattern
    result = merge(base, ours, theirs, opts)
    if not isinstance(result.data, bytes) or any(c.kind is None for c in result.conflicts):
        return "not bytes or a conflict without a kind", result
    from mergedrv.merge.fallback import ancestor

    # a criss-cross merge's virtual ancestor counts without its inner
    # conflicts, as the keyed merge reads it (stricter: fewer lines in the
    # base); a fallback is git's merge of it as given, and checked so
    read = base if result.fallback is not None else ancestor(base, ours, theirs)
    lost = lost_lines(read, ours, theirs, result.data, key, pattern)
    if lost:
        return f"lost {lost[:3]!r}", result
    if result.fallback is not None:
        data, rc = git_merge_file(base, ours, theirs, size)
        if rc < 0 or rc > 127:  # git refuses (binary): both sides kept whole
            return None, result
        if data != result.data and not (rc == 0 and result.data in (base, ours, theirs)):
            return "fallback differs from git merge-file --diff3", result
        if (rc > 0) != bool(result.conflicts):
            return f"fallback exit code differs (git {rc}, conflicts {len(result.conflicts)})", result
        return None, result
    if log:
        return None, result
    dup = doubled_keys(base, ours, theirs, result.data, size, key, pattern)
    if dup:
        return f"keys doubled outside conflicts: {dup}", result
    return None, result


# --- mixed CRLF and LF, each line's ending its own ------------------------------


def _with_endings(rnd: random.Random, data: bytes, mode: str) -> bytes:
    """``data`` (LF) with line endings by ``mode``: one block of lines in
    CRLF, each line at random, or CRLF but for a few lines."""
    lines = model.split_lines(data)
    if mode == "blocks":
        out, crlf = [], rnd.random() < 0.5
        for ln in lines:
            if not ln.strip() and rnd.random() < 0.5:
                crlf = not crlf
            out.append(ln[:-1] + b"\r\n" if crlf and ln.endswith(b"\n") else ln)
        return b"".join(out)
    if mode == "random":
        return b"".join(ln[:-1] + b"\r\n" if ln.endswith(b"\n") and rnd.random() < 0.5 else ln for ln in lines)
    few = set(rnd.sample(range(len(lines)), min(len(lines), rnd.randint(1, 3)))) if lines else set()
    return b"".join(ln[:-1] + b"\r\n" if ln.endswith(b"\n") and i not in few else ln for i, ln in enumerate(lines))


def _follow(rnd: random.Random, base: bytes, side: bytes, style: bytes) -> bytes:
    """``side`` (LF) with the base's ending on each line the base has (in
    order of occurrence), ``style`` on the lines the side added."""
    ends: dict[bytes, list[bytes]] = {}
    for ln in model.split_lines(base):
        bare = ln.rstrip(b"\r\n")
        ends.setdefault(bare, []).append(ln[len(bare):])
    out = []
    for ln in model.split_lines(side):
        bare = ln.rstrip(b"\r\n")
        have = ends.get(bare)
        end = (have.pop(0) if len(have) > 1 else have[0]) if have else style
        out.append(bare + (end if ln.endswith(b"\n") else b""))
    return b"".join(out)


def _flip(rnd: random.Random, data: bytes) -> bytes:
    """An ending-only change: the whole file to CRLF or LF, or a few lines flipped."""
    lines = model.split_lines(data)
    r = rnd.random()
    if r < 0.35:
        to = rnd.choice([b"\r\n", b"\n"])
        return b"".join(ln.rstrip(b"\r\n") + to if ln.endswith(b"\n") else ln for ln in lines)
    for i in rnd.sample(range(len(lines)), min(len(lines), rnd.randint(1, 3))):
        ln = lines[i]
        if ln.endswith(b"\r\n"):
            lines[i] = ln[:-2] + b"\n"
        elif ln.endswith(b"\n"):
            lines[i] = ln[:-1] + b"\r\n"
    return b"".join(lines)


def mixed_case(seed: int) -> tuple[bytes, bytes, bytes, int]:
    """A three-way merge of a file mixing CRLF and LF: the base's lines keep
    their endings on each side, rows and lines a side adds take that side's
    style, and sides change endings only (the whole file, a few lines), on
    top of edits or instead of them."""
    rnd = random.Random(seed)
    doc = Doc(rnd, rnd.randint(1, 12))
    base = _with_endings(rnd, doc.render(), rnd.choice(["blocks", "random", "few"]))
    sides = []
    for name in ("ours", "theirs"):
        d = doc if rnd.random() < 0.2 else edit(rnd, doc, name)
        data = _follow(rnd, base, d.render(), rnd.choice([b"\n", b"\r\n"]))
        if rnd.random() < 0.35:
            data = _flip(rnd, data)
        sides.append(data)
    o, a, b = base, sides[0], sides[1]
    if rnd.random() < 0.1:
        o, a, b = (x.rstrip(b"\r\n") if rnd.random() < 0.5 else x for x in (o, a, b))
    if rnd.random() < 0.05:
        o, a, b = (b"\xef\xbb\xbf" + x for x in (o, a, b))
    size = rnd.choice([7, 7, 7, rnd.randint(1, 50)])
    return o, a, b, size


def lost_lines_exact(base: bytes, ours: bytes, theirs: bytes, out: bytes) -> list[bytes]:
    """`lost_lines` with each line's ending part of the line: a line either
    side added or kept must be in the result byte for byte (a version's
    last line without LF may gain one), unless the other side deleted or
    changed it (its ending included)."""
    outs = model.split_lines(out)
    have = set(outs) | {x.rstrip(b"\r\n") for x in outs[-1:]}
    count = []
    lasts = set()
    for data in (base, ours, theirs):
        c: dict[bytes, int] = {}
        lines = model.split_lines(data)
        if lines and not lines[-1].endswith(b"\n"):
            lasts.add(lines[-1])
        for x in lines:
            c[x] = c.get(x, 0) + 1
        count.append(c)

    def rows(data: bytes) -> dict[str, set[bytes]]:
        try:
            return {k: {r.lines[0] for r in v} for k, v in _rows_exact(model.parse(data, "ID")).items()}
        except model.Unmodelable:
            return {}

    rs = [rows(x) for x in (base, ours, theirs)]
    return _unaccounted(count, rs, lambda line: line in have or (
        line in lasts and any(line + e in have for e in (b"\n", b"\r\n"))))


def _rows_exact(doc) -> dict[str, list]:
    out: dict[str, list] = {}
    for r in doc.rows():
        out.setdefault(r.key, []).append(r)
    return out


def run_mixed(base: bytes, ours: bytes, theirs: bytes, size: int) -> tuple[str | None, object]:
    """`run_one`, each line's ending its own (`lost_lines_exact`)."""
    why, result = run_one(base, ours, theirs, size)
    if why is None:
        lost = lost_lines_exact(base, ours, theirs, result.data)
        if lost:
            why = f"lost (its ending) {lost[:3]!r}"
    return why, result
