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
// Redistributions of partial values (DTensor's Partial): all_reduce and
// reduce_scatter on a mesh [G], (S(0), P) and (R, P) on 2-D meshes, with
// every op and several dtypes, checked against the reduction computed from
// the partial indices of the blocks that hold each element.
// Then argument errors seen by one rank only, or by ranks that disagree, must
// fail the call on every rank without hanging. Checkpoint reshards with
// several blocks per rank go through shardrt_redistribute_packed. Every case
// runs twice, the second time from the runtime's cache of checked calls. Each
// rank prints one line; the exit status is non-zero when any rank saw a
// mismatch.
//
//===----------------------------------------------------------------------===//

#include "Layouts.h"
#include "TestSupport.h"
#include "shardc/Layout/Layout.h"
#include "shardrt.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

/// shardrt_all_gather or (`toWorld`) shardrt_exchange_to_world, which must
/// leave the same whole tensor on every rank.
void runAllGather(const Case &c, int rank, Tally &tally, bool toWorld = false) {
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
  const std::string name =
      std::string(toWorld ? "exchange_to_world " : "all_gather ") + c.name;
  int status =
      toWorld ? shardrt_exchange_to_world(mine >= 0 ? &l : nullptr, &g,
                                          table.data(),
                                          static_cast<int64_t>(c.blocks.size()))
              : shardrt_all_gather(mine >= 0 ? &l : nullptr, &g, table.data(),
                                   static_cast<int64_t>(c.blocks.size()));
  if (status != SHARDRT_SUCCESS) {
    tally.mismatch(name + " failed: " + shardrt_last_error());
    return;
  }
  const uint64_t mask = elementMask(es);
  forEachIndex(c.shape, [&](const std::vector<int64_t> &i) {
    ++tally.checked;
    const uint64_t expected = valueBits(c.dtype, linearIndex(i, c.shape));
    const uint64_t got = global.get(i) & mask;
    if (got != expected)
      tally.mismatch(name + ": element " + formatIndex(i) + " holds " +
                     std::to_string(got) + ", expected " +
                     std::to_string(expected));
  });
  if (!global.paddingIntact())
    tally.mismatch(name + ": wrote outside the global view");
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

/// How a disagreement's message ends: the ranks learn of it before any data
/// moves when they agree by an MPI_Allreduce (SHARDRT_AGREE=allreduce or
/// first-call, or worlds of over 16 ranks), within the call's messages
/// otherwise.
std::string afterDisagreement(int world) {
  const char *agree = std::getenv("SHARDRT_AGREE");
  const bool allreduce =
      world > 16 || (agree && *agree && std::string(agree) != "every-call");
  return allreduce ? "no data was moved"
                   : "the destination buffers hold undefined values";
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
                  world == 2 ? "the ranks disagree on the call: rank 1 differs "
                               "from rank 0 in the root (1 vs 0)"
                             : "the ranks disagree on the call: rank 0 differs "
                               "from ranks 1, 2");
  }

  // Ranks call different collectives on the same layout: rank 0 scatters
  // while the others gather (in-message checks see the other call's
  // messages, of other sizes, under other tags).
  if (world > 1) {
    status = rank == 0 ? shardrt_scatter(&g, &gl, table.data(), world, 0)
                       : shardrt_all_gather(&gl, &g, table.data(), world);
    expectFailure(tally, "scatter on rank 0, all_gather on the others", status,
                  world == 2 ? "the ranks disagree on the call: rank 1 "
                               "differs from rank 0 in the collective"
                             : "the ranks disagree on the call: rank 0 "
                               "differs from ranks 1");
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
                                  SHARDRT_I32, SHARDRT_U8,   SHARDRT_I16,
                                  SHARDRT_U16, SHARDRT_U32,  SHARDRT_U64};
  const Arrangement arrangements[] = {
      Arrangement::Contiguous, Arrangement::Padded, Arrangement::Transposed,
      Arrangement::Reversed};
  std::vector<RedistributeCase> cases;
  int serial = 0;
  auto add = [&](const std::string &what, const std::vector<int64_t> &shape,
                 std::vector<Block> src, std::vector<Block> dst,
                 bool localOnly = false) {
    RedistributeCase c;
    c.dtype = dtypes[serial % std::size(dtypes)];
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
  expectFailure(tally, "redistribute with a wrong block on one rank", status,
                rank == last
                    ? "redistribute(i64, " + kDeviceName + ", world of " +
                          std::to_string(world) + " rank" +
                          (world == 1 ? "" : "s") + "): dst_local has sizes"
                    : "rank " + std::to_string(last) +
                          " rejected its arguments");

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
                  status, "in the destination block table (");
  }
}
/// A redistribution of partial values: a source layout whose blocks carry
/// partial indices, and a reduction.
struct ReduceCase {
  std::string name;
  shardrt_dtype dtype;
  shardrt_reduce op;
  std::vector<int64_t> shape;
  std::vector<Block> src;
  std::vector<int64_t> partial;
  std::vector<Block> dst;
  Arrangement srcArrangement;
  Arrangement dstArrangement;
  bool nullWhenUnowned;
};

