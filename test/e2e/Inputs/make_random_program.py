"""Random annotated programs for shard-run --check (random-programs-np2.test):
elementwise ops, fills, in-place linalg.generic outs, layout moves, a
matmul, scf.for loops on N x N f32 tensors, with pinned argument and
result layouts on a 1-D mesh. Seeded: the same seed, the same program."""
import random, sys
def gen(seed, n):
    r = random.Random(seed)
    N = r.choice([5, 6])
    T = f"tensor<{N}x{N}xf32>"
    lay = lambda: r.choice(["S(0)", "S(1)", "R"])
    L = lambda p: f"#shard.placements<mesh = #m, placements = [{p}]>"
    lines = [f"#m = #shard.mesh<shape = [{n}]>"]
    nargs = r.choice([1, 2])
    args = ", ".join(f"%a{i}: {T} {{shard.layout = {L(lay())}}}" for i in range(nargs))
    body = []
    pool = [f"%a{i}" for i in range(nargs)]
    k = 0
    matmuls = 0
    for _ in range(r.randint(3, 8)):
        k += 1
        v = f"%v{k}"
        kind = r.choice(["ew", "ew", "cst", "fill", "outs", "move", "move", "mm", "loop"])
        x = r.choice(pool[-3:]); y = r.choice(pool)
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
    rt = ", ".join(f"{T} {{shard.layout = {L(lay())}}}" if r.random() < 0.5 else T for _ in outs)
    lines.append(f"func.func @main({args}) -> ({rt}) {{")
    lines += ["  " + l for l in "\n".join(body).split("\n")]
    lines.append(f"  return {', '.join(outs)} : {', '.join([T]*len(outs))}")
    lines.append("}")
    return "\n".join(lines) + "\n"
if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2])), end="")
