"""shardc from Python: layouts, plans and their costs.

A layout is one tensor's shape, dtype and blocks (where each block lives),
with exactly PyTorch's semantics (torch.chunk's cuts for ShardingSpec and
DTensor alike). Make one from what you hold:

    >>> import shardc
    >>> a = shardc.layout([10, 6], mesh=[4], placements=["S(0)"])
    >>> b = shardc.layout([10, 6], mesh=[4], placements=["S(1)"])
    >>> p = shardc.plan(a, b)
    >>> p.steps[0].kind, p.bytes_received == p.lower_bound
    ('all_to_all', True)
    >>> print(p)            # what shard-plan prints

- ``shardc.layout(shape, mesh=..., placements=...)``: DTensor-style, with
  placements as strings (``"S(0)"``, ``"R"``, ``"P(sum)"``, or as DTensor
  prints them: ``"Shard(dim=0)"``, ``"Replicate()"``, ``"Partial(sum)"``,
  ``"_Partial(reduce_op=RedOpType.SUM)"``; a bare ``"P"``, str() of a
  Partial before PyTorch 2.7, names no op and is refused) or objects shaped like DTensor's (``Shard(0)``, ``Replicate()``,
  ``Partial()``, read by class name and attribute: no torch import
  needed); ``mesh`` as a shape, as ranks the way DeviceMesh takes them (a
  nested list or an array; a flat list with rank 0 in it), or a
  DeviceMesh-like object; ``Layout.placements`` and ``Layout.mesh`` give
  them back;
- ``shardc.from_torch(obj)``: also a DTensor or its DTensorSpec (a
  DTensor whose local tensor is not the block its placements give its
  rank, as ``from_local(..., run_check=False)`` allows, is refused), a
  ShardedTensor, and torch.distributed.checkpoint's
  TensorStorageMetadata;
- ``shardc.from_torch(obj, ...)``: PyTorch's ``ShardedTensorMetadata``, a
  list of ``ShardMetadata``, ``ChunkShardingSpec`` or
  ``EnumerableShardingSpec`` (read by attribute, 1.x and 2.x shapes);
- ``shardc.from_json(text)`` / ``Layout.to_json()``: the JSON the tools
  read and write (docs/json.md);
- ``shardc.local_blocks(array, layout, rank)`` / ``local_tensor(blocks,
  layout, rank)``: DTensor's ``to_local()`` array and a rank's blocks (in
  ``owned_blocks``' order), one from the other (several blocks per rank
  under strided shards).

Every bad input raises ``shardc.ShardcError`` (a ``ValueError``) with the
message shard-translate or shard-plan prints.
"""

import bisect as _bisect
import json as _json
import numbers as _numbers
import re as _re

from ._shardc import Layout, ShardcError, cost_model_options
from ._shardc import cost as _cost
from ._shardc import show as _show
from ._shardc import (_chunk_shards, _plan, _ranks_label, _redistribute,
                      _redistribute_refused)
from ._shardc import _rank as _this_rank

__all__ = [
    "Layout", "Mesh", "ShardcError", "Plan", "Step", "cost", "cost_model_options",
    "show", "plan",
    "layout", "from_json", "from_torch", "validate", "placement_text",
    "visualize", "infer_chunk_spec", "redistribute", "owned_blocks",
    "local_blocks", "local_tensor",
]


def from_json(text, name="<layout>"):
    """A layout from sharded tensor metadata or DTensor JSON (a str, bytes
    or a dict); raises ShardcError with shard-translate's message."""
    if isinstance(text, dict):
        try:
            text = _json.dumps(text)
        except (TypeError, ValueError) as e:  # a set, a cycle, a NaN key
            raise ShardcError(f"{name}: error: the dict is not JSON: "
                              f"{e}") from None
        except RecursionError:
            raise ShardcError(f"{name}: error: the dict is nested too deep "
                              "to be JSON") from None
    elif isinstance(text, (bytes, bytearray)):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ShardcError(f"{name}: error: not UTF-8 text: {e}") from None
    if not isinstance(text, str):
        raise ShardcError(f"{name}: error: expected JSON text or a dict, got "
                          f"{type(text).__name__}")
    if not isinstance(name, str):
        raise ShardcError(f"name: {name!r} is not a string")
    for what, value in (("the text", text), ("name", name)):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:  # an unpaired surrogate
            raise ShardcError(f"{what} is not UTF-8 text: {e}") from None
    return _layout_from_json(text, name)


_layout_from_json = Layout.from_json
Layout.from_json = staticmethod(from_json)


def cost(a, b, **cost_model):
    """The modelled time (us) of moving a tensor from layout a to layout b
    (any form from_any takes), under the cost model's keywords."""
    return _cost(from_any(a, name="a"), from_any(b, name="b"), **cost_model)


def show(a, b):
    """Both layouts drawn side by side, as shard-plan --show draws them."""
    return _show(from_any(a, name="a"), from_any(b, name="b"))


