"""The range walk for CI (`check --base --head`): commits of a range, each step's changes,
the history checks per commit, and SnapshotChecks (the record checks at each commit).
"""

from __future__ import annotations

import sys
import time

from .. import config as _config
from ..findings import Finding, shape
from ..git import GitError, core, resolve_commit
from ..values import Value
from .changes import merge_changes, name_only_many, needs_git, tree_changes
from .checkpoint import CHECKPOINT, checkpoint
from .entries import Lru, Parsed, Reader, parsed_tree
from .merge_keys import Bases, MERGE_KEYS, MergeInput, merge_keys


PROGRESS_MIN = 300  # ranges longer than this get a progress bar on a terminal
PROGRESS_EVERY = 5.0  # seconds between progress lines when stderr is no terminal
PARALLEL_MIN = 200  # ranges at least this long are shared among `--jobs` processes


EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_FROM_ROOT = {"0" * 40, EMPTY_TREE}  # GitHub's `before` for a new branch; git's empty tree


def range_commits(repo, base: str, head: str) -> list:
    """Every commit in ``base..head`` (all parents), oldest first; parents before children.

    ``base`` may be the null hash or the empty tree: every commit from the root.
    """
    git2 = core()

    head_c = resolve_commit(repo, head, "--head")
    walker = repo.walk(head_c.id, git2.GIT_SORT_TOPOLOGICAL | git2.GIT_SORT_REVERSE)
    if base in _FROM_ROOT:
        return list(walker)
    base_c = resolve_commit(repo, base, "--base")
    if base_c.id != head_c.id and not repo.descendant_of(head_c.id, base_c.id):
        raise GitError(
            f"--base {base} ({base_c.short_id}) is not an ancestor of --head {head} ({head_c.short_id}); "
            f"pass their merge base: --base $(git merge-base {base} {head})"
        )
    walker.hide(base_c.id)
    return list(walker)


class Step(Value):
    """One commit of a range and what it changed."""

    __slots__ = ("commit", "paths", "records", "renames")

    def __init__(self, commit, paths: set[str], records: set[str], renames: bool) -> None:
        self.commit = commit
        self.paths = paths  # checkpoint's view: `git diff --name-only` paths, or a merge's own changes
        self.records = records  # record, log and reference files whose blob changed vs the parent(s)
        self.renames = renames  # git's rename detection may drop a deleted path from ``paths``


def step(cfg: _config.Config, commit, seen: dict | None = None, refs: tuple | None = None) -> Step:
    """What ``commit`` changed against its parent(s), from its trees alone
    (``seen``: path -> `watched`, kept by the caller across a range's commits;
    ``refs``: `ref_globs`, made once by the caller)."""
    parents = commit.parents
    renames = False
    if not parents:
        changes = tree_changes(None, commit.tree)
        paths = set(changes)
    elif len(parents) == 1:
        changes = tree_changes(parents[0].tree, commit.tree)
        paths = set(changes)
        renames = needs_git(cfg, changes)
    else:
        paths = merge_changes([tree_changes(p.tree, commit.tree) for p in parents])
        changes = dict.fromkeys(paths, "M")
    if seen is None:
        seen = {}
    for p in changes:
        if p not in seen:
            seen[p] = watched(cfg, p, refs)
    return Step(commit, paths, {p for p in changes if seen[p]}, renames)


def watched(cfg: _config.Config, path: str, refs: tuple | None = None) -> bool:
    """Whether a change to ``path`` can bring a record check a finding: a
    record or log file, a file a record's `ref_files` names, or a file its
    counts are searched in (``[[record.count]] file``).  ``refs``: `ref_globs(cfg)`."""
    if cfg.record_for(path) is not None or cfg.log_for(path) is not None:
        return True
    if any(path in r.counted_files() for r in cfg.records):
        return True
    exact, rest = refs if refs is not None else ref_globs(cfg)
    return path in exact or any(_config.glob_match(g, path) for g in rest)


