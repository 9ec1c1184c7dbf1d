"""Layouts from what PyTorch users hold, checked as shard-translate checks
them; every bad input a shardc.ShardcError with the tool's message."""
import json
import types

import pytest

import shardc


def boxes(layout):
    return [(b["shard_offsets"], b["shard_sizes"], b["placement"])
            for b in layout.blocks]


def test_dtensor_uneven_rows_follow_torch_chunk():
    # 10 rows over 4: torch.chunk gives 3, 3, 3, 1.
    a = shardc.layout([10, 6], mesh=[4], placements=["S(0)"])
    assert a.shape == [10, 6] and a.dtype == "float32"
    assert boxes(a) == [([0, 0], [3, 6], "rank:0/cpu"),
                        ([3, 0], [3, 6], "rank:1/cpu"),
                        ([6, 0], [3, 6], "rank:2/cpu"),
                        ([9, 0], [1, 6], "rank:3/cpu")]
    # 5 over 4: 2, 2, 1 and an empty chunk (DTensor keeps it).
    b = shardc.layout([5], mesh=[4], placements=["S(0)"])
    assert [s for _, s, _ in boxes(b)] == [[2], [2], [1], [0]]


class Shard:
    def __init__(self, dim):
        self.dim = dim


class Replicate:
    pass


class Partial:
    def __init__(self, reduce_op="sum"):
        self.reduce_op = reduce_op


class _StridedShard:
    def __init__(self, dim, split_factor):
        self.dim = dim
        self.split_factor = split_factor


def test_placement_objects_read_by_class_name():
    a = shardc.layout([8, 6], mesh=[2, 2], placements=[Shard(0), Replicate()])
    b = shardc.layout([8, 6], mesh=[2, 2], placements=["S(0)", "R"])
    assert a == b
    assert shardc.placement_text(Partial("avg")) == "P(avg)"
    assert shardc.placement_text(Partial(types.SimpleNamespace(name="MAX"))) \
        == "P(max)"
    assert shardc.placement_text(Shard(-1)) == "S(-1)"
    # DTensor's _StridedShard: the heads of a [2*4] dim on every batch.
    strided = shardc.layout([8], mesh=[2], placements=[_StridedShard(0, 2)])
    assert strided == shardc.layout([8], mesh=[2], placements=["_S(0, 2)"])
    assert strided == shardc.layout(
        [8], mesh=[2], placements=["_StridedShard(dim=0, sf=2)"])
    assert [b[:2] for b in boxes(strided)] == [
        ([0], [2]), ([4], [2]), ([2], [2]), ([6], [2])]
    assert shardc.placement_text(_StridedShard(1, 3)) == "_S(1, 3)"
    # Where the devices do not divide a group: torch.chunk of each group,
    # as PyTorch 2.11 cuts it (test_torch_reference.py holds its answers).
    uneven = shardc.layout([10], mesh=[2], placements=[_StridedShard(0, 2)])
    assert [b[:2] for b in boxes(uneven)] == [
        ([0], [3]), ([5], [3]), ([3], [2]), ([8], [2])]
    with pytest.raises(shardc.ShardcError, match="split"):
        shardc.layout([8], mesh=[2], placements=[_StridedShard(0, 0)])
    with pytest.raises(shardc.ShardcError, match="split_factor"):
        shardc.layout([8], mesh=[2], placements=[_StridedShard(0, "2")])
    with pytest.raises(shardc.ShardcError, match="not a placement"):
        shardc.layout([8], mesh=[2], placements=[object()])


def test_device_mesh_like_objects_and_nested_ranks():
    mesh = types.SimpleNamespace(mesh=[[3, 2], [1, 0]], device_type="cuda",
                                 mesh_dim_names=("dp", "tp"))
    a = shardc.layout([4, 4], mesh=mesh, placements=["S(0)", "S(1)"])
    # Rank 3 holds the first block: mesh position (0, 0).
    assert boxes(a)[0] == ([0, 0], [2, 2], "rank:3/cuda")
    doc = json.loads(a.to_json())
    assert doc["device_mesh"]["mesh_dim_names"] == ["dp", "tp"]


