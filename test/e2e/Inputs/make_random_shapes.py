"""Random annotated programs of the ops that change shapes and move parts
(random-shapes.test): tensor.pad, tensor.concat, tensor.insert_slice and
tensor.extract_slice (strided, rank-reducing), expand_shape/collapse_shape,
elementwise ops, scf.while loops and layout moves, on 6 x 6 f32 tensors with pinned layouts
on a 1-D mesh. Every intermediate is sliced back to 6 x 6, so that any op
can follow any other. Some arguments are laid out in several blocks per
rank (each of 2 or 3 parts of a dim cut over the ranks, as a fused q|k|v
weight), and some values are split into halves that are swapped (a
linalg op read only through slices: computed per slice). Seeded: the same
seed, the same program (the second stream, for those, leaves the first
one's programs as they were)."""
import random
import sys

N = 6


def parts_layout(r2, ranks):
    """An enumerable layout of 6 x 6: a dim in 2 or 3 parts, each cut over
    the ranks as torch.chunk cuts it; rank k holds its chunk of every part."""
    d = r2.randint(0, 1)
    parts = r2.choice([2, 3])
    size = N // parts
    split = -(-size // ranks)
    blocks = []
    for k in range(ranks):
        lo, hi = min(size, k * split), min(size, (k + 1) * split)
        if hi <= lo:
            continue
        for p in range(parts):
            off = [0, 0]
            sz = [N, N]
            off[d], sz[d] = p * size + lo, hi - lo
            blocks.append(f"{{offsets = [{off[0]}, {off[1]}], sizes = "
                          f"[{sz[0]}, {sz[1]}], placement = \"rank:{k}\"}}")
    return "#shard.enumerable<[" + ", ".join(blocks) + "]>"


def gen(seed, ranks):
    r = random.Random(seed)
    r2 = random.Random(seed * 7919 + 17)
    T = f"tensor<{N}x{N}xf32>"
    lay = lambda: r.choice(["S(0)", "S(1)", "R"])
    L = lambda p: f"#shard.placements<mesh = #m, placements = [{p}]>"
    body = []
    nargs = r.choice([2, 3])
    pool = [f"%a{i}" for i in range(nargs)]
    k = 0

    def fresh():
        nonlocal k
        k += 1
        return k

    def slice_back(v, rows, cols):
        """A 6 x 6 slice of the rows x cols `v`, maybe strided."""
        i = fresh()
        sr = 2 if rows >= 2 * N - 1 and r.random() < 0.4 else 1
        sc = 2 if cols >= 2 * N - 1 and r.random() < 0.4 else 1
        orow = r.randint(0, rows - (N - 1) * sr - 1)
        ocol = r.randint(0, cols - (N - 1) * sc - 1)
        body.append(f"%s{i} = tensor.extract_slice {v}[{orow}, {ocol}] "
                    f"[{N}, {N}] [{sr}, {sc}] : tensor<{rows}x{cols}xf32> "
                    f"to {T}")
        return f"%s{i}"

    for _ in range(r.randint(3, 7)):
        x = r.choice(pool[-3:])
        y = r.choice(pool)
        kind = r.choice(["pad", "concat", "insert", "insert_row", "reshape",
                         "ew", "move", "move", "while"])
        i = fresh()
        if kind == "pad":
            lo = [r.randint(0, 3), r.randint(0, 3)]
            hi = [r.randint(0, 3), r.randint(0, 3)]
            rows, cols = N + lo[0] + hi[0], N + lo[1] + hi[1]
            body.append(f"%c{i} = arith.constant {r.randint(-2, 2)}.5 : f32")
            body.append(
                f"%p{i} = tensor.pad {x} low[{lo[0]}, {lo[1]}] "
                f"high[{hi[0]}, {hi[1]}] {{\n"
                f"^bb0(%i{i}: index, %j{i}: index):\n"
                f"  tensor.yield %c{i} : f32\n"
                f"}} : {T} to tensor<{rows}x{cols}xf32>")
            v = slice_back(f"%p{i}", rows, cols)
        elif kind == "concat":
            d = r.randint(0, 1)
            parts = [x, y] + ([r.choice(pool)] if r.random() < 0.4 else [])
            rows = N * len(parts) if d == 0 else N
            cols = N * len(parts) if d == 1 else N
            body.append(f"%q{i} = tensor.concat dim({d}) {', '.join(parts)} "
                        f": ({', '.join([T] * len(parts))}) -> "
                        f"tensor<{rows}x{cols}xf32>")
            v = slice_back(f"%q{i}", rows, cols)
        elif kind == "insert":
            h, w = r.randint(1, 3), r.randint(1, N)
            sr = r.choice([1, 2])
            body.append(f"%t{i} = tensor.extract_slice {y}[{r.randint(0, N - h)}, "
                        f"{r.randint(0, N - w)}] [{h}, {w}] [1, 1] : {T} to "
                        f"tensor<{h}x{w}xf32>")
            orow = r.randint(0, N - 1 - (h - 1) * sr)
            body.append(f"%v{i} = tensor.insert_slice %t{i} into {x}[{orow}, "
                        f"{r.randint(0, N - w)}] [{h}, {w}] [{sr}, 1] : "
                        f"tensor<{h}x{w}xf32> into {T}")
            v = f"%v{i}"
        elif kind == "insert_row":
            # A row of y into a row of x, rank-reducing on both sides.
            body.append(f"%t{i} = tensor.extract_slice {y}[{r.randint(0, N - 1)}"
                        f", 0] [1, {N}] [1, 1] : {T} to tensor<{N}xf32>")
            body.append(f"%v{i} = tensor.insert_slice %t{i} into {x}"
                        f"[{r.randint(0, N - 1)}, 0] [1, {N}] [1, 1] : "
                        f"tensor<{N}xf32> into {T}")
            v = f"%v{i}"
        elif kind == "reshape":
            body.append(f"%e{i} = tensor.expand_shape {x} [[0], [1, 2]] "
                        f"output_shape [{N}, 2, 3] : {T} into "
                        f"tensor<{N}x2x3xf32>")
            body.append(f"%n{i} = arith.negf %e{i} : tensor<{N}x2x3xf32>")
            body.append(f"%v{i} = tensor.collapse_shape %n{i} [[0], [1, 2]] : "
                        f"tensor<{N}x2x3xf32> into {T}")
            v = f"%v{i}"
        elif kind == "while":
            # Two trips of x = pad-and-slice(x) - y, carried by scf.while in
            # a layout of its own.
            body.append(f"%z{i} = arith.constant 0 : index")
            body.append(f"%o{i} = arith.constant 1 : index")
            body.append(f"%n{i} = arith.constant 2 : index")
            body.append(f"%w{i}:2 = scf.while (%k{i} = %z{i}, %x{i} = {x}) : "
                        f"(index, {T}) -> (index, {T}) {{")
            body.append(f"  %more{i} = arith.cmpi slt, %k{i}, %n{i} : index")
            body.append(f"  scf.condition(%more{i}) %k{i}, %x{i} : index, {T}")
            body.append(f"}} do {{")
            body.append(f"^bb0(%kk{i}: index, %xx{i}: {T}):")
            body.append(f"  %l{i} = shard.constraint %xx{i} layout {L(lay())} "
                        f": {T}")
            body.append(f"  %d{i} = arith.subf %l{i}, {y} : {T}")
            body.append(f"  %k2{i} = arith.addi %kk{i}, %o{i} : index")
            body.append(f"  scf.yield %k2{i}, %d{i} : index, {T}")
            body.append(f"}}")
            v = f"%w{i}#1"
        elif kind == "ew":
            body.append(f"%v{i} = arith.{r.choice(['addf', 'subf', 'mulf'])} "
                        f"{x}, {y} : {T}")
            v = f"%v{i}"
        else:
            body.append(f"%v{i} = shard.constraint {x} layout {L(lay())} : {T}")
            v = f"%v{i}"
        if r2.random() < 0.3:
            # v + y read only through its two halves, swapped.
            d = r2.randint(0, 1)
            H = [N, N // 2] if d == 1 else [N // 2, N]
            h = f"tensor<{H[0]}x{H[1]}xf32>"
            at = "0, 3" if d == 1 else "3, 0"
            body.append(f"%g{i} = tensor.empty() : {T}")
            body.append(f"%u{i} = linalg.add ins({v}, {r2.choice(pool)} : "
                        f"{T}, {T}) outs(%g{i} : {T}) -> {T}")
            body.append(f"%h{i} = tensor.extract_slice %u{i}[0, 0] "
                        f"[{H[0]}, {H[1]}] [1, 1] : {T} to {h}")
            body.append(f"%hh{i} = tensor.extract_slice %u{i}[{at}] "
                        f"[{H[0]}, {H[1]}] [1, 1] : {T} to {h}")
            body.append(f"%sw{i} = tensor.concat dim({d}) %hh{i}, %h{i} : "
                        f"({h}, {h}) -> {T}")
            v = f"%sw{i}"
        pool.append(v)
    outs = r.sample(pool[nargs:], min(len(pool) - nargs, r.randint(1, 3)))
    arg_layouts = [L(lay()) for i in range(nargs)]
    for i in range(nargs):
        if r2.random() < 0.3:
            arg_layouts[i] = parts_layout(r2, ranks)
    args = ", ".join(f"%a{i}: {T} {{shard.layout = {arg_layouts[i]}}}"
                     for i in range(nargs))
    results = ", ".join(f"{T} {{shard.layout = {L(lay())}}}" for _ in outs)
    lines = [f"#m = #shard.mesh<shape = [{ranks}]>",
             f"func.func @main({args}) -> ({results}) {{"]
    lines += ["  " + line for line in "\n".join(body).split("\n")]
    lines.append(f"  return {', '.join(outs)} : {', '.join([T] * len(outs))}")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2])), end="")
