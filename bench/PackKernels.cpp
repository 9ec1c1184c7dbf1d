//===- PackKernels.cpp - The NCCL backend's pack kernels vs cudaMemcpyAsync
//-===//
//
// Packs blocks of contiguous rows (a [rows, width] block out of a
// [rows, 2 * width] f32 tensor: every row contiguous, rows apart) into a
// contiguous buffer with the runtime's copy kernel, and unpacks them back,
// against cudaMemcpyAsync device-to-device of the same number of bytes.
// Prints the median bandwidth over 21 timed runs (CUDA events) and the
// ratio; the goal is at least 0.8. Also a transposed copy (no contiguous
// rows) for reference. Needs a GPU; exits 0 with a message without one.
//
//   shardrt-bench-pack [--mib N]   (default 256 MiB per copy)
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace shardc::rt;

namespace {

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_));  \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

/// The median milliseconds of `fn` over 21 runs after 3 warm-up runs.
double medianMs(const std::function<void()> &fn) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i)
    fn();
  std::vector<double> times;
  for (int i = 0; i < 21; ++i) {
    CHECK(cudaEventRecord(start));
    fn();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void runCopy(const CopyPlan &plan, const char *src, char *dst) {
  for (const DeviceCopy &copy : deviceCopies(plan, 4, true))
    CHECK(cuda::copy(copy, src, dst, nullptr));
}

} // namespace

int main(int argc, char **argv) {
  int64_t mib = 256;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--mib") == 0 && i + 1 < argc)
      mib = std::max<int64_t>(1, std::atoll(argv[++i]));
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("shardrt-bench-pack: no CUDA GPU visible; nothing measured\n");
    return 0;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int64_t bytes = mib << 20;
  char *whole = nullptr, *packed = nullptr, *copy = nullptr;
  CHECK(cudaMalloc(&whole, 2 * bytes));
  CHECK(cudaMalloc(&packed, bytes));
  CHECK(cudaMalloc(&copy, bytes));
  CHECK(cudaMemset(whole, 1, 2 * bytes));

  const double memcpyMs = medianMs([&] {
    CHECK(cudaMemcpyAsync(copy, packed, bytes, cudaMemcpyDeviceToDevice));
  });
  const double memcpyGBs = bytes / memcpyMs / 1e6;
  std::printf("GPU %s; %lld MiB per copy; medians of 21\n", prop.name,
              static_cast<long long>(mib));
  std::printf("%-36s %10s %8s\n", "copy", "GB/s", "ratio");
  std::printf("%-36s %10.1f %8.3f\n", "cudaMemcpyAsync device-to-device",
              memcpyGBs, 1.0);
  for (int64_t rowBytes : {64, 256, 1024, 4096, 65536}) {
    const int64_t width = rowBytes / 4, rows = bytes / rowBytes;
    const CopyPlan pack({rows, width}, {2 * width, 1}, {width, 1}, 4);
    const CopyPlan unpack({rows, width}, {width, 1}, {2 * width, 1}, 4);
    const double packMs = medianMs([&] { runCopy(pack, whole, packed); });
    const double unpackMs = medianMs([&] { runCopy(unpack, packed, whole); });
    for (auto [what, ms] :
         {std::make_pair("pack", packMs), std::make_pair("unpack", unpackMs)}) {
      const double gbs = bytes / ms / 1e6;
      char name[64];
      std::snprintf(name, sizeof(name), "%s, rows of %lld B", what,
                    static_cast<long long>(rowBytes));
      std::printf("%-36s %10.1f %8.3f\n", name, gbs, gbs / memcpyGBs);
    }
  }
  // A transposed copy: no contiguous rows (4-byte units), for reference.
  const int64_t side = static_cast<int64_t>(1) << 12;
  const int64_t tBytes = side * side * 4;
  if (tBytes <= bytes) {
    const CopyPlan transpose({side, side}, {side, 1}, {1, side}, 4);
    const double ms = medianMs([&] { runCopy(transpose, whole, packed); });
    std::printf("%-36s %10.1f %8.3f\n", "transpose 4096x4096 f32",
                tBytes / ms / 1e6, tBytes / ms / 1e6 / memcpyGBs);
  }
  cudaFree(whole);
  cudaFree(packed);
  cudaFree(copy);
  return 0;
}
