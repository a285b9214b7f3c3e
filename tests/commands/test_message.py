"""The commit-msg hook's quick answer (`commands/message.py`): claims that are
exactly the staged pins' true moves pass without the checks loading, and every
other message goes to the full pin-claims check, whose answer the quick one
never contradicts.  Real git throughout."""

from __future__ import annotations

import pytest

from mergedrv.commands import message
from tests.helpers import git, loaded_by
from tests.install_helpers import BASE_ROAD, CONFIG, ROADMAP, commit, mergedrv, road_row, roadmap, seed

PINNED = CONFIG.replace('key = "Block"\n', 'key = "Block"\npin = 5\n')
D6 = road_row(15, "ROAD-V1-D6", "MoE")
D7 = road_row(16, "ROAD-V1-D7", "LoRA")


@pytest.fixture
def staged(repo):
    """ROAD pinned at 5, and a staged change adding two rows with the pin at 7."""
    seed(repo)
    commit(repo, {".mergedrv.toml": PINNED}, "pin ROAD")
    (repo / ROADMAP).write_text(roadmap(*BASE_ROAD, D6, D7))
    (repo / ".mergedrv.toml").write_text(PINNED.replace("pin = 5", "pin = 7"))
    git(repo, "add", "-A")
    return repo


MESSAGES = {
    "the move": ("rows\n\nROAD 5 -> 7\n", True, 0),
    "the move, as mergedrv writes it": ("rows\n\n- ROAD pin 5 -> 7.\n", True, 0),
    "a squash's chain": ("rows\n\nROAD 5 -> 6\nROAD 6 -> 7\n", True, 0),
    "the move, CRLF (an editor's)": ("rows\r\n\r\nROAD 5 -> 7\r\n", True, 0),
    "a wrong move": ("rows\n\nROAD 5 -> 8\n", False, 1),
    "no claim": ("rows\n", False, 1),
    "a shifted move (a rebase)": ("rows\n\nROAD 9 -> 11\n", False, 0),  # passes with a note: the full check says it
    "a quoted claim only": ("rows\n\ncheck.py: ROAD 5 -> 7 (expected)\n", False, 1),
    "a claim of a record whose pin stayed": ("rows\n\nROAD 5 -> 7\nMODEL 4 -> 5\n", False, 1),
}


@pytest.mark.parametrize("what", sorted(MESSAGES))
def test_the_quick_answer_agrees_with_the_full_check(staged, what):
    text, quick, status = MESSAGES[what]
    (staged / "msg").write_bytes(text.encode())
    assert message.claims_hold(str(staged / "msg"), str(staged)) is quick
    full = mergedrv(staged, "check", "--staged", "--message-file", "msg", "--only", "pin-claims", "--format", "json")
    assert full.returncode == status, full.stdout + full.stderr  # (json: never the quick path)
    hook = mergedrv(staged, "check", "--staged", "--message-file", "msg", "--only", "pin-claims")
    assert hook.returncode == status, hook.stdout + hook.stderr


def test_true_claims_are_answered_before_the_checks_load(staged):
    (staged / "msg").write_text("rows\n\nROAD 5 -> 7\n")
    proc, loaded = loaded_by(staged, ["check", "--staged", "--message-file", "msg", "--only", "pin-claims"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not {"mergedrv.commands.check", "mergedrv.config", "mergedrv.checks", "subprocess", "argparse"} & loaded


def test_a_configuration_changed_beyond_its_pins_goes_to_the_full_check(staged):
    (staged / ".mergedrv.toml").write_text(PINNED.replace("pin = 5", "pin = 7").replace('key = "Block"', 'key = "block"'))
    git(staged, "add", ".mergedrv.toml")
    (staged / "msg").write_text("rows\n\nROAD 5 -> 7\n")
    assert message.claims_hold(str(staged / "msg"), str(staged)) is False


def test_a_merge_goes_to_the_full_check(staged):
    git(staged, "commit", "-q", "--no-verify", "-m", "rows\n\nROAD 5 -> 7")
    (staged / ".git" / "MERGE_HEAD").write_text(git(staged, "rev-parse", "HEAD").stdout)
    (staged / "msg").write_text("merge\n\nROAD 5 -> 7\n")
    assert message.claims_hold(str(staged / "msg"), str(staged)) is False
