//===- ElementOps.h - Element conversions and reductions, host and device -===//
//
// The arithmetic of redistribute_reduce, one definition for the host (MPI
// backend) and the device (the NCCL backend's CUDA kernels), so that both
// combine and round alike: f16 and bf16 combine in float and round to
// nearest even, integer sums and products wrap around, max and min
// propagate NaN, integer avg truncates toward zero.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_ELEMENT_OPS_H
#define SHARDRT_ELEMENT_OPS_H

#pragma GCC visibility push(default)
#include "shardrt.h"
#pragma GCC visibility pop

#include <cstdint>
#include <cstring>
#include <type_traits>

#ifdef __CUDACC__
#define SHARDRT_HD __host__ __device__ __forceinline__
#define SHARDRT_UNROLL _Pragma("unroll")
#else
#define SHARDRT_HD inline
#define SHARDRT_UNROLL
#endif

namespace shardc {
namespace rt {
namespace ops {

SHARDRT_HD uint32_t bitsOf(float value) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(value);
#else
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
#endif
}

SHARDRT_HD float floatOf(uint32_t bits) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(bits);
#else
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
#endif
}

SHARDRT_HD float floatFromHalf(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1f;
  const uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0x1f)
    return floatOf(sign | 0x7f800000 | (mantissa << 13));
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float.
    const float magnitude =
        static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return floatOf(sign | bitsOf(magnitude));
  }
  return floatOf(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

SHARDRT_HD uint16_t halfFromFloat(float value) {
  uint32_t x = bitsOf(value);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  x &= 0x7fffffff;
  if (x > 0x7f800000) // NaN: quiet, keeping the top of the payload.
    return sign | 0x7e00 | ((x >> 13) & 0x3ff);
  if (x >= 0x47800000) // 2^16 and beyond (infinity included).
    return sign | 0x7c00;
  if (x < 0x38800000) {
    // Below the smallest normal half (2^-14): a multiple of 2^-24. At most
    // 2^-25 (the tie with zero included) rounds to zero.
    if (x <= 0x33000000)
      return sign;
    const uint32_t exponent = x >> 23;
    const uint32_t significand = (x & 0x7fffff) | 0x800000;
    const uint32_t shift = 126 - exponent;
    uint32_t units = significand >> shift;
    const uint32_t rest = significand & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (units & 1)))
      ++units;
    return static_cast<uint16_t>(sign | units);
  }
  // Normal: round the 13 dropped bits to nearest even (a carry may reach
  // the exponent, up to infinity), then rebias the exponent (127 - 15).
  const uint32_t rounded = x + 0xfff + ((x >> 13) & 1);
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000) >> 13));
}

SHARDRT_HD float floatFromBf16(uint16_t bits) {
  return floatOf(static_cast<uint32_t>(bits) << 16);
}

SHARDRT_HD uint16_t bf16FromFloat(float value) {
  const uint32_t x = bitsOf(value);
  if ((x & 0x7fffffff) > 0x7f800000)
    return static_cast<uint16_t>((x >> 16) | 0x40);
  return static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

/// An element type whose values are stored as `Storage` and combined as
/// `Value` (itself, or float for f16 and bf16).
template <typename T> struct Native {
  using Storage = T;
  using Value = T;
  static SHARDRT_HD T load(T v) { return v; }
  static SHARDRT_HD T store(T v) { return v; }
};
struct Half {
  using Storage = uint16_t;
  using Value = float;
  static SHARDRT_HD float load(uint16_t v) { return floatFromHalf(v); }
  static SHARDRT_HD uint16_t store(float v) { return halfFromFloat(v); }
};
struct Bf16 {
  using Storage = uint16_t;
  using Value = float;
  static SHARDRT_HD float load(uint16_t v) { return floatFromBf16(v); }
  static SHARDRT_HD uint16_t store(float v) { return bf16FromFloat(v); }
};

/// a + b and a * b; integers wrap around (no undefined overflow).
template <typename V> SHARDRT_HD V add(V a, V b) {
  if constexpr (std::is_integral_v<V>) {
    using U = std::make_unsigned_t<V>;
    return static_cast<V>(
        static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename V> SHARDRT_HD V multiply(V a, V b) {
  if constexpr (std::is_integral_v<V>) {
    // unsigned char promotes to int, whose product of two bytes fits.
    using U = std::conditional_t<sizeof(V) < sizeof(unsigned), unsigned,
                                 std::make_unsigned_t<V>>;
    return static_cast<V>(
        static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}
/// Whether zero `z` is -0.0 (1 / -0.0 is -infinity).
template <typename V> SHARDRT_HD bool isNegativeZero(V z) {
  return z == V(0) && V(1) / z < V(0);
}
/// The larger (smaller) of a and b, NaN when either is, and -0.0 below
/// +0.0, as arith.maximumf and arith.minimumf order them: the same answer
/// whichever comes first (a collective combines the ranks' values in an
/// order of its own; with -0.0 == +0.0 taken as a tie, the answer was the
/// accumulator's).
template <typename V> SHARDRT_HD V maximum(V a, V b) {
  if constexpr (std::is_floating_point_v<V>)
    if (a == b)
      return isNegativeZero(a) ? b : a;
  return (b > a || b != b) ? b : a;
}
template <typename V> SHARDRT_HD V minimum(V a, V b) {
  if constexpr (std::is_floating_point_v<V>)
    if (a == b)
      return isNegativeZero(b) ? b : a;
  return (b < a || b != b) ? b : a;
}
/// a / count for avg: integers truncate toward zero.
template <typename V> SHARDRT_HD V divide(V a, int64_t count) {
  if constexpr (std::is_integral_v<V> && std::is_signed_v<V>)
    return static_cast<V>(static_cast<int64_t>(a) / count);
  else if constexpr (std::is_integral_v<V>)
    return static_cast<V>(static_cast<uint64_t>(a) /
                          static_cast<uint64_t>(count));
  else
    return a / static_cast<V>(count);
}

/// Calls `fn(E())` with the element traits of `dtype` (a checked dtype;
/// any other is taken as ui8).
template <typename Fn>
decltype(auto) withElement(shardrt_dtype dtype, Fn &&fn) {
  switch (dtype) {
  case SHARDRT_F32:
    return fn(Native<float>());
  case SHARDRT_F64:
    return fn(Native<double>());
  case SHARDRT_F16:
    return fn(Half());
  case SHARDRT_BF16:
    return fn(Bf16());
  case SHARDRT_I8:
    return fn(Native<int8_t>());
  case SHARDRT_I32:
    return fn(Native<int32_t>());
  case SHARDRT_I64:
    return fn(Native<int64_t>());
  case SHARDRT_I16:
    return fn(Native<int16_t>());
  case SHARDRT_U16:
    return fn(Native<uint16_t>());
  case SHARDRT_U32:
    return fn(Native<uint32_t>());
  case SHARDRT_U64:
    return fn(Native<uint64_t>());
  case SHARDRT_U8:
  default:
    return fn(Native<uint8_t>());
  }
}

} // namespace ops
} // namespace rt
} // namespace shardc

#endif // SHARDRT_ELEMENT_OPS_H
