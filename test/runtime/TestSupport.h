//===- TestSupport.h - Buffers and expected values for runtime tests ------===//
//
// Strided host buffers in several arrangements (contiguous, padded,
// transposed, reversed), with the bytes around the view kept at a known
// pattern so that a test sees writes outside the view, and the value of every
// element computed from its global linear index alone.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_TEST_SUPPORT_H
#define SHARDRT_TEST_SUPPORT_H

#include "shardrt.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#ifdef SHARDRT_TEST_DEVICE_CUDA
#include <cuda_runtime.h>

#include <new>
#endif

namespace shardrt_test {

/// The bytes of a buffer outside its view hold this.
constexpr unsigned char kPadByte = 0x5a;

/// The size of an element of `dtype` in bytes.
inline size_t elementSize(shardrt_dtype dtype) {
  switch (dtype) {
  case SHARDRT_F64:
  case SHARDRT_I64:
  case SHARDRT_U64:
    return 8;
  case SHARDRT_F32:
  case SHARDRT_I32:
  case SHARDRT_U32:
    return 4;
  case SHARDRT_F16:
  case SHARDRT_BF16:
  case SHARDRT_I16:
  case SHARDRT_U16:
    return 2;
  default:
    return 1;
  }
}

inline const char *dtypeName(shardrt_dtype dtype) {
  static const char *names[] = {"f32", "f64", "f16", "bf16", "i8",   "i32",
                                "i64", "ui8", "i16", "ui16", "ui32", "ui64"};
  return names[dtype];
}

/// The bits of the element at global linear index `i`, from the index alone.
inline uint64_t valueBits(shardrt_dtype dtype, int64_t i) {
  switch (dtype) {
  case SHARDRT_F32: {
    float f = static_cast<float>(i) + 0.25f;
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  }
  case SHARDRT_F64: {
    double d = static_cast<double>(i) * 0.5 + 1.0;
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    return bits;
  }
  case SHARDRT_F16:
    return static_cast<uint64_t>(i * 13 + 5) & 0xffff;
  case SHARDRT_BF16:
    return static_cast<uint64_t>(i * 40503 + 1) & 0xffff;
  case SHARDRT_I8:
    return static_cast<uint64_t>((i * 7 + 3) % 251);
  case SHARDRT_I32:
    return static_cast<uint32_t>(i * 1000003 + 7);
  case SHARDRT_I64:
    return static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ull + 17;
  case SHARDRT_U8:
    return static_cast<uint64_t>(i * 13 + 1) & 0xff;
  case SHARDRT_I16:
    return static_cast<uint64_t>(i * 977 + 11) & 0xffff;
  case SHARDRT_U16:
    return static_cast<uint64_t>(i * 40009 + 3) & 0xffff;
  case SHARDRT_U32:
    return static_cast<uint32_t>(i * 2654435761u + 5);
  case SHARDRT_U64:
    return static_cast<uint64_t>(i) * 0xc2b2ae3d27d4eb4full + 29;
  }
  return 0;
}

/// Calls `fn(index)` for every multi-index of `sizes` in row-major order.
template <typename Fn>
void forEachIndex(const std::vector<int64_t> &sizes, Fn &&fn) {
  for (int64_t s : sizes) {
    if (s == 0)
      return;
  }
  std::vector<int64_t> index(sizes.size(), 0);
  while (true) {
    fn(index);
    size_t d = sizes.size();
    while (true) {
      if (d == 0)
        return;
      --d;
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
}

/// The row-major linear index of `index` in `sizes`.
inline int64_t linearIndex(const std::vector<int64_t> &index,
                           const std::vector<int64_t> &sizes) {
  int64_t linear = 0;
  for (size_t d = 0; d < sizes.size(); ++d)
    linear = linear * sizes[d] + index[d];
  return linear;
}

inline std::string formatIndex(const std::vector<int64_t> &index) {
  std::string s = "[";
  for (size_t d = 0; d < index.size(); ++d)
    s += (d ? ", " : "") + std::to_string(index[d]);
  return s + "]";
}

/// How a view sits in its buffer.
enum class Arrangement {
  Contiguous, ///< row-major, no gaps
  Padded,     ///< row-major inside a buffer two larger in every dim
  Transposed, ///< column-major (dim 0 fastest), padded
  Reversed,   ///< padded, with dim 0 running backwards (negative stride)
};

inline const char *arrangementName(Arrangement a) {
  switch (a) {
  case Arrangement::Contiguous:
    return "contiguous";
  case Arrangement::Padded:
    return "padded";
  case Arrangement::Transposed:
    return "transposed";
  case Arrangement::Reversed:
    return "reversed";
  }
  return "?";
}

/// Where a StridedBuffer's bytes live: host memory, or (built with
/// SHARDRT_TEST_DEVICE_CUDA) CUDA managed memory, which the host reads and
/// writes and the runtime's NCCL backend takes as device memory; its
/// tensors then say cuda.
#ifdef SHARDRT_TEST_DEVICE_CUDA
template <typename T> struct TestAllocator {
  using value_type = T;
  TestAllocator() = default;
  template <typename U> TestAllocator(const TestAllocator<U> &) {}
  T *allocate(size_t n) {
    void *p = nullptr;
    if (cudaMallocManaged(&p, n * sizeof(T) + 1) != cudaSuccess)
      throw std::bad_alloc();
    return static_cast<T *>(p);
  }
  void deallocate(T *p, size_t) { cudaFree(p); }
  template <typename U> bool operator==(const TestAllocator<U> &) const {
    return true;
  }
  template <typename U> bool operator!=(const TestAllocator<U> &) const {
    return false;
  }
};
constexpr shardrt_device kTestDevice = SHARDRT_DEVICE_CUDA;
const std::string kDeviceName = "cuda";
#else
template <typename T> using TestAllocator = std::allocator<T>;
constexpr shardrt_device kTestDevice = SHARDRT_DEVICE_CPU;
const std::string kDeviceName = "cpu";
#endif

/// A buffer holding a strided view of `sizes` elements.
class StridedBuffer {
public:
  StridedBuffer(std::vector<int64_t> viewSizes, size_t elemSize,
                Arrangement arrangement)
      : sizes(std::move(viewSizes)), es(elemSize) {
    const size_t rank = sizes.size();
    strides.assign(rank, 1);
    if (arrangement == Arrangement::Contiguous) {
      int64_t volume = 1;
      for (size_t d = rank; d > 0; --d) {
        strides[d - 1] = volume;
        volume *= sizes[d - 1];
      }
      bytes.assign(static_cast<size_t>(volume) * es, kPadByte);
      return;
    }
    std::vector<int64_t> extents(rank);
    for (size_t d = 0; d < rank; ++d)
      extents[d] = sizes[d] + 2;
    int64_t volume = 1;
    if (arrangement == Arrangement::Transposed) {
      for (size_t d = 0; d < rank; ++d) {
        strides[d] = volume;
        volume *= extents[d];
      }
    } else {
      for (size_t d = rank; d > 0; --d) {
        strides[d - 1] = volume;
        volume *= extents[d - 1];
      }
    }
    // Element 0 sits at index 1 of the padded buffer in every dim.
    origin = 1;
    for (size_t d = 0; d < rank; ++d)
      origin += strides[d];
    if (arrangement == Arrangement::Reversed && rank > 0) {
      origin += (sizes[0] - 1) * strides[0];
      strides[0] = -strides[0];
    }
    bytes.assign(static_cast<size_t>(volume + 2) * es, kPadByte);
  }

  /// The view as a runtime tensor (pointing into this buffer).
  shardrt_tensor tensor(shardrt_dtype dtype,
                        shardrt_device device = kTestDevice) {
    shardrt_tensor t{};
    t.data = bytes.data() + origin * static_cast<int64_t>(es);
    t.dtype = dtype;
    t.device = device;
    t.rank = static_cast<int64_t>(sizes.size());
    t.sizes = sizes.data();
    t.strides = strides.data();
    return t;
  }

  int64_t offsetOf(const std::vector<int64_t> &index) const {
    int64_t offset = origin;
    for (size_t d = 0; d < index.size(); ++d)
      offset += index[d] * strides[d];
    return offset;
  }
  uint64_t get(const std::vector<int64_t> &index) const {
    uint64_t bits = 0;
    std::memcpy(&bits, bytes.data() + offsetOf(index) * es, es);
    return bits;
  }
  void set(const std::vector<int64_t> &index, uint64_t bits) {
    std::memcpy(bytes.data() + offsetOf(index) * es, &bits, es);
  }

  /// Whether every byte outside the view still holds kPadByte.
  bool paddingIntact() const {
    std::vector<bool> inView(bytes.size(), false);
    forEachIndex(sizes, [&](const std::vector<int64_t> &index) {
      for (size_t b = 0; b < es; ++b)
        inView[offsetOf(index) * es + b] = true;
    });
    for (size_t i = 0; i < bytes.size(); ++i) {
      if (!inView[i] && bytes[i] != kPadByte)
        return false;
    }
    return true;
  }

  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  std::vector<unsigned char, TestAllocator<unsigned char>> bytes;

private:
  size_t es;
  int64_t origin = 0;
};

/// The bits of `v` as an element of `dtype`, for values that it represents
/// exactly (small integers, halves): no rounding needed, so that tests can
/// compute expected values without the runtime's conversions.
inline uint64_t exactBits(shardrt_dtype dtype, double v) {
  uint64_t bits = 0;
  switch (dtype) {
  case SHARDRT_F32: {
    const float f = static_cast<float>(v);
    std::memcpy(&bits, &f, 4);
    return bits;
  }
  case SHARDRT_F64:
    std::memcpy(&bits, &v, 8);
    return bits;
  case SHARDRT_BF16: {
    const float f = static_cast<float>(v);
    uint32_t word;
    std::memcpy(&word, &f, 4);
    return word >> 16;
  }
  case SHARDRT_F16: {
    if (v == 0)
      return std::signbit(v) ? 0x8000 : 0;
    int exponent = 0;
    const double m = std::frexp(std::fabs(v), &exponent); // v = m 2^exponent
    const uint64_t mantissa = static_cast<uint64_t>((2 * m - 1) * 1024);
    return (v < 0 ? 0x8000 : 0) | (static_cast<uint64_t>(exponent + 14) << 10) |
           mantissa;
  }
  case SHARDRT_I8:
    return static_cast<uint8_t>(static_cast<int8_t>(v));
  case SHARDRT_I32:
    return static_cast<uint32_t>(static_cast<int32_t>(v));
  case SHARDRT_I64:
    return static_cast<uint64_t>(static_cast<int64_t>(v));
  case SHARDRT_U8:
    return static_cast<uint8_t>(v);
  case SHARDRT_I16:
    return static_cast<uint16_t>(static_cast<int16_t>(v));
  case SHARDRT_U16:
    return static_cast<uint16_t>(v);
  case SHARDRT_U32:
    return static_cast<uint32_t>(v);
  case SHARDRT_U64:
    return static_cast<uint64_t>(v);
  }
  return 0;
}

/// The mask of an element's bits.
inline uint64_t elementMask(size_t es) {
  return es == 8 ? ~0ull : (1ull << (8 * es)) - 1;
}

} // namespace shardrt_test

#endif // SHARDRT_TEST_SUPPORT_H
