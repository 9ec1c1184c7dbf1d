//===- RuntimeTest.cpp - The C ABI in a world of one rank -----------------===//
//
// Argument checks (status and message) and data movement when the test runs
// as a single MPI process. Multi-rank behaviour is tested by shardrt-mpi-test.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"
#include "shardrt.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

using namespace shardrt_test;

namespace {

/// A block table row: [owner, offsets..., sizes...].
std::vector<int64_t> row(int64_t owner, const std::vector<int64_t> &offsets,
                         const std::vector<int64_t> &sizes) {
  std::vector<int64_t> r{owner};
  r.insert(r.end(), offsets.begin(), offsets.end());
  r.insert(r.end(), sizes.begin(), sizes.end());
  return r;
}

/// The message of the last error, checked to name the rank, the collective
/// and the group.
std::string lastError(const char *op) {
  std::string message = shardrt_last_error();
  EXPECT_NE(message.find("shardrt: rank 0: "), std::string::npos) << message;
  EXPECT_NE(message.find(op), std::string::npos) << message;
  EXPECT_NE(message.find("world of 1 rank"), std::string::npos) << message;
  return message;
}

#define EXPECT_CONTAINS(haystack, needle)                                      \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos)             \
      << "message: " << (haystack)

class RuntimeTest : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(shardrt_init(), SHARDRT_SUCCESS); }
};

TEST_F(RuntimeTest, WorldOfOne) {
  EXPECT_EQ(shardrt_rank(), 0);
  EXPECT_EQ(shardrt_world_size(), 1);
  const std::string backends = shardrt_backends();
  EXPECT_TRUE(backends == "mpi" || backends == "mpi,nccl") << backends;
}

