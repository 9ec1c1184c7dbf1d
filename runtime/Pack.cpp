//===- Pack.cpp - Copies between strided views of a tensor ----------------===//

#include "Pack.h"

#include <algorithm>
#include <cstring>

namespace shardc {
namespace rt {

namespace {

/// One dim of a copy: its size and the strides of both views, in bytes.
struct Dim {
  int64_t size;
  int64_t src;
  int64_t dst;
};

/// Copies `height` single elements of `W` bytes between strided rows.
template <size_t W>
void copyElements(const char *src, char *dst, int64_t height, int64_t srcPitch,
                  int64_t dstPitch) {
  for (int64_t r = 0; r < height; ++r) {
    unsigned char tmp[W];
    std::memcpy(tmp, src + r * srcPitch, W);
    std::memcpy(dst + r * dstPitch, tmp, W);
  }
}

} // namespace

CopyPlan::CopyPlan(const std::vector<int64_t> &sizes,
                   const std::vector<int64_t> &srcStrides,
                   const std::vector<int64_t> &dstStrides, size_t elemSize) {
  const int64_t es = static_cast<int64_t>(elemSize);
  // Outermost first; dims of size 1 move nothing.
  std::vector<Dim> dims;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) {
      isEmpty = true;
      return;
    }
    if (sizes[d] == 1)
      continue;
    Dim dim{sizes[d], srcStrides[d] * es, dstStrides[d] * es};
    // Merge with the dim outside it when both views step over it exactly.
    if (!dims.empty() && dims.back().src == dim.src * dim.size &&
        dims.back().dst == dim.dst * dim.size) {
      dims.back() = Dim{dims.back().size * dim.size, dim.src, dim.dst};
      continue;
    }
    dims.push_back(dim);
  }

  inner.width = es;
  inner.height = 1;
  inner.srcPitch = es;
  inner.dstPitch = es;
  if (dims.empty())
    return;
  Dim last = dims.back();
  dims.pop_back();
  if (last.src == es && last.dst == es) {
    // Rows of contiguous bytes; the next dim out gives the rows.
    inner.width = last.size * es;
    inner.srcPitch = inner.width;
    inner.dstPitch = inner.width;
    if (!dims.empty()) {
      inner.height = dims.back().size;
      inner.srcPitch = dims.back().src;
      inner.dstPitch = dims.back().dst;
      dims.pop_back();
    }
  } else {
    // Single elements, strided.
    inner.height = last.size;
    inner.srcPitch = last.src;
    inner.dstPitch = last.dst;
  }
  for (const Dim &dim : dims) {
    outerSizes.push_back(dim.size);
    outerSrc.push_back(dim.src);
    outerDst.push_back(dim.dst);
  }
}

int64_t CopyPlan::numCopies() const {
  if (isEmpty)
    return 0;
  int64_t n = 1;
  for (int64_t s : outerSizes)
    n *= s;
  return n;
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &sizes) {
  std::vector<int64_t> strides(sizes.size(), 1);
  for (size_t d = sizes.size(); d > 1; --d)
    strides[d - 2] = strides[d - 1] * std::max<int64_t>(sizes[d - 1], 1);
  return strides;
}

bool isContiguous(const std::vector<int64_t> &sizes,
                  const std::vector<int64_t> &strides) {
  int64_t expected = 1;
  for (size_t d = sizes.size(); d > 0; --d) {
    int64_t size = sizes[d - 1];
    if (size == 0)
      return true;
    if (size != 1 && strides[d - 1] != expected)
      return false;
    expected *= size;
  }
  return true;
}

ByteExtent byteExtent(const View &v, size_t elemSize) {
  if (std::any_of(v.sizes.begin(), v.sizes.end(),
                  [](int64_t s) { return s == 0; }))
    return {};
  int64_t low = 0, high = 0;
  for (size_t d = 0; d < v.sizes.size(); ++d) {
    const int64_t reach = (v.sizes[d] - 1) * v.strides[d];
    (reach < 0 ? low : high) += reach;
  }
  const int64_t es = static_cast<int64_t>(elemSize);
  return {low * es, (high + 1) * es};
}

int64_t linearOffset(const std::vector<int64_t> &offsets,
                     const std::vector<int64_t> &strides) {
  int64_t offset = 0;
  for (size_t d = 0; d < offsets.size(); ++d)
    offset += offsets[d] * strides[d];
  return offset;
}

void copyOnHost(const CopyPlan &plan, const char *src, char *dst,
                size_t elemSize) {
  plan.forEach([&](const Copy2D &c) {
    const char *s = src + c.srcOffset;
    char *d = dst + c.dstOffset;
    if (c.width == static_cast<int64_t>(elemSize)) {
      switch (elemSize) {
      case 1:
        return copyElements<1>(s, d, c.height, c.srcPitch, c.dstPitch);
      case 2:
        return copyElements<2>(s, d, c.height, c.srcPitch, c.dstPitch);
      case 4:
        return copyElements<4>(s, d, c.height, c.srcPitch, c.dstPitch);
      case 8:
        return copyElements<8>(s, d, c.height, c.srcPitch, c.dstPitch);
      default:
        break;
      }
    }
    // memmove: a view may be copied onto itself (a local block that aliases
    // its place in the global tensor).
    for (int64_t r = 0; r < c.height; ++r)
      std::memmove(d + r * c.dstPitch, s + r * c.srcPitch, c.width);
  });
}

void copyView(const View &src, const View &dst, size_t elemSize) {
  CopyPlan plan(src.sizes, src.strides, dst.strides, elemSize);
  copyOnHost(plan, src.data, dst.data, elemSize);
}

View subView(const View &whole, const layout::Box &box, size_t elemSize) {
  View view;
  view.data = whole.data + linearOffset(box.offsets, whole.strides) *
                               static_cast<int64_t>(elemSize);
  view.sizes = box.sizes;
  view.strides = whole.strides;
  return view;
}

View boxView(const View &block, const layout::Box &blockBox,
             const layout::Box &box, size_t elemSize) {
  layout::Box inBlock = box;
  for (size_t d = 0; d < inBlock.rank(); ++d)
    inBlock.offsets[d] -= blockBox.offsets[d];
  return subView(block, inBlock, elemSize);
}

View contiguousView(char *data, const std::vector<int64_t> &sizes) {
  View view;
  view.data = data;
  view.sizes = sizes;
  view.strides = rowMajorStrides(sizes);
  return view;
}

void packBox(const View &whole, const layout::Box &box, size_t elemSize,
             char *dst) {
  if (box.empty())
    return;
  copyView(subView(whole, box, elemSize), contiguousView(dst, box.sizes),
           elemSize);
}

void unpackBox(const char *src, const View &whole, const layout::Box &box,
               size_t elemSize) {
  if (box.empty())
    return;
  copyView(contiguousView(const_cast<char *>(src), box.sizes),
           subView(whole, box, elemSize), elemSize);
}

} // namespace rt
} // namespace shardc
