// The plan report counts each move as many times as it runs (times_run:
// calls per callee through every chain of calls, times static trip counts),
// and its total equals the runtime's count of received bytes. Before, a
// move in a function called twice was listed once (128 B reported per rank,
// 256 B received).
// On 2 ranks, 8x8 f32: S(0) -> S(1) and back receive 4x4 elements (64 B)
// each per rank, 128 B per call of @swap.
// REQUIRES: mpi
// RUN: %mpirun -np 2 %shard-run %s --entry twice --check --report %t.twice.json 2>&1 | sort | FileCheck %s --check-prefix=TWICE --implicit-check-not=error:
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); print('report', [op['times_run'] for op in r['ops']], r['total'])" %t.twice.json | FileCheck %s --check-prefix=TWICE-REPORT
// TWICE: rank 0: OK, 32 elements checked, received 256 bytes
// TWICE-NEXT: rank 1: OK, 32 elements checked, received 256 bytes
// TWICE-REPORT: report [2, 2] {'bytes_per_rank': [256, 256], 'bytes_received_total': 512, 'known': True}
// RUN: %mpirun -np 2 %shard-run %s --entry looped --check --report %t.looped.json 2>&1 | sort | FileCheck %s --check-prefix=LOOPED --implicit-check-not=error:
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); print('report', [op['times_run'] for op in r['ops']], r['total'])" %t.looped.json | FileCheck %s --check-prefix=LOOPED-REPORT
// LOOPED: rank 0: OK, 32 elements checked, received 384 bytes
// LOOPED-NEXT: rank 1: OK, 32 elements checked, received 384 bytes
// LOOPED-REPORT: report [3, 3] {'bytes_per_rank': [384, 384], 'bytes_received_total': 768, 'known': True}
// A cut dynamic dim's extent, summed over the ranks that cut it (one i64
// each, an all_reduce) before the all_gather that needs it, is counted too:
// it was left out ([256, 256] reported, "known", where rank 1 received
// 272). Each rank receives the one i64 once (the ring: rank 0 in the
// reduce-scatter, rank 1 in the all-gather).
// RUN: %mpirun -np 2 %shard-run %s --entry extent --check --dynamic-size 64 --report %t.extent.json 2>&1 | sort | FileCheck %s --check-prefix=EXTENT --implicit-check-not=error:
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); print('report', r['total'])" %t.extent.json | FileCheck %s --check-prefix=EXTENT-REPORT
// EXTENT: rank 0: OK, 128 elements checked, received 264 bytes
// EXTENT-NEXT: rank 1: OK, 128 elements checked, received 264 bytes
// EXTENT-REPORT: report {'bytes_per_rank': [264, 264], 'bytes_received_total': 528, 'dynamic_dims_counted_as': 64, 'known': False}
// The same counts at any other run-time extent: the total is the model's
// (64 rows), not this run's, and not said known.
// RUN: %mpirun -np 2 %shard-run %s --entry extent --check --dynamic-size 5 --report %t.extent5.json 2>&1 | sort | FileCheck %s --check-prefix=EXTENT5 --implicit-check-not=error:
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); print('report', r['total'])" %t.extent5.json | FileCheck %s --check-prefix=EXTENT5-REPORT
// EXTENT5: rank 0: OK, 10 elements checked, received 24 bytes
// EXTENT5-REPORT: report {'bytes_per_rank': [264, 264], 'bytes_received_total': 528, 'dynamic_dims_counted_as': 64, 'known': False}
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); print('marked', [op.get('dynamic_extent', False) for op in r['ops']])" %t.extent.json | FileCheck %s --check-prefix=EXTENT-MARKED
// EXTENT-MARKED: marked [True, False]
// Collectives written in the program: an all_reduce is counted (not marked
// as an extent's sum); any other is not, and the total says it is not
// known (a reduce_scatter was left out of a total said known).
// RUN: %mpirun -np 2 %shard-run %s --entry written --report %t.written.json 2>&1 | sort | FileCheck %s --check-prefix=WRITTEN --implicit-check-not=error:
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); print('report', [op.get('dynamic_extent', False) for op in r['ops']], r['total'])" %t.written.json | FileCheck %s --check-prefix=WRITTEN-REPORT
// WRITTEN: rank 0: ran @written, received 16 bytes
// WRITTEN-REPORT: report [False] {'bytes_per_rank': [16, 16], 'bytes_received_total': 32, 'known': True}
// RUN: %mpirun -np 2 %shard-run %s --entry scattered --report %t.scattered.json 2>&1 | sort | FileCheck %s --check-prefix=SCATTERED --implicit-check-not=error:
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); print('report', r['total']['known'], r['total']['uncounted'])" %t.scattered.json | FileCheck %s --check-prefix=SCATTERED-REPORT
// SCATTERED: rank 0: ran @scattered, received 8 bytes
// SCATTERED-REPORT: report False 1 collective(s) not counted; the first: {{.*}}: 'shard.spmd.reduce_scatter' written in the program: the report counts the collectives the partition makes
// A loop whose trip count is not known statically: left out, and said.
// RUN: shard-opt %s -shard-propagate -shard-spmd-partition=report=%t.while.json -o /dev/null
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); print(r['total']['known'], r['total']['unknown'])" %t.while.json | FileCheck %s --check-prefix=WHILE
// WHILE: False 4 op(s) left out, whose runs are not known statically; the first: {{.*}}: in 'scf.while', which may run it any number of times
// Each op left out says why: an scf.if's regions run or not (not "any
// number of times").
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); print(sorted(set(op.get('times_run_unknown', '') for op in r['ops'])))" %t.while.json | FileCheck %s --check-prefix=WHY
// WHY: ['', "in 'scf.if', whose regions run or not as the run decides", "in 'scf.while', which may run it any number of times"]
// An affine.for of constant bounds runs its moves its trip count times, as
// an scf.for does (they were left out, "any number of times").
// RUN: %mpirun -np 2 %shard-run %s --entry affined --check --report %t.affined.json 2>&1 | sort | FileCheck %s --check-prefix=AFFINED --implicit-check-not=error:
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); print('report', [op['times_run'] for op in r['ops']], r['total'])" %t.affined.json | FileCheck %s --check-prefix=AFFINED-REPORT
// AFFINED: rank 0: OK, 32 elements checked, received 384 bytes
// AFFINED-NEXT: rank 1: OK, 32 elements checked, received 384 bytes
// AFFINED-REPORT: report [3, 3] {'bytes_per_rank': [384, 384], 'bytes_received_total': 768, 'known': True}

