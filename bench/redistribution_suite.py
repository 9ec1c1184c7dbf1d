#!/usr/bin/env python3
"""The redistribution suite: 45 redistributions over 1-D, 2-D and 3-D meshes,
uneven sizes and enumerable layouts (checkpoint reshards with several blocks
per rank among them), on 2, 3, 4 and 8 ranks.

  --traffic            at sizes of 1 MiB per rank and up, plan every case with
                       shard-plan --report and compare the bytes received with
                       the lower bound; lists every case above it (with the
                       reason) and exits 1 if any is.
  --execute --ranks N  run every N-rank case at a small size under
                       `mpirun -np N shard-plan --execute` (one launch, the
                       cases' --from/--to pairs in turn), which checks every
                       element on every rank; exits 1 on any failure.

Layouts are written as the JSON that shard-translate reads (ShardedTensor
metadata with a chunk sharding_spec, DTensor meshes and placements, explicit
shards_metadata); sizes come from torch.chunk's formula, computed here.
"""
import argparse
import itertools
import json
import os
import shlex
import subprocess
import sys
import tempfile


def chunk(n, k, i):
    split = -(-n // k)
    offset = split * i
    return offset, max(0, min(split, n - offset))


def chunk_layout(shape, dim, ranks):
    d = dim % len(shape)
    shards = []
    for i, r in enumerate(ranks):
        off, size = chunk(shape[d], len(ranks), i)
        offsets, sizes = [0] * len(shape), list(shape)
        offsets[d], sizes[d] = off, size
        shards.append({"shard_offsets": offsets, "shard_sizes": sizes,
                       "placement": f"rank:{r}"})
    return {"shards_metadata": shards,
            "sharding_spec": {"type": "chunk", "dim": dim,
                              "placements": [f"rank:{r}" for r in ranks]}}


def mesh_layout(mesh, placements, devices=None):
    m = {"shape": mesh}
    if devices:
        m["mesh"] = devices
    return {"device_mesh": m, "placements": placements}


def grid_layout(shape, cuts, ranks):
    """Blocks of a grid: `cuts[d]` chunks (torch.chunk) of each dim, owners
    `ranks` in row-major grid order."""
    shards = []
    for pos, coord in enumerate(itertools.product(*[range(c) for c in cuts])):
        offsets, sizes = [], []
        for d, c in enumerate(coord):
            off, size = chunk(shape[d], cuts[d], c)
            offsets.append(off)
            sizes.append(size)
        shards.append({"shard_offsets": offsets, "shard_sizes": sizes,
                       "placement": f"rank:{ranks[pos]}"})
    return {"shards_metadata": shards}


def rows_layout(shape, rows, ranks):
    """Explicit blocks along dim 0 with the given row counts."""
    shards, start = [], 0
    for n, r in zip(rows, ranks):
        offsets, sizes = [0] * len(shape), list(shape)
        offsets[0], sizes[0] = start, n
        start += n
        shards.append({"shard_offsets": offsets, "shard_sizes": sizes,
                       "placement": f"rank:{r}"})
    return {"shards_metadata": shards}


def scaled_rows(rows, factor):
    return [n * factor for n in rows]


# (name, ranks, small shape, from(shape, k), to(shape, k)); k is the scale
# factor of the big size (layouts that list sizes explicitly use it).
R2, R3, R4, R8 = [0, 1], [0, 1, 2], [0, 1, 2, 3], list(range(8))
CASES = [
    # 2 ranks
    ("chunk d0 -> d1", 2, [6, 10], lambda s, k: chunk_layout(s, 0, R2), lambda s, k: chunk_layout(s, 1, R2)),
    ("chunk d1 -> d0 reversed", 2, [5, 7], lambda s, k: chunk_layout(s, 1, R2), lambda s, k: chunk_layout(s, 0, [1, 0])),
    ("S(0) -> R", 2, [7, 3], lambda s, k: mesh_layout([2], ["S(0)"]), lambda s, k: mesh_layout([2], ["R"])),
    ("R -> S(1)", 2, [4, 9], lambda s, k: mesh_layout([2], ["R"]), lambda s, k: mesh_layout([2], ["S(1)"])),
    ("chunk swap placements", 2, [9, 4], lambda s, k: chunk_layout(s, 0, R2), lambda s, k: chunk_layout(s, 0, [1, 0])),
    ("enumerable 3/7 rows -> chunk d0", 2, [10, 3], lambda s, k: rows_layout(s, scaled_rows([3, 7], k), R2), lambda s, k: chunk_layout(s, 0, R2)),
    ("3-D chunk d2 -> d0", 2, [3, 4, 5], lambda s, k: chunk_layout(s, 2, R2), lambda s, k: chunk_layout(s, 0, R2)),
    ("S(0) -> S(1), odd sizes", 2, [5, 5], lambda s, k: mesh_layout([2], ["S(0)"]), lambda s, k: mesh_layout([2], ["S(1)"])),
    # 3 ranks
    ("chunk d0 -> d1, 7 over 3", 3, [7, 7], lambda s, k: chunk_layout(s, 0, R3), lambda s, k: chunk_layout(s, 1, R3)),
    ("chunk rotated placements", 3, [8, 2], lambda s, k: chunk_layout(s, 0, R3), lambda s, k: chunk_layout(s, 0, [1, 2, 0])),
    ("S(0) -> R", 3, [5, 4], lambda s, k: mesh_layout([3], ["S(0)"]), lambda s, k: mesh_layout([3], ["R"])),
    ("R -> S(0)", 3, [5, 4], lambda s, k: mesh_layout([3], ["R"]), lambda s, k: mesh_layout([3], ["S(0)"])),
    ("enumerable 2/5/1 rows -> chunk d1", 3, [8, 6], lambda s, k: rows_layout(s, scaled_rows([2, 5, 1], k), [2, 0, 1]), lambda s, k: chunk_layout(s, 1, R3)),
    ("chunk d1 -> enumerable 4/1/3 rows", 3, [8, 6], lambda s, k: chunk_layout(s, 1, R3), lambda s, k: rows_layout(s, scaled_rows([4, 1, 3], k), R3)),
    ("3-D chunk d1 -> d2", 3, [2, 5, 4], lambda s, k: chunk_layout(s, 1, R3), lambda s, k: chunk_layout(s, 2, [2, 1, 0])),
    ("empty chunk (2 over 3) -> other dim", 3, [2, 9], lambda s, k: chunk_layout(s, 0, R3), lambda s, k: chunk_layout(s, 1, R3)),
    ("ckpt 3x3 grid dealt -> chunk d1", 3, [7, 8], lambda s, k: grid_layout(s, [3, 3], [0, 1, 2, 1, 2, 0, 2, 0, 1]), lambda s, k: chunk_layout(s, 1, R3)),
    # 4 ranks
    ("chunk d0 -> d1, 6x10", 4, [6, 10], lambda s, k: chunk_layout(s, 0, R4), lambda s, k: chunk_layout(s, 1, R4)),
    ("(S0,S1) -> (S1,S0)", 4, [6, 5], lambda s, k: mesh_layout([2, 2], ["S(0)", "S(1)"]), lambda s, k: mesh_layout([2, 2], ["S(1)", "S(0)"])),
    ("(S0,S0) -> (R,S0)", 4, [9, 2], lambda s, k: mesh_layout([2, 2], ["S(0)", "S(0)"]), lambda s, k: mesh_layout([2, 2], ["R", "S(0)"])),
    ("(S0,R) -> (R,S0)", 4, [8, 3], lambda s, k: mesh_layout([2, 2], ["S(0)", "R"]), lambda s, k: mesh_layout([2, 2], ["R", "S(0)"])),
    ("(S0,S1) -> (R,S1) FSDP+TP", 4, [8, 6], lambda s, k: mesh_layout([2, 2], ["S(0)", "S(1)"]), lambda s, k: mesh_layout([2, 2], ["R", "S(1)"])),
    ("(S0,S1) -> (S0,R)", 4, [7, 5], lambda s, k: mesh_layout([2, 2], ["S(0)", "S(1)"]), lambda s, k: mesh_layout([2, 2], ["S(0)", "R"])),
    ("(S1,S0) -> (S0,S0)", 4, [5, 6], lambda s, k: mesh_layout([2, 2], ["S(1)", "S(0)"]), lambda s, k: mesh_layout([2, 2], ["S(0)", "S(0)"])),
    ("(R,R) -> (S0,S1)", 4, [4, 4], lambda s, k: mesh_layout([2, 2], ["R", "R"]), lambda s, k: mesh_layout([2, 2], ["S(0)", "S(1)"])),
    ("2x2 grid -> chunk d1", 4, [4, 6], lambda s, k: grid_layout(s, [2, 2], R4), lambda s, k: chunk_layout(s, 1, R4)),
    ("chunk d0 -> 2x2 grid", 4, [5, 6], lambda s, k: chunk_layout(s, 0, R4), lambda s, k: grid_layout(s, [2, 2], [3, 2, 1, 0])),
    ("mesh [4] S(0) -> [2,2] (S1,S0)", 4, [6, 6], lambda s, k: mesh_layout([4], ["S(0)"]), lambda s, k: mesh_layout([2, 2], ["S(1)", "S(0)"])),
    ("permuted devices -> identity", 4, [6, 4], lambda s, k: mesh_layout([2, 2], ["S(0)", "S(1)"], [3, 1, 2, 0]), lambda s, k: mesh_layout([2, 2], ["S(0)", "S(1)"])),
    ("3-D (S0,S2) -> (S2,S1)", 4, [3, 4, 5], lambda s, k: mesh_layout([2, 2], ["S(0)", "S(2)"]), lambda s, k: mesh_layout([2, 2], ["S(2)", "S(1)"])),
    ("11 over 4 -> R", 4, [11, 2], lambda s, k: chunk_layout(s, 0, R4), lambda s, k: mesh_layout([4], ["R"])),
    ("ckpt 4x2 grid dealt -> 2x4 grid dealt", 4, [9, 7], lambda s, k: grid_layout(s, [4, 2], R4 + R4), lambda s, k: grid_layout(s, [2, 4], [3, 2, 1, 0, 3, 2, 1, 0])),
    ("chunk d0 -> 3x3 grid dealt", 4, [6, 9], lambda s, k: chunk_layout(s, 0, R4), lambda s, k: grid_layout(s, [3, 3], [0, 1, 2, 3, 0, 1, 2, 3, 0])),
    # 8 ranks
    ("[8] S(0) -> S(1)", 8, [9, 8], lambda s, k: mesh_layout([8], ["S(0)"]), lambda s, k: mesh_layout([8], ["S(1)"])),
    ("2x4 (S0,S1) -> (S1,S0)", 8, [6, 9], lambda s, k: mesh_layout([2, 4], ["S(0)", "S(1)"]), lambda s, k: mesh_layout([2, 4], ["S(1)", "S(0)"])),
    ("2x2x2 (S0,S1,S2) -> (S2,S0,S1)", 8, [3, 4, 5], lambda s, k: mesh_layout([2, 2, 2], ["S(0)", "S(1)", "S(2)"]), lambda s, k: mesh_layout([2, 2, 2], ["S(2)", "S(0)", "S(1)"])),
    ("2x2x2 (S0,R,S1) -> (R,S1,S0)", 8, [4, 6], lambda s, k: mesh_layout([2, 2, 2], ["S(0)", "R", "S(1)"]), lambda s, k: mesh_layout([2, 2, 2], ["R", "S(1)", "S(0)"])),
    ("2x2x2 (S0,S0,S0) -> (R,R,S1)", 8, [9, 4], lambda s, k: mesh_layout([2, 2, 2], ["S(0)", "S(0)", "S(0)"]), lambda s, k: mesh_layout([2, 2, 2], ["R", "R", "S(1)"])),
    ("4x2 (S0,R) -> (R,S0)", 8, [8, 3], lambda s, k: mesh_layout([4, 2], ["S(0)", "R"]), lambda s, k: mesh_layout([4, 2], ["R", "S(0)"])),
    ("[8] S(0) -> 2x2x2 (S1,S0,R)", 8, [6, 6], lambda s, k: mesh_layout([8], ["S(0)"]), lambda s, k: mesh_layout([2, 2, 2], ["S(1)", "S(0)", "R"])),
    ("2x4 grid -> chunk d0", 8, [6, 8], lambda s, k: grid_layout(s, [2, 4], R8), lambda s, k: chunk_layout(s, 0, R8)),
    ("chunk d1 -> 4x2 grid", 8, [8, 9], lambda s, k: chunk_layout(s, 1, R8), lambda s, k: grid_layout(s, [4, 2], list(reversed(R8)))),
    ("2x4 (S0,S0) -> (S1,S1)", 8, [9, 9], lambda s, k: mesh_layout([2, 4], ["S(0)", "S(0)"]), lambda s, k: mesh_layout([2, 4], ["S(1)", "S(1)"])),
    ("4 ranks' chunks -> 8 ranks' chunks", 8, [10, 4], lambda s, k: chunk_layout(s, 0, R4), lambda s, k: chunk_layout(s, 0, R8)),
    ("ckpt 4x4 grid dealt -> 2x2x2 (S0,S1,R)", 8, [8, 8], lambda s, k: grid_layout(s, [4, 4], [(i * 3) % 8 for i in range(16)]), lambda s, k: mesh_layout([2, 2, 2], ["S(0)", "S(1)", "R"])),
]

MIB_PER_RANK = 1 << 20


def scale_for(shape, ranks):
    """The smallest odd factor k with every dim times k holding at least
    1 MiB of f32 per rank (odd keeps uneven splits uneven)."""
    k = 1
    while True:
        vol = 1
        for n in shape:
            vol *= n * k
        if vol * 4 >= ranks * MIB_PER_RANK:
            return k
        k += 2


def write_layout(path, shape, layout):
    doc = {"size": shape, "tensor_properties": {"dtype": "float32"}}
    doc.update(layout)
    with open(path, "w") as f:
        json.dump(doc, f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shard-plan", default="shard-plan")
    ap.add_argument("--mpirun", default="mpirun --allow-run-as-root "
                    "--oversubscribe --mca btl self,vader --bind-to none")
    ap.add_argument("--traffic", action="store_true")
    ap.add_argument("--execute", action="store_true")
    ap.add_argument("--ranks", type=int)
    args = ap.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        if args.traffic:
            print(f"{'case':44} {'ranks':>5} {'MiB/rank':>9} {'received':>12} "
                  f"{'bound':>12} {'ratio':>6}")
            above = []
            for n, (name, ranks, shape, src, dst) in enumerate(CASES):
                k = scale_for(shape, ranks)
                big = [d * k for d in shape]
                a, b, r = (os.path.join(tmp, f"{n}{x}.json") for x in "abr")
                write_layout(a, big, src(big, k))
                write_layout(b, big, dst(big, k))
                p = subprocess.run([args.shard_plan, f"--from={a}", f"--to={b}",
                                    f"--report={r}", f"--world-size={ranks}"],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    print(f"{name}: shard-plan failed:\n{p.stderr}")
                    failed = True
                    continue
                op = json.load(open(r))["ops"][0]
                got, bound = op["bytes_received_total"], op["lower_bound_total"]
                per_rank = 4 * eval("*".join(map(str, big))) / ranks / (1 << 20)
                ratio = got / bound if bound else 1.0
                print(f"{name:44} {ranks:>5} {per_rank:>9.2f} {got:>12} "
                      f"{bound:>12} {ratio:>6.3f}")
                if got != bound or op["bytes_received_max_rank"] != op["lower_bound_max_rank"]:
                    above.append(name)
            print(f"traffic: {len(CASES)} cases, {len(CASES) - len(above)} at "
                  f"the lower bound, {len(above)} above")
            for name in above:
                print(f"  above the bound: {name}")
            failed |= bool(above)
        if args.execute:
            # Every case of this rank count in one launch (shard-plan plans
            # and executes its --from/--to pairs in turn, each under a
            # "== A -> B" line): MPI starts once.
            cases = [c for c in CASES if c[1] == args.ranks]
            pairs = []
            for n, (name, ranks, shape, src, dst) in enumerate(cases):
                a, b = (os.path.join(tmp, f"x{n}{x}.json") for x in "ab")
                write_layout(a, shape, src(shape, 1))
                write_layout(b, shape, dst(shape, 1))
                pairs += [f"--from={a}", f"--to={b}"]
            ok = 0
            if cases:
                cmd = shlex.split(args.mpirun) + [
                    "-np", str(args.ranks), args.shard_plan] + pairs + [
                    "--execute"]
                p = subprocess.run(cmd, capture_output=True, text=True)
                blocks = p.stdout.split("\n== ")
                verdict = (f"executed on {args.ranks} ranks: every element "
                           "checked, all OK")
                for n, (name, *_rest) in enumerate(cases):
                    block = blocks[n] if n < len(blocks) else ""
                    if verdict in block:
                        ok += 1
                    else:
                        failed = True
                        print(f"FAILED: {name}:\n{block}")
                # A run that passes says nothing on stderr (a stray error
                # there was once printed by every rank of every run).
                if p.returncode != 0 or p.stderr.strip():
                    failed = True
                    print(f"FAILED: exit {p.returncode}:\n{p.stderr}")
            print(f"execute on {args.ranks} ranks: {len(cases)} cases, {ok} OK")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
