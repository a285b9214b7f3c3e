"""A commit message as git records it, the commit being replaced by
`git commit --amend`, and the commit-msg hook's quick answer.

The commit-msg hook runs on every commit; when the message claims no pin move
and the staged `.mergedrv.toml` is its parent's, pin-claims has nothing to
judge, which one `git rev-parse` tells before the checks (or the
configuration) load.  The parent is HEAD, or HEAD's parent while the commit
replaces HEAD: prepare-commit-msg (`claim-pins`), told so by git's arguments
(`commit HEAD`), leaves HEAD's id in the git folder for commit-msg.
"""

from __future__ import annotations

import os

from ..names import CONFIG_NAME  # noqa: F401 - without loading the configuration package
from ..pins import ARROWS


def commit_message(text: str) -> str:
    """A message as git would record it: comment lines and the scissors cut dropped."""
    out = []
    for line in text.split("\n"):
        if line.startswith("# ------------------------ >8 ------------------------"):
            break
        out.append("" if line.startswith("#") else line)
    return "\n".join(out)


AMENDING = "mergedrv/amending"  # in the git folder: HEAD's id while a commit replaces it (`git commit --amend`)


def _marker(root: str) -> str:
    from ..replaying import git_dir

    return os.path.join(git_dir(root), AMENDING)


def note_amending(root: str, head: str | None) -> None:
    """Leave ``head`` (HEAD's id: the commit being made replaces it) for the
    commit-msg hook, or remove what an earlier commit left (None)."""
    path = _marker(root)
    try:
        if head is None:
            if os.path.exists(path):
                os.unlink(path)
            return
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="ascii") as f:
            f.write(head + "\n")
    except OSError:
        pass  # (a note: without it the claims are judged against HEAD, as before)


def amending(root: str = ".") -> str | None:
    """The id prepare-commit-msg left when the commit being made replaces HEAD
    (checked against HEAD by the caller), or None."""
    from ..replaying import read

    data = read(_marker(root))
    found = data.decode("ascii", "replace").strip() if data else ""
    return found or None


def parent_rev(root: str = ".") -> str:
    """The revision the commit being made is a child of: ``HEAD^`` when it
    replaces HEAD (`amending` names HEAD), else ``HEAD``."""
    marked = amending(root)
    if marked is None:
        return "HEAD"
    from ..spawn import captured

    try:
        status, out, _ = captured(root, ["git", "rev-parse", "-q", "--verify", "HEAD"])
    except OSError:
        return "HEAD"
    return "HEAD^" if status == 0 and out.decode("ascii", "replace").strip() == marked else "HEAD"


def _read(message_file: str) -> str | None:
    """The commit message in ``message_file`` as git will record it (None if unreadable)."""
    try:
        with open(message_file, "rb") as f:
            return commit_message(f.read().decode("utf-8", "replace"))
    except OSError:
        return None


def claims_nothing(message_file: str) -> bool:
    """The message in ``message_file`` claims no move and the index's
    `.mergedrv.toml` is its parent's (False when unsure: the full check decides)."""
    message = _read(message_file)
    if message is None or any(a in message for a in ARROWS):
        return False
    from ..spawn import captured

    try:  # `:path` and `HEAD:path` name paths from the top of the work tree, wherever git runs
        status, out, _ = captured(".", ["git", "rev-parse", f":{CONFIG_NAME}", f"{parent_rev()}:{CONFIG_NAME}"])
    except OSError:
        return False
    ids = out.decode("utf-8", "surrogateescape").split() if status == 0 else []
    return len(ids) == 2 and ids[0] == ids[1]


