// Control flow through MLIR's interfaces (issue 42, item 3): affine.for,
// affine.if, scf.execute_region and scf.index_switch pass tensors as
// RegionBranchOpInterface says they forward them, so propagation, its
// search and partition enter them with no code of their own
// (passes/ControlFlow.h; before, each was refused: "uses tensors inside
// 'affine.for', whose regions -shard-propagate does not enter"). Every
// element of every result checked on 2, 3 and 4 ranks against the program
// as written:
// - @affine_loop: x = tanh(x) + b three times, x's rows cut (3 of 10 rows
//   on 4 ranks: an empty block on the last);
// - @affine_branch: an affine.if's result pinned by columns on the way out;
// - @regions: scf.execute_region then scf.index_switch, columns cut;
// - @swap_once, @carried_whole, @no_trip: affine.for of 1, 4 and 0 trips
//   (below), under search=greedy and search=whole.
// REQUIRES: mpi
// RUN: for n in 2 3 4; do sed -e "s/@N@/$n/g" %s > %t.$n.mlir; %mpirun -np $n %shard-run %t.$n.mlir --entry affine_loop,affine_branch,regions --check 2>&1 | sed -E "s/^shard-run: @([a-z_]+): /$n \1: shard-run: /"; done | FileCheck %s --implicit-check-not=error:
// CHECK: 2 affine_loop: shard-run: rank 0: OK, 30 elements checked, received 0 bytes
// CHECK-NEXT: 2 affine_loop: shard-run: rank 1: OK, 30 elements checked, received 0 bytes
// CHECK-NEXT: 2 affine_branch: shard-run: rank 0: OK, 30 elements checked, received 60 bytes
// CHECK-NEXT: 2 affine_branch: shard-run: rank 1: OK, 30 elements checked, received 60 bytes
// CHECK-NEXT: 2 regions: shard-run: rank 0: OK
// CHECK-NEXT: 2 regions: shard-run: rank 1: OK
// CHECK-NEXT: 3 affine_loop: shard-run: rank 0: OK, 24 elements checked, received 0 bytes
// CHECK-NEXT: 3 affine_loop: shard-run: rank 1: OK, 24 elements checked, received 0 bytes
// CHECK-NEXT: 3 affine_loop: shard-run: rank 2: OK, 12 elements checked, received 0 bytes
// CHECK-NEXT: 3 affine_branch: shard-run: rank 0: OK
// CHECK-NEXT: 3 affine_branch: shard-run: rank 1: OK
// CHECK-NEXT: 3 affine_branch: shard-run: rank 2: OK
// CHECK-NEXT: 3 regions: shard-run: rank 0: OK
// CHECK-NEXT: 3 regions: shard-run: rank 1: OK
// CHECK-NEXT: 3 regions: shard-run: rank 2: OK
// CHECK-NEXT: 4 affine_loop: shard-run: rank 0: OK, 18 elements checked, received 0 bytes
// CHECK-NEXT: 4 affine_loop: shard-run: rank 1: OK, 18 elements checked, received 0 bytes
// CHECK-NEXT: 4 affine_loop: shard-run: rank 2: OK, 18 elements checked, received 0 bytes
// CHECK-NEXT: 4 affine_loop: shard-run: rank 3: OK, 6 elements checked, received 0 bytes
// CHECK-NEXT: 4 affine_branch: shard-run: rank 0: OK
// CHECK-NEXT: 4 affine_branch: shard-run: rank 1: OK
// CHECK-NEXT: 4 affine_branch: shard-run: rank 2: OK
// CHECK-NEXT: 4 affine_branch: shard-run: rank 3: OK
// CHECK-NEXT: 4 regions: shard-run: rank 0: OK
// CHECK-NEXT: 4 regions: shard-run: rank 1: OK
// CHECK-NEXT: 4 regions: shard-run: rank 2: OK
// CHECK-NEXT: 4 regions: shard-run: rank 3: OK
// The partitioned loop carries each rank's block:
// RUN: sed -e "s/@N@/4/g" %s | shard-opt -shard-propagate -shard-spmd-partition | FileCheck %s --check-prefix=IR
// RUN: for n in 2 3 4; do for s in greedy whole; do %mpirun -np $n %shard-run %t.$n.mlir --entry swap_once,carried_whole,no_trip --check --propagate=search=$s 2>&1 | sed -E "s/^shard-run: @([a-z_]+): /$n $s \1: shard-run: /"; done; done | FileCheck %s --check-prefix=TRIPS --implicit-check-not=error:
// TRIPS-COUNT-54: : shard-run: rank {{[0-3]}}: OK
// IR-LABEL: func.func @affine_loop
// IR: affine.for {{.*}} = 0 to 3 iter_args(%{{.*}} = %arg0) -> (tensor<?x6xf32>)
// IR: math.tanh {{.*}} : tensor<?x6xf32>
// IR: affine.yield {{.*}} : tensor<?x6xf32>
// IR-LABEL: func.func @regions
// IR: scf.execute_region -> tensor<10x?xf32>
// IR: scf.index_switch {{.*}} -> tensor<10x?xf32>
#m = #shard.mesh<shape = [@N@]>
// An affine.for carrying a tensor: x = tanh(x) + b, three times, rows cut.
func.func @affine_loop(%x: tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %b: tensor<10x6xf32>) -> tensor<10x6xf32> {
  %r = affine.for %i = 0 to 3 iter_args(%acc = %x) -> tensor<10x6xf32> {
    %t = math.tanh %acc : tensor<10x6xf32>
    %s = arith.addf %t, %b : tensor<10x6xf32>
    affine.yield %s : tensor<10x6xf32>
  }
  return %r : tensor<10x6xf32>
}

