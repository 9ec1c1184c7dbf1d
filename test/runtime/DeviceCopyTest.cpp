//===- DeviceCopyTest.cpp - The index math of the CUDA copy kernels -------===//
//
// The NCCL backend's kernels move unit i of a DeviceCopy from and to the
// byte offsets unitOffsets() gives. Here that math runs on the host over
// random views (transposed, padded, reversed, up to 7 dims, so that some
// plans need several descriptors) and must move exactly what copyView moves.
//
//===----------------------------------------------------------------------===//

#include "DeviceCopy.h"
#include "nccl/KernelBodies.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

using namespace shardc::rt;

namespace {

/// A random view of `sizes` over a fresh buffer: dims in a random order,
/// some padded, some reversed. `data` points at element (0, ..., 0).
struct RandomView {
  std::vector<char> bytes;
  View view;

  RandomView(const std::vector<int64_t> &sizes, size_t es, std::mt19937 &rng) {
    const size_t rank = sizes.size();
    std::vector<size_t> order(rank);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<int64_t> strides(rank, 0);
    int64_t stride = 1;
    for (size_t k = rank; k > 0; --k) {
      const size_t d = order[k - 1];
      strides[d] = stride;
      stride *= sizes[d] + static_cast<int64_t>(rng() % 2);
    }
    bytes.assign(static_cast<size_t>(stride) * es + 64, 0);
    int64_t first = 0;
    for (size_t d = 0; d < rank; ++d) {
      if (rng() % 4 == 0 && sizes[d] > 1) {
        first += (sizes[d] - 1) * strides[d];
        strides[d] = -strides[d];
      }
    }
    view.data = bytes.data() + first * static_cast<int64_t>(es);
    view.sizes = sizes;
    view.strides = strides;
  }
};

TEST(DeviceCopy, UnitOffsetsMoveWhatCopyViewMoves) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    const size_t es = size_t(1) << (rng() % 4);
    const size_t rank = rng() % 8;
    std::vector<int64_t> sizes(rank);
    for (int64_t &s : sizes)
      s = 1 + rng() % 4;
    if (trial % 50 == 0 && rank > 0)
      sizes[0] = 0;
    RandomView src(sizes, es, rng), expected(sizes, es, rng);
    for (size_t i = 0; i < src.bytes.size(); ++i)
      src.bytes[i] = static_cast<char>(rng());
    RandomView actual = expected;
    actual.view.data =
        actual.bytes.data() + (expected.view.data - expected.bytes.data());
    copyView(src.view, expected.view, es);

    const CopyPlan plan(sizes, src.view.strides, expected.view.strides, es);
    for (bool vectorize : {false, true}) {
      std::fill(actual.bytes.begin(), actual.bytes.end(), 0);
      for (const DeviceCopy &copy : deviceCopies(plan, es, vectorize)) {
        ASSERT_LE(copy.outerDims, kMaxDeviceOuterDims);
        ASSERT_EQ(copy.width % copy.unit, 0);
        if (!vectorize)
          ASSERT_EQ(copy.unit, static_cast<int32_t>(es));
        for (int64_t i = 0; i < copy.units(); ++i) {
          int64_t from = 0, to = 0;
          unitOffsets(copy, i, from, to);
          std::memcpy(actual.view.data + to, src.view.data + from, copy.unit);
        }
      }
      ASSERT_EQ(actual.bytes, expected.bytes)
          << "trial " << trial << ", rank " << rank << ", vectorize "
          << vectorize;
    }
  }
}

TEST(DeviceCopy, ContiguousRowsMoveSixteenBytesAtATime) {
  // Rows of 64 floats out of a [8, 128] f32 tensor: 256-byte rows.
  const CopyPlan plan({8, 64}, {128, 1}, {64, 1}, 4);
  std::vector<DeviceCopy> copies = deviceCopies(plan, 4, true);
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0].unit, 16);
  EXPECT_EQ(copies[0].units(), 8 * 256 / 16);
  alignas(16) static char a[16 * 4096], b[16 * 4096];
  EXPECT_EQ(alignedUnit(copies[0], a, b), 16);
  EXPECT_EQ(alignedUnit(copies[0], a + 4, b), 4);
  EXPECT_EQ(alignedUnit(copies[0], a + 8, b + 24), 8);
}

