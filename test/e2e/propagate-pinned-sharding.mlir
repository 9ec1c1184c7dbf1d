// A pinned op sharding (shard.sharding, issue 42 item 1) runs as pinned:
// the matmul cut on its contracted loop where op by op would cut its rows,
// under both searches, every element of the result checked on 2, 3 and 4
// ranks (B's 12 rows cut 6/6, 4/4/4 and 3/3/3/3), and the partial
// result reduced where it is returned whole. The unpartitioned reference
// run drops the pin with the layouts.
// REQUIRES: mpi
// RUN: for n in 2 3 4; do sed -e "s/@N@/$n/g" %s > %t.$n.mlir; for s in greedy whole; do %mpirun -np $n %shard-run %t.$n.mlir --entry pinned --check --propagate=search=$s 2>&1 | sort | sed -e "s/^/$n $s: /"; done; done | FileCheck %s --implicit-check-not=error:
// CHECK-COUNT-18: shard-run: rank {{[0-3]}}: OK, 48 elements checked
// RUN: sed -e "s/@N@/4/g" %s | shard-opt -shard-propagate | FileCheck %s --check-prefix=IR
// IR: linalg.matmul {shard.sharding = #shard.sharding<mesh = #mesh{{[0-9]*}}, loops = [d2]>}
// IR-NEXT: #layout_Psum{{(_?[0-9]+)?}}
#m = #shard.mesh<shape = [@N@]>
// C = A x B, A [8x12] rows cut, B [12x6] whole: op by op keeps the rows
// (d0). Pinned to the contracted loop (d2): A moves to columns, B to rows,
// and C is partial, reduced where it is returned whole.
func.func @pinned(%a: tensor<8x12xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>},
                  %b: tensor<12x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>})
    -> (tensor<8x6xf32> {shard.layout = #shard.placements<mesh = #m, placements = [R]>}) {
  %e = tensor.empty() : tensor<8x6xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  %c = linalg.matmul {shard.sharding = #shard.sharding<mesh = #m, loops = [d2]>}
      ins(%a, %b : tensor<8x12xf32>, tensor<12x6xf32>) outs(%f : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %c : tensor<8x6xf32>
}
