"""`mergedrv check`: pick the snapshot, run the checks, report.

Working tree (default), the index (``--staged``), one commit (``--commit``)
or a commit message (``--message-file``, commit-msg hook).  Range, merge and
rewrite modes run the `history` checks (run_history).  Exit 0: nothing
found; 1: findings; 2: usage, configuration or git error.
"""

from __future__ import annotations

import os
import sys

from .. import config as cfgmod
from ..git import GitError, GitRev, Snapshot, WorkTree, git, git_text, merge_in_progress
from ..errors import Error
from ..findings import render
from ..values import Value
from .message import claims_nothing, commit_message  # noqa: F401 - commit_message is part of this module's face
from .workdir import config_for, configured_paths, enter

HISTORY_FLAGS = ("base", "head", "merge_head", "rewritten")


UsageError = Error  # a problem with the command line or the repository: exit 2, one line


class Request(Value):
    """`mergedrv check` as the command line asked for it (built once, in cli.py).

    ``config_file`` is --config made absolute where the user was: the check
    runs from the top of the working tree, and a relative --config keeps
    naming the file it named.
    """

    __slots__ = ("staged", "commit", "message_file", "only", "format", "config", "config_file",
                 "base", "head", "merge_head", "rewritten", "all", "ref_update", "fix", "jobs")

    def __init__(self, staged: bool = False, commit: str | None = None, message_file: str | None = None,
                 only: str | None = None, format: str = "text", config: str | None = None,
                 base: str | None = None, head: str | None = None, merge_head: bool = False,
                 rewritten: str | None = None, all: bool = False, ref_update: str | None = None,
                 fix: str | None = None, jobs: int | None = None) -> None:
        self.staged = staged
        self.commit = commit
        self.message_file = message_file
        self.only = only
        self.format = format or "text"
        self.config = config
        self.config_file = os.path.abspath(config) if config else None
        self.base = base
        self.head = head
        self.merge_head = merge_head
        self.rewritten = rewritten
        self.all = all  # inherited findings fail the check too
        self.ref_update = ref_update  # the reference-transaction hook's state
        self.fix = fix  # --fix: "pass" (the plain hook) or "fail" (the pre-commit framework: fail after fixing)
        self.jobs = jobs  # --jobs: range mode's processes (None: the usable CPUs)

    def history_mode(self) -> bool:
        """Range, --merge-head or --rewritten: the history checks."""
        return any(getattr(self, flag) for flag in HISTORY_FLAGS)


class Setup(Value):
    """What one check run reads: configuration, snapshot, parent, message."""

    __slots__ = ("cfg", "snap", "parent", "message", "context", "repo", "scoped")

    def __init__(
        self,
        cfg: cfgmod.Config,
        snap: Snapshot,
        parent: Snapshot | None = None,
        message: str | None = None,
        context: dict | None = None,
        repo: object = None,
    ) -> None:
        self.cfg = cfg
        self.snap = snap
        self.parent = parent
        self.message = message
        self.context = {} if context is None else context
        self.repo = repo
        self.scoped = None  # the hook's check of what the staged change touched: (`Scope`, HEAD's configuration)


