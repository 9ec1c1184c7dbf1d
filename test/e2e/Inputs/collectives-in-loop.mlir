!s = !shard.tensor<4xi64, #shard.chunk<dim = 0, placements = ["rank:0", "rank:1"]>>
!t = !shard.tensor<4xi64, #shard.chunk<dim = 0, placements = ["rank:1", "rank:0"]>>
func.func private @printI64(i64)
func.func private @printNewline()
func.func private @printString(!llvm.ptr)
llvm.mlir.global internal constant @ag("all_gather \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @rd("redistribute \00") {addr_space = 0 : i32}
llvm.mlir.global internal constant @cr("carried \00") {addr_space = 0 : i32}

func.func @main() {
  %full = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i64
  %c10 = arith.constant 10 : i64
  %c100 = arith.constant 100 : i64
  %c1000 = arith.constant 1000 : i64
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

  // A loop that carries a gathered tensor to its next iteration (the loop
  // yields the collective's new buffer; the previous one is freed).
  %carried = scf.for %i = %c0 to %m step %c1 iter_args(%acc = %full) -> tensor<4xi64> {
    %s = shard.distribute %acc from rank 0 : tensor<4xi64> -> !s
    %g = shard.all_gather %s : !s -> tensor<4xi64>
    scf.yield %g : tensor<4xi64>
  }
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %x0 = tensor.extract %carried[%c0] : tensor<4xi64>
  %x1 = tensor.extract %carried[%c1] : tensor<4xi64>
  %x2 = tensor.extract %carried[%c2] : tensor<4xi64>
  %x3 = tensor.extract %carried[%c3] : tensor<4xi64>
  %y0 = arith.muli %x1, %c10 : i64
  %y1 = arith.muli %x2, %c100 : i64
  %y2 = arith.muli %x3, %c1000 : i64
  %y3 = arith.addi %x0, %y0 : i64
  %y4 = arith.addi %y3, %y1 : i64
  %y5 = arith.addi %y4, %y2 : i64
  %crp = llvm.mlir.addressof @cr : !llvm.ptr
  call @printString(%crp) : (!llvm.ptr) -> ()
  call @printI64(%y5) : (i64) -> ()
  call @printNewline() : () -> ()
  return
}
