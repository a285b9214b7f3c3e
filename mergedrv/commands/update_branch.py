"""`mergedrv update-branch`: bring a pull request's branch up to date with its base, by key.

Merges the base into the current branch (or rebases onto it) with the keyed
merge driver registered for this one run, whatever the clone's own git config
says. When every conflict resolved by key and the record checks pass, the
merge is committed and pushed to the branch's upstream (never forced). When
anything is left - a record conflict, a file that is not a record, a finding -
the branch is put back exactly as it was and each problem is reported as
`path:line: kind: key: why`.

Exit 0: updated and pushed (or already up to date); 1: left to people,
nothing pushed; 2: usage, git or push error (the remote refused the push).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Error
from ..forge import MARKER, code_span, fence, one_line, quote_path
from ..git import Ran, git, git_or_none, run as run_git
from ..values import Value

_DRIVER_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): conflict: (?P<rest>.+)$")


UpdateError = Error  # a problem to show as one line; cli.py's handler prints it, the command exits 2


@dataclass(slots=True)
class Outcome:
    """What happened, for the terminal and the pull-request comment."""

    status: str = ""  # pushed, updated, up-to-date, conflicts, left-to-people, findings
    summary: str = ""
    problems: list[str] = field(default_factory=list)  # path:line: kind: key: why
    commit: str = ""


def _s(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _run(root: Path, *args: str, config: list[str] | None = None, input: bytes | None = None) -> Ran:
    """``git [-c ITEM]... ARGS`` through mergedrv.git's one runner, whatever its exit status."""
    return run_git(root, *[a for item in config or [] for a in ("-c", item)], *args, input=input)


def _git(root: Path, *args: str) -> str:
    return _s(git(root, *args))


def _ok(root: Path, *args: str) -> str | None:
    out = git_or_none(root, *args)
    return None if out is None else _s(out).strip()


