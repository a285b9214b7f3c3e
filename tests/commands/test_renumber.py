"""`mergedrv renumber --onto REF` and numbered keys' double definitions (issue #22), with real git:
a merge, a rebase and each rewrite case."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import commit, git, keyed_repo
from tests.install_helpers import mergedrv

CONFIG = """\
[[record]]
name = "ADR"
path = "docs/adr/index.md"
key = "ID"
key_pattern = '^ADR-[0-9]{4}$'
"""
INDEX = "docs/adr/index.md"
HEAD = "# Decisions\n\n| ID | Decision | File |\n|---|---|---|\n"
ROW11 = "| ADR-0011 | use w | [ADR-0011](0011-use-w.md) |\n"
ROW12 = "| ADR-0012 | use x | [ADR-0012](0012-use-x.md) |\n"


def adr_row(n: str, title: str) -> str:
    return f"| ADR-{n} | {title} | [ADR-{n}]({n}-{title.replace(' ', '-')}.md) |\n"


def decision(n: str, title: str) -> str:
    return f"# ADR-{n}: {title}\n\nWe {title}.\n"


@pytest.fixture
def adr(tmp_path) -> Path:
    """main with ADR-0012; branch `b` takes ADR-0013 (decision file, README
    reference); then main takes ADR-0013 too."""
    repo = keyed_repo(tmp_path / "adr", CONFIG)
    commit(repo, "decisions", {".gitattributes": "*.md merge=keyed\n", ".mergedrv.toml": CONFIG, INDEX: HEAD + ROW12,
                               "docs/adr/0012-use-x.md": decision("0012", "use x"), "README.md": "# P\n\nSee ADR-0012.\n",
                               "docs/todo.md": "ADR-0013 is next.\n"})
    git(repo, "switch", "-q", "-c", "b")
    commit(repo, "b: ADR-0013", {INDEX: HEAD + ROW12 + adr_row("0013", "use z"), "docs/adr/0013-use-z.md": decision("0013", "use z"),
                                 "README.md": "# P\n\nSee ADR-0012.\nThe cache follows ADR-0013.\n"})
    git(repo, "switch", "-q", "main")
    commit(repo, "main: ADR-0013", {INDEX: HEAD + ROW12 + adr_row("0013", "use y"), "docs/adr/0013-use-y.md": decision("0013", "use y")})
    return repo


def test_both_branches_take_adr_0013_conflict_names_the_next_number_then_renumber_makes_the_merge_clean(adr):
    proc = git(adr, "merge", "-q", "--no-edit", "b", check=False)
    assert proc.returncode != 0
    line = next(x for x in proc.stderr.splitlines() if "double-definition" in x)
    assert line.startswith(f"{INDEX}:6: conflict: double-definition: ADR-0013: ")
    assert "ADR-0014 is the next free number" in line and "mergedrv renumber --onto b" in line
    git(adr, "merge", "--abort")

    git(adr, "switch", "-q", "b")
    ran = mergedrv(adr, "renumber", "--onto", "main")
    assert ran.returncode == 0, ran.stderr
    assert f"{INDEX}:6: ADR-0013 -> ADR-0014" in ran.stdout
    assert "rename docs/adr/0013-use-z.md -> docs/adr/0014-use-z.md" in ran.stdout
    assert git(adr, "status", "--porcelain").stdout == ""  # committed
    assert (adr / INDEX).read_text() == HEAD + ROW12 + "| ADR-0014 | use z | [ADR-0014](0014-use-z.md) |\n"
    assert (adr / "docs/adr/0014-use-z.md").read_text() == decision("0014", "use z")
    assert not (adr / "docs/adr/0013-use-z.md").exists()
    assert (adr / "README.md").read_text() == "# P\n\nSee ADR-0012.\nThe cache follows ADR-0014.\n"

    git(adr, "switch", "-q", "main")
    proc = git(adr, "merge", "-q", "--no-edit", "b", check=False)
    assert proc.returncode == 0, proc.stderr
    assert (adr / INDEX).read_text() == HEAD + ROW12 + adr_row("0013", "use y") + "| ADR-0014 | use z | [ADR-0014](0014-use-z.md) |\n"
    assert (adr / "docs/adr/0013-use-y.md").read_text() == decision("0013", "use y")  # what REF added is untouched
    assert (adr / "docs/adr/0014-use-z.md").exists()


def test_a_rebase_conflicts_with_the_message_then_renumbered_and_squashed_it_replays_cleanly(adr):
    git(adr, "switch", "-q", "b")
    proc = git(adr, "rebase", "main", check=False)
    assert proc.returncode != 0
    assert "ADR-0014 is the next free number" in proc.stdout + proc.stderr
    assert "`mergedrv renumber --onto <branch>`" in proc.stdout + proc.stderr  # a rebase names no branch
    git(adr, "rebase", "--abort")
    assert mergedrv(adr, "renumber", "--onto", "main").returncode == 0
    # a rebase replays each commit, the first still adding ADR-0013: fold the move into it
    git(adr, "reset", "-q", "--soft", "main~1")
    git(adr, "commit", "-qm", "b: ADR-0014")
    proc = git(adr, "rebase", "main", check=False)
    assert proc.returncode == 0, proc.stderr
    keys = [line.split("|")[1].strip() for line in (adr / INDEX).read_text().splitlines()[4:]]
    assert keys == ["ADR-0012", "ADR-0013", "ADR-0014"]


def test_dry_run_prints_the_moves_and_changes_nothing(adr):
    git(adr, "switch", "-q", "b")
    before = git(adr, "rev-parse", "HEAD").stdout
    ran = mergedrv(adr, "renumber", "--onto", "main", "--dry-run")
    assert ran.returncode == 0 and "ADR-0013 -> ADR-0014" in ran.stdout
    assert git(adr, "rev-parse", "HEAD").stdout == before and git(adr, "status", "--porcelain").stdout == ""
    assert (adr / "docs/adr/0013-use-z.md").exists()


def test_a_key_cited_in_another_file_is_rewritten_there(adr):
    git(adr, "switch", "-q", "b")
    commit(adr, "cite", {"notes/plan.md": "Per ADR-0013, and (ADR-0013).\n"})
    assert mergedrv(adr, "renumber", "--onto", "main").returncode == 0
    assert (adr / "notes/plan.md").read_text() == "Per ADR-0014, and (ADR-0014).\n"


def test_a_file_the_branch_did_not_change_is_never_touched(adr):
    git(adr, "switch", "-q", "b")
    commit(adr, "unrelated", {"other.md": "ADR-0013 text\n"})
    assert mergedrv(adr, "renumber", "--onto", "main").returncode == 0
    assert (adr / "other.md").read_text() == "ADR-0014 text\n"  # the branch changed it
    assert (adr / "docs/todo.md").read_text() == "ADR-0013 is next.\n"  # the base's, untouched by the branch


def test_the_decision_file_is_renamed_with_git_mv_and_links_follow(adr):
    git(adr, "switch", "-q", "b")
    body = decision("0013", "use z") + "".join(f"Reason {i}: the cache must be rebuilt on every pin move.\n" for i in range(20))
    commit(adr, "link", {"docs/guide.md": "Read [the cache ADR](adr/0013-use-z.md).\n", "docs/adr/0013-use-z.md": body})
    assert mergedrv(adr, "renumber", "--onto", "main").returncode == 0
    assert (adr / "docs/guide.md").read_text() == "Read [the cache ADR](adr/0014-use-z.md).\n"
    status = git(adr, "show", "--name-status", "-M", "--format=", "HEAD").stdout
    assert re.search(r"^R\d+\tdocs/adr/0013-use-z.md\tdocs/adr/0014-use-z.md$", status, re.M), status
    assert (adr / "docs/adr/0014-use-z.md").read_text() == body.replace("ADR-0013", "ADR-0014")
    assert git(adr, "ls-files", "docs/adr").stdout.split() == ["docs/adr/0012-use-x.md", "docs/adr/0014-use-z.md", "docs/adr/index.md"]


def test_a_key_inside_a_longer_key_is_left_alone(adr):
    git(adr, "switch", "-q", "b")
    commit(adr, "longer", {"notes/long.md": "ADR-00130 and ADR-0013x and ADR-0013.\n"})
    assert mergedrv(adr, "renumber", "--onto", "main").returncode == 0
    assert (adr / "notes/long.md").read_text() == "ADR-00130 and ADR-0013x and ADR-0014.\n"


def test_two_colliding_keys_move_to_two_new_numbers_in_one_pass(tmp_path):
    repo = keyed_repo(tmp_path / "two", CONFIG)
    commit(repo, "base", {".gitattributes": "*.md merge=keyed\n", ".mergedrv.toml": CONFIG, INDEX: HEAD + ROW12})
    git(repo, "switch", "-q", "-c", "b")
    commit(repo, "b", {INDEX: HEAD + ROW12 + adr_row("0013", "use p") + adr_row("0014", "use q"),
                       "notes.md": "ADR-0013 then ADR-0014.\n"})
    git(repo, "switch", "-q", "main")
    commit(repo, "main", {INDEX: HEAD + ROW12 + adr_row("0013", "use y") + adr_row("0014", "use w")})
    git(repo, "switch", "-q", "b")
    ran = mergedrv(repo, "renumber", "--onto", "main")
    assert ran.returncode == 0, ran.stderr
    assert (repo / "notes.md").read_text() == "ADR-0015 then ADR-0016.\n"  # no move fed another
    assert "ADR-0015 | use p" in (repo / INDEX).read_text() and "ADR-0016 | use q" in (repo / INDEX).read_text()
    git(repo, "switch", "-q", "main")
    assert git(repo, "merge", "-q", "--no-edit", "b", check=False).returncode == 0


def test_a_key_ref_added_and_then_removed_does_not_collide(tmp_path):
    repo = keyed_repo(tmp_path / "gone", CONFIG)
    commit(repo, "base", {".gitattributes": "*.md merge=keyed\n", ".mergedrv.toml": CONFIG, INDEX: HEAD + ROW12})
    git(repo, "switch", "-q", "-c", "b")
    commit(repo, "b", {INDEX: HEAD + ROW12 + adr_row("0013", "use z"), "notes.md": "ADR-0013.\n"})
    git(repo, "switch", "-q", "main")
    commit(repo, "main adds", {INDEX: HEAD + ROW12 + adr_row("0013", "use y")})
    commit(repo, "main removes", {INDEX: HEAD + ROW12})
    git(repo, "switch", "-q", "b")
    ran = mergedrv(repo, "renumber", "--onto", "main")
    assert ran.returncode == 0 and "nothing to move" in ran.stdout
    assert (repo / "notes.md").read_text() == "ADR-0013.\n"
    git(repo, "switch", "-q", "main")
    assert git(repo, "merge", "-q", "--no-edit", "b", check=False).returncode == 0


def test_a_key_cited_by_a_row_both_sides_changed_cannot_move(tmp_path):
    config = CONFIG + '\n[[record]]\nname = "ROAD"\npath = "roadmap.md"\nkey = "Track"\n'
    road = "| Track | Decision |\n|---|---|\n| cache | none |\n"
    repo = keyed_repo(tmp_path / "stuck", config)
    commit(repo, "base", {".gitattributes": "*.md merge=keyed\n", ".mergedrv.toml": config, INDEX: HEAD + ROW12, "roadmap.md": road})
    git(repo, "switch", "-q", "-c", "b")
    commit(repo, "b", {INDEX: HEAD + ROW12 + adr_row("0013", "use z"), "roadmap.md": road.replace("none", "ADR-0013 (z)")})
    git(repo, "switch", "-q", "main")
    commit(repo, "main", {INDEX: HEAD + ROW12 + adr_row("0013", "use y"), "roadmap.md": road.replace("none", "ADR-0013 (y)")})
    git(repo, "switch", "-q", "b")
    before = git(repo, "rev-parse", "HEAD").stdout
    ran = mergedrv(repo, "renumber", "--onto", "main")
    assert ran.returncode == 1
    assert f"{INDEX}:6: ADR-0013: cannot move: row cache (roadmap.md:3) cites it" in ran.stderr
    assert git(repo, "rev-parse", "HEAD").stdout == before


def test_errors_exit_2_and_change_nothing(adr):
    assert git(adr, "merge", "-q", "--no-edit", "b", check=False).returncode != 0
    ran = mergedrv(adr, "renumber", "--onto", "b")
    assert ran.returncode == 2 and "a merge is in progress: finish or abort it first (git merge --abort)" in ran.stderr
    git(adr, "merge", "--abort")
    git(adr, "switch", "-q", "b")
    ran = mergedrv(adr, "renumber", "--onto", "no-such-branch")
    assert ran.returncode == 2 and "--onto no-such-branch: not a commit" in ran.stderr and "Traceback" not in ran.stderr
    (adr / "README.md").write_text("dirty\n")
    ran = mergedrv(adr, "renumber", "--onto", "main")
    assert ran.returncode == 2 and "uncommitted changes" in ran.stderr
    assert (adr / "README.md").read_text() == "dirty\n" and (adr / "docs/adr/0013-use-z.md").exists()


def test_next_counts_every_local_and_remote_tracking_branch(adr, tmp_path):
    assert mergedrv(adr, "next", "ADR").stdout == "ADR-0014\n"
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-checkout", str(adr), str(clone))
    git(clone, "switch", "-q", "main")
    git(adr, "switch", "-q", "-c", "far", "main")
    commit(adr, "far", {INDEX: HEAD + ROW12 + adr_row("0013", "use y") + adr_row("0020", "use far")})
    git(adr, "switch", "-q", "main")
    assert mergedrv(adr, "next", "ADR").stdout == "ADR-0021\n"  # a local branch
    git(clone, "fetch", "-q", "origin")
    assert git(clone, "branch", "--list").stdout.split() == ["*", "main"]
    assert mergedrv(clone, "next", "ADR").stdout == "ADR-0021\n"  # a remote-tracking branch only
    ran = mergedrv(clone, "next", "NOPE")
    assert ran.returncode == 2 and "no record named 'NOPE'" in ran.stderr


def test_update_branch_renumber_moves_the_pull_requests_key_then_merges_and_pushes(tmp_path):
    # (two base rows: the table is sorted in all three versions, and stays sorted)
    bare = tmp_path / "forge.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    dev = tmp_path / "dev"
    git(tmp_path, "clone", "-q", str(bare), str(dev))
    git(dev, "switch", "-q", "-c", "main")
    commit(dev, "decisions", {".mergedrv.toml": CONFIG, INDEX: HEAD + ROW11 + ROW12})
    git(dev, "push", "-q", "origin", "main")
    git(dev, "switch", "-q", "-c", "pr")
    commit(dev, "pr: ADR-0013", {INDEX: HEAD + ROW11 + ROW12 + adr_row("0013", "use z"), "docs/adr/0013-use-z.md": decision("0013", "use z"),
                                 "README.md": "Cache: ADR-0013.\n"})
    git(dev, "push", "-q", "-u", "origin", "pr")
    git(dev, "switch", "-q", "main")
    commit(dev, "main: ADR-0013", {INDEX: HEAD + ROW11 + ROW12 + adr_row("0013", "use y"), "docs/adr/0013-use-y.md": decision("0013", "use y")})
    git(dev, "push", "-q", "origin", "main")
    git(dev, "switch", "-q", "pr")
    before = git(dev, "rev-parse", "HEAD").stdout

    ran = mergedrv(dev, "update-branch", "--base", "origin/main")
    assert ran.returncode == 1
    assert "double-definition: ADR-0013" in ran.stdout and "ADR-0014 is the next free number" in ran.stdout
    assert git(dev, "rev-parse", "HEAD").stdout == before and git(bare, "rev-parse", "pr").stdout == before

    ran = mergedrv(dev, "update-branch", "--base", "origin/main", "--renumber")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "ADR-0013 -> ADR-0014" in ran.stdout
    pushed = git(bare, "show", f"pr:{INDEX}").stdout
    assert pushed == HEAD + ROW11 + ROW12 + adr_row("0013", "use y") + adr_row("0014", "use z")
    assert git(bare, "show", "pr:README.md").stdout == "Cache: ADR-0014.\n"
    assert git(bare, "show", "pr:docs/adr/0014-use-z.md").stdout == decision("0014", "use z")
    assert git(bare, "show", "pr:docs/adr/0013-use-y.md").stdout == decision("0013", "use y")
    subjects = git(bare, "log", "--format=%s", "-2", "pr").stdout.splitlines()
    assert subjects[0].startswith("Merge origin/main into pr") and subjects[1].startswith("renumber ADR-0013 -> ADR-0014")


def test_the_action_has_a_renumber_input_passed_to_update_branch():
    import yaml

    action = yaml.safe_load((Path(__file__).resolve().parents[2] / "action.yml").read_text())
    assert action["inputs"]["renumber"]["default"] == "false"
    [step] = [s for s in action["runs"]["steps"] if s.get("id") == "update"]
    assert step["env"]["RENUMBER"] == "${{ inputs.renumber }}"
    assert '[ "${RENUMBER:-false}" = true ] && set -- "$@" --renumber' in step["run"]


def test_a_decision_file_the_row_does_not_link_is_renamed_when_the_branch_added_it_named_by_the_number(tmp_path):
    repo = keyed_repo(tmp_path / "plain", CONFIG)
    commit(repo, "base", {".gitattributes": "*.md merge=keyed\n", ".mergedrv.toml": CONFIG, INDEX: HEAD + ROW12,
                          "docs/adr/00130-old.md": "# old\n"})
    git(repo, "switch", "-q", "-c", "b")
    commit(repo, "b", {INDEX: HEAD + ROW12 + "| ADR-0013 | use z | accepted |\n", "docs/adr/0013-use-z.md": decision("0013", "use z"),
                       "docs/adr/00130-old.md": "# old, see ADR-0013\n"})
    git(repo, "switch", "-q", "main")
    commit(repo, "main", {INDEX: HEAD + ROW12 + "| ADR-0013 | use y | accepted |\n"})
    git(repo, "switch", "-q", "b")
    assert mergedrv(repo, "renumber", "--onto", "main").returncode == 0
    assert git(repo, "ls-files", "docs/adr").stdout.split() == ["docs/adr/00130-old.md", "docs/adr/0014-use-z.md", "docs/adr/index.md"]
    assert (repo / "docs/adr/00130-old.md").read_text() == "# old, see ADR-0014\n"  # changed by the branch: its reference moves, its name stays


def test_update_branch_renumber_with_rebase_is_a_usage_error(adr):
    git(adr, "switch", "-q", "b")
    ran = mergedrv(adr, "update-branch", "--base", "main", "--rebase", "--renumber", "--no-push")
    assert ran.returncode == 2 and "--renumber works with the merge, not --rebase" in ran.stderr and "Traceback" not in ran.stderr
