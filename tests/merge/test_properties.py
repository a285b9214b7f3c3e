"""Merge invariants on generated tables and edits (hypothesis).

- no key is lost or duplicated against what the three tables say;
- untouched prose stays byte-identical;
- merge(O, O, B) == B and merge(O, A, A) == A, also on the keyed path;
- swapping ours and theirs gives the same keys and row contents;
- also with link and image keys, a duplicate key one side alone added, and
  tables sorted ignoring case (which stay sorted);
- a log takes a change of an old row that one side made.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mergedrv import merge as mergemod
from mergedrv import model
from mergedrv.merge import Options, merge
from tests.helpers import examples

KEYS = [f"K{i:02d}" for i in range(16)]
VALUES = st.sampled_from(["a", "b", "c", "✅", "x \\| y"])
HEAD = "# Doc\n\nUntouched paragraph.\n\n## Table one\n\n| ID | V | W |\n|---|---|---|\n"
MID = "\nMiddle prose line.\n\n## Table two\n\n| ID | V | W |\n|---|---|---|\n"
TAIL = "\nClosing prose.\n"


def render(tables: list[list[tuple[str, str, str]]], tail: str = TAIL) -> bytes:
    body = HEAD + "".join(f"| `{k}` | {v} | {w} |\n" for k, v, w in tables[0])
    body += MID + "".join(f"| `{k}` | {v} | {w} |\n" for k, v, w in tables[1])
    return (body + tail).encode()


@st.composite
def base_tables(draw):
    keys = draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=10))
    split = draw(st.integers(0, len(keys)))
    rows = [(k, draw(VALUES), draw(VALUES)) for k in keys]
    return [rows[:split], rows[split:]]


@st.composite
def edited(draw, tables):
    """Apply a few random edits: add, delete, change a cell, move a row."""
    t = [list(tables[0]), list(tables[1])]
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["add", "delete", "cell", "move"]))
        ti = draw(st.integers(0, 1))
        rows = t[ti]
        present = {r[0] for tt in t for r in tt}
        if op == "add":
            free = [k for k in KEYS if k not in present]
            if free:
                k = draw(st.sampled_from(free))
                rows.insert(draw(st.integers(0, len(rows))), (k, draw(VALUES), draw(VALUES)))
        elif rows and op == "delete":
            rows.pop(draw(st.integers(0, len(rows) - 1)))
        elif rows and op == "cell":
            i = draw(st.integers(0, len(rows) - 1))
            k, v, w = rows[i]
            rows[i] = (k, draw(VALUES), w) if draw(st.booleans()) else (k, v, draw(VALUES))
        elif rows and op == "move":
            row = rows.pop(draw(st.integers(0, len(rows) - 1)))
            t[1 - ti].insert(draw(st.integers(0, len(t[1 - ti]))), row)
    tail = TAIL if draw(st.booleans()) else "\nClosing prose, edited.\n"
    return t, tail


@st.composite
def three_way(draw):
    o = draw(base_tables())
    a, a_tail = draw(edited(o))
    b, b_tail = draw(edited(o))
    return render(o), render(a, a_tail), render(b, b_tail)


def keyed_path(base: bytes, ours: bytes, theirs: bytes) -> mergemod.Result:
    """The keyed merge without the whole-file shortcuts."""
    docs = [model.parse(x, "ID") for x in (base, ours, theirs)]
    return mergemod.merge_documents(docs, Options(key="ID"))[0]


def rows_by_key(data: bytes) -> dict[str, list[bytes]]:
    out: dict[str, list[bytes]] = {}
    for row in model.parse(data, "ID").rows():
        out.setdefault(row.key, []).append(row.text)
    return out


SETTINGS = settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(three_way())
def test_no_key_lost_or_duplicated(case):
    base, ours, theirs = case
    result = merge(base, ours, theirs, Options(key="ID"))
    ro, ra, rb = (rows_by_key(x) for x in case)
    o, a, b = set(ro), set(ra), set(rb)
    deleted = {k for k in o if k not in a or k not in b}
    if result.conflicts:
        # never lose a row either side has, unless the other side deleted it
        # and that side left it as it was in the base
        text = result.data.decode()
        for k in a | b:
            kept_as_base = (ra.get(k) or rb.get(k)) == ro.get(k)
            if not (k in deleted and kept_as_base):
                assert f"`{k}`" in text, k
        return
    merged = rows_by_key(result.data)
    assert set(merged) == (a | b) - deleted
    assert all(len(v) == 1 for v in merged.values())


@SETTINGS
@given(three_way())
def test_untouched_prose_is_byte_identical(case):
    result = merge(*case, Options(key="ID"))
    assert result.data.startswith(b"# Doc\n\nUntouched paragraph.\n\n## Table one\n\n| ID | V | W |\n|---|---|---|\n")
    assert result.data.count(b"\nMiddle prose line.\n\n## Table two\n\n| ID | V | W |\n|---|---|---|\n") == 1


@SETTINGS
@given(three_way())
def test_one_sided_changes_come_through_unchanged(case):
    base, ours, theirs = case
    assert keyed_path(base, base, theirs).data == theirs
    assert keyed_path(base, ours, base).data == ours
    assert keyed_path(base, ours, ours).data == ours
    assert merge(base, base, theirs, Options(key="ID")).data == theirs


@SETTINGS
@given(three_way())
def test_swapping_sides_gives_the_same_keys_and_rows(case):
    base, ours, theirs = case
    ab = merge(base, ours, theirs, Options(key="ID"))
    ba = merge(base, theirs, ours, Options(key="ID"))
    assert bool(ab.conflicts) == bool(ba.conflicts)
    if ab.conflicts:
        assert sorted(c.key for c in ab.conflicts) == sorted(c.key for c in ba.conflicts)
        return
    x, y = rows_by_key(ab.data), rows_by_key(ba.data)
    assert x == y


# --- one-sided duplicate keys, link keys, tables sorted ignoring case ----------

LINKS = ["`{k}`", "[{k}](./{k}.md)", '[{k}](./docs/{k}.md "title")', "![{k}](img/{k}.png)"]


def render_styled(tables, tail: str, styles: dict[str, str]) -> bytes:
    def cell(k: str) -> str:
        return styles.get(k, "`{k}`").format(k=k)

    body = HEAD + "".join(f"| {cell(k)} | {v} | {w} |\n" for k, v, w in tables[0])
    body += MID + "".join(f"| {cell(k)} | {v} | {w} |\n" for k, v, w in tables[1])
    return (body + tail).encode()


@st.composite
def three_way_dups_links(draw):
    """Keys written as links or images (a side may change a target), and one
    side (only) adding a second row under a key it has."""
    o = draw(base_tables())
    styles = {k: draw(st.sampled_from(LINKS)) for k in KEYS}
    a, a_tail = draw(edited(o))
    b, b_tail = draw(edited(o))
    dup_side = draw(st.sampled_from(["a", "b", None]))
    if dup_side is not None:
        t = a if dup_side == "a" else b
        rows = [r for tt in t for r in tt]
        if rows:
            k = draw(st.sampled_from(rows))[0]
            ti = draw(st.integers(0, 1))
            t[ti].insert(draw(st.integers(0, len(t[ti]))), (k, "dup", draw(VALUES)))
    a_styles, b_styles = dict(styles), dict(styles)
    for s in (a_styles, b_styles):
        if draw(st.booleans()):
            k = draw(st.sampled_from(KEYS))
            s[k] = draw(st.sampled_from(LINKS)).replace(".md", "-moved.md")
    return render_styled(o, TAIL, styles), render_styled(a, a_tail, a_styles), render_styled(b, b_tail, b_styles)


@SETTINGS
@given(three_way_dups_links())
def test_duplicates_and_link_keys_lose_no_key(case):
    base, ours, theirs = case
    result = merge(base, ours, theirs, Options(key="ID"))
    assert result.fallback is None
    ro, ra, rb = (rows_by_key(x) for x in case)
    text = result.data.decode()
    deleted = {k for k in ro if k not in ra or k not in rb}
    if result.conflicts:
        for k in set(ra) | set(rb):  # a row is gone only where the other side deleted it untouched
            if not (k in deleted and (ra.get(k) or rb.get(k)) == ro.get(k)):
                assert f"{k}" in text, k
        return
    merged = rows_by_key(result.data)
    assert set(merged) == (set(ra) | set(rb)) - deleted
    for k, rows in merged.items():
        if len(rows) > 1:  # only as the one side that touched it has it
            assert sorted(rows) in (sorted(ra.get(k, [])), sorted(rb.get(k, []))), k
            assert ro.get(k, []) in (ra.get(k, []), rb.get(k, [])), k


@SETTINGS
@given(three_way_dups_links())
def test_duplicates_and_link_keys_one_sided_and_symmetric(case):
    base, ours, theirs = case
    assert keyed_path(base, base, theirs).data == theirs
    assert keyed_path(base, ours, base).data == ours
    ab = merge(base, ours, theirs, Options(key="ID"))
    ba = merge(base, theirs, ours, Options(key="ID"))
    assert sorted(c.key for c in ab.conflicts) == sorted(c.key for c in ba.conflicts)
    if not ab.conflicts:
        x, y = rows_by_key(ab.data), rows_by_key(ba.data)
        assert {k: sorted(v) for k, v in x.items()} == {k: sorted(v) for k, v in y.items()}


WORDS = ["alpha", "Bravo", "charlie", "Delta", "echo", "Foxtrot", "golf", "Hotel", "india", "Juliett", "kilo", "Lima", "mike", "November"]
SORTED_HEAD = "# Glossary\n\n| ID | V |\n|---|---|\n"


def render_sorted(keys: list[str], vals: dict[str, str]) -> bytes:
    return (SORTED_HEAD + "".join(f"| {k} | {vals.get(k, 'v')} |\n" for k in sorted(keys, key=str.casefold)) + "\nEnd.\n").encode()


@st.composite
def sorted_three_way(draw):
    base = draw(st.lists(st.sampled_from(WORDS), unique=True, min_size=2, max_size=8))
    sides = []
    for _ in range(2):
        keys = [k for k in base if not draw(st.booleans()) or len(base) < 3]
        keys += draw(st.lists(st.sampled_from([w for w in WORDS if w not in base]), unique=True, max_size=3))
        vals = {k: draw(st.sampled_from(["v", "w"])) for k in keys}
        sides.append((keys, vals))
    return render_sorted(base, {}), render_sorted(*sides[0]), render_sorted(*sides[1])


@SETTINGS
@given(sorted_three_way())
def test_a_table_sorted_ignoring_case_stays_sorted(case):
    base, ours, theirs = case
    assert keyed_path(base, base, theirs).data == theirs
    result = merge(base, ours, theirs, Options(key="ID"))
    swapped = merge(base, theirs, ours, Options(key="ID"))
    assert sorted(c.key for c in result.conflicts) == sorted(c.key for c in swapped.conflicts)
    ro, ra, rb = (rows_by_key(x) for x in case)
    if result.conflicts:
        return
    keys = [r.key for r in model.parse(result.data, "ID").rows()]
    assert keys == sorted(keys, key=str.casefold)
    deleted = {k for k in ro if k not in ra or k not in rb}
    assert set(keys) == (set(ra) | set(rb)) - deleted and len(keys) == len(set(keys))
    if min(len(ro), len(ra), len(rb)) >= 2:  # a table of one row shows no order
        assert result.data == swapped.data  # a sorted table has one order: the same bytes


LOG_HEAD = "# Spend\n\n| Run | Cost |\n|---|---|\n"


@st.composite
def log_three_way(draw):
    n = draw(st.integers(1, 6))
    base = [f"| {i:02d} | {i}.00 |\n" for i in range(n)]
    ours, theirs = list(base), list(base)
    for side in (ours, theirs):
        for i in draw(st.lists(st.integers(0, n - 1), unique=True, max_size=2)):
            side[i] = f"| {i:02d} | {draw(st.sampled_from(['1.50', '2.50']))} |\n"
        side.extend(f"| {n + j:02d} | {draw(st.sampled_from(['x', 'y']))} |\n" for j in range(draw(st.integers(0, 2))))
    return base, ours, theirs


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log_three_way())
def test_a_log_takes_one_sided_changes_of_old_rows(case):
    base, ours, theirs = case
    n = len(base)
    result = merge(*((LOG_HEAD + "".join(x)).encode() for x in (base, ours, theirs)), Options(log=True))
    both = [i for i in range(n) if base[i] != ours[i] != theirs[i] != base[i]]
    if both:  # a row both sides changed differently: a conflict there, and only there
        assert [c.kind for c in result.conflicts] == ["log"] * len(both)
        return
    appended = ours[n:] + [r for r in theirs[n:] if r not in ours[n:]]
    merged = [theirs[i] if ours[i] == base[i] else ours[i] for i in range(n)]
    assert not result.conflicts
    assert result.data == (LOG_HEAD + "".join(merged + appended)).encode()


# --- mixed CRLF and LF: each line keeps its own ending ---------------------------

MIXED_HEAD = "# Doc\r\n\nUntouched paragraph.\r\n\n## Table one\n\n| ID | V | W |\r\n|---|---|---|\n"
MIXED_MID = "\nMiddle prose line.\r\n\n## Table two\r\n\r\n| ID | V | W |\n|---|---|---|\r\n"


def render_mixed(tables, tail: str, ends: dict[str, str]) -> bytes:
    """The two tables, each row ending as ``ends`` says (CRLF or LF), in prose that mixes both."""
    body = MIXED_HEAD + "".join(f"| `{k}` | {v} | {w} |{ends[k]}" for k, v, w in tables[0])
    body += MIXED_MID + "".join(f"| `{k}` | {v} | {w} |{ends[k]}" for k, v, w in tables[1])
    return (body + tail).encode()


@st.composite
def three_way_mixed(draw):
    """Rows in CRLF or LF each; a side keeps the base's ending of a row, or
    changes it alone or with an edit; rows a side adds take that side's
    ending; a side may change the last line's ending only."""
    o = draw(base_tables())
    base_ends = {k: draw(st.sampled_from(["\n", "\r\n"])) for k in KEYS}
    out = [render_mixed(o, TAIL, base_ends)]
    present = {r[0] for t in o for r in t}
    for _ in range(2):
        t, tail = draw(edited(o))
        style = draw(st.sampled_from(["\n", "\r\n"]))
        ends = {k: (base_ends[k] if k in present else style) for k in KEYS}
        flips = draw(st.lists(st.sampled_from(sorted(present)), unique=True, max_size=3)) if present else []
        for k in flips:  # an ending-only change (with the other side's edits of the row too, often)
            ends[k] = "\r\n" if ends[k] == "\n" else "\n"
        if draw(st.booleans()):
            tail = tail.replace(".\n", ".\r\n")
        out.append(render_mixed(t, tail, ends))
    return tuple(out)


