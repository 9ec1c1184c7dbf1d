"""shardc's layouts against a real PyTorch's answers.

data/torch_reference.json was written by scripts/torch-reference.py under
PyTorch 2.11.0 (torch.distributed's fake backend: each rank's view in one
process): for 320 DTensor layouts (Shard, Replicate, Partial, _StridedShard,
negative dims, uneven and empty dims, one dim on several mesh axes, meshes
of 1 to 8 devices) the elements each rank's distribute_tensor(...)
.to_local() holds, in order; what DCP writes for each rank; 120
ChunkShardingSpec.build_metadata answers; and how PyTorch's placement and
DeviceMesh objects look (class, repr, str, attributes).
data/torch_redistribute.json, by scripts/torch-redistribute-reference.py
under the same PyTorch (gloo, 2 to 4 processes): 240 DTensor.redistribute
calls, each rank's to_local() before and after, or PyTorch's refusal.
Nothing here is derived by hand: every expectation is PyTorch's.
"""
import ast
import json
import math
import os
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest

import shardc
from conftest import BUILD

REF = json.load(open(os.path.join(os.path.dirname(__file__), "data",
                                  "torch_reference.json")))


def unruns(runs):
    return [i for start, n in runs for i in range(start, start + n)]


def ranks_of(mesh):
    return np.arange(int(np.prod(mesh))).reshape(mesh).tolist()


def local_elements(layout, shape, rank):
    """Rank's to_local() from shardc: its blocks of arange(shape), laid as
    local_tensor lays them."""
    g = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    blocks = [g[tuple(slice(o, o + s) for o, s in
                      zip(b["shard_offsets"], b["shard_sizes"]))]
              for b in shardc.owned_blocks(layout, rank)]
    return shardc.local_tensor(blocks, layout, rank)


def test_reference_is_pytorchs_and_complete():
    assert REF["torch"].startswith("2.11")
    assert not REF.get("stopped_early")
    assert len(REF["dtensor"]) == 320 and len(REF["chunk_spec"]) == 120
    # PyTorch took every generated layout; the strided and uneven ones are
    # well represented.
    assert all("ranks" in c for c in REF["dtensor"])
    strided = [c for c in REF["dtensor"]
               if any(p[0] == "_S" for p in c["placements"])]
    assert len(strided) > 100


@pytest.mark.parametrize("form", ["reprs", "strs"])
def test_every_rank_holds_what_dtensor_holds(form):
    # Both spellings PyTorch prints ("Shard(dim=0)", "_StridedShard(dim=0,
    # sf=2)", "Partial(sum)" and "S(0)", "_S(0, 2)", "P(sum)"), the mesh as
    # DeviceMesh takes it (a nested list of ranks).
    checked = 0
    for case in REF["dtensor"]:
        shape, mesh = case["shape"], case["mesh"]
        layout = shardc.layout(shape, mesh=ranks_of(mesh),
                               placements=case[form])
        for r in case["ranks"]:
            local = local_elements(layout, shape, r["rank"])
            where = (shape, mesh, case["strs"], r["rank"])
            assert list(local.shape) == r["local_shape"], where
            assert local.reshape(-1).tolist() == unruns(r["local_runs"]), \
                where
            checked += 1
    assert checked == sum(len(c["ranks"]) for c in REF["dtensor"])


def test_local_shapes_agree_with_compute_local_shape_and_global_offset():
    # Where PyTorch's own helper answers (it raises on some negative dims).
    for case in REF["dtensor"]:
        layout = shardc.layout(case["shape"], mesh=ranks_of(case["mesh"]),
                               placements=case["strs"])
        for r in case["ranks"]:
            if "computed" not in r:
                continue
            local = local_elements(layout, case["shape"], r["rank"])
            assert list(local.shape) == r["computed"][0], (case, r)


def test_checkpoint_chunks_are_the_layouts_blocks():
    # torch.distributed.checkpoint's chunks of a DTensor without strided
    # shards: each rank's one box; read back as TensorStorageMetadata (the
    # distinct chunks, as DCP's planner keeps them), the same boxes.
    checked = 0
    for case in REF["dtensor"]:
        if any(p[0] == "_S" for p in case["placements"]):
            continue
        layout = shardc.layout(case["shape"], mesh=ranks_of(case["mesh"]),
                               placements=case["strs"])
        chunks = []
        for r in case["ranks"]:
            (offsets, sizes), = r["dcp_chunks"]
            if 0 in sizes:
                continue
            mine = [b for b in shardc.owned_blocks(layout, r["rank"])
                    if 0 not in b["shard_sizes"]]
            assert [(b["shard_offsets"], b["shard_sizes"]) for b in mine] == \
                [(offsets, sizes)], (case, r)
            if (offsets, sizes) not in chunks:
                chunks.append((offsets, sizes))
        if not chunks:
            continue
        md = types.SimpleNamespace(
            size=case["shape"], properties=types.SimpleNamespace(
                dtype="torch.float32"),
            chunks=[types.SimpleNamespace(offsets=o, sizes=s)
                    for o, s in chunks])
        got = shardc.from_torch(md)
        assert sorted((b["shard_offsets"], b["shard_sizes"])
                      for b in got.blocks) == sorted(chunks)
        checked += 1
    assert checked > 150


