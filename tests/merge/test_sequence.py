"""Sequence columns (issue #22): `sequence = "#"` is renumbered 1..n after a
keyed merge and never conflicts; real git merges, rebases, a pull request
against a bare repository, the `sequence` check and init's proposal."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import commit, git, keyed_repo
from tests.install_helpers import mergedrv

CONFIG = """\
[[record]]
name = "ROAD"
path = "roadmap.md"
key = "Track"
sequence = "#"
"""
HEAD = "# Roadmap\n\n| # | Track | State |\n|---|---|---|\n"
ROWS = [("loader", "done"), ("server", "open"), ("tools", "open")]


def roadmap(*tracks: tuple[str, str], numbers: list[int] | None = None) -> str:
    nums = numbers or list(range(1, len(tracks) + 1))
    return HEAD + "".join(f"| {n} | {t} | {s} |\n" for n, (t, s) in zip(nums, tracks)) + "\nThe end.\n"


@pytest.fixture
def road(tmp_path) -> Path:
    repo = keyed_repo(tmp_path / "road", CONFIG)
    commit(repo, "roadmap", {".gitattributes": "*.md merge=keyed\n", ".mergedrv.toml": CONFIG, "roadmap.md": roadmap(*ROWS)})
    return repo


def _branches(repo: Path, ours: str, theirs: str) -> None:
    git(repo, "switch", "-q", "-c", "b")
    commit(repo, "b", {"roadmap.md": theirs})
    git(repo, "switch", "-q", "main")
    commit(repo, "main", {"roadmap.md": ours})


def test_both_branches_append_a_row_the_merge_is_clean_and_numbered_1_to_n(road):
    _branches(road, roadmap(*ROWS, ("metal", "open")), roadmap(*ROWS, ("rocm", "open")))
    proc = git(road, "merge", "-q", "--no-edit", "b", check=False)
    assert proc.returncode == 0, proc.stderr
    assert (road / "roadmap.md").read_text() == roadmap(*ROWS, ("metal", "open"), ("rocm", "open"))
    assert mergedrv(road, "check", "--all", "--only", "sequence").returncode == 0


def test_plain_git_keeps_two_rows_numbered_4_without_the_option(tmp_path):
    config = CONFIG.replace('sequence = "#"\n', "")
    repo = keyed_repo(tmp_path / "plain", config)
    commit(repo, "roadmap", {".gitattributes": "*.md merge=keyed\n", ".mergedrv.toml": config, "roadmap.md": roadmap(*ROWS)})
    _branches(repo, roadmap(*ROWS, ("metal", "open")), roadmap(*ROWS, ("rocm", "open")))
    git(repo, "merge", "-q", "--no-edit", "b")
    assert "| 4 | metal | open |\n| 4 | rocm | open |\n" in (repo / "roadmap.md").read_text()  # what the option fixes


def test_a_row_inserted_on_one_side_renumbers_the_rest_and_the_other_sides_edits_still_merge(road):
    ours = roadmap(("tokenizer", "open"), *ROWS, ("metal", "open"))  # every old row's number moved
    theirs = roadmap(ROWS[0], ("server", "done"), ("rocm", "open"))  # tools deleted, server edited
    _branches(road, ours, theirs)
    proc = git(road, "merge", "-q", "--no-edit", "b", check=False)
    assert proc.returncode == 0, proc.stderr
    assert (road / "roadmap.md").read_text() == roadmap(("tokenizer", "open"), ROWS[0], ("server", "done"), ("metal", "open"), ("rocm", "open"))


def test_a_rebase_onto_a_base_that_appended_too_is_clean_and_numbered(road):
    _branches(road, roadmap(*ROWS, ("metal", "open")), roadmap(*ROWS, ("rocm", "open")))
    git(road, "switch", "-q", "b")
    proc = git(road, "rebase", "main", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (road / "roadmap.md").read_text() == roadmap(*ROWS, ("metal", "open"), ("rocm", "open"))


def test_a_pull_request_updated_against_the_forge_is_renumbered(tmp_path):
    bare = tmp_path / "forge.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    dev = tmp_path / "dev"
    git(tmp_path, "clone", "-q", str(bare), str(dev))
    git(dev, "switch", "-q", "-c", "main")
    commit(dev, "roadmap", {".mergedrv.toml": CONFIG, "roadmap.md": roadmap(*ROWS)})
    git(dev, "push", "-q", "origin", "main")
    git(dev, "switch", "-q", "-c", "pr")
    commit(dev, "pr", {"roadmap.md": roadmap(*ROWS, ("rocm", "open"))})
    git(dev, "push", "-q", "-u", "origin", "pr")
    git(dev, "switch", "-q", "main")
    commit(dev, "merged meanwhile", {"roadmap.md": roadmap(*ROWS, ("metal", "open"))})
    git(dev, "push", "-q", "origin", "main")
    git(dev, "switch", "-q", "pr")
    ran = mergedrv(dev, "update-branch", "--base", "origin/main")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert git(bare, "show", "pr:roadmap.md").stdout == roadmap(*ROWS, ("rocm", "open"), ("metal", "open"))  # ours first


def test_a_table_numbered_otherwise_is_left_alone_and_reported(road):
    gaps = roadmap(*ROWS, numbers=[1, 2, 5])
    commit(road, "gaps", {"roadmap.md": gaps})
    _branches(road, roadmap(*ROWS, ("metal", "open"), numbers=[1, 2, 5, 6]), roadmap(*ROWS, ("rocm", "open"), numbers=[1, 2, 5, 6]))
    assert git(road, "merge", "-q", "--no-edit", "b", check=False).returncode == 0
    assert (road / "roadmap.md").read_text() == roadmap(*ROWS, ("metal", "open"), ("rocm", "open"), numbers=[1, 2, 5, 6, 6])
    ran = mergedrv(road, "check", "--all", "--only", "sequence")
    assert ran.returncode == 1
    assert "roadmap.md:7: sequence: ROAD: tools: it is numbered 5, but it is row 3 of the table" in ran.stdout


def test_a_row_whose_number_is_not_a_number_is_reported(road):
    commit(road, "odd", {"roadmap.md": roadmap(*ROWS).replace("| 2 | server", "| two | server")})
    ran = mergedrv(road, "check", "--all", "--only", "sequence")
    assert ran.returncode == 1
    assert "roadmap.md:6: sequence: ROAD: server: its # cell 'two' is not a number" in ran.stdout


def test_a_sequence_option_of_the_wrong_type_is_a_configuration_error(road):
    (road / ".mergedrv.toml").write_text(CONFIG.replace('sequence = "#"', "sequence = 1"))
    ran = mergedrv(road, "check")
    assert ran.returncode == 2 and ".mergedrv.toml:5:" in ran.stderr and "sequence" in ran.stderr and "Traceback" not in ran.stderr


def test_init_proposes_sequence_for_a_column_numbered_1_to_n_in_every_version(tmp_path):
    repo = tmp_path / "init"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    rows = [("RD-1", "loader"), ("RD-2", "server"), ("RD-3", "tools"), ("RD-4", "metal"), ("RD-5", "rocm")]
    for n in range(3, 6):
        text = "# Roadmap\n\n| # | ID | Track |\n|---|---|---|\n" + "".join(f"| {i} | {k} | {t} |\n" for i, (k, t) in enumerate(rows[:n], 1))
        commit(repo, f"roadmap {n}", {"roadmap.md": text})
    ran = mergedrv(repo, "init", "--print")
    assert ran.returncode == 0, ran.stderr
    assert 'key = "ID"' in ran.stdout and 'sequence = "#"' in ran.stdout
    commit(repo, "a gap", {"roadmap.md": (repo / "roadmap.md").read_text().replace("| 5 | RD-5", "| 7 | RD-5")})
    assert "sequence =" not in mergedrv(repo, "init", "--print").stdout


def test_a_sequence_column_that_is_the_key_column_is_a_configuration_error(road):
    (road / ".mergedrv.toml").write_text(CONFIG.replace('key = "Track"', 'key = "#"'))
    ran = mergedrv(road, "check")
    assert ran.returncode == 2 and "Traceback" not in ran.stderr
    assert ".mergedrv.toml:5: [record] sequence '#' is a key column" in ran.stderr, ran.stderr


def test_init_keys_a_roadmap_numbered_1_to_n_by_its_names_and_proposes_the_numbers_as_sequence(tmp_path):
    repo = tmp_path / "init"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    def roadmap(names: list[str]) -> dict[str, str]:
        return {"roadmap.md": HEAD + "".join(f"| {i} | Build the {name} well | open |\n" for i, name in enumerate(names, 1))}

    def as_(who: str) -> None:
        git(repo, "config", "user.name", who)
        git(repo, "config", "user.email", f"{who}@example.org")

    as_("ann")
    commit(repo, "roadmap", roadmap(["parser", "merger", "checker"]))
    git(repo, "checkout", "-q", "-b", "topic")
    as_("bob")
    commit(repo, "topic: a first track", roadmap(["driver", "parser", "merger", "checker"]))
    git(repo, "checkout", "-q", "main")
    as_("cat")
    commit(repo, "main: a last track", roadmap(["parser", "merger", "checker", "hooks"]))
    git(repo, "merge", "-q", "topic", "-m", "merge topic", check=False)  # the rows merge; the numbers are written again by hand
    commit(repo, "merge topic", roadmap(["driver", "parser", "merger", "checker", "hooks"]))
    as_("dan")
    commit(repo, "main: the docs track", roadmap(["driver", "parser", "merger", "checker", "hooks", "docs"]))
    ran = mergedrv(repo, "init", "--print")
    assert ran.returncode == 0, ran.stderr
    assert 'key = "Track"' in ran.stdout and 'sequence = "#"' in ran.stdout, ran.stdout
