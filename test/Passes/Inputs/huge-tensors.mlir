// Byte counts that do not fit int64 are diagnosed, never wrapped (used by
// shard-plan-report.mlir, with -verify-diagnostics).

// f64[2^62] is 2^65 bytes: no byte count of a plan can hold it (it used to
// be reported as "0 B", and planned as if nothing moved).
!a = !shard.tensor<4611686018427387904xf64, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>>
!b = !shard.tensor<4611686018427387904xf64, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
func.func @too_big(%a: !a) -> !b {
  // expected-error @+2 {{cannot plan '!shard.tensor<4611686018427387904xf64, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>>': the tensor holds more than 2^63 - 1 bytes (4611686018427387904 elements of 'f64'), which no byte count of a plan can hold}}
  // expected-error @+1 {{placements = [R]>>': the tensor holds more than 2^63 - 1 bytes}}
  %b = shard.redistribute %a : !a -> !b
  return %b : !b
}

// -----

// i8[2^63 - 1] fits, but the bytes all ranks receive (and the lower bound)
// add up past 2^63 - 1 on 3 ranks (the lower bound used to be printed
// negative). On 2 ranks they are 2^63 - 1 exactly (the last case).
!a = !shard.tensor<9223372036854775807xi8, #shard.placements<mesh = #shard.mesh<shape = [3]>, placements = [S(0)]>>
!b = !shard.tensor<9223372036854775807xi8, #shard.placements<mesh = #shard.mesh<shape = [3]>, placements = [R]>>
func.func @sums_too_big(%a: !a) -> !b {
  // expected-error @+1 {{cannot report the plan of this op: its byte counts (bytes received by all ranks, or the lower bound) exceed 2^63 - 1}}
  %b = shard.redistribute %a : !a -> !b
  return %b : !b
}

// -----

// i8[2^62] S(0) -> R on 2 ranks: 2^62 bytes received in all, exactly.
!a = !shard.tensor<4611686018427387904xi8, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>>
!b = !shard.tensor<4611686018427387904xi8, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
func.func @large(%a: !a) -> !b {
  %b = shard.redistribute %a : !a -> !b
  return %b : !b
}

// -----

// i8[2^63 - 1] S(0) -> R on 2 ranks: 2^63 - 1 bytes received in all, and a
// lower bound of as many, counted exactly (in doubles it rounded to 2^63).
!a = !shard.tensor<9223372036854775807xi8, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [S(0)]>>
!b = !shard.tensor<9223372036854775807xi8, #shard.placements<mesh = #shard.mesh<shape = [2]>, placements = [R]>>
func.func @exact(%a: !a) -> !b {
  %b = shard.redistribute %a : !a -> !b
  return %b : !b
}
