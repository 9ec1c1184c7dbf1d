//===- PackTest.cpp - Copy plans and box packing against a reference ------===//

#include "Pack.h"
#include "TestSupport.h"

#include <gtest/gtest.h>

#include <random>

using namespace shardc;
using namespace shardrt_test;

namespace {

/// The element offset of `index` in a view (no planning, no merging).
int64_t naiveOffset(const std::vector<int64_t> &index,
                    const std::vector<int64_t> &strides) {
  int64_t offset = 0;
  for (size_t d = 0; d < index.size(); ++d)
    offset += index[d] * strides[d];
  return offset;
}

/// A random non-empty box inside `shape`.
layout::Box randomBox(std::mt19937 &rng, const std::vector<int64_t> &shape) {
  layout::Box box;
  for (int64_t n : shape) {
    int64_t lo = std::uniform_int_distribution<int64_t>(0, n - 1)(rng);
    int64_t size = std::uniform_int_distribution<int64_t>(1, n - lo)(rng);
    box.offsets.push_back(lo);
    box.sizes.push_back(size);
  }
  return box;
}

rt::View viewOf(StridedBuffer &buffer) {
  shardrt_tensor t = buffer.tensor(SHARDRT_U8);
  rt::View view;
  view.data = static_cast<char *>(t.data);
  view.sizes = buffer.sizes;
  view.strides = buffer.strides;
  return view;
}

struct PackCase {
  size_t rank;
  size_t elemSize;
};

class PackBoxTest : public ::testing::TestWithParam<PackCase> {};

/// Packs and unpacks random boxes of random views in every arrangement and
/// compares with an element-by-element reference.
TEST_P(PackBoxTest, MatchesReference) {
  const PackCase param = GetParam();
  const size_t es = param.elemSize;
  std::mt19937 rng(1234 + 17 * param.rank + es);
  const Arrangement arrangements[] = {
      Arrangement::Contiguous, Arrangement::Padded, Arrangement::Transposed,
      Arrangement::Reversed};
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<int64_t> shape;
    for (size_t d = 0; d < param.rank; ++d)
      shape.push_back(std::uniform_int_distribution<int64_t>(1, 5)(rng));
    const Arrangement arrangement = arrangements[trial % 4];
    StridedBuffer whole(shape, es, arrangement);
    for (size_t i = 0; i < whole.bytes.size(); ++i)
      whole.bytes[i] = static_cast<unsigned char>(rng());
    // Full rows in dim 0 half of the time (the common chunk case).
    layout::Box box = randomBox(rng, shape);
    if (trial % 2 == 0) {
      for (size_t d = 1; d < param.rank; ++d) {
        box.offsets[d] = 0;
        box.sizes[d] = shape[d];
      }
    }
    SCOPED_TRACE("shape " + layout::formatList(shape) + " box " +
                 layout::formatBox(box) + " " + arrangementName(arrangement) +
                 ", " + std::to_string(es) + "-byte elements");
    const int64_t volume = *layout::volume(box.sizes);
    const char *base = static_cast<const char *>(whole.tensor(SHARDRT_U8).data);

    // Reference pack: walk the box in row-major order.
    std::vector<char> expected;
    forEachIndex(box.sizes, [&](const std::vector<int64_t> &index) {
      std::vector<int64_t> at(index);
      for (size_t d = 0; d < at.size(); ++d)
        at[d] += box.offsets[d];
      const char *element =
          base + naiveOffset(at, whole.strides) * static_cast<int64_t>(es);
      expected.insert(expected.end(), element, element + es);
    });
    std::vector<char> packed(volume * es, 0);
    rt::packBox(viewOf(whole), box, es, packed.data());
    EXPECT_EQ(packed, expected);

    // Unpack fresh values into a copy; compare with a reference unpack.
    std::vector<char> source(volume * es);
    for (char &c : source)
      c = static_cast<char>(rng());
    StridedBuffer target = whole;
    std::vector<unsigned char> reference = whole.bytes;
    char *referenceBase =
        reinterpret_cast<char *>(reference.data()) +
        (static_cast<const char *>(whole.tensor(SHARDRT_U8).data) -
         reinterpret_cast<const char *>(whole.bytes.data()));
    size_t next = 0;
    forEachIndex(box.sizes, [&](const std::vector<int64_t> &index) {
      std::vector<int64_t> at(index);
      for (size_t d = 0; d < at.size(); ++d)
        at[d] += box.offsets[d];
      std::memcpy(referenceBase +
                      naiveOffset(at, whole.strides) * static_cast<int64_t>(es),
                  source.data() + next, es);
      next += es;
    });
    rt::unpackBox(source.data(), viewOf(target), box, es);
    EXPECT_EQ(target.bytes, reference);
  }
}

INSTANTIATE_TEST_SUITE_P(RanksAndSizes, PackBoxTest,
                         ::testing::Values(PackCase{1, 1}, PackCase{1, 8},
                                           PackCase{2, 1}, PackCase{2, 2},
                                           PackCase{2, 4}, PackCase{3, 4},
                                           PackCase{3, 8}, PackCase{4, 2},
                                           PackCase{4, 4}),
                         [](const ::testing::TestParamInfo<PackCase> &info) {
                           return std::to_string(info.param.rank) + "D_" +
                                  std::to_string(info.param.elemSize) + "B";
                         });

