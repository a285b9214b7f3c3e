"""A change to `.mergedrv.toml` is judged like any other change (issue #22 item 2):
the parent under its own configuration, the commit under the new one; a record
path, key column or key_pattern that matches nothing, or a key column most rows
of a table share, is an error at its line;
install refuses untracked paths; a conflicted configuration is named as such."""

from __future__ import annotations

import pytest

from tests.checks_helpers import LEDGER, MATRIX, WORKED_CONFIG, check, make_records_repo
from tests.helpers import MERGEDRV, git
from tests.install_helpers import mergedrv

import subprocess

BROKEN = {
    "key_pattern": ("key_pattern = '^MODEL-[A-Za-z0-9_.-]+$'", "key_pattern = '^MDL-[0-9]+$'", 6,
                    "key-format: MODEL: key_pattern '^MDL-[0-9]+$' matches none of the 326 keys"),
    "key": ('key = "ID"', 'key = "Identifier"', 5,
            "config-matches: MODEL: key column 'Identifier' is the header of no table in .agents/model-matrix.md"),
    "keys": ('key = "ID"', 'key = ["Identifier", "Key"]', 5,
             "config-matches: MODEL: key column 'Identifier' is the header of no table in .agents/model-matrix.md"),
    "one key": ('key = "ID"', 'key = "State"', 5,
                "config-matches: MODEL: key column 'State' holds 'INVENTORIED' in 84 of the 114 rows of the table at .agents/model-matrix.md:"),
    "path": ('path = ".agents/model-matrix.md"', 'path = ".agents/model_matrix.md"', 4,
             "config-matches: MODEL: path '.agents/model_matrix.md' matches no file in index"),
    "refs": ('refs = ["Row"]', 'refs = ["Rowz"]', 8,
             "config-matches: MODEL: refs column 'Rowz' is the header of no table in .agents/model-matrix.md"),
    "ref_files": ('ref_files = [".agents/roadmap_v1.md",', 'ref_files = [".agents/roadmap.md",', 9,
                  "config-matches: MODEL: ref_files entry '.agents/roadmap.md' matches no file in index"),
    "retired": ('retired = ".agents/retired-keys.md"', 'retired = ".agents/retired.md"', 10,
                "config-matches: MODEL: retired file '.agents/retired.md' matches no file in index"),
    "log": ('path = ".agents/parity-ledger.md"', 'path = ".agents/parity_ledger.md"', 55,
            "config-matches: log: path '.agents/parity_ledger.md' matches no file in index"),
}


@pytest.fixture
def records(repo):
    return make_records_repo(repo)


def _break(repo, what: str) -> tuple[int, str]:
    old, new, line, said = BROKEN[what]
    text = (repo / ".mergedrv.toml").read_text()
    assert text.count(old) == 1
    (repo / ".mergedrv.toml").write_text(text.replace(old, new))
    git(repo, "add", ".mergedrv.toml")
    return line, said


@pytest.mark.parametrize("what", sorted(BROKEN))
def test_a_configuration_that_breaks_a_record_is_introduced_by_its_commit(records, what):
    """`check --staged` (the pre-commit hook): the findings exist only under the
    new configuration, so they are the change's own, not "inherited"."""
    line, said = _break(records, what)
    rc, out, err = check(records, "--staged")
    assert rc == 1, (out, err)
    assert f".mergedrv.toml:{line}: {said}" in "\n".join(out), out
    assert not any("(inherited)" in o for o in out), out


def test_a_former_name_beside_the_key_column_is_no_finding(records):
    """`key = ["ID", "Identifier"]`: the first heads the tables; the second is a
    former name (init proposes one where history renamed the column), no error."""
    text = (records / ".mergedrv.toml").read_text()
    (records / ".mergedrv.toml").write_text(text.replace('key = "ID"', 'key = ["ID", "Identifier"]', 1))
    git(records, "add", ".mergedrv.toml")
    rc, out, err = check(records, "--staged")
    assert not any("config-matches" in o for o in out), out


