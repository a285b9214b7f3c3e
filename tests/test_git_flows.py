"""Real git flows in a repository wired by `mergedrv install`: merge, rebase, cherry-pick, pull --rebase."""

from __future__ import annotations

import pytest

from tests.helpers import git
from tests.install_helpers import (
    BASE_MODELS,
    BASE_ROAD,
    CONFIG,
    LEDGER,
    LEDGER_TEXT,
    MATRIX,
    ROADMAP,
    commit,
    install,
    keys,
    keys_at,
    matrix,
    mergedrv,
    model_row,
    road_row,
    roadmap,
    seed,
)


@pytest.fixture
def wired(repo):
    seed(repo)
    install(repo)
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "--no-verify", "-m", "mergedrv install")
    return repo


def test_a_double_definition_conflicts_as_the_spec_says(wired):
    repo = wired
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, {MATRIX: matrix(*BASE_MODELS, model_row("MODEL-TEXT-glm4", "Glm4ForCausalLM", "INVENTORIED"))}, "bob")
    git(repo, "checkout", "-q", "main")
    glm_main = model_row("MODEL-TEXT-glm4", "Glm4ForCausalLM", "SPIKE", "alice")
    commit(repo, {MATRIX: matrix(BASE_MODELS[0], glm_main, *BASE_MODELS[1:])}, "alice")
    proc = git(repo, "merge", "--no-verify", "topic", check=False)
    assert proc.returncode != 0
    assert f"{MATRIX}:" in proc.stderr and ": conflict: double-definition: MODEL-TEXT-glm4: " in proc.stderr
    text = (repo / MATRIX).read_text()
    assert text.count("<<<<<<< ") == 1 and text.count(">>>>>>> ") == 1
    block = text[text.index("<<<<<<<") : text.index(">>>>>>>")]
    assert "`SPIKE` | alice" in block and "`INVENTORIED` | unassigned" in block
    assert "MODEL-TEXT-m1" not in block  # only the conflicting rows are wrapped
    assert git(repo, "diff", "--name-only", "--diff-filter=U").stdout.split() == [MATRIX]
    git(repo, "merge", "--abort")