def setup(req: Request, before: Setup | None = None) -> Setup:
    """Build what `run_checks` reads from the command line (``before``: the
    check of the index before `--fix` restaged it, whose reads and parses
    the check after it shares)."""
    root = enter()
    if not (req.staged or req.commit or req.message_file):
        snap = WorkTree(root)
        cfg, context = config_for(req, snap, "the working tree")
        parent = _parent_rev(root, configured_paths(cfg), context)
        return Setup(cfg, snap, parent if parent.exists else None, None, context)
    if not req.commit and not merge_in_progress(root):
        return _staged_plain(req, root, before)
    from .. import git as gitmod

    repo = gitmod.repository(root, index=not req.commit)
    if req.commit:
        commit = gitmod.resolve_commit(repo, req.commit, "--commit")
        snap = gitmod.Tree(repo, commit.tree, commit.short_id)
        cfg, context = config_for(req, snap, f"commit {req.commit}")
        parents = list(commit.parents)
        parent = gitmod.Tree(repo, parents[0].tree, parents[0].short_id) if parents else None
        context.update(gitmod.merge_sides(repo, parents))
        context["message_path"] = f"{commit.short_id}^{{message}}"
        return Setup(cfg, snap, parent, commit.message, context, repo)
    snap = gitmod.index_snapshot(repo)
    cfg, context = config_for(req, snap, "the index")
    parent = None if repo.head_is_unborn else gitmod.commit_snapshot(repo, "HEAD")
    message = _message(req, context)
    if parent is not None:  # the index of a merge being concluded (merge_in_progress above)
        try:
            heads = [gitmod.resolve_commit(repo, "HEAD"), gitmod.resolve_commit(repo, "MERGE_HEAD")]
            context.update(gitmod.merge_sides(repo, heads))
        except GitError:
            pass
    return Setup(cfg, snap, parent, message, context, repo)


def _staged_config_broken(exc: cfgmod.ConfigError) -> int:
    """A staged .mergedrv.toml that does not load is the change's own finding:
    the hooks block it (exit 1) rather than fail open and let it switch every
    check off for whoever pulls it."""
    prefix = f"{exc.path}:{exc.line}: "
    what = str(exc)[len(prefix):] if str(exc).startswith(prefix) else str(exc)
    print(f"{exc.path}:{max(exc.line, 1)}: config: {what}; the staged configuration does not load, so no record check ran")
    return 1


def _message(req: Request, context: dict) -> str | None:
    """The commit message from --message-file (the commit-msg hook), if any."""
    if not req.message_file:
        return None
    try:
        with open(req.message_file, "rb") as f:
            message = commit_message(f.read().decode("utf-8", "replace"))
    except OSError as exc:
        raise UsageError(f"cannot read the message file {req.message_file}: {exc.strerror}") from None
    context["message_path"] = req.message_file
    return message


def _staged_plain(req: Request, root: str, before: Setup | None = None) -> Setup:
    """The staged change outside a merge, read with git's plumbing: the hooks
    that run on every commit do not pay ~90 ms for importing pygit2.

    `git write-tree` honours GIT_INDEX_FILE (`git commit -a` stages into a
    temporary index) and refuses an index with unresolved conflicts.
    ``before``: the check before `--fix` restaged (its blobs read, its
    parses and HEAD's listing kept).
    """
    tree = git_text(root, "write-tree")
    if tree is None:
        raise GitError("cannot read the index (unresolved conflicts?); resolve them, or run `mergedrv resolve`")
    snap = GitRev(root, tree)
    snap.label = "index"
    old = before.snap if before is not None and isinstance(before.snap, GitRev) else None
    if old is not None:
        snap.seed(old)
    cfg, context = config_for(req, snap, "the index")
    from ..checks import Parses

    # the index's and HEAD's versions of a file, the fix's and the check after it: one parse a blob
    context["parses"] = before.context.get("parses") if before is not None else None
    context["parses"] = context["parses"] or Parses()
    listed = configured_paths(cfg)
    rev = "HEAD"  # (`git commit --amend` replaces HEAD, whose parent is the parent)
    if req.message_file:  # the commit-msg hook: told by prepare-commit-msg
        from .message import parent_rev

        rev = parent_rev(root)
    elif req.staged and not req.config:  # the pre-commit hook: from the git command line
        from .message import amended_parent

        rev = before.parent.rev if before is not None and isinstance(before.parent, GitRev) else amended_parent(root)
    parent = _parent_rev(root, listed, context, before.parent if before is not None else None, rev)
    parent.share(snap)  # (a file the change did not touch is read once)
    head, data = parent.read(cfgmod.CONFIG_NAME) if parent.exists else None, context.get("config_data")
    if not req.config and head is not None and data is not None and head != data:
        from ..pins import moved_pins

        if moved_pins(data, head) is not None:  # HEAD's configuration is this one with its own pins: not parsed again
            from ..checks.inherited import config_at

            context["parent_cfg"] = config_at(cfg, parent, own=True, data=data)
    message = _message(req, context)
    return Setup(cfg, snap, parent if parent.exists else None, message, context, None)