def _flag(value, what):
    if not isinstance(value, bool):
        raise ShardcError(f"{what}: {value!r} is not True or False")
    return value


def validate(obj, name="<layout>", **kwargs):
    """Checks a layout given in any form `from_any` takes, as
    shard-translate does: returns the Layout, or raises ShardcError with
    the message shard-translate prints."""
    return from_any(obj, name=name, **kwargs)


def _attr(obj, attr, what):
    """obj.attr, or ShardcError naming `what` where obj has none."""
    try:
        return getattr(obj, attr)
    except AttributeError:
        raise ShardcError(f"{what}: {type(obj).__name__} has no "
                          f".{attr}") from None


def _listed(xs, what):
    """xs as a list, or ShardcError where it is not a sequence."""
    if isinstance(xs, (str, bytes)) or not hasattr(xs, "__iter__"):
        raise ShardcError(f"{what}: {xs!r} is not a list")
    return list(xs)


_REDUCE_NAMES = {"sum": "sum", "avg": "avg", "mean": "avg", "max": "max",
                 "min": "min", "product": "product", "prod": "product"}


def placement_text(p):
    """A DTensor placement as DTensor prints it: "S(0)", "_S(0, 2)", "R",
    "P(sum)". Takes those strings, or objects shaped like DTensor's Shard
    (`.dim`), _StridedShard (`.dim`, `.split_factor`), Replicate and Partial
    (`.reduce_op`), read by class name."""
    if isinstance(p, str):
        return _placement_from_repr(p.strip())
    cls = type(p).__name__
    if cls == "_StridedShard":
        # DTensor's strided shard (`.split_factor`): shardc's _S, cut for
        # cut as PyTorch cuts it (test_torch_reference.py).
        split = getattr(p, "split_factor", None)
        if not _is_int(getattr(p, "dim", None)) or not _is_int(split):
            raise ShardcError(f"placements: {p!r} has no integer dim and "
                              "split_factor")
        return f"_S({int(p.dim)}, {int(split)})"
    if cls == "Shard" or (
            hasattr(p, "dim") and cls.lower().startswith("shard")):
        if not _is_int(getattr(p, "dim", None)):
            raise ShardcError(f"placements: {p!r} has no integer dim")
        return f"S({int(p.dim)})"
    if cls.startswith("Replicate"):
        return "R"
    if cls in ("Partial", "_Partial"):
        op = getattr(p, "reduce_op", "sum")
        op = getattr(op, "name", op)  # an enum (c10d.ReduceOp) or a str
        op = str(op).lower().rsplit(".", 1)[-1]
        if op not in _REDUCE_NAMES:
            raise ShardcError(f"placements: Partial's reduce_op {op!r} is not "
                              "one of sum, avg, max, min, product")
        return f"P({_REDUCE_NAMES[op]})"
    if "Partial" in cls:
        # DTensor's own kinds of Partial (_NormPartial, MaskPartial): their
        # copies are not summed (or averaged, ...) into the value.
        raise ShardcError(f"placements: {cls} is a Partial of DTensor's own "
                          "(its copies are not combined by sum, avg, max, "
                          "min or product); shardc cannot take it")
    raise ShardcError(f"placements: {p!r} is not a placement (\"S(d)\", "
                      "\"R\", \"P(op)\", or Shard/Replicate/Partial)")


_REPR_FORMS = [
    # DTensor's reprs and constructors: Shard(dim=0), Shard(0),
    # _StridedShard(dim=0, sf=2), Replicate(), Partial(sum),
    # Partial(reduce_op=sum), Partial().
    (_re.compile(r"Shard\(\s*(?:dim\s*=\s*)?(-?\d+)\s*\)$"),
     lambda m: f"S({m.group(1)})"),
    (_re.compile(r"_StridedShard\(\s*(?:dim\s*=\s*)?(-?\d+)\s*,\s*"
                 r"(?:sf\s*=\s*|split_factor\s*=\s*)?(\d+)\s*\)$"),
     lambda m: f"_S({m.group(1)}, {m.group(2)})"),
    (_re.compile(r"Replicate\(\s*\)$"), lambda m: "R"),
    # (PyTorch 2.1-2.3 print it _Partial(reduce_op=RedOpType.SUM).)
    (_re.compile(r"_?Partial\(\s*(?:reduce_op\s*=\s*)?['\"]?"
                 r"(?:ReduceOp\.|RedOpType\.)?(\w*)['\"]?\s*\)$"),
     lambda m: _partial_text(m.group(1) or "sum")),
]


def _partial_text(op):
    op = op.lower()
    if op not in _REDUCE_NAMES:
        raise ShardcError(f"placements: Partial's reduce_op {op!r} is not "
                          "one of sum, avg, max, min, product")
    return f"P({_REDUCE_NAMES[op]})"