def _mergedrv(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mergedrv", *args], cwd=root, capture_output=True, text=True)


# --- the driver, registered for this run only -------------------------------------


def run_config(root: Path, cfg, tmp: str) -> list[str]:
    """`git -c` settings that register the keyed driver and its attributes for one command.

    The attribute lines go to a temporary core.attributesFile (the user's own,
    if any, first), so a record whose committed `.gitattributes` line is
    missing still merges by key in this run; committed lines take precedence.
    """
    from .install_files import DRIVER, DRIVER_NAME, attribute_lines, driver_command, executable

    existing = ""
    user = _ok(root, "config", "--path", "--get", "core.attributesFile")
    if user and os.path.isfile(user):
        existing = Path(user).read_text(errors="replace")
        if existing and not existing.endswith("\n"):
            existing += "\n"
    attrs = Path(tmp) / "attributes"
    attrs.write_text(existing + "".join(attribute_lines(cfg)))
    return [
        f"merge.{DRIVER}.name={DRIVER_NAME}",
        f"merge.{DRIVER}.driver={driver_command(executable())}",
        f"core.attributesFile={attrs}",
    ]


# --- conflicts -------------------------------------------------------------------


def _declared(cfg, path: str) -> bool:
    from ..config import CONFIG_NAME

    return os.path.basename(path) == CONFIG_NAME or cfg.record_for(path) is not None or cfg.log_for(path) is not None


def _first_marker(root: Path, path: str) -> int:
    try:
        with open(root / path, "rb") as fh:
            for n, line in enumerate(fh, 1):
                if line.startswith(b"<<<<<<<"):
                    return n
    except OSError:
        pass
    return 1


def _unmerged(root: Path) -> dict[str, set[int]]:
    """Path -> the index stages it has, for every conflicted path."""
    out: dict[str, set[int]] = {}
    for entry in _git(root, "ls-files", "-u", "-z").split("\0"):
        if entry:
            meta, path = entry.split("\t", 1)
            out.setdefault(path, set()).add(int(meta.split()[2]))
    return out


def conflicts(root: Path, cfg, stderr: str) -> tuple[list[str], bool]:
    """(`path:line: kind: key: why` for each conflict, whether a non-record file conflicts)."""
    driver: dict[str, list[str]] = {}
    for line in stderr.splitlines():
        m = _DRIVER_LINE.match(line.strip())
        if m:
            driver.setdefault(m["path"], []).append(f"{m['path']}:{m['line']}: {m['rest']}")
    out: list[str] = []
    foreign = False
    for path, stages in _unmerged(root).items():
        if 2 not in stages or 3 not in stages:
            side = "ours" if 2 not in stages else "theirs"
            kind, why = "modify-delete", f"deleted by {side} (the {'branch' if side == 'ours' else 'base'}), changed by the other"
        elif not _declared(cfg, path):
            kind, why = "text", "not a record: git could not merge it; left to people"
        else:
            kind, why = "text", "git left this record conflicted"
        # a path as git quotes it ("a\nb") when it holds a line break: each problem stays one line
        if not _declared(cfg, path):
            foreign = True
            out.append(f"{quote_path(path)}:{_first_marker(root, path)}: {kind}: -: {why}")
        elif path in driver and kind == "text" and quote_path(path) == path:
            out.extend(driver[path])
        else:
            out.append(f"{quote_path(path)}:{_first_marker(root, path)}: {kind}: -: {why}")
    return out, foreign


# --- the command -------------------------------------------------------------------


@dataclass(slots=True)
class Target:
    branch: str  # the local branch
    remote: str | None  # where to push (None: --no-push)
    dest: str  # the branch on the remote


def _target(root: Path, remote: str | None, dest: str | None, push: bool) -> Target:
    branch = _ok(root, "symbolic-ref", "--short", "-q", "HEAD")
    if not branch:
        raise UpdateError("HEAD is detached; check out the pull request's branch first (git switch BRANCH)")
    if not push:
        return Target(branch, None, dest or branch)
    remote = remote or _ok(root, "config", "--get", f"branch.{branch}.remote")
    if not remote or remote == ".":
        remote = "origin" if _ok(root, "remote", "get-url", "origin") else None
    if not remote:
        raise UpdateError(f"{branch} has no upstream and there is no remote 'origin'; pass --remote NAME (or --no-push)")
    if _ok(root, "remote", "get-url", remote) is None and "/" not in remote and ":" not in remote:
        raise UpdateError(f"no remote {remote!r}; pass --remote NAME (git remote -v lists them)")
    if dest is None:
        merge = _ok(root, "config", "--get", f"branch.{branch}.merge")
        dest = merge.removeprefix("refs/heads/") if merge else branch
    return Target(branch, remote, dest)


def _clean(root: Path) -> None:
    for name in ("MERGE_HEAD", "rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD", "REVERT_HEAD"):
        if os.path.exists(root / _git(root, "rev-parse", "--git-path", name).strip()):
            raise UpdateError(f"a {name.split('_')[0].split('-')[0].lower()} is in progress; finish or abort it first")
    if _git(root, "status", "--porcelain", "--untracked-files=no").strip():
        raise UpdateError("the working tree has uncommitted changes; commit or stash them first (git stash)")


def _restore(root: Path, orig: str, rebase: bool) -> None:
    """Put the branch back exactly as it was before this run."""
    _run(root, "rebase" if rebase else "merge", "--abort")
    if _ok(root, "rev-parse", "HEAD") != orig or _git(root, "status", "--porcelain", "--untracked-files=no").strip():
        _git(root, "reset", "-q", "--hard", orig)


def _pin_claims(root: Path, orig: str) -> list[str]:
    """`NAME pin old -> new` for each pin the update moves (the commit-msg check wants them)."""
    from ..config import CONFIG_NAME
    from ..pins import pin_lines

    before = _run(root, "show", f"{orig}:{CONFIG_NAME}")
    try:
        now = (root / CONFIG_NAME).read_bytes()
    except OSError:
        return []
    old = pin_lines(before.stdout) if before.ok else {}
    return [f"{name} pin {old[name][1]} -> {value}" for name, (_, value) in pin_lines(now).items() if name in old and old[name][1] != value]


def _finding_lines(text: str) -> list[str]:
    """The findings `mergedrv check` and `fix` print, one a line on stdout."""
    return [line for line in text.splitlines() if line.strip() and ": fixed: " not in line]


def _check_lines(text: str) -> list[str]:
    """`mergedrv check --format json` findings as problem lines (`path:line: check: message`, the
    commit of a range after it), each one line whatever its path or message holds."""
    import json

    try:
        found = json.loads(text)
    except ValueError:
        return _finding_lines(text)
    if not isinstance(found, list):
        return _finding_lines(text)
    out = []
    for f in (f for f in found if isinstance(f, dict)):
        where = f" (commit {f['commit']})" if f.get("commit") else ""
        mark = " (inherited)" if f.get("inherited") else ""
        out.append(f"{quote_path(str(f.get('path', '')))}:{f.get('line')}: {f.get('check')}: {one_line(str(f.get('message', '')))}{where}{mark}")
    return out


def update(root: Path, base: str, rebase: bool, target: Target, say, renumber: bool = False) -> Outcome:
    """Merge (or rebase onto) ``base``, fix and check, commit, push: the stages below, in order;
    with ``renumber``, the branch's numbered keys the base took too are moved first (a commit)."""
    if renumber and rebase:  # a rebase replays the commit that took the number before the move
        raise UpdateError("--renumber works with the merge, not --rebase: a rebase replays the commit that took the number first")
    cfg = _config(root)
    _clean(root)
    base_id = _ok(root, "rev-parse", "--verify", "-q", f"{base}^{{commit}}")
    if base_id is None:
        raise UpdateError(f"{base}: no such commit (fetch it first: git fetch origin)")
    orig = _git(root, "rev-parse", "HEAD").strip()
    if _run(root, "merge-base", "--is-ancestor", base_id, orig).ok:
        return Outcome("up-to-date", f"{target.branch} already contains {base}; nothing to do")
    if renumber:
        from ..renumbering import move, numbered_records

        if numbered_records(cfg):  # put back with the branch if the merge is left to people
            move(str(root), base, say, verify=False)
    with tempfile.TemporaryDirectory(prefix="mergedrv-update-") as tmp:
        extra = run_config(root, cfg, tmp)
        if rebase:
            ran = _run(root, "rebase", "--no-autostash", base_id, config=extra)
        else:
            ran = _run(root, "merge", "--no-ff", "--no-commit", "--no-edit", "--no-verify", base_id, config=extra)
        if not ran.ok:
            return _conflicted(root, cfg, ran, orig, base, rebase, target)
        problems, fixed = _fix_and_check(root, orig, base_id, rebase)
        if problems:
            _restore(root, orig, rebase)
            summary = f"the merge with {base} resolved by key but the record checks object; {target.branch} was left untouched, nothing pushed"
            return Outcome("findings", summary, problems)
        if not rebase:
            _commit(root, orig, base, target)
    out = Outcome(commit=_git(root, "rev-parse", "HEAD").strip())
    for line in fixed.stdout.splitlines() if fixed is not None else []:
        say(line)
    if target.remote is None:
        out.status, out.summary = "updated", f"{base} merged into {target.branch} by key as {out.commit[:12]} (not pushed: --no-push)"
        return out
    return _push(root, out, orig, base, rebase, target)


def _config(root: Path):
    from .. import config as cfgmod

    cfg_path = root / cfgmod.CONFIG_NAME
    if not cfg_path.is_file():
        raise UpdateError(f"{root} has no {cfgmod.CONFIG_NAME}; nothing here merges by key (mergedrv init proposes one)")
    return cfgmod.load(cfg_path)


def _conflicted(root: Path, cfg, ran: Ran, orig: str, base: str, rebase: bool, target: Target) -> Outcome:
    """The merge (or rebase) stopped: each conflict as a problem, the branch put back."""
    problems, foreign = conflicts(root, cfg, _s(ran.stderr) + _s(ran.stdout))
    _restore(root, orig, rebase)
    if not problems:
        err = _s(ran.stderr).strip()
        raise UpdateError(f"git {'rebase' if rebase else 'merge'} {base} failed: {err.splitlines()[-1] if err else f'exit {ran.status}'}")
    if foreign:
        return Outcome("left-to-people", f"files that are not records conflict with {base}; {target.branch} is left to people, untouched", problems)
    summary = f"{len(problems)} conflict(s) with {base} did not resolve by key; {target.branch} was left untouched, nothing pushed"
    return Outcome("conflicts", summary, problems)


def _fix_and_check(root: Path, orig: str, base_id: str, rebase: bool) -> tuple[list[str], subprocess.CompletedProcess | None]:
    """A clean merge: the counters both sides moved (pins, rollups, counts) rewritten,
    then the record checks; (their findings, what `mergedrv fix` printed)."""
    problems: list[str] = []
    fixed = _mergedrv(root, "fix") if not rebase else None
    if fixed is not None and fixed.returncode not in (0, 1):
        _restore(root, orig, rebase)
        raise UpdateError(f"mergedrv fix: {(fixed.stderr or fixed.stdout).strip()}")
    if fixed is not None and fixed.returncode == 1:
        problems = _finding_lines(fixed.stdout) or ["mergedrv fix: something is left that only a person can fix"]
    if not rebase:
        _git(root, "add", "-u")
        checked = _mergedrv(root, "check", "--merge-head", "--format", "json")
    else:
        checked = _mergedrv(root, "check", "--base", base_id, "--head", "HEAD", "--format", "json")
    if checked.returncode == 2:
        _restore(root, orig, rebase)
        raise UpdateError(f"mergedrv check: {checked.stderr.strip()}")
    if checked.returncode == 1:
        problems += _check_lines(checked.stdout) or [f"mergedrv check: {checked.stderr.strip()}"]
    return problems, fixed


def _commit(root: Path, orig: str, base: str, target: Target) -> None:
    """Commit the merge, naming the pins it moves (the commit-msg check wants them)."""
    message = f"Merge {base} into {target.branch}\n"
    claims = _pin_claims(root, orig)
    if claims:
        message += "\n" + "".join(f"{c}\n" for c in claims)
    message += "\nRecords merged by key with `mergedrv update-branch`.\n"
    ran = _run(root, "commit", "-q", "--no-verify", "-F", "-", input=message.encode("utf-8"))
    if not ran.ok:
        _restore(root, orig, False)
        raise UpdateError(f"git commit: {_s(ran.stderr).strip() or _s(ran.stdout).strip()}")


def _push(root: Path, out: Outcome, orig: str, base: str, rebase: bool, target: Target) -> Outcome:
    """Push to the branch's upstream, never forced; refused: the branch put back, an error."""
    push = _run(root, "push", "--porcelain", target.remote or "", f"HEAD:refs/heads/{target.dest}")
    if not push.ok:
        _git(root, "reset", "-q", "--hard", orig)
        reasons = [line.strip() for line in (_s(push.stderr) + _s(push.stdout)).splitlines() if line.startswith(("remote:", "!", "error:")) or "rejected" in line]
        why = "; ".join(dict.fromkeys(r for r in reasons if r and r != "remote:")) or f"git push exit {push.status}"
        hint = " (a rebased branch can only be pushed by force, which mergedrv never does: use the merge, or --no-push)" if rebase else ""
        raise UpdateError(
            f"the remote refused the push to {target.remote} {target.dest}: {why}{hint}; {target.branch} was put back as it was, nothing was pushed"
        )
    out.status = "pushed"
    out.summary = f"{base} merged into {target.branch} by key and pushed to {target.remote} {target.dest} as {out.commit[:12]}"
    return out


def comment(outcome: Outcome, base: str) -> str:
    """The pull-request comment: one, found again by its hidden marker and edited in place.

    Everything from the pull request (names, paths, messages) is in a code span or a
    fenced block whose backticks outnumber any run inside: none of it renders as markdown.
    """
    rev = code_span(base)
    lines = [MARKER, ""]
    if outcome.status == "pushed":
        lines.append(f"**mergedrv**: merged {rev} into this branch by key and pushed {code_span(outcome.commit[:12])}; the records conflict no more.")
    elif outcome.status in ("up-to-date", "updated"):
        lines += ["**mergedrv**:", "", *fence([outcome.summary])]
    else:
        head = {
            "conflicts": f"**mergedrv**: this branch conflicts with {rev} in ways no key decides. The branch was left as it was; nothing was pushed.",
            "left-to-people": f"**mergedrv**: files that are not records conflict with {rev}; this branch is left to people, untouched.",
            "findings": f"**mergedrv**: the records merged with {rev} by key, but the record checks object. The branch was left as it was; nothing was pushed.",
        }.get(outcome.status)
        lines += [head] if head else ["**mergedrv**:", "", *fence([outcome.summary])]
        lines += ["", *fence(outcome.problems), "",
                  f"To resolve locally: `mergedrv install` once, then {code_span(f'git merge {base}')} (record files merge by key), fix what is left, commit and push."]
    return "\n".join(lines) + "\n"


class Request(Value):
    """`mergedrv update-branch --base REV [--rebase] [--remote R] [--branch B] [--no-push] [--comment-file F] [--repo DIR]`
    (built once, in cli.py)."""

    __slots__ = ("base", "rebase", "remote", "branch", "push", "comment_file", "repo", "renumber")

    def __init__(self, base: str, rebase: bool = False, remote: str | None = None, branch: str | None = None,
                 push: bool = True, comment_file: str | None = None, repo: str = ".", renumber: bool = False) -> None:
        self.base = base
        self.rebase = rebase
        self.remote = remote
        self.branch = branch
        self.push = push
        self.comment_file = comment_file
        self.repo = repo
        self.renumber = renumber


def run(req: Request) -> int:
    """0 pushed or up to date, 1 left as it was; an Error (2, printed by cli.py's handler)
    after the comment file, if asked for, says so too."""
    from ..git import toplevel

    say = lambda msg: print(msg)  # noqa: E731
    try:
        root = Path(toplevel(req.repo))
        target = _target(root, req.remote, req.branch, req.push)
        outcome = update(root, req.base, req.rebase, target, say, req.renumber)
    except Error as exc:
        if req.comment_file:
            _write_comment(req.comment_file, Outcome("error", str(exc)), req.base, str(exc))
        raise
    for line in outcome.problems:
        say(line)
    print(f"mergedrv update-branch: {outcome.summary}", file=sys.stderr)
    if req.comment_file:
        _write_comment(req.comment_file, outcome, req.base)
    return 1 if outcome.problems else 0


def _write_comment(path: str, outcome: Outcome, base: str, error: str | None = None) -> None:
    from ..atomic import atomic_write

    text = comment(outcome, base) if error is None else "\n".join([MARKER, "", "**mergedrv** could not update this branch:", "", *fence([error]), ""])
    try:
        atomic_write(path, text.encode("utf-8"))
    except OSError as exc:
        print(f"mergedrv update-branch: {path}: cannot write the comment: {exc.strerror}", file=sys.stderr)