def _prefetch(req: Request, s: Setup) -> None:
    """Every configured file of the index, read in one git process, where
    the plain staged check checks the whole index (no scope)."""
    if not req.staged or req.message_file or s.repo is not None or not isinstance(s.snap, GitRev) or s.scoped is not None:
        return  # (the scope's files are read already: `_scoped`)
    listed = configured_paths(s.cfg)
    if listed is not None:
        s.snap.prefetch(listed)


def _parent_rev(root: str, listed: list[str] | None, context: dict, before: Snapshot | None = None,
                rev: str = "HEAD") -> GitRev:
    """HEAD (``rev``: HEAD^ for an amend), listing the configured files only;
    every file when its configuration is another one (its parent is judged
    under its own, whose record paths may differ; not where only pins moved).
    ``before``: HEAD as the check before `--fix` read it (HEAD has not moved
    since): kept if its listing serves."""
    from ..pins import moved_pins

    if isinstance(before, GitRev) and before.rev == rev:
        head, data = before.read(cfgmod.CONFIG_NAME), context.get("config_data")
        if before.lists_every_file or head == data or (head is not None and data is not None and moved_pins(data, head) is not None):
            return before  # (only pins moved, by the fix: the configured paths are the same)
    parent = GitRev(root, rev, listed)
    head, data = (parent.read(cfgmod.CONFIG_NAME), context.get("config_data")) if listed is not None and parent.exists else (None, None)
    if head != data and (head is None or data is None or moved_pins(data, head) is None):
        parent = GitRev(root, rev, None)  # (only pins moved: the configured paths are the same)
    if isinstance(before, GitRev):
        parent.seed(before)
    return parent


def _staged_paths(root: str, head: bool, rev: str = "HEAD") -> set[str]:
    """What the next commit changes, as `git diff --cached --name-only REV` lists it
    (``rev``: the parent, HEAD^ for an amend)."""
    out = git(root, "diff", "--cached", "--name-only", "-z", *([rev] if head else []))
    return {p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p}


def _only(req: Request) -> set[str] | None:
    from ..checks import CHECK_IDS

    if not req.only:
        return {"pin-claims"} if req.message_file else None
    ids = {i.strip() for i in req.only.split(",") if i.strip()}
    unknown = sorted(ids - set(CHECK_IDS) - {"checkpoint", "merge-keys"})
    if unknown:
        raise UsageError(f"--only: unknown check id {unknown[0]!r}; use one of: {', '.join(CHECK_IDS)}")
    return ids


def _checkpoint(s: Setup, only: set[str] | None) -> list:
    """The checkpoint rule on the staged change, and merge-keys on a merge being
    concluded (with or without checkpoints configured)."""
    wanted = {"checkpoint", "merge-keys"} if only is None else only & {"checkpoint", "merge-keys"}
    if not s.cfg.checkpoints:
        wanted.discard("checkpoint")
    if s.repo is None:
        wanted.discard("merge-keys")  # outside a merge: the plain staged change
    if not wanted:
        return []
    from .. import history

    if s.repo is None:
        rev = s.parent.rev if isinstance(s.parent, GitRev) else "HEAD"
        return history.checkpoint(s.cfg, _staged_paths(os.getcwd(), s.parent is not None, rev))
    return [f for f in history.checkpoint_staged(s.cfg, s.repo) if f.check in wanted]  # a merge: merge-keys too