/// The mesh [a, b] of a world (ranks row-major, rank = i * b + j): a = 2
/// when the world has at least 4 ranks, else 1.
void meshOf(int world, int &a, int &b) {
  a = world >= 4 ? 2 : 1;
  b = world / a;
}

/// The partial value that partial index `c` holds at global linear index
/// `n`: n + 1000 c where the dtype holds it (sum: G n + 1000 G (G - 1) / 2
/// over partial indices 0 .. G-1), smaller for 8-bit and 16-bit dtypes so
/// that every result is exact; 1 or 2 for product.
double partialValue(shardrt_dtype dtype, shardrt_reduce op, int64_t n,
                    int64_t c) {
  if (op == SHARDRT_PRODUCT)
    return static_cast<double>(1 + (n + c) % 2);
  if (dtype == SHARDRT_F32 || dtype == SHARDRT_F64 || dtype == SHARDRT_I32 ||
      dtype == SHARDRT_I64)
    return static_cast<double>(n + 1000 * c);
  return static_cast<double>(n % 5 + 2 * (c % 8));
}

/// The reduction cases, identical on every rank.
std::vector<ReduceCase> buildReduceCases(int world) {
  const Arrangement arrangements[] = {
      Arrangement::Contiguous, Arrangement::Padded, Arrangement::Transposed,
      Arrangement::Reversed};
  std::vector<ReduceCase> cases;
  int serial = 0;
  auto add = [&](const std::string &what, shardrt_dtype dtype,
                 shardrt_reduce op, const std::vector<int64_t> &shape,
                 std::vector<Block> src, std::vector<int64_t> partial,
                 std::vector<Block> dst) {
    static const char *ops[] = {"sum", "avg", "max", "min", "product"};
    ReduceCase c;
    c.dtype = dtype;
    c.op = op;
    c.shape = shape;
    c.src = std::move(src);
    c.partial = std::move(partial);
    c.dst = std::move(dst);
    c.srcArrangement = arrangements[serial % 4];
    c.dstArrangement = arrangements[(serial / 4 + serial + 1) % 4];
    c.nullWhenUnowned = serial % 2 == 1;
    c.name = std::string(dtypeName(dtype)) + " " + formatIndex(shape) + " " +
             what + " (" + ops[op] + ", src " +
             arrangementName(c.srcArrangement) + ", dst " +
             arrangementName(c.dstArrangement) + ")";
    cases.push_back(std::move(c));
    ++serial;
  };
  const int w = world;
  const std::vector<int> all = ranksInOrder(w, 0, w);
  const std::vector<int> reversed = ranksInOrder(w, 1, w);
  const std::vector<int> fewer = ranksInOrder(std::max(w - 1, 1), 2, w);
  std::vector<int64_t> byRank(w);
  for (int r = 0; r < w; ++r)
    byRank[r] = r;

  // P on a mesh [w]: every rank holds the whole tensor, partial index =
  // rank. To replicated (all_reduce) and chunked (reduce_scatter).
  const std::vector<int64_t> shape{5, 7};
  auto partialOnAll = [&](const std::vector<int64_t> &s) {
    return gridLayout(s, std::vector<int64_t>(s.size(), 1), all, w);
  };
  for (shardrt_dtype dtype :
       {SHARDRT_F32, SHARDRT_F64, SHARDRT_I32, SHARDRT_I64, SHARDRT_BF16}) {
    add("P -> R (all_reduce)", dtype, SHARDRT_SUM, shape, partialOnAll(shape),
        byRank, partialOnAll(shape));
    add("P -> chunk dim 0 (reduce_scatter)", dtype, SHARDRT_SUM, {9, 4},
        partialOnAll({9, 4}), byRank, chunkLayout({9, 4}, 0, all));
    add("P -> chunk dim 1 reversed (reduce_scatter)", dtype, SHARDRT_SUM,
        {3, 10}, partialOnAll({3, 10}), byRank,
        chunkLayout({3, 10}, 1, reversed));
  }
  add("P -> R", SHARDRT_F32, SHARDRT_AVG, shape, partialOnAll(shape), byRank,
      partialOnAll(shape));
  add("P -> chunk dim 0", SHARDRT_BF16, SHARDRT_AVG, {6, 3},
      partialOnAll({6, 3}), byRank, chunkLayout({6, 3}, 0, reversed));
  add("P -> chunk dim 1", SHARDRT_I32, SHARDRT_AVG, {4, 9},
      partialOnAll({4, 9}), byRank, chunkLayout({4, 9}, 1, all));
  add("P -> R", SHARDRT_I64, SHARDRT_MIN, shape, partialOnAll(shape), byRank,
      partialOnAll(shape));
  add("P -> chunk dim 0", SHARDRT_F64, SHARDRT_MIN, {7}, partialOnAll({7}),
      byRank, chunkLayout({7}, 0, reversed));
  add("P -> R", SHARDRT_F32, SHARDRT_PRODUCT, shape, partialOnAll(shape),
      byRank, partialOnAll(shape));
  add("P -> chunk dim 1", SHARDRT_BF16, SHARDRT_PRODUCT, {2, 11},
      partialOnAll({2, 11}), byRank, chunkLayout({2, 11}, 1, all));
  add("P -> R", SHARDRT_I8, SHARDRT_SUM, {3, 3}, partialOnAll({3, 3}), byRank,
      partialOnAll({3, 3}));
  add("P -> chunk dim 0", SHARDRT_U8, SHARDRT_MAX, {5}, partialOnAll({5}),
      byRank, chunkLayout({5}, 0, all));
  add("P -> chunk dim 0", SHARDRT_F16, SHARDRT_SUM, {6, 2},
      partialOnAll({6, 2}), byRank, chunkLayout({6, 2}, 0, reversed));

  // Partial indices that are not 0 .. G-1, in another order than the ranks;
  // a source over fewer ranks than the world (one rank holds nothing) to a
  // destination over all; a destination over fewer ranks.
  std::vector<int64_t> scattered(w);
  for (int r = 0; r < w; ++r)
    scattered[r] = 7 * ((r + 1) % w) + 3;
  add("P (scattered indices) -> chunk dim 1", SHARDRT_I64, SHARDRT_SUM, {4, 6},
      partialOnAll({4, 6}), scattered, chunkLayout({4, 6}, 1, reversed));
  const int f = static_cast<int>(fewer.size());
  add("P over fewer -> chunk dim 0", SHARDRT_F32, SHARDRT_SUM, {8, 3},
      gridLayout({8, 3}, {1, 1}, fewer, f),
      std::vector<int64_t>(byRank.begin(), byRank.begin() + f),
      chunkLayout({8, 3}, 0, all));
  add("P -> R over fewer", SHARDRT_I32, SHARDRT_MAX, {3, 5},
      partialOnAll({3, 5}), byRank, gridLayout({3, 5}, {1, 1}, fewer, f));
  // All partial indices alike: a plain redistribution.
  add("one partial index: chunk dim 0 -> chunk dim 1", SHARDRT_F64, SHARDRT_SUM,
      {6, 10}, chunkLayout({6, 10}, 0, all), std::vector<int64_t>(w, 0),
      chunkLayout({6, 10}, 1, reversed));
  add("one partial index: R -> chunk dim 0", SHARDRT_I32, SHARDRT_PRODUCT,
      {5, 3}, partialOnAll({5, 3}), std::vector<int64_t>(w, 4),
      chunkLayout({5, 3}, 0, reversed));

  // Meshes [a, b] (rank i * b + j). (S(0), P): mesh row i holds row chunk
  // i, partial index j; to (S(0), R) and to (R, S(1)).
  int a = 1, b = 1;
  meshOf(w, a, b);
  const std::vector<int> mesh = ranksInOrder(a * b, 0, w);
  std::vector<int64_t> column(a * b);
  for (int r = 0; r < a * b; ++r)
    column[r] = r % b;
  // The ranks of mesh column j, for j in order: cells of (R, S(1)).
  std::vector<int> byColumn;
  for (int j = 0; j < b; ++j)
    for (int i = 0; i < a; ++i)
      byColumn.push_back(i * b + j);
  const std::vector<int64_t> meshShape{7, 6};
  for (shardrt_dtype dtype : {SHARDRT_I64, SHARDRT_BF16, SHARDRT_F32}) {
    add("(S0, P) -> (S0, R)", dtype, SHARDRT_SUM, meshShape,
        gridLayout(meshShape, {a, 1}, mesh, b), column,
        gridLayout(meshShape, {a, 1}, mesh, b));
    add("(S0, P) -> (R, S1)", dtype, SHARDRT_SUM, meshShape,
        gridLayout(meshShape, {a, 1}, mesh, b), column,
        gridLayout(meshShape, {1, b}, byColumn, a));
  }
  add("(S0, P) -> (S0, R)", SHARDRT_F64, SHARDRT_PRODUCT, meshShape,
      gridLayout(meshShape, {a, 1}, mesh, b), column,
      gridLayout(meshShape, {a, 1}, mesh, b));
  add("(S0, P) -> (R, S1)", SHARDRT_F32, SHARDRT_AVG, meshShape,
      gridLayout(meshShape, {a, 1}, mesh, b), column,
      gridLayout(meshShape, {1, b}, byColumn, a));
  // (R, P): everybody holds the whole tensor, partial index j, with a
  // replicas of each (the mesh rows): to a chunk per rank and replicated.
  for (shardrt_reduce op : {SHARDRT_MAX, SHARDRT_SUM, SHARDRT_AVG}) {
    add("(R, P) -> chunk dim 0", op == SHARDRT_SUM ? SHARDRT_I32 : SHARDRT_F32,
        op, {9, 5}, gridLayout({9, 5}, {1, 1}, mesh, a * b), column,
        chunkLayout({9, 5}, 0, reversed));
    add("(R, P) -> R", op == SHARDRT_SUM ? SHARDRT_BF16 : SHARDRT_I64, op,
        {4, 4}, gridLayout({4, 4}, {1, 1}, mesh, a * b), column,
        gridLayout({4, 4}, {1, 1}, all, w));
  }
  add("(R, P) -> (S0, S1)", SHARDRT_F64, SHARDRT_MIN, meshShape,
      gridLayout(meshShape, {1, 1}, mesh, a * b), column,
      gridLayout(meshShape, {a, b}, mesh));
  // 0-D: partial on every rank, to the last rank.
  add("0-D P -> last rank", SHARDRT_F32, SHARDRT_SUM, {}, partialOnAll({}),
      byRank, gridLayout({}, {}, {w - 1}));
  return cases;
}