def sharded_tensor_metadata():
    shard = types.SimpleNamespace
    return types.SimpleNamespace(
        size=(10, 10),
        tensor_properties=types.SimpleNamespace(dtype="torch.bfloat16"),
        shards_metadata=[
            shard(shard_offsets=[0, 0], shard_sizes=[5, 10],
                  placement="rank:0/cuda:0"),
            shard(shard_offsets=[5, 0], shard_sizes=[5, 10],
                  placement="rank:1/cuda:1")])


def test_sharded_tensor_metadata_by_attribute():
    a = shardc.from_torch(sharded_tensor_metadata())
    assert a.shape == [10, 10] and a.dtype == "bfloat16"
    assert boxes(a)[1] == ([5, 0], [5, 10], "rank:1/cuda:1")
    # A ShardMetadata list, with the shape given.
    b = shardc.from_torch(sharded_tensor_metadata().shards_metadata,
                          shape=[10, 10], dtype="bfloat16")
    assert a == b


def test_chunk_and_enumerable_specs():
    spec = types.SimpleNamespace(
        dim=-2, placements=["rank:0/cpu", "rank:1/cpu", "rank:2/cpu"])
    a = shardc.from_torch(spec, shape=[7, 2])
    assert [s for _, s, _ in boxes(a)] == [[3, 2], [3, 2], [1, 2]]
    assert "chunks of dim 0" in a.describe()
    enumerable = types.SimpleNamespace(
        shards=sharded_tensor_metadata().shards_metadata)
    b = shardc.from_torch(enumerable, shape=[10, 10])
    assert len(b.blocks) == 2
    with pytest.raises(shardc.ShardcError, match="out of range"):
        shardc.from_torch(types.SimpleNamespace(dim=2, placements=["cpu"]),
                          shape=[4, 4])
    with pytest.raises(shardc.ShardcError, match="needs the tensor's shape"):
        shardc.from_torch(spec)


def test_json_round_trip():
    a = shardc.layout([9, 4], mesh=[[0, 2], [1, 3]],
                      placements=["P(avg)", "S(1)"], dtype="float16")
    b = shardc.from_json(a.to_json())
    assert a == b and hash(a) == hash(b)
    assert shardc.from_json(json.loads(a.to_json())) == a


@pytest.mark.parametrize("doc", [
    '{"size": [4]}',
    '{"size": [4], "tensor_properties": {"dtype": "float32"}}',
    '{"size": [4], "tensor_properties": {"dtype": "float32"}, '
    '"device_mesh": {"shape": [2]}, "placements": ["S(3)"]}',
    '{"size": [4], "tensor_properties": {"dtype": "float32"}, '
    '"shards_metadata": [{"shard_offsets": [0], "shard_sizes": [3], '
    '"placement": "rank:0"}, {"shard_offsets": [2], "shard_sizes": [2], '
    '"placement": "rank:1"}]}',
    '{"size": [9223372036854775807, 2], "tensor_properties": '
    '{"dtype": "float32"}, "device_mesh": {"shape": [4]}, '
    '"placements": ["S(0)"]}',
    'not json',
])
def test_validate_raises_what_shard_translate_prints(doc, tmp_path, run_tool):
    path = tmp_path / "x.json"
    path.write_text(doc)
    code, _, err = run_tool("shard-translate", "--import-sharded-metadata",
                            str(path))
    with pytest.raises(shardc.ShardcError) as raised:
        shardc.validate(doc, name=str(path))
    assert code != 0
    assert str(raised.value) == err.strip()


def test_extreme_inputs_raise_never_crash():
    for shape, mesh, placements in [
            ([2**63 - 1, 2], [4], ["S(0)"]),
            ([-1], [4], ["S(0)"]),
            ([4], [], ["R"]),
            ([4], [2, 0], ["R", "R"]),
            ([4], [2**31], ["S(0)"]),
            ([4], [4], ["Q"])]:
        with pytest.raises(shardc.ShardcError):
            shardc.layout(shape, mesh=mesh, placements=placements)
    # 16,384 devices, a rank near 2^31: fine.
    big = shardc.layout([4], mesh=[128, 128], placements=["S(0)", "R"])
    assert len(big.blocks) == 128  # distinct blocks: R repeats them
    far = shardc.from_torch(types.SimpleNamespace(
        dim=0, placements=["rank:2147483647/cpu"]), shape=[3])
    assert boxes(far) == [([0], [3], "rank:2147483647/cpu")]
    with pytest.raises(shardc.ShardcError):
        shardc.from_json(b"\xff\xfe")
    with pytest.raises(shardc.ShardcError):
        shardc.from_json(12)


