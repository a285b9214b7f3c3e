"""The command line's conventions: help text as printed, each subcommand's own usage on a bad flag,
the hints naming `mergedrv init`, completion scripts from the parser, uninstall's own folder."""

from __future__ import annotations

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
