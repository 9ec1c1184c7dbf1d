//===- Layout.cpp - The one implementation of layout arithmetic -----------===//

#include "shardc/Layout/Layout.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <numeric>
#include <queue>
#include <sstream>
#include <tuple>

namespace shardc {
namespace layout {

//===----------------------------------------------------------------------===//
// Chunking
//===----------------------------------------------------------------------===//

int64_t chunkSplit(int64_t n, int64_t k) {
  assert(n >= 0 && k > 0 && "chunkSplit needs n >= 0 and k > 0");
  return n / k + (n % k != 0 ? 1 : 0);
}

Chunk chunkOf(int64_t n, int64_t k, int64_t i) {
  assert(i >= 0 && i < k && "chunk index out of range");
  int64_t split = chunkSplit(n, k);
  Chunk c;
  c.offset = split * i;
  c.size = std::clamp<int64_t>(n - c.offset, 0, split);
  return c;
}

std::vector<Chunk> chunks(int64_t n, int64_t k) {
  std::vector<Chunk> result;
  result.reserve(k);
  for (int64_t i = 0; i < k; ++i)
    result.push_back(chunkOf(n, k, i));
  return result;
}

std::optional<int64_t> normalizeDim(int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank)
    return std::nullopt;
  return dim < 0 ? dim + rank : dim;
}

//===----------------------------------------------------------------------===//
// Boxes
//===----------------------------------------------------------------------===//

bool Box::empty() const {
  return std::any_of(sizes.begin(), sizes.end(),
                     [](int64_t s) { return s == 0; });
}

std::optional<int64_t> volume(const std::vector<int64_t> &sizes) {
  int64_t v = 1;
  for (int64_t s : sizes) {
    if (s < 0 || __builtin_mul_overflow(v, s, &v))
      return std::nullopt;
  }
  return v;
}

namespace {

/// The range [lo, hi) that `a` and `b` share in dim `d`; false when it is
/// empty.
bool sharedRange(const Box &a, const Box &b, size_t d, int64_t &lo,
                 int64_t &hi) {
  lo = std::max(a.offsets[d], b.offsets[d]);
  hi = std::min(a.offsets[d] + a.sizes[d], b.offsets[d] + b.sizes[d]);
  return lo < hi;
}

} // namespace

std::optional<Box> intersect(const Box &a, const Box &b) {
  if (a.rank() != b.rank() || a.empty() || b.empty())
    return std::nullopt;
  Box r;
  r.offsets.resize(a.rank());
  r.sizes.resize(a.rank());
  for (size_t d = 0; d < a.rank(); ++d) {
    int64_t lo, hi;
    if (!sharedRange(a, b, d, lo, hi))
      return std::nullopt;
    r.offsets[d] = lo;
    r.sizes[d] = hi - lo;
  }
  return r;
}

bool overlaps(const Box &a, const Box &b) {
  if (a.rank() != b.rank() || a.empty() || b.empty())
    return false;
  for (size_t d = 0; d < a.rank(); ++d) {
    int64_t lo, hi;
    if (!sharedRange(a, b, d, lo, hi))
      return false;
  }
  return true;
}

std::optional<int64_t> intersectionVolume(const Box &a, const Box &b) {
  if (a.rank() != b.rank() || a.empty() || b.empty())
    return 0;
  int64_t v = 1;
  for (size_t d = 0; d < a.rank(); ++d) {
    int64_t lo, hi;
    if (!sharedRange(a, b, d, lo, hi))
      return 0;
    if (__builtin_mul_overflow(v, hi - lo, &v))
      return std::nullopt;
  }
  return v;
}

bool fitsIn(const Box &box, const std::vector<int64_t> &shape) {
  if (box.rank() != shape.size())
    return false;
  if (box.empty())
    return true;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (box.offsets[d] < 0 || box.sizes[d] < 0 ||
        box.offsets[d] > shape[d] - box.sizes[d])
      return false;
  }
  return true;
}

