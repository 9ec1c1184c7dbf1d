//===- Reduce.h - Element-wise reductions between strided views -*- C++ -*-===//
//
// The reductions of partial values (shardrt_reduce) on host memory, walking
// the same rectangles as a copy (CopyPlan). f32, f64, i8, i32, i64 and ui8
// combine natively (integer sums and products wrap around); f16 and bf16 are
// converted to float, combined, and rounded back to nearest even after every
// step. Integer avg is an integer division of the sum (truncating toward
// zero); the sum wraps around as NCCL's integer avg's does, so copies whose
// sum passes the type's range average wrongly (docs/runtime.md).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_REDUCE_H
#define SHARDRT_REDUCE_H

// Only the C ABI is exported (see Runtime.h), whichever header comes first.
#pragma GCC visibility push(default)
#include "shardrt.h"
#pragma GCC visibility pop

#include "Pack.h"

#include <cstdint>
#include <string>

namespace shardc {
namespace rt {

/// "sum", "avg", "max", "min", "product", or "op <n>" when unknown.
std::string reduceName(int32_t op);
/// Whether `op` is a shardrt_reduce.
bool isReduceOp(int32_t op);

/// dst = op(dst, src), element by element, for two views of the same sizes
/// holding `dtype` elements. avg sums (divideView divides afterwards). max
/// and min propagate NaN.
void reduceView(const View &src, const View &dst, shardrt_dtype dtype,
                shardrt_reduce op);

/// Divides every element of `view` by `count` > 0: the avg of `count`
/// summed partial values. Integers: division truncating toward zero.
void divideView(const View &view, int64_t count, shardrt_dtype dtype);

/// reduceView and divideView with the copy planned beforehand (for elements
/// of `dtype`'s size; divide: from a view to itself): `src` and `dst` (or
/// `data`) address the views' first elements.
void reducePlanned(const CopyPlan &plan, const char *src, char *dst,
                   shardrt_dtype dtype, shardrt_reduce op);
void dividePlanned(const CopyPlan &plan, char *data, int64_t count,
                   shardrt_dtype dtype);

/// IEEE half and bfloat16 to and from float; to them, round to nearest even
/// (overflow gives infinity, NaN stays a quiet NaN).
float floatFromHalf(uint16_t bits);
uint16_t halfFromFloat(float value);
float floatFromBf16(uint16_t bits);
uint16_t bf16FromFloat(float value);

} // namespace rt
} // namespace shardc

#endif // SHARDRT_REDUCE_H
