"""Command line: argument parsing and dispatch only.

Each command's work lives in its own module, imported when the command runs,
so `mergedrv merge` (one process per file per merge) pays for nothing else.
"""

from __future__ import annotations

import argparse
import os
import sys

from . import __version__

EPILOG = """\
examples:
  mergedrv merge %O %A %B -p %P -l %L -s %S -x %X -y %Y   (as git's merge driver)
  mergedrv demo                 show plain git and mergedrv merging real records
  mergedrv install              wire the driver and hooks into this repository
  mergedrv check --staged       check the staged records (pre-commit hook)
  mergedrv check --base origin/main --head HEAD   check every commit of a range (CI)
  mergedrv resolve --add        keyed-merge files a rebase left conflicted
  mergedrv anchors --upstream ../vllm --pin REV --to REV2   upstream citations at the pin, and what moving it changes
  mergedrv update-branch --base origin/main   merge the base into this branch by key, push if all resolved (CI)
  mergedrv doctor [--ci]        is the driver, are the attributes and hooks really in effect
  mergedrv review [PATH]        what the driver decided, key by key, in the last merges
  mergedrv mergetool B L R OUT  the keyed merge as git mergetool's or jj's merge tool
  eval "$(mergedrv completion bash)"   shell completion (bash or zsh)
"""


