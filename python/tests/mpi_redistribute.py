"""Run under mpirun by test_redistribute.py: every rank moves its NumPy
blocks with shardc.redistribute and checks every element it gets against
the global tensor, computed here independently (np.arange); prints one
line per rank, rank 0 the verdict, and exits non-zero on any mismatch."""
import sys

import numpy as np
from mpi4py import MPI

import shardc

comm = MPI.COMM_WORLD
rank, n = comm.Get_rank(), comm.Get_size()


def glob(shape, dtype):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


def box(g, block):
    return g[tuple(slice(o, o + s) for o, s in
                   zip(block["shard_offsets"], block["shard_sizes"]))]


def blocks_of(shape, rows_per_block, owners, dtype="float32"):
    """An enumerable layout: row blocks of `rows_per_block`, owned in turn
    by `owners` (several per rank: a checkpoint's shards)."""
    shards, start, i = [], 0, 0
    while start < shape[0]:
        rows = min(rows_per_block, shape[0] - start)
        shards.append({"shard_offsets": [start] + [0] * (len(shape) - 1),
                       "shard_sizes": [rows] + list(shape[1:]),
                       "placement": f"rank:{owners[i % len(owners)]}"})
        start += rows
        i += 1
    return shardc.from_json({"size": list(shape),
                             "tensor_properties": {"dtype": dtype},
                             "shards_metadata": shards})


def case(name, a, b, dtype, partial=False):
    g = glob(a.shape, dtype)
    local = []
    for block in shardc.owned_blocks(a, rank):
        part = box(g, block).copy()
        if partial:
            # Rank k holds a partial copy; the copies sum to g.
            part = part - sum(range(1, n)) if rank == 0 else \
                np.full_like(part, rank)
        local.append(part)
    got = shardc.redistribute(local, a, b)
    want = [box(g, block) for block in shardc.owned_blocks(b, rank)]
    ok = len(got) == len(want) and all(
        x.shape == y.shape and x.dtype == y.dtype and np.array_equal(x, y)
        for x, y in zip(got, want))
    return ok, sum(x.size for x in want), name


results = []
m = [n]
results.append(case("rows to columns",
                    shardc.layout([10, 6], mesh=m, placements=["S(0)"]),
                    shardc.layout([10, 6], mesh=m, placements=["S(1)"]),
                    np.float32))
results.append(case("replicated to uneven rows",
                    shardc.layout([7, 5], mesh=m, placements=["R"],
                                  dtype="int32"),
                    shardc.layout([7, 5], mesh=m, placements=["S(0)"],
                                  dtype="int32"), np.int32))
ckpt = blocks_of([13, 4], 2, list(range(n)))
dtensor = shardc.layout([13, 4], mesh=m, placements=["S(0)"])
results.append(case("checkpoint shards to DTensor rows", ckpt, dtensor,
                    np.float32))
results.append(case("DTensor rows to checkpoint shards", dtensor,
                    blocks_of([13, 4], 3, list(range(n))[::-1]), np.float32))
results.append(case("partial sums reduce-scattered",
                    shardc.layout([9], mesh=m, placements=["P(sum)"],
                                  dtype="int64"),
                    shardc.layout([9], mesh=m, placements=["S(0)"],
                                  dtype="int64"), np.int64, partial=True))
# A boolean mask (i1, moved as bytes): rows to columns, every element.
mask = (glob([7, 5], np.int64) % 3 == 0)
rows = shardc.layout([7, 5], mesh=m, placements=["S(0)"], dtype="bool")
cols = shardc.layout([7, 5], mesh=m, placements=["S(1)"], dtype="bool")
got = shardc.redistribute([box(mask, b).copy()
                           for b in shardc.owned_blocks(rows, rank)], rows, cols)
want = [box(mask, b) for b in shardc.owned_blocks(cols, rank)]
results.append((len(got) == len(want) and all(
    x.dtype == np.bool_ and np.array_equal(x, y) for x, y in zip(got, want)),
    sum(x.size for x in want), "a boolean mask, rows to columns"))
