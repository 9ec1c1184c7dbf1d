//===- HostKernels.cpp - The NCCL backend's kernels, run on the host ------===//
//
// Kernels.h's entry points for the simulated device: the same choice of
// kernel, unit and grid and the same bodies as Kernels.cu
// (nccl/KernelBodies.h), every thread of the grid run in turn. A launch
// that touches a byte outside device memory the current device reaches, or
// whose first units are not aligned to the unit, fails as a GPU's would
// (cudaErrorIllegalAddress, cudaErrorMisalignedAddress), sticky; one that
// passes is queued on its stream (SimDevice.h). Floating
// arithmetic that yields NaN yields the canonical NaN, as on a GPU.
//
//===----------------------------------------------------------------------===//

#include "KernelBodies.h"
#include "Kernels.h"
#include "SimDevice.h"

#include <cstring>
#include <type_traits>

namespace shardc {
namespace rt {
namespace cuda {

namespace {

using sim::recordError;

/// Runs `body(thread)` for every thread of grid `g`.
template <typename Body> void runGrid(kernels::Grid g, Body &&body) {
  kernels::Thread t{0, 0, 0, g.x, g.y, kernels::kThreads};
  for (t.blockY = 0; t.blockY < g.y; ++t.blockY)
    for (t.blockX = 0; t.blockX < g.x; ++t.blockX)
      for (t.threadX = 0; t.threadX < kernels::kThreads; ++t.threadX)
        body(t);
}

/// Whether a launch may touch what it touches: every unit it reads and
/// writes inside device memory that the current device reaches, and the
/// first units aligned to the unit (a GPU faults otherwise; the check is
/// compute-sanitizer's, done before the launch).
cudaError_t checkLaunch(const DeviceCopy &c, const char *src, const char *dst,
                        size_t unit, bool rows) {
  if (sim::launchFails())
    return recordError(cudaErrorLaunchFailure);
  const int device = sim::currentDevice();
  for (const char *p : {src + c.srcOffset, dst + c.dstOffset})
    if (reinterpret_cast<uintptr_t>(p) % unit != 0)
      return recordError(cudaErrorMisalignedAddress);
  auto inside = [&](int64_t from, int64_t to, int64_t bytes) {
    return sim::reachable(src + from, static_cast<size_t>(bytes), device) &&
           sim::reachable(dst + to, static_cast<size_t>(bytes), device);
  };
  if (rows) {
    for (int64_t row = 0; row < c.height; ++row)
      if (!inside(c.srcOffset + row * c.srcPitch,
                  c.dstOffset + row * c.dstPitch, c.width))
        return recordError(cudaErrorIllegalAddress);
    return cudaSuccess;
  }
  DeviceCopy units = c;
  units.unit = static_cast<int32_t>(unit);
  for (int64_t i = 0; i < units.units(); ++i) {
    int64_t from = 0, to = 0;
    unitOffsets(units, i, from, to);
    if (!inside(from, to, static_cast<int64_t>(unit)))
      return recordError(cudaErrorIllegalAddress);
  }
  return cudaSuccess;
}

/// `Fn` as a GPU computes it: arithmetic (not max and min, which select an
/// operand) that yields NaN yields the canonical NaN, whatever the
/// operands' payloads (x86 keeps a payload).
template <typename Fn> struct GpuArithmetic {
  Fn fn;
  template <typename V> V operator()(V a, V b) const {
    V r = fn(a, b);
    if constexpr (std::is_floating_point_v<V>) {
      if (r != r) {
        if constexpr (sizeof(V) == 4) {
          const uint32_t bits = 0x7fffffffu;
          std::memcpy(&r, &bits, 4);
        } else {
          const uint64_t bits = 0x7fffffffffffffffull;
          std::memcpy(&r, &bits, 8);
        }
      }
    }
    return r;
  }
};

template <typename Fn>
constexpr bool kArithmetic =
    std::is_same_v<Fn, kernels::Add> || std::is_same_v<Fn, kernels::Multiply> ||
    std::is_same_v<Fn, kernels::Divide>;

struct alignas(16) Bytes16 {
  unsigned char b[16];
};
struct alignas(8) Bytes8 {
  unsigned char b[8];
};

struct HostLauncher {
  using Status = cudaError_t;
  using Unit16 = Bytes16;
  using Unit8 = Bytes8;
  cudaStream_t stream;

  Status success() const { return cudaSuccess; }
  /// Queues the grid `g` of `body` on the stream (it runs at once when
  /// nothing is queued before it, as a GPU would start it).
  template <typename Body> Status launch(kernels::Grid g, Body body) const {
    sim::enqueue(stream, [g, body] {
      runGrid(g, body);
      return true;
    });
    return cudaSuccess;
  }
  Status invalid() const { return recordError(cudaErrorInvalidValue); }
  Status contiguous(char *dst, const char *src, int64_t bytes) const {
    return cudaMemcpyAsync(dst, src, static_cast<size_t>(bytes),
                           cudaMemcpyDeviceToDevice, stream);
  }
  template <typename U>
  Status rows(kernels::Grid g, const DeviceCopy &c, const char *src,
              char *dst) const {
    if (cudaError_t e = checkLaunch(c, src, dst, sizeof(U), true))
      return e;
    return launch(g, [=](const kernels::Thread &t) {
      kernels::rowsBody<U>(c, src, dst, g.lanes, t);
    });
  }
  template <typename U>
  Status units(kernels::Grid g, const DeviceCopy &c, const char *src, char *dst,
               int64_t units) const {
    if (cudaError_t e = checkLaunch(c, src, dst, sizeof(U), false))
      return e;
    return launch(g, [=](const kernels::Thread &t) {
      kernels::unitsBody<U>(c, src, dst, units, t);
    });
  }
  template <typename E, typename Fn>
  Status combine(kernels::Grid g, const DeviceCopy &c, const char *src,
                 char *dst, int64_t units, const Fn &fn) const {
    if (cudaError_t e =
            checkLaunch(c, src, dst, sizeof(typename E::Storage), false))
      return e;
    if constexpr (kArithmetic<Fn>) {
      const GpuArithmetic<Fn> gpu{fn};
      return launch(g, [=](const kernels::Thread &t) {
        kernels::combineBody<E>(c, src, dst, units, gpu, t);
      });
    } else {
      return launch(g, [=](const kernels::Thread &t) {
        kernels::combineBody<E>(c, src, dst, units, fn, t);
      });
    }
  }
};

} // namespace

cudaError_t copy(const DeviceCopy &c, const char *src, char *dst,
                 cudaStream_t stream) {
  HostLauncher launcher{stream};
  return kernels::copy(launcher, c, src, dst);
}

cudaError_t reduce(const DeviceCopy &c, const char *src, char *dst,
                   shardrt_dtype dtype, shardrt_reduce op,
                   cudaStream_t stream) {
  HostLauncher launcher{stream};
  return kernels::reduce(launcher, c, src, dst, dtype, op);
}

cudaError_t divide(const DeviceCopy &c, char *data, int64_t count,
                   shardrt_dtype dtype, cudaStream_t stream) {
  HostLauncher launcher{stream};
  return kernels::divide(launcher, c, data, count, dtype);
}

} // namespace cuda
} // namespace rt
} // namespace shardc
