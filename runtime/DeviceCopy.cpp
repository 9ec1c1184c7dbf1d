//===- DeviceCopy.cpp - Strided copies as descriptors for CUDA kernels ----===//

#include "DeviceCopy.h"

#include <cstdlib>

namespace shardc {
namespace rt {

namespace {

/// The largest power of two up to 16 dividing every value.
int32_t widestUnit(std::initializer_list<int64_t> values, int32_t start) {
  int32_t unit = start;
  for (int64_t v : values) {
    while (unit > 1 && std::llabs(v) % unit != 0)
      unit /= 2;
  }
  return unit;
}

} // namespace

std::vector<DeviceCopy> deviceCopies(const CopyPlan &plan, size_t elemSize,
                                     bool vectorize) {
  std::vector<DeviceCopy> copies;
  if (plan.empty())
    return copies;
  const Copy2D &r = plan.rectangle();
  const std::vector<int64_t> &sizes = plan.outerDimSizes();
  const std::vector<int64_t> &srcStrides = plan.outerSrcStrides();
  const std::vector<int64_t> &dstStrides = plan.outerDstStrides();
  const size_t outer = sizes.size();
  // The outermost dims beyond what a descriptor holds are iterated here.
  const size_t excess =
      outer > kMaxDeviceOuterDims ? outer - kMaxDeviceOuterDims : 0;
  DeviceCopy base;
  base.width = r.width;
  base.height = r.height;
  base.srcPitch = r.srcPitch;
  base.dstPitch = r.dstPitch;
  base.outerDims = static_cast<int32_t>(outer - excess);
  base.unit = static_cast<int32_t>(elemSize);
  for (size_t d = excess; d < outer; ++d) {
    base.outerSizes[d - excess] = sizes[d];
    base.outerSrc[d - excess] = srcStrides[d];
    base.outerDst[d - excess] = dstStrides[d];
    base.rectangles *= sizes[d];
  }
  if (vectorize) {
    base.unit = widestUnit({r.width, r.srcPitch, r.dstPitch}, 16);
    for (size_t d = 0; d < outer; ++d)
      base.unit = widestUnit({srcStrides[d], dstStrides[d]}, base.unit);
  }
  // Odometer over the excess dims.
  std::vector<int64_t> index(excess, 0);
  int64_t srcAt = r.srcOffset, dstAt = r.dstOffset;
  while (true) {
    DeviceCopy copy = base;
    copy.srcOffset = srcAt;
    copy.dstOffset = dstAt;
    copies.push_back(copy);
    size_t d = excess;
    while (true) {
      if (d == 0)
        return copies;
      --d;
      if (++index[d] < sizes[d]) {
        srcAt += srcStrides[d];
        dstAt += dstStrides[d];
        break;
      }
      srcAt -= srcStrides[d] * (sizes[d] - 1);
      dstAt -= dstStrides[d] * (sizes[d] - 1);
      index[d] = 0;
    }
  }
}

int32_t alignedUnit(const DeviceCopy &copy, const char *src, const char *dst) {
  return widestUnit(
      {static_cast<int64_t>(reinterpret_cast<uintptr_t>(src + copy.srcOffset) %
                            16),
       static_cast<int64_t>(reinterpret_cast<uintptr_t>(dst + copy.dstOffset) %
                            16)},
      copy.unit);
}

} // namespace rt
} // namespace shardc
