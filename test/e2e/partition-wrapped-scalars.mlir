// Payloads that wrap scalars in tensors of one element and read them back,
// as StableHLO's and MHLO's reductions lowered to linalg do before
// canonicalization (IREE's TensorFlow import: tensor.from_elements of each
// block argument, tensor.extract of it, the combine, and the same around
// its result), and payloads that make tensors of their own. Each element's
// tensors are its own: they are computed where the element is held, and
// the rule reads through the wraps (the max and the sum are the
// reductions' combiners).
// - @softmax, its dim cut: the cheapest plan (alpha-us=0) moves only the
//   rows' max and sum, each an all_reduce of 4 f32 (a ring: 2 (4 - c)
//   elements per rank, c its chunk): 2 x 16 B on 2 ranks, 2 x 16 B and
//   2 x 24 B on 3 (chunks 2, 1, 1), 2 x 24 B on 4. With 2 us per message
//   (the default) gathering the 160 B row block once is cheaper on 2 ranks.
// - @parity: a payload picks its element or its negation from a tensor of
//   two it makes, by its column's parity (linalg.index: the global column
//   on every rank, uneven blocks of 4, 4, 2 and 3, 3, 3, 1): nothing moves.
// - @captured: a payload slices a table cut outside it: the rule reads it
//   whole (gathered: 48 B on 2 ranks).
// - @nested_index: a payload runs a linalg.generic of its own, whose
//   linalg.index reads that op's loop, not the cut rows' (made global, it
//   gave rank 1 the wrong element: 5, not 2): nothing moves.
// Every element is checked on every rank. Before, each was refused
// ("'tensor.from_elements' op has no sharding rule").
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: shard-opt %t.4.mlir -shard-propagate=alpha-us=0 -shard-spmd-partition | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @softmax
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR: shard.spmd.all_reduce {{.*}} reduce max from !shard.tensor<4xf32
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR: shard.spmd.all_reduce {{.*}} reduce sum from !shard.tensor<4xf32
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR-LABEL: func.func @parity
// IR-NOT: shard.spmd.{{all_|exchange|broadcast|gather|scatter|reduce_}}
// IR-LABEL: func.func @captured
// IR: shard.spmd.all_gather %arg1
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry softmax --check --propagate=alpha-us=0 | sort | FileCheck %s --check-prefix=SM2
// SM2: rank 0: OK, 20 elements checked, received 32 bytes
// SM2-NEXT: rank 1: OK, 20 elements checked, received 32 bytes
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry softmax --check --propagate=alpha-us=0 | sort | FileCheck %s --check-prefix=SM3
// Two all_reduces of 4 floats: on 3 ranks the ring's chunks are 2/1/1, and
// each rank receives every chunk but its own and the one before it (5, 5
// and 6 floats each time).
// SM3: rank 0: OK, 16 elements checked, received 40 bytes
// SM3-NEXT: rank 1: OK, 16 elements checked, received 40 bytes
// SM3-NEXT: rank 2: OK, 8 elements checked, received 48 bytes
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry softmax --check --propagate=alpha-us=0 | sort | FileCheck %s --check-prefix=SM4
// SM4: rank 0: OK, 12 elements checked, received 48 bytes
// SM4-NEXT: rank 1: OK, 12 elements checked, received 48 bytes
// SM4-NEXT: rank 2: OK, 12 elements checked, received 48 bytes
// SM4-NEXT: rank 3: OK, 4 elements checked, received 48 bytes
// RUN: %mpirun -np 2 %shard-run %t.2.mlir --entry softmax,captured --check | sort | FileCheck %s --check-prefix=DEF2
// DEF2: @captured: rank 0: OK, 12 elements checked, received 48 bytes
// DEF2-NEXT: @captured: rank 1: OK, 12 elements checked, received 48 bytes
// DEF2-NEXT: @softmax: rank 0: OK, 20 elements checked, received 80 bytes
// DEF2-NEXT: @softmax: rank 1: OK, 20 elements checked, received 80 bytes
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry parity --check | sort | FileCheck %s --check-prefix=PAR3
// PAR3: rank 0: OK, 16 elements checked, received 0 bytes
// PAR3-NEXT: rank 1: OK, 16 elements checked, received 0 bytes
// PAR3-NEXT: rank 2: OK, 8 elements checked, received 0 bytes
// RUN: %mpirun -np 3 %shard-run %t.3.mlir --entry nested_index --check | sort | FileCheck %s --check-prefix=NEST3
// NEST3: rank 0: OK, 8 elements checked, received 0 bytes
// NEST3-NEXT: rank 1: OK, 8 elements checked, received 0 bytes
// NEST3-NEXT: rank 2: OK, 8 elements checked, received 0 bytes
// RUN: %mpirun -np 4 %shard-run %t.4.mlir --entry parity --check | sort | FileCheck %s --check-prefix=PAR4
// PAR4: rank 0: OK, 12 elements checked, received 0 bytes
// PAR4-NEXT: rank 1: OK, 12 elements checked, received 0 bytes
// PAR4-NEXT: rank 2: OK, 12 elements checked, received 0 bytes
// PAR4-NEXT: rank 3: OK, 4 elements checked, received 0 bytes
#m = #shard.mesh<shape = [@N@], axes = ["x"]>
#cut = #shard.placements<mesh = #m, placements = [S(1)]>
#rows = #shard.placements<mesh = #m, placements = [S(0)]>
func.func @softmax(%x: tensor<4x10xf32> {shard.layout = #cut}) -> (tensor<4x10xf32> {shard.layout = #cut}) {
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<4xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x10xf32>) outs(%minit : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %1 = tensor.from_elements %b : tensor<f32>
    %2 = tensor.from_elements %a : tensor<f32>
    %3 = tensor.extract %1[] : tensor<f32>
    %4 = tensor.extract %2[] : tensor<f32>
    %5 = arith.maximumf %3, %4 : f32
    %6 = tensor.from_elements %5 : tensor<f32>
    %7 = tensor.extract %6[] : tensor<f32>
    linalg.yield %7 : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4x10xf32>
  %shifted = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<4x10xf32>, tensor<4xf32>) outs(%e1 : tensor<4x10xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %1 = arith.subf %a, %m : f32
    %2 = math.exp %1 : f32
    linalg.yield %2 : f32
  } -> tensor<4x10xf32>
  %zero = arith.constant -0.0 : f32
  %sinit = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%shifted : tensor<4x10xf32>) outs(%sinit : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %1 = tensor.from_elements %b : tensor<f32>
    %2 = tensor.from_elements %a : tensor<f32>
    %3 = tensor.extract %1[] : tensor<f32>
    %4 = tensor.extract %2[] : tensor<f32>
    %5 = arith.addf %3, %4 : f32
    %6 = tensor.from_elements %5 : tensor<f32>
    %7 = tensor.extract %6[] : tensor<f32>
    linalg.yield %7 : f32
  } -> tensor<4xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%shifted, %sum : tensor<4x10xf32>, tensor<4xf32>) outs(%e1 : tensor<4x10xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %1 = arith.divf %a, %s : f32
    linalg.yield %1 : f32
  } -> tensor<4x10xf32>
  return %out : tensor<4x10xf32>
}