/// The expected value at global linear index `n` of a destination element
/// whose source blocks carry the partial indices `indices`.
double expectedValue(const ReduceCase &c, int64_t n,
                     const std::vector<int64_t> &indices) {
  double v = partialValue(c.dtype, c.op, n, indices[0]);
  for (size_t k = 1; k < indices.size(); ++k) {
    const double x = partialValue(c.dtype, c.op, n, indices[k]);
    switch (c.op) {
    case SHARDRT_SUM:
    case SHARDRT_AVG:
      v += x;
      break;
    case SHARDRT_MAX:
      v = std::max(v, x);
      break;
    case SHARDRT_MIN:
      v = std::min(v, x);
      break;
    case SHARDRT_PRODUCT:
      v *= x;
      break;
    }
  }
  if (c.op == SHARDRT_AVG) {
    v /= static_cast<double>(indices.size());
    const bool integer = c.dtype >= SHARDRT_I8;
    if (integer)
      v = std::trunc(v);
  }
  return v;
}

/// Whether `box` holds the element at global `index`.
bool boxHolds(const shardc::layout::Box &box,
              const std::vector<int64_t> &index) {
  if (box.empty())
    return false;
  for (size_t d = 0; d < index.size(); ++d) {
    if (index[d] < box.offsets[d] || index[d] >= box.offsets[d] + box.sizes[d])
      return false;
  }
  return true;
}

