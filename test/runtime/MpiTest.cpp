//===- MpiTest.cpp - all_gather, scatter and redistribute across ranks ----===//
//
// Run under mpirun with any number of ranks. Every rank builds the same list
// of cases: chunk layouts (torch.chunk semantics from the layout library) of
// 0-D to 3-D tensors along every dim, uneven and empty chunks, owners in
// several orders, layouts over fewer ranks than the world, every dtype, and
// global and local views that are contiguous, padded, transposed or reversed.
// Redistributions between chunk specs on different dims (all_to_all), grids,
// replicated layouts (to and from), DTensor-like meshes with replicas, and
// layouts where every rank already holds what it needs. Every element is
// checked against a value computed from its global index.
// Then argument errors seen by one rank only, or by ranks that disagree, must
// fail the call on every rank without hanging. Each rank prints one line; the
// exit status is non-zero when any rank saw a mismatch.
//
//===----------------------------------------------------------------------===//

#include "Layouts.h"
#include "TestSupport.h"
#include "shardc/Layout/Layout.h"
#include "shardrt.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace shardrt_test;
using shardc::layout::Block;
using shardc::layout::Device;

namespace {

/// One layout to move: blocks of a global tensor and how the views sit.
struct Case {
  std::string name;
  shardrt_dtype dtype;
  std::vector<int64_t> shape;
  std::vector<Block> blocks;
  Arrangement globalArrangement;
  Arrangement localArrangement;
  int root;
  /// Whether non-root ranks pass no global data to scatter.
  bool nullGlobalOffRoot;
};

/// What a rank found.
struct Tally {
  int cases = 0;
  int64_t checked = 0;
  int mismatches = 0;
  int rank = 0;