def _placement_from_repr(text):
    """"S(0)", "R", "P(sum)" as they are; DTensor's printed forms
    ("Shard(dim=0)", "Replicate()", "Partial(sum)") as those."""
    for pattern, make in _REPR_FORMS:
        m = pattern.match(text)
        if m:
            return make(m)
    if text == "P":
        # str() of a Partial through PyTorch 2.6: its op is not in it.
        raise ShardcError("placements: \"P\" names no reduce op (str() of "
                          "DTensor's Partial before PyTorch 2.7 leaves it "
                          "out): give the Partial itself, its repr(), or "
                          "\"P(sum)\"")
    return text


def _is_int(x):
    """An integer, not a bool, float or string (NumPy's integers too)."""
    return isinstance(x, _numbers.Integral) and not isinstance(x, bool)


def _mesh_dict(mesh, device, mesh_dim_names):
    """device_mesh as docs/json.md: a shape (a list), ranks as DeviceMesh
    takes them (a nested list, an array of any dims, or a flat list with
    rank 0 in it: no mesh axis has size 0), or an object shaped like
    DeviceMesh (`.mesh`, `.device_type`, `.mesh_dim_names`)."""
    ranks = False
    try:
        # (DeviceMesh.mesh raises where this rank is not in the mesh.)
        mesh_like = hasattr(mesh, "mesh") and hasattr(mesh, "device_type")
    except Exception as e:
        raise ShardcError(f"mesh: the {type(mesh).__name__}'s ranks cannot "
                          f"be read ({type(e).__name__}: {e})") from None
    if mesh_like:
        device = str(mesh.device_type)
        mesh_dim_names = getattr(mesh, "mesh_dim_names", None)
        mesh, ranks = mesh.mesh, True
    if hasattr(mesh, "tolist") and hasattr(mesh, "ndim"):
        mesh, ranks = mesh.tolist(), True
    if ranks:
        mesh = mesh if isinstance(mesh, (list, tuple)) else [mesh]
        out = {"shape": _shape_of_nested(mesh), "mesh": _checked_ranks(mesh)}
    else:
        if _is_int(mesh):
            mesh = [mesh]
        if isinstance(mesh, (str, bytes)) or not hasattr(mesh, "__iter__"):
            raise ShardcError(f"mesh: {mesh!r} is not a mesh (its shape, "
                              "ranks as DeviceMesh takes them, or a "
                              "DeviceMesh)")
        mesh = list(mesh)
        if any(isinstance(m, (list, tuple)) for m in mesh) or \
                0 in [m for m in mesh if _is_int(m)]:
            out = {"shape": _shape_of_nested(mesh),
                   "mesh": _checked_ranks(mesh)}
        else:
            out = {"shape": _ints(mesh, "mesh")}
    out["device_type"] = device
    if mesh_dim_names is not None and _names(mesh_dim_names):
        out["mesh_dim_names"] = _names(mesh_dim_names)
    return out


def _names(names):
    """mesh_dim_names: a list of strings."""
    if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__") or \
            not all(isinstance(n, str) for n in names):
        raise ShardcError(f"mesh_dim_names: {names!r} is not a list of "
                          "strings")
    return list(names)


def _checked_ranks(ranks, depth=0):
    """A nested list of ranks, each an integer."""
    if isinstance(ranks, (list, tuple)):
        # Past any mesh's rank (a mesh nested 5,000 deep was a
        # RecursionError, not a ShardcError).
        if depth > 64:
            raise ShardcError("mesh: nested more than 64 deep: not a mesh "
                              "of ranks")
        return [_checked_ranks(r, depth + 1) for r in ranks]
    if not _is_int(ranks):
        raise ShardcError(f"mesh: rank {ranks!r} is not an integer")
    return int(ranks)


def _shape_of_nested(xs):
    shape = []
    while isinstance(xs, (list, tuple)):
        shape.append(len(xs))
        xs = xs[0] if xs else None
    return shape


def _dtype_name(dtype):
    if dtype is None:
        return "float32"
    if type(dtype).__module__ == "numpy" or \
            getattr(dtype, "__module__", None) == "numpy":
        # A NumPy dtype or scalar type (np.float32): its name ("float32").
        import numpy
        return numpy.dtype(dtype).name
    text = str(dtype)
    return text[len("torch."):] if text.startswith("torch.") else text


def _ints(xs, what="shape"):
    """A list of integers; a float, string or bool among them is refused
    (int() would take 0.7 and "1")."""
    if isinstance(xs, (str, bytes)) or not hasattr(xs, "__iter__"):
        raise ShardcError(f"{what}: {xs!r} is not a list of integers")
    out = []
    for i, x in enumerate(xs):
        if not _is_int(x):
            raise ShardcError(f"{what}[{i}]: {x!r} is not an integer")
        out.append(int(x))
    return out