func.func @parity(%x: tensor<4x10xf32> {shard.layout = #cut}) -> (tensor<4x10xf32> {shard.layout = #cut}) {
  %e1 = tensor.empty() : tensor<4x10xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x10xf32>) outs(%e1 : tensor<4x10xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %two = arith.constant 2 : index
    %p = arith.remui %i, %two : index
    %n = arith.negf %a : f32
    %t = tensor.from_elements %a, %n : tensor<2xf32>
    %v = tensor.extract %t[%p] : tensor<2xf32>
    linalg.yield %v : f32
  } -> tensor<4x10xf32>
  return %y : tensor<4x10xf32>
}

func.func @captured(%x: tensor<6x4xf32> {shard.layout = #rows}, %table: tensor<6x4xf32> {shard.layout = #rows}) -> (tensor<6x4xf32> {shard.layout = #rows}) {
  %e1 = tensor.empty() : tensor<6x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<6x4xf32>) outs(%e1 : tensor<6x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %five = arith.constant 5 : index
    %r = arith.subi %five, %i : index
    %s = tensor.extract_slice %table[%r, 0] [1, 4] [1, 1] : tensor<6x4xf32> to tensor<4xf32>
    %v = tensor.extract %s[%j] : tensor<4xf32>
    %w = arith.addf %a, %v : f32
    linalg.yield %w : f32
  } -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

func.func @nested_index(%x: tensor<6x4xf32> {shard.layout = #rows}) -> (tensor<6x4xf32> {shard.layout = #rows}) {
  %e1 = tensor.empty() : tensor<6x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<6x4xf32>) outs(%e1 : tensor<6x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = tensor.empty() : tensor<3xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%t : tensor<3xf32>) {
    ^bb1(%q: f32):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      linalg.yield %f : f32
    } -> tensor<3xf32>
    %c2 = arith.constant 2 : index
    %w = tensor.extract %g[%c2] : tensor<3xf32>
    %v = arith.addf %a, %w : f32
    linalg.yield %v : f32
  } -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}
