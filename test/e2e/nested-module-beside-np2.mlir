// A function of the outer module beside a nested module whose function
// needs a collective (an all_to_all, S(0) -> S(1)): the file lowers, and the
// outer function runs on 2 ranks with every element checked. The outer
// module's bufferization met the nested collective as an op of unknown
// effects and refused the whole file, whichever entry was run. The nested
// function runs too (--entry inner::nested_entry: its module is the
// program), its 4 x 3 block moved from rows to columns (3 = 2 + 1: rank 0
// receives its 2 columns of the 2 rows it lacks, 16 B, rank 1 8 B); named
// alone, it is refused naming where it is (it was "no function").
// REQUIRES: mpi
// RUN: %mpirun -np 2 shard-run %s --entry top --check 2>&1 | FileCheck %s --implicit-check-not=error
// CHECK-COUNT-2: OK, 12 elements checked, received 0 bytes
// RUN: %mpirun -np 2 shard-run %s --entry inner::nested_entry --check 2>&1 | sort | FileCheck %s --implicit-check-not=error --check-prefix=NESTED
// NESTED: rank 0: OK, 8 elements checked, received 16 bytes
// NESTED-NEXT: rank 1: OK, 4 elements checked, received 8 bytes
// RUN: not shard-run %s --entry nested_entry 2>&1 | FileCheck %s --check-prefix=HINT
// HINT: error: shard-run: no function @nested_entry with a body in the program (a nested module has one: --entry inner::nested_entry)
// RUN: not shard-run %s --entry outer::nested_entry 2>&1 | FileCheck %s --check-prefix=NO-MODULE
// NO-MODULE: error: shard-run: no nested module outer in the program (--entry outer::nested_entry)
// RUN: not shard-run %s --entry inner:: 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not shard-run %s --entry ::nested_entry 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: names an empty module or function; a nested module's function is MODULE::FN
// The outer entry's program leaves the nested modules out (each a program
// of its own, which no call of the outer one reaches): their meshes do not
// ask for more ranks (@wide's 2 x 2 mesh made 2 ranks too few for @top),
// nor their moves count in the report (inner's all_to_all was counted;
// @top names no layout, so no rank is listed).
// RUN: %mpirun -np 2 shard-run %s --entry top --check --report %t.top.json 2>&1 | FileCheck %s --implicit-check-not=error --check-prefix=TOP
// TOP-COUNT-2: OK, 12 elements checked, received 0 bytes
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); print('report', r['ops'], r['total'])" %t.top.json | FileCheck %s --check-prefix=TOP-REPORT
// TOP-REPORT: report [] {'bytes_per_rank': [], 'bytes_received_total': 0, 'known': True}
// A file whose own module is named (module @outer) may name it first.
// RUN: sed -e 's/^!t = tensor<4x3xf32>$/&\nmodule @outer {/' %s > %t.outer.mlir && echo '}' >> %t.outer.mlir
// RUN: %mpirun -np 2 shard-run %t.outer.mlir --entry outer::inner::nested_entry --check 2>&1 | sort | FileCheck %s --implicit-check-not=error --check-prefix=NESTED
// RUN: %mpirun -np 2 shard-run %t.outer.mlir --entry outer::top,inner::nested_entry --check 2>&1 | FileCheck %s --implicit-check-not=error --check-prefix=OUTER
// OUTER-COUNT-2: OK, 12 elements checked, received 0 bytes
// RUN: not shard-run %t.outer.mlir --entry outer::nested_entry 2>&1 | FileCheck %s --check-prefix=OUTER-HINT
// OUTER-HINT: error: shard-run: no function @nested_entry with a body in the program (a nested module has one: --entry inner::nested_entry)
// A private entry runs (the JIT found no "_mlir_ciface_hidden" before),
// and a function whose own name holds "::" is the entry as named.
// RUN: %mpirun -np 2 shard-run %s --entry hidden,Model::forward --check 2>&1 | FileCheck %s --implicit-check-not=error --check-prefix=NAMED
// NAMED-COUNT-4: OK, 12 elements checked, received 0 bytes
#m = #shard.mesh<shape = [2]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
#S1 = #shard.placements<mesh = #m, placements = [S(1)]>
!t = tensor<4x3xf32>
func.func @top(%x: !t) -> !t {
  %a = arith.negf %x : !t
  return %a : !t
}
func.func private @hidden(%x: !t) -> !t {
  %a = arith.negf %x : !t
  return %a : !t
}
func.func @"Model::forward"(%x: !t) -> !t {
  %a = arith.negf %x : !t
  return %a : !t
}
module @wide {
  func.func @g(%x: !t {shard.layout = #shard.placements<mesh = #shard.mesh<shape = [2, 2]>, placements = [S(0), S(1)]>}) -> !t {
    %a = arith.negf %x : !t
    return %a : !t
  }
}
module @inner {
  func.func @nested_entry(%x: !t {shard.layout = #S0}) -> (!t {shard.layout = #S1}) {
    %a = arith.negf %x : !t
    return %a : !t
  }
}