TEST(CopyPlan, ContiguousViewIsOneRow) {
  rt::CopyPlan plan({4, 5, 6}, {30, 6, 1}, {30, 6, 1}, 4);
  EXPECT_EQ(plan.numCopies(), 1);
  EXPECT_EQ(plan.rectangle().width, 4 * 5 * 6 * 4);
  EXPECT_EQ(plan.rectangle().height, 1);
}

TEST(CopyPlan, ChunkOfLastDimIsOneRectangle) {
  // Columns 3..5 of a [6, 10] tensor, packed: 6 rows of 3 elements.
  rt::CopyPlan plan({6, 3}, {10, 1}, {3, 1}, 8);
  EXPECT_EQ(plan.numCopies(), 1);
  const rt::Copy2D &r = plan.rectangle();
  EXPECT_EQ(r.width, 3 * 8);
  EXPECT_EQ(r.height, 6);
  EXPECT_EQ(r.srcPitch, 10 * 8);
  EXPECT_EQ(r.dstPitch, 3 * 8);
}

TEST(CopyPlan, MiddleDimChunkLoopsOverOuterDim) {
  // Box [0:4, 2:4, 0:5] of [4, 6, 5]: the two inner dims merge into rows of
  // 10 elements, one per index of dim 0: a single rectangle of 4 rows.
  rt::CopyPlan plan({4, 2, 5}, {30, 5, 1}, {10, 5, 1}, 4);
  EXPECT_EQ(plan.rectangle().width, 10 * 4);
  EXPECT_EQ(plan.rectangle().height, 4);
  EXPECT_EQ(plan.rectangle().srcPitch, 30 * 4);
  EXPECT_EQ(plan.numCopies(), 1);
}

TEST(CopyPlan, TransposedSourceCopiesElements) {
  rt::CopyPlan plan({3, 4}, {1, 3}, {4, 1}, 2);
  EXPECT_EQ(plan.rectangle().width, 2);
  EXPECT_EQ(plan.rectangle().height, 4);
  EXPECT_EQ(plan.numCopies(), 3);
}

TEST(CopyPlan, EmptyAndScalar) {
  rt::CopyPlan empty({3, 0, 2}, {0, 2, 1}, {0, 2, 1}, 4);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.numCopies(), 0);
  int calls = 0;
  empty.forEach([&](const rt::Copy2D &) { ++calls; });
  EXPECT_EQ(calls, 0);

  rt::CopyPlan scalar({}, {}, {}, 8);
  EXPECT_EQ(scalar.numCopies(), 1);
  EXPECT_EQ(scalar.rectangle().width, 8);
  double from = 2.5, to = 0;
  rt::copyOnHost(scalar, reinterpret_cast<const char *>(&from),
                 reinterpret_cast<char *>(&to), 8);
  EXPECT_EQ(to, 2.5);
}

TEST(CopyPlan, Contiguity) {
  EXPECT_TRUE(rt::isContiguous({}, {}));
  EXPECT_TRUE(rt::isContiguous({3, 4}, {4, 1}));
  EXPECT_TRUE(rt::isContiguous({3, 1, 4}, {4, 99, 1}));
  EXPECT_TRUE(rt::isContiguous({3, 0}, {7, 5}));
  EXPECT_FALSE(rt::isContiguous({3, 4}, {5, 1}));
  EXPECT_FALSE(rt::isContiguous({3, 4}, {1, 3}));
  EXPECT_EQ(rt::rowMajorStrides({2, 3, 4}), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(rt::linearOffset({1, 2}, {10, 1}), 12);
}

TEST(CopyPlan, ByteExtentsAndOverlap) {
  char buffer[256] = {};
  // A [3, 4] block of 4-byte elements in rows of 10: bytes 0 to 4 * 24.
  const rt::View rows{buffer, {3, 4}, {10, 1}};
  const rt::ByteExtent e = rt::byteExtent(rows, 4);
  EXPECT_EQ(e.low, 0);
  EXPECT_EQ(e.high, 4 * (2 * 10 + 3 + 1));
  // A negative stride reaches below the data pointer.
  const rt::ByteExtent down = rt::byteExtent({buffer + 40, {3}, {-2}}, 4);
  EXPECT_EQ(down.low, -16);
  EXPECT_EQ(down.high, 4);
  // Empty views span nothing and overlap nothing.
  const rt::ByteExtent none = rt::byteExtent({buffer, {3, 0}, {10, 1}}, 4);
  EXPECT_EQ(none.low, none.high);
  EXPECT_FALSE(rt::extentsOverlap(buffer, e, buffer, none));
  // The same extent at moved pointers: overlapping, touching, apart.
  EXPECT_TRUE(rt::extentsOverlap(buffer, e, buffer + e.high - 1, e));
  EXPECT_FALSE(rt::extentsOverlap(buffer, e, buffer + e.high, e));
  EXPECT_FALSE(rt::extentsOverlap(buffer + e.high, e, buffer, e));
  EXPECT_TRUE(rt::extentsOverlap(buffer + 40, down, buffer + 24, {0, 1}));
  EXPECT_FALSE(rt::extentsOverlap(buffer + 40, down, buffer + 23, {0, 1}));
}

} // namespace
