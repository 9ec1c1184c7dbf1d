//===- KernelBodies.h - The NCCL backend's kernels, for device and host ---===//
//
// What each thread of a copy, reduction or division kernel does, and how a
// call chooses its kernel, unit and grid: one definition, compiled by nvcc
// for the GPU (Kernels.cu launches the bodies) and by the host compiler for
// the simulated device of the tests (test/simdevice), which runs the same
// bodies over the same grid thread by thread. A Launcher supplies what
// differs: how a grid runs and how a contiguous run is copied.
//
// A copy whose rectangles have no outer dims (rows of a block: the common
// pack and unpack) runs the rows body: blocks stride over the rows, threads
// over the row's units (a block takes several narrow rows at once), with no
// division per unit. Other copies run the
// units body, one unit per thread placed by unitOffsets. Reductions move one
// element per thread with the host's arithmetic (ElementOps.h).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_NCCL_KERNEL_BODIES_H
#define SHARDRT_NCCL_KERNEL_BODIES_H

#include "DeviceCopy.h"

#include <algorithm>
#include <cstdint>

namespace shardc {
namespace rt {
namespace kernels {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;
/// The rows each thread of the rows body loads before it stores: one load
/// in flight per thread kept an H200 at 0.67 of cudaMemcpyAsync's bandwidth.
constexpr int kRowsInFlight = 4;

/// A thread's place in its grid (x and y of blockIdx and gridDim, x of
/// threadIdx and blockDim).
struct Thread {
  int64_t blockX, blockY, threadX;
  int64_t gridX, gridY, blockDimX;
};

/// A grid of gridX x gridY blocks of kThreads threads; for the rows body,
/// the threads that share a row (`lanes`, a power of two dividing
/// kThreads): a block copies kThreads / lanes rows at once.
struct Grid {
  int64_t x = 1, y = 1;
  int64_t lanes = kThreads;
};

/// The rows body's grid for `height` rows of `perRow` units: as many lanes
/// per row as the row has units (rounded up to a power of two, at most
/// kThreads), so that narrow rows keep every thread of a block busy (rows
/// of 64 B in 16-byte units: 64 rows of 4 lanes, not 1 row of 256 threads
/// of which 4 work).
inline Grid rowsGrid(int64_t perRow, int64_t height) {
  Grid g;
  g.lanes = 1;
  while (g.lanes < perRow && g.lanes < kThreads)
    g.lanes *= 2;
  const int64_t rowsPerBlock = kThreads / g.lanes * kRowsInFlight;
  g.x = std::min<int64_t>((perRow + g.lanes - 1) / g.lanes, 1024);
  g.y =
      std::min<int64_t>((height + rowsPerBlock - 1) / rowsPerBlock, kMaxBlocks);
  return g;
}

/// The rows body: the units of each row of the one rectangle, `lanes`
/// threads per row (rowsGrid), the block's threads on blockDimX / lanes
/// rows at once, kRowsInFlight such sets of rows per block and step.
template <typename U>
SHARDRT_HD void rowsBody(const DeviceCopy &c, const char *src, char *dst,
                         int64_t lanes, const Thread &t) {
  const int64_t perRow = c.width / static_cast<int64_t>(sizeof(U));
  const int64_t rowsAtOnce = t.blockDimX / lanes;
  const int64_t rowsPerBlock = rowsAtOnce * kRowsInFlight;
  const int64_t lane = t.threadX % lanes, slot = t.threadX / lanes;
  for (int64_t first = t.blockY * rowsPerBlock + slot; first < c.height;
       first += t.gridY * rowsPerBlock) {
    for (int64_t k = t.blockX * lanes + lane; k < perRow;
         k += t.gridX * lanes) {
      // Every load before any store: kRowsInFlight loads in flight per
      // thread, not one.
      U v[kRowsInFlight];
      SHARDRT_UNROLL
      for (int j = 0; j < kRowsInFlight; ++j) {
        const int64_t row = first + j * rowsAtOnce;
        if (row < c.height)
          v[j] = reinterpret_cast<const U *>(src + c.srcOffset +
                                             row * c.srcPitch)[k];
      }
      SHARDRT_UNROLL
      for (int j = 0; j < kRowsInFlight; ++j) {
        const int64_t row = first + j * rowsAtOnce;
        if (row < c.height)
          reinterpret_cast<U *>(dst + c.dstOffset + row * c.dstPitch)[k] = v[j];
      }
    }
  }
}

/// The units body: unit i of `units` per thread, grid-strided.
template <typename U>
SHARDRT_HD void unitsBody(const DeviceCopy &c, const char *src, char *dst,
                          int64_t units, const Thread &t) {
  for (int64_t i = t.blockX * t.blockDimX + t.threadX; i < units;
       i += t.gridX * t.blockDimX) {
    int64_t from = 0, to = 0;
    unitOffsets(c, i, from, to);
    *reinterpret_cast<U *>(dst + to) = *reinterpret_cast<const U *>(src + from);
  }
}

/// The combine body: dst = fn(dst, src) per element of type E.
template <typename E, typename Fn>
SHARDRT_HD void combineBody(const DeviceCopy &c, const char *src, char *dst,
                            int64_t units, const Fn &fn, const Thread &t) {
  using S = typename E::Storage;
  for (int64_t i = t.blockX * t.blockDimX + t.threadX; i < units;
       i += t.gridX * t.blockDimX) {
    int64_t from = 0, to = 0;
    unitOffsets(c, i, from, to);
    S *d = reinterpret_cast<S *>(dst + to);
    const S s = *reinterpret_cast<const S *>(src + from);
    *d = E::store(fn(E::load(*d), E::load(s)));
  }
}

struct Add {
  template <typename V> SHARDRT_HD V operator()(V a, V b) const {
    return ops::add<V>(a, b);
  }
};
struct Multiply {
  template <typename V> SHARDRT_HD V operator()(V a, V b) const {
    return ops::multiply<V>(a, b);
  }
};
struct Maximum {
  template <typename V> SHARDRT_HD V operator()(V a, V b) const {
    return ops::maximum<V>(a, b);
  }
};
struct Minimum {
  template <typename V> SHARDRT_HD V operator()(V a, V b) const {
    return ops::minimum<V>(a, b);
  }
};
struct Divide {
  int64_t count;
  template <typename V> SHARDRT_HD V operator()(V a, V) const {
    return ops::divide<V>(a, count);
  }
};

/// The grid of a units or combine body over `units` units.
inline Grid unitsGrid(int64_t units) {
  Grid g;
  g.x = std::min<int64_t>((units + kThreads - 1) / kThreads, 8 * kMaxBlocks);
  return g;
}

/// Copies `c` with unit U: the rows body for one rectangle, else the units
/// body.
template <typename U, typename Launcher>
typename Launcher::Status launchCopy(Launcher &launcher, DeviceCopy c,
                                     const char *src, char *dst) {
  c.unit = sizeof(U);
  if (c.rectangles == 1) {
    // One rectangle (outer dims, if any, all of size 1): rows only.
    c.outerDims = 0;
    return launcher.template rows<U>(rowsGrid(c.width / c.unit, c.height), c,
                                     src, dst);
  }
  const int64_t units = c.units();
  return launcher.template units<U>(unitsGrid(units), c, src, dst, units);
}

/// dst = src over `c`: one contiguous copy when both sides are one run, else
/// the widest unit that the layout and the addresses allow.
template <typename Launcher>
typename Launcher::Status copy(Launcher &launcher, const DeviceCopy &c,
                               const char *src, char *dst) {
  if (c.units() == 0)
    return launcher.success();
  if (c.rectangles == 1 &&
      (c.height == 1 || (c.srcPitch == c.width && c.dstPitch == c.width)))
    return launcher.contiguous(dst + c.dstOffset, src + c.srcOffset,
                               c.width * c.height);
  switch (alignedUnit(c, src, dst)) {
  case 16:
    return launchCopy<typename Launcher::Unit16>(launcher, c, src, dst);
  case 8:
    return launchCopy<typename Launcher::Unit8>(launcher, c, src, dst);
  case 4:
    return launchCopy<uint32_t>(launcher, c, src, dst);
  case 2:
    return launchCopy<uint16_t>(launcher, c, src, dst);
  default:
    return launchCopy<uint8_t>(launcher, c, src, dst);
  }
}

/// dst = fn(dst, src) over `c` in elements E.
template <typename E, typename Launcher, typename Fn>
typename Launcher::Status combine(Launcher &launcher, DeviceCopy c,
                                  const char *src, char *dst, const Fn &fn) {
  c.unit = sizeof(typename E::Storage);
  const int64_t units = c.units();
  if (units == 0)
    return launcher.success();
  return launcher.template combine<E>(unitsGrid(units), c, src, dst, units, fn);
}

/// dst = dst op src, element by element, in `dtype`.
template <typename Launcher>
typename Launcher::Status reduce(Launcher &launcher, const DeviceCopy &c,
                                 const char *src, char *dst,
                                 shardrt_dtype dtype, shardrt_reduce op) {
  return ops::withElement(dtype, [&](auto element) {
    using E = decltype(element);
    switch (op) {
    case SHARDRT_SUM:
    case SHARDRT_AVG:
      return combine<E>(launcher, c, src, dst, Add());
    case SHARDRT_MAX:
      return combine<E>(launcher, c, src, dst, Maximum());
    case SHARDRT_MIN:
      return combine<E>(launcher, c, src, dst, Minimum());
    case SHARDRT_PRODUCT:
      return combine<E>(launcher, c, src, dst, Multiply());
    }
    return launcher.invalid();
  });
}

/// data = data / count (avg), in `dtype`.
template <typename Launcher>
typename Launcher::Status divide(Launcher &launcher, const DeviceCopy &c,
                                 char *data, int64_t count,
                                 shardrt_dtype dtype) {
  return ops::withElement(dtype, [&](auto element) {
    using E = decltype(element);
    return combine<E>(launcher, c, data, data, Divide{count});
  });
}

} // namespace kernels
} // namespace rt
} // namespace shardc

#endif // SHARDRT_NCCL_KERNEL_BODIES_H
