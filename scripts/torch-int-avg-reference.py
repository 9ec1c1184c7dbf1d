#!/usr/bin/env python3
"""What a real PyTorch's DTensor does with Partial("avg") (and sum, max) of
integer and float copies whose sum passes the type's range, for
docs/runtime.md and ReduceView.IntegerAvgAsPyTorchOverNccl: gloo on 4 CPU
processes and, where a GPU is visible, NCCL on 2 processes sharing it (a
NCCL_HOSTID each). Run where PyTorch 2.x is installed:

    python3 scripts/torch-int-avg-reference.py OUT.json

Each rank's copy holds `value` (or 3 * rank + 1 for the "7" rows); the
copies are redistributed to Replicate() and Shard(0) and every rank's
answer is recorded. Every answer is PyTorch's.
"""

import json
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.tensor import (DeviceMesh, DTensor, Partial,
                                      Replicate, Shard)


def worker(rank, world, port, backend, path):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    if backend == "nccl":
        os.environ["NCCL_HOSTID"] = f"probe-{rank}"
        torch.cuda.set_device(0)
    dist.init_process_group(backend, rank=rank, world_size=world)
    dev = "cuda" if backend == "nccl" else "cpu"
    mesh = DeviceMesh(dev, list(range(world)))
    out = []
    for dtype in [torch.uint8, torch.int8, torch.int32, torch.int64, torch.float16, torch.bfloat16, torch.float32]:
        for op, val in [("avg", 250), ("avg", 100), ("sum", 250), ("avg", 7), ("max", 250)]:
            rec = {"dtype": str(dtype), "op": op, "value": val, "world": world}
            try:
                v = val if dtype not in (torch.int8,) else min(val, 127)
                local = torch.full((4,), v, dtype=dtype, device=dev)
                if op == "avg" and val == 7:
                    local = torch.full((4,), rank * 3 + 1, dtype=dtype, device=dev)
                d = DTensor.from_local(local, mesh, [Partial(op)], run_check=False)
                for dst in ("R", "S0"):
                    r = d.redistribute(mesh, [Replicate() if dst == "R" else Shard(0)]).to_local()
                    rec[dst] = [float(x) for x in r.cpu().float().tolist()]
                    rec[dst + "_dtype"] = str(r.dtype)
            except Exception as e:
                rec["error"] = f"{type(e).__name__}: {e}"[:300]
            out.append(rec)
    json.dump(out, open(f"{path}.{rank}", "w"))
    dist.barrier()
    dist.destroy_process_group()

def run(backend, world, port):
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "r")
        mp.spawn(worker, args=(world, port, backend, p), nprocs=world, join=True)
        return [json.load(open(f"{p}.{r}")) for r in range(world)]

if __name__ == "__main__":
    res = {"torch": torch.__version__, "gloo4": run("gloo", 4, 29711)}
    if torch.cuda.is_available():
        try:
            res["nccl2"] = run("nccl", 2, 29712)
        except Exception as e:
            res["nccl2_error"] = str(e)[:500]
    json.dump(res, open(sys.argv[1], "w"), indent=0)
    for k in ("gloo4", "nccl2"):
        for rec in res.get(k, [[]])[0]:
            got = rec["R"][:2] if "R" in rec else rec.get("error", "")[:150]
            print(k, rec["dtype"], rec["op"], rec["value"], "R:", got,
                  "S0:", rec.get("S0", [""])[:1])
