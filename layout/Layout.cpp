//===- Layout.cpp - The one implementation of layout arithmetic -----------===//

#include "shardc/Layout/Layout.h"

#include <algorithm>
#include <cassert>
#include <numeric>
#include <sstream>

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

std::optional<Box> intersect(const Box &a, const Box &b) {
  if (a.rank() != b.rank() || a.empty() || b.empty())
    return std::nullopt;
  Box r;
  r.offsets.resize(a.rank());
  r.sizes.resize(a.rank());
  for (size_t d = 0; d < a.rank(); ++d) {
    int64_t lo = std::max(a.offsets[d], b.offsets[d]);
    int64_t hi = std::min(a.offsets[d] + a.sizes[d], b.offsets[d] + b.sizes[d]);
    if (hi <= lo)
      return std::nullopt;
    r.offsets[d] = lo;
    r.sizes[d] = hi - lo;
  }
  return r;
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

/// A non-empty run of ASCII digits that fits int64.
std::optional<int64_t> parseIndex(std::string_view s) {
  if (s.empty() || s.size() > 18)
    return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return std::nullopt;
    v = v * 10 + (c - '0');
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
    why = "device index " + std::to_string(*i) +
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

std::optional<Device> parseDevice(std::string_view text, std::string &error) {
  auto fail = [&](const std::string &why) -> std::optional<Device> {
    error = "invalid device \"" + std::string(text) + "\": " + why +
            "; expected '<device>', 'rank:<N>' or 'rank:<N>/<device>'";
    return std::nullopt;
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
      return d;
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
    return fail("rank " + std::to_string(*rank) +
                " is out of range (MPI ranks are at most " +
                std::to_string(kMaxRank) + ")");
  d->rank = *rank;
  return d;
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
// Blocks and spec checking
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

namespace {

std::string nameBlock(size_t i, const Box &box) {
  return "block #" + std::to_string(i) + " " + formatBox(box);
}

/// Picks the dim along which a sweep separates the blocks best: the one with
/// the most distinct offsets.
size_t sweepDim(const std::vector<Block> &blocks,
                const std::vector<size_t> &live, size_t rank) {
  size_t best = 0, bestDistinct = 0;
  std::vector<int64_t> starts(live.size());
  for (size_t d = 0; d < rank; ++d) {
    for (size_t i = 0; i < live.size(); ++i)
      starts[i] = blocks[live[i]].box.offsets[d];
    std::sort(starts.begin(), starts.end());
    size_t distinct =
        std::unique(starts.begin(), starts.end()) - starts.begin();
    if (distinct > bestDistinct) {
      best = d;
      bestDistinct = distinct;
    }
  }
  return best;
}

} // namespace

CheckResult checkBlocks(const std::vector<int64_t> &shape,
                        const std::vector<Block> &blocks, size_t maxProblems) {
  CheckResult result;
  auto full = [&] { return result.problems.size() >= maxProblems; };
  auto report = [&](Problem::Kind kind, int64_t block, int64_t other,
                    std::string message) {
    if (!full())
      result.problems.push_back({kind, block, other, std::move(message)});
  };
  if (blocks.empty()) {
    report(Problem::Kind::NoBlocks, -1, -1, "the spec has no blocks");
    return result;
  }

  // Structure: lengths, signs, bounds.
  const size_t rank = shape.size();
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Box &box = blocks[i].box;
    if (box.offsets.size() != box.sizes.size()) {
      report(Problem::Kind::Inconsistent, i, -1,
             nameBlock(i, box) +
                 " is inconsistent: " + std::to_string(box.offsets.size()) +
                 " offsets but " + std::to_string(box.sizes.size()) + " sizes");
      continue;
    }
    if (box.rank() != rank) {
      report(Problem::Kind::RankMismatch, i, -1,
             nameBlock(i, box) + " has rank " + std::to_string(box.rank()) +
                 " but the tensor " + formatList(shape) + " has rank " +
                 std::to_string(rank));
      continue;
    }
    auto negative = [&]() -> std::optional<size_t> {
      for (size_t d = 0; d < rank; ++d)
        if (box.offsets[d] < 0 || box.sizes[d] < 0)
          return d;
      return std::nullopt;
    }();
    if (negative) {
      size_t d = *negative;
      report(Problem::Kind::Negative, i, -1,
             nameBlock(i, box) + " has a negative " +
                 (box.offsets[d] < 0 ? "offset" : "size") + " in dim " +
                 std::to_string(d));
      continue;
    }
    // An empty block holds nothing: it exceeds nothing, wherever it lies.
    if (box.empty())
      continue;
    for (size_t d = 0; d < rank; ++d) {
      int64_t end;
      if (__builtin_add_overflow(box.offsets[d], box.sizes[d], &end)) {
        report(Problem::Kind::Overflow, i, -1,
               nameBlock(i, box) + ": offset + size overflows int64 in dim " +
                   std::to_string(d));
        break;
      }
      if (end > shape[d]) {
        report(Problem::Kind::Exceeds, i, -1,
               nameBlock(i, box) + " exceeds the tensor " + formatList(shape) +
                   " in dim " + std::to_string(d) + ": offset " +
                   std::to_string(box.offsets[d]) + " + size " +
                   std::to_string(box.sizes[d]) + " > " +
                   std::to_string(shape[d]));
        break;
      }
    }
  }
  if (!result.problems.empty())
    return result;

  // Overlap: sweep along the most discriminating dim, keeping the blocks
  // whose extent along it is still open.
  std::vector<size_t> live;
  for (size_t i = 0; i < blocks.size(); ++i)
    if (!blocks[i].box.empty())
      live.push_back(i);
  if (rank > 0 && !live.empty()) {
    size_t d = sweepDim(blocks, live, rank);
    std::stable_sort(live.begin(), live.end(), [&](size_t a, size_t b) {
      return blocks[a].box.offsets[d] < blocks[b].box.offsets[d];
    });
    std::vector<size_t> active;
    for (size_t j : live) {
      int64_t start = blocks[j].box.offsets[d];
      active.erase(std::remove_if(active.begin(), active.end(),
                                  [&](size_t a) {
                                    const Box &ab = blocks[a].box;
                                    return ab.offsets[d] + ab.sizes[d] <= start;
                                  }),
                   active.end());
      for (size_t a : active) {
        std::optional<Box> common = intersect(blocks[a].box, blocks[j].box);
        if (!common)
          continue;
        ++result.overlapCount;
        if (full())
          continue; // count only: no message to build
        size_t lo = std::min(a, j), hi = std::max(a, j);
        report(Problem::Kind::Overlap, lo, hi,
               nameBlock(lo, blocks[lo].box) + " and " +
                   nameBlock(hi, blocks[hi].box) + " overlap in " +
                   formatBox(*common));
      }
      active.push_back(j);
    }
  } else if (rank == 0 && live.size() > 1) {
    // A rank-0 tensor has one element; every pair of blocks shares it.
    int64_t n = static_cast<int64_t>(live.size());
    result.overlapCount = n * (n - 1) / 2;
    for (size_t i = 0; i < live.size() && !full(); ++i)
      for (size_t j = i + 1; j < live.size() && !full(); ++j)
        report(Problem::Kind::Overlap, live[i], live[j],
               nameBlock(live[i], blocks[live[i]].box) + " and " +
                   nameBlock(live[j], blocks[live[j]].box) + " overlap");
  }
  if (result.overlapCount > 0)
    return result;

  // Coverage: without overlaps, the blocks cover the shape exactly when their
  // volumes add up to its volume.
  std::optional<int64_t> total = volume(shape);
  if (!total) {
    report(Problem::Kind::Overflow, -1, -1,
           "the volume of the tensor " + formatList(shape) +
               " overflows int64");
    return result;
  }
  // Non-overlapping blocks inside the shape add up to at most its volume,
  // which fits int64: no overflow from here on.
  int64_t covered = 0;
  for (size_t i : live)
    covered += *volume(blocks[i].box.sizes);
  if (covered != *total)
    report(Problem::Kind::NotCovered, -1, -1,
           "the blocks do not cover the tensor " + formatList(shape) +
               ": total volume of blocks " + std::to_string(covered) +
               " does not match tensor volume " + std::to_string(*total) +
               " (a gap of " + std::to_string(*total - covered) + " elements)");
  return result;
}

} // namespace layout
} // namespace shardc
