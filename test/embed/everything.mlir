// shardc's ops and upstream's vector ops in one program, for everything-opt
// (run.sh): on 2 ranks, a 4x6 tensor of 10 * i + j chunked by columns; each
// rank prints row 2 of its block and row 2 of the gathered tensor, both read
// by vector.transfer_read (which bufferizes only with the vector dialect's
// bufferization model, registered by shardc::registerEverything).
!s = !shard.tensor<4x6xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>

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
  %s = shard.distribute %full from rank 0 : tensor<4x6xf32> -> !s
  %block = shard.local_shards %s : !s -> tensor<4x3xf32>
  %all = shard.all_gather %s : !s -> tensor<4x6xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %pad = arith.constant -1.0 : f32
  %mine = vector.transfer_read %block[%c2, %c0], %pad : tensor<4x3xf32>, vector<3xf32>
  %row = vector.transfer_read %all[%c2, %c0], %pad : tensor<4x6xf32>, vector<6xf32>
  vector.print %mine : vector<3xf32>
  vector.print %row : vector<6xf32>
  return
}
