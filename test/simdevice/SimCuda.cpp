//===- SimCuda.cpp - The CUDA runtime calls, on host memory ---------------===//
//
// Device and managed memory are host allocations in a registry by address;
// a pointer outside it is host memory. A stream is a queue of work run in
// order: a kernel or copy runs at once when nothing is queued before it; an
// NCCL call's part may wait for its peers, and what follows waits behind it
// until the host polls the stream (cudaStreamQuery, cudaStreamSynchronize,
// or a call that synchronizes the device). Errors are sticky per thread
// until cudaGetLastError, as the CUDA runtime's.
//
//===----------------------------------------------------------------------===//

#include "SimDevice.h"

#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

/// A stream: its device and the work queued on it, first first.
struct CUstream_st {
  int device;
  std::deque<std::function<bool()>> work;
};

namespace shardc {
namespace sim {

namespace {

struct Allocation {
  size_t bytes;
  int device;
  bool managed;
};

struct Registry {
  std::mutex mutex;
  std::map<uintptr_t, Allocation> allocations;
  std::set<cudaStream_t> streams;
};

Registry &registry() {
  static Registry *r = new Registry();
  return *r;
}

thread_local int current = 0;
thread_local cudaError_t sticky = cudaSuccess;

int deviceCount() {
  static const int count = [] {
    const char *text = std::getenv("SHARDC_SIM_DEVICES");
    const int n = text && *text ? std::atoi(text) : 1;
    return n < 0 ? 0 : n;
  }();
  return count;
}

/// The allocation holding [ptr, ptr + bytes), or null.
const Allocation *find(const void *ptr, size_t bytes) {
  Registry &r = registry();
  const uintptr_t at = reinterpret_cast<uintptr_t>(ptr);
  auto it = r.allocations.upper_bound(at);
  if (it == r.allocations.begin())
    return nullptr;
  --it;
  if (at - it->first + bytes > it->second.bytes || at < it->first)
    return nullptr;
  return &it->second;
}

/// SHARDC_SIM_MALLOC_FAILS_ON_RANK: the world rank (OMPI_COMM_WORLD_RANK
/// or PMI_RANK) whose cudaMalloc fails (out of memory), for tests of a
/// failure on one rank; -1 for none.
int mallocFailsOnRank() {
  static const int rank = [] {
    const char *text = std::getenv("SHARDC_SIM_MALLOC_FAILS_ON_RANK");
    return text && *text ? std::atoi(text) : -1;
  }();
  return rank;
}

/// cudaMalloc calls still to fail (failMallocs).
int mallocsToFail = 0;

int launcherRank() {
  for (const char *name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"})
    if (const char *text = std::getenv(name))
      return std::atoi(text);
  return 0;
}

cudaError_t allocate(void **ptr, size_t bytes, bool managed) {
  if (!ptr)
    return recordError(cudaErrorInvalidValue);
  if (!managed && mallocsToFail > 0) {
    --mallocsToFail;
    return recordError(cudaErrorMemoryAllocation);
  }
  if (!managed && mallocFailsOnRank() == launcherRank())
    return recordError(cudaErrorMemoryAllocation);
  if (deviceCount() == 0)
    return recordError(cudaErrorNoDevice);
  // 256-byte aligned, as cudaMalloc's; at least one byte, so that every
  // allocation has an address of its own.
  void *p = std::aligned_alloc(256, ((bytes + 255) / 256) * 256 + 256);
  if (!p)
    return recordError(cudaErrorMemoryAllocation);
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().allocations[reinterpret_cast<uintptr_t>(p)] =
      Allocation{bytes == 0 ? 1 : bytes, current, managed};
  *ptr = p;
  return cudaSuccess;
}

/// Whether [ptr, ptr + bytes) may be read (or written) by a copy of `kind`
/// as its source (`source`) or destination.
bool accessible(const void *ptr, size_t bytes, cudaMemcpyKind kind,
                bool source) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  const Allocation *a = find(ptr, bytes);
  const bool device = a != nullptr;
  const bool onDevice = source ? (kind == cudaMemcpyDeviceToHost ||
                                  kind == cudaMemcpyDeviceToDevice)
                               : (kind == cudaMemcpyHostToDevice ||
                                  kind == cudaMemcpyDeviceToDevice);
  if (kind == cudaMemcpyDefault)
    return true;
  if (onDevice)
    return device;
  return !device || a->managed;
}

cudaError_t copyBytes(void *dst, const void *src, size_t count,
                      cudaMemcpyKind kind) {
  if (count == 0)
    return cudaSuccess;
  if (!dst || !src || !accessible(src, count, kind, true) ||
      !accessible(dst, count, kind, false))
    return recordError(cudaErrorInvalidValue);
  std::memmove(dst, src, count);
  return cudaSuccess;
}

bool knownStream(cudaStream_t stream) {
  if (!stream)
    return true;
  std::lock_guard<std::mutex> lock(registry().mutex);
  return registry().streams.count(stream) != 0;
}

/// The legacy default stream (null).
CUstream_st &defaultStream() {
  static auto *s = new CUstream_st{0, {}};
  return *s;
}

CUstream_st &streamOf(cudaStream_t stream) {
  return stream ? *stream : defaultStream();
}

/// Every stream, the default one first.
std::vector<cudaStream_t> allStreams() {
  std::vector<cudaStream_t> streams{nullptr};
  std::lock_guard<std::mutex> lock(registry().mutex);
  streams.insert(streams.end(), registry().streams.begin(),
                 registry().streams.end());
  return streams;
}

/// Runs every stream's work until none is left. Each step ends: kernels
/// at once, an NCCL call's part by the simulator's timeout at the latest.
void synchronizeAll() {
  while (!progressAll())
    std::this_thread::yield();
}

} // namespace

void enqueue(cudaStream_t stream, std::function<bool()> step) {
  CUstream_st &s = streamOf(stream);
  if (s.work.empty() && step())
    return;
  s.work.push_back(std::move(step));
}

bool progress(cudaStream_t stream) {
  CUstream_st &s = streamOf(stream);
  while (!s.work.empty()) {
    if (!s.work.front()())
      return false;
    s.work.pop_front();
  }
  return true;
}

void failMallocs(int count) { mallocsToFail = count; }

namespace {
/// Kernel launches still to fail (failLaunches).
int launchesToFail = 0;
} // namespace

void failLaunches(int count) { launchesToFail = count; }

bool launchFails() {
  if (launchesToFail <= 0)
    return false;
  --launchesToFail;
  return true;
}

bool progressAll() {
  bool done = true;
  for (cudaStream_t stream : allStreams())
    done &= progress(stream);
  return done;
}

int deviceOf(const void *ptr, size_t bytes, bool *managed) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  const Allocation *a = find(ptr, bytes == 0 ? 1 : bytes);
  if (managed)
    *managed = a && a->managed;
  return a ? a->device : -1;
}

bool reachable(const void *ptr, size_t bytes, int device) {
  bool managed = false;
  const int holder = deviceOf(ptr, bytes, &managed);
  return holder >= 0 && (managed || holder == device);
}

int currentDevice() { return current; }

cudaError_t recordError(cudaError_t e) {
  if (e != cudaSuccess && e != cudaErrorNotReady)
    sticky = e;
  return e;
}

double timeoutSeconds() {
  static const double seconds = [] {
    const char *text = std::getenv("SHARDC_SIM_TIMEOUT_SECONDS");
    const double s = text && *text ? std::atof(text) : 10.0;
    return s > 0 ? s : 10.0;
  }();
  return seconds;
}

} // namespace sim
} // namespace shardc

