// Slices at offsets only the run time knows: a recurrence reading its step
// t of a sequence and writing its output back at t (tensor.extract_slice
// and tensor.insert_slice at an scf.for's induction variable, as an RNN or
// an LSTM over layers is written; lagrad's LSTM benchmark has this form).
// Such a slice was refused ("dynamic offsets ... sharding needs static
// ones", found by a sweep of real models' IR); its rule now reads the
// source whole along a dim sliced at a run-time offset (no window: which
// blocks hold its parts is not known) while every other dim keeps its
// loop, and an insert places, on each rank, the part landing in its block,
// found at run time. Cheapest, nothing moves: the batch cut (data
// parallelism) of an Elman RNN, and the hidden features cut of an LSTM
// whose per-layer weights and states are sliced at the layer (written with
// arith ops, and as lagrad writes it: f64 payloads calling a sigmoid). Also run,
// every element checked (not the cheapest plan asked for): the time dim
// itself cut (each step read from the rank holding it, written back where
// it lands), and strided slices at run-time offsets whose static dims are
// cut (the source moved whole there first; the insert's window of a
// static dim kept). On 2, 3 and 4 ranks, each also with alpha-us=0 and
// search=greedy.
// REQUIRES: mpi
// RUN: sed -e 's/@N@/2/g' %s > %t.2.mlir
// RUN: sed -e 's/@N@/3/g' %s > %t.3.mlir
// RUN: sed -e 's/@N@/4/g' %s > %t.4.mlir
// RUN: for n in 2 3 4; do for o in exact-ops=200 alpha-us=0 search=greedy; do %mpirun -np $n %shard-run %t.$n.mlir --entry rnn_batch_cut,lstm_hidden_cut,lstm_payload_calls --check --propagate=$o; done; done 2>&1 | FileCheck %s --check-prefix=FREE --implicit-check-not=MISMATCH --implicit-check-not=error --implicit-check-not=warning
// FREE-COUNT-81: OK, {{[0-9]+}} elements checked, received 0 bytes
// RUN: for n in 2 3 4; do for o in exact-ops=200 alpha-us=0 search=greedy; do %mpirun -np $n %shard-run %t.$n.mlir --entry time_cut,strided --check --propagate=$o; done; done 2>&1 | FileCheck %s --check-prefix=MOVES --implicit-check-not=MISMATCH --implicit-check-not=error --implicit-check-not=warning
// MOVES-COUNT-54: OK, {{[0-9]+}} elements checked

#m = #shard.mesh<shape = [@N@]>
#S0 = #shard.placements<mesh = #m, placements = [S(0)]>
#S1 = #shard.placements<mesh = #m, placements = [S(1)]>
#S2 = #shard.placements<mesh = #m, placements = [S(2)]>
#S3 = #shard.placements<mesh = #m, placements = [S(3)]>
#R = #shard.placements<mesh = #m, placements = [R]>
#elt = affine_map<(d0) -> (d0)>