# int16 and the unsigned integers (runtime dtypes of their own): replicated
# to uneven rows, every element, values across the whole range (negative
# int16, unsigned past the signed range); then Partial(max) copies, each
# rank's the values at positions k = rank (mod n) and the type's least
# elsewhere, reduced to the values (compared as unsigned, a value past the
# signed range would lose to 0; compared as unsigned int16, -32768 would
# beat every value from 0 up).
for name, npt in [("int16", np.int16), ("uint16", np.uint16),
                  ("uint32", np.uint32), ("uint64", np.uint64)]:
    info = np.iinfo(npt)
    g = (np.arange(35, dtype=np.float64) / 34 * 0.999 * (float(info.max) -
         float(info.min)) + float(info.min)).astype(npt).reshape(7, 5)
    whole = shardc.layout([7, 5], mesh=m, placements=["R"], dtype=name)
    rows = shardc.layout([7, 5], mesh=m, placements=["S(0)"], dtype=name)
    got = shardc.redistribute([g.copy()], whole, rows)
    want = [box(g, b) for b in shardc.owned_blocks(rows, rank)]
    results.append((len(got) == len(want) and all(
        x.dtype == npt and np.array_equal(x, y) for x, y in zip(got, want)),
        sum(x.size for x in want), name + ", rows"))
    pmax = shardc.layout([7, 5], mesh=m, placements=["P(max)"], dtype=name)
    mine = np.where(np.arange(35).reshape(7, 5) % n == rank, g,
                    npt(info.min)).astype(npt)
    got = shardc.redistribute([mine], pmax, whole)
    results.append((len(got) == 1 and got[0].dtype == npt and
                    np.array_equal(got[0], g), g.size,
                    name + " Partial(max) copies, replicated"))
# bfloat16 (NumPy has none): its bits in uint16 arrays, as
# t.view(torch.uint16).numpy() gives them; the partial copies summed as bf16
# (small integers, exact in bf16; rank 0's copy carries the rest).
def to_bf16(x):
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def from_bf16(bits):
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


full = glob([6, 4], np.float32)
psum = shardc.layout([6, 4], mesh=m, placements=["P(sum)"], dtype="bfloat16")
cut = shardc.layout([6, 4], mesh=m, placements=["S(1)"], dtype="bfloat16")
mine = full - (n - 1) if rank == 0 else np.ones_like(full)
got = shardc.redistribute([to_bf16(mine)], psum, cut)
want = [box(full, b) for b in shardc.owned_blocks(cut, rank)]
results.append((len(got) == len(want) and all(
    x.dtype == np.uint16 and np.array_equal(from_bf16(x), y)
    for x, y in zip(got, want)), sum(x.size for x in want),
    "bfloat16 partial sums as uint16 bits, reduce-scattered"))
# DTensor's to_local() of a strided layout (_S(0, 2): each rank's rows of
# both groups, one N-D array) goes in as it is, and local_tensor lays the
# blocks that come back into one again.
heads = shardc.layout([4 * n, 3], mesh=m, placements=["_S(0, 2)"])
tokens = shardc.layout([4 * n, 3], mesh=m, placements=["S(0)"])
g = glob([4 * n, 3], np.float32)
mine = [r for half in (0, 2 * n) for r in range(half + 2 * rank,
                                                 half + 2 * rank + 2)]
got = shardc.redistribute(g[mine], heads, tokens)
want = [box(g, b) for b in shardc.owned_blocks(tokens, rank)]
back = shardc.local_tensor(
    shardc.redistribute(want, tokens, heads), heads, rank)
results.append((len(got) == len(want) and all(
    np.array_equal(x, y) for x, y in zip(got, want)) and
    np.array_equal(back, g[mine]), sum(x.size for x in want) + back.size,
    "a strided layout's to_local() array, there and back"))
