#!/usr/bin/env python3
"""Planning at cluster scale: wall time and peak memory (medians) of

- shard-plan and shard-opt -shard-plan-redistribute (with its report) on
  S(0) -> R of a 1-D mesh of 4096 and 16384 devices, and on (S(0), S(1),
  S(0), ...) -> (R, ..., R) of 12-axis meshes of 4096 (2^12) and 16384
  (2^10 x 4 x 4) devices;
- both on P(sum) -> R, P(sum) -> S(0), S(0) -> S(1) and [S(0), P(sum)]
  -> [R, R] on 16,384 devices as a 1-D mesh, 128x128 and 16x32x32 (goal:
  each within 1 s, memory linear in devices);
- shard-plan and shard-opt -shard-plan-redistribute (with its report) on
  10^3 .. 10^6 one-element enumerable blocks (rank i mod 8) to chunks of
  dim 0 on 8 ranks (the scaling table);
- shard-translate importing N blocks that all overlap (the error names the
  first pairs and counts them all).

Usage: plan_clusters.py --bin BUILD/bin [--runs 3] [--only SUBSTRING]
       [--timeout 300]
A run that passes the timeout is reported as such (and not repeated)."""
import argparse
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time


def dtensor(path, size, shape, placements):
    with open(path, "w") as f:
        json.dump({"size": size, "tensor_properties": {"dtype": "float32"},
                   "device_mesh": {"shape": shape},
                   "placements": placements}, f)


def mesh_type(size, shape, placements):
    dims = "x".join(map(str, size))
    return (f"!shard.tensor<{dims}xf32, #shard.placements<mesh = "
            f"#shard.mesh<shape = [{', '.join(map(str, shape))}]>, "
            f"placements = [{', '.join(placements)}]>>")


def mesh_module(path, size, shape, a, b):
    ta, tb = mesh_type(size, shape, a), mesh_type(size, shape, b)
    with open(path, "w") as f:
        f.write(f"func.func @f(%a: {ta}) -> {tb} {{\n"
                f"  %b = shard.redistribute %a : {ta} -> {tb}\n"
                f"  return %b : {tb}\n}}\n")


def enumerable(path, n, ranks=8):
    shards = ",".join(
        f'{{"shard_offsets":[{i}],"shard_sizes":[1],'
        f'"placement":"rank:{i % ranks}"}}' for i in range(n))
    with open(path, "w") as f:
        f.write(f'{{"size":[{n}],"tensor_properties":{{"dtype":"float32"}},'
                f'"shards_metadata":[{shards}]}}')


def enumerable_module(path, n, ranks=8):
    """The module of enumerable() -> chunks(): shard-opt's input."""
    blocks = ", ".join(f'{{offsets = [{i}], sizes = [1], '
                       f'placement = "rank:{i % ranks}"}}' for i in range(n))
    chunk = ", ".join(f'"rank:{r}"' for r in range(ranks))
    with open(path, "w") as f:
        f.write(f"!a = !shard.tensor<{n}xf32, #shard.enumerable<[{blocks}]>>\n"
                f"!b = !shard.tensor<{n}xf32, #shard.chunk<dim = 0, "
                f"placements = [{chunk}]>>\n"
                "func.func @f(%a: !a) -> !b {\n"
                "  %b = shard.redistribute %a : !a -> !b\n"
                "  return %b : !b\n}\n")


