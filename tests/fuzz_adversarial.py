"""More generated three-way merges for the fuzz campaign (bench/fuzz_merge.py
--gen ...), shapes tests/fuzz_gen.py's documents do not reach: line-level
mutations with lines that end or start blocks (rules, setext underlines,
fences, list items, quotes, marker-like runs, stray rows and delimiters),
two key columns whose values collide across namespaces, detached rows,
duplicate keys and keyless group lines, whole sections and reference
definitions added at one place on both sides, add/add of a file, tables
deleted against edited, cells with escaped pipes, code spans and links,
re-padded columns, and logs that grow as prose.

Each case is (base, ours, theirs, marker size, options for `run_one`)."""

from __future__ import annotations

import random

from tests.fuzz_gen import Doc, edit, noise

NASTY = [
    "---", "===", "***", "- item", "* item", "1. item", "> quote", "> | K-7 | q |", "```", "~~~", "    code | K-1 |",
    "<!-- | K-2 | c | -->", "| K-5 | stray |", "|---|---|", "| --- | --- |", "#", "## New", "### B", "[r]: https://e.org/",
    "[R]: https://e.org/other", "\t| K-1 | tab |", "| K-1 | dup |", "|  | **group** |", "| **K-9** | bold |",
    "| [K-3](k3.md) | link |", "| K-2 \\| pipe | y |", "", " ", "\r", "<<<<<<< x", "=======", ">>>>>>> y", "|||||||",
    "<<<", "===", ">>>", "|", "||", "| ID | V |", "| ID | V | W |", "text | with | pipes", "K-4 | no | leading",
    "| K-6 | no trailing", "| `K-8` | code |", "| K-10 | a | b | c | d |", "\u200b| K-11 | zw |", "| K-12 | é ü |",
]


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def mutate_lines(rnd: random.Random, data: bytes, n: int) -> bytes:
    """``n`` line-level mutations: insert a nasty line, delete, duplicate,
    swap neighbours, change a cell's text, append at the end."""
    lines = _lines(data)
    for _ in range(n):
        op = rnd.choice(["insert", "insert", "delete", "dup", "swap", "cell", "append"])
        i = rnd.randrange(len(lines) + 1)
        if op == "insert" or not lines:
            lines.insert(i, (rnd.choice(NASTY) + "\n").encode())
        elif op == "append":
            lines.append((rnd.choice(NASTY) + "\n").encode())
        elif op == "delete":
            lines.pop(min(i, len(lines) - 1))
        elif op == "dup":
            j = min(i, len(lines) - 1)
            lines.insert(j, lines[j])
        elif op == "swap" and len(lines) > 1:
            j = min(i, len(lines) - 2)
            lines[j], lines[j + 1] = lines[j + 1], lines[j]
        elif op == "cell":
            j = min(i, len(lines) - 1)
            if lines[j].count(b"|") >= 3:
                parts = lines[j].split(b"|")
                k = rnd.randrange(2, len(parts) - 1) if len(parts) > 3 else 1
                parts[k] = rnd.choice([b" x ", b" y ", b"  ", b" z | extra ", b" a\\|b ", b" `c|d` "])
                lines[j] = b"|".join(parts)
    return b"".join(lines)


def _lines_case(rnd: random.Random) -> tuple[bytes, bytes, bytes, dict]:
    doc = Doc(rnd, rnd.randint(1, 12))
    o = doc.render()
    a, b = edit(rnd, doc, "ours").render(), edit(rnd, doc, "theirs").render()
    if rnd.random() < 0.5:
        o = mutate_lines(rnd, o, rnd.randint(0, 2))
    a, b = mutate_lines(rnd, a, rnd.randint(0, 3)), mutate_lines(rnd, b, rnd.randint(0, 3))
    return o, a, b, {}


TWO_KEYS = ("ID", "#")
PATTERN = (("ID", "^K-[0-9]+$"), ("#", "^K-[0-9]+$"))


