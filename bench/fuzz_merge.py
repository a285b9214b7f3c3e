#!/usr/bin/env python3
"""A long fuzz run of the keyed merge, on demand (tests/merge/test_fuzz_merge.py
is its bounded CI form).  Prints how many merges lost a line, doubled a key
or fell back unlike git; and, with --no-self-check, what the merge does
without the self-check (the bugs the self-check turns into fallbacks).

Generators (--gen, several may be given; default classic):
  classic     tests/fuzz_gen.py: tables under headings, in list items and quotes,
              moves, reorders, column changes, prose edits, CRLF/LF noise, BOMs,
              byte noise, marker sizes 1..50
  log         the same documents merged as logs
  mixed       files mixing CRLF and LF, each line's ending checked byte for byte
  adversarial tests/fuzz_adversarial.py (--family to pick one): block-ending lines,
              two key columns, detached rows, duplicates, sections, cells, prose logs
  all         every one of them, --cases each

    .venv/bin/python bench/fuzz_merge.py [--cases 5000] [--seed 0] [--gen classic mixed ...] [--no-self-check]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mergedrv import merge as mergemod  # noqa: E402
from tests.fuzz_adversarial import FAMILIES, adv_case  # noqa: E402
from tests.fuzz_gen import case, mixed_case, run_mixed, run_one  # noqa: E402

GENS = ("classic", "log", "mixed", "adversarial")


def one(gen: str, seed: int, family: str | None):
    """(what is wrong or None, the result, marker size) of one generated merge."""
    if gen == "classic":
        o, a, b, size = case(seed)
        return (*run_one(o, a, b, size), size)
    if gen == "log":
        o, a, b, size = case(seed)
        return (*run_one(o, a, b, size, log=True), size)
    if gen == "mixed":
        o, a, b, size = mixed_case(seed)
        return (*run_mixed(o, a, b, size), size)
    o, a, b, size, kw = adv_case(seed, family)
    return (*run_one(o, a, b, size, **kw), size)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=5000, help="merges per generator")
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--gen", nargs="+", choices=(*GENS, "all"), default=["classic"])
    ap.add_argument("--family", choices=sorted(FAMILIES), help="one adversarial family (default: each case picks one)")
    ap.add_argument("--no-self-check", action="store_true", help="measure the keyed merge without its self-check")
    args = ap.parse_args()
    if args.no_self_check:
        mergemod.self_check = lambda *a: None
    gens = GENS if "all" in args.gen else args.gen
    failed = False
    for gen in gens:
        bad: collections.Counter = collections.Counter()
        fallbacks: collections.Counter = collections.Counter()
        conflicted = 0
        examples = []
        start = time.perf_counter()
        for seed in range(args.seed, args.seed + args.cases):
            try:
                why, result, size = one(gen, seed, args.family)
            except Exception as exc:  # a traceback is a finding too
                why, result, size = f"exception {type(exc).__name__}: {exc}", None, 0
            if result is not None:
                conflicted += bool(result.conflicts)
                if result.fallback:
                    fallbacks["self-check" if result.fallback.startswith("self-check") else "unmodelable or other"] += 1
            if why:
                bad[why.split(" ")[0]] += 1
                if len(examples) < 10:
                    examples.append(f"  seed {seed} (marker size {size}): {why[:160]}")
        secs = time.perf_counter() - start
        failed = failed or bool(bad)
        print(f"{gen}: {args.cases} fuzzed merges (seeds {args.seed}..{args.seed + args.cases - 1}) in {secs:.1f} s "
              f"(self-check {'off' if args.no_self_check else 'on'})")
        print(f"  with conflicts:              {conflicted}")
        print(f"  fell back, self-check:       {fallbacks['self-check']}")
        print(f"  fell back, input or other:   {fallbacks['unmodelable or other']}")
        print(f"  lost a line:                 {bad['lost']}")
        print(f"  key doubled:                 {bad['keys']}")
        print(f"  fallback unlike git:         {bad['fallback']}")
        print(f"  exceptions:                  {bad['exception']}")
        print(*examples, sep="\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
