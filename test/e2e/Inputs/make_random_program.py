"""Random annotated programs for shard-run --check (random-programs-np2.test):
elementwise ops, fills, in-place linalg.generic outs, layout moves, a
matmul, scf.for loops on N x N f32 tensors, with pinned argument and
result layouts on a 1-D mesh; besides those (features "all", the default):
tensor.extract_slice / insert_slice with unit and rank-reduced dims (a row
as tensor<N>, an element as tensor<1> or tensor<1x1>, a block [a:b, c:d])
whose small values may be pinned (S(0)/S(1)/R, so that a rank holds a unit
or an empty block), rows broadcast back onto N x N, i1 masks (arith.cmpf,
in a linalg.generic or on tensors, and sliced i1 constants) feeding an
arith.select payload, i1 arguments and results, and a private helper
function called once or twice with func.call, its arguments and results
pinned or free. Seeded: the same seed, the same program.

  make_random_program.py SEED RANKS [FEATURES]

FEATURES "old" prints exactly what the generator printed before the slices,
masks and calls were added, for the same seed."""
import random, re, sys

OLD_KINDS = ["ew", "ew", "cst", "fill", "outs", "move", "move", "mm", "loop"]
NEW_KINDS = ["slice", "slice", "insert", "insert", "unit", "unit", "bcast", "cmp", "mask",
             "select", "select", "call", "call"]


