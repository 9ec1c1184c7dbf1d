#!/usr/bin/env python3
"""Whole-program sharding at scale: a module of N MLP blocks (each a matmul
with a column-sharded weight, a ReLU, a matmul with a row-sharded weight:
4 compute ops, plus tensor.empty and fills) on a 2x4 mesh (dp, tp), batch
sharded on dp. Times shard-opt -shard-propagate -shard-spmd-partition (parse,
both passes, print) and, with --mlir-timing, each pass alone; medians of
--runs runs, and the time per compute op, which stays flat when the work is
linear.

  python3 bench/partition_scale.py [--bin build/bin] [--blocks 250,2500,25000]
                                   [--runs 3] [--distinct-weights]

With --distinct-weights every block's weights are function arguments of
their own (a function of 2N + 1 arguments); peak memory stays linear.
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

HEAD = """#m = #shard.mesh<shape = [2, 4], axes = ["dp", "tp"]>
#x = #shard.placements<mesh = #m, placements = [S(0), R]>
#w1 = #shard.placements<mesh = #m, placements = [R, S(1)]>
#w2 = #shard.placements<mesh = #m, placements = [R, S(0)]>
func.func @mlp(%x: tensor<64x32xf32> {shard.layout = #x},
               %w1: tensor<32x48xf32> {shard.layout = #w1},
               %w2: tensor<48x32xf32> {shard.layout = #w2})
    -> (tensor<64x32xf32> {shard.layout = #x}) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x48xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %e2 = tensor.empty() : tensor<64x32xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x32xf32>) -> tensor<64x32xf32>
"""
BLOCK = """  %h{i} = linalg.matmul ins({prev}, %w1 : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f1 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %a{i} = arith.maximumf %h{i}, %f1 : tensor<64x48xf32>
  %y{i} = linalg.matmul ins(%a{i}, %w2 : tensor<64x48xf32>, tensor<48x32xf32>) outs(%f2 : tensor<64x32xf32>) -> tensor<64x32xf32>
  %z{i} = arith.addf %y{i}, {prev} : tensor<64x32xf32>
"""


def module(blocks, distinct=False):
    """N blocks; with `distinct`, each block's two weights are arguments of
    their own and carry no layout (propagation writes 2N + 1 argument
    layouts, partition 2N + 1 global types)."""
    head = HEAD
    if distinct:
        args = ",\n               ".join(
            f"%w1_{i}: tensor<32x48xf32>, %w2_{i}: tensor<48x32xf32>"
            for i in range(blocks))
        head = head.replace(
            "%w1: tensor<32x48xf32> {shard.layout = #w1},\n"
            "               %w2: tensor<48x32xf32> {shard.layout = #w2})",
            args + ")")
    parts = [head]
    prev = "%x"
    for i in range(blocks):
        block = BLOCK.format(i=i, prev=prev)
        if distinct:
            block = block.replace("%w1 :", f"%w1_{i} :").replace(
                "%w2 :", f"%w2_{i} :")
        parts.append(block)
        prev = f"%z{i}"
    parts.append(f"  return {prev} : tensor<64x32xf32>\n}}\n")
    return "".join(parts)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default="build/bin")
    p.add_argument("--blocks", default="250,2500,25000")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--distinct-weights", action="store_true",
                   help="every block's weights are arguments of their own")
    a = p.parse_args()
    opt = os.path.join(a.bin, "shard-opt")
    print(f"{'ops':>8} {'whole run':>10} {'propagate':>10} {'partition':>10}"
          f" {'us/op':>7} {'peak MiB':>9}")
    for blocks in [int(b) for b in a.blocks.split(",")]:
        ops = 4 * blocks
        with tempfile.NamedTemporaryFile("w", suffix=".mlir",
                                         delete=False) as f:
            f.write(module(blocks, a.distinct_weights))
            path = f.name
        walls, props, parts, peaks = [], [], [], []
        try:
            for _ in range(a.runs):
                start = time.perf_counter()
                proc = subprocess.Popen(
                    [opt, path, "-shard-propagate", "-shard-spmd-partition",
                     "--mlir-timing", "-o", os.devnull],
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                    text=True)
                err = proc.stderr.read()
                _, status, usage = os.wait4(proc.pid, 0)
                walls.append(time.perf_counter() - start)
                if os.waitstatus_to_exitcode(status) != 0:
                    raise SystemExit(err[-2000:])
                peaks.append(usage.ru_maxrss / 1024)
                r = argparse.Namespace(stderr=err)
                t = dict(
                    (m.group(2), float(m.group(1))) for m in re.finditer(
                        r"^\s*([0-9.]+) \([ 0-9.]+%\)\s+(\S+)$", r.stderr,
                        re.M))
                props.append(t.get("ShardPropagate", float("nan")))
                parts.append(t.get("ShardPartition", float("nan")))
        finally:
            os.unlink(path)
        wall = statistics.median(walls)
        print(f"{ops:>8} {wall:>9.3f}s {statistics.median(props):>9.3f}s"
              f" {statistics.median(parts):>9.3f}s"
              f" {wall / ops * 1e6:>7.1f} {statistics.median(peaks):>9.0f}")


if __name__ == "__main__":
    main()
