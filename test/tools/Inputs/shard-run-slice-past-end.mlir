// Steps 0 .. @STEPS@ - 1 of a 6-row sequence: @steps sums the rows it
// reads at the step, @written writes each step's row back at the step
// too. Past the sequence's end at 7 steps.
#m = #shard.mesh<shape = [2]>
func.func @steps(%xs: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> (tensor<4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant @STEPS@ : index
  %z = arith.constant dense<0.0> : tensor<4xf32>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%acc = %z) -> (tensor<4xf32>) {
    %x = tensor.extract_slice %xs[%t, 0] [1, 4] [1, 1] : tensor<6x4xf32> to tensor<4xf32>
    %y = arith.addf %acc, %x : tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

func.func @written(%xs: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> (tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant @STEPS@ : index
  %e = arith.constant dense<0.0> : tensor<6x4xf32>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%o = %e) -> (tensor<6x4xf32>) {
    %x = tensor.extract_slice %xs[%t, 0] [1, 4] [1, 1] : tensor<6x4xf32> to tensor<4xf32>
    %y = arith.addf %x, %x : tensor<4xf32>
    %u = tensor.insert_slice %y into %o[%t, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<6x4xf32>
    scf.yield %u : tensor<6x4xf32>
  }
  return %r : tensor<6x4xf32>
}

// Written only (no read at the step): MLIR's checks cover extract_slice
// alone; shard-run checks each insert at a run-time offset as the
// extract_slice of its destination there.
func.func @inserted(%xs: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> (tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant @STEPS@ : index
  %row = arith.constant dense<2.0> : tensor<4xf32>
  %r = scf.for %t = %c0 to %n step %c1 iter_args(%o = %xs) -> (tensor<6x4xf32>) {
    %u = tensor.insert_slice %row into %o[%t, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<6x4xf32>
    scf.yield %u : tensor<6x4xf32>
  }
  return %r : tensor<6x4xf32>
}

// A lookup of rows by indices read from data, row 6 of 6 asked for at 7
// steps: tensor.extract at an index only the run time knows, checked too
// (a tensor.insert at one as the extract of its destination there).
func.func @looked_up(%table: tensor<6x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> (tensor<2x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %ids = arith.constant dense<[1, @LAST@]> : tensor<2xindex>
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<2xindex>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%id: index, %out: f32):
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%id, %j] : tensor<6x4xf32>
    linalg.yield %v : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// A part of run-time size (all @N rows of %x) written at row @OFF@ of a
// tensor of run-time extent (n rows): past its end at row 1 (in neither a
// run-time offset nor a static shape: checked as the extract_slice of its
// destination there, where the tensor has a dim of run-time size).
func.func @part(%x: tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %d: tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) -> (tensor<?x4xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(1)]>}) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %w = tensor.insert_slice %x into %d[@OFF@, 0] [%n, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  return %w : tensor<?x4xf32>
}
