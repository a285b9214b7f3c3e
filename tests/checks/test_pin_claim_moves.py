"""Pin claims are moves (issue #13): a rebased or cherry-picked commit whose claim
`NAME old -> new` describes the pin's move passes with a note; a wrong move is refused;
post-rewrite says which rewritten commits carry shifted claims.  Real git throughout."""

from __future__ import annotations

from tests.helpers import git
from tests.install_helpers import BASE_ROAD, CONFIG, ROADMAP, commit, install, keys_at, mergedrv, road_row, roadmap, seed

PINNED = CONFIG.replace('key = "Block"\n', 'key = "Block"\npin = 5\n')
D4 = road_row(13, "ROAD-V1-D4", "KV offload")
D5 = road_row(14, "ROAD-V1-D5", "LoRA")
D6 = road_row(15, "ROAD-V1-D6", "MoE")


def pin(n: int) -> str:
    return PINNED.replace("pin = 5", f"pin = {n}")


def diverged(repo, installed: bool = False) -> str:
    """topic adds D4 (`ROAD 5 -> 6`); main adds D5 and D6 (`ROAD 5 -> 7`).  Returns the base commit."""
    seed(repo)
    base = commit(repo, {".mergedrv.toml": PINNED}, "pin ROAD")
    if installed:  # the driver merges the rebase cleanly; the post-rewrite hook runs
        install(repo)
        base = commit(repo, {}, "install")
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, {ROADMAP: roadmap(*BASE_ROAD, D4), ".mergedrv.toml": pin(6)}, "row D4\n\nROAD 5 -> 6")
    git(repo, "checkout", "-q", "main")
    commit(repo, {ROADMAP: roadmap(*BASE_ROAD, D5, D6), ".mergedrv.toml": pin(7)}, "rows D5, D6\n\nROAD pin 5 -> 7")
    git(repo, "checkout", "-q", "topic")
    return base


def test_a_rebase_that_shifts_a_claim_passes_the_range_check_with_a_note(repo):
    base = diverged(repo)
    assert git(repo, "rebase", "main", check=False).returncode != 0  # no driver: both files conflict
    assert mergedrv(repo, "resolve", "--add").returncode == 0
    git(repo, "-c", "core.editor=true", "rebase", "--continue")
    assert "pin = 8" in git(repo, "show", "HEAD:.mergedrv.toml").stdout  # the pin moved 7 -> 8; the message says 5 -> 6
    assert len(keys_at(repo, "HEAD", ROADMAP, "Block")) == 8
    proc = mergedrv(repo, "check", "--base", base, "--head", "HEAD")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the numbers shifted" in proc.stderr and "ROAD 5 -> 6" in proc.stderr and "7 -> 8" in proc.stderr
    proc = mergedrv(repo, "check", "--commit", "HEAD")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "note:" in proc.stderr and "the numbers shifted" in proc.stderr


def test_a_cherry_pick_that_shifts_a_claim_passes(repo):
    diverged(repo)
    picked = git(repo, "rev-parse", "topic").stdout.strip()
    git(repo, "checkout", "-q", "main")
    assert git(repo, "cherry-pick", picked, check=False).returncode != 0
    assert mergedrv(repo, "resolve", "--add").returncode == 0
    git(repo, "-c", "core.editor=true", "cherry-pick", "--continue")
    proc = mergedrv(repo, "check", "--base", "HEAD~1", "--head", "HEAD")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the numbers shifted" in proc.stderr


def test_a_wrong_move_is_still_refused(repo):
    """The pin moved +1 (7 -> 8), the message claims +2 (5 -> 7): refused, in every mode."""
    diverged(repo)
    git(repo, "checkout", "-q", "main")
    commit(repo, {ROADMAP: roadmap(*BASE_ROAD, D5, D6, D4), ".mergedrv.toml": pin(8)}, "row D4\n\nROAD 5 -> 7")
    proc = mergedrv(repo, "check", "--commit", "HEAD")
    assert proc.returncode == 1
    assert "the message claims `ROAD 5 -> 7` (+2), but the pin moved 7 -> 8 (+1)" in proc.stdout
    proc = mergedrv(repo, "check", "--base", "HEAD~1", "--head", "HEAD")
    assert proc.returncode == 1 and "pin-claims" in proc.stdout
    msg = repo / "msg.txt"
    msg.write_text("row D4\n\nROAD 7 -> 9\n")  # the same numbers at the start, a wrong end
    git(repo, "reset", "-q", "--soft", "HEAD~1")
    proc = mergedrv(repo, "check", "--staged", "--message-file", str(msg), "--only", "pin-claims")
    assert proc.returncode == 1 and "but the pin moved 7 -> 8" in proc.stdout
    msg.write_text("row D4\n\nROAD 6 -> 7\n")  # shifted: the commit-msg hook lets it through, with a note
    proc = mergedrv(repo, "check", "--staged", "--message-file", str(msg), "--only", "pin-claims")
    assert proc.returncode == 0, proc.stdout
    assert "the numbers shifted" in proc.stderr


def test_post_rewrite_names_the_rewritten_commits_with_shifted_claims(repo):
    diverged(repo, installed=True)
    old = git(repo, "rev-parse", "HEAD").stdout.strip()
    proc = git(repo, "rebase", "main", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pin = 8" in (repo / ".mergedrv.toml").read_text()
    new = git(repo, "rev-parse", "HEAD").stdout.strip()
    assert f"{new[:7]} (rebased from {old[:7]})" in proc.stderr, proc.stderr
    assert "`ROAD 5 -> 6`" in proc.stderr and "7 -> 8" in proc.stderr and "shifted" in proc.stderr
    out = mergedrv(repo, "check", "--rewritten", "rebase", input=f"{old} {new}\n")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "shifted" in out.stderr


def test_a_squashed_commits_claims_one_after_another_make_its_move(repo):
    """A forge's squash merge quotes each commit's message: `ROAD 5 -> 6`, then
    `ROAD 6 -> 7`, for a commit that moved the pin 5 -> 7: the range check
    takes them as one move; claims that do not follow on are still judged."""
    seed(repo)
    base = commit(repo, {".mergedrv.toml": PINNED}, "pin ROAD")
    commit(repo, {ROADMAP: roadmap(*BASE_ROAD, D4, D5), ".mergedrv.toml": pin(7)},
           "rows D4, D5 (#12)\n\n* row D4\n\nROAD 5 -> 6\n\n* row D5\n\nROAD 6 -> 7\n")
    proc = mergedrv(repo, "check", "--base", base, "--head", "HEAD")
    assert proc.returncode == 0 and "pin-claims" not in proc.stdout, proc.stdout
    commit(repo, {ROADMAP: roadmap(*BASE_ROAD, D4, D5, D6), ".mergedrv.toml": pin(8)},
           "row D6\n\nROAD 7 -> 8\n\nROAD 9 -> 12\n")
    proc = mergedrv(repo, "check", "--base", "HEAD~1", "--head", "HEAD")
    assert proc.returncode == 1 and "the message claims `ROAD 9 -> 12`" in proc.stdout, proc.stdout
