"""Run under mpirun by test_torch_reference.py: replays, on this world's
size, every redistribution a real PyTorch (2.11) made in
data/torch_redistribute.json (scripts/torch-redistribute-reference.py):
each rank gives shardc.redistribute the very to_local() PyTorch's rank
started from and checks that it gets PyTorch's to_local() back, element for
element (float64, exact). Prints one line per rank, rank 0 the verdict."""
import json
import os
import sys

import numpy as np
from mpi4py import MPI

import shardc

comm = MPI.COMM_WORLD
rank, n = comm.Get_rank(), comm.Get_size()
REF = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                  "data", "torch_redistribute.json")))


def text(p):
    return {"S": lambda: f"S({p[1]})", "_S": lambda: f"_S({p[1]}, {p[2]})",
            "P": lambda: f"P({p[1]})", "R": lambda: "R"}[p[0]]()


replayed, elements, refused, bad = 0, 0, 0, []
for i, case in enumerate(REF["cases"]):
    if int(np.prod(case["mesh"])) != n or any("error" in r
                                               for r in case["ranks"]):
        continue
    src_kinds = {p[0] for p in case["src"]}
    if "P" in src_kinds and "R" in src_kinds:
        # The generator's replicas of a partial value differ (rank + 1
        # times each): DTensor reads one of them, which is no semantics.
        continue
    mesh = np.arange(n).reshape(case["mesh"]).tolist()
    a = shardc.layout(case["shape"], mesh=mesh,
                      placements=[text(p) for p in case["src"]],
                      dtype="float64")
    b = shardc.layout(case["shape"], mesh=mesh,
                      placements=[text(p) for p in case["dst"]],
                      dtype="float64")
    mine = case["ranks"][rank]
    # PyTorch's input, in the local shape shardc gives rank's rows of a.
    rows = shardc.local_tensor(
        [np.zeros(blk["shard_sizes"]) for blk in shardc.owned_blocks(a, rank)],
        a, rank).shape
    local = np.asarray(mine["in"], np.float64).reshape(rows)
    ops = {p[1] for p in case["src"] if p[0] == "P"}
    try:
        got = shardc.redistribute(shardc.local_blocks(local, a, rank), a, b)
    except shardc.ShardcError as e:
        # PyTorch mixes sum and avg (it refuses other mixes), and so does
        # shardc.redistribute now; counted if it ever refuses it again.
        if len(ops) > 1 and "different operations" in str(e):
            refused += 1
            continue
        raise
    out = shardc.local_tensor(got, b, rank)
    want = np.asarray(mine["out"], np.float64).reshape(mine["shape"])
    if out.shape != want.shape or not np.array_equal(out, want):
        bad.append(f"case {i} {case['src']} -> {case['dst']} on "
                   f"{case['mesh']} of {case['shape']}: got "
                   f"{out.reshape(-1).tolist()}, PyTorch "
                   f"{want.reshape(-1).tolist()}")
    replayed += 1
    elements += want.size

line = (f"rank {rank}: {'OK' if not bad else 'MISMATCH'}, {replayed} "
        f"redistributions of PyTorch {REF['torch']}, {elements} elements "
        f"checked, {refused} refused (sum and avg mixed)" +
        "".join("\n  " + b for b in bad[:5]))
lines = comm.gather(line)
total_bad = comm.allreduce(len(bad))
total = comm.allreduce(replayed)
if rank == 0:
    print("\n".join(lines))
    print("all OK" if total_bad == 0 and total > 0 else
          f"FAILED: {total_bad} mismatches of {total}", flush=True)
sys.exit(1 if total_bad else 0)
