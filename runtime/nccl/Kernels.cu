//===- Kernels.cu - CUDA kernels of the NCCL backend ----------------------===//
//
// A copy whose rectangles have no outer dims (rows of a block: the common
// pack and unpack) runs rowsKernel: blocks stride over the rows, threads
// over the row's units, with no division per unit. Other copies run
// unitsKernel, one unit per thread placed by unitOffsets. Reductions move
// one element per thread with the host's arithmetic (ElementOps.h).
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include <algorithm>

namespace shardc {
namespace rt {
namespace cuda {

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

template <typename U>
__global__ void rowsKernel(DeviceCopy c, const char *src, char *dst) {
  const int64_t perRow = c.width / static_cast<int64_t>(sizeof(U));
  for (int64_t row = blockIdx.y; row < c.height; row += gridDim.y) {
    const U *from =
        reinterpret_cast<const U *>(src + c.srcOffset + row * c.srcPitch);
    U *to = reinterpret_cast<U *>(dst + c.dstOffset + row * c.dstPitch);
    for (int64_t k =
             blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
         k < perRow; k += static_cast<int64_t>(gridDim.x) * blockDim.x)
      to[k] = from[k];
  }
}

template <typename U>
__global__ void unitsKernel(DeviceCopy c, const char *src, char *dst,
                            int64_t units) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < units; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t from = 0, to = 0;
    unitOffsets(c, i, from, to);
    *reinterpret_cast<U *>(dst + to) = *reinterpret_cast<const U *>(src + from);
  }
}

template <typename U>
cudaError_t launchCopy(DeviceCopy c, const char *src, char *dst,
                       cudaStream_t stream) {
  c.unit = sizeof(U);
  if (c.rectangles == 1) {
    // One rectangle (outer dims, if any, all of size 1): rows only.
    c.outerDims = 0;
    const int64_t perRow = c.width / c.unit;
    dim3 grid(static_cast<unsigned>(
                  std::min<int64_t>((perRow + kThreads - 1) / kThreads, 1024)),
              static_cast<unsigned>(std::min<int64_t>(c.height, kMaxBlocks)));
    rowsKernel<U><<<grid, kThreads, 0, stream>>>(c, src, dst);
  } else {
    const int64_t units = c.units();
    const unsigned blocks = static_cast<unsigned>(
        std::min<int64_t>((units + kThreads - 1) / kThreads, 8 * kMaxBlocks));
    unitsKernel<U><<<blocks, kThreads, 0, stream>>>(c, src, dst, units);
  }
  return cudaGetLastError();
}

template <typename E, typename Fn>
__global__ void combineKernel(DeviceCopy c, const char *src, char *dst,
                              int64_t units, Fn fn) {
  using S = typename E::Storage;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
       i < units; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t from = 0, to = 0;
    unitOffsets(c, i, from, to);
    S *d = reinterpret_cast<S *>(dst + to);
    const S s = *reinterpret_cast<const S *>(src + from);
    *d = E::store(fn(E::load(*d), E::load(s)));
  }
}

template <typename E, typename Fn>
cudaError_t launchCombine(DeviceCopy c, const char *src, char *dst, Fn fn,
                          cudaStream_t stream) {
  c.unit = sizeof(typename E::Storage);
  const int64_t units = c.units();
  if (units == 0)
    return cudaSuccess;
  const unsigned blocks = static_cast<unsigned>(
      std::min<int64_t>((units + kThreads - 1) / kThreads, 8 * kMaxBlocks));
  combineKernel<E><<<blocks, kThreads, 0, stream>>>(c, src, dst, units, fn);
  return cudaGetLastError();
}

struct Add {
  template <typename V> __device__ V operator()(V a, V b) const {
    return ops::add<V>(a, b);
  }
};
struct Multiply {
  template <typename V> __device__ V operator()(V a, V b) const {
    return ops::multiply<V>(a, b);
  }
};
struct Maximum {
  template <typename V> __device__ V operator()(V a, V b) const {
    return ops::maximum<V>(a, b);
  }
};
struct Minimum {
  template <typename V> __device__ V operator()(V a, V b) const {
    return ops::minimum<V>(a, b);
  }
};
struct Divide {
  int64_t count;
  template <typename V> __device__ V operator()(V a, V) const {
    return ops::divide<V>(a, count);
  }
};

} // namespace

cudaError_t copy(const DeviceCopy &c, const char *src, char *dst,
                 cudaStream_t stream) {
  if (c.units() == 0)
    return cudaSuccess;
  // One contiguous run on both sides.
  if (c.rectangles == 1 &&
      (c.height == 1 || (c.srcPitch == c.width && c.dstPitch == c.width)))
    return cudaMemcpyAsync(dst + c.dstOffset, src + c.srcOffset,
                           static_cast<size_t>(c.width * c.height),
                           cudaMemcpyDeviceToDevice, stream);
  switch (alignedUnit(c, src, dst)) {
  case 16:
    return launchCopy<uint4>(c, src, dst, stream);
  case 8:
    return launchCopy<uint2>(c, src, dst, stream);
  case 4:
    return launchCopy<uint32_t>(c, src, dst, stream);
  case 2:
    return launchCopy<uint16_t>(c, src, dst, stream);
  default:
    return launchCopy<uint8_t>(c, src, dst, stream);
  }
}

cudaError_t reduce(const DeviceCopy &c, const char *src, char *dst,
                   shardrt_dtype dtype, shardrt_reduce op,
                   cudaStream_t stream) {
  return ops::withElement(dtype, [&](auto element) -> cudaError_t {
    using E = decltype(element);
    switch (op) {
    case SHARDRT_SUM:
    case SHARDRT_AVG:
      return launchCombine<E>(c, src, dst, Add(), stream);
    case SHARDRT_MAX:
      return launchCombine<E>(c, src, dst, Maximum(), stream);
    case SHARDRT_MIN:
      return launchCombine<E>(c, src, dst, Minimum(), stream);
    case SHARDRT_PRODUCT:
      return launchCombine<E>(c, src, dst, Multiply(), stream);
    }
    return cudaErrorInvalidValue;
  });
}

cudaError_t divide(const DeviceCopy &c, char *data, int64_t count,
                   shardrt_dtype dtype, cudaStream_t stream) {
  return ops::withElement(dtype, [&](auto element) -> cudaError_t {
    using E = decltype(element);
    return launchCombine<E>(c, data, data, Divide{count}, stream);
  });
}

} // namespace cuda
} // namespace rt
} // namespace shardc