def layout(shape, mesh, placements, dtype="float32", device="cpu",
           mesh_dim_names=None):
    """A DTensor-style layout: a mesh (its shape, a nested list of ranks,
    or a DeviceMesh-like object) and one placement per mesh axis."""
    if isinstance(placements, (str, bytes)) or not hasattr(placements,
                                                            "__iter__"):
        raise ShardcError(f"placements: {placements!r} is not a list of "
                          "placements (one per mesh axis)")
    if not isinstance(device, str):
        raise ShardcError(f"device: {device!r} is not a device type "
                          "(\"cpu\", \"cuda\")")
    doc = {"size": _ints(shape),
           "tensor_properties": {"dtype": _dtype_name(dtype)},
           "device_mesh": _mesh_dict(mesh, device, mesh_dim_names),
           "placements": [placement_text(p) for p in placements]}
    return from_json(doc, "<layout>")


def _placement_string(p):
    """A ShardMetadata placement (a _remote_device or a string)."""
    return str(p)


def _shards_metadata(shards):
    out = []
    for i, s in enumerate(_listed(shards, "shards_metadata")):
        what = f"shards_metadata[{i}]"
        out.append({"shard_offsets": _ints(_attr(s, "shard_offsets", what),
                                           what + ".shard_offsets"),
                    "shard_sizes": _ints(_attr(s, "shard_sizes", what),
                                         what + ".shard_sizes"),
                    "placement": _placement_string(_attr(s, "placement",
                                                         what))})
    return out


def from_torch(obj, shape=None, dtype=None, name="<torch>"):
    """A layout from PyTorch's sharded-tensor objects, read by attribute:
    a DTensor or DTensorSpec (`.placements` on `.device_mesh` / `.mesh`;
    a DTensor's `._local_tensor` must be the block its placements give its
    rank), torch.distributed.checkpoint's TensorStorageMetadata (`.size`,
    `.chunks`: chunk i on rank i), a ShardedTensor (its `.metadata()`),
    ShardedTensorMetadata (`.size`, `.shards_metadata`,
    `.tensor_properties.dtype`), a list of ShardMetadata (with `shape`),
    ChunkShardingSpec (`.dim`, `.placements`; with `shape`) or
    EnumerableShardingSpec (`.shards`; with `shape`)."""
    if not hasattr(obj, "placements") and \
            not hasattr(obj, "shards_metadata") and \
            callable(getattr(obj, "metadata", None)):
        # A ShardedTensor: its ShardedTensorMetadata is a method's answer.
        try:
            obj = obj.metadata()
        except Exception as e:
            raise ShardcError(f"{name}: error: {type(obj).__name__}."
                              f"metadata() failed ({type(e).__name__}: "
                              f"{e})") from None
    if hasattr(obj, "chunks") and hasattr(obj, "size"):
        return _dcp_layout(obj, name)
    if hasattr(obj, "placements") and (hasattr(obj, "device_mesh") or
                                       hasattr(obj, "tensor_meta")):
        return _dtensor_layout(obj, shape, dtype, name)
    if hasattr(obj, "shards_metadata") and hasattr(obj, "size"):
        props = getattr(obj, "tensor_properties", None)
        doc = {"size": _ints(obj.size),
               "tensor_properties": {"dtype": _dtype_name(
                   dtype if dtype is not None else
                   getattr(props, "dtype", None))},
               "shards_metadata": _shards_metadata(obj.shards_metadata)}
        return from_json(doc, name)
    if shape is None:
        raise ShardcError(f"{name}: error: a {type(obj).__name__} needs the "
                          "tensor's shape (shape=...)")
    doc = {"size": _ints(shape),
           "tensor_properties": {"dtype": _dtype_name(dtype)}}
    if hasattr(obj, "dim") and hasattr(obj, "placements"):
        # torch.chunk's dim, within the rank the importer checks it against.
        if not _is_int(obj.dim) or not -(1 << 31) <= obj.dim < (1 << 31):
            raise ShardcError(f"{name}: error: the ChunkShardingSpec's dim "
                              f"{obj.dim!r} is not a dim of the tensor")
        doc["sharding_spec"] = {
            "type": "chunk", "dim": int(obj.dim),
            "placements": [_placement_string(p) for p in
                           _listed(obj.placements, "placements")]}
        # The chunks themselves come from the spec (torch.chunk's cut).
        return _chunk_layout(doc, name)
    shards = getattr(obj, "shards", obj)
    try:
        shards = list(shards)
    except TypeError:
        raise ShardcError(f"{name}: error: {type(obj).__name__} is not a "
                          "ShardedTensorMetadata, ShardMetadata list or "
                          "sharding spec") from None
    doc["shards_metadata"] = _shards_metadata(shards)
    return from_json(doc, name)


def _chunk_layout(doc, name):
    """A chunk spec's layout: its chunks as torch.chunk cuts them (the C++
    layout library's arithmetic), checked by the importer."""
    spec = doc["sharding_spec"]
    try:
        shards = _chunk_shards(doc["size"], spec["dim"], spec["placements"])
    except ShardcError as e:
        raise ShardcError(f"{name}: error: {e}") from None
    return from_json(dict(doc, shards_metadata=shards), name)


