#!/usr/bin/env python3
"""Whole-program sharding at scale: a module of N MLP blocks (each a matmul
with a column-sharded weight, a ReLU, a matmul with a row-sharded weight:
4 compute ops, plus tensor.empty and fills) on a 2x4 mesh (dp, tp), batch
sharded on dp. With --model transformer, N attention-shaped blocks of 10
ops each with reshapes and slices: a fused q|k|v matmul (column-sharded,
head-major), an expand_shape into 8 heads, three extract_slices (q, k, v),
two elementwise ops standing in for attention, a collapse_shape, the
row-sharded output matmul and the residual add (heads stay cut on tp:
nothing moves but the output's reduction). Further shapes of the same MLP
block (a matmul with a column-sharded weight, a max, a matmul with a
row-sharded weight, a residual add; 4 compute ops): --model fanout, every
block reads the argument (a value of N uses that is no constant) and the
blocks' outputs are summed in a chain; --model loops, each block inside an
scf.for of 2 trips carrying the running tensor; --model calls, the blocks
are N calls of one callee without layouts (specialised per layout of its
calls); --model callees, N calls of N distinct callees; --model generic,
linalg.generic blocks of a bias add (a broadcast), a row sum (a reduction)
and its subtraction (3 compute ops). Times shard-opt -shard-propagate -shard-spmd-partition (parse,
both passes, print) and, with --mlir-timing, each pass alone; medians of
--runs runs, and the time per compute op, which stays flat when the work is
linear.

  python3 bench/partition_scale.py [--bin build/bin] [--blocks 250,2500,25000]
                                   [--runs 3] [--distinct-weights]
                                   [--hoisted-zeros] [--pinned-weights]
                                   [--model mlp|transformer|fanout|loops|
                                            calls|callees|generic]
                                   [--upstream /usr/lib/llvm-22/bin/mlir-opt
                                    [--no-verifier]]

With --upstream, the same Megatron MLP chain (linalg.matmul, linalg.max,
linalg.matmul, linalg.add per block; batch on dp, weights on tp of a 2x4
mesh) is also run through upstream MLIR's sharding-propagation and
shard-partition (its shard.grid / shard.sharding form), and the ratios of
time and peak memory (shardc / upstream; below 1: shardc is cheaper) are
printed per size; "greedy" is shardc with -shard-propagate=search=greedy
(op by op, as upstream's propagation is: no whole-function search), the
floor of what the passes cost without the search, MLIR's verifier after
each pass included (it verifies every linalg op again, building its
indexing maps: on 150-600 ops, a third of upstream's pass time and 45% of
greedy's); --no-verifier runs both tools without it (-verify-each=0), to
compare the passes' own work.

With --dynamic-batch the batch is of dynamic size (tensor<?x32xf32>, as
torch-mlir emits it) and stays cut on dp: every tensor.empty is sized by
tensor.dim (of %x, or of the expanded heads for the transformer's slices),
and the partition sizes each rank's blocks from its own block of %x.

With --distinct-weights every block's weights are function arguments of
their own (a function of 2N + 1 arguments); peak memory stays linear.
With --hoisted-zeros every block reads two zero constants made once at the
top (as torch-mlir hoists them), and with --pinned-weights each block pins
its weights with shard.constraint before reading them: the whole-function
search then weighs thousands of uses of one value.
"""
import argparse
import os
import re
import statistics
import subprocess
import tempfile
import time

HEAD = """#m = #shard.mesh<shape = [2, 4], axes = ["dp", "tp"]>
#x = #shard.placements<mesh = #m, placements = [S(0), R]>
#w1 = #shard.placements<mesh = #m, placements = [R, S(1)]>
#w2 = #shard.placements<mesh = #m, placements = [R, S(0)]>
func.func @mlp(%x: tensor<64x32xf32> {shard.layout = #x},
               %w1: tensor<32x48xf32> {shard.layout = #w1},
               %w2: tensor<48x32xf32> {shard.layout = #w2})
    -> (tensor<64x32xf32> {shard.layout = #x}) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x48xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %e2 = tensor.empty() : tensor<64x32xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x32xf32>) -> tensor<64x32xf32>
"""
BLOCK = """  %h{i} = linalg.matmul ins({prev}, %w1 : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f1 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %a{i} = arith.maximumf %h{i}, %f1 : tensor<64x48xf32>
  %y{i} = linalg.matmul ins(%a{i}, %w2 : tensor<64x48xf32>, tensor<48x32xf32>) outs(%f2 : tensor<64x32xf32>) -> tensor<64x32xf32>
  %z{i} = arith.addf %y{i}, {prev} : tensor<64x32xf32>
"""