def chunks(path, n, ranks=8):
    with open(path, "w") as f:
        json.dump({"size": [n], "tensor_properties": {"dtype": "float32"},
                   "sharding_spec": {"type": "chunk", "dim": 0,
                                     "placements": [f"rank:{r}"
                                                    for r in range(ranks)]},
                   "shards_metadata": [
                       {"shard_offsets": [c * -(-n // ranks)],
                        "shard_sizes": [max(0, min(-(-n // ranks),
                                                   n - c * -(-n // ranks)))],
                        "placement": f"rank:{c}"} for c in range(ranks)]}, f)


def overlapping(path, n):
    shards = ",".join('{"shard_offsets":[0,0],"shard_sizes":[4,4],'
                      f'"placement":"rank:{i}"}}' for i in range(n))
    with open(path, "w") as f:
        f.write('{"size":[4,4],"tensor_properties":{"dtype":"float32"},'
                f'"shards_metadata":[{shards}]}}')


def measure(cmd, runs, timeout, expect_fail=False):
    """Medians of wall time and peak RSS over `runs` runs, through
    /usr/bin/time-like accounting (wait4's ru_maxrss)."""
    walls, rss = [], []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        deadline = start + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                return None
            time.sleep(0.005)
        walls.append(time.perf_counter() - start)
        rss.append(usage.ru_maxrss / 1024)
        code = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode(errors="replace")
        if (code != 0) != expect_fail:
            raise SystemExit(f"{' '.join(cmd)}: exit {code}\n{err[-2000:]}")
    return statistics.median(walls), statistics.median(rss)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    plan = os.path.join(args.bin, "shard-plan")
    opt = os.path.join(args.bin, "shard-opt")
    translate = os.path.join(args.bin, "shard-translate")

    cases = []  # (name, goal seconds, make(tmp) -> cmd, expect_fail)

    def mesh_case(label, size, shape, a, b):
        def plan_cmd(tmp):
            dtensor(f"{tmp}/a.json", size, shape, a)
            dtensor(f"{tmp}/b.json", size, shape, b)
            return [plan, "--from", f"{tmp}/a.json", "--to", f"{tmp}/b.json"]

        def opt_cmd(tmp):
            mesh_module(f"{tmp}/m.mlir", size, shape, a, b)
            return [opt, f"{tmp}/m.mlir",
                    f"-shard-plan-redistribute=report={tmp}/r.json",
                    "-o", os.devnull]
        cases.append((f"shard-plan {label}", 1.0, plan_cmd, False))
        cases.append((f"shard-opt  {label}", 1.0, opt_cmd, False))

    for n in (4096, 16384):
        mesh_case(f"S(0) -> R, 1-D mesh of {n}", [n * 4, 256], [n],
                  ["S(0)"], ["R"])
    for shape in ([2] * 12, [2] * 10 + [4, 4]):
        n = 1
        for s in shape:
            n *= s
        alternating = ["S(0)" if a % 2 == 0 else "S(1)"
                       for a in range(len(shape))]
        mesh_case(f"(S(0), S(1), ...) -> R, 12-axis mesh of {n}",
                  [4096, 4096], shape, alternating, ["R"] * len(shape))

    # Every placement kind at 16,384 devices: 1-D, 2-D and 3-D meshes.
    for shape in ([16384], [128, 128], [16, 32, 32]):
        label = "x".join(map(str, shape))
        axes = len(shape)
        size = [16384 * 4, 256]
        for a, b, name in (
                (["P(sum)"] * axes, ["R"] * axes, "P(sum) -> R"),
                (["P(sum)"] * axes, ["S(0)"] + ["R"] * (axes - 1),
                 "P(sum) -> S(0)"),
                (["S(0)"] + ["R"] * (axes - 1), ["S(1)"] + ["R"] * (axes - 1),
                 "S(0) -> S(1)")):
            mesh_case(f"{name}, mesh {label}", size, shape, a, b)
        if axes > 1:
            mesh_case(f"[S(0), P(sum), ...] -> R, mesh {label}", size, shape,
                      ["S(0)", "P(sum)"] + ["R"] * (axes - 2), ["R"] * axes)

    for n in (10**3, 10**4, 10**5, 10**6):
        def enum_cmd(tmp, n=n):
            enumerable(f"{tmp}/a.json", n)
            chunks(f"{tmp}/b.json", n)
            return [plan, "--from", f"{tmp}/a.json", "--to", f"{tmp}/b.json"]
        cases.append((f"shard-plan {n} one-element blocks -> S(0) on 8",
                      10.0, enum_cmd, False))

        def enum_opt_cmd(tmp, n=n):
            enumerable_module(f"{tmp}/m.mlir", n)
            return [opt, f"{tmp}/m.mlir",
                    f"-shard-plan-redistribute=report={tmp}/r.json",
                    "-o", os.devnull]
        cases.append((f"shard-opt  {n} one-element blocks -> S(0) on 8",
                      10.0, enum_opt_cmd, False))

    for n in (10**3, 10**4, 10**5):
        def overlap_cmd(tmp, n=n):
            overlapping(f"{tmp}/a.json", n)
            return [translate, "--import-sharded-metadata", f"{tmp}/a.json",
                    "-o", os.devnull]
        cases.append((f"shard-translate import {n} overlapping blocks",
                      1.0, overlap_cmd, True))

    print(f"{'case':58} {'median s':>9} {'peak MiB':>9}  goal")
    for name, goal, make, fail in cases:
        if args.only and args.only not in name:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            cmd = make(tmp)
            result = measure(cmd, args.runs, args.timeout, fail)
        if result is None:
            print(f"{name:58} {'>' + str(int(args.timeout)):>9} {'-':>9}  "
                  f"< {goal:g} s", flush=True)
            continue
        wall, rss = result
        print(f"{name:58} {wall:9.2f} {rss:9.0f}  < {goal:g} s"
              f"{'' if wall < goal else '  (NOT MET)'}", flush=True)


if __name__ == "__main__":
    main()