def _twokeys_doc(tables: list[tuple[str, list[list[str]]]], detached: list[list[str]], prose: list[str]) -> bytes:
    out = ["# Doc\n\n"]
    for n, (col, rows) in enumerate(tables):
        out.append(f"## {col} table {n}\n\n{prose[n % len(prose)]}\n\n| {col} | V |\n|---|---|\n")
        out.extend(f"| {r[0]} | {r[1]} |\n" for r in rows)
        if n == 0 and detached:
            out.append("\n")
            out.extend(f"| {r[0]} | {r[1]} |\n" for r in detached)
            out.append("\nProse under the detached rows.\n")
        out.append("\n")
    out.append("End.\n")
    return "".join(out).encode()


def _twokeys_case(rnd: random.Random) -> tuple[bytes, bytes, bytes, dict]:
    """Tables keyed by `ID` and by `#` with the same values, detached rows of
    the first table below it; edits, adds, deletes, moves between a table
    and its detached rows, and between tables of one namespace."""
    vals = [f"K-{i}" for i in range(20)]
    tables = [("ID", [[k, "a"] for k in rnd.sample(vals, rnd.randint(0, 5))]), ("#", [[k, "b"] for k in rnd.sample(vals, rnd.randint(0, 5))])]
    if rnd.random() < 0.5:
        tables.append(("ID", [[k, "c"] for k in rnd.sample(vals, rnd.randint(0, 4))]))
    used = {r[0] for c, rows in tables if c == "ID" for r in rows}
    detached = [[k, "d"] for k in rnd.sample([v for v in vals if v not in used], rnd.randint(0, 4))]
    prose = ["para one", "para two"]
    base = _twokeys_doc(tables, detached, prose)
    sides = []
    for side in ("ours", "theirs"):
        t = [(c, [list(r) for r in rows]) for c, rows in tables]
        d = [list(r) for r in detached]
        p = list(prose)
        for _ in range(rnd.randint(1, 5)):
            op = rnd.choice(["cell", "add", "delete", "move", "attach", "detach", "prose", "addns"])
            ti = rnd.randrange(len(t))
            rows = t[ti][1]
            if op == "cell" and rows:
                rnd.choice(rows)[1] = f"{side}{rnd.randint(0, 9)}"
            elif op == "cell" and d:
                rnd.choice(d)[1] = f"{side}-d"
            elif op == "add":
                rows.insert(rnd.randint(0, len(rows)), [rnd.choice(vals), f"{side}-new"])
            elif op == "addns":  # the same value in the other namespace
                other = [x for x in t if x[0] != t[ti][0]]
                if other and rows:
                    other[0][1].append([rnd.choice(rows)[0], f"{side}-ns"])
            elif op == "delete" and rows:
                rows.pop(rnd.randrange(len(rows)))
            elif op == "move" and rows:
                r = rows.pop(rnd.randrange(len(rows)))
                same = [x for x in t if x[0] == t[ti][0]]
                dest = rnd.choice(same)[1]
                dest.insert(rnd.randint(0, len(dest)), r)
            elif op == "attach" and d:
                t[0][1].append(d.pop(rnd.randrange(len(d))))
            elif op == "detach" and t[0][1]:
                d.insert(rnd.randint(0, len(d)), t[0][1].pop(rnd.randrange(len(t[0][1]))))
            elif op == "prose":
                p[rnd.randrange(len(p))] += f" {side}"
        sides.append(_twokeys_doc(t, d, p))
    return base, sides[0], sides[1], {"key": TWO_KEYS, "pattern": PATTERN}