# Partial values of a strided layout (several blocks per rank, each with
# its rank's copy index): on 2x2, copy 0 holds g and copy 1 10 g, which sum
# to 11 g (found by an adversarial test: the module gave the runtime one
# copy index per device, read per block: half the rows never summed).
if n == 4:
    g = glob([9, 2], np.float64)
    for pa, pb in [(["_S(0, 2)", "P(sum)"], ["R", "R"]),
                   (["P(sum)", "_S(0, 2)"], ["S(0)", "R"]),
                   (["P(max)", "_S(0, 3)"], ["R", "S(0)"])]:
        a = shardc.layout([9, 2], mesh=[2, 2], placements=pa, dtype="float64")
        b = shardc.layout([9, 2], mesh=[2, 2], placements=pb, dtype="float64")
        copy = rank // 2 if pa[0].startswith("P") else rank % 2
        scale, want_scale = (1, 11) if "P(sum)" in pa else (-1, 1)
        mine = [box(g, blk) * (1 if copy == 0 else (10 if scale == 1 else -1))
                for blk in shardc.owned_blocks(a, rank)]
        got = shardc.redistribute(mine, a, b)
        want = [box(g, blk) * want_scale for blk in shardc.owned_blocks(b, rank)]
        results.append((len(got) == len(want) and all(
            np.array_equal(x, y) for x, y in zip(got, want)),
            sum(x.size for x in want), f"{pa} to {pb}, strided partial copies"))
    # P(sum) and P(avg) mixed (DTensor's one mix): the sum of the avg
    # axis's averages; any other mix is refused on every rank.
    a = shardc.layout([9, 2], mesh=[2, 2], placements=["P(sum)", "P(avg)"],
                      dtype="float64")
    b = shardc.layout([9, 2], mesh=[2, 2], placements=["R", "S(1)"],
                      dtype="float64")
    mine = [box(g, blk) * (rank + 1) for blk in shardc.owned_blocks(a, rank)]
    got = shardc.redistribute(mine, a, b)
    # Copies 1, 2 (avg) and 3, 4 (avg), summed: 1.5 g + 3.5 g = 5 g.
    want = [box(g, blk) * 5 for blk in shardc.owned_blocks(b, rank)]
    results.append((len(got) == len(want) and all(
        np.array_equal(x, y) for x, y in zip(got, want)),
        sum(x.size for x in want), "P(sum) and P(avg) mixed, to [R, S(1)]"))
    try:
        shardc.redistribute(mine, shardc.layout(
            [9, 2], mesh=[2, 2], placements=["P(max)", "P(sum)"],
            dtype="float64"), b)
        raised = False
    except shardc.ShardcError:
        raised = True
    results.append((raised, 0, "P(max) and P(sum) mixed are refused"))
# A bad call raises on every rank, and the world goes on.
try:
    shardc.redistribute([np.zeros((1, 1), np.float64)] * 3, dtensor, ckpt)
    raised = False
except shardc.ShardcError:
    raised = True
results.append((raised, 0, "a wrong block is refused"))
# One rank alone passes a wrong block (each rank in turn, 30 times): every
# rank's call fails, none waits for it, each with a message naming it, and
# the world goes on.
good = [box(glob([13, 4], np.float32), block)
        for block in shardc.owned_blocks(dtensor, rank)]
refused = True
for attempt in range(30):
    faulty = attempt % n
    given = [np.zeros((1, 1), np.float32)] if rank == faulty else good
    try:
        shardc.redistribute(given, dtensor, ckpt)
        refused = False
    except shardc.ShardcError as e:
        refused &= (f"rank {faulty}" in str(e)) if rank != faulty else \
            ("has shape" in str(e))
results.append((refused, 0, "one rank's wrong block fails every rank"))


def fails_on_every_rank(name, call, mine):
    """`call(faulty)` on every rank, each rank in turn the faulty one (twice
    round): it must raise on every rank, the faulty one with a message that
    contains `mine`, the others naming it, and none may wait for it."""
    ok = True
    for attempt in range(2 * n):
        faulty = attempt % n
        try:
            call(faulty)
            ok = False
        except shardc.ShardcError as e:
            ok &= (mine in str(e)) if rank == faulty else \
                (f"rank {faulty} rejected its arguments" in str(e))
    results.append((ok, 0, name))


# Python's own checks of one rank's arguments, before the runtime's: a
# layout that cannot be read (it once left the other ranks waiting 600 s),
# an object that is no layout, a layout of another tensor, a block too many.
fails_on_every_rank(
    "one rank's unreadable layout fails every rank",
    lambda faulty: shardc.redistribute(
        good, dtensor, "{" if rank == faulty else ckpt), "invalid JSON")
fails_on_every_rank(
    "one rank's object that is no layout fails every rank",
    lambda faulty: shardc.redistribute(
        good, 42 if rank == faulty else dtensor, ckpt), "redistribute: ")
fails_on_every_rank(
    "one rank's layout of another dtype fails every rank",
    lambda faulty: shardc.redistribute(
        good, dtensor, shardc.layout([13, 4], mesh=m, placements=["R"],
                                     dtype="float64")
        if rank == faulty else ckpt), "different tensors")
fails_on_every_rank(
    "one rank's blocks of another dtype fail every rank",
    lambda faulty: shardc.redistribute(
        [g.astype(np.float64) for g in good] if rank == faulty else good,
        dtensor, ckpt), "the layout holds float32 but block 0 is float64")
fails_on_every_rank(
    "one rank's block of another shape fails every rank",
    lambda faulty: shardc.redistribute(
        [np.zeros((1, 1), np.float32)] if rank == faulty else good,
        dtensor, ckpt), "has shape")
fails_on_every_rank(
    "one rank's extra block fails every rank",
    lambda faulty: shardc.redistribute(
        good + [good[0]] if rank == faulty else good, dtensor, ckpt),
    "blocks of the source layout but was given")