def claims_hold(message_file: str, root: str = ".") -> bool:
    """The message claims exactly the pin moves of the staged change, each
    true (``NAME old -> new``: the parent's pin, the index's), and the index's
    `.mergedrv.toml` is its parent's but for those pins, outside a merge:
    what pin-claims passes, told from the two configuration texts alone (the
    commit-msg hook of a row addition; False when unsure: the full check decides)."""
    from ..git import batch_blobs, merge_in_progress
    from ..pins import chain_holds, claim_chains, claims, moved_pins, pin_lines, record_names
    from ..spawn import captured

    message = _read(message_file)
    if message is None or not any(a in message for a in ARROWS) or merge_in_progress(root):
        return False
    ask = f":{CONFIG_NAME}\n{parent_rev(root)}:{CONFIG_NAME}\n".encode("utf-8", "surrogateescape")
    try:
        status, out, _ = captured(root, ["git", "cat-file", "--batch"], input=ask)
    except OSError:
        return False
    texts = batch_blobs(out) if status == 0 else None
    if texts is None or len(texts) != 2 or moved_pins(texts[0], texts[1]) is None:
        return False
    now, before = pin_lines(texts[0]), pin_lines(texts[1])
    said = claims(message, record_names(texts[0]))
    if any(now[n][1] != before[n][1] for n in now if n not in {name for name, *_ in said}):
        return False  # a moved pin the message does not claim
    chains = claim_chains(said)
    for name, old, new, _ in said:
        if name not in now:
            return False  # a key count's claim (a record without a pin): the records must be read
        was, pin = before[name][1], now[name][1]
        if not ((name in chains and chain_holds(chains[name], was, pin)) or (old == was and new == pin)):
            return False
    return True


def folding() -> bool:
    """A rebase is folding a `fixup` or `squash` into HEAD (the sequencer's
    `current-fixups` lists the ones so far): the commit made replaces HEAD."""
    from ..replaying import git_dir, read

    return bool((read(os.path.join(git_dir("."), "rebase-merge", "current-fixups")) or b"").strip())


def git_command_line() -> list[str] | None:
    """The arguments of the `git` process this hook runs under, read from
    /proc (Linux; None elsewhere, or when no ancestor is git: an alias such
    as `git ca` names no option, and the commit is taken for an amend)."""
    pid = os.getppid()
    for _ in range(4):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = [a.decode("utf-8", "replace") for a in f.read().split(b"\0") if a]
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            return None
        if args and os.path.basename(args[0]) in ("git", "git.exe"):
            return args
        fields = stat.rsplit(b")", 1)[-1].split()
        pid = int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0
        if pid <= 1:
            return None
    return None


def git_subcommand(args: list[str] | None) -> str:
    """The git command a command line runs (`git -c k=v -C dir revert X`: ``revert``; "" if none)."""
    rest = list(args or [])[1:]
    while rest and rest[0].startswith("-"):
        flag = rest.pop(0)
        if flag in ("-c", "-C") and rest:  # (their value is the next argument)
            rest.pop(0)
    return rest[0] if rest else ""


def sequenced() -> str:
    """`revert` or `cherry-pick` when this hook runs under a `git revert` or
    `git cherry-pick` making its commit itself, which runs no pre-commit
    hook (prepare-commit-msg runs; "" otherwise, and where /proc cannot say)."""
    command = git_subcommand(git_command_line())
    return command if command in ("revert", "cherry-pick") else ""


def says_amend(args: list[str] | None) -> bool:
    """The git command line is `git commit --amend` (`--am`, `--ame`: git takes a long option's prefix)."""
    return args is not None and "commit" in args and any(len(a) >= 4 and "--amend".startswith(a) for a in args)


def amended_parent(root: str = ".") -> str:
    """For the pre-commit hook, which git runs before it says a commit is an
    amend: ``HEAD^`` when the git command line says `commit --amend` (or a
    rebase folds a fixup into HEAD) and HEAD is no merge, else ``HEAD``."""
    if not (says_amend(git_command_line()) or folding()):
        return "HEAD"
    return "HEAD^" if len(head_and_parents(root)) == 2 else "HEAD"


def head_and_parents(root: str = ".") -> list[str]:
    """HEAD's id and its parents' ([] on an unborn branch or when git cannot say)."""
    from ..spawn import captured

    try:
        status, out, _ = captured(root, ["git", "rev-list", "--parents", "-n", "1", "HEAD"])
    except OSError:
        return []
    return out.decode("ascii", "replace").split() if status == 0 else []
