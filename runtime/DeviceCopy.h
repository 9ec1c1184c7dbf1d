//===- DeviceCopy.h - Strided copies as descriptors for CUDA kernels ------===//
//
// The NCCL backend packs, unpacks, copies and reduces strided views with
// CUDA kernels. A CopyPlan (rectangles of rows, merged dims) becomes one or
// more DeviceCopy descriptors, passed by value to a kernel whose threads each
// move one `unit` of bytes: thread i finds its source and destination byte
// offsets with unitOffsets(), which the host tests run too. Built without
// CUDA; the kernels live in nccl/Kernels.cu.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_DEVICE_COPY_H
#define SHARDRT_DEVICE_COPY_H

#include "ElementOps.h"
#include "Pack.h"

#include <cstdint>
#include <vector>

namespace shardc {
namespace rt {

/// The outer dims one descriptor iterates; a plan with more becomes several
/// descriptors.
constexpr int kMaxDeviceOuterDims = 4;

/// A copy of `rectangles` rectangles of `height` rows of `width` bytes, the
/// first row at `srcOffset` / `dstOffset` bytes, rows `srcPitch` /
/// `dstPitch` apart, rectangles placed by up to kMaxDeviceOuterDims outer
/// dims (outermost first, strides in bytes, possibly negative). Moved
/// `unit` bytes at a time (a divisor of the width, the pitches and the outer
/// strides).
struct DeviceCopy {
  int64_t srcOffset = 0, dstOffset = 0;
  int64_t width = 0, height = 0, srcPitch = 0, dstPitch = 0;
  int32_t outerDims = 0;
  int32_t unit = 1;
  int64_t outerSizes[kMaxDeviceOuterDims] = {};
  int64_t outerSrc[kMaxDeviceOuterDims] = {};
  int64_t outerDst[kMaxDeviceOuterDims] = {};
  int64_t rectangles = 1;

  /// The number of units moved.
  SHARDRT_HD int64_t units() const {
    return rectangles * height * (width / unit);
  }
};

/// The byte offsets (from the views' first elements) of unit `i` of `copy`
/// in the source and the destination.
SHARDRT_HD void unitOffsets(const DeviceCopy &copy, int64_t i, int64_t &srcAt,
                            int64_t &dstAt) {
  const int64_t perRow = copy.width / copy.unit;
  int64_t row = i / perRow;
  const int64_t column = (i - row * perRow) * copy.unit;
  int64_t rectangle = row / copy.height;
  row -= rectangle * copy.height;
  srcAt = copy.srcOffset + row * copy.srcPitch + column;
  dstAt = copy.dstOffset + row * copy.dstPitch + column;
  for (int d = copy.outerDims - 1; d >= 0; --d) {
    const int64_t index = rectangle % copy.outerSizes[d];
    rectangle /= copy.outerSizes[d];
    srcAt += index * copy.outerSrc[d];
    dstAt += index * copy.outerDst[d];
  }
}

/// `plan` as device copies, moved `elemSize` bytes at a time when
/// `vectorize` is false (reductions), else by the widest unit (16, 8, 4, 2
/// or 1 bytes) that divides the rows, the pitches and the strides. None when
/// the plan is empty. The caller checks the buffers' alignment against the
/// unit (alignedUnit).
std::vector<DeviceCopy> deviceCopies(const CopyPlan &plan, size_t elemSize,
                                     bool vectorize);

/// The widest unit <= copy.unit that also divides the addresses of the
/// source and destination's first elements.
int32_t alignedUnit(const DeviceCopy &copy, const char *src, const char *dst);

} // namespace rt
} // namespace shardc

#endif // SHARDRT_DEVICE_COPY_H
