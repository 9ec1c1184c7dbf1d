//===- NcclCollectives.cpp - Named collectives on NCCL vs the raw calls ---===//
//
// Run under mpirun, one GPU per rank (or ranks sharing one GPU, each with
// its own NCCL_HOSTID). For all_gather, reduce_scatter, all_reduce and
// broadcast of an f32 tensor over every rank, at 1 MiB to 1 GiB (the
// largest buffer of the call, as nccl-tests counts), times
// shardrt_group_collective (which returns once its stream is done) against
// the raw NCCL call on a communicator of the same ranks (followed by
// cudaStreamSynchronize), their samples alternating, and prints the bus
// bandwidth of both (nccl-tests' factors: (n-1)/n for all_gather and
// reduce_scatter, 2(n-1)/n for all_reduce, 1 for broadcast) and their ratio:
// the goal is at least 0.95 from 16 MiB. The runtime's first result is checked
// element by element before anything is timed.
//
//   shardrt-bench-collectives [--max-mib N] [--iters K]
//
//===----------------------------------------------------------------------===//

#include "shardrt.h"

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace {

int rank = 0, world = 1;

void die(const std::string &what) {
  std::fprintf(stderr, "shardrt-bench-collectives: rank %d: %s\n", rank,
               what.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
}

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t e_ = (call);                                                   \
    if (e_ != cudaSuccess)                                                     \
      die(std::string(#call) + ": " + cudaGetErrorString(e_));                 \
  } while (0)
#define NCCL_CHECK(call)                                                       \
  do {                                                                         \
    ncclResult_t r_ = (call);                                                  \
    if (r_ != ncclSuccess)                                                     \
      die(std::string(#call) + ": " + ncclGetErrorString(r_));                 \
  } while (0)

/// The seconds one run of `fn` takes, every rank starting together (the
/// slowest rank's time).
double timeOnce(const std::function<void()> &fn) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto start = std::chrono::steady_clock::now();
  fn();
  double mine = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              start)
                    .count(),
         slowest = 0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

/// The medians of `a` and `b` over `iters` runs each after 2 warm-up runs of
/// each, their samples alternating (`a` first in even rounds, `b` in odd
/// ones), so that a drift of the machine or the network weighs on both.
std::pair<double, double> alternatingMedians(int iters,
                                             const std::function<void()> &a,
                                             const std::function<void()> &b) {
  for (int i = 0; i < 2; ++i) {
    a();
    b();
  }
  std::vector<double> ta, tb;
  for (int i = 0; i < iters; ++i) {
    if (i % 2 == 0) {
      ta.push_back(timeOnce(a));
      tb.push_back(timeOnce(b));
    } else {
      tb.push_back(timeOnce(b));
      ta.push_back(timeOnce(a));
    }
  }
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  return {ta[ta.size() / 2], tb[tb.size() / 2]};
}

struct Kind {
  const char *name;
  shardrt_collective kind;
  double busFactor;
};

} // namespace

int main(int argc, char **argv) {
  int64_t maxMib = 1024;
  int iters = 11;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--max-mib") == 0 && i + 1 < argc)
      maxMib = std::max<int64_t>(1, std::atoll(argv[++i]));
    else if (std::strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
      iters = std::max(1, std::atoi(argv[++i]));
  }
  if (shardrt_init() != SHARDRT_SUCCESS)
    die(std::string("shardrt_init: ") + shardrt_last_error());
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)
    die("no CUDA GPU visible");
  // The runtime picks its GPU by the rank on the node; so does this.
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                      &node);
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  CUDA_CHECK(cudaSetDevice(local % devices));
  ncclUniqueId id;
  if (rank == 0)
    NCCL_CHECK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommInitRank(&comm, world, id, rank));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  shardrt_set_cuda_stream(stream);

  const double n = world;
  const Kind kinds[] = {
      {"all_gather", SHARDRT_COLLECTIVE_ALL_GATHER, (n - 1) / n},
      {"reduce_scatter", SHARDRT_COLLECTIVE_REDUCE_SCATTER, (n - 1) / n},
      {"all_reduce", SHARDRT_COLLECTIVE_ALL_REDUCE, 2 * (n - 1) / n},
      {"broadcast", SHARDRT_COLLECTIVE_BROADCAST, 1.0}};
  if (rank == 0) {
    std::printf("%d ranks; f32; medians of %d; bus bandwidth in GB/s\n", world,
                iters);
    std::printf("%-15s %10s %12s %12s %8s\n", "collective", "size", "shardrt",
                "raw NCCL", "ratio");
  }
  std::vector<int64_t> groups;
  for (int r = 0; r < world; ++r)
    groups.insert(groups.end(), {r, 0, r});
  for (const Kind &k : kinds) {
    for (int64_t mib = 1; mib <= maxMib; mib *= 4) {
      // The largest buffer holds `total` elements: a multiple of the world.
      const int64_t total = (mib << 20) / 4 / world * world;
      const int64_t chunk = total / world;
      const bool gathers = k.kind == SHARDRT_COLLECTIVE_ALL_GATHER,
                 scatters = k.kind == SHARDRT_COLLECTIVE_REDUCE_SCATTER;
      const int64_t srcCount = gathers ? chunk : total,
                    dstCount = scatters ? chunk : total;
      float *src = nullptr, *dst = nullptr;
      CUDA_CHECK(cudaMalloc(&src, srcCount * 4));
      CUDA_CHECK(cudaMalloc(&dst, dstCount * 4));
      std::vector<float> fill(srcCount, static_cast<float>(rank + 1));
      CUDA_CHECK(
          cudaMemcpy(src, fill.data(), srcCount * 4, cudaMemcpyHostToDevice));
      // Tables: [owner, offset, size] per rank.
      std::vector<int64_t> srcRows, dstRows;
      for (int r = 0; r < world; ++r) {
        if (gathers)
          srcRows.insert(srcRows.end(), {r, r * chunk, chunk});
        else if (k.kind != SHARDRT_COLLECTIVE_BROADCAST || r == 0)
          srcRows.insert(srcRows.end(), {r, 0, total});
        if (scatters)
          dstRows.insert(dstRows.end(), {r, r * chunk, chunk});
        else
          dstRows.insert(dstRows.end(), {r, 0, total});
      }
      const bool holdsSource =
          k.kind != SHARDRT_COLLECTIVE_BROADCAST || rank == 0;
      int64_t srcSize = holdsSource ? srcCount : 0, dstSize = dstCount,
              stride = 1;
      shardrt_tensor s{src, SHARDRT_F32, SHARDRT_DEVICE_CUDA,
                       1,   &srcSize,    &stride};
      shardrt_tensor d{dst, SHARDRT_F32, SHARDRT_DEVICE_CUDA,
                       1,   &dstSize,    &stride};
      const int64_t root = k.kind == SHARDRT_COLLECTIVE_BROADCAST ? 0 : -1;
      auto runtime = [&] {
        if (shardrt_group_collective(
                k.kind, holdsSource ? &s : nullptr, &d, srcRows.data(),
                int64_t(srcRows.size() / 3), dstRows.data(),
                int64_t(dstRows.size() / 3), groups.data(), world, root,
                SHARDRT_SUM) != SHARDRT_SUCCESS)
          die(shardrt_last_error());
      };
      runtime();
      // Every element of the first result.
      std::vector<float> got(dstCount);
      CUDA_CHECK(
          cudaMemcpy(got.data(), dst, dstCount * 4, cudaMemcpyDeviceToHost));
      for (int64_t i = 0; i < dstCount; ++i) {
        const float want = gathers ? float(i / chunk + 1)
                           : k.kind == SHARDRT_COLLECTIVE_BROADCAST
                               ? 1.0f
                               : float(world * (world + 1) / 2);
        if (got[i] != want)
          die(std::string(k.name) + ": element " + std::to_string(i) + " is " +
              std::to_string(got[i]) + ", expected " + std::to_string(want));
      }
      auto raw = [&] {
        switch (k.kind) {
        case SHARDRT_COLLECTIVE_ALL_GATHER:
          NCCL_CHECK(ncclAllGather(src, dst, chunk, ncclFloat32, comm, stream));
          break;
        case SHARDRT_COLLECTIVE_REDUCE_SCATTER:
          NCCL_CHECK(ncclReduceScatter(src, dst, chunk, ncclFloat32, ncclSum,
                                       comm, stream));
          break;
        case SHARDRT_COLLECTIVE_ALL_REDUCE:
          NCCL_CHECK(ncclAllReduce(src, dst, total, ncclFloat32, ncclSum, comm,
                                   stream));
          break;
        default:
          NCCL_CHECK(
              ncclBroadcast(src, dst, total, ncclFloat32, 0, comm, stream));
          break;
        }
        CUDA_CHECK(cudaStreamSynchronize(stream));
      };
      const auto [ours, theirs] = alternatingMedians(iters, runtime, raw);
      const double bytes = double(total) * 4;
      if (rank == 0)
        std::printf("%-15s %7lld MiB %12.2f %12.2f %8.3f\n", k.name,
                    static_cast<long long>(mib),
                    bytes / ours * k.busFactor / 1e9,
                    bytes / theirs * k.busFactor / 1e9, theirs / ours);
      std::fflush(stdout);
      CUDA_CHECK(cudaFree(src));
      CUDA_CHECK(cudaFree(dst));
    }
  }
  ncclCommDestroy(comm);
  shardrt_set_cuda_stream(nullptr);
  cudaStreamDestroy(stream);
  shardrt_finalize();
  return 0;
}