class Mesh:
    """A layout's device mesh, shaped like DeviceMesh: `shape`, `mesh` (the
    ranks, a nested list in row-major order), `device_type`,
    `mesh_dim_names` (None where the axes have no names). It may be given
    back as `mesh=`."""

    def __init__(self, d):
        self.shape = list(d["shape"])
        flat = list(d.get("mesh") or range(_product(self.shape)))
        self.mesh = _nest(flat, self.shape)
        self.device_type = d.get("device_type", "cpu")
        names = d.get("mesh_dim_names")
        self.mesh_dim_names = tuple(names) if names else None

    def __repr__(self):
        names = (f", mesh_dim_names={self.mesh_dim_names}"
                 if self.mesh_dim_names else "")
        return f"Mesh({self.device_type!r}, {self.mesh}{names})"


def _product(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def _nest(flat, shape):
    if len(shape) <= 1:
        return list(flat)
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nest(flat[i * step:(i + 1) * step], shape[1:])
            for i in range(shape[0])]


def _layout_doc(l):
    return _json.loads(l.to_json())


def _placements_of(l):
    """DTensor placements ("S(0)", "R", "P(sum)"), one per mesh axis; None
    for a layout given as blocks (ShardingSpec), which has no mesh."""
    doc = _layout_doc(l)
    return list(doc["placements"]) if "placements" in doc else None


def _mesh_of(l):
    """The device mesh (Mesh, DeviceMesh-shaped); None for a layout given
    as blocks."""
    doc = _layout_doc(l)
    return Mesh(doc["device_mesh"]) if "device_mesh" in doc else None


Layout.placements = property(_placements_of, doc=_placements_of.__doc__)
Layout.mesh = property(_mesh_of, doc=_mesh_of.__doc__)


def _dtensor_layout(obj, shape, dtype, name):
    """A DTensor (`.device_mesh`, `.placements`, `.shape`, `.dtype`) or its
    DTensorSpec (`.mesh`, `.placements`, `.tensor_meta.shape` and
    `.dtype`), read by attribute."""
    mesh = getattr(obj, "device_mesh", None) or getattr(obj, "mesh", None)
    meta = getattr(obj, "tensor_meta", None)
    if shape is None:
        if meta is not None:
            shape = getattr(meta, "shape", None)
        else:
            try:
                # (DTensorSpec.shape raises ValueError without tensor_meta.)
                shape = getattr(obj, "shape", None)
            except Exception:
                shape = None
    if shape is None:
        raise ShardcError(f"{name}: error: a {type(obj).__name__} without "
                          "its tensor's shape needs shape=...")
    if dtype is None:
        dtype = getattr(obj, "dtype", None) or getattr(meta, "dtype", None)
    try:
        made = layout(shape, mesh, _listed(obj.placements, "placements"),
                      dtype=_dtype_name(dtype),
                      device=str(getattr(mesh, "device_type", "cpu")))
    except ShardcError as e:
        raise ShardcError(f"{name}: {e}") from None
    _check_shard_order(obj, name)
    _check_local_tensor(obj, made, name)
    return made


def _check_shard_order(obj, name):
    """PyTorch's DTensorSpec.shard_order (newer than 2.9): a tensor dim cut
    over several mesh dims in an order other than left to right is not
    what its placements say in DTensor's default order (shardc's)."""
    spec = obj if hasattr(obj, "tensor_meta") else getattr(obj, "_spec", None)
    order = getattr(spec, "shard_order", None)
    if order is None:
        return
    try:
        entries = [(entry.tensor_dim, [int(d) for d in entry.mesh_dims])
                   for entry in order]
    except Exception:
        raise ShardcError(f"{name}: error: shard_order {order!r} is not a "
                          "list of (tensor_dim, mesh_dims)") from None
    for dim, mesh_dims in entries:
        if any(a >= b for a, b in zip(mesh_dims, mesh_dims[1:])):
            raise ShardcError(
                f"{name}: error: tensor dim {dim} is cut over mesh dims "
                f"{mesh_dims} in that order (shard_order), not left to "
                "right as its placements say: redistribute it to the "
                "default order first, or give _StridedShard placements")


