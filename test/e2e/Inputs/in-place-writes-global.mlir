// Global ops whose values are written in place by a later op while a later
// collective still reads them (issue 25, item 1). On 2 ranks: a 4x6 tensor
// of 10 * i + j, chunked by columns.
!s = !shard.tensor<4x6xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
func.func private @shardrt_rank() -> i32
func.func private @printI64(i64)
func.func private @printNewline()

// How many elements of %t differ from %e, printed.
func.func @mismatches(%t: tensor<?x?xf32>, %e: tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %rows = tensor.dim %t, %c0 : tensor<?x?xf32>
  %cols = tensor.dim %t, %c1 : tensor<?x?xf32>
  %n = scf.for %i = %c0 to %rows step %c1 iter_args(%a = %z) -> i64 {
    %m = scf.for %j = %c0 to %cols step %c1 iter_args(%b = %a) -> i64 {
      %x = tensor.extract %t[%i, %j] : tensor<?x?xf32>
      %y = tensor.extract %e[%i, %j] : tensor<?x?xf32>
      %ne = arith.cmpf une, %x, %y : f32
      %inc = arith.select %ne, %one, %z : i64
      %s = arith.addi %b, %inc : i64
      scf.yield %s : i64
    }
    scf.yield %m : i64
  }
  call @printI64(%n) : (i64) -> ()
  call @printNewline() : () -> ()
  return
}

func.func @main() {
  %full = tensor.generate {
  ^bb0(%i: index, %j: index):
    %c10 = arith.constant 10 : index
    %r = arith.muli %i, %c10 : index
    %l = arith.addi %r, %j : index
    %l64 = arith.index_cast %l : index to i64
    %v = arith.sitofp %l64 : i64 to f32
    tensor.yield %v : f32
  } : tensor<4x6xf32>
  %hundred = arith.constant 100.0 : f32
  // This rank's columns, 3 of them.
  %rank32 = call @shardrt_rank() : () -> i32
  %rank = arith.index_cast %rank32 : i32 to index
  %c3 = arith.constant 3 : index
  %col = arith.muli %rank, %c3 : index
  %mine = tensor.extract_slice %full[0, %col] [4, 3] [1, 1] : tensor<4x6xf32> to tensor<4x3xf32>

  // 1. The local block, minus 100, while the all_gather still reads it.
  %s = shard.distribute %full from rank 0 : tensor<4x6xf32> -> !s
  %l = shard.local_shards %s : !s -> tensor<4x3xf32>
  %e3 = tensor.empty() : tensor<4x3xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%l : tensor<4x3xf32>) outs(%e3 : tensor<4x3xf32>) {
    ^bb0(%in: f32, %o: f32):
      %d = arith.subf %in, %hundred : f32
      linalg.yield %d : f32
    } -> tensor<4x3xf32>
  %g = shard.all_gather %s : !s -> tensor<4x6xf32>
  // 2. The gathered tensor, minus 100 in its own buffer (a linalg.generic
  // whose outs is %g), while a distribute still reads it.
  %h = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%g : tensor<4x6xf32>) {
    ^bb0(%o: f32):
      %d = arith.subf %o, %hundred : f32
      linalg.yield %d : f32
    } -> tensor<4x6xf32>
  %s2 = shard.distribute %g from rank 0 : tensor<4x6xf32> -> !s
  %g2 = shard.all_gather %s2 : !s -> tensor<4x6xf32>
  // 3. linalg.fill into the gathered tensor, which a redistribution still
  // reads.
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%g2 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %s3 = shard.distribute %g2 from rank 1 : tensor<4x6xf32> -> !s
  %g3 = shard.all_gather %s3 : !s -> tensor<4x6xf32>

  // Expected: %x = mine - 100, %h = full - 100, %f = 0, and %g3 = full:
  // %g, %g2 and %g3 are read only by collectives, so %g3 is the whole
  // tensor only if neither %s's block, %g nor %g2 was written in place.
  %c = arith.constant dense<100.0> : tensor<4x6xf32>
  %c34 = arith.constant dense<100.0> : tensor<4x3xf32>
  %xe = arith.subf %mine, %c34 : tensor<4x3xf32>
  %he = arith.subf %full, %c : tensor<4x6xf32>
  %fe = arith.constant dense<0.0> : tensor<4x6xf32>
  %xd = tensor.cast %x : tensor<4x3xf32> to tensor<?x?xf32>
  %xed = tensor.cast %xe : tensor<4x3xf32> to tensor<?x?xf32>
  call @mismatches(%xd, %xed) : (tensor<?x?xf32>, tensor<?x?xf32>) -> ()
  %fulld = tensor.cast %full : tensor<4x6xf32> to tensor<?x?xf32>
  %hd = tensor.cast %h : tensor<4x6xf32> to tensor<?x?xf32>
  %hed = tensor.cast %he : tensor<4x6xf32> to tensor<?x?xf32>
  call @mismatches(%hd, %hed) : (tensor<?x?xf32>, tensor<?x?xf32>) -> ()
  %g3d = tensor.cast %g3 : tensor<4x6xf32> to tensor<?x?xf32>
  call @mismatches(%g3d, %fulld) : (tensor<?x?xf32>, tensor<?x?xf32>) -> ()
  %fd = tensor.cast %f : tensor<4x6xf32> to tensor<?x?xf32>
  %fed = tensor.cast %fe : tensor<4x6xf32> to tensor<?x?xf32>
  call @mismatches(%fd, %fed) : (tensor<?x?xf32>, tensor<?x?xf32>) -> ()
  return
}