def test_cmake_install_puts_the_package_where_python_finds_it(tmp_path):
    # `cmake --install` into a prefix: the package lands in the directory
    # python3 searches under that prefix (site.getsitepackages()), and
    # imports from there alone.
    import os
    import subprocess
    import sys

    from conftest import BUILD
    subprocess.run(["cmake", "--install", BUILD, "--prefix", str(tmp_path)],
                   check=True, capture_output=True)
    found = [d for d in tmp_path.rglob("shardc/__init__.py")]
    assert len(found) == 1
    site_dir = found[0].parent.parent
    code = ("import shardc, sys; "
            "print(shardc.layout([4], mesh=[2], placements=['S(0)']))")
    env = dict(os.environ, PYTHONPATH=str(site_dir))
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True, cwd=tmp_path).stdout
    assert "(S(0)) on mesh [2]" in out
    assert os.path.relpath(site_dir, tmp_path).startswith("lib")


# PyTorch users' objects and spellings (issue 44, item 4).

def test_dtensor_printed_forms_are_placements():
    a = shardc.layout([8, 4], mesh=[2, 2],
                      placements=["Shard(dim=0)", "Partial(reduce_op=max)"])
    assert a.placements == ["S(0)", "P(max)"]
    b = shardc.layout([8, 4], mesh=[2, 2], placements=["Shard(1)", "Replicate()"])
    assert b.placements == ["S(1)", "R"]
    assert shardc.layout([8], mesh=[2], placements=["Partial()"]).placements \
        == ["P(sum)"]
    with pytest.raises(shardc.ShardcError, match="reduce_op 'foo'"):
        shardc.layout([8], mesh=[2], placements=["Partial(foo)"])
    with pytest.raises(shardc.ShardcError, match="invalid placement"):
        shardc.layout([8], mesh=[2], placements=["Shard()"])


def test_mesh_as_ranks_as_device_mesh_takes_them():
    np = pytest.importorskip("numpy")
    # DeviceMesh("cpu", [0, 1, 2, 3]): a 1-D mesh of those ranks.
    a = shardc.layout([8], mesh=[0, 1, 2, 3], placements=["S(0)"])
    assert a.mesh.shape == [4] and a.mesh.mesh == [0, 1, 2, 3]
    assert [b["placement"] for b in a.blocks] == [
        "rank:0/cpu", "rank:1/cpu", "rank:2/cpu", "rank:3/cpu"]
    # Ranks in any order, as an array of any dims.
    b = shardc.layout([8, 4], mesh=np.array([[0, 2], [1, 3]]),
                      placements=["S(0)", "R"], mesh_dim_names=["dp", "tp"])
    assert b.mesh.shape == [2, 2] and b.mesh.mesh == [[0, 2], [1, 3]]
    assert b.mesh.mesh_dim_names == ("dp", "tp")
    assert [x["placement"] for x in b.device_blocks][:2] == [
        "rank:0/cpu", "rank:2/cpu"]
    # A mesh given back (a 1-D one of ranks without 0 included): ranks.
    sub = shardc.layout([8], mesh=np.array([5, 6]), placements=["S(0)"])
    assert shardc.layout([8], mesh=sub.mesh, placements=["S(0)"]) == sub
    assert sub.mesh.mesh == [5, 6]
    c = shardc.layout([8], mesh=np.arange(3)[::-1], placements=["S(0)"])
    assert c.mesh.mesh == [2, 1, 0]
    assert [x["placement"] for x in c.blocks][0] == "rank:2/cpu"
    # A shape stays a shape (no axis has size 0, so no 0 among its sizes).
    d = shardc.layout([8], mesh=[2, 2], placements=["S(0)", "R"])
    assert d.mesh.shape == [2, 2] and d.mesh.mesh == [[0, 1], [2, 3]]


