//===- MpiTest.cpp - all_gather and scatter across ranks ------------------===//
//
// Run under mpirun with any number of ranks. Every rank builds the same list
// of cases: chunk layouts (torch.chunk semantics from the layout library) of
// 0-D to 3-D tensors along every dim, uneven and empty chunks, owners in
// several orders, layouts over fewer ranks than the world, every dtype, and
// global and local views that are contiguous, padded, transposed or reversed.
// Every element is checked against a value computed from its global index.
// Then argument errors seen by one rank only, or by ranks that disagree, must
// fail the call on every rank without hanging. Each rank prints one line; the
// exit status is non-zero when any rank saw a mismatch.
//
//===----------------------------------------------------------------------===//

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

std::vector<int64_t> tableOf(const std::vector<Block> &blocks) {
  std::vector<int64_t> table;
  for (const Block &b : blocks) {
    table.push_back(b.placement.rank);
    table.insert(table.end(), b.box.offsets.begin(), b.box.offsets.end());
    table.insert(table.end(), b.box.sizes.begin(), b.box.sizes.end());
  }
  return table;
}

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
int ownedBlock(const Case &c, int rank) {
  for (size_t b = 0; b < c.blocks.size(); ++b) {
    if (c.blocks[b].placement.rank == rank)
      return static_cast<int>(b);
  }
  return -1;
}

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
  runErrorCases(rank, world, tally);
  // The communicator is still in step after the errors.
  std::vector<Case> again = buildCases(world);
  ++tally.cases;
  runAllGather(again[1], rank, tally);
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