def row_lines(data: bytes) -> dict[str, list[bytes]]:
    out: dict[str, list[bytes]] = {}
    for row in model.parse(data, "ID").rows():
        out.setdefault(row.key, []).append(row.lines[0])
    return out


def _ending(line: bytes) -> bytes:
    return b"\r\n" if line.endswith(b"\r\n") else b"\n"


@SETTINGS
@given(three_way_mixed())
def test_mixed_endings_no_key_lost_or_doubled_and_each_row_keeps_its_ending(case):
    base, ours, theirs = case
    result = merge(base, ours, theirs, Options(key="ID"))
    assert result.fallback is None, result.fallback
    assert result.data.startswith(MIXED_HEAD.encode())  # untouched prose, byte for byte
    ro, ra, rb = (row_lines(x) for x in case)
    deleted = {k for k in ro if k not in ra or k not in rb}
    if result.conflicts:
        text = result.data.decode()
        for k in set(ra) | set(rb):
            if not (k in deleted and (ra.get(k) or rb.get(k)) == ro.get(k)):
                assert f"`{k}`" in text, k
        return
    merged = row_lines(result.data)
    assert set(merged) == (set(ra) | set(rb)) - deleted
    for k, (line,) in merged.items():
        ends = [_ending(r[0]) if r else None for r in (ro.get(k), ra.get(k), rb.get(k))]
        if ends[1] is None or ends[2] is None:  # one side's row: its ending
            assert _ending(line) == (ends[1] or ends[2]), k
        elif ends[0] is not None and ra[k] != ro[k] and rb[k] != ro[k]:  # both changed it: the ending three-way
            want = ends[2] if ends[1] == ends[0] else ends[1]
            assert _ending(line) == want, k
        else:
            assert line in (ra[k][0], rb[k][0]), k  # one side's row, byte for byte


@SETTINGS
@given(three_way_mixed())
def test_mixed_endings_one_sided_changes_come_through_unchanged(case):
    base, ours, theirs = case
    assert keyed_path(base, base, theirs).data == theirs
    assert keyed_path(base, ours, base).data == ours
    assert keyed_path(base, ours, ours).data == ours