def test_layout_placements_mesh_shape_round_trip():
    a = shardc.layout([10, 6], mesh=[[0, 2], [1, 3]], placements=["S(0)", "R"],
                      mesh_dim_names=["dp", "tp"], device="cuda")
    assert a.shape == [10, 6] and a.placements == ["S(0)", "R"]
    assert a.mesh.device_type == "cuda"
    again = shardc.layout(a.shape, mesh=a.mesh, placements=a.placements,
                          device=a.mesh.device_type)
    assert again == a
    # Blocks (a ShardingSpec) have no mesh and no placements.
    blocks = shardc.from_json({
        "size": [4], "tensor_properties": {"dtype": "float32"},
        "shards_metadata": [
            {"shard_offsets": [0], "shard_sizes": [4], "placement": "rank:0"}]})
    assert blocks.placements is None and blocks.mesh is None


def test_dtensor_and_spec_objects():
    np = pytest.importorskip("numpy")
    mesh = types.SimpleNamespace(mesh=np.arange(4).reshape(2, 2),
                                 device_type="cpu", mesh_dim_names=("dp", "tp"))
    dt = types.SimpleNamespace(device_mesh=mesh, shape=(8, 6),
                               dtype="torch.bfloat16",
                               placements=[Shard(0), Replicate()])
    a = shardc.from_torch(dt)
    assert a.dtype == "bfloat16" and a.shape == [8, 6]
    assert a.placements == ["S(0)", "R"]
    assert a.mesh.mesh_dim_names == ("dp", "tp")
    spec = types.SimpleNamespace(
        mesh=mesh, placements=(Replicate(), Shard(1)),
        tensor_meta=types.SimpleNamespace(shape=(8, 6), dtype="torch.float32"))
    b = shardc.from_torch(spec)
    assert b.placements == ["R", "S(1)"] and b.dtype == "float32"
    with pytest.raises(shardc.ShardcError, match="needs shape"):
        shardc.from_torch(types.SimpleNamespace(device_mesh=mesh,
                                                placements=[Shard(0)]))


def test_checkpoint_metadata_chunks():
    chunk = types.SimpleNamespace
    md = types.SimpleNamespace(
        size=(10, 4), properties=types.SimpleNamespace(dtype="torch.float16"),
        chunks=[chunk(offsets=(0, 0), sizes=(6, 4)),
                chunk(offsets=(6, 0), sizes=(4, 4))])
    a = shardc.from_torch(md)
    assert a.dtype == "float16" and a.shape == [10, 4]
    assert boxes(a) == [([0, 0], [6, 4], "rank:0/cpu"),
                        ([6, 0], [4, 4], "rank:1/cpu")]
    # Chunks that leave a gap are refused as shard-translate refuses them.
    md.chunks = md.chunks[:1]
    with pytest.raises(shardc.ShardcError):
        shardc.from_torch(md)
    md.chunks = [chunk(offsets=(0, 0.5), sizes=(10, 4))]
    with pytest.raises(shardc.ShardcError, match="not an integer"):
        shardc.from_torch(md)


@pytest.mark.parametrize("kwargs, message", [
    (dict(shape=[0.7], mesh=[2], placements=["R"]), r"shape\[0\]: 0.7"),
    (dict(shape=["4"], mesh=[2], placements=["R"]), r"shape\[0\]: '4'"),
    (dict(shape=[True], mesh=[2], placements=["R"]), r"shape\[0\]: True"),
    (dict(shape=4, mesh=[2], placements=["R"]), "shape: 4 is not a list"),
    (dict(shape="4", mesh=[2], placements=["R"]), "shape: '4' is not a list"),
    (dict(shape=[4], mesh=[2.0], placements=["R"]), r"mesh\[0\]: 2.0"),
    (dict(shape=[4], mesh="2", placements=["R"]), "is not a mesh"),
    (dict(shape=[4], mesh=None, placements=["R"]), "is not a mesh"),
    (dict(shape=[4], mesh=[[0, "1"]], placements=["R", "R"]), "rank '1'"),
    (dict(shape=[4], mesh=[2], placements="R"), "not a list of placements"),
    (dict(shape=[4], mesh=[2], placements=[0]), "is not a placement"),
    (dict(shape=[4], mesh=[2], placements=["R"], device=3), "not a device"),
    (dict(shape=[4], mesh=[2], placements=["R"], dtype="float128"), "dtype"),
    (dict(shape=[4], mesh=[2], placements=["R", "R"]), "placements"),
])
def test_every_bad_argument_is_a_shardc_error(kwargs, message):
    with pytest.raises(shardc.ShardcError, match=message):
        shardc.layout(**kwargs)