void runReduce(const ReduceCase &c, int rank, Tally &tally) {
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
      const int64_t n = globalIndexIn(c.shape, c.src[mySrc].box, i);
      src.set(i, exactBits(c.dtype,
                           partialValue(c.dtype, c.op, n, c.partial[mySrc])));
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
  const int status = shardrt_redistribute_reduce(
      sp, dp, srcTable.data(), static_cast<int64_t>(c.src.size()),
      c.partial.data(), dstTable.data(), static_cast<int64_t>(c.dst.size()),
      c.op);
  if (status != SHARDRT_SUCCESS) {
    tally.mismatch("redistribute_reduce " + c.name +
                   " failed: " + shardrt_last_error());
    return;
  }
  // Every element: the reduction over the partial indices of the source
  // blocks that hold it; the number of contributions for the counts.
  int64_t contributions = 0;
  if (myDst >= 0) {
    forEachIndex(dst.sizes, [&](const std::vector<int64_t> &i) {
      ++tally.checked;
      std::vector<int64_t> at(i);
      for (size_t k = 0; k < at.size(); ++k)
        at[k] += c.dst[myDst].box.offsets[k];
      std::vector<int64_t> indices;
      for (size_t b = 0; b < c.src.size(); ++b) {
        if (boxHolds(c.src[b].box, at) &&
            std::find(indices.begin(), indices.end(), c.partial[b]) ==
                indices.end())
          indices.push_back(c.partial[b]);
      }
      contributions += static_cast<int64_t>(indices.size());
      const int64_t n = linearIndex(at, c.shape);
      const uint64_t expected =
          exactBits(c.dtype, expectedValue(c, n, indices));
      const uint64_t got = dst.get(i) & mask;
      if (got != expected)
        tally.mismatch("redistribute_reduce " + c.name +
                       ": destination element " + formatIndex(i) + " holds " +
                       std::to_string(got) + ", expected " +
                       std::to_string(expected));
    });
  }
  if (!dst.paddingIntact())
    tally.mismatch("redistribute_reduce " + c.name +
                   ": wrote outside the destination view");
  if (mySrc >= 0) {
    forEachIndex(src.sizes, [&](const std::vector<int64_t> &i) {
      const int64_t n = globalIndexIn(c.shape, c.src[mySrc].box, i);
      if ((src.get(i) & mask) !=
          exactBits(c.dtype, partialValue(c.dtype, c.op, n, c.partial[mySrc])))
        tally.mismatch("redistribute_reduce " + c.name +
                       ": changed source element " + formatIndex(i));
    });
  }
  if (!src.paddingIntact())
    tally.mismatch("redistribute_reduce " + c.name +
                   ": wrote outside the source view");

  int64_t received = -1, copied = -1;
  if (shardrt_redistribute_reduce_counts(
          srcTable.data(), static_cast<int64_t>(c.src.size()), c.partial.data(),
          dstTable.data(), static_cast<int64_t>(c.dst.size()),
          static_cast<int64_t>(c.shape.size()), rank, &received,
          &copied) != SHARDRT_SUCCESS) {
    tally.mismatch("redistribute_reduce_counts " + c.name +
                   " failed: " + shardrt_last_error());
    return;
  }
  if (received + copied != contributions)
    tally.mismatch("redistribute_reduce_counts " + c.name + ": received " +
                   std::to_string(received) + ", copied " +
                   std::to_string(copied) + " but the destination combines " +
                   std::to_string(contributions) + " partial values");
}

