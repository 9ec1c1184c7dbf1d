// RUN: shard-opt %s -shard-check-lowered -split-input-file -verify-diagnostics | FileCheck %s

// -shard-check-lowered (the shard-to-llvm pipeline's last pass): an op of a
// dialect the pipeline lowers, left after every conversion, is named at its
// location; arithmetic on float types of fewer than 16 bits (what IREE's
// small-float tests compute) is said so. The module failed only when
// translated to LLVM IR before ("could not convert to LLVM IR").
func.func @f8(%a: f8E5M2) -> f8E5M2 {
  // expected-error @+1 {{'arith.addf' has no LLVM form after the shard-to-llvm pipeline's conversions: MLIR 22 lowers no arithmetic on 'f8E5M2' (float types of fewer than 16 bits are moved as bytes, but not computed on)}}
  %r = arith.addf %a, %a : f8E5M2
  return %r : f8E5M2
}

// -----

// Another op left: named, without the small-float words.
llvm.func @left(%a: i64) -> i64 {
  // expected-error @+1 {{'arith.addi' has no LLVM form after the shard-to-llvm pipeline's conversions}}
  %r = arith.addi %a, %a : i64
  llvm.return %r : i64
}

// -----

// Only a cast left: the value of one type used where another is.
llvm.func @cast(%a: i64) -> i64 {
  // expected-error @+1 {{'builtin.unrealized_conversion_cast' has no LLVM form after the shard-to-llvm pipeline's conversions: a conversion left a value of one type where another is used}}
  %c = builtin.unrealized_conversion_cast %a : i64 to index
  %d = builtin.unrealized_conversion_cast %c : index to i64
  llvm.return %d : i64
}

// -----

// Fully lowered: nothing to say.
// CHECK-LABEL: llvm.func @lowered
llvm.func @lowered(%a: i64) -> i64 {
  %r = llvm.add %a, %a : i64
  llvm.return %r : i64
}
