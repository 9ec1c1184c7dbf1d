//===- RuntimeOverhead.cpp - shardrt calls against the raw MPI calls ------===//
//
// Run under mpirun (2 ranks for the figures in the docs; any number works).
// For all_gather, all_to_all (even and uneven blocks) and reduce_scatter, at
// several sizes per rank, times the runtime's call and the MPI call a user
// would write for the same data on the same buffers: MPI_Allgather,
// MPI_Alltoall, MPI_Alltoallv and MPI_Reduce_scatter_block (reduce_scatter
// as the compiler emits it, a group collective over the world; and the
// general exchange's reduction, the fallback where no named collective
// fits, against the same raw call). On 4 ranks also
// all_gather, reduce_scatter and all_reduce over one axis of a 2x2 mesh
// (shardrt_group_collective) against the same MPI collective on the axis
// group's sub-communicator. Both are warmed
// up, then timed in alternation: each sample is a batch of calls between
// barriers, its time the slowest rank's. Prints medians per call and their
// ratio; for the named collectives also the floor (the raw call after one
// MPI_Allreduce of the agreement's 40 bytes over the world: what checking
// every rank's agreement before the data moves costs at least) and the
// runtime's ratio to it. The runtime's calls include everything it does per
// call: recognizing the cached call, the ranks' agreement (in the messages'
// tags, or an MPI_Allreduce under SHARDRT_AGREE=allreduce) and the watchdog.
//
//   mpirun -np 2 shardrt-bench-overhead [--samples N] [--sizes 8,65536,...]
//                                       [--only uneven]
//
// Before timing, the runtime's result is checked against the raw call's.
//
//===----------------------------------------------------------------------===//

#include "shardrt.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

struct Options {
  int samples = 41;
  std::vector<int64_t> sizes = {8, 64 << 10, 1 << 20, 16 << 20};
  /// Only the collectives whose name contains this.
  std::string only;
};

/// One benchmark: the runtime's call and the raw MPI call on the same
/// buffers: both read the same source and write the same result buffer.
struct Pair {
  std::string name;
  int64_t bytesPerRank;
  std::function<int()> runtime;
  std::function<int()> raw;
  void *result;
  size_t resultBytes;
  /// For the named collectives, whose data moves in MPI collectives that
  /// cannot carry the ranks' agreement: the raw call after one
  /// MPI_Allreduce of the agreement's size (five 64-bit values) over the
  /// world, the least that checking every rank's agreement first costs.
  std::function<int()> floor = nullptr;
};

double now() { return MPI_Wtime(); }