def test_the_pre_commit_hook_refuses_the_commit(records):
    assert mergedrv(records, "install").returncode == 0
    git(records, "add", "-A")
    git(records, "commit", "-q", "--no-verify", "-m", "install")
    _break(records, "key_pattern")
    proc = git(records, "commit", "-q", "-m", "stricter keys", check=False)
    assert proc.returncode != 0 and ".mergedrv.toml:6: key-format: MODEL: key_pattern" in proc.stdout + proc.stderr
    assert git(records, "diff", "--cached", "--quiet", check=False).returncode == 1  # nothing committed, still staged


@pytest.mark.parametrize("what", sorted(BROKEN))
def test_range_mode_and_commit_judge_the_commit_that_changed_the_configuration(records, what):
    base = git(records, "rev-parse", "HEAD").stdout.strip()
    line, said = _break(records, what)
    git(records, "commit", "-q", "--no-verify", "-m", f"change {what}")
    short = git(records, "rev-parse", "--short", "HEAD").stdout.strip()
    git(records, "commit", "-q", "--allow-empty", "--no-verify", "-m", "later")
    rc, out, _ = check(records, "--base", base, "--head", "HEAD")
    said = said.replace("in index", f"in {short}")
    assert rc == 1 and any(o.startswith(f"{short}:.mergedrv.toml:{line}: {said}") for o in out), out
    rc, out, _ = check(records, "--commit", "HEAD~1")
    assert rc == 1 and any(said in o and "(inherited)" not in o for o in out), out
    rc, out, _ = check(records, "--commit", "HEAD")  # the next commit inherits it
    assert rc == 0 and out and all("(inherited)" in o for o in out), out


@pytest.mark.parametrize("old, new, line, what", [
    ('group = "State"', 'group = "Stat"', 16, "rollup 'Architecture-support checklist': group column 'Stat'"),
    ('where = { State = "INVENTORIED" }', 'where = { Stat = "INVENTORIED" }', 36, "count 'the remaining (\\d+) are known': where column 'Stat'"),
])
def test_a_column_a_count_names_that_no_table_has_is_one_finding_and_nothing_is_fixed(records, old, new, line, what):
    """A rollup's group or a count's `where` column that heads no keyed table
    would count no row: one finding at its `.mergedrv.toml` line, not a wrong
    number per row of the rollup with `mergedrv fix` offered (it would write
    zeros), and `mergedrv fix` leaves the numbers alone."""
    text = (records / ".mergedrv.toml").read_text()
    assert text.count(old) == 1
    (records / ".mergedrv.toml").write_text(text.replace(old, new))
    git(records, "add", ".mergedrv.toml")
    rc, out, _ = check(records, "--staged")
    assert rc == 1 and out == [f".mergedrv.toml:{line}: rollup: MODEL: {what} is the header of no keyed table of the record, so "
                               "it would count no row and nothing is judged or fixed; name a column of the record's table "
                               "(matched ignoring case and markup)"], out
    before = (records / MATRIX).read_bytes()
    proc = mergedrv(records, "fix")
    assert (records / MATRIX).read_bytes() == before
    assert f".mergedrv.toml:{line}: rollup: MODEL: {what}" in proc.stdout, proc.stdout  # (the entry's line, as check says)


def test_deleting_a_file_ref_files_names_is_refused_until_the_entry_goes(records):
    """A ref file the change deletes leaves its `ref_files` entry naming nothing:
    the change's own finding (not inherited), at the entry's line; dropping the
    entry in the same change settles it."""
    git(records, "rm", "-q", ".agents/roadmap_v1.md")
    text = (records / ".mergedrv.toml").read_text()
    rest = text[text.index("[[record]]\nname = \"ROADMAP\""):text.index("[[log]]")]
    (records / ".mergedrv.toml").write_text(text.replace(rest, ""))  # (the roadmap record goes with its file)
    git(records, "add", ".mergedrv.toml")
    rc, out, _ = check(records, "--staged")
    assert rc == 1 and out == [".mergedrv.toml:9: config-matches: MODEL: ref_files entry '.agents/roadmap_v1.md' matches no "
                               "file in index, so no reference in it is checked; name a file git tracks (`git ls-files`), "
                               "or drop the entry"], out
    (records / ".mergedrv.toml").write_text(text.replace(rest, "").replace('".agents/roadmap_v1.md", ', ""))
    git(records, "add", ".mergedrv.toml")
    assert check(records, "--staged")[:2] == (0, [])