TRANSFORMER_HEAD = """#m = #shard.mesh<shape = [2, 4], axes = ["dp", "tp"]>
#x = #shard.placements<mesh = #m, placements = [S(0), R]>
#wqkv = #shard.placements<mesh = #m, placements = [R, S(1)]>
#wo = #shard.placements<mesh = #m, placements = [R, S(0)]>
func.func @blocks(%x: tensor<64x32xf32> {shard.layout = #x},
                  %wqkv: tensor<32x96xf32> {shard.layout = #wqkv},
                  %wo: tensor<32x32xf32> {shard.layout = #wo})
    -> (tensor<64x32xf32> {shard.layout = #x}) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x96xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x96xf32>) -> tensor<64x96xf32>
  %e2 = tensor.empty() : tensor<64x32xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x32xf32>) -> tensor<64x32xf32>
"""
TRANSFORMER_BLOCK = """  %p{i} = linalg.matmul ins({prev}, %wqkv : tensor<64x32xf32>, tensor<32x96xf32>) outs(%f1 : tensor<64x96xf32>) -> tensor<64x96xf32>
  %h{i} = tensor.expand_shape %p{i} [[0], [1, 2]] output_shape [64, 8, 12] : tensor<64x96xf32> into tensor<64x8x12xf32>
  %q{i} = tensor.extract_slice %h{i}[0, 0, 0] [64, 8, 4] [1, 1, 1] : tensor<64x8x12xf32> to tensor<64x8x4xf32>
  %k{i} = tensor.extract_slice %h{i}[0, 0, 4] [64, 8, 4] [1, 1, 1] : tensor<64x8x12xf32> to tensor<64x8x4xf32>
  %v{i} = tensor.extract_slice %h{i}[0, 0, 8] [64, 8, 4] [1, 1, 1] : tensor<64x8x12xf32> to tensor<64x8x4xf32>
  %s{i} = arith.mulf %q{i}, %k{i} : tensor<64x8x4xf32>
  %t{i} = arith.addf %s{i}, %v{i} : tensor<64x8x4xf32>
  %c{i} = tensor.collapse_shape %t{i} [[0], [1, 2]] : tensor<64x8x4xf32> into tensor<64x32xf32>
  %o{i} = linalg.matmul ins(%c{i}, %wo : tensor<64x32xf32>, tensor<32x32xf32>) outs(%f2 : tensor<64x32xf32>) -> tensor<64x32xf32>
  %z{i} = arith.addf %o{i}, {prev} : tensor<64x32xf32>
"""


def chained(parts, block, blocks):
    """`parts`, then N copies of `block` (formatted with i and prev), each
    reading the one before it (the first reads %x), then the return."""
    prev = "%x"
    for i in range(blocks):
        parts.append(block.format(i=i, prev=prev))
        prev = f"%z{i}"
    parts.append(f"  return {prev} : tensor<64x32xf32>\n}}\n")
    return "".join(parts)


def transformer_module(blocks):
    """N attention-shaped blocks of 10 ops each, sharing their weights."""
    return chained([TRANSFORMER_HEAD], TRANSFORMER_BLOCK, blocks)


