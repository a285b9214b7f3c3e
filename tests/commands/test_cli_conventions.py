"""The command line's conventions: help text as printed, each subcommand's own usage on a bad flag,
the hints naming `mergedrv init`, completion scripts from the parser, uninstall's own folder."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from tests.install_helpers import install, mergedrv, seed


def test_merge_help_shows_git_placeholders_as_git_writes_them(tmp_path):
    out = mergedrv(tmp_path, "merge", "--help").stdout
    assert "Merge %O (base), %A (ours) and %B (theirs)" in out
    assert "%%" not in out


@pytest.mark.parametrize("command", ["check", "doctor", "review", "anchors", "fix", "install"])
def test_an_unknown_flag_prints_that_subcommands_usage(tmp_path, command):
    proc = mergedrv(tmp_path, command, "--no-such-flag")
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"usage: mergedrv {command} "), proc.stderr
    assert f"mergedrv {command}: error: unrecognized arguments: --no-such-flag" in proc.stderr


def test_merge_with_an_unknown_flag_prints_merges_usage_and_exits_1_for_git(tmp_path):
    proc = mergedrv(tmp_path, "merge", "O", "A", "B", "--no-such-flag")
    assert proc.returncode == 1 and proc.stderr.startswith("usage: mergedrv merge "), proc.stderr


def test_check_and_install_both_hint_mergedrv_init(repo):
    check = mergedrv(repo, "check")
    inst = mergedrv(repo, "install")
    assert check.returncode == inst.returncode == 2
    assert "run `mergedrv init`" in check.stderr, check.stderr
    assert "run `mergedrv init`" in inst.stderr, inst.stderr


def test_bash_completion_completes_commands_and_their_flags(tmp_path):
    script = tmp_path / "mergedrv.bash"
    script.write_text(mergedrv(tmp_path, "completion", "bash").stdout)
    probe = (f"source '{script}'\n"
             "COMP_WORDS=(mergedrv update-b); COMP_CWORD=1; _shtab_mergedrv; echo \"${COMPREPLY[*]}\"\n"
             "COMP_WORDS=(mergedrv check --stag); COMP_CWORD=2; _shtab_mergedrv; echo \"${COMPREPLY[*]}\"\n")
    out = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[:2] == ["update-branch", "--staged"], out


def test_zsh_completion_names_every_command():
    from mergedrv.cli import SUBCOMMANDS

    proc = mergedrv(".", "completion", "zsh")
    assert proc.returncode == 0 and proc.stdout.startswith("#compdef mergedrv")
    for name in SUBCOMMANDS:
        assert f"  {name}) _arguments" in proc.stdout, name


def test_uninstall_removes_the_merge_log_folder(repo):
    seed(repo)
    install(repo)
    folder = repo / ".git" / "mergedrv"
    folder.mkdir(exist_ok=True)
    (folder / "log").write_bytes(b"x")
    proc = mergedrv(repo, "install", "--uninstall")
    assert proc.returncode == 0, proc.stderr
    assert not folder.exists()
    assert ".git/mergedrv/: removed" in proc.stdout


def test_uninstall_keeps_resolves_copies_and_says_why(repo):
    seed(repo)
    install(repo)
    copy = repo / ".git" / "mergedrv" / "resolve" / "notes.md"
    copy.parent.mkdir(parents=True)
    copy.write_text("<<<<<<< ours\n")
    (repo / ".git" / "mergedrv" / "log").write_bytes(b"x")
    proc = mergedrv(repo, "install", "--uninstall")
    assert proc.returncode == 0, proc.stderr
    assert copy.read_text() == "<<<<<<< ours\n"
    assert not (repo / ".git" / "mergedrv" / "log").exists()
    assert "kept .git/mergedrv/resolve/, 1 copies of conflicted files" in proc.stdout


# --- -q / -v / --color, --format json ----------------------------------------------------------------------


def test_doctor_quiet_prints_only_problems_and_json_has_both(repo):
    seed(repo)  # records, no attributes: problems
    loud = mergedrv(repo, "doctor", "--ci")
    quiet = mergedrv(repo, "doctor", "--ci", "-q")
    assert loud.returncode == quiet.returncode == 1
    assert any(line.startswith("ok: ") for line in loud.stdout.splitlines())
    assert quiet.stdout.splitlines() == [line for line in loud.stdout.splitlines() if line.startswith("problem: ")]
    assert quiet.stderr == "" and "problem(s)" in loud.stderr
    verbose = mergedrv(repo, "doctor", "--ci", "-v")
    assert verbose.stdout == loud.stdout and "mergedrv doctor: exit 1 after" in verbose.stderr
    got = json.loads(mergedrv(repo, "doctor", "--ci", "--format", "json").stdout)
    assert got["in_effect"] is False and got["problems"] and got["ok"]
    assert ["problem: " + p for p in got["problems"]] == quiet.stdout.splitlines()


def test_color_only_when_asked_or_on_a_terminal_and_never_with_no_color(repo):
    seed(repo)
    plain = mergedrv(repo, "doctor", "--ci").stdout
    assert "\033[" not in plain  # a pipe: auto is off
    always = mergedrv(repo, "doctor", "--ci", "--color", "always").stdout
    assert "\033[31mproblem:\033[0m " in always and re.sub(r"\033\[[0-9;]*m", "", always) == plain
    assert "\033[" not in mergedrv(repo, "doctor", "--ci", "--color", "never").stdout
    assert "\033[" not in mergedrv(repo, "doctor", "--ci", "--color", "always", "--format", "json").stdout
    from mergedrv.commands.report import use_color

    class Tty:
        def isatty(self):
            return True

    os.environ.pop("NO_COLOR", None)
    assert use_color("auto", Tty()) and not use_color("never", Tty())
    os.environ["NO_COLOR"] = "1"
    try:
        assert not use_color("auto", Tty()) and use_color("always", Tty())
        os.environ["NO_COLOR"] = ""
        assert use_color("auto", Tty())  # only a non-empty value turns it off
    finally:
        os.environ.pop("NO_COLOR", None)


def test_merge_format_json_prints_the_decision_record_and_the_driver_call_prints_nothing(tmp_path):
    (tmp_path / ".mergedrv.toml").write_text('[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\n')
    head = "# R\n\n| ID | v |\n|---|---|\n| a | 1 |\n"
    for name, extra in (("O.md", ""), ("A.md", "| b | 2 |\n"), ("B.md", "| b | 3 |\n| c | 4 |\n")):
        (tmp_path / name).write_text(head + extra)
    for name in ("O.md", "A.md", "B.md"):
        (tmp_path / f"copy-{name}").write_bytes((tmp_path / name).read_bytes())
    driver = mergedrv(tmp_path, "merge", "copy-O.md", "copy-A.md", "copy-B.md", "-p", "r.md", "-l", "7")
    assert driver.returncode == 1 and driver.stdout == ""  # git's call: exit code and %A only
    proc = mergedrv(tmp_path, "merge", "O.md", "A.md", "B.md", "-p", "r.md", "--format", "json")
    assert proc.returncode == 1
    got = json.loads(proc.stdout)
    assert got["path"] == "r.md" and got["clean"] is False
    assert [(c["kind"], c["key"]) for c in got["conflicts"]] == [("double-definition", "b")]
    assert (tmp_path / "A.md").read_bytes() == (tmp_path / "copy-A.md").read_bytes()  # the same result either way


def test_review_format_json_is_the_text_key_by_key(repo):
    from tests.commands.test_review import _merge

    _merge(repo)
    text = mergedrv(repo, "review", ".agents/model-matrix.md").stdout
    proc = mergedrv(repo, "review", ".agents/model-matrix.md", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    [view] = json.loads(proc.stdout)
    assert view["path"] == ".agents/model-matrix.md" and len(view["conflicts"]) == 1
    decided = {d["key"]: d["decision"] for d in view["decisions"]}
    assert decided["MODEL-TEXT-t"] == "taken from theirs (added by theirs)"
    for key, decision in decided.items():
        assert re.search(rf"^  {re.escape(key)} +{re.escape(decision)}$", text, re.M), key
    quiet = mergedrv(repo, "review", ".agents/model-matrix.md", "-q").stdout.splitlines()
    assert quiet and all("conflict" in line for line in quiet) and any("MODEL-TEXT-m2" in line for line in quiet)
