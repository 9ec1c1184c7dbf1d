//===- Collective.cpp - Checking a collective call's arguments ------------===//

#include "Runtime.h"

#include "shardc/Layout/Collectives.h"

#include <algorithm>
#include <climits>
#include <utility>

namespace shardc {
namespace rt {

const char *opName(OpKind op) {
  switch (op) {
  case OpKind::AllGather:
    return "all_gather";
  case OpKind::Scatter:
    return "scatter";
  case OpKind::Redistribute:
    return "redistribute";
  case OpKind::RedistributeReduce:
    return "redistribute_reduce";
  case OpKind::Group:
    return "group";
  }
  return "?";
}

std::string groupKindName(int64_t kind) {
  // The runtime's codes are the collective table's kinds (a static_assert
  // in passes/RuntimeCalls.cpp); the exchange is not a group collective.
  using layout::CollectiveKind;
  if (kind >= 0 && kind < static_cast<int64_t>(CollectiveKind::Exchange))
    return layout::collectiveName(static_cast<CollectiveKind>(kind));
  return "collective " + std::to_string(kind);
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
  case SHARDRT_I16:
    return "i16";
  case SHARDRT_U16:
    return "ui16";
  case SHARDRT_U32:
    return "ui32";
  case SHARDRT_U64:
    return "ui64";
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

namespace {

/// "[18, 18, 18, 6]", at most 16 values shown.
std::string formatCounts(const std::vector<int64_t> &counts) {
  std::string s = "[";
  const size_t shown = std::min<size_t>(counts.size(), 16);
  for (size_t r = 0; r < shown; ++r)
    s += (r ? ", " : "") + std::to_string(counts[r]);
  if (shown < counts.size())
    s += ", ...";
  return s + "]";
}

} // namespace

std::string Collective::describeCounts() const {
  const std::string s = "global " + layout::formatList(global.sizes) + ", ";
  if (!isRedistribution(op))
    return s + "elements per rank " + formatCounts(counts);
  std::vector<int64_t> dstCounts(worldSize, 0);
  for (size_t b = 0; b < dst.size(); ++b)
    dstCounts[dst.owners[b]] = dst.volumes[b];
  return s + "source elements per rank " + formatCounts(counts) +
         ", destination elements per rank " + formatCounts(dstCounts);
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

std::optional<std::vector<int64_t>>
directTransferOffsets(const std::vector<Transfer> &transfers, const char *base,
                      const std::function<View(const Transfer &)> &viewOf,
                      int worldSize, size_t elemSize, bool disjoint) {
  std::vector<int64_t> offsets(worldSize, 0);
  std::vector<bool> seen(worldSize, false);
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (const Transfer &t : transfers) {
    const View view = viewOf(t);
    if (seen[t.peer] || !isContiguous(t.box.sizes, view.strides))
      return std::nullopt;
    seen[t.peer] = true;
    const int64_t start = (view.data - base) / static_cast<int64_t>(elemSize);
    if (start < 0)
      return std::nullopt;
    offsets[t.peer] = start;
    ranges.emplace_back(start, start + *layout::volume(t.box.sizes));
  }
  if (disjoint) {
    std::sort(ranges.begin(), ranges.end());
    for (size_t i = 1; i < ranges.size(); ++i) {
      if (ranges[i].first < ranges[i - 1].second)
        return std::nullopt;
    }
  }
  return offsets;
}

View sendView(const Collective &c, const Transfer &t) {
  return boxView(c.srcViews.at(t.srcBlock), c.boxes[t.srcBlock], t.box,
                 c.elemSize);
}

View receiveView(const Collective &c, const Transfer &t) {
  return boxView(c.dstViews.at(t.dstBlock), c.dst.boxes[t.dstBlock], t.box,
                 c.elemSize);
}

View copySource(const Collective &c, size_t i) {
  const int64_t b = c.plan.copyBlocks[i].first;
  return boxView(c.srcViews.at(b), c.boxes[b], c.plan.copies[i], c.elemSize);
}

View copyDestination(const Collective &c, size_t i) {
  const int64_t b = c.plan.copyBlocks[i].second;
  return boxView(c.dstViews.at(b), c.dst.boxes[b], c.plan.copies[i],
                 c.elemSize);
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

/// Makes `table` the (source) layout of `c`: its boxes and owners, and per
/// rank its block and element count.
void adoptTable(BlockTable &&table, Collective &c) {
  c.boxes = std::move(table.boxes);
  c.owners = std::move(table.owners);
  c.blockOfRank.assign(c.worldSize, -1);
  c.counts.assign(c.worldSize, 0);
  for (size_t b = 0; b < c.boxes.size(); ++b) {
    if (c.blockOfRank[c.owners[b]] < 0)
      c.blockOfRank[c.owners[b]] = static_cast<int64_t>(b);
    c.counts[c.owners[b]] += table.volumes[b];
  }
}

/// Reads the view `t` (named `what`) of this rank's block `b` of a
/// redistribution's table named `tableName` ("source" or "destination"):
/// `box`, holding `volume` elements.
bool readBlockView(const shardrt_tensor *t, const char *what,
                   const std::string &tableName, int64_t b,
                   const layout::Box &box, int64_t volume, View &view,
                   std::string &problem) {
  const std::string block = tableName + " " + nameBlock(b, box);
  if (!t) {
    problem = "this rank owns " + block + " but " + what + " is NULL";
    return false;
  }
  if (!readShape(*t, what, view.sizes, view.strides, problem))
    return false;
  if (view.sizes != box.sizes) {
    problem = std::string(what) + " has sizes " +
              layout::formatList(view.sizes) + " but " + tableName + " block " +
              std::to_string(b) + " needs " + layout::formatList(box.sizes);
    return false;
  }
  if (!t->data && volume > 0) {
    problem = std::string(what) + "'s data is NULL but " + block + " holds " +
              std::to_string(volume) + " elements";
    return false;
  }
  view.data = static_cast<char *>(t->data);
  return true;
}

/// Reads the dtype and device of a view into `c`; on a problem returns its
/// status and sets `problem`.
int readDtypeAndDevice(const shardrt_tensor &t, Collective &c,
                       std::string &problem) {
  c.elemSize = elementSize(t.dtype);
  if (c.elemSize == 0) {
    problem = "unknown dtype " + std::to_string(t.dtype) +
              " (expected 0 to 7: f32, f64, f16, bf16, i8, i32, i64, ui8)";
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  }
  c.dtype = static_cast<shardrt_dtype>(t.dtype);
  if (t.device != SHARDRT_DEVICE_CPU && t.device != SHARDRT_DEVICE_CUDA) {
    problem = "unknown device " + std::to_string(t.device) +
              " (expected 0 for cpu or 1 for cuda)";
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  }
  c.device = static_cast<shardrt_device>(t.device);
#ifndef SHARDRT_HAVE_NCCL
  if (c.device == SHARDRT_DEVICE_CUDA) {
    problem = "CUDA buffers need the NCCL backend, but shardrt was built "
              "without the NCCL backend (backends: " +
              std::string(shardrt_backends()) + ")";
    return SHARDRT_ERROR_UNAVAILABLE;
  }
#endif
  return SHARDRT_SUCCESS;
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
  if (int status = readDtypeAndDevice(*global, c, problem))
    return status;
  if (!readShape(*global, "global", c.global.sizes, c.global.strides, problem))
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  const std::vector<int64_t> &shape = c.global.sizes;
  const int64_t rank = static_cast<int64_t>(shape.size());

  if (op == OpKind::Scatter && (root < 0 || root >= c.worldSize))
    return bad("root " + std::to_string(root) +
               " is not a rank of the world of " + plural(c.worldSize, "rank"));
  c.root = static_cast<int>(op == OpKind::Scatter ? root : 0);

  // The block table.
  Result<BlockTable> table =
      readBlockTable(blocks, numBlocks, rank, c.worldSize, &shape, "");
  if (!table)
    return bad(table.error());
  adoptTable(std::move(*table), c);

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

/// Packed blocks: this rank's blocks `mine` of `table`, row-major one after
/// the other from `data`, as views in `views`.
bool readPackedViews(void *data, const char *what, const BlockTable &table,
                     const std::vector<int64_t> &mine, size_t elemSize,
                     std::map<int64_t, View> &views, std::string &problem) {
  int64_t total = 0;
  for (int64_t b : mine)
    total += table.volumes[b];
  if (!data && total > 0) {
    problem = std::string(what) + " is NULL but this rank's blocks hold " +
              std::to_string(total) + " elements";
    return false;
  }
  int64_t next = 0;
  for (int64_t b : mine) {
    View view;
    view.data = static_cast<char *>(data) + next * elemSize;
    view.sizes = table.boxes[b].sizes;
    view.strides = rowMajorStrides(view.sizes);
    views[b] = std::move(view);
    next += table.volumes[b];
  }
  return true;
}

int checkRedistribute(const shardrt_tensor *srcLocal,
                      const shardrt_tensor *dstLocal,
                      const PackedBuffers *packed, const int64_t *srcBlocks,
                      int64_t numSrc, const int64_t *partial,
                      const int64_t *dstBlocks, int64_t numDst, int32_t reduce,
                      Collective &c, std::string &problem) {
  auto bad = [&](std::string what) {
    problem = std::move(what);
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  };
  const bool reduces = c.op == OpKind::RedistributeReduce;
  if (reduces && !isReduceOp(reduce))
    return bad("unknown reduction op " + std::to_string(reduce) +
               " (expected 0 to 4: sum, avg, max, min, product)");
  if (reduces)
    c.reduce = static_cast<shardrt_reduce>(reduce);
  int64_t rank = 0;
  const char *anyName = "src_local";
  if (packed) {
    shardrt_tensor meta{};
    meta.dtype = packed->dtype;
    meta.device = packed->device;
    if (int status = readDtypeAndDevice(meta, c, problem))
      return status;
    rank = packed->rank;
    anyName = "tensor_rank";
    if (rank < 0)
      return bad("tensor_rank is " + std::to_string(rank));
  } else {
    // The dtype, device and rank come from whichever view is given.
    const shardrt_tensor *any = srcLocal ? srcLocal : dstLocal;
    anyName = srcLocal ? "src_local" : "dst_local";
    if (!any)
      return bad("src_local and dst_local are both NULL; every rank must pass "
                 "at least one of them, for the dtype, device and rank of the "
                 "tensor");
    if (int status = readDtypeAndDevice(*any, c, problem))
      return status;
    if (srcLocal && dstLocal) {
      if (srcLocal->dtype != dstLocal->dtype)
        return bad("src_local has " + dtypeName(srcLocal->dtype) +
                   " elements but dst_local " + dtypeName(dstLocal->dtype));
      if (srcLocal->device != dstLocal->device)
        return bad("src_local is on " + deviceName(srcLocal->device) +
                   " but dst_local on " + deviceName(dstLocal->device));
      if (srcLocal->rank != dstLocal->rank)
        return bad("src_local has rank " + std::to_string(srcLocal->rank) +
                   " but dst_local rank " + std::to_string(dstLocal->rank));
    }
    rank = any->rank;
    if (rank < 0)
      return bad(std::string(anyName) + " has rank " + std::to_string(rank));
  }

  Result<RedistributionTables> tables = readRedistributionTables(
      srcBlocks, numSrc, dstBlocks, numDst, rank, c.worldSize);
  if (!tables)
    return bad(tables.error());
  BlockTable &src = tables->src, &dst = tables->dst;
  if (reduces) {
    Result<std::vector<int64_t>> indices = readPartialIndices(partial, numSrc);
    if (!indices)
      return bad(indices.error());
    c.partial = std::move(*indices);
  }
  const std::vector<int64_t> mySrc = src.blocksOf(c.rank),
                             myDst = dst.blocksOf(c.rank);
  if (!packed) {
    for (const auto &[mine, table] : {std::make_pair(&mySrc, "source"),
                                      std::make_pair(&myDst, "destination")}) {
      if (mine->size() > 1)
        return bad("rank " + std::to_string(c.rank) + " owns " + table +
                   " blocks " + std::to_string((*mine)[0]) + " and " +
                   std::to_string((*mine)[1]) +
                   "; one view holds one block: pass several blocks per "
                   "rank packed, to shardrt_redistribute_packed");
    }
  }
  c.global.sizes = src.extent(rank);
  c.global.strides = rowMajorStrides(c.global.sizes);
  c.plan = reduces ? planReduction(src, c.partial, dst, c.rank)
                   : planRedistribution(src, dst, c.rank);
  // This rank's blocks, packed.
  if (packed && (!readPackedViews(packed->src, "the source buffer", src, mySrc,
                                  c.elemSize, c.srcViews, problem) ||
                 !readPackedViews(packed->dst, "the destination buffer", dst,
                                  myDst, c.elemSize, c.dstViews, problem)))
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  adoptTable(std::move(src), c);
  c.dst = std::move(dst);
  c.myBlock = mySrc.empty() ? -1 : mySrc[0];
  c.myDstBlock = myDst.empty() ? -1 : myDst[0];

  if (packed) {
    c.srcBase = static_cast<char *>(packed->src);
    c.dstBase = static_cast<char *>(packed->dst);
    if (c.myBlock >= 0)
      c.local = c.srcViews[c.myBlock];
    if (c.myDstBlock >= 0)
      c.dstLocal = c.dstViews[c.myDstBlock];
    return SHARDRT_SUCCESS;
  }
  if (c.myBlock >= 0 &&
      !readBlockView(srcLocal, "src_local", "source", c.myBlock,
                     c.boxes[c.myBlock], c.counts[c.rank], c.local, problem))
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  if (c.myDstBlock >= 0 &&
      !readBlockView(dstLocal, "dst_local", "destination", c.myDstBlock,
                     c.dst.boxes[c.myDstBlock], c.dst.volumes[c.myDstBlock],
                     c.dstLocal, problem))
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  if (c.myBlock >= 0)
    c.srcViews[c.myBlock] = c.local;
  if (c.myDstBlock >= 0)
    c.dstViews[c.myDstBlock] = c.dstLocal;
  c.srcBase = c.local.data;
  c.dstBase = c.dstLocal.data;
  return SHARDRT_SUCCESS;
}

namespace {

/// FNV-1a over int64 values.
struct Fnv {
  uint64_t h = 1469598103934665603ull;
  void mix(int64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= static_cast<uint64_t>(v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  }
  /// Kept clear of INT64_MIN so that it can be negated.
  int64_t value() const { return static_cast<int64_t>(h >> 1); }
};

int64_t hashTable(const std::vector<layout::Box> &boxes,
                  const std::vector<int> &owners) {
  Fnv f;
  f.mix(static_cast<int64_t>(boxes.size()));
  for (size_t b = 0; b < boxes.size(); ++b) {
    f.mix(owners[b]);
    for (int64_t v : boxes[b].offsets)
      f.mix(v);
    for (int64_t v : boxes[b].sizes)
      f.mix(v);
  }
  return f.value();
}

} // namespace

CallSummary summarizeCall(const Collective &c) {
  CallSummary s{};
  s.op = static_cast<int64_t>(c.op);
  s.dtype = c.dtype;
  s.device = c.device;
  const bool group = c.op == OpKind::Group;
  const bool groupReduces =
      group && (c.group.kind == SHARDRT_COLLECTIVE_REDUCE_SCATTER ||
                c.group.kind == SHARDRT_COLLECTIVE_ALL_REDUCE);
  s.root = c.op == OpKind::Scatter ? c.root : group ? c.group.root : 0;
  s.reduce = c.op == OpKind::RedistributeReduce || groupReduces ? c.reduce : -1;
  s.groupKind = group ? c.group.kind : -1;
  s.groupsHash = group ? c.group.groupsHash : 0;
  s.tensorRank = static_cast<int64_t>(c.global.sizes.size());
  Fnv sizes;
  for (int64_t v : c.global.sizes)
    sizes.mix(v);
  s.sizesHash = sizes.value();
  s.numSrc = static_cast<int64_t>(c.boxes.size());
  s.srcHash = hashTable(c.boxes, c.owners);
  s.numDst = static_cast<int64_t>(c.dst.size());
  s.dstHash = isRedistribution(c.op) ? hashTable(c.dst.boxes, c.dst.owners) : 0;
  Fnv partial;
  for (int64_t p : c.partial)
    partial.mix(p);
  s.partialHash = c.op == OpKind::RedistributeReduce ? partial.value() : 0;
  Fnv all;
  for (int64_t v : {s.op, s.dtype, s.device, s.root, s.reduce, s.tensorRank,
                    s.sizesHash, s.numSrc, s.srcHash, s.numDst, s.dstHash,
                    s.partialHash, s.groupKind, s.groupsHash})
    all.mix(v);
  s.hash = all.value();
  return s;
}

int64_t callHash(const Collective &c) { return summarizeCall(c).hash; }

std::string describeDifference(const CallSummary &a, const CallSummary &b) {
  std::vector<std::string> parts;
  auto opText = [](int64_t op) {
    return op >= 0 && op <= static_cast<int64_t>(OpKind::Group)
               ? std::string(opName(static_cast<OpKind>(op)))
               : "operation " + std::to_string(op);
  };
  auto kindText = [&](const CallSummary &s) {
    return s.groupKind >= 0 ? groupKindName(s.groupKind) + " over groups"
                            : opText(s.op);
  };
  if (a.op != b.op || a.groupKind != b.groupKind)
    parts.push_back("the collective (" + kindText(a) + " vs " + kindText(b) +
                    ")");
  if (a.dtype != b.dtype)
    parts.push_back("the dtype (" + dtypeName(static_cast<int32_t>(a.dtype)) +
                    " vs " + dtypeName(static_cast<int32_t>(b.dtype)) + ")");
  if (a.device != b.device)
    parts.push_back("the device (" +
                    deviceName(static_cast<int32_t>(a.device)) + " vs " +
                    deviceName(static_cast<int32_t>(b.device)) + ")");
  if (a.root != b.root)
    parts.push_back("the root (" + std::to_string(a.root) + " vs " +
                    std::to_string(b.root) + ")");
  if (a.reduce != b.reduce) {
    auto opText = [](int64_t op) {
      return op < 0 ? std::string("none")
             : isReduceOp(static_cast<int32_t>(op))
                 ? reduceName(static_cast<int32_t>(op))
                 : std::to_string(op);
    };
    parts.push_back("the reduction op (" + opText(a.reduce) + " vs " +
                    opText(b.reduce) + ")");
  }
  if (a.tensorRank != b.tensorRank)
    parts.push_back("the tensor rank (" + std::to_string(a.tensorRank) +
                    " vs " + std::to_string(b.tensorRank) + ")");
  else if (a.sizesHash != b.sizesHash)
    parts.push_back("the global sizes");
  auto tableText = [](int64_t na, int64_t nb) {
    return na == nb
               ? " (" + plural(na, "block") + " each, rows differ)"
               : " (" + plural(na, "block") + " vs " + std::to_string(nb) + ")";
  };
  if (a.numSrc != b.numSrc || a.srcHash != b.srcHash)
    parts.push_back(
        std::string(a.op >= static_cast<int64_t>(OpKind::Redistribute)
                        ? "the source block table"
                        : "the block table") +
        tableText(a.numSrc, b.numSrc));
  if (a.numDst != b.numDst || a.dstHash != b.dstHash)
    parts.push_back("the destination block table" +
                    tableText(a.numDst, b.numDst));
  if (a.partialHash != b.partialHash)
    parts.push_back("the partial indices");
  if (a.groupsHash != b.groupsHash)
    parts.push_back("the groups");
  if (parts.empty())
    return "the call";
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i)
    text += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return text;
}

std::string describeDisagreement(const std::vector<CallSummary> &all) {
  // Ranks grouped by the call they pass, in order of their lowest rank.
  std::vector<std::vector<int>> groups;
  for (int r = 0; r < static_cast<int>(all.size()); ++r) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto &ranks) {
      return all[ranks[0]].hash == all[r].hash;
    });
    if (g == groups.end())
      groups.push_back({r});
    else
      g->push_back(r);
  }
  // The reference: the largest group, the first one on ties.
  size_t ref = 0;
  for (size_t g = 1; g < groups.size(); ++g) {
    if (groups[g].size() > groups[ref].size())
      ref = g;
  }
  auto names = [](const std::vector<int> &ranks) {
    std::string text = ranks.size() == 1 ? "rank " : "ranks ";
    const size_t shown = std::min<size_t>(ranks.size(), 16);
    for (size_t i = 0; i < shown; ++i)
      text += (i ? ", " : "") + std::to_string(ranks[i]);
    if (shown < ranks.size())
      text += ", ... (" + std::to_string(ranks.size()) + " ranks)";
    return text;
  };
  std::string text;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (g == ref)
      continue;
    if (!text.empty())
      text += "; ";
    text += names(groups[g]) + " differ" + (groups[g].size() == 1 ? "s" : "") +
            " from " + names(groups[ref]) + " in " +
            describeDifference(all[groups[g][0]], all[groups[ref][0]]);
  }
  return text;
}

} // namespace rt
} // namespace shardc