def ref_globs(cfg: _config.Config) -> tuple[frozenset[str], list[str]]:
    """Every record's `ref_files`, once each: the paths named whole (no
    wildcard, a slash: `glob_match` matches them alone), and the others."""
    exact: set[str] = set()
    rest: list[str] = []
    for g in dict.fromkeys(g for r in cfg.records for g in r.ref_files):
        if not _config.is_glob(g) and "/" in g.rstrip("/"):
            exact.add(g.lstrip("/"))
        else:
            rest.append(g)
    return frozenset(exact), rest


def steps(repo, cfg: _config.Config, commits: list) -> list[Step]:
    """Every commit's Step; rename-sensitive ones get git's view in one subprocess."""
    seen: dict[str, bool] = {}
    refs = ref_globs(cfg)
    out = [step(cfg, c, seen, refs) for c in commits]
    pending = [s for s in out if s.renames]
    if pending:
        listed = name_only_many(repo, [s.commit for s in pending])
        for s in pending:
            s.paths = listed.get(str(s.commit.id), s.paths)
    return out


class Progress:
    """A rich progress bar on a terminal for long ranges; elsewhere (CI logs)
    a plain line on stderr every ``PROGRESS_EVERY`` seconds, so a long run
    shows it is alive; nothing for a run shorter than that.  The bar (and
    its drawing thread) starts at the first step, after `parallel` forked."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar = None
        self.started_bar = False
        self.total, self.done = total, 0
        self.started = self.said = time.monotonic()
        if enabled and total > PROGRESS_MIN:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn("checking commits"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                console=Console(stderr=True), transient=True)
            self.task = self.bar.add_task("commits", total=total)

    def advance(self, by: int = 1) -> None:
        self.done += by
        if self.bar is not None:
            if not self.started_bar:
                self.started_bar = True
                self.bar.start()
            self.bar.advance(self.task, by)
            return
        now = time.monotonic()
        if now - self.said >= PROGRESS_EVERY and self.done < self.total:
            self.said = now
            print(f"mergedrv check: {self.done}/{self.total} commits checked ({now - self.started:.0f} s)",
                  file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None and self.started_bar:
            self.bar.stop()


class Summary(Value):
    """What a range check counted, for its last line."""

    __slots__ = ("commits", "merges", "findings", "failing", "seconds", "notes")

    def __init__(self, commits: int = 0) -> None:
        self.commits = commits
        self.merges = 0
        self.findings = 0
        self.failing = 0  # commits with at least one finding
        self.seconds = 0.0
        self.notes: list[Finding] = []  # said on stderr, never blocking (a claim's numbers shifted)

    def line(self) -> str:
        verdict = "ok" if not self.findings else f"{self.findings} finding{'s' if self.findings != 1 else ''} in {self.failing} commit{'s' if self.failing != 1 else ''}"
        return (f"mergedrv check: {self.commits} commit{'s' if self.commits != 1 else ''} "
                f"({self.merges} merge{'s' if self.merges != 1 else ''}) checked in {self.seconds:.2f}s: {verdict}")


def log_chains(repo, cfg: _config.Config, commits: list, only: set[str] | None):
    """The versions of each log file over ``commits`` (and their parents) as
    prefixes of one another (`chains.Chains`), when a record check reads logs."""
    if only is not None and not only & {"table-shape", "log-append-only", "refs"}:
        return None
    paths = [log.path.lstrip("/") for log in cfg.logs if not _config.is_glob(log.path)]
    if not paths:
        return None
    from .chains import Chains

    out = Chains()
    trees = {c.tree_id: c.tree for c in commits}
    for c in commits:
        for p in c.parents:
            trees.setdefault(p.tree_id, p.tree)
    for path in paths:
        oids = []
        for tree in trees.values():
            try:
                entry = tree[path]
            except KeyError:
                continue
            if entry.type_str == "blob":
                oids.append(entry.id)
        if len(set(oids)) > 1:
            out.add_versions(repo, oids, path)
    return out


def check_range(repo, cfg: _config.Config, base: str, head: str, only: set[str] | None = None,
                progress: bool = False, fast: bool = True, own: bytes | None = None,
                jobs: int = 1) -> tuple[list[Finding], Summary]:
    """Every check on every commit of ``base..head``, each against its own parent(s).

    ``own``: the bytes of the `.mergedrv.toml` that gave ``cfg`` (head's); a
    commit whose own configuration differs is checked under its own
    (`SnapshotChecks.config_at`).  None (``--config``): ``cfg`` everywhere.

    ``fast``: a log's versions that are prefixes of one another are read once
    and checked on what each commit appended (`chains`); False checks every
    version whole (the same findings, slower: the tests compare the two).

    ``jobs``: processes for a long range (`parallel`): each checks a run of
    consecutive commits, and their findings are joined in commit order (each
    commit is judged against its own parents alone, so the result is the one
    process's).
    """
    started = time.perf_counter()
    commits = range_commits(repo, base, head)
    summary = Summary(commits=len(commits))
    bar = Progress(len(commits), progress)
    all_steps = steps(repo, cfg, commits)
    try:
        if fast and jobs > 1 and len(commits) >= PARALLEL_MIN:
            from .parallel import check_parallel

            findings = check_parallel(repo, cfg, all_steps, only, own, jobs, summary, bar)
        else:
            findings = check_steps(repo, cfg, all_steps, only, fast, own, summary, bar.advance)
    finally:
        bar.close()
    summary.findings = len(findings)
    summary.seconds = time.perf_counter() - started
    return findings, summary


def check_steps(repo, cfg: _config.Config, todo: list[Step], only: set[str] | None, fast: bool,
                own: bytes | None, summary: Summary, advance) -> list[Finding]:
    """The checks of ``todo``'s commits, in order, sharing what they read
    (``summary`` counts merges, failing commits and notes; ``advance`` is
    called once a commit)."""
    commits = [s.commit for s in todo]
    parsed = Parsed(repo)
    if fast:
        from .packs import Blobs

        parsed.chains = log_chains(repo, cfg, commits, only)
        if parsed.chains is not None:  # a chain's shortest version is parsed once, as the checks parse it
            parsed.chains.parse = lambda oid, path: parsed.get(oid, None, True, None, path)
        parsed.blobs = Blobs(repo)
    reader, bases = Reader(repo, cfg, parsed), Bases(repo)
    snapshot_checks = SnapshotChecks.make(repo, cfg, bases, parsed, only)
    if snapshot_checks is not None:
        snapshot_checks.fast = fast
        snapshot_checks.own = own
    findings: list[Finding] = []
    for s in todo:
        found = check_step(cfg, s, reader, bases, only, snapshot_checks)
        summary.merges += len(s.commit.parents) > 1
        summary.failing += bool(found)
        findings += found
        advance()
    summary.notes += snapshot_checks.said if snapshot_checks is not None else []
    return findings


def check_step(cfg, s: Step, reader: Reader, bases: Bases, only=None,
               snapshot_checks: SnapshotChecks | None = None) -> list[Finding]:
    """The history checks and the per-snapshot checks of one commit."""
    commit = s.commit
    label = commit.short_id
    out: list[Finding] = []
    if _wanted(only, CHECKPOINT):
        out += checkpoint(cfg, s.paths, label)
    if len(commit.parents) > 1 and _wanted(only, MERGE_KEYS):
        out += merge_keys(reader, bases, MergeInput(commit.tree, list(commit.parents), label))
    if snapshot_checks is not None and (s.records or _config.CONFIG_NAME in s.paths):
        out += snapshot_checks(s)
    return out


def _wanted(only: set[str] | None, check: str) -> bool:
    return only is None or check in only


RANGE_CHECKS = ("config-matches", "keys-unique", "key-format", "column-format", "table-shape", "refs", "ratchet", "rollup",
                "log-append-only", "pin-claims", "sequence")  # every record check (checks.CHECK_IDS)
HISTORY_CHECKS = (CHECKPOINT, MERGE_KEYS)
RECORD_ONLY = {"keys-unique", "key-format", "column-format", "detached-row", "rollup", "sequence"}  # read a snapshot's record files alone


class SnapshotChecks:
    """The per-snapshot checks (`checks.run_checks`) at each commit of a range.

    The configuration is the range's, but each commit is held to its own pins
    (the ``pin = N`` lines of its own .mergedrv.toml; none before it had one),
    since pins move with the rows.  Every record check runs; a commit that
    changed only log or reference files is examined on those (`examined`), and
    only what the commit introduced is reported: a finding its parent (each
    parent, for a merge) already had on the same files is not repeated.
    """

    def __init__(self, repo, cfg: _config.Config, bases: Bases, parsed: Parsed, wanted: set[str]) -> None:
        self.repo, self.cfg, self.bases, self.parsed, self.wanted = repo, cfg, bases, parsed, wanted
        self._cfgs: dict = {}
        self._raw: Lru = Lru(64)
        self._notes: dict = {}  # commit id -> the notes of its last run
        self._records: Lru = Lru(64)  # (config, paths, record blobs) -> the record-only checks' findings
        self._loaded: dict = {}  # config blob id -> the parent's own configuration
        self._memo: Lru = Lru(256)  # what refs found, by the blob ids it read (checks.Context.memo)
        self.fast = True  # False: every commit checked in one run_checks, nothing kept between commits
        self.incremental: list = []  # the commits whose record-only findings came from their parent's (`rowedits`)
        self.said: list[Finding] = []  # the notes of the range's commits
        self.own: bytes | None = None  # the range's .mergedrv.toml: a commit with another one is judged under its own

    @classmethod
    def make(cls, repo, cfg: _config.Config, bases: Bases, parsed: Parsed, only: set[str] | None) -> SnapshotChecks | None:
        """None when ``only`` names history checks alone (the record checks stay unimported)."""
        wanted = set(RANGE_CHECKS) if only is None else only - set(HISTORY_CHECKS)  # `_only` validated the ids
        return cls(repo, cfg, bases, parsed, wanted) if wanted else None

    def config_at(self, commit) -> tuple[_config.Config, bytes | None]:
        """``commit``'s configuration and its config file's bytes: its own where
        it differs from the range's (`own`) and loads, else the range's with
        ``commit``'s own pins."""
        from ..pins import pin_lines

        try:
            oid = commit.tree[_config.CONFIG_NAME].id
        except KeyError:
            oid = None
        if oid not in self._cfgs:
            data = self.repo.get(oid).data if oid is not None else None
            cfg = None
            if self.own is not None and data is not None and data != self.own:
                try:
                    cfg = _config.load_bytes(data)
                except _config.ConfigError:
                    cfg = None  # its own finding where it is introduced; the records judged under the range's
            if cfg is None:
                pins = pin_lines(data) if data is not None else {}
                records = [r.replace(pin=pins[r.name][1] if r.name in pins else None) for r in self.cfg.records]
                cfg = self.cfg.replace(records=records)
            self._cfgs[oid] = (cfg, data)
        return self._cfgs[oid]

    def examined(self, s: Step) -> tuple[str, ...] | None:
        """The files a step's checks read: all of them (None) when it changed the
        configuration or a record (a key it removed can break a reference in any
        file), else the log and reference files it changed."""
        if _config.CONFIG_NAME in s.paths or any(self.cfg.record_for(p) is not None for p in s.records):
            return None
        return tuple(sorted(s.records))

    def raw(self, commit, paths: tuple[str, ...] | None) -> list[Finding]:
        """Everything the checks find at ``commit`` on ``paths``, against its own parent."""
        from ..checks import run_checks

        k = (commit.id, paths)
        if k not in self._raw:
            cfg, data = self.config_at(commit)
            parents = list(commit.parents)
            context: dict = {} if data is None else {"config_data": data}
            if len(parents) > 1:
                base = self.bases.one(parents[0], parents[1])
                context["sides"] = [parsed_tree(self.repo, p, self.parsed) for p in parents]
                context["base"] = parsed_tree(self.repo, base[0], self.parsed) if base else None
            parent = parsed_tree(self.repo, parents[0], self.parsed) if parents else None
            self._notes[commit.id] = context["notes"] = []
            snap = parsed_tree(self.repo, commit, self.parsed)
            by_blobs = self._record_key(cfg, commit, paths) if self.fast else None
            if by_blobs is None:
                self._raw[k] = run_checks(cfg, snap, parent, commit.message, only=self.wanted, paths=paths, **context)
            else:
                self._raw[k] = self._split(cfg, snap, parent, commit, paths, by_blobs, context)
        return self._raw[k]

    def _record_key(self, cfg: _config.Config, commit, paths) -> tuple | None:
        """What the record-only checks at ``commit`` depend on: the configuration,
        its record files' blob ids and those of the files their counts name
        (rollup reads them; None when a record path is a glob)."""
        ids = []
        for r in cfg.records:
            if _config.is_glob(r.path):
                return None
            ids.append(_blob(commit, r.path.lstrip("/")))
        counted = tuple(_blob(commit, p) for p in dict.fromkeys(p for r in cfg.records for p in r.counted_files()))
        return (id(cfg), paths, tuple(ids), counted)

    def _split(self, cfg, snap, parent, commit, paths, by_blobs: tuple, context: dict) -> list[Finding]:
        """run_checks in two parts: the checks that read a commit's record files
        alone, once per distinct set of blobs (a commit and its parent share
        them unless the commit changed a record), and those that compare with
        the parent or read logs and references."""
        from ..checks import ordered, run_checks

        if "parent_cfg" not in context and parent is not None:
            context["parent_cfg"] = self._parent_cfg(commit.parents[0])
        alone = self.wanted & RECORD_ONLY | ({"table-shape"} if "table-shape" in self.wanted else set())
        if by_blobs not in self._records:
            found = None
            if alone and paths is None and commit.parents:  # rows edited in place of the parent's: the edits checked alone
                from .rowedits import record_findings

                found = record_findings(self, cfg, snap, commit, by_blobs, alone)
            self._records[by_blobs] = found if found is not None else run_checks(
                cfg, snap, None, None, only=alone, paths=paths, shapes="records", memo=self._memo) if alone else []
        rest = self.wanted - RECORD_ONLY
        found = self._records[by_blobs]
        if rest:
            found = found + run_checks(cfg, snap, parent, commit.message, only=rest, paths=paths, shapes="logs",
                                       memo=self._memo, **context)
        if any(f.check == "config-matches" for f in found):  # the record-only part did not see that finding
            from ..checks.configured import without_consequences

            found = without_consequences(cfg, found)
        return ordered(found, self.wanted)

    def _parent_cfg(self, commit):
        """A parent's own configuration, parsed once per blob (None: none or broken)."""
        try:
            oid = commit.tree[_config.CONFIG_NAME].id
        except KeyError:
            return None
        if oid not in self._loaded:
            try:
                self._loaded[oid] = _config.load_bytes(self.parsed.data(oid))
            except _config.ConfigError:
                self._loaded[oid] = None
        return self._loaded[oid]

    def __call__(self, s: Step) -> list[Finding]:
        commit = s.commit
        paths = self.examined(s)
        found = self.raw(commit, paths)
        self.said += [n.replace(commit=commit.short_id) for n in self._notes.pop(commit.id, [])]
        if not found:
            return []
        known = set()
        for parent in commit.parents:
            known |= {_shape(f) for f in self.raw(parent, paths)}
        return [f.replace(commit=commit.short_id) for f in found if _shape(f) not in known]


def _blob(commit, path: str):
    """The blob id of ``path`` in ``commit``'s tree (None: no such file)."""
    try:
        return commit.tree[path].id
    except KeyError:
        return None


_shape = shape  # a finding without its line numbers and commit hashes: the same problem, moved