// An affine.if choosing between two tensors, pinned by columns on the way out.
func.func @affine_branch(%x: tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %y: tensor<10x6xf32>) -> (tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %c1 = arith.constant 1 : index
  %r = affine.if affine_set<(d0) : (d0 - 1 >= 0)>(%c1) -> tensor<10x6xf32> {
    %s = arith.mulf %x, %y : tensor<10x6xf32>
    affine.yield %s : tensor<10x6xf32>
  } else {
    affine.yield %y : tensor<10x6xf32>
  }
  return %r : tensor<10x6xf32>
}

// scf.execute_region and scf.index_switch.
func.func @regions(%x: tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}, %y: tensor<10x6xf32>) -> tensor<10x6xf32> {
  %e = scf.execute_region -> tensor<10x6xf32> {
    %s = arith.subf %x, %y : tensor<10x6xf32>
    scf.yield %s : tensor<10x6xf32>
  }
  %c2 = arith.constant 2 : index
  %r = scf.index_switch %c2 -> tensor<10x6xf32>
  case 1 {
    scf.yield %x : tensor<10x6xf32>
  }
  case 2 {
    %m2 = arith.mulf %e, %e : tensor<10x6xf32>
    scf.yield %m2 : tensor<10x6xf32>
  }
  default {
    scf.yield %y : tensor<10x6xf32>
  }
  return %r : tensor<10x6xf32>
}

// affine.for with constant bounds says it makes 0 or 1 trips by leaving
// out successors (a 1-trip loop's result from its yield only, its region
// argument from its init only; a 0-trip loop enters no region), but its
// verifier ties the init, region argument, yield and result: they share a
// layout all the same (LoopLikeOpInterface's inits and yields join them).
// Before: invalid IR ("iter_arg and yielded value have different type"),
// a false "run -shard-propagate first", and a refusal of the 0-trip loop.
func.func @swap_once(%x: tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %y: tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) -> (tensor<10x6xf32>, tensor<10x6xf32>) {
  %r:2 = affine.for %k = 0 to 1 iter_args(%a = %x, %b = %y) -> (tensor<10x6xf32>, tensor<10x6xf32>) {
    affine.yield %b, %a : tensor<10x6xf32>, tensor<10x6xf32>
  }
  return %r#0, %r#1 : tensor<10x6xf32>, tensor<10x6xf32>
}

func.func @carried_whole(%x: tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) -> (tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %r = affine.for %k = 0 to 4 iter_args(%acc = %x) -> tensor<10x6xf32> {
    %c = shard.constraint %acc layout #shard.placements<mesh = #m, placements = [R]> : tensor<10x6xf32>
    %t = math.tanh %c : tensor<10x6xf32>
    affine.yield %t : tensor<10x6xf32>
  }
  return %r : tensor<10x6xf32>
}

func.func @no_trip(%x: tensor<10x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> tensor<10x6xf32> {
  %r = affine.for %k = 5 to 2 iter_args(%a = %x) -> tensor<10x6xf32> {
    %t = math.tanh %a : tensor<10x6xf32>
    affine.yield %t : tensor<10x6xf32>
  }
  return %r : tensor<10x6xf32>
}
