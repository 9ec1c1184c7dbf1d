#!/usr/bin/env python3
"""Checks every rank's output of an end-to-end test, element by element.

Each rank's program printed (printMemref*) first its local block of a chunk-
sharded tensor, then the all-gathered tensor. Every element of the global
tensor must equal its row-major linear index. The expected block of each rank
is computed here from torch.chunk's formula, independently of shardc.

Usage: check_ranks.py --prefix P --world N --shape 6x10 --dim 1 --placements 0,1,2,3
       check_ranks.py ... --mesh 2x2 [--devices 3,2,1,0] --dtensor "S(0),R"
Reads P.<rank> for rank in 0..N-1; exits 1 on any mismatch. With --mesh, the
expected blocks follow DTensor's semantics (computed here too).
"""
import argparse
import itertools
import re
import sys

HEADER = re.compile(
    r"Unranked Memref base@ = \S+ rank = (\d+) offset = (-?\d+) "
    r"sizes = \[([^\]]*)\] strides = \[([^\]]*)\] data =")
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf)")


def parse_memrefs(text):
    """Returns [(sizes, [values in row-major order])] for each printed memref."""
    out = []
    matches = list(HEADER.finditer(text))
    for k, m in enumerate(matches):
        sizes = [int(s) for s in m.group(3).split(",") if s.strip()]
        end = matches[k + 1].start() if k + 1 < len(matches) else len(text)
        values = [float(v) for v in NUMBER.findall(text[m.end():end])]
        out.append((sizes, values))
    return out