SHAPE_HEAD = """#m = #shard.mesh<shape = [2, 4], axes = ["dp", "tp"]>
#x = #shard.placements<mesh = #m, placements = [S(0), R]>
#w1 = #shard.placements<mesh = #m, placements = [R, S(1)]>
#w2 = #shard.placements<mesh = #m, placements = [R, S(0)]>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#col = affine_map<(d0, d1) -> (d0)>
"""
SHAPE_SIGNATURE = """func.func @{name}(%x: tensor<64x32xf32> {{shard.layout = #x}},
    %w1: tensor<32x48xf32> {{shard.layout = #w1}},
    %w2: tensor<48x32xf32> {{shard.layout = #w2}})
    -> (tensor<64x32xf32> {{shard.layout = #x}}) {{
  %zero = arith.constant 0.0 : f32
"""
SHAPE_BLOCK = """  %e1_{i} = tensor.empty() : tensor<64x48xf32>
  %f1_{i} = linalg.fill ins(%zero : f32) outs(%e1_{i} : tensor<64x48xf32>) -> tensor<64x48xf32>
  %h{i} = linalg.matmul ins({prev}, {w1} : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f1_{i} : tensor<64x48xf32>) -> tensor<64x48xf32>
  %a{i} = arith.maximumf %h{i}, %f1_{i} : tensor<64x48xf32>
  %e2_{i} = tensor.empty() : tensor<64x32xf32>
  %f2_{i} = linalg.fill ins(%zero : f32) outs(%e2_{i} : tensor<64x32xf32>) -> tensor<64x32xf32>
  %y{i} = linalg.matmul ins(%a{i}, {w2} : tensor<64x48xf32>, tensor<48x32xf32>) outs(%f2_{i} : tensor<64x32xf32>) -> tensor<64x32xf32>
  %z{i} = arith.addf %y{i}, {residual} : tensor<64x32xf32>
"""
GENERIC_BLOCK = """  %e{i} = tensor.empty() : tensor<64x32xf32>
  %g{i} = linalg.generic {{indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}} ins({prev}, %b : tensor<64x32xf32>, tensor<32xf32>) outs(%e{i} : tensor<64x32xf32>) {{
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  }} -> tensor<64x32xf32>
  %r{i} = tensor.empty() : tensor<64xf32>
  %rf{i} = linalg.fill ins(%zero : f32) outs(%r{i} : tensor<64xf32>) -> tensor<64xf32>
  %sum{i} = linalg.generic {{indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]}} ins(%g{i} : tensor<64x32xf32>) outs(%rf{i} : tensor<64xf32>) {{
  ^bb0(%p: f32, %o: f32):
    %s = arith.addf %p, %o : f32
    linalg.yield %s : f32
  }} -> tensor<64xf32>
  %z{i} = linalg.generic {{indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}} ins(%g{i}, %sum{i} : tensor<64x32xf32>, tensor<64xf32>) outs(%e{i} : tensor<64x32xf32>) {{
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.subf %p, %q : f32
    linalg.yield %s : f32
  }} -> tensor<64x32xf32>
"""


def shape_module(shape, blocks):
    """N MLP blocks (N generic blocks) in the program shape `shape`."""
    parts = [SHAPE_HEAD]
    if shape == "generic":
        parts.append(SHAPE_SIGNATURE.format(name="blocks").replace(
            "%w1: tensor<32x48xf32> {shard.layout = #w1},\n"
            "    %w2: tensor<48x32xf32> {shard.layout = #w2})",
            "%b: tensor<32xf32>)"))
        return chained(parts, GENERIC_BLOCK, blocks)
    if shape in ("calls", "callees"):
        for c in range(blocks if shape == "callees" else 1):
            parts.append(
                f"func.func private @block{c}(%t: tensor<64x32xf32>, "
                "%w1: tensor<32x48xf32>, %w2: tensor<48x32xf32>) -> "
                "tensor<64x32xf32> {\n  %zero = arith.constant 0.0 : f32\n" +
                SHAPE_BLOCK.format(i=0, prev="%t", w1="%w1", w2="%w2",
                                   residual="%t") +
                "  return %z0 : tensor<64x32xf32>\n}\n")
    parts.append(SHAPE_SIGNATURE.format(name="blocks"))
    if shape == "loops":
        parts.append("  %c0 = arith.constant 0 : index\n"
                     "  %c1 = arith.constant 1 : index\n"
                     "  %c2 = arith.constant 2 : index\n")
    prev, total = "%x", "%x"
    for i in range(blocks):
        if shape in ("calls", "callees"):
            callee = i if shape == "callees" else 0
            parts.append(
                f"  %c{i} = func.call @block{callee}({prev}, %w1, %w2) : "
                "(tensor<64x32xf32>, tensor<32x48xf32>, tensor<48x32xf32>)"
                " -> tensor<64x32xf32>\n")
            prev = f"%c{i}"
        elif shape == "loops":
            body = SHAPE_BLOCK.format(i=i, prev=f"%t{i}", w1="%w1",
                                      w2="%w2", residual=f"%t{i}")
            parts.append(
                f"  %l{i} = scf.for %iv{i} = %c0 to %c2 step %c1 "
                f"iter_args(%t{i} = {prev}) -> (tensor<64x32xf32>) {{\n" +
                body.replace("  %", "    %") +
                f"    scf.yield %z{i} : tensor<64x32xf32>\n  }}\n")
            prev = f"%l{i}"
        else:  # fanout: every block reads %x, the outputs summed
            parts.append(SHAPE_BLOCK.format(i=i, prev="%x", w1="%w1",
                                            w2="%w2", residual=total))
            total = f"%z{i}"
            prev = total
    parts.append(f"  return {prev} : tensor<64x32xf32>\n}}\n")
    return "".join(parts)


