// linalg.pack and linalg.unpack (mmt4d data tiling, as IREE and upstream's
// integration tests write it), which no bufferization takes, run through
// --shard-to-llvm as -shard-decompose-aggregates lowers them (a pad, a
// reshape and a transpose: upstream's lowerPack and lowerUnPack); they
// stopped at "op was not bufferized" (found running upstream's
// pack-unpack-mmt4d.mlir). Checked here against values worked out by hand
// (shard-run's --check compares with the same lowering). The table holds
// 10*row + column; the padding is -1.
// REQUIRES: mpi
// RUN: shard-opt %s --shard-to-llvm | %mlir-run | FileCheck %s
// Under auto=true they run whole on every rank (no sharding rule: a
// warning names them), the rest sharded around them; every element checked
// on 2 and 3 ranks.
// RUN: for n in 2 3; do \
// RUN:   sed -e "s/@N@/$n/g" %S/Inputs/pack-unpack-auto.mlir > %t.$n.mlir; \
// RUN:   %mpirun -np $n %shard-run %t.$n.mlir --entry pack_roundtrip,outer_perm --check --propagate=auto=true > %t.out.$n 2>&1; \
// RUN: done
// RUN: not grep -e MISMATCH -e error %t.out.2 %t.out.3
// RUN: cat %t.out.2 %t.out.3 | grep -c ": OK" | FileCheck %s --check-prefix=OK
// OK: 10
//
// Tiles of 2x2 (rows 2i, 2i+1; columns 2j, 2j+1):
// CHECK: sizes = [2, 3, 2, 2]
// CHECK-NEXT: {{\[\[}}{{\[\[}}0,     1],
// CHECK-NEXT:    [10,     11]],
// CHECK-NEXT:   {{\[\[}}2,     3],
// CHECK-NEXT:    [12,     13]],
// CHECK-NEXT:   {{\[\[}}4,     -1],
// CHECK-NEXT:    [14,     -1]]],
// CHECK-NEXT:  {{\[\[}}[20,     21],
// CHECK-NEXT:    [-1,     -1]],
// CHECK-NEXT:   {{\[\[}}22,     23],
// CHECK-NEXT:    [-1,     -1]],
// CHECK-NEXT:   {{\[\[}}24,     -1],
// CHECK-NEXT:    [-1,     -1]]]]
// Unpacked: the table again.
// CHECK: sizes = [3, 5]
// CHECK-NEXT: {{\[\[}}0,   1,   2,   3,   4],
// CHECK-NEXT:  [10,   11,   12,   13,   14],
// CHECK-NEXT:  [20,   21,   22,   23,   24]]
// Outer dims swapped, tiles column-major: element [J][I][c][r] is the
// table's [2I + r][2J + c].
// CHECK: sizes = [3, 2, 2, 2]
// CHECK-NEXT: {{\[\[}}{{\[\[}}0,     10],
// CHECK-NEXT:    [1,     11]],
// CHECK-NEXT:   {{\[\[}}20,     -1],
// CHECK-NEXT:    [21,     -1]]],
// CHECK-NEXT:  {{\[\[}}[2,     12],
// CHECK-NEXT:    [3,     13]],
// CHECK-NEXT:   {{\[\[}}22,     -1],
// CHECK-NEXT:    [23,     -1]]],
// CHECK-NEXT:  {{\[\[}}[4,     14],
// CHECK-NEXT:    [-1,     -1]],
// CHECK-NEXT:   {{\[\[}}24,     -1],
// CHECK-NEXT:    [-1,     -1]]]]

func.func private @printMemrefF32(memref<*xf32>)

func.func @main() {
  %t = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0], [10.0, 11.0, 12.0, 13.0, 14.0], [20.0, 21.0, 22.0, 23.0, 24.0]]> : tensor<3x5xf32>
  %pad = arith.constant -1.0 : f32
  %e = tensor.empty() : tensor<2x3x2x2xf32>
  %p = linalg.pack %t padding_value(%pad : f32) inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %e : tensor<3x5xf32> -> tensor<2x3x2x2xf32>
  %eu = tensor.empty() : tensor<3x5xf32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %eu : tensor<2x3x2x2xf32> -> tensor<3x5xf32>
  %eo = tensor.empty() : tensor<3x2x2x2xf32>
  %q = linalg.pack %t padding_value(%pad : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [2, 2] into %eo : tensor<3x5xf32> -> tensor<3x2x2x2xf32>
  %pm = bufferization.to_buffer %p : tensor<2x3x2x2xf32> to memref<2x3x2x2xf32>
  %pu = memref.cast %pm : memref<2x3x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%pu) : (memref<*xf32>) -> ()
  %um = bufferization.to_buffer %u : tensor<3x5xf32> to memref<3x5xf32>
  %uu = memref.cast %um : memref<3x5xf32> to memref<*xf32>
  call @printMemrefF32(%uu) : (memref<*xf32>) -> ()
  %qm = bufferization.to_buffer %q : tensor<3x2x2x2xf32> to memref<3x2x2x2xf32>
  %qu = memref.cast %qm : memref<3x2x2x2xf32> to memref<*xf32>
  call @printMemrefF32(%qu) : (memref<*xf32>) -> ()
  return
}