class _Parser(argparse.ArgumentParser):
    def _get_formatter(self):
        # argparse sizes every formatter (one per add_argument) with
        # shutil.get_terminal_size; importing shutil costs the driver ~4 ms
        try:
            width = int(os.environ.get("COLUMNS", "")) - 2
        except ValueError:
            try:
                width = os.get_terminal_size(sys.stdout.fileno()).columns - 2
            except (OSError, ValueError):
                width = 78
        return self.formatter_class(prog=self.prog, width=max(width, 40))  # type: ignore[call-arg]  # typeshed's protocol names prog only

    def error(self, message: str):  # usage errors: exit 2 with a hint
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``command``, only that subcommand's (faster start)."""
    p = _Parser(
        prog="mergedrv",
        description="A git merge driver and hooks for keyed records: markdown tables whose rows carry stable IDs.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("-V", "--version", action="version", version=f"mergedrv {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (add, _) in SUBCOMMANDS.items():
        if command is None or command == name:
            add(sub)
    setattr(p, "subcommands", sub.choices)  # name -> its parser (usage errors, completion)
    return p


def _add_reporting(p: argparse.ArgumentParser) -> None:
    """-q, -v and --color, for the commands that report (mergedrv.commands.report)."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("-q", "--quiet", action="store_true", help="print only findings and errors (no notes, summaries or progress)")
    g.add_argument("-v", "--verbose", action="store_true", help="more detail: also the exit status, time taken and folder, on stderr")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the report: auto (default) on a terminal only, and not when NO_COLOR is set")


def _add_merge(sub) -> None:
    m = sub.add_parser(
        "merge",
        help="three-way keyed merge of one file (git merge driver)",
        description="Merge %O (base), %A (ours) and %B (theirs); the result replaces %A. "
        "Exit 0: clean; 1: conflicts (git's diff3 markers, one stderr line per conflict).",
        epilog="git config merge.keyed.driver 'mergedrv merge %O %A %B -p %P -l %L -s %S -x %X -y %Y'",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    m.add_argument("base", help="%%O: the merge base")
    m.add_argument("ours", help="%%A: ours; overwritten with the result")
    m.add_argument("theirs", help="%%B: theirs")
    m.add_argument("-p", "--path", help="%%P: the path in the repository (selects the record in .mergedrv.toml)")
    m.add_argument("-l", "--marker-size", help="%%L: conflict marker size (default 7)")
    m.add_argument("-s", "--base-label", help="%%S: label of the base section")
    m.add_argument("-x", "--ours-label", help="%%X: label of our section")
    m.add_argument("-y", "--theirs-label", help="%%Y: label of their section")
    m.add_argument("--config", help="read this configuration instead of ./.mergedrv.toml")
    m.add_argument("--strict", action="store_true", help="a key added identically on both sides is a conflict too")
    m.add_argument("--no-cell-merge", action="store_true", help="a row changed on both sides conflicts even if different cells changed")
    m.add_argument("--format", choices=("text", "json"), default="text",
                   help="json: also print the decision record (conflicts, notes, fallback, fingerprints) on stdout; git never asks for it")


def _add_install(sub) -> None:
    i = sub.add_parser(
        "install",
        help="wire the merge driver, .gitattributes and hooks into a repository",
        description="Register the keyed merge driver in the repository's git config (absolute path, so GUIs "
        "work without the venv), write merge=keyed lines for every record and log of .mergedrv.toml into a "
        "marked block of .gitattributes, and install the pre-commit, commit-msg, pre-merge-commit and "
        "post-rewrite hooks (through .pre-commit-config.yaml when the repository has one; otherwise plain "
        "hooks in the hooks folder, core.hooksPath respected, chaining the hooks already there). "
        "Running it again changes nothing; --uninstall puts everything back byte for byte.",
        epilog="examples:\n  mergedrv install\n  mergedrv install --repo ../vllm.cpp\n  mergedrv install --pre-commit-repo https://github.com/OWNER/mergedrv --pre-commit-rev v" + __version__ + "\n  mergedrv install --mergetool   (and git mergetool --tool=mergedrv)\n  mergedrv install --uninstall",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    i.add_argument("--repo", default=".", metavar="DIR", help="the repository (default: the current one)")
    i.add_argument("--uninstall", action="store_true", help="remove the driver, the attributes block, the hooks and .git/mergedrv/ (the merge log; resolve's copies of conflicted files are kept, and said so)")
    i.add_argument("--mergetool", action="store_true", help="also register `git mergetool --tool=mergedrv` (mergetool.mergedrv.cmd)")
    i.add_argument("--pre-commit-repo", metavar="URL", help="with the pre-commit framework: the mergedrv repository its committed entry names, at --pre-commit-rev (default: this mergedrv checkout's origin URL at its release tag; `local` or no origin URL: a `repo: local` entry running the mergedrv this clone installed)")
    i.add_argument("--pre-commit-rev", metavar="REV", help="the tag or commit of --pre-commit-repo (the release tag: v" + __version__ + ")")


def _add_init(sub) -> None:
    i = sub.add_parser(
        "init",
        help="propose a .mergedrv.toml from the repository's markdown tables",
        description="Read the markdown and its history once and write a .mergedrv.toml to commit unedited: a "
        "[[record]] per file whose tables hold a column of stable keys: IDs, or unique names whose rows merges "
        "joined or several changes and authors added, or unique titles (an agenda's topics) three or more authors added "
        "(key, key_scope = \"table\" for a list by category with an entry under two, a pattern listing the key prefixes, a pin only where the "
        "tree states the count: prose, a Total row, a checker's constant; a second key column for the tables the first does not key where history shows them "
        "growing; detached rows counted and named; rollups, section grids, prose counts and references the tree "
        "already agrees with), a [[log]] for files, tables or dated prose, that grew at their end in nearly every "
        "change. Each proposal says in a comment what it measured; "
        "`mergedrv check` is run on the proposal and the findings the tree already has are listed at the end.",
        epilog="examples:\n  mergedrv init\n  mergedrv init --print\n  mergedrv init --force   (replace an existing .mergedrv.toml)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    i.add_argument("--repo", default=".", metavar="DIR", help="the repository (default: the current one)")
    i.add_argument("--force", action="store_true", help="overwrite an existing .mergedrv.toml")
    i.add_argument("--print", dest="stdout", action="store_true", help="print the proposal instead of writing it")


def _add_demo(sub) -> None:
    sub.add_parser(
        "demo",
        help="merge real records with plain git and with mergedrv, side by side",
        description="Build a temporary repository from the bundled sample records, make two branches with "
        "concurrent edits, merge them with plain git and with mergedrv, and print what each did.",
        epilog="example:\n  mergedrv demo",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _add_resolve(sub) -> None:
    r = sub.add_parser(
        "resolve",
        help="keyed-merge files git left conflicted (e.g. a rebase run without the driver)",
        description="For each conflicted file (index stages 1, 2 and 3), run the keyed merge on the three "
        "stages and write the result, keeping the conflicted file as .git/mergedrv/resolve/PATH (PATH.N if taken: nothing is "
        "overwritten; `git add -A` does not see it). A conflicted .mergedrv.toml is merged first (pins as counters) and the "
        "records with it. Works mid-merge, mid-rebase and mid-cherry-pick. Exit 0: every file came out clean; 1: conflicts remain.",
        epilog="examples:\n  mergedrv resolve              every conflicted file\n"
        "  mergedrv resolve --add .agents/model-matrix.md\n  git rebase origin/main || mergedrv resolve --add && git rebase --continue",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("paths", nargs="*", metavar="PATH", help="conflicted files (default: all of them)")
    r.add_argument("--add", action="store_true", help="stage the files that came out clean")


def _add_anchors(sub) -> None:
    a = sub.add_parser(
        "anchors",
        help="check the records' citations of an upstream repository at a pin (and what moving it changes)",
        description="Find the citations path::Symbol, path::Class.method, path:line and path:line-line in the "
        "record files (and [anchors] files, or the FILEs given), read the upstream with pygit2 at the pin (no "
        "checkout, no network) and classify each: fresh, stale (file present, symbol absent or line beyond the "
        "end), file absent, ambiguous (the file name matches several files). With --to: the delta, the commit "
        "that removed each file, and where each stale symbol is defined now. "
        "Exit 0: every citation fresh at the pin; 1: some are not; 2: usage or configuration error.",
        epilog="examples:\n  mergedrv anchors --upstream ../vllm --pin 5559679229\n"
        "  mergedrv anchors --upstream ../vllm --pin 5559679229 --to e126687a9a\n"
        "  mergedrv anchors --format json --to origin/main      (upstream and pin from [anchors])\n"
        "  mergedrv anchors --upstream ../vllm --pin v0.9.0 docs/NOTES.md",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    a.add_argument("files", nargs="*", metavar="FILE", help="markdown files to scan (default: records and [anchors] files)")
    a.add_argument("--upstream", metavar="REPO", help="a clone of the upstream repository (default: [anchors] upstream)")
    a.add_argument("--pin", metavar="REV", help="the pinned revision (default: [anchors] pin, or pin_file + pin_pattern)")
    a.add_argument("--to", metavar="REV2", help="a newer revision: report what moving the pin there changes")
    a.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    a.add_argument("--config", metavar="PATH", help="read this configuration instead of ./.mergedrv.toml")
    a.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="do not check cited paths matching GLOB (repeatable)")
    _add_reporting(a)


def _add_check(sub) -> argparse.ArgumentParser:
    c = sub.add_parser(
        "check",
        help="check the records: keys, formats, shapes, refs, ratchet, rollups, logs, pin claims, sequences",
        description="Run the record checks on the working tree (default, against HEAD), the index or one commit. "
        "One line per finding, `path:line: check-id: message`; a finding the parent commit already had (the same "
        "problem, perhaps moved by a line shift) is marked `(inherited)` and does not fail the check unless --all; "
        "the hooks (--staged, --message-file, --merge-head) print only what the change introduces and count the rest "
        "in one line. Exit 0: nothing introduced; 1: findings; 2: usage or configuration error.",
        epilog="examples:\n"
        "  mergedrv check                          the working tree, against HEAD\n"
        "  mergedrv check --staged                 the index\n"
        "  mergedrv check --staged --fix           fix the derived values, restage them, check (pre-commit hook)\n"
        "  mergedrv check --commit HEAD            one commit against its first parent, with its message\n"
        "  mergedrv check --message-file .git/COMMIT_EDITMSG   pin claims (commit-msg hook)\n"
        "  mergedrv check --only ratchet,rollup --format json\n"
        "  mergedrv check --base origin/main --head HEAD   every commit of a range, each against its parent(s) (CI)\n"
        "  mergedrv check --merge-head             the merge being concluded (pre-merge-commit hook)\n"
        "  mergedrv check --rewritten rebase < PAIRS   rebased commits vs the originals (post-rewrite hook)\n"
        "  mergedrv check --ref-update prepared < UPDATES   a rebase's branch update losing a key (reference-transaction hook)\n"
        "check ids: config-matches keys-unique key-format column-format table-shape detached-row refs ratchet rollup log-append-only pin-claims sequence\n"
        "history check ids: checkpoint merge-keys",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("--staged", action="store_true", help="check the index (what the next commit records) against HEAD")
    c.add_argument("--fix", nargs="?", const="pass", choices=("pass", "fail"),
                   help="with --staged (pre-commit hook): first set the derived values the staged change left behind "
                   "(counts, rollups, grids, pins) in the index and in the work tree, where the work tree file is the "
                   "index's (a file with unstaged changes is not fixed and blocks), one line each; then check. "
                   "`--fix=fail` fails after fixing, as the pre-commit framework expects of a hook that changes files")
    c.add_argument("--commit", metavar="REV", help="check commit REV against its first parent, including its message")
    c.add_argument("--message-file", metavar="FILE", help="check the pin claims of this commit message against the index (commit-msg hook); a claim is `NAME OLD -> NEW` on a line of its own")
    c.add_argument("--only", metavar="ID[,ID]", help="run only these checks")
    c.add_argument("--all", action="store_true",
                   help="fail on inherited findings too (those the parent commit already had); the hooks then print them")
    c.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    c.add_argument("--config", metavar="PATH", help="read this configuration instead of the checked tree's .mergedrv.toml")
    c.add_argument("--base", metavar="REV", help="with --head: check every commit of BASE..HEAD, merges included (CI); "
                   "the null hash checks from the root commit")
    c.add_argument("--head", metavar="REV", help="the newest commit of the range; its .mergedrv.toml applies to every commit")
    c.add_argument("-j", "--jobs", type=_jobs, metavar="N",
                   help="with --base/--head: check a range of 200 commits or more in N processes, each a run of "
                   "consecutive commits (default: the usable CPUs, at most 8; 1: in this process); the findings are the same")
    c.add_argument("--merge-head", action="store_true",
                   help="check the merge being concluded: the index against HEAD and MERGE_HEAD (pre-merge-commit hook)")
    c.add_argument("--rewritten", nargs="?", const="rebase", metavar="KIND",
                   help="read git's `old new` pairs on stdin: the rewritten commits must add, change and delete the same "
                   "keys as the originals (post-rewrite hook; KIND `amend` is not checked)")
    c.add_argument("--ref-update", metavar="STATE", help="read git's `old new ref` lines on stdin (reference-transaction "
                   "hook): in the `prepared` state, refuse a rebase's update of the branch it rewrote, or `git am`'s of "
                   "the current branch, when a key was lost that no original deleted; anything else passes at once")
    _add_reporting(c)
    return c


def _add_fix(sub) -> None:
    f = sub.add_parser(
        "fix",
        help="rewrite rollup tables, section grids and prose counts from the rows",
        description="Recompute every declared rollup table and prose count of the working tree from the rows, "
        "rewrite the files atomically and print each number changed; a number HEAD already had wrong is not the "
        "change's: it is reported and left alone unless --all (with the records as HEAD has them, the change is "
        "HEAD's own commit: what it left stale is set, what its parent had is left). During a merge it also sets each pin both "
        "sides moved to the base plus both moves (a key both added counted once), and after a cherry-pick or "
        "`git am` whose pins the driver merged without the record's keys, it sets those; outside a merge it raises "
        "a pin below its count to the count (a rebase replaying a move both branches made). Exit 0: done; 1: something is left that "
        "only a person can fix; 2: configuration error.",
        epilog="example:\n  mergedrv fix && git diff",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    f.add_argument("--config", metavar="PATH", help="read this configuration instead of ./.mergedrv.toml")
    _add_reporting(f)
    f.add_argument("--all", action="store_true", help="also rewrite the stale numbers HEAD already had; without it they "
                   "are reported and left alone (the change did not touch them)")


def _add_update_branch(sub) -> None:
    u = sub.add_parser(
        "update-branch",
        help="merge the base into this branch by key; push if every conflict resolved (CI, forge action)",
        description="Merge BASE into the current branch (or rebase onto it) with the keyed merge driver registered "
        "for this run only. If every conflict resolves by key and the record checks pass, commit and push to the "
        "branch's upstream (never forced). Otherwise put the branch back exactly as it was and print each problem "
        "as `path:line: kind: key: why` (a path holding a line break, a quote or a backslash quoted as git quotes it); "
        "a conflict in a file that is not a record leaves the branch to people. "
        "Exit 0: pushed or up to date; 1: left as it was, nothing pushed; 2: usage, git or push error "
        "(the remote refused the push).",
        epilog="examples:\n  mergedrv update-branch --base origin/main\n"
        "  mergedrv update-branch --base origin/main --remote origin --branch my-pr --comment-file comment.md\n"
        "  mergedrv update-branch --base origin/main --no-push   (merge locally only)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    u.add_argument("--base", required=True, metavar="REV", help="the branch to merge in (fetched), e.g. origin/main")
    u.add_argument("--rebase", action="store_true", help="rebase onto BASE instead of merging (pushing it needs a branch the remote does not have yet: never forced)")
    u.add_argument("--remote", metavar="NAME", help="push there (default: the branch's upstream remote, else origin)")
    u.add_argument("--branch", metavar="NAME", help="the branch to push to on the remote (default: the upstream branch, else the same name)")
    u.add_argument("--no-push", action="store_true", help="commit the merge locally, do not push")
    u.add_argument("--renumber", action="store_true", help="first move the branch's numbered keys the base took too (`mergedrv renumber --onto BASE`)")
    u.add_argument("--comment-file", metavar="FILE", help="write a markdown pull-request comment (hidden marker <!-- mergedrv -->) there; the problems in a fence no line can close")
    u.add_argument("--repo", default=".", metavar="DIR", help="the repository (default: the current one)")
    _add_reporting(u)


def _add_doctor(sub) -> None:
    d = sub.add_parser(
        "doctor",
        help="is mergedrv really in effect here: driver, attributes, hooks, the committed block",
        description="Ask git what is in effect: every record's and log's path names a tracked file; "
        "the keyed driver registered and runnable; merge=keyed in effect "
        "(git check-attr) for every record and log of .mergedrv.toml and for .mergedrv.toml itself; the hooks "
        "installed in the hooks folder git uses (core.hooksPath respected) and pointing at a runnable mergedrv; the "
        "committed .gitattributes block matching the configuration. Each problem is printed with its fix. "
        "Exit 0: all in effect; 1: problems; 2: not a repository or a broken configuration.",
        epilog="examples:\n  mergedrv doctor\n  mergedrv doctor --ci      (in CI: only what is committed; writes nothing)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    d.add_argument("--ci", action="store_true", help="check only what is committed (configuration, .gitattributes); write nothing")
    d.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text; json: in_effect, ok, problems)")
    d.add_argument("--repo", default=".", metavar="DIR", help="the repository (default: the current one)")
    _add_reporting(d)


def _add_review(sub) -> None:
    r = sub.add_parser(
        "review",
        help="what the driver decided in the last merges of a file, key by key, and git's line merge beside it",
        description="Read the driver's bounded log (<git dir>/mergedrv/log: each keyed merge made in this clone) and, for "
        "the last merges of PATH (or of any file), say per key what the merge did: taken from ours, taken from theirs, "
        "cells merged, moved, kept once, conflict; then the diff from git's own line merge of the same three versions "
        "to mergedrv's result. Exit 0: shown; 1: no logged merge; 2: usage or repository error.",
        epilog="examples:\n  mergedrv review .agents/model-matrix.md\n  mergedrv review -n 5     the last five keyed merges",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("path", nargs="?", metavar="PATH", help="a record or log file (default: any)")
    r.add_argument("-n", "--count", type=int, default=1, metavar="N", help="the last N merges (default 1)")
    r.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text; json: a list, one object per merge)")
    r.add_argument("--repo", default=".", metavar="DIR", help="the repository (default: the current one)")
    _add_reporting(r)


def _add_mergetool(sub) -> None:
    t = sub.add_parser(
        "mergetool",
        help="the keyed merge as a merge tool: git mergetool --tool=mergedrv, jj resolve --tool mergedrv",
        description="Merge BASE, LEFT (ours) and RIGHT (theirs) as the merge driver would for PATH (its record or log "
        "in .mergedrv.toml) and write the result to OUTPUT. If conflicts remain, hand them to git's merge.tool (or --tool) "
        "as git mergetool runs it: $LOCAL and $REMOTE are the keyed result with each remaining hunk from one side, "
        "$MERGED is OUTPUT with the markers. Exit 0: clean, or the tool resolved it; 1: conflicts, marked in OUTPUT; 2: usage error.",
        epilog="examples:\n  git mergetool --tool=mergedrv          (after mergedrv install --mergetool)\n"
        "  mergedrv mergetool $base $left $right $output --path $path --marker-size $marker_length   (jj's merge-args)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    t.add_argument("base", help="the merge base")
    t.add_argument("left", help="ours (git: $LOCAL, jj: $left)")
    t.add_argument("right", help="theirs (git: $REMOTE, jj: $right)")
    t.add_argument("output", help="where the result goes (git: $MERGED, jj: $output)")
    t.add_argument("--path", help="the file's path in the repository (default: OUTPUT's; jj: $path)")
    t.add_argument("--marker-size", help="conflict marker size (jj: $marker_length; default 7)")
    t.add_argument("--jj-labels", action="store_true", help="label the conflict sections left/right (jj's names) instead of ours/theirs")
    t.add_argument("--config", help="read this configuration instead of the nearest .mergedrv.toml")
    t.add_argument("--tool", metavar="TOOL", help="hand the hunks left conflicted to TOOL as git mergetool runs it "
                   "($BASE $LOCAL $REMOTE $MERGED; mergetool.TOOL.cmd or a tool git knows; default: git's merge.tool)")
    t.add_argument("--no-tool", action="store_true", help="leave the conflicts marked in OUTPUT, run no other tool")


def _add_completion(sub) -> None:
    c = sub.add_parser(
        "completion",
        help="print a bash or zsh completion script, generated from this parser",
        description="Print a shell completion script for every command and option (generated by shtab from the parser).",
        epilog='examples:\n  eval "$(mergedrv completion bash)"      (in ~/.bashrc)\n'
        '  mergedrv completion zsh > "${fpath[1]}/_mergedrv"   (then restart zsh)',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("shell", choices=("bash", "zsh"), help="the shell")


# --- runners: each builds its command's typed request once and runs it; the
# command's module is imported only here, when it runs.


def _run_merge(ns) -> int:
    from .commands.merge import DriverArgs, run
    return run(DriverArgs(ns.base, ns.ours, ns.theirs, ns.path, ns.marker_size, ns.base_label, ns.ours_label,
                          ns.theirs_label, ns.config, ns.strict, ns.no_cell_merge, ns.format))


def _run_install(ns) -> int:
    from .commands import install
    code = install.run(install.Request(ns.repo, ns.uninstall, install.source_from(ns.pre_commit_repo, ns.pre_commit_rev)))
    if code == 0 and (ns.mergetool or ns.uninstall):
        return install.register_mergetool(ns.repo, print, remove=ns.uninstall)
    return code


def _run_init(ns) -> int:
    from .commands import init
    return init.run(init.Request(ns.repo, ns.force, ns.stdout))


def _run_demo(ns) -> int:
    from .commands.demo import run
    return run()


def _run_resolve(ns) -> int:
    from .commands import resolve
    return resolve.run(resolve.Request(ns.paths, ns.add))


def _run_anchors(ns) -> int:
    from .commands import anchors
    return anchors.run(anchors.Request(ns.upstream, ns.pin, ns.to, ns.format, ns.config, ns.files, ns.exclude))


def _run_check(ns) -> int:
    from .commands import check
    return check.run(check.Request(ns.staged, ns.commit, ns.message_file, ns.only, ns.format, ns.config,
                                   ns.base, ns.head, ns.merge_head, ns.rewritten, ns.all, ns.ref_update, ns.fix,
                                   ns.jobs))


def _jobs(text: str) -> int:
    """``--jobs N``: a whole number of processes, at least 1."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes (1 or more)")
    return n


def _run_fix(ns) -> int:
    from .commands import fix
    return fix.run(fix.Request(ns.config, ns.all))


def _add_claim_pins(sub) -> None:
    c = sub.add_parser(
        "claim-pins",
        help="write the pin claims of the staged change into a commit message (prepare-commit-msg hook)",
        description="For each pin the staged .mergedrv.toml moves against HEAD's, add `NAME OLD -> NEW` on a line "
        "of its own to the message file, after what is written there and before git's comment lines, unless the "
        "message already says it. Nothing is written for the sources merge, squash and commit (an amend or -c/-C): "
        "that message is not a new one. Exit 0, also when there is nothing to add; 2 when the file cannot be read.",
        epilog="example (what the installed hook runs):\n  mergedrv claim-pins .git/COMMIT_EDITMSG message",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("message_file", metavar="FILE", help="the commit message file (git's first hook argument)")
    c.add_argument("source", nargs="?", default="", help="where the message came from (git's second argument)")
    c.add_argument("commit", nargs="?", default="", help="the commit of source `commit` (git's third argument)")


def _run_claim_pins(ns) -> int:
    from .commands import claim_pins
    return claim_pins.run(ns.message_file, ns.source, ns.commit)


def _run_update_branch(ns) -> int:
    from .commands import update_branch
    return update_branch.run(update_branch.Request(ns.base, ns.rebase, ns.remote, ns.branch, not ns.no_push, ns.comment_file, ns.repo, ns.renumber))


def _run_doctor(ns) -> int:
    from .commands import doctor
    return doctor.run(doctor.Request(ns.repo, ns.ci, ns.format))


def _run_review(ns) -> int:
    from .commands import review
    return review.run(review.Request(ns.path, ns.count, ns.repo, ns.format))


def _run_mergetool(ns) -> int:
    from .commands import mergetool
    return mergetool.run(mergetool.Request(ns.base, ns.left, ns.right, ns.output, ns.path, ns.marker_size, ns.jj_labels, ns.config,
                                             "" if ns.no_tool else ns.tool))


def _run_completion(ns) -> int:
    from .commands import completion
    return completion.run(build_parser(), ns.shell)


def _add_renumber(sub) -> None:
    r = sub.add_parser(
        "renumber",
        help="move the numbered keys this branch and REF both added to the next free numbers",
        description="Run on a branch: each numbered key (a key_pattern ending in digits, or numbered = true) that "
        "the branch added since its merge base with REF, and that REF added too with a different row, moves to the "
        "next free number, above the highest on both sides, with the key's own width (ADR-0013 -> ADR-0014). "
        "The move rewrites the record row; every whole-word occurrence of the old key in the files the branch "
        "changed (ADR-00130 stays); and the files the branch changed whose names carry the number the way the "
        "row's links do (0013-use-y.md -> 0014-use-y.md, with git mv; also a file it added named from the number on, "
        "or carrying the key), with the links to them. It touches nothing "
        "REF added and no file the branch did not change, then commits the move. "
        "Exit 0: moved, or nothing to move; 1: a key it cannot move (the branch and REF changed the same row "
        "citing it); 2: usage, configuration or git error.",
        epilog="examples:\n  mergedrv renumber --onto main\n  mergedrv renumber --onto origin/main --dry-run\n"
        "  mergedrv renumber --onto main --no-commit   (stage the move, commit it yourself)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("--onto", required=True, metavar="REF", help="the branch whose numbers stand (e.g. main, origin/main)")
    r.add_argument("--dry-run", action="store_true", help="print the moves, change nothing")
    r.add_argument("--no-commit", action="store_true", help="stage the move without committing it")
    r.add_argument("--repo", default=".", metavar="DIR", help="the repository (default: the current one)")


def _add_next(sub) -> None:
    n = sub.add_parser(
        "next",
        help="print the next free number of a numbered record, counting every branch",
        description="Print the next free key of record NAME: above the highest number held by the working tree, "
        "any local branch or any remote-tracking branch (refs/remotes/*), with the keys' width. Take it for a "
        "new row, and no open branch holds it (fetch first to see the others' branches).",
        epilog="examples:\n  mergedrv next ADR\n  git fetch && mergedrv next ADR",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    n.add_argument("name", metavar="NAME", help="the record's name in .mergedrv.toml")
    n.add_argument("--repo", default=".", metavar="DIR", help="the repository (default: the current one)")


def _run_renumber(ns) -> int:
    from .commands import renumber

    return renumber.run(renumber.Request(ns.onto, ns.dry_run, not ns.no_commit, ns.repo))


def _run_next(ns) -> int:
    from .commands import next as next_command

    return next_command.run(next_command.Request(ns.name, ns.repo))


def _lazy(module: str, attr: str): return lambda arg: getattr(__import__(f"mergedrv.{module}", fromlist=[attr]), attr)(arg)  # noqa: E704


# Every subcommand: name -> (function adding its parser, its runner).  Keep the
# parser functions free of imports; the work is imported lazily by the runner.
SUBCOMMANDS = {
    "merge": (_add_merge, _run_merge),
    "install": (_add_install, _run_install),
    "init": (_add_init, _run_init),
    "demo": (_add_demo, _run_demo),
    "resolve": (_add_resolve, _run_resolve),
    "anchors": (_add_anchors, _run_anchors),
    "check": (_add_check, _run_check),
    "fix": (_add_fix, _run_fix),
    "claim-pins": (_add_claim_pins, _run_claim_pins),
    "update-branch": (_add_update_branch, _run_update_branch),
    "doctor": (_add_doctor, _run_doctor),
    "review": (_add_review, _run_review),
    "mergetool": (_add_mergetool, _run_mergetool),
    "renumber": (_add_renumber, _run_renumber),
    "next": (_add_next, _run_next),
    "completion": (_add_completion, _run_completion),
}


def _attach_values(argv: list[str]) -> list[str]:
    """``-p VALUE`` -> ``--path=VALUE``: git fills these from %P and the
    labels, which may start with '-' and must not be read as options."""
    from .commands.merge import VALUE_FLAGS

    out = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in VALUE_FLAGS and i + 1 < len(argv):
            out.append(f"--{VALUE_FLAGS[arg].replace('_', '-')}={argv[i + 1]}")
            i += 2
        else:
            out.append(arg)
            i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and argv[0] in SUBCOMMANDS else None)
    try:
        ns = _parse(parser, _attach_values(argv) if argv[:1] == ["merge"] else argv)
    except SystemExit as exc:
        if argv[:1] == ["merge"]:  # git treats any exit code but 0 as a conflict: keep usage errors at 1
            return 0 if exc.code == 0 else 1
        raise
    if ns.command is None:
        parser.print_help()
        return 2
    from .errors import reported

    return reported(ns.command, lambda: _dispatch(ns))  # the one handler: every usage, configuration and git error


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    ns, extra = parser.parse_known_args(argv)
    if extra:  # the subcommand's usage, not the top-level one
        _subparser(parser, ns.command).error(f"unrecognized arguments: {' '.join(extra)}")
    return ns


def _subparser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    """The parser of ``command`` (the top-level one when there is none)."""
    return getattr(parser, "subcommands", {}).get(command, parser) if command else parser


def _dispatch(ns: argparse.Namespace) -> int:
    """Run the command through its runner (SUBCOMMANDS), which builds its typed request."""
    runner = SUBCOMMANDS[ns.command][1]
    if not hasattr(ns, "color"):
        return runner(ns)
    from .commands import report
    return report.run(ns.command, ns, runner)