def _dups_case(rnd: random.Random) -> tuple[bytes, bytes, bytes, dict]:
    """Keyless group lines, continuation lines and duplicate keys (one side,
    both sides, the base itself), edited and moved around."""
    keys = [f"K-{i}" for i in range(10)]
    rows = []
    for k in rnd.sample(keys, rnd.randint(1, 8)):
        if rnd.random() < 0.2:
            rows.append(f"|  | **group {k}** |")
        rows.append(f"| {k} | v{rnd.randint(0, 3)} |")
        if rnd.random() < 0.1:
            rows.append(rows[-1])  # a duplicate in the base
    head = "# T\n\n| ID | V |\n|---|---|\n"

    def side(name: str) -> bytes:
        r = list(rows)
        for _ in range(rnd.randint(1, 4)):
            op = rnd.choice(["dup", "dupedit", "edit", "delete", "group", "move", "add"])
            i = rnd.randrange(len(r)) if r else 0
            if not r:
                r.append(f"| K-{rnd.randint(0, 12)} | {name} |")
            elif op == "dup":
                r.insert(rnd.randint(0, len(r)), r[i])
            elif op == "dupedit":
                r.insert(rnd.randint(0, len(r)), r[i].rsplit("|", 2)[0] + f"| {name}-dup |")
            elif op == "edit":
                r[i] = r[i].rsplit("|", 2)[0] + f"| {name} |"
            elif op == "delete":
                r.pop(i)
            elif op == "group":
                r.insert(i, f"|  | **{name} group** |")
            elif op == "move":
                x = r.pop(i)
                r.insert(rnd.randint(0, len(r)), x)
            elif op == "add":
                r.insert(rnd.randint(0, len(r)), f"| K-{rnd.randint(0, 12)} | {name}-new |")
        return (head + "".join(x + "\n" for x in r) + "\nEnd.\n").encode()

    return (head + "".join(x + "\n" for x in rows) + "\nEnd.\n").encode(), side("ours"), side("theirs"), {}


def _sections_case(rnd: random.Random) -> tuple[bytes, bytes, bytes, dict]:
    """New sections, tables in them, reference definitions and prose added at
    one place on both sides; the same heading on both; a table deleted
    against edited; add/add of the whole file."""
    table = lambda keys, v: "| ID | S |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k in keys)  # noqa: E731
    base_keys = [f"K-{i}" for i in rnd.sample(range(30), rnd.randint(1, 4))]
    refs = "[r0]: https://e.org/base\n" if rnd.random() < 0.6 else ""
    base = f"# T\n\n## S1\n\n{table(base_keys, 'a')}\n{refs}"
    if rnd.random() < 0.1:
        base = ""

    def side(name: str) -> str:
        text = base or f"# T\n\n## S1\n\n{table([], 'a')}\n"
        for _ in range(rnd.randint(1, 3)):
            op = rnd.choice(["section", "samesection", "ref", "para", "editrow", "deltable", "addrow", "moveinto"])
            if op == "section":
                text = text.rstrip("\n") + f"\n\n## {name.upper()}{rnd.randint(0, 2)}\n\n{table([f'K-{rnd.randint(30, 60)}'], name)}"
            elif op == "samesection":
                text = text.rstrip("\n") + f"\n\n### B\n\n{table([f'K-{rnd.randint(30, 60)}'], name)}"
            elif op == "ref":
                text = text.rstrip("\n") + f"\n[{name}{rnd.randint(0, 2)}]: https://e.org/{name}\n"
            elif op == "para":
                at = text.find("[r0]") if "[r0]" in text else len(text)
                text = text[:at] + f"more text {name}\n" + text[at:]
            elif op == "editrow" and base_keys:
                k = rnd.choice(base_keys)
                text = text.replace(f"| {k} | a |", f"| {k} | {name} |")
            elif op == "deltable":
                text = text.replace(table(base_keys, "a"), "")
            elif op == "addrow":
                text = text.replace("|---|---|\n", f"|---|---|\n| K-{rnd.randint(60, 90)} | {name} |\n", 1)
            elif op == "moveinto" and base_keys:
                k = rnd.choice(base_keys)
                line = f"| {k} | a |\n"
                if line in text:
                    text = text.replace(line, "").rstrip("\n") + f"\n\n### N1\n\n| ID | S |\n|---|---|\n{line}"
        return text

    return base.encode(), side("ours").encode(), side("theirs").encode(), {}