/// Argument errors of a reduction seen by one rank, and ranks that disagree
/// on the partial indices or the op: the call fails on every rank.
void runReduceErrorCases(int rank, int world, Tally &tally) {
  const std::vector<int64_t> shape{4, 6};
  const std::vector<int> all = ranksInOrder(world, 0, world);
  const std::vector<Block> src = gridLayout(shape, {1, 1}, all, world);
  const std::vector<Block> dst = chunkLayout(shape, 1, all);
  const std::vector<int64_t> srcTable = tableOf(src), dstTable = tableOf(dst);
  std::vector<int64_t> partial(world);
  for (int r = 0; r < world; ++r)
    partial[r] = r;
  StridedBuffer srcBuffer(shape, 4, Arrangement::Contiguous);
  StridedBuffer dstBuffer(dst[rank].box.sizes, 4, Arrangement::Contiguous);
  shardrt_tensor s = srcBuffer.tensor(SHARDRT_F32);
  shardrt_tensor d = dstBuffer.tensor(SHARDRT_F32);
  const int last = world - 1;
  const std::string world_ =
      "world of " + std::to_string(world) + " rank" + (world == 1 ? "" : "s");

  // The last rank passes an unknown op.
  int status = shardrt_redistribute_reduce(
      &s, &d, srcTable.data(), world, partial.data(), dstTable.data(), world,
      rank == last ? 11 : SHARDRT_SUM);
  expectFailure(tally, "redistribute_reduce with a bad op on one rank", status,
                rank == last
                    ? "redistribute_reduce(f32, " + kDeviceName + ", " +
                          world_ + ", op 11): unknown reduction op 11"
                    : "rank " + std::to_string(last) +
                          " rejected its arguments");
  // The last rank passes a negative partial index.
  std::vector<int64_t> bad = partial;
  if (rank == last)
    bad[0] = -3;
  status =
      shardrt_redistribute_reduce(&s, &d, srcTable.data(), world, bad.data(),
                                  dstTable.data(), world, SHARDRT_MAX);
  expectFailure(tally, "redistribute_reduce with a negative partial index",
                status,
                rank == last ? "op max): source block 0 has partial index -3"
                             : "rank " + std::to_string(last) +
                                   " rejected its arguments");
  if (world > 1) {
    // Rank 0 passes other partial indices, then another op.
    std::vector<int64_t> other = partial;
    if (rank == 0)
      other[1] = 0;
    status = shardrt_redistribute_reduce(&s, &d, srcTable.data(), world,
                                         other.data(), dstTable.data(), world,
                                         SHARDRT_SUM);
    expectFailure(tally,
                  "redistribute_reduce with ranks disagreeing on the partial "
                  "indices",
                  status,
                  std::string("in the partial indices; ") +
                      afterDisagreement(world));
    status = shardrt_redistribute_reduce(&s, &d, srcTable.data(), world,
                                         partial.data(), dstTable.data(), world,
                                         rank == 0 ? SHARDRT_MIN : SHARDRT_SUM);
    expectFailure(tally, "redistribute_reduce with ranks disagreeing on the op",
                  status,
                  world == 2 ? "rank 1 differs from rank 0 in the reduction op "
                               "(sum vs min)"
                             : "rank 0 differs from ranks 1, 2");
  }
}

} // namespace

