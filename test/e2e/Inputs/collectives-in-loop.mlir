!s = !shard.tensor<4xi64, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
!t = !shard.tensor<4xi64, #shard.chunk<dim = 0, placements = ["rank:1", "rank:0"]>>
func.func private @printI64(i64)
func.func private @printNewline()
func.func private @printString(!llvm.ptr)
llvm.mlir.global internal constant @ag("all_gather \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @rd("redistribute \00") {addr_space = 0 : i32}

func.func @main() {
  %full = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i64
  %d = shard.distribute %full from rank 0 : tensor<4xi64> -> !s
  %n = arith.constant 1000000 : index
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> i64 {
    %g = shard.all_gather %d : !s -> tensor<4xi64>
    %k = arith.remui %i, %c4 : index
    %e = tensor.extract %g[%k] : tensor<4xi64>
    %a = arith.addi %acc, %e : i64
    scf.yield %a : i64
  }
  %agp = llvm.mlir.addressof @ag : !llvm.ptr
  call @printString(%agp) : (!llvm.ptr) -> ()
  call @printI64(%sum) : (i64) -> ()
  call @printNewline() : () -> ()

  %m = arith.constant 100000 : index
  %sum2 = scf.for %i = %c0 to %m step %c1 iter_args(%acc = %z) -> i64 {
    %s = shard.distribute %full from rank 0 : tensor<4xi64> -> !s
    %r = shard.redistribute %s : !s -> !t
    %l = shard.local_shards %r : !t -> tensor<2xi64>
    %e0 = tensor.extract %l[%c0] : tensor<2xi64>
    %e1 = tensor.extract %l[%c1] : tensor<2xi64>
    %a0 = arith.addi %acc, %e0 : i64
    %a1 = arith.addi %a0, %e1 : i64
    scf.yield %a1 : i64
  }
  %rdp = llvm.mlir.addressof @rd : !llvm.ptr
  call @printString(%rdp) : (!llvm.ptr) -> ()
  call @printI64(%sum2) : (i64) -> ()
  call @printNewline() : () -> ()
  return
}