def chunk(n, k, i):
    """torch.chunk: split = ceil(n / k); chunk i = [split*i, +clamp(...)]."""
    split = -(-n // k)
    offset = split * i
    return offset, max(0, min(split, n - offset))


def split_placements(text):
    """"S(0),_S(0, 2),R" -> ["S(0)", "_S(0, 2)", "R"] (commas inside
    parentheses kept)."""
    out, depth, cur = [], 0, ""
    for c in text:
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += (c == "(") - (c == ")")
        cur += c
    out.append(cur.strip())
    return out


def dtensor_rows(shape, mesh, devices, placements):
    """{rank: per dim, the global indices its local tensor holds, in order}
    with strided shards: each Shard(d) / _S(d, split) axis cuts the list of
    dim d's indices the earlier axes left, in mesh-axis order; S(d) takes
    its torch.chunk of the list; _S(d, split) cuts the list into `split`
    groups by torch.chunk and takes its torch.chunk of each group."""
    rows = {}
    for pos, coord in enumerate(itertools.product(*[range(m) for m in mesh])):
        idx = [list(range(n)) for n in shape]
        for axis, p in enumerate(placements):
            if p.startswith("S("):
                d = int(p[2:-1]) % len(shape)
                off, size = chunk(len(idx[d]), mesh[axis], coord[axis])
                idx[d] = idx[d][off:off + size]
            elif p.startswith("_S("):
                d, split = (int(x) for x in p[3:-1].split(","))
                d %= len(shape)
                step = -(-len(idx[d]) // split)
                out = []
                for begin in range(0, len(idx[d]), max(step, 1)):
                    group = idx[d][begin:begin + step]
                    off, size = chunk(len(group), mesh[axis], coord[axis])
                    out += group[off:off + size]
                idx[d] = out
        rows[devices[pos] if devices else pos] = idx
    return rows


def index_values(shape, idx, a=1, b=0):
    """The values of the elements at the index lists `idx` (row-major)."""
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    for point in itertools.product(*idx):
        yield a * sum(i * st for i, st in zip(point, strides)) + b


def dtensor_boxes(shape, mesh, devices, placements):
    """{rank: (offsets, sizes)} of every mesh device, as DTensor computes
    its local shard: Shard(d) axes chunk dim d in mesh-axis order, each one
    chunking what the previous left; an empty chunk sits at the end."""
    boxes = {}
    for pos, coord in enumerate(itertools.product(*[range(m) for m in mesh])):
        offsets, sizes = [0] * len(shape), list(shape)
        for axis, p in enumerate(placements):
            if not p.startswith("S("):
                continue
            d = int(p[2:-1]) % len(shape)
            n, k, i = sizes[d], mesh[axis], coord[axis]
            split = -(-n // k)
            start = split * i
            size = max(0, min(n, start + split) - start)
            offsets[d] += start if size > 0 else min(start, n)
            sizes[d] = size
        boxes[devices[pos] if devices else pos] = (offsets, sizes)
    return boxes


def linear_values(shape, offsets, sizes, a=1, b=0):
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    for idx in itertools.product(*[range(s) for s in sizes]):
        yield a * sum((o + i) * st for o, i, st in zip(offsets, idx, strides)) + b


def compare(what, got_sizes, got, want_sizes, want):
    errors = []
    if got_sizes != want_sizes:
        return [f"{what}: sizes {got_sizes}, expected {want_sizes}"]
    if 0 in want_sizes:
        # MLIR's printMemref prints a row of garbage for empty memrefs: the
        # sizes are all there is to check.
        return []
    if len(got) != len(want):
        return [f"{what}: {len(got)} values printed, expected {len(want)}"]
    for n, (g, w) in enumerate(zip(got, want)):
        if g != w:
            errors.append(f"{what}: element {n} is {g}, expected {w}")
            if len(errors) >= 5:
                break
    return errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--world", type=int, required=True)
    ap.add_argument("--shape", required=True)
    ap.add_argument("--dim", type=int)
    ap.add_argument("--placements")
    ap.add_argument("--mesh")
    ap.add_argument("--devices")
    ap.add_argument("--dtensor")
    ap.add_argument("--gathered-on", type=int, help="the whole tensor is "
                    "only checked on this rank (shard.gather)")
    ap.add_argument("--skip-local", action="store_true", help="do not check "
                    "the local blocks (partial values)")
    ap.add_argument("--affine", default="1,0", help="A,B: every element must "
                    "be A * its linear index + B")
    ap.add_argument("--blocks", help="explicit blocks: "
                    "'rank@offsets@sizes;...', e.g. '0@0,0@2,3;1@0,3@2,3'")
    args = ap.parse_args()
    shape = [int(s) for s in args.shape.split("x")]
    a, b = (float(x) for x in args.affine.split(","))
    expected = {}
    rows = None  # strided layouts: per rank, per dim, its index list
    if args.blocks:
        for row in args.blocks.split(";"):
            r, offs, sizes = row.split("@")
            expected[int(r)] = ([int(x) for x in offs.split(",")],
                                [int(x) for x in sizes.split(",")])
    elif args.mesh:
        mesh = [int(m) for m in args.mesh.split("x")]
        devices = [int(d) for d in args.devices.split(",")] if args.devices else None
        placements = split_placements(args.dtensor)
        if any(p.startswith("_S(") for p in placements):
            rows = dtensor_rows(shape, mesh, devices, placements)
        else:
            expected = dtensor_boxes(shape, mesh, devices, placements)
    else:
        dim = args.dim % len(shape)
        placements = [int(p) for p in args.placements.split(",")]
        for i, r in enumerate(placements):
            offset, size = chunk(shape[dim], len(placements), i)
            offsets, sizes = [0] * len(shape), list(shape)
            offsets[dim], sizes[dim] = offset, size
            expected[r] = (offsets, sizes)
    failed = False
    for rank in range(args.world):
        try:
            with open(f"{args.prefix}.{rank}") as f:
                memrefs = parse_memrefs(f.read())
        except OSError as e:
            print(f"rank {rank}: no output ({e})")
            failed = True
            continue
        if len(memrefs) != 2:
            print(f"rank {rank}: printed {len(memrefs)} memrefs, expected 2")
            failed = True
            continue
        errors = []
        if rows is not None and rank in rows and not args.skip_local:
            sizes = [len(r) for r in rows[rank]]
            errors += compare("local rows", memrefs[0][0], memrefs[0][1],
                              sizes, list(index_values(shape, rows[rank], a, b)))
        if rank in expected and not args.skip_local:
            offsets, sizes = expected[rank]
            errors += compare("local block", memrefs[0][0], memrefs[0][1],
                              sizes, list(linear_values(shape, offsets, sizes, a, b)))
        full = list(linear_values(shape, [0] * len(shape), shape, a, b))
        if args.gathered_on is None or args.gathered_on == rank:
            errors += compare("gathered tensor", memrefs[1][0],
                              memrefs[1][1], shape, full)
        if errors:
            failed = True
            for e in errors:
                print(f"rank {rank}: {e}")
        else:
            print(f"rank {rank}: OK ({len(full)} elements of the gathered "
                  f"tensor checked)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
