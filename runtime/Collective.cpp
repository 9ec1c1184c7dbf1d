//===- Collective.cpp - Checking a collective call's arguments ------------===//

#include "Runtime.h"

#include <algorithm>
#include <climits>
#include <utility>

namespace shardc {
namespace rt {

const char *opName(OpKind op) {
  return op == OpKind::AllGather ? "all_gather" : "scatter";
}

std::string dtypeName(int32_t dtype) {
  switch (dtype) {
  case SHARDRT_F32:
    return "f32";
  case SHARDRT_F64:
    return "f64";
  case SHARDRT_F16:
    return "f16";
  case SHARDRT_BF16:
    return "bf16";
  case SHARDRT_I8:
    return "i8";
  case SHARDRT_I32:
    return "i32";
  case SHARDRT_I64:
    return "i64";
  case SHARDRT_U8:
    return "ui8";
  default:
    return "dtype " + std::to_string(dtype);
  }
}

std::string deviceName(int32_t device) {
  switch (device) {
  case SHARDRT_DEVICE_CPU:
    return "cpu";
  case SHARDRT_DEVICE_CUDA:
    return "cuda";
  default:
    return "device " + std::to_string(device);
  }
}

size_t elementSize(int32_t dtype) {
  switch (dtype) {
  case SHARDRT_F64:
  case SHARDRT_I64:
    return 8;
  case SHARDRT_F32:
  case SHARDRT_I32:
    return 4;
  case SHARDRT_F16:
  case SHARDRT_BF16:
    return 2;
  case SHARDRT_I8:
  case SHARDRT_U8:
    return 1;
  default:
    return 0;
  }
}

int Collective::fail(shardrt_status status, const std::string &what) const {
  return rt::fail(status, prefix + what);
}

std::string Collective::describeCounts() const {
  std::string s =
      "global " + layout::formatList(global.sizes) + ", elements per rank [";
  const size_t shown = std::min<size_t>(counts.size(), 16);
  for (size_t r = 0; r < shown; ++r)
    s += (r ? ", " : "") + std::to_string(counts[r]);
  if (shown < counts.size())
    s += ", ...";
  return s + "]";
}

int64_t Collective::totalCount() const {
  int64_t total = 0;
  for (int64_t n : counts)
    total += n;
  return total;
}

std::vector<int64_t> scatterStagingOffsets(const Collective &c,
                                           int64_t &total) {
  std::vector<int64_t> offsets(c.worldSize, 0);
  total = 0;
  for (int r = 0; r < c.worldSize; ++r) {
    if (r == c.root)
      continue;
    offsets[r] = total;
    total += c.counts[r];
  }
  return offsets;
}

std::optional<std::vector<int64_t>> directOffsets(const Collective &c) {
  std::vector<int64_t> offsets(c.worldSize, 0);
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (int r = 0; r < c.worldSize; ++r) {
    int64_t b = c.blockOfRank[r];
    if (b < 0 || c.counts[r] == 0)
      continue;
    const layout::Box &box = c.boxes[b];
    if (!isContiguous(box.sizes, c.global.strides))
      return std::nullopt;
    int64_t start = linearOffset(box.offsets, c.global.strides);
    if (start < 0)
      return std::nullopt;
    offsets[r] = start;
    ranges.emplace_back(start, start + c.counts[r]);
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first < ranges[i - 1].second)
      return std::nullopt;
  }
  return offsets;
}

std::vector<int64_t> stagedOffsets(const Collective &c) {
  std::vector<int64_t> offsets(c.worldSize, 0);
  int64_t next = 0;
  for (int r = 0; r < c.worldSize; ++r) {
    offsets[r] = next;
    next += c.counts[r];
  }
  return offsets;
}

namespace {

/// "block 3 (offsets [0, 6], sizes [6, 4])".
std::string nameBlock(int64_t b, const layout::Box &box) {
  return "block " + std::to_string(b) + " " + layout::formatBox(box);
}

/// Sizes and strides of a tensor argument, or a complaint about them.
bool readShape(const shardrt_tensor &t, const char *what,
               std::vector<int64_t> &sizes, std::vector<int64_t> &strides,
               std::string &problem) {
  if (t.rank < 0) {
    problem = std::string("the ") + what + " tensor has rank " +
              std::to_string(t.rank);
    return false;
  }
  if (t.rank > 0 && (!t.sizes || !t.strides)) {
    problem = std::string("the ") + what + " tensor has rank " +
              std::to_string(t.rank) + " but NULL sizes or strides";
    return false;
  }
  sizes.assign(t.sizes, t.sizes + t.rank);
  strides.assign(t.strides, t.strides + t.rank);
  if (std::any_of(sizes.begin(), sizes.end(),
                  [](int64_t s) { return s < 0; })) {
    problem = std::string("the ") + what +
              " tensor has a negative size: " + layout::formatList(sizes);
    return false;
  }
  return true;
}

} // namespace

int checkCall(OpKind op, const shardrt_tensor *local,
              const shardrt_tensor *global, const int64_t *blocks,
              int64_t numBlocks, int64_t root, Collective &c,
              std::string &problem) {
  auto bad = [&](std::string what) {
    problem = std::move(what);
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  };
  c.op = op;
  if (!global)
    return bad(op == OpKind::AllGather
                   ? "the global tensor is NULL"
                   : "the global tensor is NULL; scatter needs its rank and "
                     "sizes on every rank (its data on root only)");
  c.elemSize = elementSize(global->dtype);
  if (c.elemSize == 0)
    return bad("unknown dtype " + std::to_string(global->dtype) +
               " (expected 0 to 7: f32, f64, f16, bf16, i8, i32, i64, ui8)");
  c.dtype = static_cast<shardrt_dtype>(global->dtype);
  if (global->device != SHARDRT_DEVICE_CPU &&
      global->device != SHARDRT_DEVICE_CUDA)
    return bad("unknown device " + std::to_string(global->device) +
               " (expected 0 for cpu or 1 for cuda)");
  c.device = static_cast<shardrt_device>(global->device);
#ifndef SHARDRT_HAVE_NCCL
  if (c.device == SHARDRT_DEVICE_CUDA) {
    problem = "CUDA buffers need the NCCL backend, but shardrt was built "
              "without the NCCL backend (backends: " +
              std::string(shardrt_backends()) + ")";
    return SHARDRT_ERROR_UNAVAILABLE;
  }
#endif
  if (!readShape(*global, "global", c.global.sizes, c.global.strides, problem))
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  const std::vector<int64_t> &shape = c.global.sizes;
  const int64_t rank = static_cast<int64_t>(shape.size());

  if (op == OpKind::Scatter && (root < 0 || root >= c.worldSize))
    return bad("root " + std::to_string(root) +
               " is not a rank of the world of " + plural(c.worldSize, "rank"));
  c.root = static_cast<int>(op == OpKind::Scatter ? root : 0);

  // The block table.
  if (numBlocks < 0)
    return bad("the block table has " + plural(numBlocks, "row"));
  if (numBlocks > 0 && !blocks)
    return bad("the block table is NULL but has " + std::to_string(numBlocks) +
               " rows");
  const int64_t columns = 1 + 2 * rank;
  c.boxes.assign(numBlocks, layout::Box());
  c.owners.assign(numBlocks, -1);
  c.blockOfRank.assign(c.worldSize, -1);
  c.counts.assign(c.worldSize, 0);
  for (int64_t b = 0; b < numBlocks; ++b) {
    const int64_t *row = blocks + b * columns;
    layout::Box &box = c.boxes[b];
    box.offsets.assign(row + 1, row + 1 + rank);
    box.sizes.assign(row + 1 + rank, row + 1 + 2 * rank);
    const int64_t owner = row[0];
    if (owner < 0 || owner >= c.worldSize)
      return bad("block " + std::to_string(b) + " is placed on rank " +
                 std::to_string(owner) + " but the world has " +
                 plural(c.worldSize, "rank"));
    auto negative = [](int64_t v) { return v < 0; };
    if (std::any_of(box.offsets.begin(), box.offsets.end(), negative) ||
        std::any_of(box.sizes.begin(), box.sizes.end(), negative))
      return bad(nameBlock(b, box) + " has a negative offset or size");
    if (!layout::fitsIn(box, shape))
      return bad(nameBlock(b, box) + " does not fit in the global tensor " +
                 layout::formatList(shape));
    std::optional<int64_t> volume = layout::volume(box.sizes);
    if (!volume)
      return bad(nameBlock(b, box) + " holds more elements than int64 counts");
    if (c.blockOfRank[owner] >= 0)
      return bad("rank " + std::to_string(owner) + " owns blocks " +
                 std::to_string(c.blockOfRank[owner]) + " and " +
                 std::to_string(b) +
                 "; this version supports at most one block per rank");
    c.owners[b] = static_cast<int>(owner);
    c.blockOfRank[owner] = b;
    c.counts[owner] = *volume;
  }

  // The global data: written by all_gather everywhere, read by scatter on
  // root only.
  std::optional<int64_t> globalVolume = layout::volume(shape);
  if (!globalVolume)
    return bad("the global tensor " + layout::formatList(shape) +
               " holds more elements than int64 counts");
  const bool needsGlobalData = op == OpKind::AllGather || c.rank == c.root;
  if (needsGlobalData && !global->data && *globalVolume > 0)
    return bad("the global tensor's data is NULL but it holds " +
               std::to_string(*globalVolume) + " elements");
  c.global.data = needsGlobalData ? static_cast<char *>(global->data) : nullptr;

  // This rank's block.
  c.myBlock = c.blockOfRank[c.rank];
  if (c.myBlock < 0)
    return SHARDRT_SUCCESS;
  const layout::Box &box = c.boxes[c.myBlock];
  const std::string mine = nameBlock(c.myBlock, box);
  if (!local)
    return bad("this rank owns " + mine + " but its local tensor is NULL");
  if (local->dtype != global->dtype)
    return bad("the local tensor has " + dtypeName(local->dtype) +
               " elements but the global tensor " + dtypeName(global->dtype));
  if (local->device != global->device)
    return bad("the local tensor is on " + deviceName(local->device) +
               " but the global tensor on " + deviceName(global->device));
  if (local->rank != rank)
    return bad("the local block has rank " + std::to_string(local->rank) +
               " but " + mine + " has rank " + std::to_string(rank));
  if (!readShape(*local, "local", c.local.sizes, c.local.strides, problem))
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  if (c.local.sizes != box.sizes)
    return bad("local block has sizes " + layout::formatList(c.local.sizes) +
               " but block " + std::to_string(c.myBlock) + " needs " +
               layout::formatList(box.sizes));
  if (!local->data && c.counts[c.rank] > 0)
    return bad("the local tensor's data is NULL but " + mine + " holds " +
               std::to_string(c.counts[c.rank]) + " elements");
  c.local.data = static_cast<char *>(local->data);
  return SHARDRT_SUCCESS;
}

int64_t callHash(const Collective &c) {
  // FNV-1a over the values every rank must pass alike.
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](int64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= static_cast<uint64_t>(v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  mix(static_cast<int64_t>(c.op));
  mix(c.dtype);
  mix(c.device);
  mix(c.root);
  mix(static_cast<int64_t>(c.global.sizes.size()));
  for (int64_t s : c.global.sizes)
    mix(s);
  mix(static_cast<int64_t>(c.boxes.size()));
  for (size_t b = 0; b < c.boxes.size(); ++b) {
    mix(c.owners[b]);
    for (int64_t v : c.boxes[b].offsets)
      mix(v);
    for (int64_t v : c.boxes[b].sizes)
      mix(v);
  }
  // Keep clear of INT64_MIN so that the hash can be negated.
  return static_cast<int64_t>(h >> 1);
}

} // namespace rt
} // namespace shardc
