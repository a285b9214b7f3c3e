"""Folded rows (`rowruns.Fold`, issue #10 item 11): a merge that folds the
stretches no side changed into `Run` rows gives, byte for byte, the result
(conflicts, notes, fallback) of the merge that reads every row; and a
table of a million tiny rows merges in bounded memory."""

from __future__ import annotations

import os
import random
import tracemalloc

import pytest

from mergedrv import model
from mergedrv.model import folding as rowruns
from mergedrv.merge import Markers, Options, merge
from tests.fuzz_adversarial import adv_case
from tests.fuzz_gen import case, mixed_case
from tests.helpers import tiny_rows
from tests.merge.test_cases import CASES, run_case

SEEDS = int(os.environ.get("MERGEDRV_RUNS_SEEDS", "150"))


def _outcome(result):
    return result.data, [(c.kind, c.key, c.why, c.line) for c in result.conflicts], result.notes, result.fallback


@pytest.fixture
def folding(monkeypatch):
    """Run a merge with folding forced on the smallest files and stretches,
    and without folding; count the merges that folded some rows."""
    folded = []
    parse = model.parse_many

    def counted(*args, **kw):
        docs = parse(*args, **kw)
        folded.append(docs[0].elided is not None)
        return docs

    monkeypatch.setattr(model, "parse_many", counted)

    def both(run):
        monkeypatch.setattr(rowruns, "MIN_LINES", 0)
        monkeypatch.setattr(rowruns, "MIN_RUN", 3)
        folded.clear()
        with_runs = _outcome(run())
        used = any(folded)
        monkeypatch.setattr(rowruns, "MIN_LINES", 10**12)
        return with_runs, _outcome(run()), used

    return both


def test_the_case_corpus_merges_alike_folded(folding):
    used = 0
    for path in CASES:
        folded, whole, hit = folding(lambda: run_case(path)[1])
        assert folded == whole, path.name
        used += hit
    assert used >= 5  # the fold was taken, not only offered (a sorted table is not folded)


@pytest.mark.parametrize("gen", ["rows", "classic", "mixed", "adversarial"])
def test_fuzzed_merges_alike_folded(folding, gen):
    used = 0
    for seed in range(920000, 920000 + (SEEDS if gen != "rows" else 4 * SEEDS)):
        kw: dict = {}
        if gen == "rows":
            o, a, b, kw = _row_edits(seed)
            size = 7
        elif gen == "classic":
            o, a, b, size = case(seed)
        elif gen == "mixed":
            o, a, b, size = mixed_case(seed)
        else:
            o, a, b, size, kw = adv_case(seed, None)
        opts = Options(markers=Markers(size), key=kw.get("key", "ID"))
        opts.key_pattern = kw.get("pattern")
        folded, whole, hit = folding(lambda: merge(o, a, b, opts))
        assert folded == whole, seed
        used += hit
    if gen == "rows":  # the other generators change more than rows: they check that folding stays out of the way
        assert used >= SEEDS // 2


def _row_edits(seed: int) -> tuple[bytes, bytes, bytes, dict]:
    """Tables at the margin whose sides change rows only (so that folding
    applies): cells edited, rows deleted, added (new keys, keys of other
    tables or rows, keyless lines), moved; sorted or not, under shared or
    own headings, one or two key columns."""
    rnd = random.Random(seed)
    two = rnd.random() < 0.2
    blocks = []
    for t in range(rnd.randint(1, 4)):
        if rnd.random() < 0.7:
            blocks.append([f"## {rnd.choice(['A', f'H{t}', f'H{t}'])}\n", "\n"])
        col = "ID" if not two or rnd.random() < 0.5 else "Ref"
        rows = [f"| {col} | v | w |\n", "|---|---|---|\n"]
        n = rnd.randint(0, 40)
        pool = range(100 * t, 100 * t + 100) if rnd.random() < 0.85 else range(100)  # (keys of other tables now and then)
        keys = sorted(rnd.sample(pool, n)) if rnd.random() < 0.4 else rnd.sample(pool, n)
        for k in keys:
            rows.append(f"| K{k} | {rnd.choice('abc')} | x |\n" if rnd.random() < 0.95 else f"| | **group {k}** | |\n")
        blocks.append(rows + (["\n", f"para {t}\n", "\n"] if rnd.random() < 0.8 else ["\n"]))
    base = [line for b in blocks for line in b]

    def edit() -> list[str]:
        lines = list(base)
        rowish = [i for i, x in enumerate(lines) if x.startswith("| ") and not x.startswith(("| ID", "| Ref")) and "---" not in x]
        for _ in range(rnd.randint(0, 4)):
            if not rowish:
                break
            i = rnd.choice(rowish)
            what = rnd.random()
            if what < 0.3:
                lines[i] = lines[i].replace("| x |", f"| {rnd.choice('xyz')}{rnd.randint(0, 9)} |")
            elif what < 0.5 and len(rowish) > 3:
                lines[i] = None  # type: ignore[call-overload]
            elif what < 0.8:
                k = rnd.choice([f"K{rnd.randint(0, 420)}", f"N{rnd.randint(0, 5)}", ""])
                lines.insert(i + rnd.randint(0, 1), f"| {k} | {rnd.choice('abc')} | n |\n")
            else:
                j = rowish[0] if rnd.random() < 0.3 else min(i + 2, len(lines) - 1)  # a move, far or near
                lines[i], lines[j] = lines[j], lines[i]
            rowish = [j for j, x in enumerate(lines) if x and x.startswith("| ") and not x.startswith(("| ID", "| Ref")) and "---" not in x]
        return [x for x in lines if x is not None]

    o, a, b = ("".join(x).encode() for x in (base, edit(), edit()))
    return o, a, b, {"key": ("ID", "Ref") if two else "ID"}


