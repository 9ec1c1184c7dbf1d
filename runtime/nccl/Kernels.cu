//===- Kernels.cu - CUDA kernels of the NCCL backend ----------------------===//
//
// The bodies and the choice of kernel, unit and grid are KernelBodies.h's
// (shared with the tests' simulated device); this file launches them on a
// stream.
//
//===----------------------------------------------------------------------===//

#include "KernelBodies.h"
#include "Kernels.h"

namespace shardc {
namespace rt {
namespace cuda {

namespace {

__device__ __forceinline__ kernels::Thread thisThread() {
  return {blockIdx.x, blockIdx.y, threadIdx.x,
          gridDim.x,  gridDim.y,  blockDim.x};
}

template <typename U>
__global__ void rowsKernel(DeviceCopy c, const char *src, char *dst,
                           int64_t lanes) {
  kernels::rowsBody<U>(c, src, dst, lanes, thisThread());
}

template <typename U>
__global__ void unitsKernel(DeviceCopy c, const char *src, char *dst,
                            int64_t units) {
  kernels::unitsBody<U>(c, src, dst, units, thisThread());
}

template <typename E, typename Fn>
__global__ void combineKernel(DeviceCopy c, const char *src, char *dst,
                              int64_t units, Fn fn) {
  kernels::combineBody<E>(c, src, dst, units, fn, thisThread());
}

/// Launches the bodies on `stream`.
struct StreamLauncher {
  using Status = cudaError_t;
  using Unit16 = uint4;
  using Unit8 = uint2;
  cudaStream_t stream;

  Status success() const { return cudaSuccess; }
  Status invalid() const { return cudaErrorInvalidValue; }
  Status contiguous(char *dst, const char *src, int64_t bytes) const {
    return cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes),
                           cudaMemcpyDeviceToDevice, stream);
  }
  template <typename U>
  Status rows(kernels::Grid g, const DeviceCopy &c, const char *src,
              char *dst) const {
    dim3 grid(static_cast<unsigned>(g.x), static_cast<unsigned>(g.y));
    rowsKernel<U><<<grid, kernels::kThreads, 0, stream>>>(c, src, dst, g.lanes);
    return cudaGetLastError();
  }
  template <typename U>
  Status units(kernels::Grid g, const DeviceCopy &c, const char *src, char *dst,
               int64_t units) const {
    unitsKernel<U>
        <<<static_cast<unsigned>(g.x), kernels::kThreads, 0, stream>>>(
            c, src, dst, units);
    return cudaGetLastError();
  }
  template <typename E, typename Fn>
  Status combine(kernels::Grid g, const DeviceCopy &c, const char *src,
                 char *dst, int64_t units, const Fn &fn) const {
    combineKernel<E>
        <<<static_cast<unsigned>(g.x), kernels::kThreads, 0, stream>>>(
            c, src, dst, units, fn);
    return cudaGetLastError();
  }
};

} // namespace

cudaError_t copy(const DeviceCopy &c, const char *src, char *dst,
                 cudaStream_t stream) {
  StreamLauncher launcher{stream};
  return kernels::copy(launcher, c, src, dst);
}

cudaError_t reduce(const DeviceCopy &c, const char *src, char *dst,
                   shardrt_dtype dtype, shardrt_reduce op,
                   cudaStream_t stream) {
  StreamLauncher launcher{stream};
  return kernels::reduce(launcher, c, src, dst, dtype, op);
}

cudaError_t divide(const DeviceCopy &c, char *data, int64_t count,
                   shardrt_dtype dtype, cudaStream_t stream) {
  StreamLauncher launcher{stream};
  return kernels::divide(launcher, c, data, count, dtype);
}

} // namespace cuda
} // namespace rt
} // namespace shardc