_A = shardc.layout([8], mesh=[2], placements=["S(0)"])
_CHUNK = types.SimpleNamespace(dim=0, placements=["rank:0"])
_CALLS = {
    "plan(a, X)": lambda x: shardc.plan(_A, x),
    "plan(X, a)": lambda x: shardc.plan(x, _A),
    "plan(alpha_us=X)": lambda x: shardc.plan(_A, _A, alpha_us=x),
    "plan(world_size=X)": lambda x: shardc.plan(_A, _A, world_size=x),
    "cost(a, X)": lambda x: shardc.cost(_A, x),
    "cost(X, a)": lambda x: shardc.cost(x, _A),
    "cost(link=X)": lambda x: shardc.cost(_A, _A, link=x),
    "show(a, X)": lambda x: shardc.show(_A, x),
    "from_json(X)": lambda x: shardc.from_json(x),
    "Layout.from_json(X)": lambda x: shardc.Layout.from_json(x),
    "from_json(name=X)": lambda x: shardc.from_json(_A.to_json(), name=x),
    "from_torch(X)": lambda x: shardc.from_torch(x),
    "from_torch(shape=X)": lambda x: shardc.from_torch(_CHUNK, shape=x),
    "from_torch(dtype=X)": lambda x: shardc.from_torch(_CHUNK, shape=[4],
                                                       dtype=x),
    "validate(X)": lambda x: shardc.validate(x),
    "infer_chunk_spec(X)": lambda x: shardc.infer_chunk_spec(x),
    "infer_chunk_spec(blocks_to_mesh=X)":
        lambda x: shardc.infer_chunk_spec(_A, blocks_to_mesh=x),
    "owned_blocks(X, 0)": lambda x: shardc.owned_blocks(x, 0),
    "owned_blocks(a, X)": lambda x: shardc.owned_blocks(_A, x),
    "placement_text(X)": lambda x: shardc.placement_text(x),
    "layout(dtype=X)": lambda x: shardc.layout([4], mesh=[2],
                                               placements=["R"], dtype=x),
    "layout(mesh_dim_names=X)":
        lambda x: shardc.layout([4], mesh=[2], placements=["R"],
                                mesh_dim_names=x),
}
_BAD = [None, 0.7, "1", [1], {"x": 1}, object(), b"\xff", -1, True]


@pytest.mark.parametrize("call", sorted(_CALLS))
def test_every_argument_of_every_function_raises_shardc_error(call):
    # Each bad value either is refused with a ShardcError or, where it is
    # a value the argument takes (True for a flag), accepted: never a
    # TypeError, AttributeError or OverflowError.
    for bad in _BAD:
        try:
            _CALLS[call](bad)
        except shardc.ShardcError:
            pass


def test_owned_blocks_takes_integer_ranks_only():
    # A float or string rank matched no block's "rank:N" (1.0: []) or rank
    # 0's ("0"): refused; NumPy's integers are integers.
    import numpy as np
    a = shardc.layout([4], mesh=[2], placements=["S(0)"])
    for bad in [1.0, "0", True, None]:
        with pytest.raises(shardc.ShardcError, match="rank"):
            shardc.owned_blocks(a, bad)
    assert shardc.owned_blocks(a, np.int64(1)) == shardc.owned_blocks(a, 1)
    assert [b["shard_offsets"] for b in shardc.owned_blocks(a, 1)] == [[2]]