def _usage(req: Request) -> str | None:
    """Options that cannot go together, or say nothing: a usage error, never ignored."""
    only = req.only
    if only is not None and not any(i.strip() for i in only.split(",")):
        return "--only names no check; give one or more check ids, or leave --only out"
    rewritten = req.rewritten
    if rewritten is not None and rewritten not in ("rebase", "amend"):
        return f"--rewritten {rewritten!r}: use `rebase` or `amend` (what git passes the post-rewrite hook)"
    modes = [f"--{flag.replace('_', '-')}" for flag in HISTORY_FLAGS if getattr(req, flag)]
    local = [name for name, on in (("--staged", req.staged), ("--commit", req.commit)) if on]
    if local and modes:
        return f"{local[0]} cannot be used with {modes[0]}; choose one"
    if req.fix and (not req.staged or req.message_file or req.config):
        return "--fix works on the staged change only: use it with --staged, without --message-file and --config"
    if req.jobs is not None and not (req.base or req.head):
        return "--jobs shares a range among processes: use it with --base and --head"
    return None


def run_sequenced(command: str) -> int:
    """The prepare-commit-msg hook under a `git revert` or `git cherry-pick`
    that makes its commit itself (no pre-commit hook runs there, and the tree
    is written already): the staged check, no fix; findings stop the commit,
    the change staged, with how to finish it."""
    status = run(Request(staged=True))
    if status == 1:
        print(f"mergedrv: git {command} makes its commit without the pre-commit hook, so mergedrv checked it here and stopped it;"
              " the change is staged: fix what is listed above (`mergedrv fix` rewrites derived numbers), then `git commit`"
              f" (git keeps the message), and `git {command} --continue` for the rest of a series; or drop it: `git reset --merge`",
              file=sys.stderr)
    return status


def run(req: Request, before: Setup | None = None, found: list | None = None) -> int:
    """`mergedrv check`: exit 0 nothing found, 1 findings, 2 usage/config/git error
    (``before``: the check of the index `--fix` changed, whose reads this one
    shares; ``found``: its record checks' findings, of which this one keeps
    what the fix did not touch)."""
    import gc

    gc.disable()  # a short-lived process building many small acyclic objects
    wrong = _usage(req)
    if wrong:
        raise Error(wrong)
    if req.ref_update is not None:
        from .rewrites import run_ref_update

        return run_ref_update(req)
    if req.history_mode():
        return run_history(req)
    if sum(bool(x) for x in (req.staged, req.commit)) > 1:
        raise UsageError("--staged and --commit cannot be used together")
    asked = req.only in (None, "pin-claims") and bool(req.message_file)  # the commit-msg hook's call
    if asked and _no_claim_to_judge(req):
        return 0  # before loading the checks (`_only` does)
    only = _only(req)
    if not asked and only == {"pin-claims"} and _no_claim_to_judge(req):
        return 0
    try:
        s = setup(req, before)
    except cfgmod.ConfigError as exc:
        if not req.staged or req.config:
            raise
        return _staged_config_broken(exc)
    record_only = only - {"checkpoint"} if only else None
    notes: list = []
    findings = _record_checks(req, s, before, found, record_only, notes)
    checked = list(findings)
    for note in notes:
        print(f"note: {note.text()}", file=sys.stderr)
    if req.staged and not req.message_file:
        findings += _checkpoint(s, only)
        from .rewrites import replayed

        findings += replayed(s, only)
    if req.fix and _fixable(req, s, findings, record_only):
        fixed, reverted = _fix_staged(req, s)
        if fixed:
            return _checked_again(req, s, checked, fixed, reverted)
    return _report(req, s, findings, record_only)


