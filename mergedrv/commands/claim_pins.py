"""`mergedrv claim-pins` (the prepare-commit-msg hook): write `NAME OLD -> NEW`,
alone on a line, into the commit message for each pin the staged change moves
(`git commit --amend`: against HEAD's parent; it, `git merge --squash`, and a
revert's or cherry-pick's message replace the claims it holds that do not hold)."""

from __future__ import annotations

import os
import sys

from .message import CONFIG_NAME, commit_message

SKIPPED = ("merge", "squash", "commit")  # git's message sources whose text is not the user's new message


def moved_pins(head: bytes, index: bytes) -> list[tuple[str, int, int]]:
    """(name, old, new) for each pin that differs between two `.mergedrv.toml` texts."""
    from ..pins import pin_lines

    old, new = pin_lines(head), pin_lines(index)
    return [(name, old[name][1], pin) for name, (_, pin) in new.items() if name in old and old[name][1] != pin]


def with_claims(text: str, lines: list[str]) -> str:
    """The message ``text`` with ``lines`` after what the user wrote (a blank
    line between), before git's comment lines and the scissors cut."""
    parts = text.split("\n")
    end = len(parts)
    for i, line in enumerate(parts):
        if line.startswith("#"):
            end = i
            break
    body = parts[:end]
    while body and not body[-1].strip():
        body.pop()
    head = body + [""] if body else ["", ""]
    rest = parts[end:]
    return "\n".join(head + lines + ([""] + rest if rest else [""]))


def _amended(source: str, commit: str) -> str | None:
    """HEAD's id when the commit being made replaces HEAD: git says the
    message is HEAD's own (`commit HEAD`: `git commit --amend`), or the git
    command line says `--amend` (`--amend -m MESSAGE` gives `message`); not
    when HEAD is a merge (a merge's pins move by its parents' claims) or the
    command is a new commit reusing HEAD's message (`-c HEAD`, `-C HEAD`).
    A rebase's `fixup` or `squash` replaces HEAD too (`message.folding`)."""
    said = source == "commit" and commit == "HEAD"
    if not said and source not in ("message", "template", ""):
        return None
    from .message import folding, git_command_line, head_and_parents, says_amend

    args = git_command_line()
    amend = says_amend(args) or folding()
    if (said and args is not None and "commit" in args and not amend) or not (said or amend):
        return None  # (`git commit -C HEAD`: a new commit on HEAD; or no amend at all)
    ids = head_and_parents()
    return ids[0] if ids and len(ids) <= 2 else None


def _picked(source: str) -> bool:
    """The message is another commit's: a `git revert` or `git cherry-pick`
    making its commit (``message``), or `git commit` concluding one that
    stopped (``merge``: git's MERGE_MSG, with no merge under way)."""
    from .message import sequenced

    if source == "merge":
        from ..replaying import git_dir

        return not os.path.exists(os.path.join(git_dir("."), "MERGE_HEAD"))
    return source == "message" and bool(sequenced())


def _blobs(parent: str, same: bool = False) -> list[bytes] | None:
    """The index's and ``parent``'s `.mergedrv.toml` ([index, parent]), None
    when either is missing or (unless ``same``) they are the same blob."""
    from ..spawn import captured

    status, out, _ = captured(".", ["git", "rev-parse", f":{CONFIG_NAME}", f"{parent}:{CONFIG_NAME}"])
    ids = out.decode("utf-8", "surrogateescape").split() if status == 0 else []
    if len(ids) != 2 or (ids[0] == ids[1] and not same):
        return None
    blobs = []
    for blob in ids:
        status, data, _ = captured(".", ["git", "cat-file", "blob", blob])
        if status != 0:
            return None
        blobs.append(data)
    return blobs


def _without_stale(text: str, moves: list[tuple[str, int, int]], pinned: list[str]) -> str:
    """``text`` without the claim lines of pinned records that the amended
    commit no longer makes (a line holding one such claim goes whole)."""
    from ..pins import claims

    stale = {line for n, o, w, line in claims(commit_message(text), pinned) if (n, o, w) not in set(moves)}
    if not stale:
        return text
    return "\n".join(line for i, line in enumerate(text.split("\n"), 1) if i not in stale)


def run(message_file: str, source: str = "", commit: str = "") -> int:
    """Add the claims the message lacks; exit 0 (nothing to say is no failure), 2 on an error."""
    from .message import note_amending

    amend = _amended(source, commit)
    note_amending(".", amend)
    fold = amend is not None or source == "squash" or _picked(source)  # (the message holds claims of other commits: the untrue ones go)
    if source in SKIPPED and not fold:
        return 0
    blobs = _blobs("HEAD^" if amend else "HEAD", same=fold)
    if blobs is None:
        return 0
    moves = moved_pins(blobs[1], blobs[0])
    if not moves and not fold:
        return 0
    try:
        with open(message_file, "rb") as f:
            text = f.read().decode("utf-8", "surrogateescape")
    except OSError as exc:
        print(f"mergedrv claim-pins: cannot read the message file {message_file}: {exc.strerror}", file=sys.stderr)
        return 2
    from ..pins import claims
    from ..pins import pin_lines

    was = text
    if fold:
        text = _without_stale(text, moves, list({*pin_lines(blobs[0]), *pin_lines(blobs[1])}))
    said = {(n, o, w) for n, o, w, _ in claims(commit_message(text), [n for n, _, _ in moves])}
    missing = [f"{n} {o} -> {w}" for n, o, w in moves if (n, o, w) not in said]
    if not missing and text == was:
        return 0
    from ..atomic import atomic_write

    atomic_write(os.path.abspath(message_file), (with_claims(text, missing) if missing else text).encode("utf-8", "surrogateescape"))
    return 0
