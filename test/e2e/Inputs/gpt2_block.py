"""Prints a GPT-2 block at any size, in the form of e2e/model-gpt2-block.mlir
(torch-mlir's linalg-on-tensors output for HF's GPT2Block: layer norms as
reductions, aten.linear as a transposed weight times the activations plus
a bias, the fused q|k|v projection split by a head reshape and slices, the
causal mask a constant selected into the scaled scores, linalg.softmax,
gelu_new, two residuals), with Megatron's layouts pinned on a 1-D mesh of
RANKS devices: the fused q|k|v weight head-major and cut by rows, like
c_fc; attn.c_proj and mlp.c_proj cut by columns; everything else
replicated.

Usage: gpt2_block.py BATCH SEQ HEADS HEAD_DIM RANKS
(hidden E = HEADS * HEAD_DIM, MLP 4E; GPT-2 small: 12 heads of 64.)
"""
import sys

B, S, H, D, N = (int(x) for x in sys.argv[1:6])
E, F, T = H * D, 4 * H * D, B * S
E3, D3 = 3 * E, 3 * D
mask = ", ".join("[" + ", ".join("true" if j <= i else "false"
                                  for j in range(S)) + "]" for i in range(S))


def t(*dims, ty="f32"):
    return "tensor<" + "x".join(str(d) for d in dims) + f"x{ty}>"


def linear(out, src, w, bias, n, k, m):
    """aten.linear: `src` [n, k] times `w` [m, k] transposed plus `bias`."""
    return f"""  %{out}_wt_e = tensor.empty() : {t(k, m)}
  %{out}_wt = linalg.transpose ins(%{w} : {t(m, k)}) outs(%{out}_wt_e : {t(k, m)}) permutation = [1, 0]
  %{out}_e = tensor.empty() : {t(n, m)}
  %{out}_z = linalg.fill ins(%zero : f32) outs(%{out}_e : {t(n, m)}) -> {t(n, m)}
  %{out}_mm = linalg.matmul ins(%{src}, %{out}_wt : {t(n, k)}, {t(k, m)}) outs(%{out}_z : {t(n, m)}) -> {t(n, m)}
  %{out} = linalg.generic {{indexing_maps = [#x2, #c2, #x2], iterator_types = ["parallel", "parallel"]}} ins(%{out}_mm, %{bias} : {t(n, m)}, {t(m)}) outs(%{out}_e : {t(n, m)}) {{
  ^bb0(%a: f32, %bi: f32, %o: f32):
    %s = arith.addf %a, %bi : f32
    linalg.yield %s : f32
  }} -> {t(n, m)}
"""


def layer_norm(out, src, g, b):
    """Layer norm over the hidden dim of `src` [B, S, E], as reductions."""
    return f"""  %{out}_e1 = tensor.empty() : {t(B, S)}
  %{out}_z = linalg.fill ins(%zero : f32) outs(%{out}_e1 : {t(B, S)}) -> {t(B, S)}
  %{out}_sum = linalg.generic {{indexing_maps = [#x3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%{src} : {t(B, S, E)}) outs(%{out}_z : {t(B, S)}) {{
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  }} -> {t(B, S)}
  %{out}_e = tensor.empty() : {t(B, S, E)}
  %{out}_cen = linalg.generic {{indexing_maps = [#x3, #r3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}} ins(%{src}, %{out}_sum : {t(B, S, E)}, {t(B, S)}) outs(%{out}_e : {t(B, S, E)}) {{
  ^bb0(%in: f32, %sm: f32, %o: f32):
    %mean = arith.divf %sm, %width : f32
    %d = arith.subf %in, %mean : f32
    linalg.yield %d : f32
  }} -> {t(B, S, E)}
  %{out}_sq = linalg.generic {{indexing_maps = [#x3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%{out}_cen : {t(B, S, E)}) outs(%{out}_z : {t(B, S)}) {{
  ^bb0(%in: f32, %acc: f32):
    %p = arith.mulf %in, %in : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }} -> {t(B, S)}
  %{out} = linalg.generic {{indexing_maps = [#x3, #r3, #c3, #c3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}} ins(%{out}_cen, %{out}_sq, %{g}, %{b} : {t(B, S, E)}, {t(B, S)}, {t(E)}, {t(E)}) outs(%{out}_e : {t(B, S, E)}) {{
  ^bb0(%cv: f32, %sv: f32, %gi: f32, %bi: f32, %o: f32):
    %var = arith.divf %sv, %width : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    %nrm = arith.mulf %cv, %r : f32
    %sc = arith.mulf %nrm, %gi : f32
    %y = arith.addf %sc, %bi : f32
    linalg.yield %y : f32
  }} -> {t(B, S, E)}
"""