TEST_F(RuntimeTest, LastErrorIsPerThread) {
  StridedBuffer global({4}, 4, Arrangement::Contiguous);
  shardrt_tensor g = global.tensor(SHARDRT_F32);
  std::vector<int64_t> table = row(3, {0}, {4});
  EXPECT_EQ(shardrt_all_gather(&g, &g, table.data(), 1),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_STRNE(shardrt_last_error(), "");
  std::string other = "unset";
  std::thread([&] { other = shardrt_last_error(); }).join();
  EXPECT_EQ(other, "");
}

TEST_F(RuntimeTest, OwnerOutOfRange) {
  StridedBuffer global({6, 10}, 4, Arrangement::Contiguous);
  shardrt_tensor g = global.tensor(SHARDRT_F32);
  std::vector<int64_t> table = row(5, {0, 0}, {6, 10});
  EXPECT_EQ(shardrt_all_gather(&g, &g, table.data(), 1),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("all_gather(f32, cpu"),
                  "block 0 is placed on rank 5 but the world has 1 rank");
}

TEST_F(RuntimeTest, LocalSizesMismatch) {
  StridedBuffer global({6, 3}, 4, Arrangement::Contiguous);
  StridedBuffer local({6, 2}, 4, Arrangement::Contiguous);
  shardrt_tensor g = global.tensor(SHARDRT_F32), l = local.tensor(SHARDRT_F32);
  std::vector<int64_t> table = row(0, {0, 0}, {6, 3});
  EXPECT_EQ(shardrt_all_gather(&l, &g, table.data(), 1),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("all_gather(f32, cpu"),
                  "local block has sizes [6, 2] but block 0 needs [6, 3]");
  EXPECT_EQ(shardrt_scatter(&g, &l, table.data(), 1, 0),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("scatter(f32, cpu, world of 1 rank, root 0)"),
                  "local block has sizes [6, 2] but block 0 needs [6, 3]");
}

TEST_F(RuntimeTest, LocalRankAndDtypeMismatch) {
  StridedBuffer global({6, 3}, 8, Arrangement::Contiguous);
  StridedBuffer local({18}, 8, Arrangement::Contiguous);
  shardrt_tensor g = global.tensor(SHARDRT_F64), l = local.tensor(SHARDRT_F64);
  std::vector<int64_t> table = row(0, {0, 0}, {6, 3});
  EXPECT_EQ(shardrt_all_gather(&l, &g, table.data(), 1),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("all_gather(f64"),
                  "the local block has rank 1 but block 0 (offsets [0, 0], "
                  "sizes [6, 3]) has rank 2");

  StridedBuffer local2({6, 3}, 8, Arrangement::Contiguous);
  shardrt_tensor l2 = local2.tensor(SHARDRT_I64);
  EXPECT_EQ(shardrt_all_gather(&l2, &g, table.data(), 1),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("all_gather(f64"),
                  "the local tensor has i64 elements but the global tensor "
                  "f64");

  EXPECT_EQ(shardrt_all_gather(nullptr, &g, table.data(), 1),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("all_gather(f64"), "its local tensor is NULL");
}

TEST_F(RuntimeTest, BadDtypeAndDevice) {
  StridedBuffer global({4}, 4, Arrangement::Contiguous);
  shardrt_tensor g = global.tensor(SHARDRT_F32);
  g.dtype = 42;
  std::vector<int64_t> table = row(0, {0}, {4});
  EXPECT_EQ(shardrt_all_gather(&g, &g, table.data(), 1),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("all_gather(dtype 42, cpu"), "unknown dtype 42");

  g.dtype = SHARDRT_F32;
  g.device = 7;
  EXPECT_EQ(shardrt_scatter(&g, &g, table.data(), 1, 0),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("scatter(f32, device 7"), "unknown device 7");
}

TEST_F(RuntimeTest, BadTables) {
  StridedBuffer global({6, 10}, 4, Arrangement::Contiguous);
  StridedBuffer local({6, 3}, 4, Arrangement::Contiguous);
  shardrt_tensor g = global.tensor(SHARDRT_F32), l = local.tensor(SHARDRT_F32);

  EXPECT_EQ(shardrt_all_gather(&l, &g, nullptr, -1),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("all_gather"), "the block table has -1 rows");

  EXPECT_EQ(shardrt_all_gather(&l, &g, nullptr, 2),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("all_gather"),
                  "the block table is NULL but has 2 rows");

  std::vector<int64_t> negative = row(0, {0, -1}, {6, 3});
  EXPECT_EQ(shardrt_all_gather(&l, &g, negative.data(), 1),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("all_gather"),
                  "block 0 (offsets [0, -1], sizes [6, 3]) has a negative "
                  "offset or size");

  std::vector<int64_t> outside = row(0, {0, 8}, {6, 3});
  EXPECT_EQ(shardrt_all_gather(&l, &g, outside.data(), 1),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("all_gather"),
                  "block 0 (offsets [0, 8], sizes [6, 3]) does not fit in "
                  "the global tensor [6, 10]");

  std::vector<int64_t> twice = row(0, {0, 0}, {6, 3});
  std::vector<int64_t> second = row(0, {0, 3}, {6, 3});
  twice.insert(twice.end(), second.begin(), second.end());
  EXPECT_EQ(shardrt_all_gather(&l, &g, twice.data(), 2),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("all_gather"),
                  "rank 0 owns blocks 0 and 1; this call supports at most "
                  "one block per rank");

  std::vector<int64_t> table = row(0, {0, 0}, {6, 3});
  EXPECT_EQ(shardrt_scatter(&g, &l, table.data(), 1, 1),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("scatter(f32, cpu, world of 1 rank, root 1)"),
                  "root 1 is not a rank of the world of 1 rank");

  EXPECT_EQ(shardrt_scatter(nullptr, &l, table.data(), 1, 0),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(lastError("scatter(f32"), "the global tensor is NULL");
}

TEST_F(RuntimeTest, CudaDeviceWithoutNcclOrGpu) {
  StridedBuffer global({4}, 4, Arrangement::Contiguous);
  shardrt_tensor g = global.tensor(SHARDRT_F32, SHARDRT_DEVICE_CUDA);
  std::vector<int64_t> table = row(0, {0}, {4});
  const int status = shardrt_all_gather(&g, &g, table.data(), 1);
  if (std::string(shardrt_backends()) == "mpi") {
    EXPECT_EQ(status, SHARDRT_ERROR_UNAVAILABLE);
    EXPECT_CONTAINS(lastError("all_gather(f32, cuda"),
                    "built without the NCCL backend");
    return;
  }
  // With NCCL: a host buffer is refused, or no GPU is visible.
  EXPECT_NE(status, SHARDRT_SUCCESS);
  const std::string message = lastError("all_gather(f32, cuda");
  if (status == SHARDRT_ERROR_UNAVAILABLE)
    EXPECT_CONTAINS(message, "no CUDA GPU visible");
  else
    EXPECT_CONTAINS(message, "not CUDA device memory");
}

/// all_gather and scatter of one block holding the whole tensor, between
/// every pair of arrangements, for every dtype.
TEST_F(RuntimeTest, WholeTensorRoundTrips) {
  const Arrangement arrangements[] = {
      Arrangement::Contiguous, Arrangement::Padded, Arrangement::Transposed,
      Arrangement::Reversed};
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {7}, {3, 5}, {2, 3, 4}, {2, 1, 3, 2}, {0, 4}};
  for (int d = SHARDRT_F32; d <= SHARDRT_U64; ++d) {
    const auto dtype = static_cast<shardrt_dtype>(d);
    const size_t es = elementSize(dtype);
    for (const std::vector<int64_t> &shape : shapes) {
      for (Arrangement ga : arrangements) {
        for (Arrangement la : arrangements) {
          SCOPED_TRACE(std::string(dtypeName(dtype)) + " " +
                       formatIndex(shape) + " global " + arrangementName(ga) +
                       " local " + arrangementName(la));
          std::vector<int64_t> offsets(shape.size(), 0);
          std::vector<int64_t> table = row(0, offsets, shape);

          // all_gather: local holds the values, global receives them.
          StridedBuffer local(shape, es, la), global(shape, es, ga);
          forEachIndex(shape, [&](const std::vector<int64_t> &i) {
            local.set(i, valueBits(dtype, linearIndex(i, shape)));
            global.set(i, ~valueBits(dtype, linearIndex(i, shape)));
          });
          shardrt_tensor l = local.tensor(dtype), g = global.tensor(dtype);
          ASSERT_EQ(shardrt_all_gather(&l, &g, table.data(), 1),
                    SHARDRT_SUCCESS)
              << shardrt_last_error();
          forEachIndex(shape, [&](const std::vector<int64_t> &i) {
            ASSERT_EQ(global.get(i), valueBits(dtype, linearIndex(i, shape)))
                << "at " << formatIndex(i);
          });
          EXPECT_TRUE(global.paddingIntact());

          // scatter: global holds the values, local receives them.
          forEachIndex(shape, [&](const std::vector<int64_t> &i) {
            local.set(i, ~valueBits(dtype, linearIndex(i, shape)));
          });
          ASSERT_EQ(shardrt_scatter(&g, &l, table.data(), 1, 0),
                    SHARDRT_SUCCESS)
              << shardrt_last_error();
          forEachIndex(shape, [&](const std::vector<int64_t> &i) {
            ASSERT_EQ(local.get(i), valueBits(dtype, linearIndex(i, shape)))
                << "at " << formatIndex(i);
          });
          EXPECT_TRUE(local.paddingIntact());
        }
      }
    }
  }
}

/// A block smaller than the tensor: all_gather writes only its box.
TEST_F(RuntimeTest, PartialBlockWritesOnlyItsBox) {
  const std::vector<int64_t> shape{4, 6};
  StridedBuffer global(shape, 4, Arrangement::Padded);
  StridedBuffer local({4, 2}, 4, Arrangement::Transposed);
  forEachIndex(
      shape, [&](const std::vector<int64_t> &i) { global.set(i, 0xdeadbeef); });
  forEachIndex(local.sizes, [&](const std::vector<int64_t> &i) {
    local.set(i, valueBits(SHARDRT_I32, linearIndex({i[0], i[1] + 2}, shape)));
  });
  std::vector<int64_t> table = row(0, {0, 2}, {4, 2});
  shardrt_tensor l = local.tensor(SHARDRT_I32), g = global.tensor(SHARDRT_I32);
  ASSERT_EQ(shardrt_all_gather(&l, &g, table.data(), 1), SHARDRT_SUCCESS)
      << shardrt_last_error();
  forEachIndex(shape, [&](const std::vector<int64_t> &i) {
    const bool inBox = i[1] >= 2 && i[1] < 4;
    EXPECT_EQ(global.get(i), inBox
                                 ? valueBits(SHARDRT_I32, linearIndex(i, shape))
                                 : 0xdeadbeef)
        << "at " << formatIndex(i);
  });
  EXPECT_TRUE(global.paddingIntact());
}

/// The MLIR entry points decode memref descriptors (offset and strides
/// included) and the block table memref.
TEST_F(RuntimeTest, MlirEntryPoints) {
  // global: memref<3x4xf32> inside a padded buffer, offset 6, strides [5, 1].
  std::vector<float> globalBuffer(32, -1.0f), localBuffer(12, 0.0f);
  for (int i = 0; i < 12; ++i)
    localBuffer[i] = static_cast<float>(i) + 0.5f;
  struct Desc2D {
    void *allocated;
    void *aligned;
    int64_t offset;
    int64_t sizes[2];
    int64_t strides[2];
  };
  Desc2D global{globalBuffer.data(), globalBuffer.data(), 6, {3, 4}, {5, 1}};
  Desc2D local{localBuffer.data(), localBuffer.data(), 0, {3, 4}, {4, 1}};
  // The table memref<1x5xi64> is strided: every other element, offset 1.
  std::vector<int64_t> tableBuffer{-7, 0, -7, 0, -7, 0, -7, 3, -7, 4};
  Desc2D table{tableBuffer.data(), tableBuffer.data(), 1, {1, 5}, {10, 2}};
  shardrt_mlir_all_gather_f32(2, &local, 2, &global, 2, &table,
                              SHARDRT_DEVICE_CPU);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(globalBuffer[6 + r * 5 + c], localBuffer[r * 4 + c])
          << "at [" << r << ", " << c << "]";
  EXPECT_EQ(globalBuffer[5], -1.0f);
  EXPECT_EQ(globalBuffer[10], -1.0f);

  std::vector<float> back(12, 0.0f);
  Desc2D backDesc{back.data(), back.data(), 0, {3, 4}, {4, 1}};
  shardrt_mlir_scatter_f32(2, &global, 2, &backDesc, 2, &table, 0,
                           SHARDRT_DEVICE_CPU);
  EXPECT_EQ(back, localBuffer);
}

} // namespace