def gen(seed, n, features="all"):
    new = features == "all"
    r = random.Random(seed)
    N = r.choice([5, 6])
    T = f"tensor<{N}x{N}xf32>"
    TB = f"tensor<{N}x{N}xi1>"
    lay = lambda: r.choice(["S(0)", "S(1)", "R"])
    # A layout for a value of rank `rank` (a 1-D value: S(0) or R).
    lay_r = lambda rank: r.choice(["S(0)", "R"]) if rank == 1 else lay()
    L = lambda p: f"#shard.placements<mesh = #m, placements = [{p}]>"
    tt = lambda shape, e="f32": "tensor<" + "x".join(map(str, shape)) + f"x{e}>"
    lines = [f"#m = #shard.mesh<shape = [{n}]>"]
    nargs = r.choice([1, 2])
    arglist = [f"%a{i}: {T} {{shard.layout = {L(lay())}}}" for i in range(nargs)]
    body = []
    pool = [f"%a{i}" for i in range(nargs)]
    # Features "all": values other than N x N f32.
    side = []    # (name, shape) of f32 slices; shape a tuple
    used = set()  # side values consumed
    masks = []   # N x N i1 values
    types = {}   # name -> type, for results other than T
    helper = {}  # the private helper: its text and signature, once made
    if new and r.random() < 0.3:
        a = "%b0"
        arglist.append(f"{a}: {TB}" + (f" {{shard.layout = {L(lay())}}}"
                                       if r.random() < 0.7 else ""))
        masks.append(a)
        types[a] = TB
    args = ", ".join(arglist)
    k = 0
    matmuls = 0

    def add(v, shape, pin_p=0.5):
        """Records the f32 slice `v` of `shape`, maybe pinned."""
        if r.random() < pin_p:
            w = v + "p"
            body.append(f"{w} = shard.constraint {v} layout {L(lay_r(len(shape)))} : {tt(shape)}")
            v = w
        side.append((v, shape))
        types[v] = tt(shape)
        return v

    def slice_of(x, k):
        """An f32 slice of the N x N value x: a row, a column, an element,
        a block; rank-reduced or not."""
        form = r.choice(["row", "col", "row2d", "col2d", "elem1", "elem2", "block"])
        i, j = r.randrange(N), r.randrange(N)
        v = f"%sl{k}"
        if form in ("row", "row2d"):
            offs, sizes = (i, 0), (1, N)
            shape = (N,) if form == "row" else (1, N)
        elif form in ("col", "col2d"):
            offs, sizes = (0, j), (N, 1)
            shape = (N,) if form == "col" else (N, 1)
        elif form in ("elem1", "elem2"):
            offs, sizes = (i, j), (1, 1)
            shape = (1,) if form == "elem1" else (1, 1)
        else:
            a, b = sorted(r.sample(range(N + 1), 2))
            c, d = sorted(r.sample(range(N + 1), 2))
            offs, sizes, shape = (a, c), (b - a, d - c), (b - a, d - c)
        body.append(f"{v} = tensor.extract_slice {x}[{offs[0]}, {offs[1]}] [{sizes[0]}, {sizes[1]}] [1, 1] : {T} to {tt(shape)}")
        v = add(v, shape)
        if r.random() < 0.3:
            # Compute on the small value (same shape: itself or a twin).
            twins = [s for s, sh in side if sh == shape]
            y = r.choice(twins)
            w = f"%sw{k}"
            body.append(f"{w} = arith.{r.choice(['addf', 'subf', 'mulf'])} {v}, {y} : {tt(shape)}")
            v = add(w, shape, 0.3)
        return v

    def insert_into(x, s, shape, k):
        """Inserts the f32 slice s of `shape` into the N x N value x at a
        random offset that fits."""
        v = f"%v{k}"
        if shape == (N,):
            if r.random() < 0.5:
                offs, sizes = (r.randrange(N), 0), (1, N)
            else:
                offs, sizes = (0, r.randrange(N)), (N, 1)
        else:
            sizes = (1, 1) if shape == (1,) else shape
            offs = (r.randint(0, N - sizes[0]), r.randint(0, N - sizes[1]))
        body.append(f"{v} = tensor.insert_slice {s} into {x}[{offs[0]}, {offs[1]}] [{sizes[0]}, {sizes[1]}] [1, 1] : {tt(shape)} into {T}")
        return v

    def mask(k):
        """An N x N i1 mask: a comparison or a slice of an i1 constant."""
        if r.random() < 0.5:
            x, y = r.choice(pool), r.choice(pool)
            pred = r.choice(["olt", "ogt", "oeq", "oge", "une", "ole"])
            m = f"%m{k}"
            if r.random() < 0.7:
                body.append(f"%e{k} = tensor.empty() : {TB}")
                body.append(f"""{m} = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}} ins({x}, {y} : {T}, {T}) outs(%e{k} : {TB}) {{
  ^bb0(%p: f32, %q: f32, %o: i1):
    %c = arith.cmpf {pred}, %p, %q : f32
    linalg.yield %c : i1
  }} -> {TB}""")
            else:
                body.append(f"{m} = arith.cmpf {pred}, {x}, {y} : {T}")
        else:
            M = N + r.choice([1, 2])
            bits = [[r.choice(["true", "false"]) for _ in range(M)] for _ in range(M)]
            dense = "[" + ", ".join("[" + ", ".join(row) + "]" for row in bits) + "]"
            o1, o2 = r.randint(0, M - N), r.randint(0, M - N)
            body.append(f"%mc{k} = arith.constant dense<{dense}> : tensor<{M}x{M}xi1>")
            m = f"%m{k}"
            body.append(f"{m} = tensor.extract_slice %mc{k}[{o1}, {o2}] [{N}, {N}] [1, 1] : tensor<{M}x{M}xi1> to {TB}")
        if r.random() < 0.3:
            body.append(f"{m}p = shard.constraint {m} layout {L(lay())} : {TB}")
            m += "p"
        masks.append(m)
        types[m] = TB
        return m

    def select(m, x, y, z, v, tb, t):
        return f"""{v} = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}} ins({m}, {x}, {y} : {tb}, {t}, {t}) outs({z} : {t}) {{
  ^bb0(%b: i1, %p: f32, %q: f32, %o: f32):
    %s = arith.select %b, %p, %q : f32
    linalg.yield %s : f32
  }} -> {t}"""

    def make_helper():
        """A private helper: 1-2 f32 arguments (and maybe a mask), 1-3 ops,
        1-2 results (one maybe a mask), each pinned or free."""
        pin = lambda t, rank=2: (f" {{shard.layout = {L(lay_r(rank))}}}"
                                 if r.random() < 0.5 else "")
        nf = r.choice([1, 2])
        with_mask = bool(masks) and r.random() < 0.4
        params = [f"%x{i}: {T}{pin(T)}" for i in range(nf)]
        if with_mask:
            params.append(f"%mk: {TB}{pin(TB)}")
        hp = [f"%x{i}" for i in range(nf)]
        hb = []
        for h in range(r.randint(1, 3)):
            v = f"%h{h}"
            x, y = r.choice(hp), r.choice(hp)
            hk = r.choice(["ew", "move", "row", "sel"] if with_mask else ["ew", "move", "row"])
            if hk == "ew":
                hb.append(f"{v} = arith.{r.choice(['addf', 'subf'])} {x}, {y} : {T}")
            elif hk == "move":
                hb.append(f"{v} = shard.constraint {x} layout {L(lay())} : {T}")
            elif hk == "row":
                i, j = r.randrange(N), r.randrange(N)
                hb.append(f"{v}r = tensor.extract_slice {x}[{i}, 0] [1, {N}] [1, 1] : {T} to tensor<{N}xf32>")
                hb.append(f"{v} = tensor.insert_slice {v}r into {y}[{j}, 0] [1, {N}] [1, 1] : tensor<{N}xf32> into {T}")
            else:
                hb.append(select("%mk", x, y, r.choice(hp), v, TB, T))
            hp.append(v)
        rets = [hp[-1]] + ([r.choice(hp)] if r.random() < 0.4 else [])
        rtypes = [T] * len(rets)
        if with_mask and r.random() < 0.4:
            rets.append("%mk")
            rtypes.append(TB)
        text = [f"func.func private @helper({', '.join(params)}) -> ({', '.join(t + pin(t) for t in rtypes)}) {{"]
        text += ["  " + l for l in "\n".join(hb).split("\n")]
        text.append(f"  return {', '.join(rets)} : {', '.join(rtypes)}")
        text.append("}")
        helper.update(text=text, nf=nf, with_mask=with_mask, rtypes=rtypes, calls=0)

    kinds = OLD_KINDS + NEW_KINDS if new else OLD_KINDS
    for _ in range(r.randint(3, 8)):
        k += 1
        v = f"%v{k}"
        kind = r.choice(kinds)
        x = r.choice(pool[-3:]); y = r.choice(pool)
        if kind == "call" and helper and helper["calls"] >= 2:
            kind = "select"
        if kind == "ew":
            op = r.choice(["addf", "subf"])
            body.append(f"{v} = arith.{op} {x}, {y} : {T}")
        elif kind == "cst":
            c = r.randint(1, 3)
            body.append(f"%c{k} = arith.constant dense<{c}.0> : {T}")
            body.append(f"{v} = arith.{r.choice(['addf','subf'])} {x}, %c{k} : {T}")
        elif kind == "fill":
            body.append(f"%z{k} = arith.constant {r.randint(-3,3)}.0 : f32")
            body.append(f"{v} = linalg.fill ins(%z{k} : f32) outs({x} : {T}) -> {T}")
        elif kind == "outs":
            body.append(f"""{v} = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}} ins({y} : {T}) outs({x} : {T}) {{
  ^bb0(%p: f32, %o: f32):
    %s = arith.subf %o, %p : f32
    linalg.yield %s : f32
  }} -> {T}""")
        elif kind == "move":
            body.append(f"{v} = shard.constraint {x} layout {L(lay())} : {T}")
        elif kind == "mm" and matmuls < 1:
            matmuls += 1
            body.append(f"{v} = linalg.matmul ins({x}, {y} : {T}, {T}) outs({r.choice(pool)} : {T}) -> {T}")
        elif kind == "slice":
            slice_of(x, k)
            continue
        elif kind == "unit":
            # An element (tensor<1xf32>, often pinned: S(0) leaves one rank
            # holding it, the other an empty block) inserted, rank-reducing,
            # into a row or column kept 2-D (1xN or Nx1, often pinned): a
            # tensor<1xf32> cut S(0) into a 1xN cut S(1) once moved nothing
            # (MISMATCH: the rule and the partition dropped different dims).
            i, j = r.randrange(N), r.randrange(N)
            e = f"%ue{k}"
            body.append(f"{e} = tensor.extract_slice {y}[{i}, {j}] [1, 1] [1, 1] : {T} to tensor<1xf32>")
            e = add(e, (1,), 0.9)
            rows = r.random() < 0.5
            tsh = (1, N) if rows else (N, 1)
            offs = (r.randrange(N), 0) if rows else (0, r.randrange(N))
            t = f"%ut{k}"
            body.append(f"{t} = tensor.extract_slice {x}[{offs[0]}, {offs[1]}] [{tsh[0]}, {tsh[1]}] [1, 1] : {T} to {tt(tsh)}")
            t = add(t, tsh, 0.9)
            at = (0, r.randrange(N)) if rows else (r.randrange(N), 0)
            w = f"%u{k}"
            body.append(f"{w} = tensor.insert_slice {e} into {t}[{at[0]}, {at[1]}] [1, 1] [1, 1] : tensor<1xf32> into {tt(tsh)}")
            add(w, tsh)
            continue
        elif kind == "insert":
            free = [(s, sh) for s, sh in side if s not in used]
            if free and r.random() < 0.8:
                s, sh = r.choice(free)
            else:
                s = slice_of(r.choice(pool), k)
                sh = side[-1][1]
            used.add(s)
            insert_into(x, s, sh, k)
        elif kind == "bcast":
            rows = [s for s, sh in side if sh == (N,)]
            if rows and r.random() < 0.8:
                s = r.choice(rows)
            else:
                body.append(f"%sl{k} = tensor.extract_slice {y}[{r.randrange(N)}, 0] [1, {N}] [1, 1] : {T} to tensor<{N}xf32>")
                s = add(f"%sl{k}", (N,))
            used.add(s)
            d = r.choice(["i", "j"])
            body.append(f"""{v} = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ({d})>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}} ins({x}, {s} : {T}, tensor<{N}xf32>) outs({y} : {T}) {{
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.{r.choice(['addf', 'subf', 'mulf'])} %p, %q : f32
    linalg.yield %s : f32
  }} -> {T}""")
        elif kind == "cmp" or kind == "mask":
            mask(k)
            continue
        elif kind == "select":
            m = r.choice(masks) if masks and r.random() < 0.7 else mask(k)
            z = r.choice([x, y, f"%e{k}f"])
            if z == f"%e{k}f":
                body.append(f"%e{k}f = tensor.empty() : {T}")
            body.append(select(m, x, y, z, v, TB, T))
        elif kind == "call":
            if not helper:
                make_helper()
            helper["calls"] += 1
            ops = [r.choice(pool) for _ in range(helper["nf"])]
            if helper["with_mask"]:
                ops.append(r.choice(masks))
            rt = helper["rtypes"]
            head = f"{v}:{len(rt)}" if len(rt) > 1 else v
            body.append(f"{head} = func.call @helper({', '.join(ops)}) : ({', '.join([T] * helper['nf'] + ([TB] if helper['with_mask'] else []))}) -> ({', '.join(rt)})")
            res = [f"{v}#{i}" for i in range(len(rt))] if len(rt) > 1 else [v]
            for name, t in zip(res, rt):
                if t == T:
                    pool.append(name)
                else:
                    masks.append(name)
                    types[name] = t
            continue
        else:
            body.append(f"""%i0_{k} = arith.constant 0 : index
%i1_{k} = arith.constant 1 : index
%i2_{k} = arith.constant 2 : index
{v} = scf.for %it = %i0_{k} to %i2_{k} step %i1_{k} iter_args(%acc = {x}) -> ({T}) {{
  %n = arith.subf %acc, {y} : {T}
  scf.yield %n : {T}
}}""")
        pool.append(v)
    outs = r.sample(pool, min(len(pool), r.randint(1, 3)))
    if new:
        # Every value nothing reads is returned too (up to 6 results in all), so
        # that the check sees it: slices, masks, helper results.
        reads = " ".join(re.sub(r"^(%[\w#:]+) = ", "", l) for l in "\n".join(body).split("\n"))
        made = [v for v in [s for s, _ in side] + masks + pool if not v.startswith(("%a", "%b0"))]
        sinks = [v for v in made if not re.search(re.escape(v) + r"(?!\w)", reads)]
        outs = list(dict.fromkeys(sinks[:6] + outs))[:6]
        rank = lambda t: t.count("x")
        rtl = [types.get(o, T) for o in outs]
        rt = ", ".join(f"{t} {{shard.layout = {L(lay_r(rank(t)))}}}" if r.random() < 0.5 else t for t in rtl)
    else:
        rtl = [T] * len(outs)
        rt = ", ".join(f"{T} {{shard.layout = {L(lay())}}}" if r.random() < 0.5 else T for _ in outs)
    lines.append(f"func.func @main({args}) -> ({rt}) {{")
    lines += ["  " + l for l in "\n".join(body).split("\n")]
    lines.append(f"  return {', '.join(outs)} : {', '.join(rtl)}")
    lines.append("}")
    if helper:
        lines += helper["text"]
    return "\n".join(lines) + "\n"
if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]),
              sys.argv[3] if len(sys.argv) > 3 else "all"), end="")
