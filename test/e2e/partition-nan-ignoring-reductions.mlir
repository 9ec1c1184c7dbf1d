// Max and min reductions that ignore NaN (tosa.reduce_max/min with
// nan_mode IGNORE; linalg reductions combined by arith.maxnumf/minnumf)
// are not cut along their reduced dim: the runtime's max and min propagate
// NaN (as arith.maximumf and minimumf), so a rank whose block of a row was
// all NaN made every rank's answer NaN (found by an adversarial sweep: a
// MISMATCH on every rank of 4). Their inputs here are cut along that dim
// with the first two columns NaN, on 2, 3 and 4 ranks: the reduction runs
// on whole rows, every element right. Propagating ones (maximumf, the
// TOSA default) are still cut.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/4/g' %s | shard-opt -shard-print-sharding-rules | FileCheck %s --check-prefix=RULE
// RUN: for n in 2 3 4; do \
// RUN:   sed -e "s/@N@/$n/g" %s > %t.$n.mlir; \
// RUN:   %mpirun -np $n %shard-run %t.$n.mlir --entry tosa_max_ignore,tosa_min_ignore,maxnum,minnum,maximum --check > %t.out.$n 2>&1; \
// RUN: done
// RUN: not grep -e MISMATCH -e error %t.out.2 %t.out.3 %t.out.4
// RUN: cat %t.out.2 %t.out.3 %t.out.4 | grep -c ": OK" | FileCheck %s --check-prefix=OK
// Five entries on 2, 3 and 4 ranks:
// OK: 45
// RULE: tosa.reduce_max {{.*}}unshardable={d1: "its nan_mode IGNORE skips NaN, which the runtime's max and min propagate"}
// RULE: tosa.reduce_min {{.*}}unshardable={d1: "its nan_mode IGNORE skips NaN, which the runtime's max and min propagate"}
// RULE: linalg.generic {{.*}}unshardable={d1: "result #0 is combined by a max or min that ignores NaN (maxnumf, minnumf), which the runtime's propagates"}
// RULE: linalg.generic {{.*}}unshardable={d1: "result #0 is combined by a max or min that ignores NaN (maxnumf, minnumf), which the runtime's propagates"}

#m = #shard.mesh<shape = [@N@]>
#cut = #shard.placements<mesh = #m, placements = [S(1)]>
#r = #shard.placements<mesh = #m, placements = [R]>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Columns 0 and 1 made NaN.
func.func private @nan_first_columns(%x: tensor<3x9xf32>) -> tensor<3x9xf32> {
  %e = tensor.empty() : tensor<3x9xf32>
  %nan = arith.constant 0x7FC00000 : f32
  %two = arith.constant 2 : index
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x9xf32>) outs(%e : tensor<3x9xf32>) {
    ^bb0(%a: f32, %b: f32):
      %i = linalg.index 1 : index
      %first = arith.cmpi ult, %i, %two : index
      %s = arith.select %first, %nan, %a : f32
      linalg.yield %s : f32
  } -> tensor<3x9xf32>
  return %y : tensor<3x9xf32>
}

func.func @tosa_max_ignore(%x: tensor<3x9xf32> {shard.layout = #cut}) -> (tensor<3x1xf32> {shard.layout = #r}) {
  %y = func.call @nan_first_columns(%x) : (tensor<3x9xf32>) -> tensor<3x9xf32>
  %c = shard.constraint %y layout #cut : tensor<3x9xf32>
  %r = tosa.reduce_max %c {axis = 1 : i32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<3x9xf32>) -> tensor<3x1xf32>
  return %r : tensor<3x1xf32>
}

func.func @tosa_min_ignore(%x: tensor<3x9xf32> {shard.layout = #cut}) -> (tensor<3x1xf32> {shard.layout = #r}) {
  %y = func.call @nan_first_columns(%x) : (tensor<3x9xf32>) -> tensor<3x9xf32>
  %c = shard.constraint %y layout #cut : tensor<3x9xf32>
  %r = tosa.reduce_min %c {axis = 1 : i32, nan_mode = #tosa.nan_mode<IGNORE>} : (tensor<3x9xf32>) -> tensor<3x1xf32>
  return %r : tensor<3x1xf32>
}

func.func @maxnum(%x: tensor<3x9xf32> {shard.layout = #cut}) -> (tensor<3xf32> {shard.layout = #r}) {
  %y = func.call @nan_first_columns(%x) : (tensor<3x9xf32>) -> tensor<3x9xf32>
  %c = shard.constraint %y layout #cut : tensor<3x9xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3xf32>
  %i = linalg.fill ins(%ninf : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<3x9xf32>) outs(%i : tensor<3xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %m = arith.maxnumf %a, %acc : f32
      linalg.yield %m : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func @minnum(%x: tensor<3x9xf32> {shard.layout = #cut}) -> (tensor<3xf32> {shard.layout = #r}) {
  %y = func.call @nan_first_columns(%x) : (tensor<3x9xf32>) -> tensor<3x9xf32>
  %c = shard.constraint %y layout #cut : tensor<3x9xf32>
  %inf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<3xf32>
  %i = linalg.fill ins(%inf : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<3x9xf32>) outs(%i : tensor<3xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %m = arith.minnumf %a, %acc : f32
      linalg.yield %m : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// Propagating NaN, as the runtime does: cut, every answer NaN alike.
func.func @maximum(%x: tensor<3x9xf32> {shard.layout = #cut}) -> (tensor<3xf32> {shard.layout = #r}) {
  %y = func.call @nan_first_columns(%x) : (tensor<3x9xf32>) -> tensor<3x9xf32>
  %c = shard.constraint %y layout #cut : tensor<3x9xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3xf32>
  %i = linalg.fill ins(%ninf : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<3x9xf32>) outs(%i : tensor<3xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %m = arith.maximumf %a, %acc : f32
      linalg.yield %m : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