/// Times `calls` calls of `f` between barriers; the slowest rank's seconds.
double batch(const std::function<int()> &f, int calls) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = now();
  for (int i = 0; i < calls; ++i) {
    if (f() != 0) {
      std::fprintf(stderr, "call failed: %s\n", shardrt_last_error());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  double mine = now() - start, slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string formatBytes(int64_t b) {
  if (b >= (1 << 20) && b % (1 << 20) == 0)
    return std::to_string(b >> 20) + " MiB";
  if (b >= 1024 && b % 1024 == 0)
    return std::to_string(b >> 10) + " KiB";
  return std::to_string(b) + " B";
}

/// Elements of 4 bytes (f32) when `bytes` allows, else bytes (ui8).
struct Elements {
  shardrt_dtype dtype;
  MPI_Datatype mpiType;
  int64_t count;
  size_t size;
};
Elements elementsOf(int64_t bytes) {
  if (bytes % 4 == 0)
    return {SHARDRT_F32, MPI_FLOAT, bytes / 4, 4};
  return {SHARDRT_U8, MPI_UINT8_T, bytes, 1};
}

/// Fills a buffer with values that differ per rank and position.
void fill(std::vector<char> &buffer, int rank) {
  for (size_t i = 0; i < buffer.size(); ++i)
    buffer[i] = static_cast<char>((i * 7 + rank * 13) & 0x3f);
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--samples" && i + 1 < argc) {
      options.samples = std::max(3, std::atoi(argv[++i]));
    } else if (arg == "--sizes" && i + 1 < argc) {
      options.sizes.clear();
      for (char *s = std::strtok(argv[++i], ","); s;
           s = std::strtok(nullptr, ","))
        options.sizes.push_back(std::atoll(s));
    } else if (arg == "--only" && i + 1 < argc) {
      options.only = argv[++i];
    } else {
      if (rank == 0)
        std::fprintf(stderr, "usage: shardrt-bench-overhead [--samples N] "
                             "[--sizes B,B,...] [--only NAME]\n");
      MPI_Finalize();
      return 2;
    }
  }
  const int64_t W = world;
  const int64_t one = 1;
  // On 4 ranks, a 2x2 mesh: the communicator of each rank's axis-1 group.
  MPI_Comm axisComm = MPI_COMM_NULL;
  if (W == 4)
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank % 2, &axisComm);
  // The floor's agreement, on a communicator of its own as the runtime's.
  MPI_Comm agreeComm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &agreeComm);
  const int64_t agreeMine[5] = {0, 1, -1, 0, 0};
  int64_t agreeAll[5] = {};
  auto agreed = [&](const std::function<int()> &raw) {
    return [&, raw] {
      int rc = MPI_Allreduce(agreeMine, agreeAll, 5, MPI_INT64_T, MPI_MAX,
                             agreeComm);
      return rc != MPI_SUCCESS ? rc : raw();
    };
  };

  if (rank == 0)
    std::printf("shardrt overhead on %d ranks: median per call over %d "
                "alternating samples (slowest rank); floor: the MPI call "
                "after one MPI_Allreduce of 40 B over the world\n%-24s %10s "
                "%12s %12s %8s %12s %8s\n",
                world, options.samples, "collective", "per rank", "shardrt us",
                "MPI us", "ratio", "floor us", "ratio");

  for (int64_t bytes : options.sizes) {
    const Elements e = elementsOf(bytes);
    const int64_t n = e.count;
    std::vector<Pair> pairs;

    // all_gather: a 1-D tensor of W * n elements, chunked in rank order.
    std::vector<char> agLocal(n * e.size), agGlobal(W * n * e.size);
    fill(agLocal, rank);
    std::vector<int64_t> agTable;
    for (int64_t r = 0; r < W; ++r)
      agTable.insert(agTable.end(), {r, r * n, n});
    const int64_t agTotal = W * n;
    shardrt_tensor agL{
        agLocal.data(), e.dtype, SHARDRT_DEVICE_CPU, 1, &n, &one};
    shardrt_tensor agG{agGlobal.data(), e.dtype, SHARDRT_DEVICE_CPU, 1,
                       &agTotal,        &one};
    pairs.push_back(
        {"all_gather", bytes,
         [&] { return shardrt_all_gather(&agL, &agG, agTable.data(), W); },
         [&] {
           return MPI_Allgather(agLocal.data(), static_cast<int>(n), e.mpiType,
                                agGlobal.data(), static_cast<int>(n), e.mpiType,
                                MPI_COMM_WORLD);
         },
         agGlobal.data(), agGlobal.size()});

    // all_to_all, even: a [W, W, m] tensor from chunks of dim 0 to chunks of
    // dim 1; every box a rank sends or receives is contiguous, as in
    // MPI_Alltoall. A rank holds W * m elements.
    const int64_t m = std::max<int64_t>(1, n / W);
    const int64_t evenSizes[3] = {1, W, m}, evenDst[3] = {W, 1, m};
    const int64_t srcStrides[3] = {W * m, m, 1}, dstStrides[3] = {m, m, 1};
    std::vector<char> a2aSrc(W * m * e.size), a2aDst(W * m * e.size);
    fill(a2aSrc, rank);
    std::vector<int64_t> a2aSrcTable, a2aDstTable;
    for (int64_t r = 0; r < W; ++r) {
      a2aSrcTable.insert(a2aSrcTable.end(), {r, r, 0, 0, 1, W, m});
      a2aDstTable.insert(a2aDstTable.end(), {r, 0, r, 0, W, 1, m});
    }
    shardrt_tensor a2aS{a2aSrc.data(), e.dtype,   SHARDRT_DEVICE_CPU, 3,
                        evenSizes,     srcStrides};
    shardrt_tensor a2aD{a2aDst.data(), e.dtype,   SHARDRT_DEVICE_CPU, 3,
                        evenDst,       dstStrides};
    pairs.push_back(
        {"all_to_all (even)", W * m * static_cast<int64_t>(e.size),
         [&] {
           return shardrt_redistribute(&a2aS, &a2aD, a2aSrcTable.data(), W,
                                       a2aDstTable.data(), W);
         },
         [&] {
           return MPI_Alltoall(a2aSrc.data(), static_cast<int>(m), e.mpiType,
                               a2aDst.data(), static_cast<int>(m), e.mpiType,
                               MPI_COMM_WORLD);
         },
         a2aDst.data(), a2aDst.size()});

    // all_to_all, uneven: a [W, 2W - 1, k] tensor from chunks of dim 0 to
    // torch.chunk of dim 1 over W ranks (2, 2, ..., 1 rows): MPI_Alltoallv.
    const int64_t rows = 2 * W - 1;
    const int64_t k = std::max<int64_t>(1, n / rows);
    auto rowsOf = [&](int64_t r) { return r + 1 < W ? 2 : 1; };
    const int64_t myRows = rowsOf(rank);
    const int64_t uSrcSizes[3] = {1, rows, k}, uDstSizes[3] = {W, myRows, k};
    const int64_t uSrcStrides[3] = {rows * k, k, 1},
                  uDstStrides[3] = {myRows * k, k, 1};
    std::vector<char> uSrc(rows * k * e.size), uDst(W * myRows * k * e.size);
    fill(uSrc, rank);
    std::vector<int64_t> uSrcTable, uDstTable;
    std::vector<int> sendCounts(W), sendDispls(W), recvCounts(W), recvDispls(W);
    for (int64_t r = 0; r < W; ++r) {
      uSrcTable.insert(uSrcTable.end(), {r, r, 0, 0, 1, rows, k});
      uDstTable.insert(uDstTable.end(), {r, 0, 2 * r, 0, W, rowsOf(r), k});
      sendCounts[r] = static_cast<int>(rowsOf(r) * k);
      sendDispls[r] = static_cast<int>(2 * r * k);
      recvCounts[r] = static_cast<int>(myRows * k);
      recvDispls[r] = static_cast<int>(r * myRows * k);
    }
    shardrt_tensor uS{uSrc.data(), e.dtype,   SHARDRT_DEVICE_CPU,
                      3,           uSrcSizes, uSrcStrides};
    shardrt_tensor uD{uDst.data(), e.dtype,   SHARDRT_DEVICE_CPU,
                      3,           uDstSizes, uDstStrides};
    pairs.push_back(
        {"all_to_all (uneven)", rows * k * static_cast<int64_t>(e.size),
         [&] {
           return shardrt_redistribute(&uS, &uD, uSrcTable.data(), W,
                                       uDstTable.data(), W);
         },
         [&] {
           return MPI_Alltoallv(uSrc.data(), sendCounts.data(),
                                sendDispls.data(), e.mpiType, uDst.data(),
                                recvCounts.data(), recvDispls.data(), e.mpiType,
                                MPI_COMM_WORLD);
         },
         uDst.data(), uDst.size()});

    // reduce_scatter (f32 sum; skipped below 4 bytes per rank): every rank
    // holds partial values of a [W, m] tensor and receives row `rank` of the
    // sum.
    std::vector<float> rsSrc, rsDst;
    std::vector<int64_t> rsSrcTable, rsDstTable, rsPartial, rsGroups;
    const int64_t rsSizes[2] = {W, m}, rsStrides[2] = {m, 1};
    const int64_t rsDstSizes[2] = {1, m};
    shardrt_tensor rsS{}, rsD{};
    if (e.dtype == SHARDRT_F32) {
      rsSrc.resize(W * m);
      for (size_t i = 0; i < rsSrc.size(); ++i)
        rsSrc[i] = static_cast<float>((i * 3 + rank) % 64);
      rsDst.assign(m, 0.0f);
      for (int64_t r = 0; r < W; ++r) {
        rsSrcTable.insert(rsSrcTable.end(), {r, 0, 0, W, m});
        rsPartial.push_back(r);
        rsDstTable.insert(rsDstTable.end(), {r, r, 0, 1, m});
        rsGroups.insert(rsGroups.end(), {r, 0, r});
      }
      rsS = {rsSrc.data(), SHARDRT_F32, SHARDRT_DEVICE_CPU, 2,
             rsSizes,      rsStrides};
      rsD = {rsDst.data(), SHARDRT_F32, SHARDRT_DEVICE_CPU, 2,
             rsDstSizes,   rsStrides};
      // What the compiler emits for P(sum) -> S(0) on a 1-D mesh: the named
      // collective over the world's one group.
      pairs.push_back({"reduce_scatter (sum)", W * m * 4,
                       [&] {
                         return shardrt_group_collective(
                             SHARDRT_COLLECTIVE_REDUCE_SCATTER, &rsS, &rsD,
                             rsSrcTable.data(), W, rsDstTable.data(), W,
                             rsGroups.data(), W, -1, SHARDRT_SUM);
                       },
                       [&] {
                         return MPI_Reduce_scatter_block(
                             rsSrc.data(), rsDst.data(), static_cast<int>(m),
                             MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
                       },
                       rsDst.data(), rsDst.size() * sizeof(float)});
      // The general exchange's reduction (what runs where no named
      // collective fits), against the same raw collective: point-to-point
      // messages cannot match MPI's reduce_scatter algorithms, so this row
      // shows the price of falling back, not an overhead.
      pairs.push_back({"reduce exchange (sum)", W * m * 4,
                       [&] {
                         return shardrt_redistribute_reduce(
                             &rsS, &rsD, rsSrcTable.data(), W, rsPartial.data(),
                             rsDstTable.data(), W, SHARDRT_SUM);
                       },
                       [&] {
                         return MPI_Reduce_scatter_block(
                             rsSrc.data(), rsDst.data(), static_cast<int>(m),
                             MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
                       },
                       rsDst.data(), rsDst.size() * sizeof(float)});
    }

    // Over one mesh axis of a 2x2 mesh (4 ranks: rank 2i + j at (i, j)):
    // the runtime's group collective over axis 1 (groups {0, 1} and {2, 3})
    // against the raw MPI collective on the same sub-communicator (f32).
    std::vector<float> axSrc, axDst, axRsSrc, axRsDst;
    std::vector<int64_t> axAgSrc, axAgDst, axRsSrcT, axRsDstT, axArT, axGroups;
    int64_t axN = 0, ax2N = 0, axM = 0, ax2M = 0;
    shardrt_tensor axAgS{}, axAgD{}, axRsS{}, axRsD{}, axArS{}, axArD{};
    if (W == 4 && e.dtype == SHARDRT_F32) {
      const int64_t i = rank / 2;
      axN = n;
      ax2N = 2 * n;
      axM = std::max<int64_t>(1, n / 2);
      ax2M = 2 * axM;
      for (int64_t r = 0; r < 4; ++r) {
        axGroups.insert(axGroups.end(), {r, r / 2, r % 2});
        // all_gather of [4n]: (S(0), S(0)) -> (S(0), R).
        axAgSrc.insert(axAgSrc.end(), {r, r * n, n});
        axAgDst.insert(axAgDst.end(), {r, (r / 2) * 2 * n, 2 * n});
        // reduce_scatter of [4m]: (S(0), P(sum)) -> (S(0), S(0)).
        axRsSrcT.insert(axRsSrcT.end(), {r, (r / 2) * 2 * axM, 2 * axM});
        axRsDstT.insert(axRsDstT.end(), {r, r * axM, axM});
        // all_reduce of [2n]: (S(0), P(sum)) -> (S(0), R).
        axArT.insert(axArT.end(), {r, (r / 2) * n, n});
      }
      (void)i;
      axSrc.resize(2 * n);
      axDst.assign(2 * n, 0.0f);
      for (size_t k = 0; k < axSrc.size(); ++k)
        axSrc[k] = static_cast<float>((k * 3 + rank) % 64);
      axRsSrc.assign(axSrc.begin(), axSrc.begin() + 2 * axM);
      axRsDst.assign(axM, 0.0f);
      axAgS = {axSrc.data(), SHARDRT_F32, SHARDRT_DEVICE_CPU, 1, &axN, &one};
      axAgD = {axDst.data(), SHARDRT_F32, SHARDRT_DEVICE_CPU, 1, &ax2N, &one};
      axRsS = {axRsSrc.data(), SHARDRT_F32, SHARDRT_DEVICE_CPU, 1, &ax2M, &one};
      axRsD = {axRsDst.data(), SHARDRT_F32, SHARDRT_DEVICE_CPU, 1, &axM, &one};
      axArS = {axSrc.data(), SHARDRT_F32, SHARDRT_DEVICE_CPU, 1, &axN, &one};
      axArD = {axDst.data(), SHARDRT_F32, SHARDRT_DEVICE_CPU, 1, &axN, &one};
      pairs.push_back(
          {"axis all_gather", bytes,
           [&] {
             return shardrt_group_collective(
                 SHARDRT_COLLECTIVE_ALL_GATHER, &axAgS, &axAgD, axAgSrc.data(),
                 4, axAgDst.data(), 4, axGroups.data(), 4, -1, SHARDRT_SUM);
           },
           [&] {
             return MPI_Allgather(axSrc.data(), static_cast<int>(n), MPI_FLOAT,
                                  axDst.data(), static_cast<int>(n), MPI_FLOAT,
                                  axisComm);
           },
           axDst.data(), axDst.size() * sizeof(float)});
      pairs.push_back({"axis reduce_scatter", 2 * axM * 4,
                       [&] {
                         return shardrt_group_collective(
                             SHARDRT_COLLECTIVE_REDUCE_SCATTER, &axRsS, &axRsD,
                             axRsSrcT.data(), 4, axRsDstT.data(), 4,
                             axGroups.data(), 4, -1, SHARDRT_SUM);
                       },
                       [&] {
                         return MPI_Reduce_scatter_block(
                             axRsSrc.data(), axRsDst.data(),
                             static_cast<int>(axM), MPI_FLOAT, MPI_SUM,
                             axisComm);
                       },
                       axRsDst.data(), axRsDst.size() * sizeof(float)});
      pairs.push_back({"axis all_reduce", bytes,
                       [&] {
                         return shardrt_group_collective(
                             SHARDRT_COLLECTIVE_ALL_REDUCE, &axArS, &axArD,
                             axArT.data(), 4, axArT.data(), 4, axGroups.data(),
                             4, -1, SHARDRT_SUM);
                       },
                       [&] {
                         return MPI_Allreduce(axSrc.data(), axDst.data(),
                                              static_cast<int>(n), MPI_FLOAT,
                                              MPI_SUM, axisComm);
                       },
                       axDst.data(), static_cast<size_t>(n) * sizeof(float)});
    }

    // The named collectives (shardrt_group_collective) agree before their
    // data moves.
    for (Pair &p : pairs)
      if (p.name == "reduce_scatter (sum)" || p.name.rfind("axis ", 0) == 0)
        p.floor = agreed(p.raw);

    for (Pair &p : pairs) {
      if (p.name.find(options.only) == std::string::npos)
        continue;
      // Warm up both, and check that the runtime writes what the raw call
      // wrote.
      for (int i = 0; i < 5; ++i) {
        batch(p.runtime, 1);
        batch(p.raw, 1);
      }
      std::vector<char> expected(static_cast<char *>(p.result),
                                 static_cast<char *>(p.result) + p.resultBytes);
      std::memset(p.result, 0x5a, p.resultBytes);
      batch(p.runtime, 1);
      int same = std::memcmp(p.result, expected.data(), p.resultBytes) == 0,
          allSame = 0;
      MPI_Allreduce(&same, &allSame, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      if (!allSame) {
        if (rank == 0)
          std::printf("%s at %s: results DIFFER from the MPI call\n",
                      p.name.c_str(), formatBytes(p.bytesPerRank).c_str());
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      // Calls per sample: about 2 ms of the raw call, at least 1.
      const double single = batch(p.raw, 3) / 3;
      int calls = std::max(1, static_cast<int>(2e-3 / std::max(single, 1e-9)));
      MPI_Bcast(&calls, 1, MPI_INT, 0, MPI_COMM_WORLD);
      // Rotate which goes first.
      std::vector<const std::function<int()> *> timed = {&p.runtime, &p.raw};
      if (p.floor)
        timed.push_back(&p.floor);
      std::vector<std::vector<double>> times(timed.size());
      for (int s = 0; s < options.samples; ++s)
        for (size_t k = 0; k < timed.size(); ++k) {
          const size_t which = (k + s) % timed.size();
          times[which].push_back(batch(*timed[which], calls) / calls);
        }
      if (rank == 0) {
        const double a = median(times[0]) * 1e6, b = median(times[1]) * 1e6;
        std::printf("%-24s %10s %12.2f %12.2f %8.3f", p.name.c_str(),
                    formatBytes(p.bytesPerRank).c_str(), a, b, a / b);
        if (p.floor) {
          const double f = median(times[2]) * 1e6;
          std::printf(" %12.2f %8.3f", f, a / f);
        }
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  }
  if (axisComm != MPI_COMM_NULL)
    MPI_Comm_free(&axisComm);
  MPI_Comm_free(&agreeComm);
  shardrt_finalize();
  MPI_Finalize();
  return 0;
}
