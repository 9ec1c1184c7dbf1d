//===- Pack.h - Copies between strided views of a tensor --------*- C++ -*-===//
//
// A copy of `sizes` elements between two strided views, reduced to a short
// sequence of rectangular copies (rows of contiguous bytes). The CPU backend
// runs them with memcpy; the NCCL backend issues one cudaMemcpy2DAsync each.
// Packing a block means copying its box out of the global view into a
// contiguous row-major buffer; unpacking is the reverse.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_PACK_H
#define SHARDRT_PACK_H

#include "shardc/Layout/Layout.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardc {
namespace rt {

/// A strided view of a tensor in memory. Strides count elements and may be
/// anything (zero, negative) as long as the addressed elements exist.
struct View {
  char *data = nullptr;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;

  size_t rank() const { return sizes.size(); }
};

/// One rectangular copy: `height` rows of `width` bytes. Row `i` is read at
/// `src + srcOffset + i * srcPitch` and written at `dst + dstOffset + i *
/// dstPitch`. Offsets and pitches count bytes.
struct Copy2D {
  int64_t srcOffset = 0;
  int64_t dstOffset = 0;
  int64_t width = 0;
  int64_t height = 0;
  int64_t srcPitch = 0;
  int64_t dstPitch = 0;
};

/// A copy between two views of the same sizes, as rectangles. Dims of size 1
/// are dropped and adjacent dims that are contiguous in both views merged, so
/// that a copy between two contiguous views is one rectangle of one row.
class CopyPlan {
public:
  /// Plans the copy of `sizes` elements of `elemSize` bytes from a view with
  /// `srcStrides` into a view with `dstStrides` (strides in elements).
  CopyPlan(const std::vector<int64_t> &sizes,
           const std::vector<int64_t> &srcStrides,
           const std::vector<int64_t> &dstStrides, size_t elemSize);

  /// Whether there is nothing to copy (a zero size).
  bool empty() const { return isEmpty; }
  /// The number of rectangles forEach produces.
  int64_t numCopies() const;
  /// The shape of every rectangle (offsets of the first one).
  const Copy2D &rectangle() const { return inner; }
  /// The dims iterated around the rectangles, outermost first, and their
  /// strides in bytes in the source and the destination.
  const std::vector<int64_t> &outerDimSizes() const { return outerSizes; }
  const std::vector<int64_t> &outerSrcStrides() const { return outerSrc; }
  const std::vector<int64_t> &outerDstStrides() const { return outerDst; }

  /// Calls `fn(const Copy2D &)` for every rectangle, outer dims in row-major
  /// order.
  template <typename Fn> void forEach(Fn &&fn) const {
    if (isEmpty)
      return;
    const size_t n = outerSizes.size();
    std::vector<int64_t> index(n, 0);
    Copy2D copy = inner;
    while (true) {
      fn(copy);
      // Advance the odometer over the outer dims, innermost first; stop once
      // every dim has wrapped around.
      size_t d = n;
      while (true) {
        if (d == 0)
          return;
        --d;
        if (++index[d] < outerSizes[d]) {
          copy.srcOffset += outerSrc[d];
          copy.dstOffset += outerDst[d];
          break;
        }
        copy.srcOffset -= outerSrc[d] * (outerSizes[d] - 1);
        copy.dstOffset -= outerDst[d] * (outerSizes[d] - 1);
        index[d] = 0;
      }
    }
  }

private:
  bool isEmpty = false;
  Copy2D inner;
  /// The dims iterated around the rectangles, outermost first; strides in
  /// bytes.
  std::vector<int64_t> outerSizes, outerSrc, outerDst;
};

/// Row-major strides (in elements) of a contiguous tensor of `sizes`.
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t> &sizes);

/// Whether a view of `sizes` with `strides` is contiguous and row-major,
/// ignoring the strides of dims of size 1 (an empty view is contiguous).
bool isContiguous(const std::vector<int64_t> &sizes,
                  const std::vector<int64_t> &strides);

/// The bytes a view spans, from its lowest element to one past its highest,
/// as offsets from its data pointer (which may move: the extent does not);
/// empty ({0, 0}) when the view is.
struct ByteExtent {
  int64_t low = 0;
  int64_t high = 0;
};
ByteExtent byteExtent(const View &v, size_t elemSize);

/// Whether the extents `ea` of data at `a` and `eb` of data at `b` intersect;
/// empty extents intersect nothing.
inline bool extentsOverlap(const char *a, ByteExtent ea, const char *b,
                           ByteExtent eb) {
  if (ea.low == ea.high || eb.low == eb.high)
    return false;
  return a + ea.low < b + eb.high && b + eb.low < a + ea.high;
}

/// The element offset of index `offsets` in a view with `strides`.
int64_t linearOffset(const std::vector<int64_t> &offsets,
                     const std::vector<int64_t> &strides);

/// Runs `plan` on host memory, reading from `src` and writing to `dst`.
void copyOnHost(const CopyPlan &plan, const char *src, char *dst,
                size_t elemSize);

/// Copies all elements of `src` into `dst` (equal sizes) on the host.
void copyView(const View &src, const View &dst, size_t elemSize);

/// The view of `box` inside `whole` (same strides, shifted data).
View subView(const View &whole, const layout::Box &box, size_t elemSize);

/// The view of `box`, given in the coordinates of the global tensor, inside
/// `block`, the view of the global tensor's `blockBox` (which holds `box`).
View boxView(const View &block, const layout::Box &blockBox,
             const layout::Box &box, size_t elemSize);

/// A contiguous row-major view of `sizes` at `data`.
View contiguousView(char *data, const std::vector<int64_t> &sizes);

/// Copies `box` of `whole` into the contiguous row-major buffer `dst`.
void packBox(const View &whole, const layout::Box &box, size_t elemSize,
             char *dst);

/// Copies the contiguous row-major buffer `src` into `box` of `whole`.
void unpackBox(const char *src, const View &whole, const layout::Box &box,
               size_t elemSize);

} // namespace rt
} // namespace shardc

#endif // SHARDRT_PACK_H