def test_local_tensor_of_strided_blocks():
    # DTensor's to_local() of (_S(0, 2), S(1)) on a 2x2 mesh: each rank's
    # rows of both groups, its columns; local_blocks cuts it into the blocks
    # redistribute takes (owned_blocks' order), local_tensor lays them back.
    import numpy as np
    l = shardc.layout([8, 6], mesh=[2, 2], placements=["_S(0, 2)", "S(1)"])
    g = np.arange(48).reshape(8, 6)
    for rank, rows, cols in [(0, [0, 1, 4, 5], [0, 1, 2]),
                             (3, [2, 3, 6, 7], [3, 4, 5])]:
        local = g[np.ix_(rows, cols)]
        blocks = shardc.local_blocks(local, l, rank)
        owned = shardc.owned_blocks(l, rank)
        assert len(blocks) == len(owned) == 2
        for x, b in zip(blocks, owned):
            (r, c), (h, w) = b["shard_offsets"], b["shard_sizes"]
            assert np.array_equal(x, g[r:r + h, c:c + w])
        assert np.array_equal(shardc.local_tensor(blocks, l, rank), local)
    # One block per rank: the array is the block.
    rows = shardc.layout([5, 2], mesh=[2], placements=["S(0)"])
    assert np.array_equal(shardc.local_blocks(g[:3, :2], rows, 0)[0],
                          g[:3, :2])
    with pytest.raises(shardc.ShardcError, match=r"has shape \[3, 3\]; its "
                       r"rows of the layout are \[4, 3\]"):
        shardc.local_blocks(np.zeros((3, 3)), shardc.layout(
            [8, 3], mesh=[2], placements=["_S(0, 2)"]), 0)
    with pytest.raises(shardc.ShardcError, match="owns 2 blocks"):
        shardc.local_tensor([local], l, 3)
    with pytest.raises(shardc.ShardcError, match="not an integer"):
        shardc.local_blocks(local, l, 0.5)
    ckpt = shardc.from_json(
        '{"size": [4], "tensor_properties": {"dtype": "float32"}, '
        '"shards_metadata": [{"shard_offsets": [0], "shard_sizes": [4], '
        '"placement": "rank:0"}]}')
    with pytest.raises(shardc.ShardcError, match="no local tensor of rows"):
        shardc.local_blocks(np.zeros(4), ckpt, 0)


def _named(cls, **attrs):
    """An object of a class named `cls` with `attrs` (DTensor's Shard, ...)."""
    return type(cls, (), attrs)()


_NS = types.SimpleNamespace
_MESH = _NS(mesh=[0, 1], device_type="cpu")
# PyTorch-shaped objects whose attributes are missing or of the wrong kind
# (an adversarial test found each raising TypeError, ValueError or
# AttributeError), and non-integers that int() would have truncated.
_LYING_OBJECTS = {
    "Shard(dim=None)": lambda: shardc.layout(
        [8], mesh=[2], placements=[_named("Shard", dim=None)]),
    "Shard(dim='x')": lambda: shardc.layout(
        [8], mesh=[2], placements=[_named("Shard", dim="x")]),
    "Shard(dim=0.9)": lambda: shardc.layout(
        [8], mesh=[2], placements=[_named("Shard", dim=0.9)]),
    "Shard without .dim": lambda: shardc.layout(
        [8], mesh=[2], placements=[_named("Shard")]),
    "DTensor .placements=None": lambda: shardc.from_torch(
        _NS(device_mesh=_MESH, placements=None, shape=[4])),
    "DTensor .placements=3": lambda: shardc.from_torch(
        _NS(device_mesh=_MESH, placements=3, shape=[4])),
    "checkpoint .chunks=None": lambda: shardc.from_torch(
        _NS(size=[4], chunks=None)),
    "checkpoint chunk without .offsets": lambda: shardc.from_torch(
        _NS(size=[4], chunks=[_NS(sizes=[4])])),
    "ShardedTensorMetadata .shards_metadata=None": lambda: shardc.from_torch(
        _NS(size=[4], shards_metadata=None)),
    "ShardMetadata without .shard_sizes": lambda: shardc.from_torch(
        _NS(size=[4], shards_metadata=[_NS(shard_offsets=[0])])),
    "ChunkShardingSpec dim=None": lambda: shardc.from_torch(
        _NS(dim=None, placements=["rank:0"]), shape=[5]),
    "ChunkShardingSpec dim=1.5": lambda: shardc.from_torch(
        _NS(dim=1.5, placements=["rank:0", "rank:1"]), shape=[5, 4]),
    "ChunkShardingSpec dim=2**70": lambda: shardc.from_torch(
        _NS(dim=2**70, placements=["rank:0"]), shape=[5]),
    "ChunkShardingSpec placements=None": lambda: shardc.from_torch(
        _NS(dim=0, placements=None), shape=[5]),
    "from_json of a dict with a set": lambda: shardc.from_json(
        {"size": {1, 2}}),
    "validate(unknown keyword)": lambda: shardc.validate([], foo=1),
}


@pytest.mark.parametrize("case", sorted(_LYING_OBJECTS))
def test_objects_that_lie_raise_shardc_error(case):
    with pytest.raises(shardc.ShardcError):
        _LYING_OBJECTS[case]()