/// Several blocks per rank (shardrt_redistribute_packed): a checkpoint
/// reshard from one grid of blocks to another, owners dealt round-robin so
/// that every rank holds several blocks of each, and its reducing form.
struct PackedCase {
  std::string name;
  shardrt_dtype dtype;
  std::vector<int64_t> shape;
  std::vector<Block> src, dst;
  /// Reducing: the partial index of every source block (sum).
  std::vector<int64_t> partial;
};

std::vector<Block> dealt(std::vector<Block> blocks, int stride, int first,
                         int world) {
  for (size_t b = 0; b < blocks.size(); ++b)
    blocks[b].placement.rank =
        static_cast<int>((first + static_cast<int64_t>(b) * stride) % world);
  return blocks;
}

std::vector<PackedCase> buildPackedCases(int world) {
  std::vector<PackedCase> cases;
  const std::vector<int> zeros(64, 0);
  const std::vector<int64_t> shape{13, 10};
  cases.push_back({"grid 4x3 -> grid 2x5, dealt",
                   SHARDRT_F32,
                   shape,
                   dealt(gridLayout(shape, {4, 3}, zeros), 1, 0, world),
                   dealt(gridLayout(shape, {2, 5}, zeros), 3, 1, world),
                   {}});
  cases.push_back({"7 row chunks dealt -> grid 3x3 dealt backwards",
                   SHARDRT_BF16,
                   shape,
                   dealt(gridLayout(shape, {7, 1}, zeros), 2, 0, world),
                   dealt(gridLayout(shape, {3, 3}, zeros), world - 1, 0, world),
                   {}});
  const std::vector<int64_t> cube{5, 4, 6};
  cases.push_back({"3-D grid 2x2x3 -> one block per rank (dim 2)",
                   SHARDRT_I64,
                   cube,
                   dealt(gridLayout(cube, {2, 2, 3}, zeros), 1, 0, world),
                   dealt(gridLayout(cube, {1, 1, world}, zeros), 1, 0, world),
                   {}});
  if (world > 1) {
    // Every row block as two partial copies on consecutive ranks.
    std::vector<Block> rows = gridLayout(shape, {6, 1}, zeros), src;
    std::vector<int64_t> partial;
    for (size_t b = 0; b < rows.size(); ++b) {
      for (int p = 0; p < 2; ++p) {
        Block block = rows[b];
        block.placement.rank = static_cast<int>((b + p) % world);
        src.push_back(block);
        partial.push_back(p);
      }
    }
    cases.push_back(
        {"partial row blocks (sum) -> grid 2x5 dealt", SHARDRT_I32, shape, src,
         dealt(gridLayout(shape, {2, 5}, zeros), 1, 0, world), partial});
  }
  return cases;
}