def test_a_clean_keyed_merge_of_every_kind_of_file(wired):
    repo = wired
    pinned = CONFIG.replace('key = "Block"\n', 'key = "Block"\npin = 5\n').replace('key_pattern', 'pin = 4\nkey_pattern')
    commit(repo, {".mergedrv.toml": pinned}, "pins")
    git(repo, "checkout", "-q", "-b", "topic")
    commit(
        repo,
        {
            ROADMAP: roadmap(*BASE_ROAD, road_row(13, "ROAD-V1-D4")),
            LEDGER: LEDGER_TEXT + "| 2026-07-04 `bbb` | topic |\n",
            ".mergedrv.toml": pinned.replace("pin = 5", "pin = 6"),
        },
        "topic",
    )
    git(repo, "checkout", "-q", "main")
    commit(
        repo,
        {
            ROADMAP: roadmap(*BASE_ROAD, road_row(14, "ROAD-V1-D5")),
            MATRIX: matrix(*BASE_MODELS, model_row("MODEL-TEXT-m9", "M9")),
            LEDGER: LEDGER_TEXT + "| 2026-07-03 `aaa` | main |\n",
            ".mergedrv.toml": pinned.replace("pin = 5", "pin = 6").replace("pin = 4", "pin = 5"),
        },
        "main",
    )
    proc = git(repo, "merge", "--no-verify", "--no-edit", "topic", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert keys((repo / ROADMAP).read_text(), "Block")[-2:] == ["ROAD-V1-D4", "ROAD-V1-D5"]
    ledger = (repo / LEDGER).read_text()
    assert ledger.index("`aaa`") < ledger.index("`bbb`")
    cfg = (repo / ".mergedrv.toml").read_text()
    assert "pin = 7" in cfg and "pin = 5" in cfg  # ROAD: 5 + 1 + 1 as a counter; MODEL moved once


def test_rebase_of_several_record_commits_loses_and_duplicates_nothing(wired):
    repo = wired
    git(repo, "checkout", "-q", "-b", "topic")
    mine = [model_row(f"MODEL-TEXT-t{i}", f"T{i}") for i in range(1, 4)]
    road = list(BASE_ROAD)
    for i in range(3):
        road[i] = road[i].replace("`PARTIAL`", "`DONE`")
        commit(repo, {MATRIX: matrix(*BASE_MODELS, *mine[: i + 1]), ROADMAP: roadmap(*road, *[road_row(20 + j, f"ROAD-V1-T{j}") for j in range(i + 1)])}, f"topic {i}")
    git(repo, "checkout", "-q", "main")
    upstream_models = [model_row("MODEL-TEXT-u1", "U1"), model_row("MODEL-TEXT-u2", "U2")]
    upstream_road = list(BASE_ROAD)
    upstream_road[3] = upstream_road[3].replace("`PARTIAL`", "`ACTIVE`")  # next to topic's edits
    commit(repo, {MATRIX: matrix(*BASE_MODELS, *upstream_models), ROADMAP: roadmap(*upstream_road, road_row(30, "ROAD-V1-U1"))}, "upstream")
    upstream = git(repo, "rev-parse", "HEAD").stdout.strip()
    git(repo, "checkout", "-q", "topic")
    proc = git(repo, "rebase", "main", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rewritten = git(repo, "rev-list", "--reverse", f"{upstream}..HEAD").stdout.split()
    assert len(rewritten) == 3
    base_models = keys_at(repo, upstream, MATRIX, "ID")
    base_road = keys_at(repo, upstream, ROADMAP, "Block")
    for i, sha in enumerate(rewritten):
        models = keys_at(repo, sha, MATRIX, "ID")
        assert len(models) == len(set(models))
        assert set(models) == set(base_models) | {f"MODEL-TEXT-t{j}" for j in range(1, i + 2)}
        blocks = keys_at(repo, sha, ROADMAP, "Block")
        assert len(blocks) == len(set(blocks))
        assert set(blocks) == set(base_road) | {f"ROAD-V1-T{j}" for j in range(i + 1)}
    final = (repo / ROADMAP).read_text()
    assert final.count("`DONE`") == 3 and "| 4 | `ROAD-V1-C4` | area 4 | `ACTIVE` |" in final


def test_cherry_pick_with_the_driver(wired):
    repo = wired
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, {ROADMAP: roadmap(*BASE_ROAD, road_row(13, "ROAD-V1-D4"))}, "d4")
    pick = git(repo, "rev-parse", "HEAD").stdout.strip()
    git(repo, "checkout", "-q", "main")
    commit(repo, {ROADMAP: roadmap(*BASE_ROAD, road_row(14, "ROAD-V1-D5"))}, "d5")
    proc = git(repo, "cherry-pick", pick, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert keys_at(repo, "HEAD", ROADMAP, "Block")[-2:] == ["ROAD-V1-D4", "ROAD-V1-D5"]


def test_pull_rebase_from_a_clone(wired, tmp_path):
    origin = wired
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    install(clone)  # git config and hooks do not travel with a clone
    assert git(clone, "status", "--porcelain").stdout == ""  # .gitattributes came with it, unchanged
    commit(clone, {LEDGER: LEDGER_TEXT + "| 2026-07-05 `ccc` | clone |\n", ROADMAP: roadmap(*BASE_ROAD, road_row(13, "ROAD-V1-D4"))}, "clone")
    commit(origin, {LEDGER: LEDGER_TEXT + "| 2026-07-04 `bbb` | origin |\n", ROADMAP: roadmap(*BASE_ROAD, road_row(14, "ROAD-V1-D5"))}, "origin")
    proc = git(clone, "pull", "--rebase", "-q", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    ledger = (clone / LEDGER).read_text()
    assert ledger.index("`bbb`") < ledger.index("`ccc`")  # upstream's rows, then the replayed commit's
    assert sorted(keys((clone / ROADMAP).read_text(), "Block"))[-2:] == ["ROAD-V1-D4", "ROAD-V1-D5"]
    assert git(clone, "rev-list", "--count", "HEAD").stdout.strip() == "4"


def test_after_uninstall_git_merges_as_plain_text_again(wired):
    repo = wired
    proc = mergedrv(repo, "install", "--uninstall")
    assert proc.returncode == 0
    git(repo, "rm", "-q", "--cached", ".gitattributes")
    git(repo, "commit", "-q", "--no-verify", "-m", "uninstall")
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, {MATRIX: matrix(*BASE_MODELS, model_row("MODEL-TEXT-glm4", "Glm4", "INVENTORIED"))}, "bob")
    git(repo, "checkout", "-q", "main")
    commit(repo, {MATRIX: matrix(BASE_MODELS[0], model_row("MODEL-TEXT-glm4", "Glm4", "SPIKE"), *BASE_MODELS[1:])}, "alice")
    proc = git(repo, "merge", "--no-verify", "--no-edit", "topic", check=False)
    assert proc.returncode == 0  # plain git: the silent double definition is back
    assert keys((repo / MATRIX).read_text(), "ID").count("MODEL-TEXT-glm4") == 2


def test_rebase_replaying_ledger_appends_onto_appends(wired):
    """Replaying the second of two appends onto an upstream that appended too:
    ours then holds upstream's row before the replayed first one. git's own
    text merge is clean here, so the keyed merge must be too."""
    repo = wired
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, {LEDGER: LEDGER_TEXT + "| t1 | x |\n"}, "t1")
    commit(repo, {LEDGER: LEDGER_TEXT + "| t1 | x |\n| t2 | y |\n"}, "t2")
    git(repo, "checkout", "-q", "main")
    commit(repo, {LEDGER: LEDGER_TEXT + "| u1 | z |\n"}, "u1")
    git(repo, "checkout", "-q", "topic")
    proc = git(repo, "rebase", "main", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / LEDGER).read_text() == LEDGER_TEXT + "| u1 | z |\n| t1 | x |\n| t2 | y |\n"


def test_a_merge_git_resolves_without_the_driver_is_checked_before_it_is_committed(wired):
    """Both sides move the pin 4 -> 5: the config files are identical, so git
    merges them without the driver and the pin stays 5 for 6 rows. The
    pre-merge-commit hook refuses the merge; `mergedrv fix` applies the
    counter rule and the merge is committed."""
    repo = wired
    pinned = CONFIG.replace("key_pattern", "pin = 4\nkey_pattern")
    commit(repo, {".mergedrv.toml": pinned}, "pin the models")
    bumped = pinned.replace("pin = 4", "pin = 5")
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, {MATRIX: matrix(*BASE_MODELS, model_row("MODEL-TEXT-bob", "Bob")), ".mergedrv.toml": bumped}, "bob\n\nMODEL 4 -> 5")
    git(repo, "checkout", "-q", "main")
    commit(repo, {MATRIX: matrix(model_row("MODEL-TEXT-alice", "Alice"), *BASE_MODELS), ".mergedrv.toml": bumped}, "alice\n\nMODEL 4 -> 5")
    proc = git(repo, "merge", "--no-edit", "topic", check=False)
    assert proc.returncode != 0
    assert "ratchet: MODEL has 6 keys but its pin is 5" in proc.stdout + proc.stderr
    assert git(repo, "rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).returncode == 0  # not committed yet
    fixed = mergedrv(repo, "fix")
    assert fixed.returncode == 0 and "pin: 5 -> 6" in fixed.stdout
    git(repo, "add", ".mergedrv.toml")
    done = git(repo, "commit", "-q", "-m", "Merge topic\n\nMODEL 5 -> 6", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pin = 6" in (repo / ".mergedrv.toml").read_text()