def test_a_dict_that_contains_itself_is_a_shardc_error():
    d = {}
    d["x"] = d
    with pytest.raises(shardc.ShardcError, match="not JSON"):
        shardc.from_json(d)


def test_numpy_dtypes_name_their_type():
    import numpy as np
    for dtype, name in [(np.float32, "float32"), (np.dtype("int64"), "int64"),
                        (np.bool_, "bool"), (np.dtype(np.uint8), "uint8")]:
        a = shardc.layout([4], mesh=[2], placements=["S(0)"], dtype=dtype)
        assert json.loads(a.to_json())["tensor_properties"]["dtype"] == name


def test_deep_and_unencodable_inputs_are_shardc_errors():
    # Found by an adversarial sweep: RecursionError and pybind's TypeError
    # escaped where every bad input is a ShardcError.
    mesh = [0]
    for _ in range(5000):
        mesh = [mesh]
    with pytest.raises(shardc.ShardcError, match="nested more than 64 deep"):
        shardc.layout([4], mesh=mesh, placements=["S(0)"])
    deep = 1
    for _ in range(100000):
        deep = {"a": deep}
    with pytest.raises(shardc.ShardcError, match="nested too deep"):
        shardc.from_json(deep)
    with pytest.raises(shardc.ShardcError, match="not UTF-8 text"):
        shardc.from_json('{"size": [2]}\ud800')
    with pytest.raises(shardc.ShardcError, match="name is not UTF-8 text"):
        shardc.from_json('{"size": [2]}', name="x\ud800")


class _FakeDeviceMesh:
    """DeviceMesh's surface that from_torch reads: this rank, its
    coordinate (None outside the mesh), the ranks, the device type."""

    def __init__(self, ranks, rank, device_type="cpu"):
        import numpy as np
        self.mesh = np.asarray(ranks)
        self.device_type = device_type
        self.mesh_dim_names = None
        self._rank = rank

    def get_rank(self):
        return self._rank

    def get_coordinate(self):
        import numpy as np
        at = np.argwhere(self.mesh == self._rank)
        return None if len(at) == 0 else [int(i) for i in at[0]]


class _LocalShardsWrapper:
    """TorchRec's local shards of a table (offsets of their own)."""

    def __init__(self, shape):
        self.shape = shape

    def local_offsets(self):
        return [(0, 0)]

    def local_shards(self):
        return []


def test_dtensor_local_tensor_must_be_its_placements_block():
    np = pytest.importorskip("numpy")
    # 10 rows over 4: torch.chunk gives 3, 3, 3, 1 rows; rank 3 holds 1.
    def dtensor(rank, local_rows, mesh=(0, 1, 2, 3)):
        return types.SimpleNamespace(
            device_mesh=_FakeDeviceMesh(list(mesh), rank), shape=(10, 6),
            dtype="torch.float32", placements=[Shard(0)],
            _local_tensor=np.zeros((local_rows, 6)))
    assert shardc.from_torch(dtensor(3, 1)).placements == ["S(0)"]
    assert shardc.from_torch(dtensor(0, 3)) == shardc.from_torch(dtensor(3, 1))
    # from_local(..., run_check=False) with TorchRec-style rows 1, 3, 1, 3:
    # the placements say 3 rows on rank 0 (was read as the even cut).
    with pytest.raises(shardc.ShardcError,
                       match=r"rank 0's local tensor has shape \[1, 6\].*"
                             r"\[3, 6\]"):
        shardc.from_torch(dtensor(0, 1))
    # A rank outside the mesh holds nothing: nothing to compare.
    assert shardc.from_torch(dtensor(7, 0)).placements == ["S(0)"]
    # Partial: every rank holds the whole shape.
    partial = types.SimpleNamespace(
        device_mesh=_FakeDeviceMesh([0, 1], 1), shape=(4, 2),
        dtype="torch.float32", placements=[Partial()],
        _local_tensor=np.zeros((4, 2)))
    assert shardc.from_torch(partial).placements == ["P(sum)"]
    partial._local_tensor = np.zeros((2, 2))
    with pytest.raises(shardc.ShardcError, match="local tensor"):
        shardc.from_torch(partial)
    wrapped = dtensor(0, 3)
    wrapped._local_tensor = _LocalShardsWrapper((3, 6))
    with pytest.raises(shardc.ShardcError, match="_LocalShardsWrapper"):
        shardc.from_torch(wrapped)