def _check_local_tensor(obj, made, name):
    """A DTensor's local tensor (`._local_tensor`) holds what its
    placements give its rank, or ShardcError: DTensor.from_local(...,
    run_check=False, shape=...) takes blocks of any size (TorchRec's
    uneven tables, a LocalShardsWrapper), which the placements then do
    not say."""
    local = getattr(obj, "_local_tensor", None)
    if local is None:
        return
    if callable(getattr(local, "local_offsets", None)) or \
            callable(getattr(local, "local_shards", None)):
        raise ShardcError(
            f"{name}: error: the DTensor's local tensor is a "
            f"{type(local).__name__}: its blocks lie at offsets of their "
            "own (as TorchRec shards a table), not where its placements "
            "cut the tensor; give the blocks themselves (a ShardMetadata "
            "list with shape=..., or the ShardedTensor)")
    mesh = getattr(obj, "device_mesh", None)
    try:
        if mesh.get_coordinate() is None:
            return  # this rank is not in the mesh: it holds nothing
        rank = int(mesh.get_rank())
        got = [int(n) for n in local.shape]
    except Exception:
        return  # not DeviceMesh's and a tensor's: nothing to compare
    rows = _local_rows(made, rank)
    if rows is None:
        return
    want = [len(r) for r in rows[0]]
    if got != want:
        raise ShardcError(
            f"{name}: error: rank {rank}'s local tensor has shape {got}, "
            f"but placements {made.placements} of shape {made.shape} give "
            f"it {want} (torch.chunk's cut): a DTensor made from blocks of "
            "other sizes (from_local with run_check=False) is not what its "
            "placements say; give its blocks (a ShardMetadata list with "
            "shape=...)")


def _dcp_layout(obj, name):
    """torch.distributed.checkpoint's TensorStorageMetadata (`.size`,
    `.chunks` of ChunkStorageMetadata with `.offsets` and `.sizes`,
    `.properties.dtype`): chunk i placed on rank i (the metadata names no
    ranks; a load reads the blocks, wherever they are)."""
    props = getattr(obj, "properties", None)
    shards = []
    for i, c in enumerate(_listed(obj.chunks, "chunks")):
        what = f"chunks[{i}]"
        shards.append({"shard_offsets": _ints(_attr(c, "offsets", what),
                                              what + ".offsets"),
                       "shard_sizes": _ints(_attr(c, "sizes", what),
                                            what + ".sizes"),
                       "placement": f"rank:{i}"})
    doc = {"size": _ints(obj.size, "size"),
           "tensor_properties": {"dtype": _dtype_name(
               getattr(props, "dtype", None))},
           "shards_metadata": shards}
    return from_json(doc, name)


def from_any(obj, name="<layout>", **kwargs):
    """A Layout from anything the module reads (shape= and dtype= for the
    PyTorch objects that need them)."""
    unknown = sorted(set(kwargs) - {"shape", "dtype"})
    if unknown:
        raise ShardcError(f"{name}: unknown keyword argument(s): "
                          f"{', '.join(unknown)} (shape= and dtype= only)")
    if isinstance(obj, Layout):
        return obj
    if isinstance(obj, (str, bytes, bytearray, dict)):
        return from_json(obj, name)
    return from_torch(obj, name=name, **kwargs)


class Step:
    """One step of a plan: its collective kind ("all_gather",
    "reduce_scatter", "all_to_all", "exchange", ...), the group it runs on,
    and the bytes each rank receives and sends."""

    def __init__(self, d):
        self.kind = d["kind"]
        self.group = d["group"]
        self.received = dict(d["received"])
        self.sent = dict(d["sent"])
        self.others_receive = d["others_receive"]

    def __repr__(self):
        return (f"Step({self.kind}, {self.group}, received "
                f"{sum(self.received.values())} B)")


class Plan:
    """A redistribution's plan, as shard-plan gives it: `steps`,
    `bytes_received` against `lower_bound` (in all; `_max_rank` on the
    rank receiving most), `modelled_us`, the `candidates` weighed,
    `partial_copies` (where b keeps partial values: the local step after
    the moves that makes them, in words; else None); `str()` is
    shard-plan's text."""

    def __init__(self, d):
        self.name = d["plan"]
        self.ranks = d["ranks"]
        self.steps = [Step(s) for s in d["steps"]]
        self.bytes_received = d["bytes_received"]
        self.bytes_received_max_rank = d["bytes_received_max_rank"]
        self.lower_bound = d["lower_bound"]
        self.lower_bound_max_rank = d["lower_bound_max_rank"]
        self.at_lower_bound = d["at_lower_bound"]
        self.modelled_us = d["modelled_us"]
        self.candidates = list(d["candidates"])
        self.partial_copies = d["partial_copies"]
        self._text = d["text"]

    def __str__(self):
        return self._text

    def __repr__(self):
        return (f"<shardc.Plan {self.name}: {len(self.steps)} steps, "
                f"{self.bytes_received} B received (lower bound "
                f"{self.lower_bound}), {self.modelled_us:.3g} us>")


def plan(a, b, **cost_model):
    """The plan moving a tensor from layout a to layout b under the cost
    model shard-plan and the passes take: keywords link, alpha_us,
    beta_gbps, topology, plans, world_size, peak_gflops
    (cost_model_options() lists them with their help)."""
    return Plan(_plan(from_any(a), from_any(b), **cost_model))


def _regions(layout):
    """Each distinct block of a layout with the ranks that hold it."""
    held = {}
    for b in layout.device_blocks:
        key = (tuple(b["shard_offsets"]), tuple(b["shard_sizes"]))
        rank = b["placement"].split("/")[0]
        rank = int(rank[5:]) if rank.startswith("rank:") else None
        held.setdefault(key, []).append(rank)
    return held


