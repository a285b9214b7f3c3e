"""Merge invariants (hypothesis) on files with two key columns and detached
rows (issue #12): a table keyed by `Block`, detached rows of it below a blank
line, and a table keyed by `#` whose keys are the same values (another
namespace).  For every generated merge: no key lost or duplicated within its
namespace, untouched bytes identical, detached rows both sides left detached
stay detached, merge(O, O, B) == B and merge(O, A, O) == A."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mergedrv import model
from mergedrv.merge import Markers, Options, merge
from tests.helpers import examples

KEYS = [f"K{i:02d}" for i in range(12)]
VALUES = st.sampled_from(["a", "b", "c", "✅", "x \\| y"])
HEAD = "# Doc\n\nUntouched paragraph.\n\n## Blocks\n\n| Block | V | W |\n|---|---|---|\n"
MID = "Prose between, right under the detached rows.\n\n## Tracks\n\n| # | V | W |\n|---|---|---|\n"
TAIL = "\nClosing prose.\n"
KEY = ("Block", "#")
PATTERN = (("Block", "^K[0-9]+$"), ("#", "^K[0-9]+$"))
NAMESPACE = {0: "Block", 1: "Block", 2: "#"}  # table one, its detached rows, table two


def render(t: list[list[tuple[str, str, str]]]) -> bytes:
    rows = ["".join(f"| `{k}` | {v} | {w} |\n" for k, v, w in part) for part in t]
    return (HEAD + rows[0] + "\n" + rows[1] + MID + rows[2] + TAIL).encode()


@st.composite
def base_doc(draw):
    blocks = draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=8))
    split = draw(st.integers(0, len(blocks)))
    tracks = draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=6))
    rows = [(k, draw(VALUES), draw(VALUES)) for k in blocks]
    return [rows[:split], rows[split:], [(k, draw(VALUES), draw(VALUES)) for k in tracks]]


@st.composite
def edited(draw, t):
    t = [list(p) for p in t]
    for _ in range(draw(st.integers(0, 4))):
        op = draw(st.sampled_from(["add", "delete", "cell", "move"]))
        ti = draw(st.integers(0, 2))
        rows = t[ti]
        if op == "add":
            ns = [p for i, p in enumerate(t) if NAMESPACE[i] == NAMESPACE[ti]]
            free = [k for k in KEYS if k not in {r[0] for p in ns for r in p}]
            if free:
                rows.insert(draw(st.integers(0, len(rows))), (draw(st.sampled_from(free)), draw(VALUES), draw(VALUES)))
        elif rows and op == "delete":
            rows.pop(draw(st.integers(0, len(rows) - 1)))
        elif rows and op == "cell":
            i = draw(st.integers(0, len(rows) - 1))
            k, v, w = rows[i]
            rows[i] = (k, draw(VALUES), w) if draw(st.booleans()) else (k, v, draw(VALUES))
        elif rows and op == "move" and ti < 2:  # between the table and its detached rows
            row = rows.pop(draw(st.integers(0, len(rows) - 1)))
            t[1 - ti].insert(draw(st.integers(0, len(t[1 - ti]))), row)
    return t


@st.composite
def three_way(draw):
    o = draw(base_doc())
    return o, draw(edited(o)), draw(edited(o))


def _merge(base: bytes, ours: bytes, theirs: bytes):
    opts = Options(Markers(7, "base", "ours", "theirs"), KEY)
    opts.key_pattern = PATTERN
    return merge(base, ours, theirs, opts)


def _keys(t, ns: str) -> dict[str, tuple[str, str, str]]:
    return {r[0]: r for i, p in enumerate(t) if NAMESPACE[i] == ns for r in p}


SETTINGS = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(three_way())
def test_no_key_lost_or_doubled_in_its_namespace(sides):
    o, a, b = sides
    result = _merge(render(o), render(a), render(b))
    assert result.fallback is None, result.fallback
    if result.conflicts:
        return
    doc = model.parse(result.data, KEY, key_pattern=PATTERN)
    for ns, prefix in (("Block", ""), ("#", "#\x1f")):
        got = [r.key for t in doc.keyed_tables() if t.key_name == ns for r in t.rows]
        assert len(got) == len(set(got)), got
        ko, ka, kb = (_keys(x, ns) for x in (o, a, b))
        want = {k for k in set(ka) | set(kb) if not (k in ko and (k not in ka or k not in kb))}
        assert set(got) == {prefix + k for k in want}
    data = result.data.decode()
    assert data.startswith("# Doc\n\nUntouched paragraph.\n\n## Blocks\n\n") and data.endswith(TAIL)
    assert "\nProse between, right under the detached rows.\n\n## Tracks\n\n" in data
    detached = {r.key for t in doc.keyed_tables() if t.detached is not None for r in t.rows}
    stayed = {r[0] for r in o[1]} & {r[0] for r in a[1]} & {r[0] for r in b[1]}
    assert stayed <= detached


@SETTINGS
@given(three_way())
def test_one_side_unchanged_gives_the_other(sides):
    o, a, _ = sides
    base, ours = render(o), render(a)
    assert _merge(base, base, ours).data == ours
    assert _merge(base, ours, base).data == ours