// A program that moves nothing lists every rank at 0 (its total listed no
// rank: [], where each rank said it received 0 bytes).
// RUN: %mpirun -np 2 %shard-run %s --entry nothing --check --report %t.nothing.json 2>&1 | sort | FileCheck %s --check-prefix=NOTHING --implicit-check-not=error:
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); print('report', r['ops'], r['total'])" %t.nothing.json | FileCheck %s --check-prefix=NOTHING-REPORT
// NOTHING: rank 0: OK, 8 elements checked, received 0 bytes
// NOTHING-NEXT: rank 1: OK, 8 elements checked, received 0 bytes
// NOTHING-REPORT: report [] {'bytes_per_rank': [0, 0], 'bytes_received_total': 0, 'known': True}
#m = #shard.mesh<shape = [2]>
!t = tensor<8x8xf32>
func.func private @swap(%a: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (!t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %one = arith.constant dense<1.0> : !t
  %x = shard.constraint %a layout #shard.placements<mesh = #m, placements = [S(1)]> : !t
  %y = arith.addf %x, %one : !t
  %z = shard.constraint %y layout #shard.placements<mesh = #m, placements = [S(0)]> : !t
  return %z : !t
}
func.func @twice(%a: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (!t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %b = call @swap(%a) : (!t) -> !t
  %c = call @swap(%b) : (!t) -> !t
  return %c : !t
}
func.func @looped(%a: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (!t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %a) -> (!t) {
    %b = func.call @swap(%acc) : (!t) -> !t
    scf.yield %b : !t
  }
  return %r : !t
}
func.func @whiled(%a: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %n: index)
    -> (!t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant dense<1.0> : !t
  %r:2 = scf.while (%acc = %a, %i = %c0) : (!t, index) -> (!t, index) {
    %go = arith.cmpi slt, %i, %n : index
    scf.condition(%go) %acc, %i : !t, index
  } do {
  ^bb0(%acc: !t, %i: index):
    %x = shard.constraint %acc layout #shard.placements<mesh = #m, placements = [S(1)]> : !t
    %y = arith.addf %x, %one : !t
    %z = shard.constraint %y layout #shard.placements<mesh = #m, placements = [S(0)]> : !t
    %j = arith.addi %i, %c1 : index
    scf.yield %z, %j : !t, index
  }
  return %r#0 : !t
}
func.func @affined(%a: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (!t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %r = affine.for %i = 0 to 3 iter_args(%acc = %a) -> (!t) {
    %b = func.call @swap(%acc) : (!t) -> !t
    affine.yield %b : !t
  }
  return %r : !t
}
func.func @branched(%a: !t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %go: i1)
    -> (!t {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %one = arith.constant dense<1.0> : !t
  %r = scf.if %go -> (!t) {
    %w = arith.addf %a, %one : !t
    %x = shard.constraint %w layout #shard.placements<mesh = #m, placements = [S(1)]> : !t
    %y = arith.negf %x : !t
    %z = shard.constraint %y layout #shard.placements<mesh = #m, placements = [S(0)]> : !t
    scf.yield %z : !t
  } else {
    scf.yield %a : !t
  }
  return %r : !t
}
func.func @extent(%x: tensor<?x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<?x2xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %y = arith.negf %x : tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}
!p4 = !shard.tensor<4xf32, #shard.placements<mesh = #m, placements = [P(sum)]>>
!r4 = !shard.tensor<4xf32, #shard.placements<mesh = #m, placements = [R]>>
!s4 = !shard.tensor<4xf32, #shard.placements<mesh = #m, placements = [S(0)]>>
func.func @written(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = shard.spmd.all_reduce %x over axes [0] reduce sum from !p4 to !r4 : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @scattered(%x: tensor<4xf32>) -> tensor<2xf32> {
  %r = shard.spmd.reduce_scatter %x over axes [0] dim 0 reduce sum from !p4 to !s4 : tensor<4xf32> -> tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func @nothing(%a: tensor<4x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>})
    -> (tensor<4x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %b = arith.negf %a : tensor<4x4xf32>
  return %b : tensor<4x4xf32>
}
