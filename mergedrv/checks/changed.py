"""What a change between two snapshots that know their blob ids can have made
a finding of (the staged change against HEAD, the index `--fix` restaged
against the one it fixed): the touched files, their records, the keys removed."""

from __future__ import annotations

from .. import config as cfgmod
from ..findings import Finding
from ..git import Snapshot


class Scope:
    """The files a change touched (``touched``), each record one of whose
    files, counted files or whose pin it touched with all of them (``files``, by name),
    and the keys it removed from the records or added to them.

    A finding outside it (`touches` false) is one the snapshot before the
    change has too, as it is: it sits in a file that is the same blob there,
    judged under the same configuration but for the touched records' pins,
    and, for refs, names no key the change removed (`dangles`).
    """

    def __init__(self, ctx, other_ctx, touched: set[str], files: dict[str, set[str]], own: set[str]) -> None:
        self.ctx, self.other_ctx = ctx, other_ctx
        self.touched = touched
        self.files = files
        self.own = own  # the records' own files among them (not the files their counts name)
        self.citing: set[str] = set()  # untouched files that may cite a removed key (`cite_removed`)
        self._universes: tuple[set[str], set[str]] | None = None

    @classmethod
    def of(cls, cfg: cfgmod.Config, snap: Snapshot, other: Snapshot | None, data: bytes | None,
           other_cfg: cfgmod.Config | None, parses) -> Scope | None:
        """The change from ``other`` (under ``other_cfg``) to ``snap`` (under
        ``cfg``, from ``data``); None where it cannot tell (a snapshot without
        blob ids or a configuration, a configuration changed beyond its pins,
        a retired file changed: what a removed key's findings say depends on it)."""
        from ..pins import moved_pins
        from . import Context

        ids, other_ids = getattr(snap, "blob_id", None), getattr(other, "blob_id", None)
        if other is None or other_cfg is None or ids is None or other_ids is None or data is None or parses is None:
            return None
        other_data = other.read(cfgmod.CONFIG_NAME)
        moved = moved_pins(data, other_data) if other_data is not None else None
        if moved is None:
            return None
        if any(ids(r.retired) != other_ids(r.retired) for r in cfg.records if r.retired):
            return None
        ctx, other_ctx = Context(cfg, snap, parses=parses), Context(other_cfg, other, parses=parses)

        def both(pattern: str) -> set[str]:
            return set(ctx.files(pattern)) | set(other_ctx.files(pattern))

        patterns = [r.path for r in cfg.records] + [g.path for g in cfg.logs] + [p for r in cfg.records for p in r.ref_files]
        touched = {p for pattern in patterns for p in both(pattern) if ids(p) != other_ids(p)}
        touched |= {p for r in cfg.records for p in r.counted_files() if ids(p) != other_ids(p)}
        if ids(cfgmod.CONFIG_NAME) != other_ids(cfgmod.CONFIG_NAME):
            touched.add(cfgmod.CONFIG_NAME)
        files: dict[str, set[str]] = {}
        own: set[str] = set()
        for r in cfg.records:
            mine = both(r.path) | set(r.counted_files())  # (a counted file's numbers are its record's findings)
            if r.name in moved or mine & touched:
                files[r.name] = files.get(r.name, set()) | mine
                own |= both(r.path)
        return cls(ctx, other_ctx, touched, files, own)

    def snap_is(self, snap: Snapshot) -> bool:
        """Whether this is the change to ``snap`` (not to a snapshot made from it since, as `--fix` makes)."""
        return self.ctx.snap is snap

    def paths(self) -> set[str]:
        """What a check restricted to the scope examines (run_checks' ``paths``):
        the touched files, the touched records' own files, the configuration
        and the files citing a removed key.  A touched record's counted file
        is read for its counts all the same; untouched, it is left out, or
        every record counting in it would be examined (a shared checker)."""
        return self.touched | self.own | {cfgmod.CONFIG_NAME} | self.citing

    def cite_removed(self) -> bool:
        """Add to what the scope examines every file that may cite a key the
        change removed: the reference files and the files of records with
        reference columns whose bytes hold one of those keys (a reference
        names a key as written).  False where a removed key holds a
        character markdown may escape or wrap (then no byte search tells)."""
        removed = self.universes()[0]
        if any(c in key for key in removed for c in "|\\*_`<>&[]"):
            return False
        ctx, wanted = self.ctx, [k.encode("utf-8") for k in removed]
        candidates = [p for r in ctx.cfg.records for g in r.ref_files for p in ctx.files(g)]
        candidates += [p for r in ctx.cfg.records if r.refs for p in ctx.files(r.path)]
        candidates = [p for p in dict.fromkeys(candidates) if p not in self.touched]
        prefetch = getattr(ctx.snap, "prefetch", None)
        if prefetch is not None:
            prefetch(candidates)
        self.citing = {p for p in candidates if any(k in (ctx.read(p) or b"") for k in wanted)}
        return True

    def touches(self, f: Finding) -> bool:
        """Whether ``f`` may come from the change: it sits in a touched file,
        in a file of a touched record, or at a touched record's configuration
        lines (a finding at `.mergedrv.toml` that names no record counts too)."""
        if f.path in self.touched and f.path != cfgmod.CONFIG_NAME:
            return True
        if f.path == cfgmod.CONFIG_NAME:  # a record's configuration lines: the record's own, and its touched ref_files'
            record = next((r for r in self.ctx.cfg.records if f.message.startswith(f"{r.name}:")), None)
            if record is None or record.name in self.files:
                return True
            named = [*record.ref_files, *([record.retired] if record.retired else [])]
            return f.check == "config-matches" and any(_names(entry, p) for entry in named for p in self.touched)
        return any(f.path in paths for paths in self.files.values())

    def universes(self) -> tuple[set[str], set[str]]:
        """(the keys the change removed, the keys it added), as far as the
        touched records tell: a key taken out of one record's files and
        still defined in an untouched record counts as removed here (no
        reference to it dangles: `dangles` finds none), so the untouched
        records are never read for it."""
        if self._universes is None:
            if not self.files:
                self._universes = (set(), set())
            else:
                from .refs import record_keys

                records = [r for r in self.ctx.cfg.records if r.name in self.files]
                new, old = record_keys(self.ctx, records), record_keys(self.other_ctx, records)
                self._universes = (old - new, new - old)
        return self._universes

    def dangles(self, f: Finding) -> bool:
        """A refs finding that names a key the change removed (the reference was good before it)."""
        return f.check == "refs" and any(f" {k} names no key" in f.message for k in self.universes()[0])