def _checked_again(req: Request, s: Setup, checked: list, fixed: int, reverted: bool) -> int:
    """After `--fix` restaged ``fixed`` values: the check of the fixed index, and
    what to say of it (``reverted``: every file fixed is the parent's again)."""
    again = (s, checked) if s.repo is None else ()  # a merge's index: read again whole
    status = run(req.replace(fix=None), *again)
    values = f"{fixed} fixed value{'s' if fixed != 1 else ''}"
    if req.fix == "fail" and status == 0:
        print(f"mergedrv: fixed {fixed} derived value{'s' if fixed != 1 else ''} and restaged them; "
              "run the commit again", file=sys.stderr)
        return 1  # the pre-commit framework's way: a hook that changed files fails
    if status == 1:
        print(f"mergedrv: the {values} above {'are' if fixed != 1 else 'is'} "
              "written (the work tree and the index); the findings listed block the commit", file=sys.stderr)
    elif status == 0 and reverted and _emptied():
        print("mergedrv: the fixes above undid the whole staged change: the index is the parent's tree again, so git "
              "would record an empty commit; nothing is committed (derived values follow the rows: change the "
              "rows, or commit with --allow-empty)", file=sys.stderr)
        return 1
    return status


def _record_checks(req: Request, s: Setup, before: Setup | None, found: list | None, only: set[str] | None,
                   notes: list) -> list:
    """The record checks' findings: after `--fix` (``before``, ``found``),
    what the fix touched checked again; in the hooks' plain staged check,
    the index on what the change touched (`_scoped`); else the whole snapshot."""
    from ..checks import run_checks

    findings = None
    if before is not None and found is not None:  # the index --fix restaged: what the fix touched checked again
        from ..checks.changed import again

        findings = again(s.cfg, s.snap, before.snap, before.cfg, found, only, parent=s.parent, message=s.message, notes=notes,
                         settled=_settled(before.scoped), **s.context)
    if before is not None:
        s.scoped = before.scoped  # (the fix's check: the scope of the change it fixed)
    if findings is None:
        s.scoped = _scoped(req, s)
        _prefetch(req, s)
        paths = s.scoped[0].paths() if s.scoped is not None else None
        findings = run_checks(s.cfg, s.snap, s.parent, s.message, only, paths=paths, notes=notes, settled=_settled(s.scoped), **s.context)
    return findings


def _settled(scoped) -> bool:
    """Whether the hooks' scoped change removed no key: the references on the
    lines HEAD holds as they are are then not read again (`Context.settled`)."""
    return scoped is not None and not scoped[0].universes()[0]


def _scoped(req: Request, s: Setup):
    """The hooks' check of the plain staged change: (its `changed.Scope`,
    HEAD's configuration) when the index need only be checked on what the
    change touched (the files, their records, the configuration), since
    every finding elsewhere is HEAD's own as it is, and, where the change
    removed a key, on the files whose bytes may cite it (a reference there
    may dangle now); None where that cannot be told: the whole index is
    checked."""
    data, parses = s.context.get("config_data"), s.context.get("parses")
    if not req.staged or req.message_file or req.all or req.config or s.repo is not None or data is None or parses is None:
        return None
    from ..checks.inherited import staged_scope

    scope, pcfg = staged_scope(s.cfg, s.snap, s.parent, data, parses)
    if scope is None:
        return None
    if isinstance(s.snap, GitRev):
        other = s.parent if isinstance(s.parent, GitRev) else None
        s.snap.prefetch(sorted(scope.paths()), other)  # what the scope reads (index and HEAD), in one git process
    if scope.universes()[0] and not scope.cite_removed():
        return None
    return scope, pcfg


FIXABLE = ("rollup", "ratchet")  # the checks whose findings `--fix` may settle (counts, rollups, grids; pins)


def _fixable(req: Request, s: Setup, findings: list, only: set[str] | None) -> bool:
    """Whether a derived value may be stale (a rollup or ratchet finding):
    only then does `--fix` look for fixes (it leaves alone what the parent
    had already), so a commit that moves no count pays nothing for them."""
    return any(f.check in FIXABLE for f in findings)


