"""`mergedrv init` proposes each shape of a real record set when it finds it
(issue #12 item 6, issue #14): a second key column, detached rows, a section
grid, a prose log, and prose counts whose words wrap onto the next line.
Each proposal is run through `mergedrv check` on the unedited tree, then a
mutation it exists to catch must be reported."""

from __future__ import annotations

import re

from mergedrv import config
from mergedrv.commands import init

from .helpers import git
from .install_helpers import commit, mergedrv


def check(repo, *args):
    return mergedrv(repo, "check", "--only", ",".join(init.CHECKED), *args)


def proposed(repo):
    proc = mergedrv(repo, "init")
    assert proc.returncode == 0, proc.stderr
    git(repo, "add", ".mergedrv.toml")
    git(repo, "commit", "-qm", "config")
    return config.load(repo / ".mergedrv.toml"), re.sub(r"\n#\s+", " ", (repo / ".mergedrv.toml").read_text())


# --- a prose count wrapped across lines (#14) -------------------------------------


def _tracker(n_ready: int, n_done: int, prose: str) -> str:
    rows = "".join(f"| `TRK-{i}` | item {i} | `{'READY' if i <= n_ready else 'DONE'}` |\n" for i in range(1, n_ready + n_done + 1))
    return f"# Tracker\n\n{prose}\n\n| ID | Item | State |\n|---|---|---|\n{rows}"


WRAPPED = ("Every item of the project is listed below: all {total}\nentries are tracked here, and `READY` holds {ready}\n"
           "of them so far; the others are done.")


def test_a_count_whose_words_wrap_onto_the_next_line(repo):
    for ready, done in ((10, 2), (11, 3), (12, 3)):
        commit(repo, {"tracker.md": _tracker(ready, done, WRAPPED.format(total=ready + done, ready=ready))}, f"{ready}")
    cfg, text = proposed(repo)
    rec = cfg.record_for("tracker.md")
    assert [(c.pattern, c.where) for c in rec.counts] == [
        (r"(\d+)\s+entries\s+are\s+tracked", {}),
        (r"(\d+)\s+of\s+them\s+so", {"State": ["READY"]}),
    ]
    assert "line 3 says 15: the number of all rows" in text
    assert check(repo).returncode == 0, check(repo).stdout
    good = (repo / "tracker.md").read_text()
    # re-wrapped: the patterns still match
    (repo / "tracker.md").write_text(good.replace("all 15\nentries are tracked here", "all 15 entries\nare tracked here"))
    assert check(repo).returncode == 0, check(repo).stdout
    (repo / "tracker.md").write_text(good.replace("all 15\n", "all 16\n"))
    assert "count '(\\d+)\\s+entries\\s+are\\s+tracked' says 16, the rows give 15" in check(repo).stdout
    (repo / "tracker.md").write_text(good.replace("holds 12\n", "holds 11\n"))
    assert "says 11, the rows give 12" in check(repo).stdout
