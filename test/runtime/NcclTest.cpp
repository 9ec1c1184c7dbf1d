//===- NcclTest.cpp - The NCCL backend in a world of one rank -------------===//
//
// Runs only where a CUDA GPU is visible; elsewhere every test is skipped.
//
//===----------------------------------------------------------------------===//

#include "TestSupport.h"
#include "shardrt.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

using namespace shardrt_test;

namespace {

bool gpuVisible() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return count > 0;
}

#define REQUIRE_GPU()                                                          \
  if (!gpuVisible())                                                           \
  GTEST_SKIP() << "no CUDA GPU visible: skipping the NCCL backend test"

/// A device copy of a StridedBuffer, viewed the same way.
class DeviceBuffer {
public:
  explicit DeviceBuffer(StridedBuffer &buffer) : host(buffer) {
    EXPECT_EQ(cudaMalloc(&data, host.bytes.size() + 1), cudaSuccess);
    upload();
  }
  ~DeviceBuffer() { cudaFree(data); }
  void upload() {
    EXPECT_EQ(cudaMemcpy(data, host.bytes.data(), host.bytes.size(),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  void download() {
    EXPECT_EQ(cudaMemcpy(host.bytes.data(), data, host.bytes.size(),
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
  }
  shardrt_tensor tensor(shardrt_dtype dtype) {
    shardrt_tensor t = host.tensor(dtype, SHARDRT_DEVICE_CUDA);
    t.data = static_cast<char *>(data) +
             (static_cast<unsigned char *>(t.data) - host.bytes.data());
    return t;
  }

private:
  StridedBuffer &host;
  void *data = nullptr;
};

TEST(NcclBackend, BuiltIn) { EXPECT_STREQ(shardrt_backends(), "mpi,nccl"); }

TEST(NcclBackend, WholeTensorRoundTrips) {
  REQUIRE_GPU();
  const Arrangement arrangements[] = {
      Arrangement::Contiguous, Arrangement::Padded, Arrangement::Transposed};
  const std::vector<std::vector<int64_t>> shapes = {{}, {7}, {3, 5}, {2, 3, 4}};
  for (shardrt_dtype dtype :
       {SHARDRT_F32, SHARDRT_BF16, SHARDRT_I8, SHARDRT_F64}) {
    const size_t es = elementSize(dtype);
    for (const std::vector<int64_t> &shape : shapes) {
      for (Arrangement ga : arrangements) {
        for (Arrangement la : arrangements) {
          SCOPED_TRACE(std::string(dtypeName(dtype)) + " " +
                       formatIndex(shape) + " global " + arrangementName(ga) +
                       " local " + arrangementName(la));
          std::vector<int64_t> table{0};
          table.insert(table.end(), shape.size(), 0);
          table.insert(table.end(), shape.begin(), shape.end());
          StridedBuffer local(shape, es, la), global(shape, es, ga);
          forEachIndex(shape, [&](const std::vector<int64_t> &i) {
            local.set(i, valueBits(dtype, linearIndex(i, shape)));
            global.set(i, ~valueBits(dtype, linearIndex(i, shape)));
          });
          DeviceBuffer dl(local), dg(global);
          shardrt_tensor l = dl.tensor(dtype), g = dg.tensor(dtype);
          ASSERT_EQ(shardrt_all_gather(&l, &g, table.data(), 1),
                    SHARDRT_SUCCESS)
              << shardrt_last_error();
          dg.download();
          forEachIndex(shape, [&](const std::vector<int64_t> &i) {
            ASSERT_EQ(global.get(i), valueBits(dtype, linearIndex(i, shape)))
                << "at " << formatIndex(i);
          });
          EXPECT_TRUE(global.paddingIntact());

          forEachIndex(shape, [&](const std::vector<int64_t> &i) {
            local.set(i, ~valueBits(dtype, linearIndex(i, shape)));
          });
          dl.upload();
          ASSERT_EQ(shardrt_scatter(&g, &l, table.data(), 1, 0),
                    SHARDRT_SUCCESS)
              << shardrt_last_error();
          dl.download();
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

TEST(NcclBackend, HostBufferIsRefused) {
  REQUIRE_GPU();
  StridedBuffer global({4}, 4, Arrangement::Contiguous);
  shardrt_tensor g = global.tensor(SHARDRT_F32, SHARDRT_DEVICE_CUDA);
  std::vector<int64_t> table{0, 0, 4};
  EXPECT_EQ(shardrt_all_gather(&g, &g, table.data(), 1),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(shardrt_last_error()).find("not CUDA device memory"),
            std::string::npos)
      << shardrt_last_error();
}

} // namespace