namespace {

TEST_F(RuntimeTest, RedistributeArgumentErrors) {
  StridedBuffer a({6, 10}, 4, Arrangement::Contiguous);
  StridedBuffer b({6, 10}, 4, Arrangement::Contiguous);
  StridedBuffer narrow({6, 9}, 4, Arrangement::Contiguous);
  StridedBuffer flat({60}, 4, Arrangement::Contiguous);
  const shardrt_tensor s = a.tensor(SHARDRT_F32), d = b.tensor(SHARDRT_F32);
  const std::vector<int64_t> whole = row(0, {0, 0}, {6, 10});
  auto call = [](const shardrt_tensor *src, const shardrt_tensor *dst,
                 const std::vector<int64_t> &srcTable, int64_t numSrc,
                 const std::vector<int64_t> &dstTable, int64_t numDst) {
    return shardrt_redistribute(
        src, dst, srcTable.empty() ? nullptr : srcTable.data(), numSrc,
        dstTable.empty() ? nullptr : dstTable.data(), numDst);
  };
  const int invalid = SHARDRT_ERROR_INVALID_ARGUMENT;

  EXPECT_EQ(call(nullptr, nullptr, whole, 1, whole, 1), invalid);
  EXPECT_CONTAINS(lastError("redistribute(dtype -1, device -1"),
                  "src_local and dst_local are both NULL");

  shardrt_tensor t = s;
  t.dtype = 42;
  EXPECT_EQ(call(&t, nullptr, whole, 1, whole, 1), invalid);
  EXPECT_CONTAINS(lastError("redistribute(dtype 42, cpu"), "unknown dtype 42");

  t = d;
  t.dtype = SHARDRT_F64;
  EXPECT_EQ(call(&s, &t, whole, 1, whole, 1), invalid);
  EXPECT_CONTAINS(lastError("redistribute(f32, cpu"),
                  "src_local has f32 elements but dst_local f64");
  t = d;
  t.device = SHARDRT_DEVICE_CUDA;
  EXPECT_EQ(call(&s, &t, whole, 1, whole, 1), invalid);
  EXPECT_CONTAINS(lastError("redistribute(f32, cpu"),
                  "src_local is on cpu but dst_local on cuda");
  t = flat.tensor(SHARDRT_F32);
  EXPECT_EQ(call(&s, &t, whole, 1, whole, 1), invalid);
  EXPECT_CONTAINS(lastError("redistribute(f32, cpu"),
                  "src_local has rank 2 but dst_local rank 1");

  EXPECT_EQ(call(&s, &d, {}, -1, whole, 1), invalid);
  EXPECT_CONTAINS(lastError("redistribute"),
                  "the source block table has -1 rows");
  EXPECT_EQ(call(&s, &d, whole, 1, {}, 1), invalid);
  EXPECT_CONTAINS(lastError("redistribute"),
                  "the destination block table is NULL but has 1 rows");
  EXPECT_EQ(call(&s, &d, row(3, {0, 0}, {6, 10}), 1, whole, 1), invalid);
  EXPECT_CONTAINS(lastError("redistribute"),
                  "source block 0 is placed on rank 3 but the world has 1 "
                  "rank");
  EXPECT_EQ(call(&s, &d, whole, 1, row(0, {0, -1}, {6, 10}), 1), invalid);
  EXPECT_CONTAINS(lastError("redistribute"),
                  "destination block 0 (offsets [0, -1], sizes [6, 10]) has "
                  "a negative offset or size");
  std::vector<int64_t> twice = row(0, {0, 0}, {3, 10});
  const std::vector<int64_t> second = row(0, {3, 0}, {3, 10});
  twice.insert(twice.end(), second.begin(), second.end());
  EXPECT_EQ(call(&s, &d, twice, 2, whole, 1), invalid);
  EXPECT_CONTAINS(lastError("redistribute"),
                  "rank 0 owns source blocks 0 and 1; one view holds one "
                  "block: pass several blocks per rank packed, to "
                  "shardrt_redistribute_packed");
  EXPECT_EQ(call(&s, &d, whole, 1, row(0, {0, 0}, {6, 9}), 1), invalid);
  EXPECT_CONTAINS(lastError("redistribute"),
                  "the source blocks span [6, 10] but the destination blocks "
                  "span [6, 9]");

  EXPECT_EQ(call(nullptr, &d, whole, 1, whole, 1), invalid);
  EXPECT_CONTAINS(lastError("redistribute(f32, cpu"),
                  "this rank owns source block 0 (offsets [0, 0], sizes [6, "
                  "10]) but src_local is NULL");
  t = narrow.tensor(SHARDRT_F32);
  EXPECT_EQ(call(&s, &t, whole, 1, whole, 1), invalid);
  EXPECT_CONTAINS(lastError("redistribute(f32, cpu"),
                  "dst_local has sizes [6, 9] but destination block 0 needs "
                  "[6, 10]");
  t = s;
  t.data = nullptr;
  EXPECT_EQ(call(&t, &d, whole, 1, whole, 1), invalid);
  EXPECT_CONTAINS(lastError("redistribute(f32, cpu"),
                  "src_local's data is NULL but source block 0 (offsets [0, "
                  "0], sizes [6, 10]) holds 60 elements");

  // Nothing to move: empty tables, or NULL views of blocks this rank does
  // not own.
  EXPECT_EQ(call(&s, nullptr, {}, 0, {}, 0), SHARDRT_SUCCESS)
      << shardrt_last_error();
  EXPECT_EQ(call(nullptr, &d, {}, 0, whole, 0), SHARDRT_SUCCESS)
      << shardrt_last_error();
}

TEST_F(RuntimeTest, RedistributeCudaWithoutNcclOrGpu) {
  StridedBuffer a({4}, 4, Arrangement::Contiguous);
  StridedBuffer b({4}, 4, Arrangement::Contiguous);
  shardrt_tensor s = a.tensor(SHARDRT_F32, SHARDRT_DEVICE_CUDA);
  shardrt_tensor d = b.tensor(SHARDRT_F32, SHARDRT_DEVICE_CUDA);
  std::vector<int64_t> table = row(0, {0}, {4});
  const int status =
      shardrt_redistribute(&s, &d, table.data(), 1, table.data(), 1);
  const std::string message = lastError("redistribute(f32, cuda");
  if (std::string(shardrt_backends()) == "mpi") {
    EXPECT_EQ(status, SHARDRT_ERROR_UNAVAILABLE);
    EXPECT_CONTAINS(message, "built without the NCCL backend");
  } else if (status == SHARDRT_ERROR_UNAVAILABLE) {
    EXPECT_CONTAINS(message, "no CUDA GPU visible");
  } else {
    EXPECT_EQ(status, SHARDRT_ERROR_INVALID_ARGUMENT);
    EXPECT_CONTAINS(message, "src_local data is not CUDA device memory");
  }
}

/// In a world of one rank, a redistribution copies the one block between
/// every pair of arrangements, for every dtype.
TEST_F(RuntimeTest, RedistributeCopiesLocally) {
  const Arrangement arrangements[] = {
      Arrangement::Contiguous, Arrangement::Padded, Arrangement::Transposed,
      Arrangement::Reversed};
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {7}, {3, 5}, {2, 3, 4}, {0, 4}};
  for (int dt = SHARDRT_F32; dt <= SHARDRT_U64; ++dt) {
    const auto dtype = static_cast<shardrt_dtype>(dt);
    const size_t es = elementSize(dtype);
    for (const std::vector<int64_t> &shape : shapes) {
      for (Arrangement sa : arrangements) {
        for (Arrangement da : arrangements) {
          SCOPED_TRACE(std::string(dtypeName(dtype)) + " " +
                       formatIndex(shape) + " src " + arrangementName(sa) +
                       " dst " + arrangementName(da));
          std::vector<int64_t> table =
              row(0, std::vector<int64_t>(shape.size(), 0), shape);
          StridedBuffer src(shape, es, sa), dst(shape, es, da);
          forEachIndex(shape, [&](const std::vector<int64_t> &i) {
            src.set(i, valueBits(dtype, linearIndex(i, shape)));
            dst.set(i, ~valueBits(dtype, linearIndex(i, shape)));
          });
          shardrt_tensor s = src.tensor(dtype), d = dst.tensor(dtype);
          ASSERT_EQ(
              shardrt_redistribute(&s, &d, table.data(), 1, table.data(), 1),
              SHARDRT_SUCCESS)
              << shardrt_last_error();
          forEachIndex(shape, [&](const std::vector<int64_t> &i) {
            ASSERT_EQ(dst.get(i) & elementMask(es),
                      valueBits(dtype, linearIndex(i, shape)))
                << "at " << formatIndex(i);
          });
          EXPECT_TRUE(dst.paddingIntact());
          EXPECT_TRUE(src.paddingIntact());
        }
      }
    }
  }
}

