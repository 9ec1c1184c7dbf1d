//===- ReduceTest.cpp - Element-wise reductions and f16/bf16 rounding -----===//
//
// The conversions of half and bfloat16 to and from float (every value round
// trips; ties round to even; overflow and NaN), and reduceView / divideView
// for every dtype and op between strided views, against a scalar model.
//
//===----------------------------------------------------------------------===//

#include "Reduce.h"
#include "TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace shardrt_test;
using shardc::rt::bf16FromFloat;
using shardc::rt::divideView;
using shardc::rt::floatFromBf16;
using shardc::rt::floatFromHalf;
using shardc::rt::halfFromFloat;
using shardc::rt::reduceView;
using shardc::rt::View;

namespace {

TEST(Half, EveryValueRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = floatFromHalf(static_cast<uint16_t>(h));
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0) {
      EXPECT_TRUE(std::isnan(f)) << h;
      EXPECT_EQ(halfFromFloat(f) & 0x7e00, 0x7e00) << h;
      continue;
    }
    EXPECT_EQ(halfFromFloat(f), h) << "half 0x" << std::hex << h;
  }
  EXPECT_EQ(floatFromHalf(0x3c00), 1.0f);
  EXPECT_EQ(floatFromHalf(0xc000), -2.0f);
  EXPECT_EQ(floatFromHalf(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(floatFromHalf(0x7bff), 65504.0f);
}

TEST(Half, RoundsToNearestEven) {
  // Ties between 1 and the next half (2^-10 apart) go to the even one.
  EXPECT_EQ(halfFromFloat(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(halfFromFloat(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(halfFromFloat(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
            0x3c01);
  // Overflow: 65519 rounds down to the largest half, 65520 to infinity.
  EXPECT_EQ(halfFromFloat(65519.0f), 0x7bff);
  EXPECT_EQ(halfFromFloat(65520.0f), 0x7c00);
  EXPECT_EQ(halfFromFloat(-1e10f), 0xfc00);
  EXPECT_EQ(halfFromFloat(std::numeric_limits<float>::infinity()), 0x7c00);
  // Subnormals: multiples of 2^-24; 2^-25 ties to zero, 3 * 2^-25 to 2.
  EXPECT_EQ(halfFromFloat(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(halfFromFloat(-std::ldexp(1.0f, -25)), 0x8000);
  EXPECT_EQ(halfFromFloat(std::ldexp(1.0f, -25) * 1.0001f), 0x0001);
  EXPECT_EQ(halfFromFloat(3 * std::ldexp(1.0f, -25)), 0x0002);
  EXPECT_EQ(halfFromFloat(5 * std::ldexp(1.0f, -25)), 0x0002);
  // The largest subnormal rounds up to the smallest normal.
  EXPECT_EQ(halfFromFloat(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)),
            0x0400);
  EXPECT_EQ(halfFromFloat(1e-10f), 0x0000);
}

TEST(Bf16, RoundTripsAndRoundsToNearestEven) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = floatFromBf16(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(floatFromBf16(bf16FromFloat(f))));
      continue;
    }
    EXPECT_EQ(bf16FromFloat(f), h);
  }
  EXPECT_EQ(bf16FromFloat(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(bf16FromFloat(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(bf16FromFloat(3.39e38f), 0x7f7f);
  EXPECT_EQ(bf16FromFloat(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_TRUE(std::isnan(
      floatFromBf16(bf16FromFloat(std::numeric_limits<float>::quiet_NaN()))));
}

/// A value of `dtype` as bits, from a double (rounded as the dtype does:
/// the halves through the runtime's conversions, the others as exactBits,
/// whose casts round alike).
uint64_t bitsFrom(shardrt_dtype dtype, double v) {
  if (dtype == SHARDRT_F16)
    return halfFromFloat(static_cast<float>(v));
  if (dtype == SHARDRT_BF16)
    return bf16FromFloat(static_cast<float>(v));
  return exactBits(dtype, v);
}

/// Every dtype and op, between views of every arrangement: small integers
/// whose sums, products, maxima, minima and averages are exact everywhere.
TEST(ReduceView, EveryDtypeAndOp) {
  const Arrangement arrangements[] = {
      Arrangement::Contiguous, Arrangement::Padded, Arrangement::Transposed,
      Arrangement::Reversed};
  const std::vector<int64_t> shape{3, 4};
  for (int dt = SHARDRT_F32; dt <= SHARDRT_U64; ++dt) {
    const auto dtype = static_cast<shardrt_dtype>(dt);
    const size_t es = elementSize(dtype);
    for (int o = SHARDRT_SUM; o <= SHARDRT_PRODUCT; ++o) {
      const auto op = static_cast<shardrt_reduce>(o);
      for (Arrangement sa : arrangements) {
        for (Arrangement da : arrangements) {
          SCOPED_TRACE(std::string(dtypeName(dtype)) + " op " +
                       std::to_string(o) + " src " + arrangementName(sa) +
                       " dst " + arrangementName(da));
          StridedBuffer src(shape, es, sa), dst(shape, es, da);
          // dst holds a = i % 5, src holds b = 2 + i % 3; avg of the sum of
          // a, b and b again over 3 partial values.
          auto a = [](int64_t i) { return static_cast<double>(i % 5); };
          auto b = [](int64_t i) { return static_cast<double>(2 + i % 3); };
          forEachIndex(shape, [&](const std::vector<int64_t> &i) {
            const int64_t n = linearIndex(i, shape);
            dst.set(i, bitsFrom(dtype, a(n)));
            src.set(i, bitsFrom(dtype, b(n)));
          });
          shardrt_tensor s = src.tensor(dtype), d = dst.tensor(dtype);
          View sv{static_cast<char *>(s.data), src.sizes, src.strides};
          View dv{static_cast<char *>(d.data), dst.sizes, dst.strides};
          reduceView(sv, dv, dtype, op);
          if (op == SHARDRT_AVG) {
            reduceView(sv, dv, dtype, op);
            divideView(dv, 3, dtype);
          }
          forEachIndex(shape, [&](const std::vector<int64_t> &i) {
            const int64_t n = linearIndex(i, shape);
            double want = 0;
            switch (op) {
            case SHARDRT_SUM:
              want = a(n) + b(n);
              break;
            case SHARDRT_AVG:
              want = a(n) + 2 * b(n);
              // Integers truncate; floats divide exactly where the sum is a
              // multiple of 3, else as the dtype rounds.
              want = dt >= SHARDRT_I8 ? std::trunc(want / 3) : want / 3;
              break;
            case SHARDRT_MAX:
              want = std::max(a(n), b(n));
              break;
            case SHARDRT_MIN:
              want = std::min(a(n), b(n));
              break;
            case SHARDRT_PRODUCT:
              want = a(n) * b(n);
              break;
            }
            ASSERT_EQ(dst.get(i) & elementMask(es), bitsFrom(dtype, want))
                << "at " << formatIndex(i);
            ASSERT_EQ(src.get(i) & elementMask(es), bitsFrom(dtype, b(n)));
          });
          EXPECT_TRUE(dst.paddingIntact());
          EXPECT_TRUE(src.paddingIntact());
        }
      }
    }
  }
}

/// x reduced with y by `op` in `dtype` (reduceView on one element each).
template <typename T> T run(shardrt_dtype dtype, shardrt_reduce op, T x, T y) {
  View a{reinterpret_cast<char *>(&x), {1}, {1}};
  View b{reinterpret_cast<char *>(&y), {1}, {1}};
  reduceView(b, a, dtype, op);
  return x;
}

/// Integer sums and products wrap around; max and min propagate NaN;
/// integer avg truncates toward zero.
TEST(ReduceView, WrapAroundNanAndTruncation) {
  EXPECT_EQ(run(SHARDRT_I8, SHARDRT_SUM, int8_t(100), int8_t(100)),
            int8_t(-56));
  EXPECT_EQ(run(SHARDRT_U8, SHARDRT_SUM, uint8_t(200), uint8_t(100)),
            uint8_t(44));
  EXPECT_EQ(run(SHARDRT_I8, SHARDRT_PRODUCT, int8_t(-16), int8_t(9)),
            int8_t(-144 + 256));
  EXPECT_EQ(
      run(SHARDRT_I32, SHARDRT_PRODUCT, int32_t(1 << 20), int32_t(1 << 12)),
      int32_t(0));
  EXPECT_EQ(run(SHARDRT_I64, SHARDRT_SUM, INT64_MAX, int64_t(1)), INT64_MIN);
  EXPECT_EQ(run(SHARDRT_I32, SHARDRT_MIN, int32_t(-5), int32_t(3)), -5);
  // 16-bit integers compare signed, unsigned integers unsigned: the bits
  // of one reduced as the other's would pick the other element.
  EXPECT_EQ(run(SHARDRT_I16, SHARDRT_MAX, int16_t(-5), int16_t(3)), int16_t(3));
  EXPECT_EQ(run(SHARDRT_I16, SHARDRT_SUM, int16_t(30000), int16_t(30000)),
            int16_t(60000 - 65536));
  EXPECT_EQ(run(SHARDRT_U16, SHARDRT_MAX, uint16_t(0x8001), uint16_t(1)),
            uint16_t(0x8001));
  EXPECT_EQ(run(SHARDRT_U32, SHARDRT_MAX, uint32_t(0x80000001u), uint32_t(1)),
            uint32_t(0x80000001u));
  EXPECT_EQ(run(SHARDRT_U32, SHARDRT_MIN, uint32_t(0x80000001u), uint32_t(1)),
            uint32_t(1));
  EXPECT_EQ(run(SHARDRT_U64, SHARDRT_MAX, uint64_t(1) << 63, uint64_t(7)),
            uint64_t(1) << 63);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(run(SHARDRT_F32, SHARDRT_MAX, nan, 1.0f)));
  EXPECT_TRUE(std::isnan(run(SHARDRT_F32, SHARDRT_MAX, 1.0f, nan)));
  EXPECT_TRUE(std::isnan(run(SHARDRT_F32, SHARDRT_MIN, 1.0f, nan)));
  EXPECT_TRUE(std::isnan(run(SHARDRT_F64, SHARDRT_MIN, double(nan), 1.0)));
  EXPECT_EQ(run(SHARDRT_BF16, SHARDRT_SUM, bf16FromFloat(256.0f),
                bf16FromFloat(1.0f)),
            bf16FromFloat(256.0f)); // 257 ties to even in bf16
  EXPECT_EQ(run(SHARDRT_F16, SHARDRT_SUM, halfFromFloat(2048.0f),
                halfFromFloat(3.0f)),
            halfFromFloat(2052.0f)); // 2051 ties to even in f16

  int32_t negative = -7;
  View v{reinterpret_cast<char *>(&negative), {1}, {1}};
  divideView(v, 2, SHARDRT_I32);
  EXPECT_EQ(negative, -3);
  int8_t small = -128;
  View w{reinterpret_cast<char *>(&small), {1}, {1}};
  divideView(w, 200, SHARDRT_I8);
  EXPECT_EQ(small, 0);
  uint8_t big = 255;
  View u{reinterpret_cast<char *>(&big), {1}, {1}};
  divideView(u, 2, SHARDRT_U8);
  EXPECT_EQ(big, 127);
  uint32_t large = 0xffffffffu;
  View l{reinterpret_cast<char *>(&large), {1}, {1}};
  divideView(l, 2, SHARDRT_U32);
  EXPECT_EQ(large, 0x7fffffffu);
}

/// Float max and min order -0.0 below +0.0, as arith.maximumf and
/// arith.minimumf do, whichever operand comes first (a collective combines
/// the ranks in an order of its own): max(-0.0, +0.0) is +0.0 and min is
/// -0.0 in both orders, in f32, f64, f16 and bf16.
TEST(ReduceView, SignedZerosInEitherOrder) {
  for (bool negativeFirst : {true, false}) {
    const float f0 = negativeFirst ? -0.0f : 0.0f,
                f1 = negativeFirst ? 0.0f : -0.0f;
    const double d0 = f0, d1 = f1;
    EXPECT_FALSE(std::signbit(run(SHARDRT_F32, SHARDRT_MAX, f0, f1)));
    EXPECT_TRUE(std::signbit(run(SHARDRT_F32, SHARDRT_MIN, f0, f1)));
    EXPECT_FALSE(std::signbit(run(SHARDRT_F64, SHARDRT_MAX, d0, d1)));
    EXPECT_TRUE(std::signbit(run(SHARDRT_F64, SHARDRT_MIN, d0, d1)));
    EXPECT_EQ(
        run(SHARDRT_F16, SHARDRT_MAX, halfFromFloat(f0), halfFromFloat(f1)),
        uint16_t(0x0000));
    EXPECT_EQ(
        run(SHARDRT_F16, SHARDRT_MIN, halfFromFloat(f0), halfFromFloat(f1)),
        uint16_t(0x8000));
    EXPECT_EQ(
        run(SHARDRT_BF16, SHARDRT_MAX, bf16FromFloat(f0), bf16FromFloat(f1)),
        uint16_t(0x0000));
    EXPECT_EQ(
        run(SHARDRT_BF16, SHARDRT_MIN, bf16FromFloat(f0), bf16FromFloat(f1)),
        uint16_t(0x8000));
  }
  // Equal values otherwise, and NaN, as before.
  EXPECT_EQ(run(SHARDRT_F32, SHARDRT_MAX, 2.0f, 2.0f), 2.0f);
  EXPECT_TRUE(std::isnan(run(SHARDRT_F32, SHARDRT_MIN, -0.0f,
                             std::numeric_limits<float>::quiet_NaN())));
}

/// An integer avg of two copies, as the runtime computes it (the sum in the
/// type, then the division), gives what PyTorch 2.11's DTensor gave for
/// Partial("avg") -> Replicate over NCCL on an H200 (2 ranks; docs/runtime.md):
/// ui8 250 and 250 -> 122, i8 100 and 100 -> -28, i32 1 and 4 -> 2.
TEST(ReduceView, IntegerAvgAsPyTorchOverNccl) {
  auto avg = [](shardrt_dtype dtype, auto x, auto y) {
    View a{reinterpret_cast<char *>(&x), {1}, {1}};
    View b{reinterpret_cast<char *>(&y), {1}, {1}};
    reduceView(b, a, dtype, SHARDRT_AVG);
    divideView(a, 2, dtype);
    return x;
  };
  EXPECT_EQ(avg(SHARDRT_U8, uint8_t(250), uint8_t(250)), uint8_t(122));
  EXPECT_EQ(avg(SHARDRT_I8, int8_t(100), int8_t(100)), int8_t(-28));
  EXPECT_EQ(avg(SHARDRT_I32, int32_t(1), int32_t(4)), int32_t(2));
  EXPECT_EQ(avg(SHARDRT_I64, int64_t(250), int64_t(250)), int64_t(250));
}

} // namespace
