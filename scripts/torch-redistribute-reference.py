#!/usr/bin/env python3
"""What a real PyTorch's DTensor.redistribute gives, for
python/tests/test_torch_reference.py.

Run where PyTorch 2.x is installed (CPU only: gloo, 2, 3 and 4 processes
spawned on this machine):

    python3 scripts/torch-redistribute-reference.py OUT.json [SECONDS]

For generated cases (seeded) of a source and a destination layout on a
mesh of 2, 3, 4 or 2x2 ranks (Shard, Replicate, _StridedShard, Partial
sum/avg/max/min, uneven dims), each rank makes its source local tensor
(distribute_tensor of arange(n) + 1 in float64, or for a Partial source the
rank's own copy, (rank + 1) times its rows of it, made with from_local),
calls redistribute and records its to_local() values, or the error
PyTorch raised. Every answer is PyTorch's.
"""

import json
import os
import random
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from torch.distributed.tensor import (DeviceMesh, DTensor, Partial,
                                      Replicate, Shard, distribute_tensor)
from torch.distributed.tensor.placement_types import _StridedShard


def make(p):
    if p[0] == "S":
        return Shard(p[1])
    if p[0] == "_S":
        return _StridedShard(p[1], split_factor=p[2])
    if p[0] == "P":
        return Partial(p[1])
    return Replicate()


def cases_for(mesh, rng, count):
    out = []
    while len(out) < count:
        rank = rng.randint(1, 2)
        shape = [rng.choice([1, 2, 3, 4, 5, 6, 7]) for _ in range(rank)]

        def pick(allow_partial):
            ps = []
            for _ in mesh:
                r = rng.random()
                d = rng.randrange(rank)
                if r < 0.25:
                    ps.append(["R"])
                elif r < 0.6:
                    ps.append(["S", d])
                elif r < 0.7:
                    ps.append(["_S", d, 2])
                elif allow_partial:
                    ps.append(["P", rng.choice(["sum", "sum", "avg", "max",
                                                "min"])])
                else:
                    ps.append(["S", d])
            return ps
        out.append({"shape": shape, "mesh": mesh, "src": pick(True),
                    "dst": pick(True)})
    return out


def worker(rank, world, port, cases, path):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=world)
    results = []
    for case in cases:
        res = {}
        try:
            mesh = DeviceMesh("cpu", torch.arange(world).reshape(
                case["mesh"]))
            shape = case["shape"]
            g = (torch.arange(int(torch.tensor(shape).prod()),
                              dtype=torch.float64) + 1).reshape(shape)
            src = [make(p) for p in case["src"]]
            rows = [Replicate() if p[0] == "P" else make(p)
                    for p in case["src"]]
            local = distribute_tensor(g, mesh, rows, src_data_rank=None)
            local = local.to_local() * (rank + 1) if any(
                p[0] == "P" for p in case["src"]) else local.to_local()
            dt = DTensor.from_local(local, mesh, src, run_check=False,
                                    shape=torch.Size(shape),
                                    stride=g.stride())
            out = dt.redistribute(mesh, [make(p) for p in case["dst"]])
            got = out.to_local()
            res["in"] = local.reshape(-1).tolist()
            res["shape"] = list(got.shape)
            res["out"] = got.reshape(-1).tolist()
        except Exception as e:  # noqa: BLE001 (PyTorch's own answer)
            res["error"] = f"{type(e).__name__}: {e}"[:300]
        results.append(res)
        # Written case by case: a hang leaves what came before it.
        with open(f"{path}.{rank}", "w") as f:
            json.dump(results, f)
        dist.barrier()
    dist.destroy_process_group()


def main():
    rng = random.Random(20261129)
    deadline = time.time() + float(sys.argv[2] if len(sys.argv) > 2 else 200)
    doc = {"torch": torch.__version__, "cases": []}
    port = 29611
    for mesh in [[2], [3], [4], [2, 2]]:
        if time.time() > deadline:
            doc["stopped_early"] = True
            break
        world = 1
        for m in mesh:
            world *= m
        cases = cases_for(mesh, rng, 60)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "r")
            ctx = mp.spawn(worker, args=(world, port, cases, path),
                           nprocs=world, join=False)
            stop = min(deadline, time.time() + 90)
            try:
                while not ctx.join(timeout=2):
                    if time.time() > stop:
                        doc.setdefault("hung", []).append(mesh)
                        for p in ctx.processes:
                            p.kill()
                        break
            except Exception as e:  # noqa: BLE001
                doc.setdefault("worker_errors", []).append(str(e)[:300])
            per_rank = []
            for r in range(world):
                try:
                    per_rank.append(json.load(open(f"{path}.{r}")))
                except (OSError, ValueError):
                    per_rank.append([])
            done = min(len(x) for x in per_rank)
            cases = cases[:done]
        port += 1
        for i, case in enumerate(cases):
            case["ranks"] = [per_rank[r][i] for r in range(world)]
            doc["cases"].append(case)
    with open(sys.argv[1], "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    bad = sum(1 for c in doc["cases"] if any("error" in r for r in c["ranks"]))
    print(f"torch {torch.__version__}: {len(doc['cases'])} redistributions "
          f"({bad} refused by PyTorch)")


if __name__ == "__main__":
    main()