  /// Reports one mismatch (the first few in full).
  void mismatch(const std::string &what) {
    if (++mismatches <= 8)
      std::printf("rank %d: MISMATCH %s\n", rank, what.c_str());
  }
};

/// The cases, identical on every rank.
std::vector<Case> buildCases(int world) {
  struct Spec {
    std::vector<int64_t> shape;
    int64_t dim;
    /// Chunks; 0 means one per rank.
    int chunks;
  };
  const std::vector<Spec> specs = {
      {{5}, 0, 4},        {{6, 10}, 1, 4},   {{6, 10}, 0, 0},
      {{7, 5}, 0, 0},     {{7, 5}, 1, 0},    {{4, 6, 5}, 0, 0},
      {{4, 6, 5}, 1, 0},  {{4, 6, 5}, 2, 0}, {{3, 2, 9}, 2, 0},
      {{1, 3}, 0, 0},     {{0, 4}, 0, 0},    {{33, 17, 3}, 1, 0},
      {{2, 3, 11}, 2, 3}, {{13}, 0, 0},
  };
  const Arrangement arrangements[] = {
      Arrangement::Contiguous, Arrangement::Padded, Arrangement::Transposed,
      Arrangement::Reversed};
  std::vector<Case> cases;
  int serial = 0;
  for (const Spec &spec : specs) {
    int full = spec.chunks > 0 ? std::min(spec.chunks, world) : world;
    // All ranks, then fewer ranks than the world (some own nothing).
    std::vector<int> counts{full};
    if (full > 1)
      counts.push_back(full - 1);
    for (int k : counts) {
      // Owners in rank order, reversed, and shifted to the world's end.
      for (int order = 0; order < 3; ++order) {
        std::vector<Device> placements;
        for (int i = 0; i < k; ++i) {
          Device d;
          d.rank = order == 0 ? i : order == 1 ? k - 1 - i : world - k + i;
          placements.push_back(d);
        }
        Case c;
        c.dtype = static_cast<shardrt_dtype>(serial % 8);
        c.shape = spec.shape;
        c.blocks =
            shardc::layout::chunkBlocks(spec.shape, spec.dim, placements);
        c.globalArrangement = arrangements[serial % 4];
        c.localArrangement = arrangements[(serial / 4 + serial) % 4];
        c.root = serial % world;
        c.nullGlobalOffRoot = serial % 3 == 0;
        c.name = std::string(dtypeName(c.dtype)) + " " +
                 formatIndex(spec.shape) + " dim " + std::to_string(spec.dim) +
                 " over " + std::to_string(k) + " (order " +
                 std::to_string(order) + ", global " +
                 arrangementName(c.globalArrangement) + ", local " +
                 arrangementName(c.localArrangement) + ")";
        cases.push_back(std::move(c));
        ++serial;
      }
    }
  }
  // A 0-D tensor held by the last rank.
  Case scalar;
  scalar.name = "i64 0-D on the last rank";
  scalar.dtype = SHARDRT_I64;
  Block only;
  only.placement.rank = world - 1;
  scalar.blocks = {only};
  scalar.globalArrangement = Arrangement::Padded;
  scalar.localArrangement = Arrangement::Contiguous;
  scalar.root = 0;
  scalar.nullGlobalOffRoot = false;
  cases.push_back(scalar);
  return cases;
}

/// The block this rank owns, or -1.
int ownedBlock(const Case &c, int rank) { return blockOf(c.blocks, rank); }

/// The global linear index of element `index` of block `block`.
int64_t globalIndex(const Case &c, const Block &block,
                    const std::vector<int64_t> &index) {
  std::vector<int64_t> at(index);
  for (size_t d = 0; d < at.size(); ++d)
    at[d] += block.box.offsets[d];
  return linearIndex(at, c.shape);
}

void runAllGather(const Case &c, int rank, Tally &tally) {
  const size_t es = elementSize(c.dtype);
  const int mine = ownedBlock(c, rank);
  const std::vector<int64_t> table = tableOf(c.blocks);
  StridedBuffer global(c.shape, es, c.globalArrangement);
  forEachIndex(c.shape, [&](const std::vector<int64_t> &i) {
    global.set(i, ~valueBits(c.dtype, linearIndex(i, c.shape)));
  });
  std::vector<int64_t> localSizes =
      mine >= 0 ? c.blocks[mine].box.sizes : std::vector<int64_t>{};
  StridedBuffer local(localSizes, es, c.localArrangement);
  if (mine >= 0) {
    forEachIndex(localSizes, [&](const std::vector<int64_t> &i) {
      local.set(i, valueBits(c.dtype, globalIndex(c, c.blocks[mine], i)));
    });
  }
  shardrt_tensor g = global.tensor(c.dtype), l = local.tensor(c.dtype);
  int status = shardrt_all_gather(mine >= 0 ? &l : nullptr, &g, table.data(),
                                  static_cast<int64_t>(c.blocks.size()));
  if (status != SHARDRT_SUCCESS) {
    tally.mismatch("all_gather " + c.name + " failed: " + shardrt_last_error());
    return;
  }
  const uint64_t mask = elementMask(es);
  forEachIndex(c.shape, [&](const std::vector<int64_t> &i) {
    ++tally.checked;
    const uint64_t expected = valueBits(c.dtype, linearIndex(i, c.shape));
    const uint64_t got = global.get(i) & mask;
    if (got != expected)
      tally.mismatch("all_gather " + c.name + ": element " + formatIndex(i) +
                     " holds " + std::to_string(got) + ", expected " +
                     std::to_string(expected));
  });
  if (!global.paddingIntact())
    tally.mismatch("all_gather " + c.name + ": wrote outside the global view");
}

void runScatter(const Case &c, int rank, Tally &tally) {
  const size_t es = elementSize(c.dtype);
  const int mine = ownedBlock(c, rank);
  const bool isRoot = rank == c.root;
  const std::vector<int64_t> table = tableOf(c.blocks);
  StridedBuffer global(c.shape, es, c.globalArrangement);
  forEachIndex(c.shape, [&](const std::vector<int64_t> &i) {
    const uint64_t v = valueBits(c.dtype, linearIndex(i, c.shape));
    // Other ranks' global data must be ignored: fill it with wrong values.
    global.set(i, isRoot ? v : ~v);
  });
  std::vector<int64_t> localSizes =
      mine >= 0 ? c.blocks[mine].box.sizes : std::vector<int64_t>{};
  StridedBuffer local(localSizes, es, c.localArrangement);
  if (mine >= 0) {
    forEachIndex(localSizes, [&](const std::vector<int64_t> &i) {
      local.set(i, ~valueBits(c.dtype, globalIndex(c, c.blocks[mine], i)));
    });
  }
  shardrt_tensor g = global.tensor(c.dtype), l = local.tensor(c.dtype);
  if (!isRoot && c.nullGlobalOffRoot)
    g.data = nullptr;
  int status = shardrt_scatter(&g, mine >= 0 ? &l : nullptr, table.data(),
                               static_cast<int64_t>(c.blocks.size()), c.root);
  if (status != SHARDRT_SUCCESS) {
    tally.mismatch("scatter " + c.name + " failed: " + shardrt_last_error());
    return;
  }
  const uint64_t mask = elementMask(es);
  if (mine >= 0) {
    forEachIndex(localSizes, [&](const std::vector<int64_t> &i) {
      ++tally.checked;
      const uint64_t expected =
          valueBits(c.dtype, globalIndex(c, c.blocks[mine], i));
      const uint64_t got = local.get(i) & mask;
      if (got != expected)
        tally.mismatch("scatter " + c.name + ": local element " +
                       formatIndex(i) + " holds " + std::to_string(got) +
                       ", expected " + std::to_string(expected));
    });
    if (!local.paddingIntact())
      tally.mismatch("scatter " + c.name + ": wrote outside the local view");
  }
  if (isRoot) {
    // Scatter reads the global tensor only.
    forEachIndex(c.shape, [&](const std::vector<int64_t> &i) {
      ++tally.checked;
      if ((global.get(i) & mask) != valueBits(c.dtype, linearIndex(i, c.shape)))
        tally.mismatch("scatter " + c.name +
                       ": changed the root's global "
                       "element " +
                       formatIndex(i));
    });
  }
}

/// Expects a failed call on this rank whose message contains `needle`.
void expectFailure(Tally &tally, const char *what, int status,
                   const std::string &needle) {
  ++tally.cases;
  const std::string message = shardrt_last_error();
  if (status == SHARDRT_SUCCESS)
    tally.mismatch(std::string(what) + ": the call succeeded");
  else if (message.find(needle) == std::string::npos)
    tally.mismatch(std::string(what) + ": message \"" + message +
                   "\" does not contain \"" + needle + "\"");
}

/// Argument errors that some ranks see and others do not must fail the call
/// on every rank, without hanging.
void runErrorCases(int rank, int world, Tally &tally) {
  const std::vector<int64_t> shape{6, 10};
  std::vector<Device> placements(world);
  for (int i = 0; i < world; ++i)
    placements[i].rank = i;
  std::vector<Block> blocks = shardc::layout::chunkBlocks(shape, 1, placements);
  std::vector<int64_t> table = tableOf(blocks);
  StridedBuffer global(shape, 4, Arrangement::Contiguous);
  std::vector<int64_t> sizes = blocks[rank].box.sizes;
  const int last = world - 1;
  // The last rank passes a local block one column too wide.
  if (rank == last)
    sizes[1] += 1;
  StridedBuffer local(sizes, 4, Arrangement::Contiguous);
  shardrt_tensor g = global.tensor(SHARDRT_F32), l = local.tensor(SHARDRT_F32);
  int status = shardrt_all_gather(&l, &g, table.data(), world);
  expectFailure(tally, "all_gather with a wrong local block on one rank",
                status,
                rank == last ? "local block has sizes"
                             : "rank " + std::to_string(last) +
                                   " rejected its arguments");

  // Ranks disagree on the root.
  StridedBuffer goodLocal(blocks[rank].box.sizes, 4, Arrangement::Contiguous);
  shardrt_tensor gl = goodLocal.tensor(SHARDRT_F32);
  if (world > 1) {
    status =
        shardrt_scatter(&g, &gl, table.data(), world, rank == 0 ? 0 : last);
    expectFailure(tally, "scatter with ranks disagreeing on the root", status,
                  "the ranks disagree on the call");
  }

  // Everybody sees a block placed outside the world.
  std::vector<int64_t> outside = table;
  outside[0] = world;
  status = shardrt_all_gather(&gl, &g, outside.data(), world);
  expectFailure(tally, "all_gather with an owner outside the world", status,
                "block 0 is placed on rank " + std::to_string(world) +
                    " but the world has " + std::to_string(world) + " rank");
}

/// A redistribution to run: two layouts of one tensor.
struct RedistributeCase {
  std::string name;
  shardrt_dtype dtype;
  std::vector<int64_t> shape;
  std::vector<Block> src, dst;
  Arrangement srcArrangement;
  Arrangement dstArrangement;
  /// Whether ranks owning no block of a table pass NULL for its view (else a
  /// view of zero sizes).
  bool nullWhenUnowned;
  /// Whether every destination rank holds a replica of what it needs, so
  /// that nothing is received.
  bool localOnly;
};

/// The redistribution cases, identical on every rank.
std::vector<RedistributeCase> buildRedistributeCases(int world) {
  const shardrt_dtype dtypes[] = {SHARDRT_F32, SHARDRT_F64,  SHARDRT_I8,
                                  SHARDRT_I64, SHARDRT_BF16, SHARDRT_F16,
                                  SHARDRT_I32, SHARDRT_U8};
  const Arrangement arrangements[] = {
      Arrangement::Contiguous, Arrangement::Padded, Arrangement::Transposed,
      Arrangement::Reversed};
  std::vector<RedistributeCase> cases;
  int serial = 0;
  auto add = [&](const std::string &what, const std::vector<int64_t> &shape,
                 std::vector<Block> src, std::vector<Block> dst,
                 bool localOnly = false) {
    RedistributeCase c;
    c.dtype = dtypes[serial % 8];
    c.shape = shape;
    c.src = std::move(src);
    c.dst = std::move(dst);
    c.srcArrangement = arrangements[serial % 4];
    c.dstArrangement = arrangements[(serial / 4 + serial + 1) % 4];
    c.nullWhenUnowned = serial % 2 == 1;
    c.localOnly = localOnly;
    c.name = std::string(dtypeName(c.dtype)) + " " + formatIndex(shape) + " " +
             what + " (src " + arrangementName(c.srcArrangement) + ", dst " +
             arrangementName(c.dstArrangement) + ")";
    cases.push_back(std::move(c));
    ++serial;
  };
  const int w = world;
  const std::vector<int> all = ranksInOrder(w, 0, w);
  const std::vector<int> reversed = ranksInOrder(w, 1, w);
  // The last w - 1 ranks (some rank owns nothing).
  const std::vector<int> fewer = ranksInOrder(std::max(w - 1, 1), 2, w);

  // Chunk specs to chunk specs on another dim (an all_to_all), in several
  // placement orders, uneven and empty chunks, over fewer ranks.
  struct ChunkPair {
    std::vector<int64_t> shape;
    int64_t from, to;
  };
  const std::vector<ChunkPair> pairs = {
      {{6, 10}, 0, 1},   {{7, 5}, 1, 0},      {{4, 6, 5}, 0, 2},
      {{4, 6, 5}, 2, 1}, {{33, 17, 3}, 1, 0}, {{3, 2, 9}, 2, 0},
      {{0, 4}, 0, 1},    {{1, 3}, 0, 1},      {{13}, 0, 0}};
  const std::vector<std::pair<std::string, std::vector<int>>> orders = {
      {"in order", all}, {"reversed", reversed}, {"over fewer", fewer}};
  for (const ChunkPair &p : pairs) {
    for (size_t a = 0; a < orders.size(); ++a) {
      const size_t b = (a + 1) % orders.size();
      add("chunk dim " + std::to_string(p.from) + " " + orders[a].first +
              " -> chunk dim " + std::to_string(p.to) + " " + orders[b].first,
          p.shape, chunkLayout(p.shape, p.from, orders[a].second),
          chunkLayout(p.shape, p.to, orders[b].second));
    }
  }
  // [5] in 4 chunks (2, 2, 1, 0) to one chunk per rank, reversed.
  add("4 chunks -> chunk reversed", {5},
      chunkLayout({5}, 0, ranksInOrder(std::min(4, w), 0, w)),
      chunkLayout({5}, 0, reversed));
  // The same layout: every rank copies its block.
  add("chunk dim 1 -> itself", {6, 10}, chunkLayout({6, 10}, 1, reversed),
      chunkLayout({6, 10}, 1, reversed), /*localOnly=*/true);

  // Replicated sources and destinations.
  const std::vector<int64_t> shape{6, 10};
  add("replicated -> chunk dim 1", shape, gridLayout(shape, {1, 1}, all, w),
      chunkLayout(shape, 1, reversed), /*localOnly=*/true);
  const int half = (w + 1) / 2;
  add("replicated on " + std::to_string(half) + " -> chunk dim 0 reversed",
      shape, gridLayout(shape, {1, 1}, ranksInOrder(half, 2, w), half),
      chunkLayout(shape, 0, reversed));
  add("chunk dim 0 -> replicated (all_gather)", {7, 5},
      chunkLayout({7, 5}, 0, reversed), gridLayout({7, 5}, {1, 1}, all, w));
  add("chunk dim 1 over fewer -> replicated (all_gather)", {4, 6, 5},
      chunkLayout({4, 6, 5}, 1, fewer),
      gridLayout({4, 6, 5}, {1, 1, 1}, reversed, w));
  add("replicated -> replicated over fewer", {3, 4},
      gridLayout({3, 4}, {1, 1}, reversed, w),
      gridLayout({3, 4}, {1, 1}, fewer, static_cast<int>(fewer.size())),
      /*localOnly=*/true);

  // Grids (enumerable specs).
  if (w >= 4) {
    add("grid 2x2 -> chunk dim 1", shape,
        gridLayout(shape, {2, 2}, {0, 2, 1, 3}), chunkLayout(shape, 1, all));
    add("grid 2x1x2 -> chunk dim 1 reversed", {4, 6, 5},
        gridLayout({4, 6, 5}, {2, 1, 2}, {3, 1, 2, 0}),
        chunkLayout({4, 6, 5}, 1, reversed));
  } else if (w >= 2) {
    add("grid 2x1 -> chunk dim 1", shape, gridLayout(shape, {2, 1}, {1, 0}),
        chunkLayout(shape, 1, all));
  }
  if (w >= 3) {
    std::vector<Block> blocks(3);
    const int64_t rows[3][5] = {
        {0, 0, 0, 6, 3}, {1, 0, 3, 2, 7}, {2, 2, 3, 4, 7}};
    for (int b = 0; b < 3; ++b) {
      blocks[b].placement.rank = rows[b][0];
      blocks[b].box.offsets = {rows[b][1], rows[b][2]};
      blocks[b].box.sizes = {rows[b][3], rows[b][4]};
    }
    add("three irregular blocks -> chunk dim 0", shape, blocks,
        chunkLayout(shape, 0, all));
  }

  // Meshes [2, b] with replicas: (Shard(0), Replicate()) to one chunk per
  // rank along dim 1, to (Replicate(), Shard(0)), and to a grid that every
  // rank cuts from its own rows.
  if (w >= 2) {
    const int b = w / 2;
    const std::vector<int> mesh = ranksInOrder(2 * b, 0, w);
    std::vector<int> transposed;
    for (int j = 0; j < b; ++j) {
      transposed.push_back(j);
      transposed.push_back(b + j);
    }
    const std::vector<int64_t> meshShape{9, 7};
    add("(S0, R) -> chunk dim 1", meshShape,
        gridLayout(meshShape, {2, 1}, mesh, b),
        chunkLayout(meshShape, 1, reversed));
    add("(S0, R) -> (R, S0)", meshShape, gridLayout(meshShape, {2, 1}, mesh, b),
        gridLayout(meshShape, {b, 1}, transposed, 2));
    add("(S0, R) -> (S0, S1)", meshShape,
        gridLayout(meshShape, {2, 1}, mesh, b),
        gridLayout(meshShape, {2, b}, mesh), /*localOnly=*/true);
  }

  // 0-D tensors.
  add("0-D rank 0 -> last rank", {}, gridLayout({}, {}, {0}),
      gridLayout({}, {}, {w - 1}));
  add("0-D replicated -> last rank", {}, gridLayout({}, {}, all, w),
      gridLayout({}, {}, {w - 1}), /*localOnly=*/true);
  return cases;
}

/// The global linear index of element `index` of `box`.
int64_t globalIndexIn(const std::vector<int64_t> &shape,
                      const shardc::layout::Box &box,
                      const std::vector<int64_t> &index) {
  std::vector<int64_t> at(index);
  for (size_t d = 0; d < at.size(); ++d)
    at[d] += box.offsets[d];
  return linearIndex(at, shape);
}

void runRedistribute(const RedistributeCase &c, int rank, Tally &tally) {
  const size_t es = elementSize(c.dtype);
  const uint64_t mask = elementMask(es);
  const int mySrc = blockOf(c.src, rank), myDst = blockOf(c.dst, rank);
  const std::vector<int64_t> none(c.shape.size(), 0);
  const std::vector<int64_t> srcTable = tableOf(c.src);
  const std::vector<int64_t> dstTable = tableOf(c.dst);
  StridedBuffer src(mySrc >= 0 ? c.src[mySrc].box.sizes : none, es,
                    c.srcArrangement);
  StridedBuffer dst(myDst >= 0 ? c.dst[myDst].box.sizes : none, es,
                    c.dstArrangement);
  if (mySrc >= 0) {
    forEachIndex(src.sizes, [&](const std::vector<int64_t> &i) {
      src.set(i,
              valueBits(c.dtype, globalIndexIn(c.shape, c.src[mySrc].box, i)));
    });
  }
  if (myDst >= 0) {
    forEachIndex(dst.sizes, [&](const std::vector<int64_t> &i) {
      dst.set(i,
              ~valueBits(c.dtype, globalIndexIn(c.shape, c.dst[myDst].box, i)));
    });
  }
  shardrt_tensor s = src.tensor(c.dtype), d = dst.tensor(c.dtype);
  const shardrt_tensor *sp = &s, *dp = &d;
  if (c.nullWhenUnowned && mySrc < 0)
    sp = nullptr;
  else if (c.nullWhenUnowned && myDst < 0)
    dp = nullptr;
  const int status = shardrt_redistribute(
      sp, dp, srcTable.data(), static_cast<int64_t>(c.src.size()),
      dstTable.data(), static_cast<int64_t>(c.dst.size()));
  if (status != SHARDRT_SUCCESS) {
    tally.mismatch("redistribute " + c.name +
                   " failed: " + shardrt_last_error());
    return;
  }
  if (myDst >= 0) {
    forEachIndex(dst.sizes, [&](const std::vector<int64_t> &i) {
      ++tally.checked;
      const uint64_t expected =
          valueBits(c.dtype, globalIndexIn(c.shape, c.dst[myDst].box, i));
      const uint64_t got = dst.get(i) & mask;
      if (got != expected)
        tally.mismatch("redistribute " + c.name + ": destination element " +
                       formatIndex(i) + " holds " + std::to_string(got) +
                       ", expected " + std::to_string(expected));
    });
  }
  if (!dst.paddingIntact())
    tally.mismatch("redistribute " + c.name +
                   ": wrote outside the destination view");
  if (mySrc >= 0) {
    forEachIndex(src.sizes, [&](const std::vector<int64_t> &i) {
      if ((src.get(i) & mask) !=
          valueBits(c.dtype, globalIndexIn(c.shape, c.src[mySrc].box, i)))
        tally.mismatch("redistribute " + c.name + ": changed source element " +
                       formatIndex(i));
    });
  }
  if (!src.paddingIntact())
    tally.mismatch("redistribute " + c.name +
                   ": wrote outside the source view");

  // What the counts say: the destination block arrives whole; nothing is
  // received where every rank holds a replica of what it needs.
  int64_t received = -1, copied = -1;
  if (shardrt_redistribute_counts(
          srcTable.data(), static_cast<int64_t>(c.src.size()), dstTable.data(),
          static_cast<int64_t>(c.dst.size()),
          static_cast<int64_t>(c.shape.size()), rank, &received,
          &copied) != SHARDRT_SUCCESS) {
    tally.mismatch("redistribute_counts " + c.name +
                   " failed: " + shardrt_last_error());
    return;
  }
  int64_t volume = 0;
  if (myDst >= 0) {
    volume = 1;
    for (int64_t n : c.dst[myDst].box.sizes)
      volume *= n;
  }
  if (received + copied != volume || (c.localOnly && received != 0))
    tally.mismatch("redistribute_counts " + c.name + ": received " +
                   std::to_string(received) + ", copied " +
                   std::to_string(copied) + " of " + std::to_string(volume));
}

/// Argument errors of a redistribution that some ranks see and others do
/// not, and ranks that disagree on the tables: the call fails on every rank.
void runRedistributeErrorCases(int rank, int world, Tally &tally) {
  const std::vector<int64_t> shape{6, 10};
  const std::vector<int> all = ranksInOrder(world, 0, world);
  const std::vector<Block> src = chunkLayout(shape, 0, all);
  const std::vector<Block> dst = chunkLayout(shape, 1, all);
  const std::vector<int64_t> srcTable = tableOf(src), dstTable = tableOf(dst);
  StridedBuffer srcBuffer(src[rank].box.sizes, 8, Arrangement::Contiguous);
  std::vector<int64_t> sizes = dst[rank].box.sizes;
  const int last = world - 1;
  // The last rank passes a destination block one row too tall.
  if (rank == last)
    sizes[0] += 1;
  StridedBuffer dstBuffer(sizes, 8, Arrangement::Contiguous);
  shardrt_tensor s = srcBuffer.tensor(SHARDRT_I64);
  shardrt_tensor d = dstBuffer.tensor(SHARDRT_I64);
  int status = shardrt_redistribute(&s, &d, srcTable.data(), world,
                                    dstTable.data(), world);
  expectFailure(
      tally, "redistribute with a wrong block on one rank", status,
      rank == last
          ? "redistribute(i64, cpu, world of " + std::to_string(world) +
                " rank" + (world == 1 ? "" : "s") + "): dst_local has sizes"
          : "rank " + std::to_string(last) + " rejected its arguments");

  // Rank 0 names another destination layout.
  if (world > 1) {
    StridedBuffer good(dst[rank].box.sizes, 8, Arrangement::Contiguous);
    shardrt_tensor g = good.tensor(SHARDRT_I64);
    const std::vector<int64_t> other =
        tableOf(chunkLayout(shape, 1, ranksInOrder(world, 1, world)));
    const std::vector<int64_t> &mine = rank == 0 ? other : dstTable;
    std::vector<int64_t> otherSizes =
        rank == 0 ? dst[world - 1].box.sizes : dst[rank].box.sizes;
    StridedBuffer zeroth(otherSizes, 8, Arrangement::Contiguous);
    shardrt_tensor z = zeroth.tensor(SHARDRT_I64);
    status = shardrt_redistribute(&s, rank == 0 ? &z : &g, srcTable.data(),
                                  world, mine.data(), world);
    expectFailure(tally, "redistribute with ranks disagreeing on the tables",
                  status, "the ranks disagree on the call");
  }
}
} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  if (shardrt_rank() != rank || shardrt_world_size() != world) {
    std::printf("rank %d: shardrt reports rank %d of %d\n", rank,
                shardrt_rank(), shardrt_world_size());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  Tally tally;
  tally.rank = rank;
  const double start = MPI_Wtime();
  for (const Case &c : buildCases(world)) {
    ++tally.cases;
    runAllGather(c, rank, tally);
    runScatter(c, rank, tally);
  }
  for (const RedistributeCase &c : buildRedistributeCases(world)) {
    ++tally.cases;
    runRedistribute(c, rank, tally);
  }
  runErrorCases(rank, world, tally);
  runRedistributeErrorCases(rank, world, tally);
  // The communicator is still in step after the errors.
  std::vector<Case> again = buildCases(world);
  ++tally.cases;
  runAllGather(again[1], rank, tally);
  ++tally.cases;
  runRedistribute(buildRedistributeCases(world)[0], rank, tally);
  const double seconds = MPI_Wtime() - start;

  if (tally.mismatches == 0)
    std::printf("rank %d: %d cases, %lld elements checked, OK (%.2f s)\n", rank,
                tally.cases, static_cast<long long>(tally.checked), seconds);
  else
    std::printf("rank %d: %d cases, %lld elements checked, %d MISMATCHES\n",
                rank, tally.cases, static_cast<long long>(tally.checked),
                tally.mismatches);
  std::fflush(stdout);

  int failed = tally.mismatches > 0, anyFailed = 0;
  MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  shardrt_finalize();
  MPI_Finalize();
  return anyFailed ? 1 : 0;
}
