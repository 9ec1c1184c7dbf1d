#!/usr/bin/env python3
"""What a real PyTorch says, for python/tests/test_torch_reference.py.

Run where PyTorch 2.x is installed (no GPU needed; no processes spawned:
torch.distributed's "fake" backend gives each rank its view in one
process):

    python3 scripts/torch-reference.py python/tests/data/torch_reference.json

Writes, for generated cases (seeded, so a rerun on one PyTorch gives the
same file):
  - dtensor: a shape, a mesh of ranks and DTensor placements (Shard,
    Replicate, Partial, _StridedShard, negative dims, uneven sizes, several
    mesh dims on one tensor dim); per rank, distribute_tensor(arange,
    src_data_rank=None).to_local() as the global element indices it holds,
    in its order (runs of consecutive indices), compute_local_shape_and_
    global_offset's answer, and the chunks DCP writes (__create_chunk_list__);
    or the error PyTorch raised;
  - chunk_spec: ChunkShardingSpec(dim, placements).build_metadata(shape)'s
    ShardMetadata (offsets, sizes, placement);
  - objects: each placement's and DeviceMesh's class name, repr, str and
    attributes, as shardc reads them by attribute.
No data from the tests here goes into it: every answer is PyTorch's.
"""

import json
import random
import sys
import time

import torch
import torch.distributed as dist

from torch.distributed.tensor import (DeviceMesh, Partial, Replicate, Shard,
                                      distribute_tensor)
from torch.distributed.tensor.placement_types import _StridedShard
from torch.testing._internal.distributed.fake_pg import FakeStore

try:
    from torch.distributed.tensor._utils import \
        compute_local_shape_and_global_offset
except ImportError:  # pragma: no cover
    compute_local_shape_and_global_offset = None

DEADLINE = time.time() + float(sys.argv[2] if len(sys.argv) > 2 else 240)


def runs(values):
    """Consecutive integers as [start, length] pairs."""
    out = []
    for v in values:
        if out and out[-1][0] + out[-1][1] == v:
            out[-1][1] += 1
        else:
            out.append([v, 1])
    return out


def make(p):
    kind = p[0]
    if kind == "S":
        return Shard(p[1])
    if kind == "_S":
        return _StridedShard(p[1], split_factor=p[2])
    if kind == "P":
        return Partial(p[1])
    return Replicate()


def dtensor_cases(rng):
    meshes = [[1], [2], [3], [4], [8], [2, 2], [2, 3], [3, 2], [2, 4], [4, 2],
              [2, 2, 2]]
    sizes = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12]
    cases = []
    # Structured: FSDP2 + TP ([_S(0, tp), S(0)]), heads in [B*H], one dim on
    # two mesh dims both ways.
    for dp, tp in [(2, 2), (2, 3), (2, 4), (4, 2), (3, 2)]:
        for rows in [dp * tp, 2 * dp * tp, dp * tp + 1, 7, 12]:
            cases.append(([rows, 3], [dp, tp], [("_S", 0, tp), ("S", 0)]))
            cases.append(([rows, 3], [dp, tp], [("S", 0), ("S", 0)]))
            cases.append(([rows], [dp, tp], [("S", 0), ("_S", 0, dp)]))
    for b in [1, 2, 3]:
        for h in [2, 4, 6]:
            for n in [2, 3, 4]:
                cases.append(([b * h, 2], [n], [("_S", 0, b)]))
    while len(cases) < 320:
        mesh = rng.choice(meshes)
        rank = rng.randint(1, 3)
        shape = [rng.choice(sizes) for _ in range(rank)]
        while len(shape) > 1 and _prod(shape) > 200:
            shape[rng.randrange(rank)] //= 2
        placements = []
        for _ in mesh:
            r = rng.random()
            d = rng.randrange(rank)
            if rng.random() < 0.1:
                d -= rank
            if r < 0.2:
                placements.append(("R",))
            elif r < 0.65:
                placements.append(("S", d))
            elif r < 0.85:
                placements.append(("_S", d, rng.choice([1, 2, 3, 4])))
            else:
                placements.append(("P", rng.choice(["sum", "avg", "max"])))
        cases.append((shape, mesh, placements))
    return cases


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def one_rank(shape, mesh_shape, placements, rank):
    world = _prod(mesh_shape)
    dist.init_process_group("fake", rank=rank, world_size=world,
                            store=FakeStore())
    try:
        mesh = DeviceMesh("cpu", torch.arange(world).reshape(mesh_shape))
        ps = [make(p) for p in placements]
        out = {"rank": rank}
        # distribute_tensor takes no Partial: its rows are Replicate's.
        data_ps = [Replicate() if p[0] == "P" else make(p) for p in placements]
        t = torch.arange(_prod(shape), dtype=torch.int64).reshape(shape)
        try:
            local = distribute_tensor(t, mesh, data_ps, src_data_rank=None)
            local = local.to_local()
        except TypeError as e:
            if "src_data_rank" not in str(e):
                raise
            # An older PyTorch: each placement's own split, mesh dim by
            # mesh dim, as distribute_tensor does.
            out["by_split"] = True
            local = t
            coord = mesh.get_coordinate()
            for i, p in enumerate(data_ps):
                if p.is_shard():
                    chunks, _ = p._split_tensor(local, mesh.size(i),
                                                with_padding=False)
                    local = chunks[coord[i]] if coord[i] < len(chunks) \
                        else chunks[0].narrow(p.dim, 0, 0)
        out["local_shape"] = list(local.shape)
        out["local_runs"] = runs(local.reshape(-1).tolist())
        if compute_local_shape_and_global_offset is not None:
            try:
                s, o = compute_local_shape_and_global_offset(
                    torch.Size(shape), mesh, ps)
                out["computed"] = [list(s), list(o)]
            except Exception as e:  # noqa: BLE001 (PyTorch's own answer)
                out["computed_error"] = f"{type(e).__name__}: {e}"[:300]
        try:
            from torch.distributed.tensor import DTensor
            dt = DTensor.from_local(local, mesh, data_ps, run_check=False,
                                    shape=torch.Size(shape),
                                    stride=t.stride())
            out["dcp_chunks"] = [[list(c.offsets), list(c.sizes)]
                                 for c in dt.__create_chunk_list__()]
        except Exception as e:  # noqa: BLE001
            out["dcp_error"] = f"{type(e).__name__}: {e}"[:300]
        return out
    finally:
        dist.destroy_process_group()