def test_a_missing_file_head_already_names_is_inherited_not_the_change_s(records):
    """HEAD's configuration already names a ref file that is gone: a later
    change to the configuration (a pin set) or to another ref file of the
    record is not refused for it (the finding names the snapshot, `in index`
    against `in HEAD`: the same problem all the same)."""
    git(records, "rm", "-q", ".agents/roadmap_v1.md")
    text = (records / ".mergedrv.toml").read_text()
    rest = text[text.index("[[record]]\nname = \"ROADMAP\""):text.index("[[log]]")]
    (records / ".mergedrv.toml").write_text(text.replace(rest, ""))
    git(records, "commit", "-q", "--no-verify", "-am", "roadmap gone, its ref_files entry left")
    rc, out, _ = check(records)
    assert rc == 0 and out and all("(inherited)" in o for o in out), out
    (records / ".mergedrv.toml").write_text(text.replace(rest, "").replace('refs = ["Row"]', 'refs = ["Row", "ID"]'))
    git(records, "add", ".mergedrv.toml")
    assert check(records, "--staged")[:2] == (0, [])
    git(records, "reset", "-q", "--hard")
    with (records / LEDGER).open("a") as f:
        f.write("\nA new entry citing `MODEL-TEXT-bloom-bloom-for-causal-lm`.\n")
    git(records, "add", LEDGER)
    assert check(records, "--staged")[:2] == (0, [])


def test_a_fix_that_undoes_the_whole_change_commits_nothing(records):
    """A pin raised above its keys and nothing else: the pre-commit hook sets it
    back, which leaves the index as HEAD has it; git would record an empty
    commit, so the commit is stopped and says why (`--allow-empty` still commits)."""
    assert mergedrv(records, "install").returncode == 0
    git(records, "add", "-A")
    git(records, "commit", "-q", "--no-verify", "-m", "install")
    head = git(records, "rev-parse", "HEAD").stdout
    text = (records / ".mergedrv.toml").read_text()
    (records / ".mergedrv.toml").write_text(text.replace("pin = 326", "pin = 330"))
    git(records, "add", ".mergedrv.toml")
    proc = git(records, "commit", "-q", "-m", "pin up", check=False)
    assert proc.returncode == 1 and "fixed: MODEL pin 330 -> 326" in proc.stdout + proc.stderr, (proc.stdout, proc.stderr)
    assert "git would record an empty commit; nothing is committed" in proc.stderr
    assert git(records, "rev-parse", "HEAD").stdout == head
    (records / ".mergedrv.toml").write_text(text.replace("pin = 326", "pin = 330"))
    git(records, "add", ".mergedrv.toml")
    assert git(records, "commit", "-q", "--allow-empty", "-m", "pin up", check=False).returncode == 0
    assert git(records, "rev-parse", "HEAD^").stdout == head