TEST(DeviceCopy, PlansWithManyDimsSplitIntoDescriptors) {
  // A 7-D transposed copy whose dims cannot merge: 7 - 1 outer dims, 2 of
  // them beyond a descriptor.
  std::vector<int64_t> sizes = {2, 3, 2, 3, 2, 3, 2};
  std::vector<int64_t> src(7), dst(7);
  int64_t s = 1;
  for (int d = 6; d >= 0; --d) {
    dst[d] = s;
    s *= sizes[d];
  }
  s = 1;
  for (int d = 0; d < 7; ++d) {
    src[d] = s;
    s *= sizes[d];
  }
  const CopyPlan plan(sizes, src, dst, 4);
  ASSERT_GT(plan.outerDimSizes().size(),
            static_cast<size_t>(kMaxDeviceOuterDims));
  const std::vector<DeviceCopy> copies = deviceCopies(plan, 4, true);
  int64_t excess = 1;
  for (size_t d = 0; d + kMaxDeviceOuterDims < plan.outerDimSizes().size(); ++d)
    excess *= plan.outerDimSizes()[d];
  EXPECT_EQ(static_cast<int64_t>(copies.size()), excess);
}

} // namespace

// The rows body's grid (defect 10 of the NCCL review): a block takes as many
// narrow rows as fill its threads. Before, a block took one row, so rows of
// 64 B in 16-byte units kept 4 of 256 threads busy. Here: at least half of
// every block's threads have a unit to move, for every row width, and the
// body run over the whole grid moves every byte exactly once.
TEST(DeviceCopy, NarrowRowsKeepEveryBlockBusy) {
  using namespace shardc::rt::kernels;
  for (int64_t perRow = 1; perRow <= 600; ++perRow) {
    const Grid g = rowsGrid(perRow, 1000);
    ASSERT_EQ(kThreads % g.lanes, 0) << perRow;
    const int64_t rowsPerBlock = kThreads / g.lanes;
    const int64_t busy =
        rowsPerBlock * std::min(perRow, g.lanes); // threads with a unit
    EXPECT_GE(2 * busy, kThreads) << "rows of " << perRow << " units";
  }
  for (int64_t perRow : {1, 3, 4, 16, 17, 255, 256, 700})
    for (int64_t height : {1, 5, 64, 300, 1100}) {
      DeviceCopy c;
      c.width = perRow;
      c.height = height;
      c.srcPitch = perRow + 3;
      c.dstPitch = perRow;
      c.unit = 1;
      std::vector<char> src(height * c.srcPitch);
      for (size_t i = 0; i < src.size(); ++i)
        src[i] = static_cast<char>(i * 7 + 1);
      // rowsGrid's grid, and one block high (as a grid capped at kMaxBlocks
      // is: each block strides over more rows than it holds at once).
      for (const bool capped : {false, true}) {
        Grid g = rowsGrid(perRow, height);
        if (capped)
          g.y = 1;
        std::vector<char> dst(height * perRow, 0);
        for (int64_t by = 0; by < g.y; ++by)
          for (int64_t bx = 0; bx < g.x; ++bx)
            for (int64_t tx = 0; tx < kThreads; ++tx)
              rowsBody<uint8_t>(c, src.data(), dst.data(), g.lanes,
                                Thread{bx, by, tx, g.x, g.y, kThreads});
        for (int64_t r = 0; r < height; ++r)
          for (int64_t k = 0; k < perRow; ++k)
            ASSERT_EQ(dst[r * perRow + k], src[r * c.srcPitch + k])
                << perRow << " units, " << height << " rows"
                << (capped ? " (one block high)" : "") << ": row " << r
                << ", unit " << k;
      }
    }
}