SAME_BLOCK = """  %h{i} = linalg.matmul ins({prev}, {w1} : tensor<64x32xf32>, tensor<32x48xf32>) outs(%f1 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %a{i} = linalg.max ins(%h{i}, %f1 : tensor<64x48xf32>, tensor<64x48xf32>) outs(%e1 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %y{i} = linalg.matmul ins(%a{i}, {w2} : tensor<64x48xf32>, tensor<48x32xf32>) outs(%f2 : tensor<64x32xf32>) -> tensor<64x32xf32>
  %z{i} = linalg.add ins(%y{i}, {prev} : tensor<64x32xf32>, tensor<64x32xf32>) outs(%e2 : tensor<64x32xf32>) -> tensor<64x32xf32>
"""
UPSTREAM_HEAD = """shard.grid @grid(shape = 2x4)
func.func @mlp(%x: tensor<64x32xf32>, %w1: tensor<32x48xf32>, %w2: tensor<48x32xf32>) -> tensor<64x32xf32> {
  %sx = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %sw1 = shard.sharding @grid split_axes = [[], [1]] : !shard.sharding
  %sw2 = shard.sharding @grid split_axes = [[1]] : !shard.sharding
  %x0 = shard.shard %x to %sx : tensor<64x32xf32>
  %w1s = shard.shard %w1 to %sw1 : tensor<32x48xf32>
  %w2s = shard.shard %w2 to %sw2 : tensor<48x32xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x48xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %e2 = tensor.empty() : tensor<64x32xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x32xf32>) -> tensor<64x32xf32>
"""


def same_chain(blocks, upstream):
    """The Megatron MLP chain in linalg named ops, annotated for shardc
    (shard.layout) or for upstream MLIR (shard.grid, shard.shard)."""
    parts = [UPSTREAM_HEAD if upstream else HEAD]
    prev = "%x0" if upstream else "%x"
    w1, w2 = ("%w1s", "%w2s") if upstream else ("%w1", "%w2")
    for i in range(blocks):
        parts.append(SAME_BLOCK.format(i=i, prev=prev, w1=w1, w2=w2))
        prev = f"%z{i}"
    if upstream:
        parts.append(f"  %r = shard.shard {prev} to %sx annotate_for_users"
                     " : tensor<64x32xf32>\n  return %r : tensor<64x32xf32>"
                     "\n}\n")
    else:
        parts.append(f"  return {prev} : tensor<64x32xf32>\n}}\n")
    return "".join(parts)


def measure(cmd, runs, names):
    """Medians of the wall time, the --mlir-timing lines `names` and the peak
    resident memory (MiB) of `runs` runs of `cmd`."""
    walls, peaks = [], []
    timings = {n: [] for n in names}
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - start)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(" ".join(cmd) + " failed:\n" + err[-2000:])
        peaks.append(usage.ru_maxrss / 1024)
        t = dict((m.group(2), float(m.group(1))) for m in re.finditer(
            r"^\s*([0-9.]+) \([ 0-9.]+%\)\s+(\S+)$", err, re.M))
        for n in names:
            timings[n].append(t.get(n, float("nan")))
    return (statistics.median(walls), statistics.median(peaks),
            {n: statistics.median(v) for n, v in timings.items()})


