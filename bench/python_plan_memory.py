#!/usr/bin/env python3
"""What the Python module keeps per distinct pair it plans (issue 41, item
12): plan() of --pairs distinct pairs, then cost() of them under three more
option sets; the growth of the process's resident memory per pair, on the
first half and on the second (planners cache at most 4,096 plans each and
16 option sets are kept, so the second half costs what the MLIR context
keeps: its uniqued layouts, which it never frees).

  PYTHONPATH=build/python /usr/bin/python3 bench/python_plan_memory.py [--pairs 40000]
"""
import argparse

import shardc


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=40000)
    a = ap.parse_args()
    pairs = [(shardc.layout([n, 8], mesh=[4], placements=["S(0)"]),
              shardc.layout([n, 8], mesh=[4], placements=["S(1)"]))
             for n in range(4, 4 + a.pairs)]
    half = len(pairs) // 2
    marks = [rss_mb()]
    for part in (pairs[:half], pairs[half:]):
        for x, y in part:
            shardc.plan(x, y)
            for alpha in (1.0, 2.0, 3.0):
                shardc.cost(x, y, alpha_us=alpha)
        marks.append(rss_mb())
    for i, name in enumerate(("first half", "second half")):
        per = (marks[i + 1] - marks[i]) * 1e6 / half
        print(f"{name}: {half} pairs, +{marks[i + 1] - marks[i]:.1f} MB, "
              f"{per:.0f} bytes per pair")


if __name__ == "__main__":
    main()