def _cells_case(rnd: random.Random) -> tuple[bytes, bytes, bytes, dict]:
    """Cells with escaped pipes and code spans, keys as links and bold,
    re-padded columns, delimiter alignment changed, rows without the
    outer pipes, a column renamed."""
    styles = ["{k}", "`{k}`", "[{k}](./{k}.md)", "**{k}**"]
    keys = [f"K-{i}" for i in rnd.sample(range(40), rnd.randint(1, 8))]
    vals = ["a", "x \\| y", "`c|d`", "é", "", "  spaced  "]
    style = {k: rnd.choice(styles) for k in keys}
    rows = {k: [rnd.choice(vals), rnd.choice(vals)] for k in keys}

    def render(keys_, rows_, style_, pad: bool, delim: str, outer: bool, header: str) -> bytes:
        lines = [f"| ID | {header} | W |", delim]
        for k in keys_:
            cells = [style_[k].format(k=k), *rows_[k]]
            if pad:
                cells = [c.ljust(16) for c in cells]
            lines.append(("| " + " | ".join(cells) + " |") if outer else " | ".join(cells))
        return ("# T\n\n" + "\n".join(lines) + "\n\nEnd.\n").encode()

    base = render(keys, rows, style, False, "|---|---|---|", True, "V")
    sides = []
    for name in ("ours", "theirs"):
        k2, r2, s2 = list(keys), {k: list(v) for k, v in rows.items()}, dict(style)
        pad, delim, outer, header = False, "|---|---|---|", True, "V"
        for _ in range(rnd.randint(1, 4)):
            op = rnd.choice(["cell", "pad", "delim", "outer", "rename", "style", "add", "delete", "swap"])
            k = rnd.choice(k2) if k2 else None
            if op == "cell" and k:
                r2[k][rnd.randrange(2)] = rnd.choice(vals + [name])
            elif op == "pad":
                pad = True
            elif op == "delim":
                delim = rnd.choice(["|:---|---:|:---:|", "| --- | --- | --- |", "|-|-|-|"])
            elif op == "outer":
                outer = False
            elif op == "rename":
                header = "Value"
            elif op == "style" and k:
                s2[k] = rnd.choice(styles)
            elif op == "add":
                nk = f"K-{rnd.randint(40, 60)}"
                if nk not in k2:
                    k2.insert(rnd.randint(0, len(k2)), nk)
                    r2[nk], s2[nk] = [name, name], rnd.choice(styles)
            elif op == "delete" and k:
                k2.remove(k)
            elif op == "swap" and len(k2) > 1:
                i = rnd.randrange(len(k2) - 1)
                k2[i], k2[i + 1] = k2[i + 1], k2[i]
        sides.append(render(k2, r2, s2, pad, delim, outer, header))
    return base, sides[0], sides[1], {}


def _prose_log_case(rnd: random.Random) -> tuple[bytes, bytes, bytes, dict]:
    """A log that grows as prose at its end: dated bullets, then dated
    sections with ad-hoc tables; sometimes a change above the tail."""
    def entry(n: int, who: str) -> str:
        if rnd.random() < 0.5:
            return f"- 2026-01-{n:02d} {who}: note {rnd.randint(0, 99)}\n"
        body = f"\n## 2026-01-{n:02d} {who}\n\nText {who}.\n"
        if rnd.random() < 0.4:
            body += f"\n| Run | Note |\n|---|---|\n| {n} | {who} |\n"
        return body

    base = "# State log\n\n" + "".join(entry(i, "base") for i in range(1, rnd.randint(2, 6)))
    sides = []
    for who in ("ours", "theirs"):
        text = base + "".join(entry(10 + i, who) for i in range(rnd.randint(0, 3)))
        if rnd.random() < 0.2:
            text = text.replace("note", f"note ({who})", 1)
        if rnd.random() < 0.1:
            text = text.replace("\n", "\r\n")
        sides.append(text.encode())
    return base.encode(), sides[0], sides[1], {"log": True}