def objects():
    out = {}
    for name, p in [("shard", Shard(1)), ("shard_neg", Shard(-1)),
                    ("replicate", Replicate()), ("partial", Partial()),
                    ("partial_max", Partial("max")),
                    ("strided", _StridedShard(0, split_factor=2))]:
        attrs = {}
        for a in ["dim", "split_factor", "reduce_op"]:
            if hasattr(p, a):
                attrs[a] = repr(getattr(p, a))
        out[name] = {"class": type(p).__name__, "repr": repr(p),
                     "str": str(p), "attrs": attrs}
    dist.init_process_group("fake", rank=0, world_size=4, store=FakeStore())
    try:
        mesh = DeviceMesh("cpu", torch.arange(4).reshape(2, 2),
                          mesh_dim_names=("dp", "tp"))
        out["device_mesh"] = {"class": type(mesh).__name__,
                              "repr": repr(mesh),
                              "mesh": mesh.mesh.tolist(),
                              "mesh_dim_names": list(mesh.mesh_dim_names),
                              "device_type": mesh.device_type,
                              "shape": list(mesh.shape)}
    finally:
        dist.destroy_process_group()
    return out


def chunk_specs(rng):
    from torch.distributed._shard.sharding_spec import ChunkShardingSpec
    from torch.distributed._shard.sharded_tensor.metadata import \
        TensorProperties
    out = []
    for _ in range(120):
        rank = rng.randint(1, 3)
        shape = [rng.choice([0, 1, 2, 3, 5, 7, 8, 10, 13]) for _ in
                 range(rank)]
        dim = rng.randrange(rank)
        if rng.random() < 0.2:
            dim -= rank
        n = rng.randint(1, 8)
        ranks = list(range(n))
        if rng.random() < 0.3:
            rng.shuffle(ranks)
        placements = [f"rank:{r}/cpu" for r in ranks]
        case = {"shape": shape, "dim": dim, "placements": placements}
        try:
            spec = ChunkShardingSpec(dim=dim, placements=list(placements))
            md = spec.build_metadata(torch.Size(shape), TensorProperties())
            case["shards"] = [[list(s.shard_offsets), list(s.shard_sizes),
                               str(s.placement)] for s in md.shards_metadata]
        except Exception as e:  # noqa: BLE001
            case["error"] = f"{type(e).__name__}: {e}"[:300]
        out.append(case)
    return out


def main():
    rng = random.Random(20261129)
    doc = {"torch": torch.__version__, "dtensor": [], "chunk_spec": []}
    doc["objects"] = objects()
    doc["chunk_spec"] = chunk_specs(rng)
    for shape, mesh, placements in dtensor_cases(rng):
        if time.time() > DEADLINE:
            doc["stopped_early"] = True
            break
        case = {"shape": shape, "mesh": mesh,
                "placements": [list(p) for p in placements],
                "strs": [str(make(p)) for p in placements],
                "reprs": [repr(make(p)) for p in placements]}
        try:
            case["ranks"] = [one_rank(shape, mesh, placements, r)
                             for r in range(_prod(mesh))]
        except Exception as e:  # noqa: BLE001
            case["error"] = f"{type(e).__name__}: {e}"[:300]
            case.pop("ranks", None)
        doc["dtensor"].append(case)
    with open(sys.argv[1], "w") as f:
        json.dump(doc, f, separators=(",", ":"), default=str)
        f.write("\n")
    bad = sum(1 for c in doc["dtensor"] if "error" in c)
    print(f"torch {torch.__version__}: {len(doc['dtensor'])} DTensor cases "
          f"({bad} refused by PyTorch), {len(doc['chunk_spec'])} chunk specs")


if __name__ == "__main__":
    main()
