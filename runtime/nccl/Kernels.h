//===- Kernels.h - CUDA kernels of the NCCL backend -----------------------===//
//
// Copies, reductions and avg's division over strided device views, enqueued
// on a stream. Each takes the views' first elements and the DeviceCopy that
// places the units (DeviceCopy.h); none synchronizes.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_NCCL_KERNELS_H
#define SHARDRT_NCCL_KERNELS_H

#include "DeviceCopy.h"

#pragma GCC visibility push(default)
#include "shardrt.h"
#pragma GCC visibility pop

#include <cuda_runtime.h>

namespace shardc {
namespace rt {
namespace cuda {

/// dst = src over `copy` (moved `alignedUnit` bytes at a time; one
/// cudaMemcpyAsync when both sides are one contiguous run).
cudaError_t copy(const DeviceCopy &copy, const char *src, char *dst,
                 cudaStream_t stream);
/// dst = dst op src, element by element, in `dtype` (ElementOps.h).
cudaError_t reduce(const DeviceCopy &copy, const char *src, char *dst,
                   shardrt_dtype dtype, shardrt_reduce op, cudaStream_t stream);
/// data = data / count (avg), in `dtype`; `copy` maps the view to itself.
cudaError_t divide(const DeviceCopy &copy, char *data, int64_t count,
                   shardrt_dtype dtype, cudaStream_t stream);

} // namespace cuda
} // namespace rt
} // namespace shardc

#endif // SHARDRT_NCCL_KERNELS_H