# Partial values: kept as they are, nothing moves and each rank keeps its
# own copy.
p_sum = shardc.layout([6, 4], mesh=m, placements=["P(sum)"])
mine = np.full((6, 4), rank + 0.5, np.float32)
got = shardc.redistribute([mine], p_sum, p_sum)
results.append((len(got) == 1 and np.array_equal(got[0], mine), mine.size,
                "P(sum) left as it is"))


def partial_source(g, reduce):
    """This rank's partial copy of g: the copies reduce to g."""
    if reduce == "sum":
        return g - (n - 1) if rank == 0 else np.ones_like(g)
    if reduce == "max":
        return g if rank == 0 else g - 1 - rank
    return g  # R


# To a Partial destination, from R, S(0) and partial sources: the planner's
# one decision (planning::decideMove), as plan() says it: moved whole where
# the Partial axes are, then the copies made where they lie (sum, product:
# the first copy keeps the value, the others hold the identity; max, min:
# every copy holds it). The copies, reduced over the ranks, are the value,
# every element (they once summed to n times it).
mpi_op = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "product": MPI.PROD}
g = glob([6, 4], np.float64) + 1
for src in (["R"], ["S(0)"], ["P(sum)"], ["P(max)"]):
    for dst in ("sum", "max", "min", "product"):
        a = shardc.layout([6, 4], mesh=m, placements=src, dtype="float64")
        b = shardc.layout([6, 4], mesh=m, placements=[f"P({dst})"],
                          dtype="float64")
        plan = shardc.plan(a, b)
        kind = src[0][2:-1] if src[0].startswith("P(") else "R"
        blocks = [partial_source(box(g, blk).copy(), kind)
                  for blk in shardc.owned_blocks(a, rank)]
        got = shardc.redistribute(blocks, a, b)
        reduced = np.empty_like(got[0])
        comm.Allreduce(got[0], reduced, op=mpi_op[dst])
        # Kept as it is (P(sum) to P(sum)), nothing happens at all.
        ok = len(got) == 1 and np.array_equal(reduced, g) and \
            (plan.partial_copies is None) == (src[0] == f"P({dst})")
        results.append((ok, g.size, f"{src[0]} to P({dst})"))
# Ranks that disagree on whether the destination keeps partial values
# (the runtime's own agreement sees the same blocks) fail alike, every
# rank naming its own (rank 1 once held zeros, the others the value).
a = shardc.layout([6, 4], mesh=m, placements=["R"])
b = shardc.layout([6, 4], mesh=m,
                  placements=["P(sum)"] if rank == 1 else ["R"])
try:
    shardc.redistribute([glob([6, 4], np.float32)], a, b)
    refused = False
except shardc.ShardcError as e:
    refused = "the ranks disagree on the destination layout" in str(e)
results.append((refused, 0, "ranks disagreeing on P(sum) refused"))
if n % 2 == 0:
    # A 2-D mesh: partial on axis 0, rows cut on axis 1; each axis-0 group
    # (the ranks of one axis-1 index) reduces to its rows.
    m2 = [2, n // 2]
    a = shardc.layout([6, 4], mesh=m2, placements=["S(1)", "S(0)"],
                      dtype="float64")
    b = shardc.layout([6, 4], mesh=m2, placements=["P(sum)", "S(0)"],
                      dtype="float64")
    got = shardc.redistribute([box(g, blk).copy()
                               for blk in shardc.owned_blocks(a, rank)], a, b)
    group = comm.Split(color=rank % (n // 2), key=rank)
    reduced = np.empty_like(got[0])
    group.Allreduce(got[0], reduced, op=MPI.SUM)
    group.Free()
    want = [box(g, blk) for blk in shardc.owned_blocks(b, rank)]
    results.append((len(got) == 1 and np.array_equal(reduced, want[0]),
                    want[0].size, "2-D mesh to [P(sum), S(0)]"))
results.append(case("after a refused call", dtensor, ckpt, np.float32))

failed = [name for ok, _, name in results if not ok]
checked = sum(count for ok, count, _ in results if ok)
line = (f"rank {rank}: OK, {checked} elements checked" if not failed else
        f"rank {rank}: MISMATCH in {', '.join(failed)}")
lines = comm.gather(line, root=0)
bad = comm.allreduce(len(failed), op=MPI.SUM)
if rank == 0:
    print("\n".join(lines))
    print("all OK" if bad == 0 else f"{bad} failures")
sys.exit(1 if bad else 0)
