"""Folded rows (`model.Run`: stretches no side changed) before the keyed
merge: whether they can stand for their rows in this merge (`fit`)."""

from __future__ import annotations

from .. import model
from .placement import _sort_order


def fit(docs: list[model.Document]) -> bool:
    """False when a table holding runs is sorted in all three versions: the
    rows one side added are then placed in key order, which may fall inside
    a run (the parse then reads the rows one by one; `tables.merge_keyed`
    raises `Unfit` where this misses one)."""
    tables = [d.keyed_tables() for d in docs]
    if not len(tables[0]) == len(tables[1]) == len(tables[2]):
        return False
    for o, a, b in zip(*tables):
        if (o.runs or a.runs or b.runs) and _sort_order((o.keys(), a.keys(), b.keys())) is not None:
            return False
    return True