/// The MLIR entry point takes the tensor's rank from the tables' width.
TEST_F(RuntimeTest, MlirRedistributeEntryPoint) {
  struct Desc2D {
    void *allocated;
    void *aligned;
    int64_t offset;
    int64_t sizes[2];
    int64_t strides[2];
  };
  // src: memref<3x4xf64> in a padded buffer (offset 6, strides [5, 1]); dst:
  // column-major.
  std::vector<double> srcBuffer(32, -1.0), dstBuffer(12, 0.0);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      srcBuffer[6 + r * 5 + c] = r * 4 + c + 0.5;
  Desc2D src{srcBuffer.data(), srcBuffer.data(), 6, {3, 4}, {5, 1}};
  Desc2D dst{dstBuffer.data(), dstBuffer.data(), 0, {3, 4}, {1, 3}};
  // Both tables memref<1x5xi64>; the source one strided.
  std::vector<int64_t> srcTableBuffer{-7, 0, -7, 0, -7, 0, -7, 3, -7, 4};
  std::vector<int64_t> dstTableBuffer{0, 0, 0, 3, 4};
  Desc2D srcTable{
      srcTableBuffer.data(), srcTableBuffer.data(), 1, {1, 5}, {10, 2}};
  Desc2D dstTable{
      dstTableBuffer.data(), dstTableBuffer.data(), 0, {1, 5}, {5, 1}};
  shardrt_mlir_redistribute_f64(2, &src, 2, &dst, 2, &srcTable, 2, &dstTable,
                                SHARDRT_DEVICE_CPU);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(dstBuffer[r + c * 3], r * 4 + c + 0.5)
          << "at [" << r << ", " << c << "]";
}