def _rank_text(ranks):
    """Ranks as the text grid labels them ("0-3,8")."""
    return _ranks_label(sorted(r for r in ranks if r is not None))


def visualize(layout, ax=None, title=None, cmap="tab20"):
    """A matplotlib figure of a 1-D or 2-D layout, as DTensor's
    visualize_sharding and JAX's visualize_array_sharding draw one: each
    block a rectangle in the colour of the first rank that holds it,
    labelled with every rank that holds it ("*": partial values). Returns
    the Axes (a new figure's where `ax` is None)."""
    import matplotlib
    import matplotlib.patches as patches
    import matplotlib.pyplot as plt

    layout = from_any(layout)
    shape = layout.shape
    if len(shape) not in (1, 2):
        raise ShardcError(f"visualize draws 1-D and 2-D tensors; this one "
                          f"has shape {shape}")
    rows, cols = (1, shape[0]) if len(shape) == 1 else (shape[0], shape[1])
    if ax is None:
        _, ax = plt.subplots(figsize=(min(12, 2 + cols / max(rows, cols) * 6),
                                      min(12, 2 + rows / max(rows, cols) * 6)))
    colours = matplotlib.colormaps[cmap]
    mark = "*" if layout.partial else ""
    for (offsets, sizes), ranks in sorted(_regions(layout).items()):
        if len(shape) == 1:
            (r0, c0), (nr, nc) = (0, offsets[0]), (1, sizes[0])
        else:
            (r0, c0), (nr, nc) = offsets, sizes
        if nr == 0 or nc == 0:
            continue
        first = min((r for r in ranks if r is not None), default=0)
        ax.add_patch(patches.Rectangle((c0, r0), nc, nr,
                                       facecolor=colours(first % colours.N),
                                       edgecolor="black", linewidth=1))
        ax.text(c0 + nc / 2, r0 + nr / 2, _rank_text(ranks) + mark,
                ha="center", va="center", fontsize=9)
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)
    ax.set_aspect("auto")
    ax.set_xlabel("dim 1" if len(shape) == 2 else "dim 0")
    if len(shape) == 2:
        ax.set_ylabel("dim 0")
    ax.set_title(title if title is not None else
                 f"{layout.dtype}{list(shape)}: {layout.describe()}")
    return ax


def infer_chunk_spec(obj, blocks_to_mesh=False, mesh_to_blocks=False,
                     **kwargs):
    """The layout as -shard-infer-chunk-spec rewrites it: PyTorch's
    _infer_sharding_spec_from_shards_metadata (a chunk spec where the blocks
    are torch.chunk's), and with blocks_to_mesh Shard placements on a mesh
    where the blocks form one (mesh_to_blocks: the other way)."""
    return from_any(obj, **kwargs).infer_chunk_spec(
        blocks_to_mesh=_flag(blocks_to_mesh, "blocks_to_mesh"),
        mesh_to_blocks=_flag(mesh_to_blocks, "mesh_to_blocks"))


def owned_blocks(layout, rank):
    """The blocks of a layout that `rank` owns, in the order redistribute
    takes and returns them (its device blocks' order)."""
    if not _is_int(rank):
        # (A float or string matched no block, or "0" rank 0's.)
        raise ShardcError(f"rank: {rank!r} is not an integer")
    rank = int(rank)
    layout = from_any(layout)
    out = []
    for b in layout.device_blocks:
        owner = b["placement"].split("/")[0]
        if owner == f"rank:{rank}":
            out.append(b)
    return out


def _local_rows(layout, rank):
    """Per dim, the sorted rows the blocks `rank` owns of a mesh layout
    cover (DTensor's to_local() holds exactly these, in order), and the
    blocks; None for a layout given as blocks (no local tensor of rows)."""
    layout = from_any(layout)
    if _placements_of(layout) is None:
        return None
    blocks = owned_blocks(layout, rank)
    rows = [sorted({r for b in blocks
                    for r in range(b["shard_offsets"][d],
                                   b["shard_offsets"][d] +
                                   b["shard_sizes"][d])})
            for d in range(len(layout.shape))]
    return rows, blocks


def _local_slices(rows, block):
    """Where `block` lies in the local tensor of `rows`."""
    out = []
    for d, (o, s) in enumerate(zip(block["shard_offsets"],
                                   block["shard_sizes"])):
        at = _bisect.bisect_left(rows[d], o) if s else 0
        out.append(slice(at, at + s))
    return tuple(out)


def _rows_of(what, layout, rank):
    """_local_rows, or a ShardcError for `what` where the layout has no
    local tensor of rows."""
    got = _local_rows(layout, _ints([rank], "rank")[0])
    if got is None:
        raise ShardcError(
            f"{what}: a layout given as blocks (ShardingSpec) has no local "
            "tensor of rows; use its blocks")
    return got