def _fix_staged(req: Request, s: Setup) -> tuple[int, bool]:
    """`--fix` (the pre-commit hook): set the derived values the staged change
    left behind, in the index and the work tree (see fix_staged); how many,
    and whether every file fixed is the parent's again (HEAD's, HEAD^'s for an amend)."""
    if not (req.fix and req.staged) or req.message_file or req.config:
        return 0, False
    root = enter()
    if merge_in_progress(root):  # a merge's pins: both sides' moves, not the keys the change added
        from .fix_staged import merged_count_fixes, merged_pin_fixes

        fixed = len(merged_pin_fixes(root))
        try:
            return fixed + len(merged_count_fixes(root, s)), False  # (the files counts name: git merged them as text)
        except cfgmod.ConfigError:
            return fixed, False
    from .fix_staged import apply

    try:
        fixed, _, reverted = apply(root, req, s)
        return fixed, reverted
    except cfgmod.ConfigError:
        return 0, False  # the check reports the configuration


def _emptied() -> bool:
    """The pre-commit hook's fixes undid the whole change: the index is the
    tree of the commit's parent again (HEAD's; HEAD^'s for an amend), and the
    commit is no merge, amended merge or `--allow-empty` (git would record an
    empty commit without saying so)."""
    from .message import folding, git_command_line, head_and_parents, says_amend

    root = enter()
    args = git_command_line()
    if merge_in_progress(root) or (args is not None and "--allow-empty" in args):
        return False
    rev = "HEAD"
    if says_amend(args) or folding():
        if len(head_and_parents(root)) != 2:
            return False  # an amended merge (or root commit): git records it whatever its tree
        rev = "HEAD^"
    tree = git_text(root, "rev-parse", "-q", "--verify", f"{rev}^{{tree}}")
    return tree is not None and git_text(root, "write-tree") == tree


def _no_claim_to_judge(req: Request) -> bool:
    """The commit-msg hook's fast path: a message claiming no move, and a staged
    .mergedrv.toml identical to HEAD's (no pin moved), leave pin-claims
    nothing to find, and so do claims that are exactly the pins' true moves
    (`message.claims_hold`); the records are then not read at all."""
    if not (req.message_file and req.staged) or req.config or req.format == "json":
        return False
    from .message import claims_hold

    return claims_nothing(req.message_file) or claims_hold(req.message_file)


def _report(req: Request, s: Setup, findings: list, only: set[str] | None) -> int:
    """Print the findings, inherited ones marked; exit 1 on introduced ones (any with --all).

    The hooks (--staged, --message-file) print only what the change
    introduces, and one line counting what it inherited.
    """
    from ..checks.inherited import mark, mark_staged, summary

    own = None if req.config else s.context.get("config_data")  # --config: every parent under that one
    parses = s.context.get("parses")
    if s.repo is None and req.staged and own is not None and parses is not None:  # the plain staged change
        findings = mark_staged(s.cfg, findings, s.snap, s.parent, only, own, parses,
                               s.scoped if s.scoped is not None and s.scoped[0].snap_is(s.snap) else None)
    else:
        findings = mark(s.cfg, findings, s.context.get("sides") or [s.parent], only, own, parses)
    hook = (req.staged or req.message_file) and not req.all
    shown = [f for f in findings if not f.inherited] if hook else findings
    if shown or req.format == "json":
        print(render(shown, req.format))
    line = summary(findings, touched=s.scoped is not None) if hook else None
    if line:
        print(line, file=sys.stderr)
    if os.environ.get("PRE_COMMIT") and req.format != "json" and "`mergedrv fix`" in render(shown, req.format):
        # the framework's hook environment is where mergedrv is: the user's PATH may not have it
        print("note: under the pre-commit framework, `mergedrv fix` is: pre-commit run mergedrv-fix --hook-stage manual", file=sys.stderr)
    return 1 if any(req.all or not f.inherited for f in findings) else 0


def _range_config(repo, head: str, path: str | None) -> cfgmod.Config:
    return range_config(repo, head, path)[0]


