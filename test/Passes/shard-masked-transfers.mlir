// RUN: shard-opt %s -shard-masked-transfers -split-input-file | FileCheck %s
// RUN: shard-opt %s -lower-vector-mask -shard-masked-transfers -canonicalize -one-shot-bufferize=bufferize-function-boundaries -split-input-file | FileCheck %s --check-prefix=BUF

// A vector.mask around a write spanning its tensor, which is read again
// after it: the lanes the mask leaves out read from the tensor and
// selected, the write unmasked. Bufferized, the new buffer's every element is written from the
// select, whose left-out lanes come from the argument (upstream's
// bufferization alone allocates the buffer and writes the masked lanes
// only: the others undefined).
// CHECK-LABEL: func.func @spanning
// CHECK-SAME: (%[[V:.*]]: vector<5x7xf32>, %[[T:.*]]: tensor<5x7xf32>, %[[M:.*]]: vector<5x7xi1>)
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[OLD:.*]] = vector.transfer_read %[[T]][%{{.*}}, %{{.*}}], %[[Z]] {in_bounds = [true, true]} : tensor<5x7xf32>, vector<5x7xf32>
// CHECK: %[[SEL:.*]] = arith.select %[[M]], %[[V]], %[[OLD]] : vector<5x7xi1>, vector<5x7xf32>
// CHECK: %[[W:.*]] = vector.transfer_write %[[SEL]], %[[T]][%{{.*}}, %{{.*}}] {in_bounds = [true, true]} : vector<5x7xf32>, tensor<5x7xf32>
// CHECK: linalg.add ins(%[[W]], %[[T]] :
// BUF-LABEL: func.func @spanning
// BUF-SAME: (%{{.*}}: vector<5x7xf32>, %[[T:.*]]: memref<5x7xf32{{.*}}>, %[[M:.*]]: vector<5x7xi1>)
// BUF: %[[OLD:.*]] = vector.transfer_read %[[T]]
// BUF: %[[SEL:.*]] = arith.select %[[M]], %{{.*}}, %[[OLD]]
// BUF: %[[A:.*]] = memref.alloc
// BUF: vector.transfer_write %[[SEL]], %[[A]]
func.func @spanning(%v: vector<5x7xf32>, %t: tensor<5x7xf32>, %m: vector<5x7xi1>) -> tensor<5x7xf32> {
  %c0 = arith.constant 0 : index
  %w = vector.mask %m { vector.transfer_write %v, %t[%c0, %c0] {in_bounds = [true, true]} : vector<5x7xf32>, tensor<5x7xf32> } : vector<5x7xi1> -> tensor<5x7xf32>
  %z = linalg.add ins(%w, %t : tensor<5x7xf32>, tensor<5x7xf32>) outs(%w : tensor<5x7xf32>) -> tensor<5x7xf32>
  return %z : tensor<5x7xf32>
}

// -----

// The mask operand itself (after -lower-vector-mask), of integers, at an
// offset of a larger tensor.
// CHECK-LABEL: func.func @operand
// CHECK: %[[Z:.*]] = arith.constant 0 : i8
// CHECK: %[[OLD:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %{{.*}}], %[[Z]] {in_bounds = [true, true]} : tensor<6x9xi8>, vector<2x4xi8>
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[OLD]] : vector<2x4xi1>, vector<2x4xi8>
// CHECK: vector.transfer_write {{.*}} {in_bounds = [true, true]} : vector<2x4xi8>, tensor<6x9xi8>
// CHECK-NOT: vector.transfer_write
func.func @operand(%v: vector<2x4xi8>, %t: tensor<6x9xi8>, %m: vector<2x4xi1>, %i: index) -> tensor<6x9xi8> {
  %w = vector.transfer_write %v, %t[%i, %i], %m {in_bounds = [true, true]} : vector<2x4xi8>, tensor<6x9xi8>
  return %w : tensor<6x9xi8>
}

// -----

// Left as they are: a write that may run past its tensor's end (the lanes
// past it are not written either way: the lowering's), one with another
// permutation map, one without a mask, one into a memref.
// CHECK-LABEL: func.func @left
// CHECK-NOT: arith.select
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} : vector<2x4xf32>, tensor<6x9xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : vector<4x2xf32>, tensor<6x9xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {in_bounds = [true, true]} : vector<2x4xf32>, tensor<6x9xf32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true, true]} : vector<2x4xf32>, memref<6x9xf32>
func.func @left(%v: vector<2x4xf32>, %u: vector<4x2xf32>, %t: tensor<6x9xf32>, %mem: memref<6x9xf32>, %m: vector<2x4xi1>, %i: index) -> (tensor<6x9xf32>, tensor<6x9xf32>, tensor<6x9xf32>) {
  %a = vector.transfer_write %v, %t[%i, %i], %m : vector<2x4xf32>, tensor<6x9xf32>
  %b = vector.transfer_write %u, %t[%i, %i], %m {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : vector<4x2xf32>, tensor<6x9xf32>
  %c = vector.transfer_write %v, %t[%i, %i] {in_bounds = [true, true]} : vector<2x4xf32>, tensor<6x9xf32>
  vector.transfer_write %v, %mem[%i, %i], %m {in_bounds = [true, true]} : vector<2x4xf32>, memref<6x9xf32>
  return %a, %b, %c : tensor<6x9xf32>, tensor<6x9xf32>, tensor<6x9xf32>
}

// -----

// A vector.mask with a passthru around a read (-lower-vector-mask leaves
// it): the read masked by its operand, then the passthru's lanes selected
// where the mask is off.
// CHECK-LABEL: func.func @passthru
// CHECK-SAME: (%[[T:.*]]: tensor<11xi8>, %[[M:.*]]: vector<8xi1>, %[[P:.*]]: vector<8xi8>)
// CHECK: %[[R:.*]] = vector.transfer_read %[[T]][%{{.*}}], %{{.*}}, %[[M]] : tensor<11xi8>, vector<8xi8>
// CHECK: %[[S:.*]] = arith.select %[[M]], %[[R]], %[[P]] : vector<8xi1>, vector<8xi8>
// CHECK-NOT: vector.mask
// CHECK: return %[[S]]
func.func @passthru(%t: tensor<11xi8>, %m: vector<8xi1>, %p: vector<8xi8>) -> vector<8xi8> {
  %c2 = arith.constant 2 : index
  %pad = arith.constant 3 : i8
  %v = vector.mask %m, %p { vector.transfer_read %t[%c2], %pad : tensor<11xi8>, vector<8xi8> } : vector<8xi1> -> vector<8xi8>
  return %v : vector<8xi8>
}