// h_t = tanh(h_{t-1} W + x_t) over 6 steps of a batch of 5: the batch cut.
func.func @rnn_batch_cut(%xs: tensor<6x5x8xf32> {shard.layout = #S1}, %h0: tensor<5x8xf32> {shard.layout = #S0}, %w: tensor<8x8xf32> {shard.layout = #R}) -> (tensor<5x8xf32> {shard.layout = #S0}, tensor<6x5x8xf32> {shard.layout = #S1}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<5x8xf32>) -> tensor<5x8xf32>
  %outs0 = tensor.empty() : tensor<6x5x8xf32>
  %r:2 = scf.for %t = %c0 to %c6 step %c1 iter_args(%h = %h0, %outs = %outs0) -> (tensor<5x8xf32>, tensor<6x5x8xf32>) {
    %x = tensor.extract_slice %xs[%t, 0, 0] [1, 5, 8] [1, 1, 1] : tensor<6x5x8xf32> to tensor<5x8xf32>
    %mm = linalg.matmul ins(%h, %w : tensor<5x8xf32>, tensor<8x8xf32>) outs(%z : tensor<5x8xf32>) -> tensor<5x8xf32>
    %a = arith.addf %mm, %x : tensor<5x8xf32>
    %hn = math.tanh %a : tensor<5x8xf32>
    %o = tensor.insert_slice %hn into %outs[%t, 0, 0] [1, 5, 8] [1, 1, 1] : tensor<5x8xf32> into tensor<6x5x8xf32>
    scf.yield %hn, %o : tensor<5x8xf32>, tensor<6x5x8xf32>
  }
  return %r#0, %r#1 : tensor<5x8xf32>, tensor<6x5x8xf32>
}

// An LSTM of 3 layers over 12 features, elementwise gates: each layer's
// gate weights and biases sliced out of one parameter tensor at [layer,
// weight or bias, gate], its hidden and cell state out of one state tensor
// at [layer, h or c], the new state written back there. The features cut.
func.func @lstm_hidden_cut(%params: tensor<3x2x4x12xf32> {shard.layout = #S3}, %state0: tensor<3x2x12xf32> {shard.layout = #S2}, %x: tensor<12xf32> {shard.layout = #S0}) -> (tensor<12xf32> {shard.layout = #S0}, tensor<3x2x12xf32> {shard.layout = #S2}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %one = arith.constant dense<1.0> : tensor<12xf32>
  %r:2 = scf.for %l = %c0 to %c3 step %c1 iter_args(%in = %x, %st = %state0) -> (tensor<12xf32>, tensor<3x2x12xf32>) {
    %fw = tensor.extract_slice %params[%l, 0, 0, 0] [1, 1, 1, 12] [1, 1, 1, 1] : tensor<3x2x4x12xf32> to tensor<12xf32>
    %fb = tensor.extract_slice %params[%l, 1, 0, 0] [1, 1, 1, 12] [1, 1, 1, 1] : tensor<3x2x4x12xf32> to tensor<12xf32>
    %iw = tensor.extract_slice %params[%l, 0, 1, 0] [1, 1, 1, 12] [1, 1, 1, 1] : tensor<3x2x4x12xf32> to tensor<12xf32>
    %ib = tensor.extract_slice %params[%l, 1, 1, 0] [1, 1, 1, 12] [1, 1, 1, 1] : tensor<3x2x4x12xf32> to tensor<12xf32>
    %ow = tensor.extract_slice %params[%l, 0, 2, 0] [1, 1, 1, 12] [1, 1, 1, 1] : tensor<3x2x4x12xf32> to tensor<12xf32>
    %ob = tensor.extract_slice %params[%l, 1, 2, 0] [1, 1, 1, 12] [1, 1, 1, 1] : tensor<3x2x4x12xf32> to tensor<12xf32>
    %cw = tensor.extract_slice %params[%l, 0, 3, 0] [1, 1, 1, 12] [1, 1, 1, 1] : tensor<3x2x4x12xf32> to tensor<12xf32>
    %cb = tensor.extract_slice %params[%l, 1, 3, 0] [1, 1, 1, 12] [1, 1, 1, 1] : tensor<3x2x4x12xf32> to tensor<12xf32>
    %h = tensor.extract_slice %st[%l, 0, 0] [1, 1, 12] [1, 1, 1] : tensor<3x2x12xf32> to tensor<12xf32>
    %c = tensor.extract_slice %st[%l, 1, 0] [1, 1, 12] [1, 1, 1] : tensor<3x2x12xf32> to tensor<12xf32>
    // forget = sigmoid(in * fw + fb), and the others alike.
    %f1 = arith.mulf %in, %fw : tensor<12xf32>
    %f2 = arith.addf %f1, %fb : tensor<12xf32>
    %f3 = arith.negf %f2 : tensor<12xf32>
    %f4 = math.exp %f3 : tensor<12xf32>
    %f5 = arith.addf %one, %f4 : tensor<12xf32>
    %forget = arith.divf %one, %f5 : tensor<12xf32>
    %i1 = arith.mulf %h, %iw : tensor<12xf32>
    %i2 = arith.addf %i1, %ib : tensor<12xf32>
    %i3 = arith.negf %i2 : tensor<12xf32>
    %i4 = math.exp %i3 : tensor<12xf32>
    %i5 = arith.addf %one, %i4 : tensor<12xf32>
    %ingate = arith.divf %one, %i5 : tensor<12xf32>
    %o1 = arith.mulf %in, %ow : tensor<12xf32>
    %o2 = arith.addf %o1, %ob : tensor<12xf32>
    %o3 = arith.negf %o2 : tensor<12xf32>
    %o4 = math.exp %o3 : tensor<12xf32>
    %o5 = arith.addf %one, %o4 : tensor<12xf32>
    %outgate = arith.divf %one, %o5 : tensor<12xf32>
    %g1 = arith.mulf %h, %cw : tensor<12xf32>
    %g2 = arith.addf %g1, %cb : tensor<12xf32>
    %change = math.tanh %g2 : tensor<12xf32>
    %k1 = arith.mulf %c, %forget : tensor<12xf32>
    %k2 = arith.mulf %ingate, %change : tensor<12xf32>
    %cn = arith.addf %k1, %k2 : tensor<12xf32>
    %st1 = tensor.insert_slice %cn into %st[%l, 1, 0] [1, 1, 12] [1, 1, 1] : tensor<12xf32> into tensor<3x2x12xf32>
    %tc = math.tanh %cn : tensor<12xf32>
    %hn = arith.mulf %outgate, %tc : tensor<12xf32>
    %st2 = tensor.insert_slice %hn into %st1[%l, 0, 0] [1, 1, 12] [1, 1, 1] : tensor<12xf32> into tensor<3x2x12xf32>
    scf.yield %hn, %st2 : tensor<12xf32>, tensor<3x2x12xf32>
  }
  return %r#0, %r#1 : tensor<12xf32>, tensor<3x2x12xf32>
}

// The sequence cut along time.
func.func @time_cut(%xs: tensor<6x5x8xf32> {shard.layout = #S0}, %h0: tensor<5x8xf32> {shard.layout = #R}, %w: tensor<8x8xf32> {shard.layout = #R}) -> (tensor<5x8xf32> {shard.layout = #R}, tensor<6x5x8xf32> {shard.layout = #S0}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<5x8xf32>) -> tensor<5x8xf32>
  %outs0 = tensor.empty() : tensor<6x5x8xf32>
  %r:2 = scf.for %t = %c0 to %c6 step %c1 iter_args(%h = %h0, %outs = %outs0) -> (tensor<5x8xf32>, tensor<6x5x8xf32>) {
    %x = tensor.extract_slice %xs[%t, 0, 0] [1, 5, 8] [1, 1, 1] : tensor<6x5x8xf32> to tensor<5x8xf32>
    %mm = linalg.matmul ins(%h, %w : tensor<5x8xf32>, tensor<8x8xf32>) outs(%z : tensor<5x8xf32>) -> tensor<5x8xf32>
    %a = arith.addf %mm, %x : tensor<5x8xf32>
    %hn = math.tanh %a : tensor<5x8xf32>
    %o = tensor.insert_slice %hn into %outs[%t, 0, 0] [1, 5, 8] [1, 1, 1] : tensor<5x8xf32> into tensor<6x5x8xf32>
    scf.yield %hn, %o : tensor<5x8xf32>, tensor<6x5x8xf32>
  }
  return %r#0, %r#1 : tensor<5x8xf32>, tensor<6x5x8xf32>
}

// Rows t, t + 2, t + 4 and every other column from t of a matrix whose
// columns are cut, squared and written back at stride 2 into a matrix
// whose rows are cut; and a row of 4 cut elements written at stride 2 from
// column 3 of row t (a static window beside the run-time offset).
func.func @strided(%a: tensor<7x12xf32> {shard.layout = #S1}, %b: tensor<7x12xf32> {shard.layout = #S0}, %row: tensor<4xf32> {shard.layout = #S0}) -> (tensor<7x12xf32> {shard.layout = #S1}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %t = %c0 to %c3 step %c1 iter_args(%acc = %b) -> (tensor<7x12xf32>) {
    %col = tensor.extract_slice %a[%t, %t] [3, 5] [2, 2] : tensor<7x12xf32> to tensor<3x5xf32>
    %d = arith.mulf %col, %col : tensor<3x5xf32>
    %u = tensor.insert_slice %d into %acc[%t, %t] [3, 5] [2, 2] : tensor<3x5xf32> into tensor<7x12xf32>
    %v = tensor.insert_slice %row into %u[%t, 3] [1, 4] [1, 2] : tensor<4xf32> into tensor<7x12xf32>
    scf.yield %v : tensor<7x12xf32>
  }
  return %r : tensor<7x12xf32>
}

// lagrad's LSTM prediction in its own form (written here): f64, the gates
// as linalg.generic payloads, one calling a scalar sigmoid function; the
// parameters sliced at [layer, weight or bias, gate], the state read and
// written back at [layer, h or c]; the features cut.
func.func private @sig(%x: f64) -> f64 {
  %one = arith.constant 1.0 : f64
  %n = arith.negf %x : f64
  %e = math.exp %n : f64
  %d = arith.addf %one, %e : f64
  %f = arith.divf %one, %d : f64
  return %f : f64
}
func.func @lstm_payload_calls(%params: tensor<2x2x4x14xf64> {shard.layout = #S3}, %extra: tensor<3x14xf64> {shard.layout = #S1}, %state0: tensor<2x2x14xf64> {shard.layout = #S2}, %x: tensor<14xf64> {shard.layout = #S0}) -> (tensor<14xf64> {shard.layout = #S0}) {
  %w0 = tensor.extract_slice %extra[0, 0] [1, 14] [1, 1] : tensor<3x14xf64> to tensor<14xf64>
  %x2 = arith.mulf %x, %w0 : tensor<14xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant dense<0.0> : tensor<14xf64>
  %out:2 = scf.for %l = %c0 to %c2 step %c1 iter_args(%in = %x2, %st = %state0) -> (tensor<14xf64>, tensor<2x2x14xf64>) {
    %fw = tensor.extract_slice %params[%l, 0, 0, 0] [1, 1, 1, 14] [1, 1, 1, 1] : tensor<2x2x4x14xf64> to tensor<14xf64>
    %fb = tensor.extract_slice %params[%l, 1, 0, 0] [1, 1, 1, 14] [1, 1, 1, 1] : tensor<2x2x4x14xf64> to tensor<14xf64>
    %cw = tensor.extract_slice %params[%l, 0, 3, 0] [1, 1, 1, 14] [1, 1, 1, 1] : tensor<2x2x4x14xf64> to tensor<14xf64>
    %cb = tensor.extract_slice %params[%l, 1, 3, 0] [1, 1, 1, 14] [1, 1, 1, 1] : tensor<2x2x4x14xf64> to tensor<14xf64>
    %h = tensor.extract_slice %st[%l, 0, 0] [1, 1, 14] [1, 1, 1] : tensor<2x2x14xf64> to tensor<14xf64>
    %c = tensor.extract_slice %st[%l, 1, 0] [1, 1, 14] [1, 1, 1] : tensor<2x2x14xf64> to tensor<14xf64>
    %forget = linalg.generic {indexing_maps = [#elt, #elt, #elt, #elt], iterator_types = ["parallel"]} ins(%in, %fw, %fb : tensor<14xf64>, tensor<14xf64>, tensor<14xf64>) outs(%zero : tensor<14xf64>) {
    ^bb0(%a: f64, %w: f64, %b: f64, %o: f64):
      %p = arith.mulf %a, %w : f64
      %q = arith.addf %p, %b : f64
      %s = func.call @sig(%q) : (f64) -> f64
      linalg.yield %s : f64
    } -> tensor<14xf64>
    %change = linalg.generic {indexing_maps = [#elt, #elt, #elt, #elt], iterator_types = ["parallel"]} ins(%h, %cw, %cb : tensor<14xf64>, tensor<14xf64>, tensor<14xf64>) outs(%zero : tensor<14xf64>) {
    ^bb0(%a: f64, %w: f64, %b: f64, %o: f64):
      %p = arith.mulf %a, %w : f64
      %q = arith.addf %p, %b : f64
      %t = math.tanh %q : f64
      linalg.yield %t : f64
    } -> tensor<14xf64>
    %cn = linalg.generic {indexing_maps = [#elt, #elt, #elt, #elt], iterator_types = ["parallel"]} ins(%c, %forget, %change : tensor<14xf64>, tensor<14xf64>, tensor<14xf64>) outs(%zero : tensor<14xf64>) {
    ^bb0(%a: f64, %f: f64, %g: f64, %o: f64):
      %p = arith.mulf %a, %f : f64
      %q = arith.addf %p, %g : f64
      linalg.yield %q : f64
    } -> tensor<14xf64>
    %st1 = tensor.insert_slice %cn into %st[%l, 1, 0] [1, 1, 14] [1, 1, 1] : tensor<14xf64> into tensor<2x2x14xf64>
    %hn = linalg.generic {indexing_maps = [#elt, #elt, #elt], iterator_types = ["parallel"]} ins(%forget, %cn : tensor<14xf64>, tensor<14xf64>) outs(%zero : tensor<14xf64>) {
    ^bb0(%a: f64, %b: f64, %o: f64):
      %t = math.tanh %b : f64
      %p = arith.mulf %a, %t : f64
      linalg.yield %p : f64
    } -> tensor<14xf64>
    %st2 = tensor.insert_slice %hn into %st1[%l, 0, 0] [1, 1, 14] [1, 1, 1] : tensor<14xf64> into tensor<2x2x14xf64>
    scf.yield %hn, %st2 : tensor<14xf64>, tensor<2x2x14xf64>
  }
  %w1 = tensor.extract_slice %extra[1, 0] [1, 14] [1, 1] : tensor<3x14xf64> to tensor<14xf64>
  %w2 = tensor.extract_slice %extra[2, 0] [1, 14] [1, 1] : tensor<3x14xf64> to tensor<14xf64>
  %y = linalg.generic {indexing_maps = [#elt, #elt, #elt, #elt], iterator_types = ["parallel"]} ins(%out#0, %w1, %w2 : tensor<14xf64>, tensor<14xf64>, tensor<14xf64>) outs(%zero : tensor<14xf64>) {
  ^bb0(%a: f64, %w: f64, %b: f64, %o: f64):
    %p = arith.mulf %a, %w : f64
    %q = arith.addf %p, %b : f64
    linalg.yield %q : f64
  } -> tensor<14xf64>
  return %y : tensor<14xf64>
}
