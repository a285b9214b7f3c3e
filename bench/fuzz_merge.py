#!/usr/bin/env python3
"""A long fuzz run of the keyed merge, on demand (tests/test_fuzz_merge.py
is its bounded CI form).  Prints how many merges lost a line, doubled a key
or fell back unlike git; and, with --no-self-check, what the merge does
without the self-check (the bugs the self-check turns into fallbacks).

    .venv/bin/python bench/fuzz_merge.py [--cases 5000] [--seed 0] [--no-self-check]
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
from tests.fuzz_gen import case, run_one  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--no-self-check", action="store_true", help="measure the keyed merge without its self-check")
    args = ap.parse_args()
    if args.no_self_check:
        mergemod.self_check = lambda *a: None
    bad: collections.Counter = collections.Counter()
    fallbacks: collections.Counter = collections.Counter()
    conflicted = 0
    examples = []
    start = time.perf_counter()
    for seed in range(args.seed, args.seed + args.cases):
        o, a, b, size = case(seed)
        try:
            why, result = run_one(o, a, b, size)
        except Exception as exc:  # a traceback is a finding too
            why, result = f"exception {type(exc).__name__}: {exc}", None
        if result is not None:
            conflicted += bool(result.conflicts)
            if result.fallback:
                fallbacks["self-check" if result.fallback.startswith("self-check") else "unmodelable or other"] += 1
        if why:
            bad[why.split(" ")[0]] += 1
            if len(examples) < 10:
                examples.append(f"  seed {seed} (marker size {size}): {why[:160]}")
    secs = time.perf_counter() - start
    print(f"{args.cases} fuzzed merges in {secs:.1f} s (self-check {'off' if args.no_self_check else 'on'})")
    print(f"  with conflicts:              {conflicted}")
    print(f"  fell back, self-check:       {fallbacks['self-check']}")
    print(f"  fell back, input or other:   {fallbacks['unmodelable or other']}")
    print(f"  lost a line:                 {bad['lost']}")
    print(f"  key doubled:                 {bad['keys']}")
    print(f"  fallback unlike git:         {bad['fallback']}")
    print(f"  exceptions:                  {bad['exception']}")
    print(*examples, sep="\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