def again(cfg: cfgmod.Config, snap: Snapshot, before: Snapshot, before_cfg: cfgmod.Config, found: list[Finding],
          wanted, **context) -> list[Finding] | None:
    """What `run_checks(cfg, snap, only=wanted, **context)` finds, from ``found``,
    its findings on ``before`` (under ``before_cfg``; ``context``: run_checks',
    with the ``parses`` the two share), for a change that
    removed and added no key (`check --fix` restaged derived numbers and
    pins): the scope checked again, the rest kept.  None where the scope
    cannot tell, or keys changed (the caller checks the whole snapshot)."""
    from . import ordered, run_checks

    scope = Scope.of(cfg, snap, before, context.get("config_data"), before_cfg, context.get("parses"))
    if scope is None or any(scope.universes()):
        return None
    fresh = run_checks(cfg, snap, only=wanted, paths=scope.paths(), **context)
    kept = [f for f in found if not scope.touches(f)]
    from . import CHECK_IDS

    return ordered(kept + [f for f in fresh if scope.touches(f)], set(CHECK_IDS if wanted is None else wanted))


def _names(entry: str, path: str) -> bool:
    """Whether a configured path or glob names ``path``."""
    return cfgmod.glob_match(entry, path) if cfgmod.is_glob(entry) else entry.lstrip("/") == path
