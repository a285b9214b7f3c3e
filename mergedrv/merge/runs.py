"""Folded rows (`model.Run`: stretches no side changed) in the keyed merge:
whether the rows one side added, placed in key order, land as they would
among the rows the runs stand for (`placed_alike`)."""

from __future__ import annotations

from ..model import Run, Table
from .keyless import row_key
from .placement import first_key, key_order, sorted_by
from .sides import Side

TYPE_CHECKING = False  # typing is not imported on the driver's path (it costs a few ms)
if TYPE_CHECKING:
    from .placement import Pending


def placed_alike(keys: tuple[list[str], list[str], list[str]], table: Table, pending: Pending, first: Side = Side.OURS,
                 forms: dict[str, str] | None = None) -> bool:
    """True unless the table reads sorted (`placement.key_order`: the
    ``pending`` rows of the second side are then placed in key order) and
    either a run's rows are not (the table of rows is not sorted: placed
    otherwise) or such a row sorts between a run's first row and its last
    (it would land inside the run).  ``table``: the first side's."""
    order = key_order(keys, first, pending, forms)
    if order is None:
        return True
    forms = forms or {}
    rows = table.rows
    for n, r in enumerate(rows):
        if type(r) is not Run:
            continue
        inner = _keys_of(r, table)
        if inner is None or n + 1 >= len(rows) or not sorted_by([*inner, forms.get(row_key(rows[n + 1]), row_key(rows[n + 1]))], order):
            return False
        lo, hi = order(inner[0]), order(inner[-1])
        if any(lo <= order(forms.get(first_key(new), first_key(new))) < hi for _, new in pending):
            return False
    return True


def _keys_of(run: Run, table: Table) -> list[str] | None:
    """The key of every row of ``run``, as its parse read them (None if no longer known)."""
    memo = table.key_memo
    if memo is None:
        return None
    keys = list(map(memo.get, run.lines))
    return None if None in keys or keys[0] != run.key else keys  # type: ignore[return-value]