using namespace shardc::sim;

cudaError_t cudaGetDeviceCount(int *count) {
  if (!count)
    return recordError(cudaErrorInvalidValue);
  *count = deviceCount();
  return deviceCount() == 0 ? recordError(cudaErrorNoDevice) : cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= deviceCount())
    return recordError(cudaErrorInvalidDevice);
  current = device;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device) {
  if (!device)
    return recordError(cudaErrorInvalidValue);
  *device = current;
  return cudaSuccess;
}

cudaError_t cudaGetLastError(void) {
  cudaError_t e = sticky;
  sticky = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError(void) { return sticky; }

const char *cudaGetErrorName(cudaError_t error) {
  switch (error) {
  case cudaSuccess:
    return "cudaSuccess";
  case cudaErrorInvalidValue:
    return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation:
    return "cudaErrorMemoryAllocation";
  case cudaErrorNoDevice:
    return "cudaErrorNoDevice";
  case cudaErrorInvalidDevice:
    return "cudaErrorInvalidDevice";
  case cudaErrorInvalidResourceHandle:
    return "cudaErrorInvalidResourceHandle";
  case cudaErrorNotReady:
    return "cudaErrorNotReady";
  case cudaErrorIllegalAddress:
    return "cudaErrorIllegalAddress";
  case cudaErrorMisalignedAddress:
    return "cudaErrorMisalignedAddress";
  case cudaErrorLaunchFailure:
    return "cudaErrorLaunchFailure";
  default:
    return "cudaErrorUnknown";
  }
}

const char *cudaGetErrorString(cudaError_t error) {
  switch (error) {
  case cudaSuccess:
    return "no error";
  case cudaErrorInvalidValue:
    return "invalid argument";
  case cudaErrorMemoryAllocation:
    return "out of memory";
  case cudaErrorNoDevice:
    return "no CUDA-capable device is detected";
  case cudaErrorInvalidDevice:
    return "invalid device ordinal";
  case cudaErrorInvalidResourceHandle:
    return "invalid resource handle";
  case cudaErrorNotReady:
    return "device not ready";
  case cudaErrorIllegalAddress:
    return "an illegal memory access was encountered";
  case cudaErrorMisalignedAddress:
    return "misaligned address";
  case cudaErrorLaunchFailure:
    return "unspecified launch failure";
  default:
    return "unknown error";
  }
}

cudaError_t cudaMalloc(void **devPtr, size_t size) {
  return allocate(devPtr, size, false);
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int) {
  return allocate(devPtr, size, true);
}

cudaError_t cudaFree(void *devPtr) {
  if (!devPtr)
    return cudaSuccess;
  // As CUDA's, it waits for the device's work (which may still use it).
  synchronizeAll();
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    auto it = registry().allocations.find(reinterpret_cast<uintptr_t>(devPtr));
    if (it == registry().allocations.end())
      return recordError(cudaErrorInvalidValue);
    registry().allocations.erase(it);
  }
  std::free(devPtr);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                       enum cudaMemcpyKind kind) {
  // On the legacy default stream: after the work of every blocking stream.
  synchronizeAll();
  return copyBytes(dst, src, count, kind);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                            enum cudaMemcpyKind kind, cudaStream_t stream) {
  if (!knownStream(stream))
    return recordError(cudaErrorInvalidResourceHandle);
  if (count == 0)
    return cudaSuccess;
  if (!dst || !src || !accessible(src, count, kind, true) ||
      !accessible(dst, count, kind, false))
    return recordError(cudaErrorInvalidValue);
  enqueue(stream, [dst, src, count] {
    std::memmove(dst, src, count);
    return true;
  });
  return cudaSuccess;
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
  if (count == 0)
    return cudaSuccess;
  if (deviceOf(devPtr, count) < 0)
    return recordError(cudaErrorInvalidValue);
  synchronizeAll();
  std::memset(devPtr, value, count);
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream) {
  if (!pStream)
    return recordError(cudaErrorInvalidValue);
  if (deviceCount() == 0)
    return recordError(cudaErrorNoDevice);
  cudaStream_t s = new CUstream_st{current, {}};
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().streams.insert(s);
  *pStream = s;
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int) {
  return cudaStreamCreate(pStream);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (!stream || !knownStream(stream))
    return recordError(cudaErrorInvalidResourceHandle);
  // As CUDA's: the work queued on it still runs.
  while (!progress(stream))
    std::this_thread::yield();
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().streams.erase(stream);
  delete stream;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!knownStream(stream))
    return recordError(cudaErrorInvalidResourceHandle);
  while (!progress(stream))
    std::this_thread::yield();
  return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  if (!knownStream(stream))
    return recordError(cudaErrorInvalidResourceHandle);
  return progress(stream) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaDeviceSynchronize(void) {
  synchronizeAll();
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                     const void *ptr) {
  if (!attributes)
    return recordError(cudaErrorInvalidValue);
  *attributes = cudaPointerAttributes{};
  std::lock_guard<std::mutex> lock(registry().mutex);
  const Allocation *a = find(ptr, 1);
  if (!a) {
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->device = -2;
    attributes->hostPointer = const_cast<void *>(ptr);
    return cudaSuccess;
  }
  attributes->type = a->managed ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
  attributes->device = a->device;
  attributes->devicePointer = const_cast<void *>(ptr);
  attributes->hostPointer = a->managed ? const_cast<void *>(ptr) : nullptr;
  return cudaSuccess;
}