TEST_F(RuntimeTest, RedistributeReduceArgumentErrors) {
  StridedBuffer a({6, 10}, 4, Arrangement::Contiguous);
  StridedBuffer b({6, 10}, 4, Arrangement::Contiguous);
  const shardrt_tensor s = a.tensor(SHARDRT_I32), d = b.tensor(SHARDRT_I32);
  const std::vector<int64_t> whole = row(0, {0, 0}, {6, 10});
  const int64_t zero = 0, negative = -1;
  const int invalid = SHARDRT_ERROR_INVALID_ARGUMENT;

  EXPECT_EQ(shardrt_redistribute_reduce(&s, &d, whole.data(), 1, &zero,
                                        whole.data(), 1, 9),
            invalid);
  EXPECT_CONTAINS(lastError("redistribute_reduce(i32, cpu, world of 1 rank, "
                            "op 9): "),
                  "unknown reduction op 9 (expected 0 to 4: sum, avg, max, "
                  "min, product)");
  EXPECT_EQ(shardrt_redistribute_reduce(&s, &d, whole.data(), 1, nullptr,
                                        whole.data(), 1, SHARDRT_MAX),
            invalid);
  EXPECT_CONTAINS(
      lastError("redistribute_reduce(i32, cpu, world of 1 rank, op max): "),
      "the partial indices are NULL but the source block table has 1 rows");
  EXPECT_EQ(shardrt_redistribute_reduce(&s, &d, whole.data(), 1, &negative,
                                        whole.data(), 1, SHARDRT_AVG),
            invalid);
  EXPECT_CONTAINS(lastError("op avg"), "source block 0 has partial index -1; "
                                       "partial indices must be >= 0");
  // The checks of shardrt_redistribute apply.
  EXPECT_EQ(shardrt_redistribute_reduce(&s, &d, whole.data(), 1, &zero,
                                        row(0, {0, 0}, {6, 9}).data(), 1,
                                        SHARDRT_SUM),
            invalid);
  EXPECT_CONTAINS(lastError("redistribute_reduce(i32"),
                  "the source blocks span [6, 10] but the destination blocks "
                  "span [6, 9]");
  shardrt_tensor t = d;
  t.dtype = SHARDRT_F32;
  EXPECT_EQ(shardrt_redistribute_reduce(&s, &t, whole.data(), 1, &zero,
                                        whole.data(), 1, SHARDRT_PRODUCT),
            invalid);
  EXPECT_CONTAINS(lastError("op product"),
                  "src_local has i32 elements but dst_local f32");

  // Nothing to move: no rows, no partial indices needed.
  EXPECT_EQ(shardrt_redistribute_reduce(&s, nullptr, nullptr, 0, nullptr,
                                        nullptr, 0, SHARDRT_SUM),
            SHARDRT_SUCCESS)
      << shardrt_last_error();
}

