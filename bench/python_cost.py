#!/usr/bin/env python3
"""How often a planner may call shardc.cost from Python (issue 28, item 3):
calls per second of cost(a, b) on pairs it has seen (the planner caches
each pair's plan) and on fresh pairs (planned on the first call), median
of --runs runs.

  PYTHONPATH=build/python /usr/bin/python3 bench/python_cost.py [--runs 5]
"""
import argparse
import statistics
import time

import shardc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--calls", type=int, default=20000)
    a = ap.parse_args()
    x = shardc.layout([1000, 600], mesh=[2, 4], placements=["S(0)", "S(1)"])
    y = shardc.layout([1000, 600], mesh=[2, 4], placements=["R", "S(0)"])
    seen = []
    for _ in range(a.runs):
        t = time.perf_counter()
        for _ in range(a.calls):
            shardc.cost(x, y)
        seen.append(a.calls / (time.perf_counter() - t))
    # Fresh pairs: every placement pair of a [96, 80] tensor on a 2x4 mesh,
    # each shape new for each run.
    places = ["R", "S(0)", "S(1)"]
    fresh = []
    for run in range(a.runs):
        shape = [96 + run, 80]
        layouts = [shardc.layout(shape, mesh=[2, 4], placements=[p, q])
                   for p in places for q in places]
        t = time.perf_counter()
        n = 0
        for u in layouts:
            for v in layouts:
                shardc.cost(u, v)
                n += 1
        fresh.append(n / (time.perf_counter() - t))
    print(f"shardc.cost, a pair seen before: median "
          f"{statistics.median(seen):,.0f} calls/s over {a.runs} runs")
    print(f"shardc.cost, a fresh pair (planned): median "
          f"{statistics.median(fresh):,.0f} calls/s over {a.runs} runs")


if __name__ == "__main__":
    main()
