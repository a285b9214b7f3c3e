"""Replay: a generated history of one table edited by many contributors.

Rounds of parallel branches fork from main; each adds rows (at their sorted
place or at the end), edits a cell, deletes a row, re-aligns the table, or
appends a second row under an old key, or adds a section or a
reference-link definition, and the branches are merged into main
one by one, each merge with plain git and with the driver.  Wherever git's
merge is clean, the driver's is clean too, with the same rows (compared by
key and cell text: padding may follow a re-alignment) and the same prose.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mergedrv import model

from tests.helpers import driver_command, git

PATH = "apis.md"
HEAD = "# Public APIs\n\nA list kept by many hands.\n\n## APIs\n\n| Name | Description | Auth |\n|---|---|---|\n"
TAIL = "\n## Contributing\n\nAdd a row in alphabetical order.\n"
WORDS = ["alpaca", "Badger", "camel", "Dingo", "eagle", "Ferret", "gecko", "Heron", "ibis", "Jackal", "koala", "Lemur",
         "marmot", "Newt", "ocelot", "Puffin", "quail", "Raven", "salmon", "Tapir", "urchin", "Vole", "walrus", "Yak", "zebra"]


def key_cell(name: str, rng: random.Random) -> str:
    return f"[{name}](https://example.org/{name.lower()})" if rng.random() < 0.5 else name


def render(rows: list[list[str]]) -> str:
    return HEAD + "".join(f"| {' | '.join(r)} |\n" for r in rows) + TAIL


def parse(text: str) -> list[list[str]]:
    doc = model.parse(text.encode(), "Name")
    return [[c.decode().strip() for c in model.split_cells(r.lines[0]).cells] for r in doc.rows()]


def realign(text: str) -> str:
    lines = text.splitlines(keepends=True)
    start = lines.index("| Name | Description | Auth |\n")
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    cells = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines[start:end]]
    widths = [max(len(r[i]) for r in cells if i < len(r)) for i in range(3)]
    out = []
    for n, r in enumerate(cells):
        if n == 1:
            out.append("| " + " | ".join("-" * w for w in widths) + " |\n")
        else:
            out.append("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |\n")
    return "".join(lines[:start] + out + lines[end:])


def contribute(text: str, rng: random.Random, op: str, avoid: set[str]) -> tuple[str, str | None]:
    """One contributor's change; returns the text and the key it duplicated."""
    lines = text.splitlines(keepends=True)
    rows = [i for i, ln in enumerate(lines) if ln.startswith("| ") and i > 7 and not ln.startswith("| Name")]
    keys = {i: model.key_of(lines[i].encode(), 0, 0) for i in rows}
    free = [i for i in rows if keys[i] not in avoid]
    if op == "add":
        present = {k.casefold() for k in keys.values()}
        fresh = [w for w in WORDS if w.casefold() not in present and w not in avoid]
        if fresh:
            name = rng.choice(fresh)
            line = f"| {key_cell(name, rng)} | {name} things | {rng.choice(['none', 'apiKey', 'OAuth'])} |\n"
            place = next((i for i in rows if keys[i].casefold() > name.casefold()), rows[-1] + 1)
            if rng.random() < 0.2:
                place = rows[-1] + 1  # appended at the end, as many do
            lines.insert(place, line)
            avoid.add(name)
    elif op == "edit" and free:
        i = rng.choice(free)
        cells = lines[i].rstrip("\n").split("|")
        cells[2] = f" {cells[2].strip()} v{rng.randrange(100)} "
        lines[i] = "|".join(cells) + "\n"
        avoid.add(keys[i])
    elif op == "delete" and len(free) > 4:
        i = rng.choice(free)
        avoid.add(keys[i])
        del lines[i]
    elif op == "dup" and free:
        i = rng.choice(free)
        avoid.add(keys[i])
        cells = lines[i].rstrip("\n").split("|")
        cells[2] = f" {cells[2].strip()} (mirror) "
        lines.insert(rows[-1] + 1, "|".join(cells) + "\n")  # the same name listed twice
        return "".join(lines), keys[i]
    elif op == "realign":
        return realign(text), None
    elif op == "section":  # a new section before the closing one
        name = rng.choice(WORDS)
        at = lines.index("## Contributing\n")
        lines[at:at] = [f"### Notes on {name} {rng.randrange(1000)}\n", "\n", f"Some words about {name}.\n", "\n"]
    elif op == "refdef":  # a reference-link definition at the end of the file
        name = rng.choice(WORDS)
        lines.append(f"[{name.lower()}-{rng.randrange(1000)}]: https://example.org/{name.lower()}\n")
    return "".join(lines), None