/// One partial index in a world of one: a copy, for every dtype and op.
TEST_F(RuntimeTest, RedistributeReduceOfOnePartialIndexCopies) {
  const std::vector<int64_t> shape{3, 5};
  const std::vector<int64_t> table = row(0, {0, 0}, shape);
  const int64_t partial = 7;
  for (int dt = SHARDRT_F32; dt <= SHARDRT_U64; ++dt) {
    const auto dtype = static_cast<shardrt_dtype>(dt);
    const size_t es = elementSize(dtype);
    for (int op = SHARDRT_SUM; op <= SHARDRT_PRODUCT; ++op) {
      SCOPED_TRACE(std::string(dtypeName(dtype)) + " op " + std::to_string(op));
      StridedBuffer src(shape, es, Arrangement::Padded);
      StridedBuffer dst(shape, es, Arrangement::Transposed);
      forEachIndex(shape, [&](const std::vector<int64_t> &i) {
        src.set(i, valueBits(dtype, linearIndex(i, shape)));
        dst.set(i, ~valueBits(dtype, linearIndex(i, shape)));
      });
      shardrt_tensor s = src.tensor(dtype), d = dst.tensor(dtype);
      ASSERT_EQ(shardrt_redistribute_reduce(&s, &d, table.data(), 1, &partial,
                                            table.data(), 1, op),
                SHARDRT_SUCCESS)
          << shardrt_last_error();
      forEachIndex(shape, [&](const std::vector<int64_t> &i) {
        ASSERT_EQ(dst.get(i) & elementMask(es),
                  valueBits(dtype, linearIndex(i, shape)))
            << "at " << formatIndex(i);
      });
      EXPECT_TRUE(dst.paddingIntact());
    }
  }
}