void mergeBoxes(std::vector<Box> &boxes) {
  if (boxes.size() < 2)
    return;
  const size_t rank = boxes.front().rank();
  // One pass per dim: sorted by the other dims' extents, then by offset in
  // `d`, boxes that can merge along `d` are neighbours. Merging along one dim
  // can enable merges along another, so repeat until nothing changes.
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t d = 0; d < rank; ++d) {
      auto key = [&](const Box &b) {
        std::vector<int64_t> k;
        k.reserve(2 * rank);
        for (size_t e = 0; e < rank; ++e)
          if (e != d) {
            k.push_back(b.offsets[e]);
            k.push_back(b.sizes[e]);
          }
        k.push_back(b.offsets[d]);
        return k;
      };
      std::sort(boxes.begin(), boxes.end(),
                [&](const Box &a, const Box &b) { return key(a) < key(b); });
      size_t out = 0;
      for (size_t i = 1; i < boxes.size(); ++i) {
        Box &last = boxes[out];
        const Box &next = boxes[i];
        bool sameElsewhere = true;
        for (size_t e = 0; e < rank && sameElsewhere; ++e)
          sameElsewhere = e == d || (last.offsets[e] == next.offsets[e] &&
                                     last.sizes[e] == next.sizes[e]);
        if (sameElsewhere &&
            last.offsets[d] + last.sizes[d] == next.offsets[d]) {
          last.sizes[d] += next.sizes[d];
          changed = true;
          continue;
        }
        boxes[++out] = next;
      }
      boxes.resize(out + 1);
    }
  }
}

std::string formatList(const std::vector<int64_t> &values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(values[i]);
  }
  return s + "]";
}

std::string formatBox(const Box &box) {
  return "(offsets " + formatList(box.offsets) + ", sizes " +
         formatList(box.sizes) + ")";
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

namespace {

/// A non-empty run of ASCII digits; INT64_MAX for one too long for int64 (a
/// number still, out of every range the callers check).
std::optional<int64_t> parseIndex(std::string_view s) {
  if (s.empty())
    return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return std::nullopt;
    if (v <= (INT64_MAX - 9) / 10)
      v = v * 10 + (c - '0');
    else
      v = INT64_MAX;
  }
  return v;
}

/// Device types torch.device knows besides cpu and cuda: valid in PyTorch,
/// not supported here.
bool isOtherTorchDeviceType(std::string_view type) {
  static const char *const kTypes[] = {
      "mkldnn", "opengl", "opencl", "ideep", "hip",    "ve",
      "fpga",   "maia",   "xla",    "lazy",  "vulkan", "mps",
      "meta",   "hpu",    "mtia",   "xpu",   "ipu",    "privateuseone"};
  for (const char *t : kTypes)
    if (type == t)
      return true;
  return false;
}

/// Parses a local device ("cpu", "cpu:0", "cuda", "cuda:3") with the rules of
/// c10::Device: no leading zeros, an 8-bit index, cpu index 0 only. On
/// failure returns nullopt with the reason in `why`.
std::optional<Device> parseLocalDevice(std::string_view s, std::string &why) {
  std::string_view type = s, index;
  size_t colon = s.find(':');
  bool hasIndex = colon != std::string_view::npos;
  if (hasIndex) {
    type = s.substr(0, colon);
    index = s.substr(colon + 1);
  }
  Device d;
  if (type == "cpu") {
    d.kind = Device::Kind::CPU;
  } else if (type == "cuda") {
    d.kind = Device::Kind::CUDA;
  } else if (isOtherTorchDeviceType(type)) {
    why = "device type '" + std::string(type) +
          "' is not supported (only 'cpu' and 'cuda')";
    return std::nullopt;
  } else {
    why = "'" + std::string(type) +
          "' is not a device type (expected 'cpu' or 'cuda')";
    return std::nullopt;
  }
  if (!hasIndex)
    return d;
  std::optional<int64_t> i = parseIndex(index);
  if (!i) {
    why = "device index '" + std::string(index) +
          "' is not a non-negative integer";
    return std::nullopt;
  }
  if (index.size() > 1 && index[0] == '0') {
    why = "device index '" + std::string(index) + "' has leading zeros";
    return std::nullopt;
  }
  if (*i > 127) {
    why = "device index " + std::string(index) +
          " is out of range (PyTorch's device index is 8-bit: at most 127)";
    return std::nullopt;
  }
  if (d.kind == Device::Kind::CPU && *i != 0) {
    why = "cpu device index must be 0, got " + std::to_string(*i);
    return std::nullopt;
  }
  d.index = *i;
  return d;
}

} // namespace