def compare_upstream(a, opt):
    # MLIR verifies the IR after each pass, inside the pass's time: both
    # tools' linalg ops are verified alike (their indexing maps built again
    # each time); --no-verifier leaves it out of both, the passes' own work.
    verify = ["-verify-each=0"] if a.no_verifier else []
    print("the same Megatron MLP chain: shardc (-shard-propagate "
          "-shard-spmd-partition) and upstream (sharding-propagation, "
          "shard-partition); medians of %d runs" % a.runs)
    print(f"{'ops':>8} {'tool':>9} {'whole run':>10} {'passes':>8}"
          f" {'peak MiB':>9}")
    for blocks in [int(b) for b in a.blocks.split(",")]:
        ops = 4 * blocks
        results = {}
        with tempfile.TemporaryDirectory() as tmp:
            for tool in ["shardc", "greedy", "upstream"]:
                path = os.path.join(tmp, tool + ".mlir")
                with open(path, "w") as f:
                    f.write(same_chain(blocks, tool == "upstream"))
                if tool != "upstream":
                    cmd = [opt, path, "-shard-propagate" +
                           ("=search=greedy" if tool == "greedy" else ""),
                           "-shard-spmd-partition", "--mlir-timing", "-o",
                           os.devnull] + verify
                    names = ["ShardPropagate", "ShardPartition"]
                else:
                    cmd = [a.upstream, path, "--pass-pipeline=builtin.module("
                           "func.func(sharding-propagation,shard-partition))",
                           "--mlir-timing", "-o", os.devnull] + verify
                    names = ["ShardingPropagation", "Partition"]
                wall, peak, t = measure(cmd, a.runs, names)
                passes = sum(t.values())
                results[tool] = (wall, passes, peak)
                print(f"{ops:>8} {tool:>9} {wall:>9.3f}s {passes:>7.3f}s"
                      f" {peak:>9.0f}")
        u = results["upstream"]
        for tool in ["shardc", "greedy"]:
            o = results[tool]
            print(f"{ops:>8} {'ratio':>9} {o[0] / u[0]:>10.2f}"
                  f" {o[1] / u[1]:>8.2f} {o[2] / u[2]:>9.2f}   ({tool} /"
                  " upstream)")


def module(blocks, distinct=False, hoisted=False, pinned=False):
    """N blocks; with `distinct`, each block's two weights are arguments of
    their own and carry no layout (propagation writes 2N + 1 argument
    layouts, partition 2N + 1 global types); with `hoisted`, every block
    reads two hoisted zero constants (arith.constant dense<0.0>) where it
    reads fills; with `pinned`, each block pins its weights to their
    layouts (shard.constraint) before it reads them."""
    head = HEAD
    if hoisted:
        head = re.sub(r"  %e1 = .*\n  %f1 = .*\n  %e2 = .*\n  %f2 = .*\n",
                      "  %f1 = arith.constant dense<0.0> : tensor<64x48xf32>\n"
                      "  %f2 = arith.constant dense<0.0> : tensor<64x32xf32>\n",
                      head)
    if distinct:
        args = ",\n               ".join(
            f"%w1_{i}: tensor<32x48xf32>, %w2_{i}: tensor<48x32xf32>"
            for i in range(blocks))
        head = head.replace(
            "%w1: tensor<32x48xf32> {shard.layout = #w1},\n"
            "               %w2: tensor<48x32xf32> {shard.layout = #w2})",
            args + ")")
    parts = [head]
    prev = "%x"
    for i in range(blocks):
        block = BLOCK.format(i=i, prev=prev)
        if distinct:
            block = block.replace("%w1 :", f"%w1_{i} :").replace(
                "%w2 :", f"%w2_{i} :")
        if pinned:
            w1, w2 = (f"%w1_{i}", f"%w2_{i}") if distinct else ("%w1", "%w2")
            block = (f"  %p1_{i} = shard.constraint {w1} layout #w1 :"
                     " tensor<32x48xf32>\n"
                     f"  %p2_{i} = shard.constraint {w2} layout #w2 :"
                     " tensor<48x32xf32>\n" +
                     block.replace(f"{w1} :", f"%p1_{i} :").replace(
                         f"{w2} :", f"%p2_{i} :"))
        parts.append(block)
        prev = f"%z{i}"
    parts.append(f"  return {prev} : tensor<64x32xf32>\n}}\n")
    return "".join(parts)


