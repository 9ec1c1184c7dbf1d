#!/usr/bin/env python3
"""Planning at scale: shard-opt -shard-plan-redistribute (with its report) on
a module of 10,000 redistributions between random placements on 8x8 meshes,
and on one reshard of a 4096-block enumerable layout to another (a 64x64
grid of 16x16 blocks to 1x256 rows on permuted ranks). Prints the medians of
5 runs."""
import argparse
import os
import random
import statistics
import subprocess
import tempfile
import time


def module_10k(path):
    rng = random.Random(1)
    choices = ["S(0)", "S(1)", "R"]

    def t(a, b):
        return ("!shard.tensor<64x64xf32, #shard.placements<mesh = #m, "
                f"placements = [{a}, {b}]>>")
    args, body = [], []
    for i in range(10000):
        a = (rng.choice(choices), rng.choice(choices))
        b = (rng.choice(choices), rng.choice(choices))
        args.append(f"%a{i}: {t(*a)}")
        body.append(f"  %b{i} = shard.redistribute %a{i} : {t(*a)} -> {t(*b)}")
    with open(path, "w") as f:
        f.write("#m = #shard.mesh<shape = [8, 8]>\n")
        f.write("func.func @f(" + ", ".join(args) + ") {\n")
        f.write("\n".join(body) + "\n  return\n}\n")


def reshard_4096(path):
    n = 64
    src = ", ".join(
        f'{{offsets = [{i * 16}, {j * 16}], sizes = [16, 16], '
        f'placement = "rank:{i * n + j}"}}' for i in range(n) for j in range(n))
    dst = ", ".join(
        f'{{offsets = [{r // 4}, {(r % 4) * 256}], sizes = [1, 256], '
        f'placement = "rank:{(r * 7) % 4096}"}}' for r in range(4096))
    a = f"!shard.tensor<1024x1024xf32, #shard.enumerable<[{src}]>>"
    b = f"!shard.tensor<1024x1024xf32, #shard.enumerable<[{dst}]>>"
    with open(path, "w") as f:
        f.write(f"func.func @f(%a: {a}) -> {b} {{\n"
                f"  %b = shard.redistribute %a : {a} -> {b}\n"
                f"  return %b : {b}\n}}\n")


def median_seconds(cmd, runs=5):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shard-opt", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name, make, goal in [
                ("10,000 redistributions on 8x8 meshes", module_10k, 2.0),
                ("4096-block enumerable reshard", reshard_4096, 1.0)]:
            path = os.path.join(tmp, "m.mlir")
            make(path)
            report = os.path.join(tmp, "r.json")
            s = median_seconds([args.shard_opt, path,
                                f"-shard-plan-redistribute=report={report}",
                                "-o", os.devnull])
            print(f"plan {name} (with report): {s:.2f} s median "
                  f"(goal < {goal:.0f} s)")


if __name__ == "__main__":
    main()