def test_an_amended_merge_that_keeps_head_s_tree_is_committed(records):
    """An amend may keep HEAD's tree (a merge reworded): the fix that sets a
    raised pin back does not stop it as an empty commit."""
    assert mergedrv(records, "install").returncode == 0
    git(records, "add", "-A")
    git(records, "commit", "-q", "--no-verify", "-m", "install")
    git(records, "checkout", "-q", "-b", "side")
    git(records, "commit", "-q", "--allow-empty", "--no-verify", "-m", "side")
    git(records, "checkout", "-q", "main")
    git(records, "commit", "-q", "--allow-empty", "--no-verify", "-m", "main")
    git(records, "merge", "-q", "--no-ff", "--no-verify", "side", "-m", "merge side")
    text = (records / ".mergedrv.toml").read_text()
    (records / ".mergedrv.toml").write_text(text.replace("pin = 326", "pin = 330"))
    git(records, "add", ".mergedrv.toml")
    proc = git(records, "commit", "-q", "--amend", "-m", "merge side, reworded", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert git(records, "log", "-1", "--format=%s %P").stdout.split()[:3] == ["merge", "side,", "reworded"]
    assert len(git(records, "log", "-1", "--format=%P").stdout.split()) == 2
    assert "pin = 326" in git(records, "show", "HEAD:.mergedrv.toml").stdout


def test_a_working_configuration_change_passes(records):
    """A pattern rewritten to match the same keys: nothing is introduced."""
    text = (records / ".mergedrv.toml").read_text()
    (records / ".mergedrv.toml").write_text(text.replace("key_pattern = '^MODEL-[A-Za-z0-9_.-]+$'", "key_pattern = '^(?:MODEL-[A-Za-z0-9_.-]+)$'"))
    git(records, "add", ".mergedrv.toml")
    assert check(records, "--staged")[:2] == (0, [])


def test_a_conflicted_configuration_is_named_as_such(records):
    text = (records / ".mergedrv.toml").read_text()
    git(records, "checkout", "-q", "-b", "topic")
    (records / ".mergedrv.toml").write_text(text.replace("pin = 326", "pin = 327"))
    git(records, "commit", "-q", "--no-verify", "-am", "topic pin")
    git(records, "checkout", "-q", "main")
    (records / ".mergedrv.toml").write_text(text.replace("pin = 326", "pin = 325"))
    git(records, "commit", "-q", "--no-verify", "-am", "main pin")
    assert git(records, "merge", "-q", "topic", check=False).returncode != 0
    marker = (records / ".mergedrv.toml").read_text().split("\n").index("<<<<<<< HEAD") + 1
    git(records, "add", ".mergedrv.toml")
    rc, out, err = check(records, "--staged")
    assert rc == 1 and out == [f".mergedrv.toml:{marker}: config: holds conflict markers at line {marker}; resolve it first "
                               "(edit it, or `git checkout --ours/--theirs .mergedrv.toml`), then `git add` it; the staged "
                               "configuration does not load, so no record check ran"], (out, err)
    rc, _, err = check(records)
    assert rc == 2 and f"holds conflict markers at line {marker}" in err and "not valid TOML" not in err


def test_install_refuses_a_path_git_does_not_track(repo):
    make_records_repo(repo, config=WORKED_CONFIG.replace('path = ".agents/roadmap_v1.md"', 'path = ".agents/roadmap.md"'))
    proc = subprocess.run([*MERGEDRV, "install"], cwd=repo, capture_output=True, text=True)
    line = WORKED_CONFIG.split("\n").index('path = ".agents/roadmap_v1.md"') + 1
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert f".mergedrv.toml:{line}: ROADMAP: path '.agents/roadmap.md' names no file git tracks" in proc.stderr
    assert not (repo / ".gitattributes").exists()
    assert git(repo, "config", "--get", "merge.keyed.driver", check=False).returncode == 1  # nothing written
    (repo / ".agents" / "roadmap.md").write_text((repo / ".agents" / "roadmap_v1.md").read_text())
    proc = subprocess.run([*MERGEDRV, "install"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 2, "an untracked file is still refused"
    git(repo, "add", ".agents/roadmap.md")
    assert subprocess.run([*MERGEDRV, "install"], cwd=repo, capture_output=True, text=True).returncode == 0


@pytest.mark.parametrize("what", ["key", "path"])
def test_a_keyless_record_is_one_finding_at_its_line_not_every_consequence(records, what):
    """A path matching no file, or a key column heading no table, leaves the
    record without keys: its ratchet, rollups and every reference to its keys
    would say so again (hundreds of lines on the real records, the line to
    fix last).  The `.mergedrv.toml` finding is listed alone, saying so."""
    base = git(records, "rev-parse", "HEAD").stdout.strip()
    line, said = _break(records, what)
    rc, out, _ = check(records, "--staged")
    mine = [o for o in out if "(inherited)" not in o]
    assert rc == 1 and len(mine) == 1, out
    assert mine[0].startswith(f".mergedrv.toml:{line}: {said}"), mine
    assert mine[0].endswith("(the findings about its keys that follow from this are not listed)"), mine
    git(records, "commit", "-q", "--no-verify", "-m", f"change {what}")
    rc, out, _ = check(records, "--base", base, "--head", "HEAD")
    assert rc == 1 and len(out) == 1 and out[0].endswith("follow from this are not listed)"), out
