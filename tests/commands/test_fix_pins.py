"""`mergedrv fix` and a pin left behind its count (real git): a rebase replays a
pin move both branches made, which git takes as it is (the two configurations
are the same), so the pin ends one short; `fix` raises it to the count, and
refuses to lower a pin whose keys went missing."""

from __future__ import annotations

import subprocess

from tests.checks_helpers import MATRIX, check, edit, make_records_repo, row_line
from tests.helpers import MERGEDRV, driver_command, git

BLOOM = "MODEL-TEXT-bloom-bloom-for-causal-lm"


def _add_row(repo, key: str) -> None:
    row = row_line(repo / MATRIX, BLOOM)
    edit(repo / MATRIX, row, row + "\n" + row.replace(BLOOM, key))
    cfg = (repo / ".mergedrv.toml").read_text()
    (repo / ".mergedrv.toml").write_text(cfg.replace("pin = 326\n", "pin = 327\n", 1))
    git(repo, "commit", "-q", "--no-verify", "-am", f"{key}\n\nMODEL 326 -> 327")


def _fix(repo) -> subprocess.CompletedProcess:
    return subprocess.run([*MERGEDRV, "fix"], cwd=repo, capture_output=True, text=True)


def test_a_rebase_leaves_the_pin_short_and_fix_raises_it(repo):
    make_records_repo(repo)
    (repo / ".gitattributes").write_text("*.md merge=keyed\n.mergedrv.toml merge=keyed\n")
    git(repo, "config", "merge.keyed.driver", driver_command())
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "the driver")
    git(repo, "checkout", "-qb", "topic")
    _add_row(repo, "MODEL-TEXT-zz-topic-for-causal-lm")
    git(repo, "checkout", "-q", "main")
    _add_row(repo, "MODEL-TEXT-zz-main-for-causal-lm")
    git(repo, "checkout", "-q", "topic")
    git(repo, "rebase", "-q", "main")
    assert "pin = 327\n" in (repo / ".mergedrv.toml").read_text()  # git's answer: both made the same change
    code, out, _ = check(repo, "--all", "--only", "ratchet")
    assert code == 1 and "has 328 keys but its pin is 327" in out[0] and "`mergedrv fix` raises the pin" in out[0], out
    code, out, _ = check(repo, "--commit", "HEAD", "--only", "pin-claims")
    assert code == 1 and "the pin stayed at 327 while the keys moved to 328" in out[0] and "`mergedrv fix` sets the pin to 328" in out[0], out
    proc = _fix(repo)
    assert proc.returncode == 0 and "fixed: MODEL pin: 327 -> 328 (the keys it counts)" in proc.stdout, proc.stdout + proc.stderr
    assert "pin = 328\n" in (repo / ".mergedrv.toml").read_text()
    assert check(repo, "--all", "--only", "ratchet")[0] == 0


def test_fix_never_lowers_a_pin_whose_keys_went_missing(repo):
    make_records_repo(repo)
    row = row_line(repo / MATRIX, BLOOM)
    edit(repo / MATRIX, row + "\n", "")
    before = (repo / ".mergedrv.toml").read_bytes()
    proc = _fix(repo)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "ratchet: MODEL has 325 keys but its pin is 326: a key is missing" in proc.stdout, proc.stdout
    assert (repo / ".mergedrv.toml").read_bytes() == before