def _structure_case(rnd: random.Random) -> tuple[bytes, bytes, bytes, dict]:
    """Tables one side splits in two (a blank line, a heading, a prose line
    in the middle), joins, re-indents into a list item or a quote, turns into
    prose (its delimiter dropped), whose key one side renames while the
    other edits it, and rows both sides move, to the same or other tables."""
    doc = Doc(rnd, rnd.randint(2, 12))
    base = doc.render()

    def side(name: str) -> bytes:
        d = edit(rnd, doc, name) if rnd.random() < 0.7 else doc.copy()
        for _ in range(rnd.randint(0, 2)):
            t = rnd.choice(d.tables)
            op = rnd.choice(["rekey", "bothmove", "indent", "samehead"])
            if op == "rekey" and t[3]:
                r = rnd.choice(t[3])
                r[0] = r[0] + rnd.choice(["a", "-x", ""])
            elif op == "bothmove" and t[3]:  # a fixed choice: both sides may make the same move
                r = t[3].pop(0)
                dest = d.tables[-1]
                r = (r + ["m"] * len(dest[2]))[: len(dest[2])]
                dest[3].append(r)
            elif op == "indent":
                t[0] = rnd.choice(["", "- ", "> ", "  "])
            elif op == "samehead":
                t[1] = "T"
        data = d.render()
        lines = data.splitlines(keepends=True)
        rows = [i for i, ln in enumerate(lines) if ln.lstrip(b"-> ").startswith(b"| K-")]
        if rows and rnd.random() < 0.4:
            i = rnd.choice(rows)
            lines.insert(i, rnd.choice([b"\n", b"### Split\n\n", b"a prose line\n", b"\n| ID | V |\n|---|---|\n"]))
        if rnd.random() < 0.15:  # a table's delimiter dropped: its rows are prose now
            delims = [i for i, ln in enumerate(lines) if ln.strip(b" ->\r\n").startswith(b"|---")]
            if delims:
                lines.pop(rnd.choice(delims))
        if rnd.random() < 0.15:  # two tables joined: the lines between them dropped
            heads = [i for i, ln in enumerate(lines) if ln.startswith(b"## ")]
            if len(heads) > 1:
                i = rnd.choice(heads[1:])
                j = i
                while j < len(lines) and not lines[j].lstrip(b"-> ").startswith(b"|---"):
                    j += 1
                del lines[max(i - 1, 0): j + 1]
        return b"".join(lines)

    return base, side("ours"), side("theirs"), {}


def _crisscross_case(rnd: random.Random) -> tuple[bytes, bytes, bytes, dict]:
    """A criss-cross merge: the base is git's virtual ancestor, its own
    conflicts in longer markers (a double definition, a cell both changed),
    and the sides resolved them or not."""
    from tests.fuzz_gen import git_merge_file

    doc = Doc(rnd, rnd.randint(1, 10))
    root = doc.render()
    b1, b2 = edit(rnd, doc, "b1"), edit(rnd, doc, "b2")
    virtual, rc = git_merge_file(root, b1.render(), b2.render(), rnd.choice([8, 9, 10]))
    if rc < 0 or rc > 127:
        virtual = root
    ours, theirs = edit(rnd, b1, "ours").render(), edit(rnd, b2, "theirs").render()
    return virtual, ours, theirs, {}


def _big_case(rnd: random.Random) -> tuple[bytes, bytes, bytes, dict]:
    """Many small tables under the same heading, many keys, many edits and
    moves on each side."""
    doc = Doc(rnd, 40)
    for _ in range(rnd.randint(4, 10)):
        doc.tables.append(["", "T", ["ID", "V"], []])
    keys = [r for t in doc.tables for r in t[3]]
    for i, t in enumerate(doc.tables[4:]):
        t[3] = [[f"K-{200 + i * 3 + j}", "z"] for j in range(rnd.randint(0, 3))]
    del keys
    o = doc.render()
    sides = []
    for name in ("ours", "theirs"):
        d = doc
        for _ in range(rnd.randint(2, 6)):
            d = edit(rnd, d, name)
        sides.append(d.render())
    return o, sides[0], sides[1], {}


FAMILIES = {
    "lines": _lines_case,
    "twokeys": _twokeys_case,
    "dups": _dups_case,
    "sections": _sections_case,
    "cells": _cells_case,
    "prose-log": _prose_log_case,
    "structure": _structure_case,
    "crisscross": _crisscross_case,
    "big": _big_case,
}


def adv_case(seed: int, family: str | None = None) -> tuple[bytes, bytes, bytes, int, dict]:
    """One adversarial case: (base, ours, theirs, marker size, `run_one` options)."""
    rnd = random.Random(seed)
    name = family or rnd.choice(sorted(FAMILIES))
    o, a, b, kw = FAMILIES[name](rnd)
    if rnd.random() < 0.15:
        o, a, b = noise(rnd, o), noise(rnd, a), noise(rnd, b)
    if rnd.random() < 0.05:
        o, a, b = (b"\xef\xbb\xbf" + x for x in (o, a, b))
    size = rnd.choice([7, 7, 7, rnd.randint(1, 50)])
    return o, a, b, size, kw
