// A static padding of INT64_MIN reads as a dynamic one with no value: the
// first pass of -shard-to-llvm refuses it, before its canonicalizer (which
// crashed, reading an operand that is not there). For shard-to-llvm-pipeline.mlir.
func.func @f(%x: tensor<10x16xf32>) -> tensor<12x16xf32> {
  %cst = arith.constant 0.5 : f32
  // expected-error @+1 {{'tensor.pad' op names more dynamic paddings than it has values (a static padding of -9223372036854775808 reads as a dynamic one)}}
  %p = tensor.pad %x low[-9223372036854775808, 0] high[3, 0] {
  ^bb0(%a: index, %b: index):
    tensor.yield %cst : f32
  } : tensor<10x16xf32> to tensor<12x16xf32>
  return %p : tensor<12x16xf32>
}