def test_torch_objects_that_raise_or_print_otherwise():
    np = pytest.importorskip("numpy")
    # DTensorSpec.shape raises ValueError where tensor_meta is None.
    class Spec:
        mesh = types.SimpleNamespace(mesh=np.arange(2), device_type="cpu",
                                     mesh_dim_names=None)
        placements = (Shard(0),)
        tensor_meta = None

        @property
        def shape(self):
            raise ValueError("tensor_meta is not set")
    with pytest.raises(shardc.ShardcError, match="needs shape"):
        shardc.from_torch(Spec())
    assert shardc.from_torch(Spec(), shape=[4]).shape == [4]

    # DeviceMesh.mesh raises on a rank outside a sliced mesh.
    class Outside:
        device_type = "cpu"

        @property
        def mesh(self):
            raise RuntimeError("needs to contain the local rank")
    with pytest.raises(shardc.ShardcError, match="ranks cannot be read"):
        shardc.layout([4], mesh=Outside(), placements=["S(0)"])

    # PyTorch 2.1-2.3's repr of Partial; 2.1-2.6's str() of it.
    assert shardc.placement_text("_Partial(reduce_op=RedOpType.SUM)") == \
        "P(sum)"
    assert shardc.placement_text("_Partial(reduce_op=RedOpType.MAX)") == \
        "P(max)"
    with pytest.raises(shardc.ShardcError, match="names no reduce op"):
        shardc.placement_text("P")

    # DTensor's own Partials are not sums of copies.
    class _NormPartial:
        reduce_op = "sum"
        norm_type = 2
    class MaskPartial:
        reduce_op = "sum"
    for p in (_NormPartial(), MaskPartial()):
        with pytest.raises(shardc.ShardcError, match="Partial of DTensor's"):
            shardc.placement_text(p)


def test_sharded_tensor_read_through_its_metadata():
    shard = types.SimpleNamespace
    md = types.SimpleNamespace(
        size=(4, 2), tensor_properties=types.SimpleNamespace(
            dtype="torch.float32"),
        shards_metadata=[
            shard(shard_offsets=(0, 0), shard_sizes=(2, 2),
                  placement="rank:0/cpu"),
            shard(shard_offsets=(2, 0), shard_sizes=(2, 2),
                  placement="rank:1/cpu")])

    class ShardedTensor:
        def metadata(self):
            return md

        def __iter__(self):
            raise RuntimeError("not supported for ShardedTensor!")
    assert shardc.from_torch(ShardedTensor()) == shardc.from_torch(md)

    class Broken:
        def metadata(self):
            raise RuntimeError("no process group")
    with pytest.raises(shardc.ShardcError, match="metadata\\(\\) failed"):
        shardc.from_torch(Broken())


def test_dtensor_shard_order_other_than_left_to_right_is_refused():
    np = pytest.importorskip("numpy")
    entry = types.SimpleNamespace
    mesh = types.SimpleNamespace(mesh=np.arange(4).reshape(2, 2),
                                 device_type="cpu", mesh_dim_names=None)
    spec = types.SimpleNamespace(
        mesh=mesh, placements=(Shard(0), Shard(0)),
        tensor_meta=types.SimpleNamespace(shape=(8, 6), dtype="torch.float32"),
        shard_order=(entry(tensor_dim=0, mesh_dims=(0, 1)),))
    assert shardc.from_torch(spec).placements == ["S(0)", "S(0)"]
    dt = types.SimpleNamespace(device_mesh=mesh, shape=(8, 6),
                               dtype="torch.float32",
                               placements=(Shard(0), Shard(0)), _spec=spec)
    assert shardc.from_torch(dt).placements == ["S(0)", "S(0)"]
    spec.shard_order = (entry(tensor_dim=0, mesh_dims=(1, 0)),)
    for obj in (spec, dt):
        with pytest.raises(shardc.ShardcError, match=r"mesh dims \[1, 0\]"):
            shardc.from_torch(obj)
    spec.shard_order = None  # (None: _StridedShard placements say it)
    assert shardc.from_torch(dt).placements == ["S(0)", "S(0)"]