def test_chunk_sharding_spec_matches_build_metadata():
    checked = 0
    for case in REF["chunk_spec"]:
        spec = types.SimpleNamespace(dim=case["dim"],
                                     placements=case["placements"])
        if "error" in case:
            with pytest.raises(shardc.ShardcError):
                shardc.from_torch(spec, shape=case["shape"])
            continue
        got = shardc.from_torch(spec, shape=case["shape"])
        # PyTorch lists a chunk for every placement, empty ones too (at
        # offsets past the dim); the elements are in the non-empty ones.
        want = sorted((o, s, p) for o, s, p in case["shards"] if 0 not in s)
        have = sorted((b["shard_offsets"], b["shard_sizes"], b["placement"])
                      for b in got.blocks if 0 not in b["shard_sizes"])
        assert have == want, case
        checked += 1
    assert checked == len(REF["chunk_spec"])


def _like(record):
    """An object shaped as PyTorch's: its class name and attributes."""
    cls = type(record["class"], (), {})
    obj = cls()
    for name, text in record["attrs"].items():
        setattr(obj, name, ast.literal_eval(text))
    return obj


def test_pytorchs_objects_and_spellings():
    objs = REF["objects"]
    for key in ["shard", "shard_neg", "replicate", "partial", "partial_max",
                "strided"]:
        rec = objs[key]
        want = rec["str"]
        assert shardc.placement_text(_like(rec)) == want, rec
        assert shardc.placement_text(rec["repr"]) == want, rec
        assert shardc.placement_text(rec["str"]) == want, rec
    dm = objs["device_mesh"]
    mesh = types.SimpleNamespace(mesh=dm["mesh"], device_type=dm["device_type"],
                                 mesh_dim_names=tuple(dm["mesh_dim_names"]))
    a = shardc.layout([4, 6], mesh=mesh, placements=[
        _like(objs["strided"]), _like(objs["shard"])])
    assert a.mesh.mesh_dim_names == tuple(dm["mesh_dim_names"])
    assert a.mesh.mesh == dm["mesh"]
    assert a.placements == [objs["strided"]["str"], objs["shard"]["str"]]


MPIRUN = shutil.which("mpirun")


@pytest.mark.skipif(MPIRUN is None, reason="no mpirun (openmpi-bin)")
@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_redistribute_gives_what_dtensor_redistribute_gave(ranks):
    # data/torch_redistribute.json: DTensor.redistribute under PyTorch 2.11
    # (gloo, 2, 3, 4 and 2x2 ranks; Shard, Replicate, _StridedShard,
    # Partial sum/avg/max/min sources): each rank's to_local() before and
    # after. shardc.redistribute, given the same input on each rank, gives
    # the same output, element for element (mpi_torch_redistribute.py).
    ref = json.load(open(os.path.join(os.path.dirname(__file__), "data",
                                      "torch_redistribute.json")))
    assert ref["torch"].startswith("2.11") and not ref.get("stopped_early")
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"),
               SHARDRT_TIMEOUT_SECONDS="60")
    proc = subprocess.run(
        [MPIRUN, "--allow-run-as-root", "--oversubscribe", "--mca", "btl",
         "self,vader", "--bind-to", "none", "-np", str(ranks),
         sys.executable, os.path.join(os.path.dirname(__file__),
                                      "mpi_torch_redistribute.py")],
        capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "all OK", proc.stdout
    assert [l.split(":")[0] for l in lines[:-1]] == \
        [f"rank {r}" for r in range(ranks)]
    # Every rank replayed every call of its world's size that PyTorch made
    # (but those whose source mixes Partial and Replicate: the generator's
    # replicas differ), none skipped unsaid, and none was refused (the
    # P(sum) and P(avg) mix, which PyTorch allows, included: one, on 2x2).
    # 32, 31 and 37 on 2, 3 and 4 ranks: README's 100.
    expected = sum(
        1 for case in ref["cases"]
        if math.prod(case["mesh"]) == ranks
        and not any("error" in r for r in case["ranks"])
        and not ({p[0] for p in case["src"]} >= {"P", "R"}))
    assert expected == {2: 32, 3: 31, 4: 37}[ranks], expected
    for l in lines[:-1]:
        assert f": OK, {expected} redistributions" in l, l
    assert all(" 0 refused" in l for l in lines[:-1]), proc.stdout