def merge_both_ways(repo: Path, branch: str) -> tuple[tuple[int, str], tuple[int, str]]:
    """(exit code, file) of git's own merge and of the driver's, both aborted."""
    got = []
    for wired in (False, True):
        extra = ["-c", f"merge.keyed.driver={driver_command()}"] if wired else []
        rc = git(repo, *extra, "merge", "--no-ff", "--no-commit", "-q", branch, check=False).returncode
        got.append((rc, (repo / PATH).read_text()))
        if wired and rc == 0:
            git(repo, "commit", "-qm", f"merge {branch}")
        else:
            git(repo, "merge", "--abort", check=False)
            git(repo, "reset", "-q", "--hard")
    return got[0], got[1]


def same_rows(x: str, y: str) -> bool:
    """The same rows (by cell text) and the same prose around the table."""
    prose = [[ln for ln in t.splitlines() if not ln.startswith("|")] for t in (x, y)]
    return sorted(map(tuple, parse(x))) == sorted(map(tuple, parse(y))) and prose[0] == prose[1]


@pytest.mark.parametrize("seed", range(1, 9))
def test_wherever_git_is_clean_the_driver_is_clean_with_the_same_rows(repo, seed):
    rng = random.Random(seed)
    (repo / ".mergedrv.toml").write_text(f'[[record]]\nname = "API"\npath = "{PATH}"\nkey = "Name"\n')
    (repo / ".gitattributes").write_text(f"{PATH} merge=keyed\n")
    names = sorted(rng.sample(WORDS, 12), key=str.casefold)
    base = render([[key_cell(n, rng), f"{n} things", "none"] for n in names])
    (repo / PATH).write_text(base)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    plans = [
        ["add", "add", "edit", "dup", "refdef"],
        ["realign", "add", "edit", "delete", "section"],
        ["add", "edit", "section", "add", "refdef", "delete", "edit"],
    ]
    compared = wins = 0
    for rnd, ops in enumerate(plans):
        fork = git(repo, "rev-parse", "HEAD").stdout.strip()
        avoid: set[str] = set()
        branches = []
        for n, op in enumerate(ops):
            branch = f"r{rnd}-{n}-{op}"
            git(repo, "checkout", "-qb", branch, fork)
            text, _ = contribute((repo / PATH).read_text(), rng, op, avoid)
            if rng.random() < 0.5:  # a second commit by the same contributor
                text, _ = contribute(text, rng, rng.choice(["add", "edit"]), avoid)
            (repo / PATH).write_text(text)
            git(repo, "commit", "-qam", f"{branch}")
            branches.append(branch)
        git(repo, "checkout", "-q", "main")
        for branch in branches:
            (git_rc, git_text), (drv_rc, drv_text) = merge_both_ways(repo, branch)
            if git_rc == 0:
                compared += 1
                assert drv_rc == 0, f"{branch}: git merged cleanly, the driver conflicted:\n{drv_text}"
                assert same_rows(git_text, drv_text), f"{branch}:\ngit:\n{git_text}\ndriver:\n{drv_text}"
            elif drv_rc == 0:
                wins += 1  # git conflicted; the driver merged (and its result is committed)
    assert compared + wins >= 4, (compared, wins)


def test_markers_committed_on_one_side_merge_as_cleanly_as_git(repo):
    (repo / ".mergedrv.toml").write_text(f'[[record]]\nname = "API"\npath = "{PATH}"\nkey = "Name"\n')
    (repo / ".gitattributes").write_text(f"{PATH} merge=keyed\n")
    base = render([["alpaca", "a", "none"], ["Badger", "b", "none"], ["camel", "c", "none"]])
    (repo / PATH).write_text(base)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "bad-resolution")
    bad = base.replace("Add a row in alphabetical order.\n", "<<<<<<< HEAD\nAdd a row in alphabetical order.\n=======\nAdd a row.\n>>>>>>> other\n")
    (repo / PATH).write_text(bad)
    git(repo, "commit", "-qam", "a resolution that kept the markers")
    git(repo, "checkout", "-q", "main")
    (repo / PATH).write_text(base.replace("| Badger | b | none |", "| Badger | b | apiKey |"))
    git(repo, "commit", "-qam", "edit Badger")
    (git_rc, git_text), (drv_rc, drv_text) = merge_both_ways(repo, "bad-resolution")
    assert git_rc == 0 and (drv_rc, drv_text) == (0, git_text)