def dynamic_batch(text):
    """`text` (a module of either model) with its batch of 64 dynamic: the
    tensors' batch dims '?', tensor.empty and expand_shape sized by the
    batch's tensor.dim, each slice of the heads by the heads' own."""
    text = text.replace("tensor<64x", "tensor<?x")
    text = text.replace("tensor.empty() : tensor<?x",
                        "tensor.empty(%b) : tensor<?x")
    text = text.replace("output_shape [64,", "output_shape [%b,")
    text = re.sub(r"(  %h(\d+) = tensor.expand_shape .*\n)",
                  r"\1  %hb\2 = tensor.dim %h\2, %zi : tensor<?x8x12xf32>\n",
                  text)
    text = re.sub(r"(%(?:q|k|v)(\d+) = tensor.extract_slice %h\d+\[[^]]*\]) "
                  r"\[64,", r"\1 [%hb\2,", text)
    return text.replace(
        "  %zero = arith.constant 0.0 : f32\n",
        "  %zero = arith.constant 0.0 : f32\n  %zi = arith.constant 0 : index\n"
        "  %b = tensor.dim %x, %zi : tensor<?x32xf32>\n", 1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default="build/bin")
    p.add_argument("--blocks", default="250,2500,25000")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--distinct-weights", action="store_true",
                   help="every block's weights are arguments of their own")
    p.add_argument("--hoisted-zeros", action="store_true",
                   help="every block reads two hoisted zero constants")
    p.add_argument("--pinned-weights", action="store_true",
                   help="every block pins its weights (shard.constraint)")
    p.add_argument("--model", default="mlp",
                   choices=["mlp", "transformer", "fanout", "loops", "calls",
                            "callees", "generic"])
    p.add_argument("--dynamic-batch", action="store_true",
                   help="a batch of dynamic size, cut on dp")
    p.add_argument("--propagate", default="", metavar="OPTIONS",
                   help="-shard-propagate's options (\"search=whole\", say)")
    p.add_argument("--no-verifier", action="store_true",
                   help="with --upstream: both tools without MLIR's verifier "
                   "after each pass (-verify-each=0)")
    p.add_argument("--upstream", metavar="MLIR_OPT",
                   help="also run upstream MLIR's passes on the same chain")
    a = p.parse_args()
    if a.model != "mlp" and (a.distinct_weights or a.hoisted_zeros or
                              a.pinned_weights):
        p.error("--distinct-weights, --hoisted-zeros and --pinned-weights "
                "are options of --model mlp")
    if a.dynamic_batch and a.model not in ("mlp", "transformer"):
        p.error("--dynamic-batch is an option of --model mlp or transformer")
    opt = os.path.join(a.bin, "shard-opt")
    if a.upstream:
        return compare_upstream(a, opt)
    print(f"{'ops':>8} {'whole run':>10} {'propagate':>10} {'partition':>10}"
          f" {'us/op':>7} {'peak MiB':>9}")
    for blocks in [int(b) for b in a.blocks.split(",")]:
        transformer = a.model == "transformer"
        shaped = a.model not in ("mlp", "transformer")
        ops = (10 if transformer else 3 if a.model == "generic" else 4) * blocks
        with tempfile.NamedTemporaryFile("w", suffix=".mlir",
                                         delete=False) as f:
            text = (transformer_module(blocks) if transformer else
                    shape_module(a.model, blocks) if shaped else
                    module(blocks, a.distinct_weights, a.hoisted_zeros,
                           a.pinned_weights))
            f.write(dynamic_batch(text) if a.dynamic_batch else text)
            path = f.name
        walls, props, parts, peaks = [], [], [], []
        try:
            for _ in range(a.runs):
                start = time.perf_counter()
                proc = subprocess.Popen(
                    [opt, path,
                     f"-shard-propagate={a.propagate}" if a.propagate
                     else "-shard-propagate", "-shard-spmd-partition",
                     "--mlir-timing", "-o", os.devnull],
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                    text=True)
                err = proc.stderr.read()
                _, status, usage = os.wait4(proc.pid, 0)
                walls.append(time.perf_counter() - start)
                if os.waitstatus_to_exitcode(status) != 0:
                    raise SystemExit(err[-2000:])
                peaks.append(usage.ru_maxrss / 1024)
                r = argparse.Namespace(stderr=err)
                t = dict(
                    (m.group(2), float(m.group(1))) for m in re.finditer(
                        r"^\s*([0-9.]+) \([ 0-9.]+%\)\s+(\S+)$", r.stderr,
                        re.M))
                props.append(t.get("ShardPropagate", float("nan")))
                parts.append(t.get("ShardPartition", float("nan")))
        finally:
            os.unlink(path)
        wall = statistics.median(walls)
        print(f"{ops:>8} {wall:>9.3f}s {statistics.median(props):>9.3f}s"
              f" {statistics.median(parts):>9.3f}s"
              f" {wall / ops * 1e6:>7.1f} {statistics.median(peaks):>9.0f}")


if __name__ == "__main__":
    main()
