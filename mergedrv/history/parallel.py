"""Range mode on several processes: the range's commits cut into runs of
consecutive commits of about equal weight, each run checked by a forked
worker (`walk.check_steps`), the findings joined in commit order.

Every commit is judged against its own parent(s) alone, so a run that starts
mid-range finds what one process finds; what a run shares between commits
(parses, log chains, the refs memo) only makes it cheaper.
"""

from __future__ import annotations

import os
import sys

from ..errors import Error

RUNS_PER_JOB = 1  # runs a worker takes: each run's start re-reads what the run before it had read (about 1 s on a real history)
MAX_JOBS = 8

_JOB: tuple | None = None  # what the forked workers read (set just before the fork, cleared after)


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, as `nproc` counts)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def default_jobs() -> int:
    return max(1, min(MAX_JOBS, usable_cpus()))


def can_fork() -> bool:
    """Workers are forked (they inherit the configuration and the listed
    steps); on Linux only, where fork is the platform's own way."""
    return sys.platform.startswith("linux")


def runs(weights: list[float], parts: int) -> list[tuple[int, int]]:
    """(start, end) of ``parts`` consecutive runs of ``weights`` of about
    equal total weight (none empty; fewer when there are fewer items)."""
    parts = max(1, min(parts, len(weights)))
    total = sum(weights)
    out: list[tuple[int, int]] = []
    start, acc = 0, 0.0
    for i, w in enumerate(weights):
        acc += w
        left = len(weights) - i - 1  # items after this one
        want = len(out) + 1  # the run being filled
        if want < parts and acc >= total * want / parts and left >= parts - want:
            out.append((start, i + 1))
            start = i + 1
    out.append((start, len(weights)))
    return [r for r in out if r[0] < r[1]]


def weights(repo, todo: list) -> list[float]:
    """What each commit costs, as measured on real histories: about the bytes
    of the watched files it changed (each read and checked; their sizes from
    the object headers, in one git process), more for a merge (checked
    against each side), and a little for the commit itself."""
    from .chains import blob_sizes

    ids: list[list[str]] = []
    for s in todo:
        here = []
        for path in s.records:
            try:
                here.append(str(s.commit.tree[path].id))
            except KeyError:
                pass  # deleted: nothing to read
        ids.append(here)
    size = blob_sizes(repo, list({i for here in ids for i in here}))
    return [0.05 + 1.5 * (len(s.commit.parents) > 1) + sum(size.get(i, 0) for i in here) / 1e6
            for s, here in zip(todo, ids)]


def check_parallel(repo, cfg, todo: list, only, own, jobs: int, summary, bar) -> list:
    """`walk.check_steps` over ``todo`` in ``jobs`` processes; the same findings, in the same order."""
    import multiprocessing

    from .walk import check_steps

    if not can_fork():
        return check_steps(repo, cfg, todo, only, True, own, summary, bar.advance)
    global _JOB
    cut = runs(weights(repo, todo), jobs * RUNS_PER_JOB)
    ctx = multiprocessing.get_context("fork")
    counter = ctx.Value("l", 0)
    table = [(s.commit.id, s.paths, s.records, s.renames) for s in todo]
    _JOB = (repo.path, cfg, table, only, own, cut, counter)
    findings: list = []
    shown = 0
    pool = ctx.Pool(min(jobs, len(cut)), _quiet)  # (forks now: no thread runs yet, the progress bar's starts later)
    try:
        results = pool.imap(_run, range(len(cut)))
        for _ in cut:
            while True:
                try:
                    got = results.next(timeout=0.5)
                except multiprocessing.TimeoutError:
                    got = None
                done = counter.value
                if done > shown:
                    bar.advance(done - shown)
                    shown = done
                if got is not None:
                    break
            if got[0] == "error":
                raise Error(got[1])
            _, found, merges, failing, notes = got
            findings += found
            summary.merges += merges
            summary.failing += failing
            summary.notes += notes
        pool.close()
    finally:
        pool.terminate()
        pool.join()
        _JOB = None
    return findings


def _quiet() -> None:
    """A worker leaves an interrupt (Ctrl-C reaches the whole process group)
    to the parent, which stops the workers and exits 130 without a traceback."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run(i: int) -> tuple:
    """One run of the range, in a worker: its findings and counts, or the one-line error that stopped it."""
    from ..git import core
    from .walk import Step, Summary, check_steps

    assert _JOB is not None
    path, cfg, table, only, own, cut, counter = _JOB
    start, end = cut[i]

    def advance() -> None:
        with counter.get_lock():
            counter.value += 1

    try:
        repo = core().Repository(path)  # (its own handle: nothing of the parent's libgit2 state is used)
        todo = [Step(repo.get(oid), paths, records, renames) for oid, paths, records, renames in table[start:end]]
        summary = Summary()
        found = check_steps(repo, cfg, todo, only, True, own, summary, advance)
    except Error as exc:
        return ("error", str(exc))
    return ("ok", found, summary.merges, summary.failing, summary.notes)