def local_blocks(local, layout, rank):
    """DTensor's to_local() of `rank` (one array: the rows it holds of each
    dim, in order) as its blocks of `layout`, in owned_blocks' order: what
    redistribute takes. A rank holds several blocks of one local tensor
    under strided shards (_S(d, n): its rows of every group); otherwise the
    array is its one block."""
    try:
        import numpy as np
        rows, blocks = _rows_of("local_blocks", layout, rank)
        local = np.asarray(local)
        want = tuple(len(r) for r in rows)
        if local.shape != want:
            raise ShardcError(
                f"local_blocks: rank {rank}'s local tensor has shape "
                f"{list(local.shape)}; its rows of the layout are {list(want)}")
        return [local[_local_slices(rows, b)] for b in blocks]
    except ShardcError:
        raise
    except Exception as e:
        raise ShardcError(f"local_blocks: {type(e).__name__}: {e}") from None


def local_tensor(blocks, layout, rank):
    """The inverse of local_blocks: `rank`'s blocks of `layout` (a list in
    owned_blocks' order, as redistribute returns them) laid into the one
    array DTensor's to_local() gives (the rows it holds of each dim, in
    order)."""
    try:
        import numpy as np
        rows, owned = _rows_of("local_tensor", layout, rank)
        blocks = [np.asarray(x) for x in (blocks if isinstance(
            blocks, (list, tuple)) else [blocks])]
        if len(blocks) != len(owned):
            raise ShardcError(
                f"local_tensor: rank {rank} owns {len(owned)} blocks of the "
                f"layout; got {len(blocks)}")
        dtype = blocks[0].dtype if blocks else np.float32
        out = np.zeros(tuple(len(r) for r in rows), dtype=dtype)
        for x, b in zip(blocks, owned):
            if list(x.shape) != list(b["shard_sizes"]):
                raise ShardcError(
                    f"local_tensor: a block of shape {list(x.shape)} where "
                    f"rank {rank}'s block is {list(b['shard_sizes'])}")
            out[_local_slices(rows, b)] = x
        return out
    except ShardcError:
        raise
    except Exception as e:
        raise ShardcError(f"local_tensor: {type(e).__name__}: {e}") from None


def redistribute(local, a, b):
    """Under mpirun (with mpi4py, or alone): moves this rank's NumPy blocks
    of layout a to layout b through shardc's runtime, every rank calling it
    alike, and returns this rank's blocks of b, a list in the order of
    owned_blocks(b, rank). `local` is this rank's blocks of a in the order
    of owned_blocks(a, rank) (a single array where it owns one). Several
    blocks per rank (a checkpoint reshard), uneven sizes and Partial
    sources (reduced: P(sum) -> S(0) is a reduce_scatter; P(sum) and
    P(avg) mixed, as DTensor allows, into a layout without Partial) are
    taken. Where
    a rank owns several blocks of one N-D local tensor (strided shards),
    DTensor's to_local() array is taken as it is (local_blocks; local_tensor
    lays the blocks returned back into one)."""
    try:
        a, b = from_any(a, name="a"), from_any(b, name="b")
        if not isinstance(local, (list, tuple)):
            rank = _this_rank()
            got = _local_rows(a, rank)
            if got is not None and len(got[1]) > 1 and \
                    tuple(getattr(local, "shape", ())) == \
                    tuple(len(r) for r in got[0]):
                local = local_blocks(local, a, rank)
            else:
                local = [local]
        local = list(local)
        mixed = _sum_and_avg(a, b)
    except Exception as e:  # anything this rank cannot read
        # The other ranks are in the call: they fail with it, naming this
        # rank, instead of waiting for it.
        text = str(e) if isinstance(e, ShardcError) else \
            f"{type(e).__name__}: {e}"
        _redistribute_refused(f"redistribute: {text}")
    if mixed:
        # Summed over every Partial axis, then divided by the avg axes'
        # devices: DTensor's sum of averages.
        summed, divisor = mixed
        return [x / x.dtype.type(divisor)
                for x in _redistribute(local, summed, b)]
    return _redistribute(local, a, b)


def _sum_and_avg(a, b):
    """DTensor's one mix of Partial reductions, sum and avg (an avg is a sum
    divided by its axis's devices): for a floating layout `a` whose Partial
    axes mix the two and a `b` without Partial, `a` with its avg axes read
    as sum and the divisor; else None (other mixes are refused)."""
    ps, to = _placements_of(a), _placements_of(b)
    if ps is None or to is None or any(p.startswith("P(") for p in to):
        return None
    if {p for p in ps if p.startswith("P(")} != {"P(sum)", "P(avg)"}:
        return None
    if a.dtype not in ("float16", "float32", "float64"):
        return None
    doc = _layout_doc(a)
    divisor = 1
    for p, devices in zip(ps, doc["device_mesh"]["shape"]):
        if p == "P(avg)":
            divisor *= devices
    doc["placements"] = ["P(sum)" if p == "P(avg)" else p for p in ps]
    return from_json(doc, "a"), divisor
