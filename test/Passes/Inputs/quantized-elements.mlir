// Tensors of quantized elements (which no sharded tensor holds) in a
// function that gets layouts: refused at the first one, op by op and by the
// search alike (before: the search crashed sizing their elements).
#m = #shard.mesh<shape = [2], axes = ["x"]>
// expected-error @+1 {{'func.func' op gets layouts and has argument #1 of type 'tensor<4x8x!quant.uniform<i8:f32, 1.000000e-02>>', whose elements no sharded tensor holds (integers, floats, index and complex numbers); keep layouts out of this function}}
func.func @argument(%a: tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}, %q: tensor<4x8x!quant.uniform<i8:f32, 0.01>>) -> (tensor<4x8xf32>, tensor<4x8x!quant.uniform<i8:f32, 0.01>>) {
  %c = tosa.clamp %q {min_val = 0 : i8, max_val = 1 : i8} : (tensor<4x8x!quant.uniform<i8:f32, 0.01>>) -> tensor<4x8x!quant.uniform<i8:f32, 0.01>>
  %b = arith.addf %a, %a : tensor<4x8xf32>
  return %b, %c : tensor<4x8xf32>, tensor<4x8x!quant.uniform<i8:f32, 0.01>>
}

// -----

#m = #shard.mesh<shape = [2], axes = ["x"]>
func.func @made(%a: tensor<4x8xf32> {shard.layout = #shard.placements<mesh = #m, placements = [S(0)]>}) -> (tensor<4x8xf32>, tensor<4x8x!quant.uniform<i8:f32, 0.01>>) {
  %b = arith.addf %a, %a : tensor<4x8xf32>
  // expected-error @+1 {{'tensor.empty' op has a tensor of type 'tensor<4x8x!quant.uniform<i8:f32, 1.000000e-02>>' in a function that gets layouts, whose elements no sharded tensor holds (integers, floats, index and complex numbers); keep layouts out of this function}}
  %e = tensor.empty() : tensor<4x8x!quant.uniform<i8:f32, 0.01>>
  return %b, %e : tensor<4x8xf32>, tensor<4x8x!quant.uniform<i8:f32, 0.01>>
}

// -----

// A function without layouts keeps its quantized tensors.
func.func @untouched(%q: tensor<4x8x!quant.uniform<i8:f32, 0.01>>) -> tensor<4x8x!quant.uniform<i8:f32, 0.01>> {
  %c = tosa.clamp %q {min_val = 0 : i8, max_val = 1 : i8} : (tensor<4x8x!quant.uniform<i8:f32, 0.01>>) -> tensor<4x8x!quant.uniform<i8:f32, 0.01>>
  return %c : tensor<4x8x!quant.uniform<i8:f32, 0.01>>
}
