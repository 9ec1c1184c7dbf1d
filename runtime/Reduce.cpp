//===- Reduce.cpp - Element-wise reductions between strided views ---------===//

#include "Reduce.h"

#include <cmath>
#include <cstring>
#include <type_traits>

namespace shardc {
namespace rt {

namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}

/// An element type whose values are stored as `Storage` and combined as
/// `Value` (itself, or float for f16 and bf16).
template <typename T> struct Native {
  using Storage = T;
  using Value = T;
  static T load(T v) { return v; }
  static T store(T v) { return v; }
};
struct Half {
  using Storage = uint16_t;
  using Value = float;
  static float load(uint16_t v) { return floatFromHalf(v); }
  static uint16_t store(float v) { return halfFromFloat(v); }
};
struct Bf16 {
  using Storage = uint16_t;
  using Value = float;
  static float load(uint16_t v) { return floatFromBf16(v); }
  static uint16_t store(float v) { return bf16FromFloat(v); }
};

/// a + b and a * b; integers wrap around (no undefined overflow).
template <typename V> V add(V a, V b) {
  if constexpr (std::is_integral_v<V>) {
    using U = std::make_unsigned_t<V>;
    return static_cast<V>(
        static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename V> V multiply(V a, V b) {
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
/// The larger (smaller) of a and b, NaN when either is.
template <typename V> V maximum(V a, V b) { return (b > a || b != b) ? b : a; }
template <typename V> V minimum(V a, V b) { return (b < a || b != b) ? b : a; }

/// dst[i] = fn(dst[i], src[i]) over the rectangles of `plan`.
template <typename E, typename Fn>
void combine(const CopyPlan &plan, const char *src, char *dst, Fn fn) {
  using S = typename E::Storage;
  constexpr int64_t es = sizeof(S);
  plan.forEach([&](const Copy2D &c) {
    const int64_t n = c.width / es;
    for (int64_t r = 0; r < c.height; ++r) {
      const char *s = src + c.srcOffset + r * c.srcPitch;
      char *d = dst + c.dstOffset + r * c.dstPitch;
      for (int64_t k = 0; k < n; ++k) {
        S a, b;
        std::memcpy(&a, d + k * es, es);
        std::memcpy(&b, s + k * es, es);
        a = E::store(fn(E::load(a), E::load(b)));
        std::memcpy(d + k * es, &a, es);
      }
    }
  });
}

template <typename E>
void reduceTyped(const CopyPlan &plan, const char *src, char *dst,
                 shardrt_reduce op) {
  using V = typename E::Value;
  switch (op) {
  case SHARDRT_SUM:
  case SHARDRT_AVG:
    return combine<E>(plan, src, dst, add<V>);
  case SHARDRT_MAX:
    return combine<E>(plan, src, dst, maximum<V>);
  case SHARDRT_MIN:
    return combine<E>(plan, src, dst, minimum<V>);
  case SHARDRT_PRODUCT:
    return combine<E>(plan, src, dst, multiply<V>);
  }
}

template <typename E>
void divideTyped(const CopyPlan &plan, char *data, int64_t count) {
  using V = typename E::Value;
  combine<E>(plan, data, data, [count](V a, V) -> V {
    if constexpr (std::is_integral_v<V> && std::is_signed_v<V>)
      return static_cast<V>(static_cast<int64_t>(a) / count);
    else if constexpr (std::is_integral_v<V>)
      return static_cast<V>(static_cast<uint64_t>(a) /
                            static_cast<uint64_t>(count));
    else
      return a / static_cast<V>(count);
  });
}

/// Calls `fn(E())` with the element traits of `dtype`.
template <typename Fn> void withElement(shardrt_dtype dtype, Fn &&fn) {
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
  case SHARDRT_U8:
    return fn(Native<uint8_t>());
  }
}

} // namespace

std::string reduceName(int32_t op) {
  switch (op) {
  case SHARDRT_SUM:
    return "sum";
  case SHARDRT_AVG:
    return "avg";
  case SHARDRT_MAX:
    return "max";
  case SHARDRT_MIN:
    return "min";
  case SHARDRT_PRODUCT:
    return "product";
  default:
    return "op " + std::to_string(op);
  }
}

bool isReduceOp(int32_t op) {
  return op >= SHARDRT_SUM && op <= SHARDRT_PRODUCT;
}

void reduceView(const View &src, const View &dst, shardrt_dtype dtype,
                shardrt_reduce op) {
  withElement(dtype, [&](auto element) {
    using E = decltype(element);
    const CopyPlan plan(src.sizes, src.strides, dst.strides,
                        sizeof(typename E::Storage));
    reduceTyped<E>(plan, src.data, dst.data, op);
  });
}

void divideView(const View &view, int64_t count, shardrt_dtype dtype) {
  withElement(dtype, [&](auto element) {
    using E = decltype(element);
    const CopyPlan plan(view.sizes, view.strides, view.strides,
                        sizeof(typename E::Storage));
    divideTyped<E>(plan, view.data, count);
  });
}

void reducePlanned(const CopyPlan &plan, const char *src, char *dst,
                   shardrt_dtype dtype, shardrt_reduce op) {
  withElement(dtype, [&](auto element) {
    using E = decltype(element);
    reduceTyped<E>(plan, src, dst, op);
  });
}

void dividePlanned(const CopyPlan &plan, char *data, int64_t count,
                   shardrt_dtype dtype) {
  withElement(dtype, [&](auto element) {
    using E = decltype(element);
    divideTyped<E>(plan, data, count);
  });
}

float floatFromHalf(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1f;
  const uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0x1f)
    return floatOf(sign | 0x7f800000 | (mantissa << 13));
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float.
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return floatOf(sign | bitsOf(magnitude));
  }
  return floatOf(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t halfFromFloat(float value) {
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

float floatFromBf16(uint16_t bits) {
  return floatOf(static_cast<uint32_t>(bits) << 16);
}

uint16_t bf16FromFloat(float value) {
  const uint32_t x = bitsOf(value);
  if ((x & 0x7fffffff) > 0x7f800000)
    return static_cast<uint16_t>((x >> 16) | 0x40);
  return static_cast<uint16_t>((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

} // namespace rt
} // namespace shardc
