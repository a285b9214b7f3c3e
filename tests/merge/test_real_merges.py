"""Random three-way merges of the real records, checked against an oracle
that applies SPEC's decision table key by key.

Each side adds rows (new keys, or the same new key as the other side), edits
cells, and deletes rows of the real model matrix and roadmap.  The merge must
produce exactly the oracle's conflicts (no missed conflict, no needless one),
and every clean key exactly once with the oracle's content.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mergedrv import model
from mergedrv.merge import Options, merge

from tests.helpers import DATA, examples

SOURCES = {
    "model-matrix": ("model-matrix.f887c34c.md", "ID"),
    "roadmap": ("roadmap_v1.d85906ae.md", "Block"),
}


def load(name: str):
    fname, key = SOURCES[name]
    data = (DATA / fname).read_bytes()
    doc = model.parse(data, key)
    rows = [r for r in doc.rows() if len(r.lines) == 1]
    return data, key, doc, rows


CACHE = {name: load(name) for name in SOURCES}


def edit(data: bytes, doc: model.Document, plan: dict[int, bytes | None], adds: dict[int, list[bytes]]) -> bytes:
    """Replace (or delete, None) lines by index and insert rows after lines."""
    out = []
    for i, line in enumerate(doc.lines):
        if i in plan:
            if plan[i] is not None:
                out.append(plan[i])
        else:
            out.append(line)
        out.extend(adds.get(i, []))
    return b"".join(out)


def set_cell(line: bytes, column: int, value: bytes) -> bytes:
    cells = model.split_cells(line)
    cells.cells[column] = b" " + value + b" "
    return cells.render()


def new_row(template: bytes, key_col: int, key: str, tag: bytes) -> bytes:
    cells = model.split_cells(template)
    cells.cells[key_col] = f" `{key}` ".encode()
    cells.cells[-1] = b" " + tag + b" "
    return cells.render()


def scenario(name: str, seed: int):
    data, key, doc, rows = CACHE[name]
    rng = random.Random(seed)
    key_col = doc.keyed_tables()[0].key_col
    picked = rng.sample(rows, 12)
    sides = []
    shared_new = [f"NEW-SHARED-{i}" for i in range(2)]
    for side in ("a", "b"):
        plan: dict[int, bytes | None] = {}
        adds: dict[int, list[bytes]] = {}
        for row in picked:
            action = rng.choice(["keep", "keep", "cell", "cell2", "delete"])
            ncells = len(row.cells().cells)
            if action == "delete":
                plan[row.line] = None
            elif action.startswith("cell") and ncells > key_col + 2:
                column = key_col + 1 + (rng.randrange(ncells - key_col - 1) if action == "cell2" else 0)
                value = rng.choice([b"SPIKE", b"DONE", side.encode() + b"-edit"])
                plan[row.line] = set_cell(row.lines[0], column, value)
        for n in range(rng.randrange(3)):
            at = rng.choice(rows)
            if at.line in plan:
                continue
            k = rng.choice([*shared_new, f"NEW-{side}-{n}"])
            tag = rng.choice([b"same", side.encode()])
            adds.setdefault(at.line, []).append(new_row(at.lines[0], key_col, k, tag))
        sides.append(edit(data, doc, plan, adds))
    return name, key, data, sides[0], sides[1]


def by_key(data: bytes, key: str) -> dict[str, list[bytes]]:
    out: dict[str, list[bytes]] = {}
    for row in model.parse(data, key).rows():
        out.setdefault(row.key, []).append(row.text)
    return out


def oracle(o: dict, a: dict, b: dict):
    """SPEC's decision table: (clean rows by key, keys that must conflict)."""
    clean, conflicts = {}, set()
    for k in set(o) | set(a) | set(b):
        vo, va, vb = (x[k][0] if k in x else None for x in (o, a, b))
        if any(len(x.get(k, [])) > 1 for x in (o, a, b)):
            lo, la, lb = (x.get(k, []) for x in (o, a, b))
            if lo == la or lo == lb:  # one side alone touched it: its rows, as they are
                rows = lb if lo == la else la
                if rows:
                    clean[k] = rows if len(rows) > 1 else rows[0]
            else:
                conflicts.add(k)  # a key defined twice in one input, touched by both sides
        elif vo is None:
            if va is not None and vb is not None and va != vb:
                conflicts.add(k)
            else:
                clean[k] = va if va is not None else vb
        elif va is None or vb is None:
            other = vb if va is None else va
            if other is not None and other != vo:
                conflicts.add(k)  # modify/delete
        elif va == vo or va == vb:
            clean[k] = vb
        elif vb == vo:
            clean[k] = va
        else:
            co, ca, cb = (model.split_cells(v).cells for v in (vo, va, vb))
            merged = []
            for x, y, z in zip(co, ca, cb):
                if y == x or y == z:
                    merged.append(z)
                elif z == x:
                    merged.append(y)
                else:
                    merged = None
                    break
            if merged is None:
                conflicts.add(k)
            else:
                cells = model.split_cells(va)
                cells.cells = merged
                clean[k] = cells.render()
    return clean, conflicts


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(SOURCES)), st.integers(0, 2**32))
def test_real_records_merge_like_the_decision_table(source, seed):
    name, key, base, ours, theirs = scenario(source, seed)
    result = merge(base, ours, theirs, Options(key=key))
    assert result.fallback is None
    expected_clean, expected_conflicts = oracle(by_key(base, key), by_key(ours, key), by_key(theirs, key))
    got_conflicts = {c.key for c in result.conflicts}
    assert got_conflicts == expected_conflicts  # no missed conflict, no needless one
    if not result.conflicts:
        got = by_key(result.data, key)
        assert {k: v[0] if len(v) == 1 else v for k, v in got.items()} == expected_clean
        # no silent double definition: a key is defined twice only as one side alone left it
        assert all(len(v) == 1 or isinstance(expected_clean[k], list) for k, v in got.items())
    else:
        text = result.data
        for k, row in expected_clean.items():  # clean keys are there, once, as decided
            for one in row if isinstance(row, list) else [row]:
                assert text.count(one) >= 1, k


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_two_appends_to_one_real_table_merge_clean(name):
    data, key, doc, rows = CACHE[name]
    table = doc.keyed_tables()[0]
    last = table.rows[-1]
    kc = table.key_col
    ours = edit(data, doc, {}, {last.line: [new_row(last.lines[0], kc, "APPEND-OURS", b"o")]})
    theirs = edit(data, doc, {}, {last.line: [new_row(last.lines[0], kc, "APPEND-THEIRS", b"t")]})
    result = merge(data, ours, theirs, Options(key=key))
    assert not result.conflicts
    keys = [r.key for r in model.parse(result.data, key).rows()]
    assert keys.count("APPEND-OURS") == keys.count("APPEND-THEIRS") == 1
    assert keys.index("APPEND-OURS") < keys.index("APPEND-THEIRS")