void runPacked(const PackedCase &c, int rank, Tally &tally) {
  const size_t es = elementSize(c.dtype);
  const uint64_t mask = elementMask(es);
  auto mine = [&](const std::vector<Block> &blocks) {
    std::vector<size_t> out;
    for (size_t b = 0; b < blocks.size(); ++b)
      if (blocks[b].placement.rank == rank)
        out.push_back(b);
    return out;
  };
  // Source: each block row-major, one after the other; partial copies other
  // than 0 hold zeros.
  std::vector<uint64_t> srcBits, dstBits;
  for (size_t b : mine(c.src)) {
    const bool zero = !c.partial.empty() && c.partial[b] != 0;
    forEachIndex(c.src[b].box.sizes, [&](const std::vector<int64_t> &i) {
      srcBits.push_back(
          zero ? 0
               : valueBits(c.dtype, globalIndexIn(c.shape, c.src[b].box, i)));
    });
  }
  int64_t dstCount = 0;
  for (size_t b : mine(c.dst))
    dstCount += *shardc::layout::volume(c.dst[b].box.sizes);
  std::vector<char, TestAllocator<char>> src(srcBits.size() * es),
      dst(dstCount * es, '\x5a');
  for (size_t i = 0; i < srcBits.size(); ++i)
    std::memcpy(src.data() + i * es, &srcBits[i], es);
  const std::vector<int64_t> srcTable = tableOf(c.src),
                             dstTable = tableOf(c.dst);
  const int64_t rankOfTensor = static_cast<int64_t>(c.shape.size());
  const int status =
      c.partial.empty()
          ? shardrt_redistribute_packed(
                src.empty() ? nullptr : src.data(),
                dst.empty() ? nullptr : dst.data(), c.dtype, kTestDevice,
                rankOfTensor, srcTable.data(),
                static_cast<int64_t>(c.src.size()), dstTable.data(),
                static_cast<int64_t>(c.dst.size()))
          : shardrt_redistribute_reduce_packed(
                src.empty() ? nullptr : src.data(),
                dst.empty() ? nullptr : dst.data(), c.dtype, kTestDevice,
                rankOfTensor, srcTable.data(),
                static_cast<int64_t>(c.src.size()), c.partial.data(),
                dstTable.data(), static_cast<int64_t>(c.dst.size()),
                SHARDRT_SUM);
  if (status != SHARDRT_SUCCESS) {
    tally.mismatch("packed " + c.name + " failed: " + shardrt_last_error());
    return;
  }
  int64_t at = 0;
  for (size_t b : mine(c.dst)) {
    forEachIndex(c.dst[b].box.sizes, [&](const std::vector<int64_t> &i) {
      ++tally.checked;
      uint64_t got = 0;
      std::memcpy(&got, dst.data() + at * es, es);
      ++at;
      const uint64_t expected =
          valueBits(c.dtype, globalIndexIn(c.shape, c.dst[b].box, i));
      if ((got & mask) != expected)
        tally.mismatch("packed " + c.name + ": destination block " +
                       std::to_string(b) + " element " + formatIndex(i) +
                       " holds " + std::to_string(got & mask) + ", expected " +
                       std::to_string(expected));
    });
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
#ifdef SHARDRT_TEST_DEVICE_CUDA
  // Each rank on its GPU (its rank on the node modulo the GPUs it sees), as
  // the runtime picks it, before any buffer is allocated.
  {
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                        MPI_INFO_NULL, &node);
    int local = 0, gpus = 0;
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0 ||
        cudaSetDevice(local % gpus) != cudaSuccess) {
      std::printf("rank %d: no CUDA device (MISMATCH)\n", rank);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
#endif
  if (shardrt_rank() != rank || shardrt_world_size() != world) {
    std::printf("rank %d: shardrt reports rank %d of %d\n", rank,
                shardrt_rank(), shardrt_world_size());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  Tally tally;
  tally.rank = rank;
  const double start = MPI_Wtime();
  // Every case runs twice: the second call finds the first one's checked
  // call and plan in the runtime's cache and must move the data of its own
  // buffers (allocated anew, at other addresses while `shift` lives).
  auto twice = [&](auto &&run) {
    run();
    std::vector<char> shift(4096 + 64 * (tally.cases % 7));
    run();
  };
  for (const Case &c : buildCases(world)) {
    ++tally.cases;
    twice([&] {
      runAllGather(c, rank, tally);
      runAllGather(c, rank, tally, /*toWorld=*/true);
      runScatter(c, rank, tally);
    });
  }
  for (const RedistributeCase &c : buildRedistributeCases(world)) {
    ++tally.cases;
    twice([&] { runRedistribute(c, rank, tally); });
  }
  for (const ReduceCase &c : buildReduceCases(world)) {
    ++tally.cases;
    twice([&] { runReduce(c, rank, tally); });
  }
  for (const PackedCase &c : buildPackedCases(world)) {
    ++tally.cases;
    twice([&] { runPacked(c, rank, tally); });
  }
  // Under SHARDRT_AGREE=first-call, repeats of agreed calls skip the
  // agreement: argument errors of one rank then end in the timeout, not in
  // an error on every rank (TimeoutTest covers that).
  const char *agree = std::getenv("SHARDRT_AGREE");
  if (!agree || std::string(agree) != "first-call") {
    runErrorCases(rank, world, tally);
    runRedistributeErrorCases(rank, world, tally);
    runReduceErrorCases(rank, world, tally);
  }
  // The communicator is still in step after the errors.
  std::vector<Case> again = buildCases(world);
  ++tally.cases;
  runAllGather(again[1], rank, tally);
  ++tally.cases;
  runRedistribute(buildRedistributeCases(world)[0], rank, tally);
  ++tally.cases;
  runReduce(buildReduceCases(world)[0], rank, tally);
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