Result<Device> parseDevice(std::string_view text) {
  auto fail = [&](const std::string &why) -> Result<Device> {
    return Failure{"invalid device \"" + std::string(text) + "\": " + why +
                   "; expected '<device>', 'rank:<N>' or 'rank:<N>/<device>'"};
  };
  std::string_view worker, device;
  size_t slash = text.find('/');
  if (slash != std::string_view::npos) {
    if (text.find('/', slash + 1) != std::string_view::npos)
      return fail("more than one '/'");
    worker = text.substr(0, slash);
    device = text.substr(slash + 1);
    if (worker.empty())
      return fail("nothing before '/'");
  } else {
    // As PyTorch: a lone field is a device if it parses as one, otherwise a
    // worker on the cpu.
    std::string why;
    if (std::optional<Device> d = parseLocalDevice(text, why))
      return *d;
    // A device type with a bad index, or another torch device type, is a bad
    // device rather than a worker name.
    std::string_view type = text.substr(0, text.find(':'));
    if (type == "cpu" || type == "cuda" || isOtherTorchDeviceType(type))
      return fail(why);
    worker = text;
    device = "cpu";
  }
  std::string why;
  std::optional<Device> d = parseLocalDevice(device, why);
  if (!d)
    return fail(why);
  size_t colon = worker.find(':');
  std::string_view prefix = worker.substr(0, colon);
  if (prefix == "cpu" || prefix == "cuda" || isOtherTorchDeviceType(prefix))
    return fail("a device ('" + std::string(worker) +
                "') cannot come before '/'");
  if (colon == std::string_view::npos)
    return fail("worker names ('" + std::string(worker) +
                "') are not supported, only ranks");
  if (prefix != "rank")
    return fail("'" + std::string(prefix) +
                "' is neither 'rank' nor a device type");
  std::optional<int64_t> rank = parseIndex(worker.substr(colon + 1));
  if (!rank)
    return fail("rank '" + std::string(worker.substr(colon + 1)) +
                "' is not a non-negative integer");
  if (*rank > kMaxRank)
    return fail("rank " + std::string(worker.substr(colon + 1)) +
                " is out of range (MPI ranks are at most " +
                std::to_string(kMaxRank) + ")");
  d->rank = *rank;
  return *d;
}

Result<void> checkWorldSize(int64_t worldSize, int64_t largestRank) {
  if (worldSize < 1 || worldSize > kMaxWorldSize)
    return Failure{"must be between 1 and " + std::to_string(kMaxWorldSize) +
                   " (the size of an MPI world is a positive int), got " +
                   std::to_string(worldSize)};
  if (largestRank >= worldSize)
    return Failure{"is " + std::to_string(worldSize) +
                   " but the layouts name rank " + std::to_string(largestRank) +
                   " (a world of " + std::to_string(worldSize) +
                   (worldSize == 1 ? " rank" : " ranks") + " has ranks 0 to " +
                   std::to_string(worldSize - 1) + ")"};
  return {};
}

std::string formatDevice(const Device &device) {
  std::string s;
  if (device.hasRank())
    s = "rank:" + std::to_string(device.rank) + "/";
  s += device.kind == Device::Kind::CUDA ? "cuda" : "cpu";
  if (device.index >= 0)
    s += ":" + std::to_string(device.index);
  return s;
}

//===----------------------------------------------------------------------===//
// The blocks of a chunk spec
//===----------------------------------------------------------------------===//

std::vector<Block> chunkBlocks(const std::vector<int64_t> &shape, int64_t dim,
                               const std::vector<Device> &placements) {
  assert(dim >= 0 && dim < static_cast<int64_t>(shape.size()) &&
         "chunk dim must be normalized");
  int64_t k = static_cast<int64_t>(placements.size());
  std::vector<Block> blocks;
  blocks.reserve(k);
  for (int64_t i = 0; i < k; ++i) {
    Chunk c = chunkOf(shape[dim], k, i);
    Block b;
    b.box.offsets.assign(shape.size(), 0);
    b.box.sizes = shape;
    b.box.offsets[dim] = c.offset;
    b.box.sizes[dim] = c.size;
    b.placement = placements[i];
    blocks.push_back(std::move(b));
  }
  return blocks;
}

} // namespace layout
} // namespace shardc