def range_config(repo, head: str, path: str | None) -> tuple[cfgmod.Config, bytes | None]:
    """The range's configuration: --config (for every commit, bytes None), else head's and its bytes."""
    if path:
        return cfgmod.load(path), None
    from ..git import resolve_commit

    commit = resolve_commit(repo, head, "--head")
    try:
        blob = repo.get(commit.tree[cfgmod.CONFIG_NAME].id)
    except KeyError:
        raise GitError(f"{head} has no {cfgmod.CONFIG_NAME}; pass --config PATH") from None
    return cfgmod.load_bytes(blob.data, shown=f"{commit.short_id}:{cfgmod.CONFIG_NAME}"), blob.data


def _work_config(repo, path: str | None) -> cfgmod.Config:
    if path:
        return cfgmod.load(path)
    found = cfgmod.find(repo.workdir or ".")
    if found is None:
        raise GitError(f"no {cfgmod.CONFIG_NAME} at the top of this working tree; pass --config PATH")
    return cfgmod.load(found)


def _history_only(text: str | None) -> set[str] | None:
    """``--only a,b``: the check ids to run (None: all)."""
    if not text:
        return None
    ids = {i.strip() for i in text.split(",") if i.strip()}
    from ..history import HISTORY_CHECKS

    if ids <= set(HISTORY_CHECKS):
        return ids  # no record check asked for: the checks (and tree-sitter) stay unimported
    from ..checks import CHECK_IDS

    unknown = sorted(ids - set(CHECK_IDS) - set(HISTORY_CHECKS))
    if unknown:
        raise GitError(f"--only: unknown check id {unknown[0]!r}; use one of: {', '.join((*CHECK_IDS, *HISTORY_CHECKS))}")
    return ids


def run_history(req: Request) -> int:
    """`mergedrv check` in range, --merge-head and --rewritten modes: print, summarise, exit 0/1/2."""
    from ..git import repository
    from ..history import check_range, merge_head, parse_rewritten, rewritten, Reader

    fmt = req.format
    only = _history_only(req.only)
    repo = repository(".", index=req.merge_head)
    summary = hint = None
    if req.rewritten:
        if req.rewritten != "rebase":
            return 0  # `git commit --amend` rewrites on purpose
        pairs = parse_rewritten(sys.stdin.read())
        said: list = []
        findings = rewritten(Reader(repo, _work_config(repo, req.config)), pairs, said) if pairs else []
        for note in said:
            print(f"note: {note.text()}", file=sys.stderr)
        from .rewrites import stale_head

        hint = stale_head(os.getcwd()) if pairs and not req.config else None
    elif req.merge_head:
        from ..checks.inherited import summary as inherited_summary

        findings = merge_head(_work_config(repo, req.config), repo)
        summary_line = None if req.all else inherited_summary(findings)
        findings = findings if req.all else [f for f in findings if not f.inherited]
        if summary_line:
            print(summary_line, file=sys.stderr)
    else:
        if not req.base or not req.head:
            raise GitError("--base and --head go together: mergedrv check --base origin/main --head HEAD")
        cfg, own = range_config(repo, req.head, req.config)
        from ..history.parallel import default_jobs

        jobs = req.jobs if req.jobs is not None else default_jobs()
        findings, summary = check_range(repo, cfg, req.base, req.head, only, progress=sys.stderr.isatty(), own=own, jobs=jobs)
    if only is not None:
        findings = [f for f in findings if f.check in only]
    if findings or fmt == "json":
        print(render(findings, fmt))
    if summary is not None:
        for note in summary.notes:
            print(f"note: {note.text()}", file=sys.stderr)
        print(summary.line(), file=sys.stderr)
    elif findings:
        print(f"mergedrv check: {len(findings)} finding{'s' if len(findings) != 1 else ''}", file=sys.stderr)
    if hint:
        print(hint, file=sys.stderr)
    return 1 if findings else 0

