"""Random programs whose functions return tensors that may share buffers, for
shard-run --check (aliasing-calls-np2.test): private helpers return, in a
random order and with repeats, their arguments, views of them (a slice of
rows, a reshape), values they compute, views of those (often a value and
its view together), constants and the results of calls of other helpers;
their callers compute in place on some of those results (an elementwise op
whose first operand is not used again, which bufferization writes into;
often one result of a call while its others are returned) and return
others. One-shot bufferization
takes a call's results to be new buffers of their own, so a result that
shares a buffer with another (or is a constant's global) is where an
in-place write would change a value still returned; shard-run's reference
has its calls inlined, so such a change shows as a MISMATCH. Layouts of arguments and results are pinned or free, on a 1-D
mesh of RANKS devices. Seeded: the same seed, the same program.

  make_alias_program.py SEED RANKS [loops]

With "loops", bodies also run scf.for loops carrying a value through
iterations that compute on it (and on the values around the loop).
"""
import random
import sys


def gen(seed, ranks, loops=False):
    r = random.Random(seed)
    N = r.choice([4, 6])
    H = N // 2
    T = f"tensor<{N}x{N}xf32>"   # whole
    V = f"tensor<{H}x{N}xf32>"   # half (a slice of rows)
    F = f"tensor<{N * N}xf32>"   # flat (a reshape)
    types = {"T": T, "V": V, "F": F}
    L = lambda p: f"#shard.placements<mesh = #m, placements = [{p}]>"

    def lay(kind):
        if kind == "F":
            return r.choice(["S(0)", "R"])
        return r.choice(["S(0)", "S(1)", "R"])

    def pin(kind):
        return f" {{shard.layout = {L(lay(kind))}}}" if r.random() < 0.5 else ""

    out = [f"#m = #shard.mesh<shape = [{ranks}]>"]
    helpers = []  # (name, [result kinds])
    counter = [0]

    def fresh(prefix):
        counter[0] += 1
        return f"%{prefix}{counter[0]}"

    def view(body, v, kind, want):
        """A view of `v` (of `kind`) as `want`, or None."""
        if kind == "T" and want == "V":
            w = fresh("s")
            off = r.choice([0, H])
            body.append(f"{w} = tensor.extract_slice {v}[{off}, 0] [{H}, {N}] [1, 1] : {T} to {V}")
            return w
        if kind == "T" and want == "F":
            w = fresh("c")
            body.append(f"{w} = tensor.collapse_shape {v} [[0, 1]] : {T} into {F}")
            return w
        if kind == "F" and want == "T":
            w = fresh("e")
            body.append(f"{w} = tensor.expand_shape {v} [[0, 1]] output_shape [{N}, {N}] : {F} into {T}")
            return w
        return None

    def compute(body, pool, kind):
        """A new value of `kind` from the pool (elementwise)."""
        same = [v for v, k in pool if k == kind]
        if not same:
            return None
        a, b = r.choice(same), r.choice(same)
        w = fresh("v")
        op = r.choice(["addf", "subf", "mulf"])
        body.append(f"{w} = arith.{op} {a}, {b} : {types[kind]}")
        return w

    def constant(body, kind):
        w = fresh("k")
        body.append(f"{w} = arith.constant dense<{r.randint(1, 4)}.0> : {types[kind]}")
        return w

    def call(body, pool):
        """Calls an earlier helper whose arguments the pool has."""
        if not helpers:
            return []
        name, params, results = r.choice(helpers)
        args = []
        for kind in params:
            cands = [v for v, k in pool if k == kind]
            if not cands:
                return []
            args.append(r.choice(cands))
        ts = ", ".join(types[k] for k in results)
        base = fresh("m")
        body.append(f"{base}:{len(results)} = func.call @{name}({', '.join(args)}) : ({', '.join(types[k] for k in params)}) -> ({ts})")
        return [(f"{base}#{i}", k) for i, k in enumerate(results)]

    def body_of(params, nresults, entry):
        """A function body: values from arguments, views, computations,
        constants and calls; in-place writes on some; returns `nresults`."""
        body = []
        pool = [(f"%x{i}", k) for i, k in enumerate(params)]
        kinds = ["view", "view", "compute", "const", "call", "call", "write", "write"]
        if loops:
            kinds.append("loop")
        if entry:
            kinds += ["call", "call", "write", "callwrite", "callwrite"]
        else:
            kinds += ["pair", "pair"]
        returned = []  # values this body means to return
        for _ in range(r.randint(4, 9) if entry else r.randint(2, 6)):
            what = r.choice(kinds)
            if what == "view":
                v, k = r.choice(pool)
                want = r.choice(["T", "V", "F"])
                w = view(body, v, k, want)
                if w:
                    pool.append((w, want))
            elif what == "compute":
                kind = r.choice(["T", "V", "F"])
                w = compute(body, pool, kind)
                if w:
                    pool.append((w, kind))
            elif what == "const":
                kind = r.choice(["T", "V", "F"])
                pool.append((constant(body, kind), kind))
            elif what == "call":
                pool.extend(call(body, pool))
            elif what == "callwrite":
                # A call, then an in-place write on one of its results while
                # the others stay to be returned.
                results = call(body, pool)
                pool.extend(results)
                if results:
                    v, k = r.choice(results)
                    w = fresh("w")
                    body.append(f"{w} = arith.addf {v}, {v} : {types[k]}")
                    pool.append((w, k))
                    returned += [x for x in results if x[0] != v]
            elif what == "loop":
                # A loop carrying a value (and maybe a view of it) through
                # iterations that compute on it, call a helper or write in
                # place; its results join the pool.
                v, k = r.choice(pool)
                it, res = fresh("it"), fresh("l")
                lb, ub = fresh("lb"), fresh("ub")
                body.append(f"{lb} = arith.constant 0 : index")
                body.append(f"{ub} = arith.constant {r.randint(1, 3)} : index")
                step = fresh("st")
                body.append(f"{step} = arith.constant 1 : index")
                body.append(f"{res} = scf.for {fresh('i')} = {lb} to {ub} step {step} iter_args({it} = {v}) -> ({types[k]}) {{")
                inner = []
                y = compute(inner, [(it, k)] + pool, k)
                z = fresh("w")
                inner.append(f"{z} = arith.addf {y or it}, {it} : {types[k]}")
                body += ["  " + line for line in inner]
                body.append(f"  scf.yield {z} : {types[k]}")
                body.append("}")
                pool.append((res, k))
            elif what == "pair":
                # A value computed here and a view of it, both returned.
                kind = r.choice(["T", "T", "F"])
                w = compute(body, pool, kind) or constant(body, kind)
                want = {"T": r.choice(["V", "F"]), "F": "T"}[kind]
                u = view(body, w, kind, want)
                pool += [(w, kind), (u, want)]
                returned += r.sample([(w, kind), (u, want)], 2)
            else:
                # In place: the first operand, when nothing later reads it
                # (bufferization decides), is overwritten.
                v, k = r.choice(pool[-3:] if r.random() < 0.6 else pool)
                w = fresh("w")
                sharding = (" {shard.sharding = #shard.sharding<mesh = #m, loops = [-]>}"
                            if k != "F" and r.random() < 0.5 else "")
                body.append(f"{w} = arith.addf {v}, {v}{sharding} : {types[k]}")
                pool.append((w, k))
        rets = [r.choice(pool) for _ in range(nresults)]
        # Repeats and the latest values are likelier.
        if len(pool) > 1 and r.random() < 0.5:
            rets[-1] = pool[-1]
        rets = (returned + rets)[:max(nresults, min(len(returned), 4))]
        return body, rets

    for h in range(r.randint(2, 4)):
        name = f"h{h}"
        params = [r.choice(["T", "V", "F"]) for _ in range(r.randint(1, 2))]
        body, rets = body_of(params, r.randint(1, 3), False)
        sig = ", ".join(f"%x{i}: {types[k]}{pin(k)}" for i, k in enumerate(params))
        res = ", ".join(types[k] + pin(k) for _, k in rets)
        out.append(f"func.func private @{name}({sig}) -> ({res}) {{")
        out += ["  " + line for line in body]
        out.append(f"  return {', '.join(v for v, _ in rets)} : {', '.join(types[k] for _, k in rets)}")
        out.append("}")
        helpers.append((name, params, [k for _, k in rets]))

    params = ["T", "T"]
    body, rets = body_of(params, r.randint(2, 4), True)
    sig = ", ".join(f"%x{i}: {T} {{shard.layout = {L(lay('T'))}}}" for i in range(2))
    res = ", ".join(types[k] + f" {{shard.layout = {L(lay(k))}}}" for _, k in rets)
    out.append(f"func.func @main({sig}) -> ({res}) {{")
    out += ["  " + line for line in body]
    out.append(f"  return {', '.join(v for v, _ in rets)} : {', '.join(types[k] for _, k in rets)}")
    out.append("}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]),
              len(sys.argv) > 3 and sys.argv[3] == "loops"), end="")