def add3(out, a, b):
    return f"""  %{out}_e = tensor.empty() : {t(B, S, E)}
  %{out} = linalg.generic {{indexing_maps = [#x3, #x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}} ins(%{a}, %{b} : {t(B, S, E)}, {t(B, S, E)}) outs(%{out}_e : {t(B, S, E)}) {{
  ^bb0(%l: f32, %r: f32, %o: f32):
    %s = arith.addf %l, %r : f32
    linalg.yield %s : f32
  }} -> {t(B, S, E)}
"""


def transpose4(out, src, shape, perm):
    dims = [shape[p] for p in perm]
    return f"""  %{out}_e = tensor.empty() : {t(*dims)}
  %{out} = linalg.transpose ins(%{src} : {t(*shape)}) outs(%{out}_e : {t(*dims)}) permutation = [{", ".join(map(str, perm))}]
"""


body = f"""#m = #shard.mesh<shape = [{N}]>
#R = #shard.placements<mesh = #m, placements = [R]>
#Cols = #shard.placements<mesh = #m, placements = [S(1)]>
#Rows = #shard.placements<mesh = #m, placements = [S(0)]>
#x3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#c3 = affine_map<(d0, d1, d2) -> (d2)>
#x2 = affine_map<(d0, d1) -> (d0, d1)>
#c2 = affine_map<(d0, d1) -> (d1)>
#x4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#st = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#qk_q = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#qk_k = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
#qk_o = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#pv_p = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#pv_v = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
func.func @gpt2_block(%x: {t(B, S, E)} {{shard.layout = #R}},
    %ln1_g: {t(E)} {{shard.layout = #R}}, %ln1_b: {t(E)} {{shard.layout = #R}},
    %w_qkv: {t(E3, E)} {{shard.layout = #Rows}}, %b_qkv: {t(E3)} {{shard.layout = #Rows}},
    %w_o: {t(E, E)} {{shard.layout = #Cols}}, %b_o: {t(E)} {{shard.layout = #R}},
    %ln2_g: {t(E)} {{shard.layout = #R}}, %ln2_b: {t(E)} {{shard.layout = #R}},
    %w_fc: {t(F, E)} {{shard.layout = #Rows}}, %b_fc: {t(F)} {{shard.layout = #Rows}},
    %w_proj: {t(E, F)} {{shard.layout = #Cols}}, %b_proj: {t(E)} {{shard.layout = #R}})
    -> ({t(B, S, E)} {{shard.layout = #R}}) {{
  %zero = arith.constant 0.0 : f32
  %width = arith.constant {E}.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %scale = arith.constant {1.0 / D ** 0.5!r} : f32
  %masked = arith.constant -1.0e+09 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %k0 = arith.constant 0.7978845608 : f32
  %k1 = arith.constant 0.044715 : f32
  %causal = arith.constant dense<[{mask}]> : {t(S, S, ty="i1")}
{layer_norm("ln1", "x", "ln1_g", "ln1_b")}  %h = tensor.collapse_shape %ln1 [[0, 1], [2]] : {t(B, S, E)} into {t(T, E)}
{linear("qkv", "h", "w_qkv", "b_qkv", T, E, E3)}  %qkv4 = tensor.expand_shape %qkv [[0, 1], [2, 3]] output_shape [{B}, {S}, {H}, {D3}] : {t(T, E3)} into {t(B, S, H, D3)}
  %q = tensor.extract_slice %qkv4[0, 0, 0, 0] [{B}, {S}, {H}, {D}] [1, 1, 1, 1] : {t(B, S, H, D3)} to {t(B, S, H, D)}
  %k = tensor.extract_slice %qkv4[0, 0, 0, {D}] [{B}, {S}, {H}, {D}] [1, 1, 1, 1] : {t(B, S, H, D3)} to {t(B, S, H, D)}
  %v = tensor.extract_slice %qkv4[0, 0, 0, {2 * D}] [{B}, {S}, {H}, {D}] [1, 1, 1, 1] : {t(B, S, H, D3)} to {t(B, S, H, D)}
{transpose4("qt", "q", (B, S, H, D), (0, 2, 1, 3))}{transpose4("kt", "k", (B, S, H, D), (0, 2, 3, 1))}{transpose4("vt", "v", (B, S, H, D), (0, 2, 1, 3))}  %es = tensor.empty() : {t(B, H, S, S)}
  %zs = linalg.fill ins(%zero : f32) outs(%es : {t(B, H, S, S)}) -> {t(B, H, S, S)}
  %scores = linalg.generic {{indexing_maps = [#qk_q, #qk_k, #qk_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}} ins(%qt, %kt : {t(B, H, S, D)}, {t(B, H, D, S)}) outs(%zs : {t(B, H, S, S)}) {{
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }} -> {t(B, H, S, S)}
  %logits = linalg.generic {{indexing_maps = [#x4, #st, #x4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%scores, %causal : {t(B, H, S, S)}, {t(S, S, ty="i1")}) outs(%es : {t(B, H, S, S)}) {{
  ^bb0(%sc: f32, %keep: i1, %o: f32):
    %scaled = arith.mulf %sc, %scale : f32
    %l = arith.select %keep, %scaled, %masked : f32
    linalg.yield %l : f32
  }} -> {t(B, H, S, S)}
  %probs = linalg.softmax dimension(3) ins(%logits : {t(B, H, S, S)}) outs(%es : {t(B, H, S, S)}) -> {t(B, H, S, S)}
  %ec = tensor.empty() : {t(B, H, S, D)}
  %zc = linalg.fill ins(%zero : f32) outs(%ec : {t(B, H, S, D)}) -> {t(B, H, S, D)}
  %ctx = linalg.generic {{indexing_maps = [#pv_p, #pv_v, #qk_o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}} ins(%probs, %vt : {t(B, H, S, S)}, {t(B, H, S, D)}) outs(%zc : {t(B, H, S, D)}) {{
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }} -> {t(B, H, S, D)}
{transpose4("ctxt", "ctx", (B, H, S, D), (0, 2, 1, 3))}  %merged = tensor.collapse_shape %ctxt [[0, 1], [2, 3]] : {t(B, S, H, D)} into {t(T, E)}
{linear("attn", "merged", "w_o", "b_o", T, E, E)}  %attn3 = tensor.expand_shape %attn [[0, 1], [2]] output_shape [{B}, {S}, {E}] : {t(T, E)} into {t(B, S, E)}
{add3("res1", "x", "attn3")}{layer_norm("ln2", "res1", "ln2_g", "ln2_b")}  %h2 = tensor.collapse_shape %ln2 [[0, 1], [2]] : {t(B, S, E)} into {t(T, E)}
{linear("fc", "h2", "w_fc", "b_fc", T, E, F)}  %eg = tensor.empty() : {t(T, F)}
  %gelu = linalg.generic {{indexing_maps = [#x2, #x2], iterator_types = ["parallel", "parallel"]}} ins(%fc : {t(T, F)}) outs(%eg : {t(T, F)}) {{
  ^bb0(%a: f32, %o: f32):
    %a2 = arith.mulf %a, %a : f32
    %a3 = arith.mulf %a2, %a : f32
    %t0 = arith.mulf %a3, %k1 : f32
    %t1 = arith.addf %a, %t0 : f32
    %t2 = arith.mulf %t1, %k0 : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %t3, %one : f32
    %t5 = arith.mulf %a, %half : f32
    %g = arith.mulf %t5, %t4 : f32
    linalg.yield %g : f32
  }} -> {t(T, F)}
{linear("proj", "gelu", "w_proj", "b_proj", T, F, E)}  %proj3 = tensor.expand_shape %proj [[0, 1], [2]] output_shape [{B}, {S}, {E}] : {t(T, E)} into {t(B, S, E)}
{add3("res2", "res1", "proj3")}  return %res2 : {t(B, S, E)}
}}
"""
sys.stdout.write(body)