TEST_F(RuntimeTest, RedistributeReduceCudaOfHostMemoryIsRefused) {
  // Host buffers that claim to be CUDA's: refused without the NCCL backend,
  // without a GPU, and by the pointer check where there is one.
  StridedBuffer a({4}, 4, Arrangement::Contiguous);
  StridedBuffer b({4}, 4, Arrangement::Contiguous);
  shardrt_tensor s = a.tensor(SHARDRT_F32, SHARDRT_DEVICE_CUDA);
  shardrt_tensor d = b.tensor(SHARDRT_F32, SHARDRT_DEVICE_CUDA);
  std::vector<int64_t> table = row(0, {0}, {4});
  const int64_t partial = 0;
  const int status = shardrt_redistribute_reduce(
      &s, &d, table.data(), 1, &partial, table.data(), 1, SHARDRT_SUM);
  const std::string message =
      lastError("redistribute_reduce(f32, cuda, world of 1 rank, op sum)");
  if (std::string(shardrt_backends()) == "mpi") {
    EXPECT_EQ(status, SHARDRT_ERROR_UNAVAILABLE);
    EXPECT_CONTAINS(message, "built without the NCCL backend");
  } else if (status == SHARDRT_ERROR_UNAVAILABLE) {
    EXPECT_CONTAINS(message, "no CUDA GPU visible");
  } else {
    EXPECT_EQ(status, SHARDRT_ERROR_INVALID_ARGUMENT);
    EXPECT_CONTAINS(message, "is not CUDA device memory");
  }
}

