//===- Reduce.cpp - Element-wise reductions between strided views ---------===//

#include "Reduce.h"
#include "ElementOps.h"

#include <cmath>
#include <cstring>
#include <type_traits>

namespace shardc {
namespace rt {

namespace {

using namespace ops;

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
  combine<E>(plan, data, data,
             [count](V a, V) -> V { return divide<V>(a, count); });
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

float floatFromHalf(uint16_t bits) { return ops::floatFromHalf(bits); }
uint16_t halfFromFloat(float value) { return ops::halfFromFloat(value); }
float floatFromBf16(uint16_t bits) { return ops::floatFromBf16(bits); }
uint16_t bf16FromFloat(float value) { return ops::bf16FromFloat(value); }

} // namespace rt
} // namespace shardc
