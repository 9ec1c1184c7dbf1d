#!/usr/bin/env python3
"""Compile time: N redistributions S(0) -> S(1) of f32[1024, 1024] on 4
devices (in one function, each of its argument), planned by shardc's
-shard-plan-redistribute and by upstream MLIR's shard-partition (mlir-opt) on
the equivalent input. (Upstream's partition of N functions of one
redistribution each is quadratic: 10^5 of them did not finish in 8 minutes.)

For each N, runs each tool `--runs` times (medians printed) with
--mlir-timing and reports the whole run (parse + pass + print, wall time of
the process), the pass alone (ShardPlanRedistribute; upstream's Partition),
and their ratios (shardc / upstream; below 1: shardc is faster).

  python3 bench/compile_time.py [--bin build/bin] [--sizes 10000,100000]
                                [--runs 3] [--mlir-opt PATH]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

SHARDC = """#m = #shard.mesh<shape = [4]>
!s0 = !shard.tensor<1024x1024xf32, #shard.placements<mesh = #m, placements = [S(0)]>>
!s1 = !shard.tensor<1024x1024xf32, #shard.placements<mesh = #m, placements = [S(1)]>>
"""
SHARDC_BEGIN = "func.func @f(%a: !s0) -> !s1 {\n"
SHARDC_OP = "  %b{i} = shard.redistribute %a : !s0 -> !s1\n"
SHARDC_END = "  return %b0 : !s1\n}\n"
UPSTREAM = "shard.grid @grid(shape = 4)\n"
UPSTREAM_BEGIN = """func.func @f(%a: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %s0 = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %s1 = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
"""
UPSTREAM_OP = """  %x{i} = shard.shard %a to %s0 : tensor<1024x1024xf32>
  %y{i} = shard.shard %x{i} to %s1 annotate_for_users : tensor<1024x1024xf32>
"""
UPSTREAM_END = "  return %y0 : tensor<1024x1024xf32>\n}\n"


def timing(stderr, name):
    """Wall seconds of the --mlir-timing line `name` (first match)."""
    for line in stderr.splitlines():
        # "wall (pct) name", or "user (pct) wall (pct) name" when threaded.
        m = re.match(r"\s*(?:[0-9.]+ \(\s*[0-9.]+%\)\s+)?([0-9.]+) "
                     r"\(\s*[0-9.]+%\)\s+(.*)$", line)
        if m and m.group(2).strip() == name:
            return float(m.group(1))
    raise SystemExit("no timing line '%s' in:\n%s" % (name, stderr))


def run(cmd):
    start = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        raise SystemExit("%s failed:\n%s" % (" ".join(cmd), p.stderr[-2000:]))
    return wall, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--mlir-opt", default="/usr/lib/llvm-22/bin/mlir-opt")
    args = ap.parse_args()
    shard_opt = os.path.join(args.bin, "shard-opt")
    print("compile time of N redistributions S(0) -> S(1), f32[1024, 1024] "
          "on 4 devices; medians of %d runs (s)" % args.runs)
    print("%8s  %-9s %8s %8s %8s" % ("N", "tool", "whole", "parse", "pass"))
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(s) for s in args.sizes.split(",")]:
            ours = os.path.join(tmp, "shardc.mlir")
            theirs = os.path.join(tmp, "upstream.mlir")
            with open(ours, "w") as f:
                f.write(SHARDC + SHARDC_BEGIN +
                        "".join(SHARDC_OP.format(i=i) for i in range(n)) +
                        SHARDC_END)
            with open(theirs, "w") as f:
                f.write(UPSTREAM + UPSTREAM_BEGIN +
                        "".join(UPSTREAM_OP.format(i=i) for i in range(n)) +
                        UPSTREAM_END)
            results = {}
            for tool, cmd, pass_name in [
                ("shardc", [shard_opt, ours, "-shard-plan-redistribute",
                            "-o", os.devnull, "--mlir-timing"],
                 "ShardPlanRedistribute"),
                ("upstream", [args.mlir_opt, theirs, "--pass-pipeline="
                              "builtin.module(func.func(shard-partition))",
                              "-o", os.devnull, "--mlir-timing"],
                 "Partition"),
            ]:
                walls, parses, passes = [], [], []
                for _ in range(args.runs):
                    wall, stderr = run(cmd)
                    walls.append(wall)
                    parses.append(timing(stderr, "Parser"))
                    passes.append(timing(stderr, pass_name))
                results[tool] = (statistics.median(walls),
                                 statistics.median(parses),
                                 statistics.median(passes))
                print("%8d  %-9s %8.3f %8.3f %8.3f" % ((n, tool) +
                                                       results[tool]))
            o, u = results["shardc"], results["upstream"]
            print("%8d  %-9s %8.2f %8.2f %8.2f   (shardc / upstream)" %
                  (n, "ratio", o[0] / u[0], o[1] / u[1], o[2] / u[2]))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