/// The MLIR entry point reads the partial indices from a strided memref.
TEST_F(RuntimeTest, MlirRedistributeReduceEntryPoint) {
  struct Desc1D {
    void *allocated;
    void *aligned;
    int64_t offset;
    int64_t sizes[1];
    int64_t strides[1];
  };
  struct Desc2D {
    void *allocated;
    void *aligned;
    int64_t offset;
    int64_t sizes[2];
    int64_t strides[2];
  };
  std::vector<int32_t> srcBuffer(12), dstBuffer(12, -1);
  for (int i = 0; i < 12; ++i)
    srcBuffer[i] = 3 * i + 1;
  Desc2D src{srcBuffer.data(), srcBuffer.data(), 0, {3, 4}, {4, 1}};
  Desc2D dst{dstBuffer.data(), dstBuffer.data(), 0, {3, 4}, {1, 3}};
  std::vector<int64_t> tableBuffer{0, 0, 0, 3, 4};
  Desc2D table{tableBuffer.data(), tableBuffer.data(), 0, {1, 5}, {5, 1}};
  std::vector<int64_t> partialBuffer{-9, 5};
  Desc1D partial{partialBuffer.data(), partialBuffer.data(), 1, {1}, {1}};
  shardrt_mlir_redistribute_reduce_i32(2, &src, 2, &dst, 2, &table, 1, &partial,
                                       2, &table, SHARDRT_MAX,
                                       SHARDRT_DEVICE_CPU);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(dstBuffer[r + c * 3], 3 * (r * 4 + c) + 1)
          << "at [" << r << ", " << c << "]";
}

} // namespace