def test_two_hundred_thousand_tiny_rows_merge_in_bounded_memory():
    n = 200_000
    o, a, b = (tiny_rows(n, s) for s in ("base", "ours", "theirs"))
    want = tiny_rows(n, "ours").replace(b"| K%d | v |" % (2 * n // 3), b"| K%d | theirs |" % (2 * n // 3)) + b"| K-theirs | new |\n"
    assert merge(o, a, b, Options(key="ID")).data == want  # (untraced: the caches of a merge of these versions filled)
    tracemalloc.start()
    try:
        result = merge(o, a, b, Options(key="ID"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.data == want and not result.conflicts and result.fallback is None
    # three versions of 3 MB each: about 50 MB; a row object per row of each version took over 200 MB
    assert peak < 100e6, f"{peak / 1e6:.0f} MB"


def test_a_row_tying_with_one_of_a_run_keeps_its_authors_place(monkeypatch):
    # keys sorted ignoring case: theirs adds A20 before a20, which it sorts
    # equal to; key order cannot tell which goes first, so it goes after its
    # neighbour in theirs (a19), as git's merge puts it.  Placed in key order
    # it would sort inside the run a20..a38 ours and theirs left alone, so
    # the folded merge is refused and the rows are merged one by one.
    rows = [f"| a{i:02d} | v |\n" for i in range(1, 41)]
    base = "| ID | v |\n|---|---|\n" + "".join(rows)
    ours = base.replace("| a05 | v |", "| a05 | ours |")
    theirs = base.replace("| a20 | v |", "| A20 | new |\n| a20 | v |")
    verdicts, result = _folds_refused(monkeypatch, base, ours, theirs)
    assert verdicts[0] is False  # the folded merge was refused ...
    assert result.data == ours.replace("| a20 | v |\n", "| A20 | new |\n| a20 | v |\n").encode()


def test_a_run_out_of_order_in_a_table_read_sorted_is_merged_as_rows(monkeypatch):
    # a10 and a11 change places inside the run a01..a24: the table of rows is
    # not sorted (theirs' a25b then goes after ours' a25c, both after a25),
    # though the folded one reads sorted (which would put a25b first)
    rows = [f"| a{i:02d} | v |\n" for i in range(1, 41)]
    rows[9], rows[10] = rows[10], rows[9]
    base = "| ID | v |\n|---|---|\n" + "".join(rows)
    ours = base.replace("| a25 | v |\n", "| a25 | v |\n| a25c | ours |\n")
    theirs = base.replace("| a25 | v |\n", "| a25 | v |\n| a25b | theirs |\n")
    verdicts, result = _folds_refused(monkeypatch, base, ours, theirs)
    assert verdicts[0] is False
    assert result.data == ours.replace("| a25c | ours |\n", "| a25c | ours |\n| a25b | theirs |\n").encode()


def _folds_refused(monkeypatch, base: str, ours: str, theirs: str):
    """The merge with folding forced on every stretch of three rows, the
    verdicts of `runs.placed_alike`, and the same result unfolded."""
    from mergedrv.merge import runs

    verdicts: list[bool] = []
    placed = runs.placed_alike
    monkeypatch.setattr(runs, "placed_alike", lambda *a: verdicts.append(placed(*a)) or verdicts[-1])
    monkeypatch.setattr(rowruns, "MIN_LINES", 0)
    monkeypatch.setattr(rowruns, "MIN_RUN", 3)
    result = merge(base.encode(), ours.encode(), theirs.encode(), Options(key="ID"))
    monkeypatch.setattr(rowruns, "MIN_LINES", 10**12)
    assert merge(base.encode(), ours.encode(), theirs.encode(), Options(key="ID")).data == result.data
    return verdicts, result
