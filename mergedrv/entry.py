"""The `mergedrv` command: git's merge-driver call is served before the
argument parser is even imported (one process per file per merge), and so
are the two checks the commit hooks run on every commit; every other use
goes to the full command line in cli.py."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["merge"]:  # any other command (a hook's check) does not load the merge
        import gc

        gc.disable()  # a short-lived process: a collection during the imports alone costs ~0.5 ms
        from .commands.merge import fast_args

        args = fast_args(argv)
        if args is not None:
            from .commands.merge import run

            return run(args)
    elif _hook_check(argv):
        return _run_hook_check(argv)
    elif argv[:1] == ["claim-pins"] and 2 <= len(argv) <= 4 and not any(a.startswith("-") for a in argv[1:]):
        from .commands.claim_pins import run as claim  # the prepare-commit-msg hook, on every commit

        status = claim(*argv[1:])
        if status == 0:
            from .commands.message import sequenced

            command = sequenced()
            if command:  # (a revert or cherry-pick making its commit: no pre-commit hook ran)
                from .commands.check import run_sequenced
                from .errors import reported

                return reported("check", lambda: run_sequenced(command))
        return status
    from .cli import main as cli_main

    return cli_main(argv)


def _hook_check(argv: list[str]) -> bool:
    """The exact calls the installed hooks make on every commit: pre-commit's
    ``check --staged [--fix]`` and commit-msg's ``check --staged --message-file FILE
    --only pin-claims`` (anything else, even reordered, goes to cli.py)."""
    return argv in (["check", "--staged"], ["check", "--staged", "--fix"]) or (
        len(argv) == 6 and argv[:3] == ["check", "--staged", "--message-file"] and argv[4:] == ["--only", "pin-claims"]
        and not argv[3].startswith("-") and argv[3] != ""
    )


def _run_hook_check(argv: list[str]) -> int:
    """`check` as cli.py runs it for these arguments, without argparse (~4 ms a hook)."""
    message_file = argv[3] if len(argv) == 6 else None
    if message_file is not None:
        from .commands.message import claims_hold, claims_nothing

        if claims_nothing(message_file) or claims_hold(message_file):
            return 0  # what check.run answers first for this call, before it loads anything
    from .commands import check
    from .errors import reported

    fix = "pass" if argv[2:] == ["--fix"] else None
    return reported("check", lambda: check.run(check.Request(True, None, message_file, "pin-claims" if message_file else None, fix=fix)))
