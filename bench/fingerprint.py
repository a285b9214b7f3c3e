"""One SHA-256 per family of merges: the case corpus and the fuzz generators
at fixed seeds, each merge's result bytes, conflicts, notes and fallback.
Run it before and after a change that must not change behaviour (a
restructuring): equal lines mean byte-for-byte equal merges.

    .venv/bin/python bench/fingerprint.py [--cases 1000] [--seed 0]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fuzz_adversarial import adv_case  # noqa: E402
from tests.fuzz_gen import case, mixed_case  # noqa: E402
from tests.merge.test_cases import CASES, run_case  # noqa: E402


def digest(h, result) -> None:
    """Fold one merge's observable outcome into ``h``."""
    h.update(result.data if isinstance(result.data, bytes) else repr(result.data).encode())
    for c in sorted(repr((c.line, c.kind, c.key, c.why)) for c in result.conflicts):
        h.update(c.encode())
    for n in sorted(repr(n) for n in getattr(result, "notes", ())):  # their order follows set iteration
        h.update(n.encode())
    h.update(repr(result.fallback).encode())


def fuzz(gen: str, seeds: range) -> str:
    from mergedrv.merge import merge
    from mergedrv.merge.values import Markers, Options

    h = hashlib.sha256()
    for seed in seeds:
        if gen == "adversarial":
            o, a, b, size, kw = adv_case(seed, None)
            opts = Options(markers=Markers(size), key=kw.get("key", "ID"))
            opts.key_pattern = kw.get("pattern")
        else:
            o, a, b, size = mixed_case(seed) if gen == "mixed" else case(seed)
            log = gen == "log"
            opts = Options(markers=Markers(size), key=None, log=True) if log else Options(markers=Markers(size), key="ID")
        try:
            digest(h, merge(o, a, b, opts))
        except Exception as exc:  # noqa: BLE001 - an exception is an outcome too
            h.update(f"exception {type(exc).__name__}".encode())
    return h.hexdigest()[:16]


def corpus() -> str:
    h = hashlib.sha256()
    for path in CASES:
        h.update(path.name.encode())
        digest(h, run_case(path)[1])
    return h.hexdigest()[:16]


def main() -> int:
    if os.environ.get("PYTHONHASHSEED") != "0":  # one string hashing for every run
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=1000, help="merges per generator")
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    args = ap.parse_args()
    print(f"corpus ({len(CASES)} cases): {corpus()}")
    for gen in ("classic", "log", "mixed", "adversarial"):
        print(f"{gen} ({args.cases} seeds from {args.seed}): {fuzz(gen, range(args.seed, args.seed + args.cases))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
