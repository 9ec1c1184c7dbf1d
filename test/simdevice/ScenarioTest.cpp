//===- ScenarioTest.cpp - The NCCL backend's defects, on the sim device ---===//
//
// Run under mpirun on the simulated device, one scenario per run (argv[1]);
// each was a defect of the NCCL backend that showed only on several ranks,
// and each fails (names the mismatch, or times out) without its fix:
//   gpu-per-rank     every rank's buffers on its own GPU (cudaMalloc after
//                    cudaSetDevice(rank)): the first call used to pick GPU 0
//                    on every rank;
//   local-first      the first CUDA call only copies on rank 0, then an
//                    all_gather: rank 0 used to create the NCCL communicator
//                    alone;
//   mixed-strides    an all_gather and a partial -> replicate whose ranks
//                    pass views of other strides: ranks used to choose other
//                    NCCL calls from their own strides;
//   leftover-error   a CUDA error that the caller's own work left: it used to
//                    be blamed on the runtime's copy kernel;
//   duplicate-gpu    two ranks on one GPU (SHARDC_SIM_DEVICES=1): the text of
//                    ncclCommInitRank's failure used to be lost;
//   lone-partial     partial values of the whole tensor on rank 0 alone, to
//                    be reduced into a block of rank 0: nothing moves between
//                    ranks, but rank 0 used to split a group communicator
//                    for it while the others, with nothing to do, did not;
//   many-groups      all_reduce over one group of every rank in each of the
//                    24 orders of 4 ranks, then the first again: the
//                    communicators of groups used to be kept for ever (at
//                    most 16 are kept now, evicted alike on every rank);
//   user-finalize    the program's own MPI_Finalize after a CUDA call, without
//                    shardrt_finalize: the NCCL communicators used to be
//                    left undestroyed (the simulator counts them);
//   stuck-abort      rank 1's staging cudaMalloc fails after the ranks agree
//                    and ncclCommAbort never returns (SHARDC_SIM_*): rank 0's
//                    watchdog must still end the job with MPI_Abort;
//   late-failure     each rank in turn fails its staging cudaMalloc within an
//                    all_gather, after the ranks agreed: the others used to
//                    wait for it until the timeout, naming no cause; now
//                    each fails at once naming that rank's error, and the
//                    next call works;
//   late-failure-groups  the same within an all_reduce of pairs of ranks:
//                    only the failing rank's partner fails, and the next
//                    calls work (the other pairs' communicators were an
//                    epoch behind);
//   late-failure-queued  a rank's copy out of staging fails after its
//                    ncclAllGather was queued: peers complete or are
//                    alerted, and the next call works.
// Each rank prints "rank R: OK" or "rank R: FAILED: why".
//
//===----------------------------------------------------------------------===//

#include "Layouts.h"
#include "SimDevice.h"
#include "TestSupport.h"
#include "shardrt.h"

#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace shardrt_test;

namespace {

int rank = 0, world = 1;
std::string failure;

void expect(bool ok, const std::string &what) {
  if (!ok && failure.empty())
    failure = what;
}

/// The all_gather of a chunked [world * rows, 2] f32 tensor: rank r's global
/// view in `arrangement`, its block filled with the global index. Expects
/// success and every element right when `mustSucceed`; returns the status.
int allGather(Arrangement arrangement, bool mustSucceed = true,
              int64_t rows = 3) {
  const std::vector<int64_t> shape{rows * world, 2};
  const std::vector<Block> blocks =
      chunkLayout(shape, 0, ranksInOrder(world, 0, world));
  const std::vector<int64_t> table = tableOf(blocks);
  StridedBuffer global(shape, 4, arrangement);
  StridedBuffer local(blocks[rank].box.sizes, 4, Arrangement::Contiguous);
  forEachIndex(local.sizes, [&](const std::vector<int64_t> &i) {
    local.set(i, exactBits(SHARDRT_F32,
                           (i[0] + blocks[rank].box.offsets[0]) * 2 + i[1]));
  });
  shardrt_tensor g = global.tensor(SHARDRT_F32), l = local.tensor(SHARDRT_F32);
  int status = shardrt_all_gather(&l, &g, table.data(),
                                  static_cast<int64_t>(blocks.size()));
  if (!mustSucceed)
    return status;
  expect(status == SHARDRT_SUCCESS,
         std::string("all_gather failed: ") + shardrt_last_error());
  if (status != SHARDRT_SUCCESS)
    return status;
  forEachIndex(shape, [&](const std::vector<int64_t> &i) {
    expect(global.get(i) == exactBits(SHARDRT_F32, i[0] * 2 + i[1]),
           "all_gather: element " + formatIndex(i) + " is wrong");
  });
  return status;
}

/// Partial (sum) -> replicate of a [4, 3] f32 tensor on every rank: an
/// all-reduce within the world; rank r's views in `arrangement`.
void partialToReplicate(Arrangement arrangement) {
  const std::vector<int64_t> shape{4, 3};
  const std::vector<int> all = ranksInOrder(world, 0, world);
  const std::vector<Block> blocks = gridLayout(shape, {1, 1}, all, world);
  const std::vector<int64_t> table = tableOf(blocks);
  std::vector<int64_t> partial;
  for (int r = 0; r < world; ++r)
    partial.push_back(r);
  StridedBuffer src(shape, 4, arrangement), dst(shape, 4, arrangement);
  forEachIndex(shape, [&](const std::vector<int64_t> &i) {
    src.set(i, exactBits(SHARDRT_F32, (rank + 1) * (i[0] * 3 + i[1] + 1)));
  });
  shardrt_tensor s = src.tensor(SHARDRT_F32), d = dst.tensor(SHARDRT_F32);
  int status = shardrt_redistribute_reduce(
      &s, &d, table.data(), static_cast<int64_t>(blocks.size()), partial.data(),
      table.data(), static_cast<int64_t>(blocks.size()), SHARDRT_SUM);
  expect(status == SHARDRT_SUCCESS,
         std::string("partial -> replicate failed: ") + shardrt_last_error());
  if (status != SHARDRT_SUCCESS)
    return;
  const int64_t ranksSum = int64_t(world) * (world + 1) / 2;
  forEachIndex(shape, [&](const std::vector<int64_t> &i) {
    expect(dst.get(i) ==
               exactBits(SHARDRT_F32, ranksSum * (i[0] * 3 + i[1] + 1)),
           "partial -> replicate: element " + formatIndex(i) + " is wrong");
  });
}

void gpuPerRank() {
  expect(cudaSetDevice(rank) == cudaSuccess,
         "cudaSetDevice(rank) failed: run with SHARDC_SIM_DEVICES=ranks");
  const int64_t n = 4;
  float *local = nullptr, *global = nullptr;
  cudaMalloc(reinterpret_cast<void **>(&local), n * sizeof(float));
  cudaMalloc(reinterpret_cast<void **>(&global), n * world * sizeof(float));
  std::vector<float> mine(n);
  for (int64_t k = 0; k < n; ++k)
    mine[k] = static_cast<float>(rank * n + k);
  cudaMemcpy(local, mine.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  std::vector<int64_t> table;
  for (int r = 0; r < world; ++r)
    table.insert(table.end(), {r, r * n, n});
  int64_t localSizes[1] = {n}, localStrides[1] = {1};
  int64_t globalSizes[1] = {n * world}, globalStrides[1] = {1};
  shardrt_tensor l{local, SHARDRT_F32, SHARDRT_DEVICE_CUDA,
                   1,     localSizes,  localStrides};
  shardrt_tensor g{global, SHARDRT_F32, SHARDRT_DEVICE_CUDA,
                   1,      globalSizes, globalStrides};
  int status = shardrt_all_gather(&l, &g, table.data(), world);
  expect(status == SHARDRT_SUCCESS,
         std::string("all_gather failed: ") + shardrt_last_error());
  std::vector<float> got(n * world);
  cudaMemcpy(got.data(), global, got.size() * sizeof(float),
             cudaMemcpyDeviceToHost);
  for (int64_t k = 0; k < n * world && status == SHARDRT_SUCCESS; ++k)
    expect(got[k] == static_cast<float>(k),
           "all_gather: element " + std::to_string(k) + " is wrong");
  cudaFree(local);
  cudaFree(global);
}

void localFirst() {
  // Source and destination: the whole [5] tensor on rank 0 only.
  const std::vector<int64_t> shape{5};
  const std::vector<Block> blocks = gridLayout(shape, {1}, {0});
  const std::vector<int64_t> table = tableOf(blocks);
  const std::vector<int64_t> none{0};
  StridedBuffer src(rank == 0 ? shape : none, 4, Arrangement::Contiguous);
  StridedBuffer dst(rank == 0 ? shape : none, 4, Arrangement::Padded);
  forEachIndex(src.sizes, [&](const std::vector<int64_t> &i) {
    src.set(i, exactBits(SHARDRT_F32, i[0]));
  });
  shardrt_tensor s = src.tensor(SHARDRT_F32), d = dst.tensor(SHARDRT_F32);
  int status = shardrt_redistribute(&s, &d, table.data(), 1, table.data(), 1);
  expect(status == SHARDRT_SUCCESS,
         std::string("the local copy failed: ") + shardrt_last_error());
  forEachIndex(dst.sizes, [&](const std::vector<int64_t> &i) {
    expect(dst.get(i) == exactBits(SHARDRT_F32, i[0]),
           "the local copy: element " + formatIndex(i) + " is wrong");
  });
  allGather(Arrangement::Contiguous);
}

void mixedStrides() {
  const Arrangement mine =
      rank == 0 ? Arrangement::Contiguous : Arrangement::Padded;
  allGather(mine);
  partialToReplicate(mine);
  // And again with the arrangements swapped (the calls are cached).
  const Arrangement other =
      rank == 0 ? Arrangement::Padded : Arrangement::Contiguous;
  allGather(other);
  partialToReplicate(other);
}

void leftoverError() {
  // The caller's own failed call leaves an error on rank 0's thread.
  if (rank == 0)
    cudaSetDevice(1 << 20);
  const std::vector<int64_t> shape{3 * world, 2};
  const std::vector<Block> blocks =
      chunkLayout(shape, 0, ranksInOrder(world, 0, world));
  const std::vector<int64_t> table = tableOf(blocks);
  StridedBuffer global(shape, 4, Arrangement::Contiguous);
  StridedBuffer local(blocks[rank].box.sizes, 4, Arrangement::Padded);
  shardrt_tensor g = global.tensor(SHARDRT_F32), l = local.tensor(SHARDRT_F32);
  int status = shardrt_all_gather(&l, &g, table.data(),
                                  static_cast<int64_t>(blocks.size()));
  const std::string text = shardrt_last_error();
  expect(status != SHARDRT_SUCCESS, "the call succeeded despite the error");
  if (rank == 0)
    expect(text.find("a CUDA error left by earlier work on this thread, "
                     "before this call: cudaErrorInvalidDevice") !=
               std::string::npos,
           "rank 0's message does not name the leftover error: " + text);
  else
    expect(text.find("rank 0 rejected its arguments") != std::string::npos,
           "the message does not name rank 0: " + text);
  // The error was cleared: the next call runs.
  allGather(Arrangement::Contiguous);
}

void duplicateGpu() {
  const std::vector<int64_t> shape{2 * world};
  const std::vector<Block> blocks =
      chunkLayout(shape, 0, ranksInOrder(world, 0, world));
  const std::vector<int64_t> table = tableOf(blocks);
  StridedBuffer global(shape, 4, Arrangement::Contiguous);
  StridedBuffer local(blocks[rank].box.sizes, 4, Arrangement::Contiguous);
  shardrt_tensor g = global.tensor(SHARDRT_F32), l = local.tensor(SHARDRT_F32);
  int status = shardrt_all_gather(&l, &g, table.data(), world);
  const std::string text = shardrt_last_error();
  expect(status != SHARDRT_SUCCESS, "two ranks on one GPU ran");
  expect(text.find("ncclCommInitRank on the world failed") !=
                 std::string::npos &&
             (rank != 0 ||
              text.find("Duplicate GPU detected") != std::string::npos),
         "ncclCommInitRank's text is lost: " + text);
}

void lonePartial() {
  const std::vector<int64_t> shape{3, 2};
  const std::vector<Block> blocks = gridLayout(shape, {1, 1}, {0});
  const std::vector<int64_t> table = tableOf(blocks), partial{0};
  const std::vector<int64_t> none{0, 0};
  StridedBuffer src(rank == 0 ? shape : none, 4, Arrangement::Contiguous);
  StridedBuffer dst(rank == 0 ? shape : none, 4, Arrangement::Padded);
  forEachIndex(src.sizes, [&](const std::vector<int64_t> &i) {
    src.set(i, exactBits(SHARDRT_F32, i[0] * 2 + i[1]));
  });
  shardrt_tensor s = src.tensor(SHARDRT_F32), d = dst.tensor(SHARDRT_F32);
  int status = shardrt_redistribute_reduce(
      &s, &d, table.data(), 1, partial.data(), table.data(), 1, SHARDRT_SUM);
  expect(status == SHARDRT_SUCCESS,
         std::string("the lone reduction failed: ") + shardrt_last_error());
  forEachIndex(dst.sizes, [&](const std::vector<int64_t> &i) {
    expect(dst.get(i) == exactBits(SHARDRT_F32, i[0] * 2 + i[1]),
           "the lone reduction: element " + formatIndex(i) + " is wrong");
  });
  allGather(Arrangement::Contiguous);
}

/// An all_reduce (sum) of a [3] i32 tensor over one group of every rank,
/// `order` its members by position.
void allReduceOver(const std::vector<int> &order) {
  const std::vector<int64_t> shape{3};
  std::vector<int64_t> table, groups;
  for (int r = 0; r < world; ++r)
    table.insert(table.end(), {r, 0, 3});
  for (int p = 0; p < world; ++p)
    groups.insert(groups.end(), {order[p], 0, p});
  StridedBuffer src(shape, 4, Arrangement::Contiguous);
  StridedBuffer dst(shape, 4, Arrangement::Padded);
  for (int64_t i = 0; i < 3; ++i)
    src.set({i}, static_cast<uint64_t>(rank * 10 + i));
  shardrt_tensor s = src.tensor(SHARDRT_I32), d = dst.tensor(SHARDRT_I32);
  int status = shardrt_group_collective(
      SHARDRT_COLLECTIVE_ALL_REDUCE, &s, &d, table.data(), world, table.data(),
      world, groups.data(), world, -1, SHARDRT_SUM);
  expect(status == SHARDRT_SUCCESS,
         std::string("all_reduce failed: ") + shardrt_last_error());
  for (int64_t i = 0; i < 3 && status == SHARDRT_SUCCESS; ++i)
    expect(dst.get({i}) ==
               static_cast<uint64_t>(10 * world * (world - 1) / 2 + world * i),
           "all_reduce: element " + std::to_string(i) + " is wrong");
}

/// Whether no rank has failed so far (every rank calls it).
bool allOk() {
  int failed = failure.empty() ? 0 : 1, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any == 0;
}

/// Whether `text` contains `part`.
bool has(const std::string &text, const char *part) {
  return text.find(part) != std::string::npos;
}

/// The checks of a call that rank `failing` failed after the ranks agreed
/// (its staging cudaMalloc): its own error, and every other rank's that
/// `waits` for it, name that failure; `status` and `error` are this rank's.
void expectLateFailure(int status, const std::string &error, int failing,
                       bool waits, const std::string &what) {
  if (rank == failing) {
    expect(status == SHARDRT_ERROR_BACKEND &&
               has(error, "cudaMalloc of a staging buffer failed") &&
               has(error, "the other ranks were told"),
           what + ": the failing rank's error is: " + error);
  } else if (waits) {
    const std::string named =
        "rank " + std::to_string(failing) + " failed within this call";
    expect(status == SHARDRT_ERROR_BACKEND && has(error, named.c_str()) &&
               has(error, "cudaMalloc of a staging buffer failed") &&
               has(error, "made anew by the next CUDA call"),
           what + ": a rank waiting for rank " + std::to_string(failing) +
               " got: " + (status ? error : std::string("success")));
  }
}

/// Defect 7, on the world: in each round one rank's staging cudaMalloc
/// fails within an all_gather, after the ranks agreed on it (every rank in
/// turn). Every other rank waits for its part: each must fail at once
/// naming that rank's error (not wait for the timeout, not name a timeout),
/// and the next call must work on every rank, every element right.
void lateFailure() {
  for (int round = 0; round < 3 * world && allOk(); ++round) {
    const int failing = round % world;
    if (rank == failing)
      shardc::sim::failMallocs(1);
    // A padded global view stages what arrives; a larger one each round,
    // so that each round allocates a larger staging buffer.
    const int64_t rows = 3 + round;
    const int status =
        allGather(Arrangement::Padded, /*mustSucceed=*/false, rows);
    expectLateFailure(status, shardrt_last_error(), failing, true,
                      "round " + std::to_string(round));
    allGather(Arrangement::Padded, true, rows);
  }
}

/// An all_reduce (max, f32: combined by the runtime's kernels from a stage)
/// of `n` elements within groups of two, {0, 1}, {2, 3}, ...: returns the
/// status; checks every element when it succeeds.
int allReduceInPairs(int64_t n) {
  const std::vector<int64_t> shape{n};
  std::vector<int64_t> table, groups;
  for (int r = 0; r < world; ++r) {
    table.insert(table.end(), {r, 0, n});
    groups.insert(groups.end(), {r, r / 2, r % 2});
  }
  StridedBuffer src(shape, 4, Arrangement::Contiguous);
  StridedBuffer dst(shape, 4, Arrangement::Contiguous);
  for (int64_t i = 0; i < n; ++i)
    src.set({i}, exactBits(SHARDRT_F32, rank * 100 + i));
  shardrt_tensor s = src.tensor(SHARDRT_F32), d = dst.tensor(SHARDRT_F32);
  const int status = shardrt_group_collective(
      SHARDRT_COLLECTIVE_ALL_REDUCE, &s, &d, table.data(), world, table.data(),
      world, groups.data(), world, -1, SHARDRT_MAX);
  const int top = std::min((rank / 2) * 2 + 1, world - 1);
  for (int64_t i = 0; i < n && status == SHARDRT_SUCCESS; ++i)
    expect(dst.get({i}) == exactBits(SHARDRT_F32, top * 100 + i),
           "all_reduce in pairs: element " + std::to_string(i) + " is wrong");
  return status;
}

/// Defect 7 within pairs of ranks {0, 1}, {2, 3}, ...: in each round one
/// rank's staging fails within `inPairs(round)` (larger each round, so that
/// each round allocates a larger stage). Its partner must fail naming it;
/// the other pairs do not wait for it and must succeed (their communicators
/// then are an epoch behind); the calls after, an all_gather on the world
/// and `inPairs(round)` again, must work on every rank.
void lateFailureInPairs(const std::function<int(int)> &inPairs) {
  // A rank alone in its group (the last of an odd world) stages nothing.
  const int paired = world - world % 2;
  for (int round = 0; round < 2 * world && allOk(); ++round) {
    const int failing = round % paired;
    if (rank == failing)
      shardc::sim::failMallocs(1);
    const int status = inPairs(round);
    const bool partner = rank / 2 == failing / 2;
    const std::string what = "round " + std::to_string(round);
    expectLateFailure(status, shardrt_last_error(), failing, partner, what);
    if (!partner)
      expect(status == SHARDRT_SUCCESS,
             what + ": a pair without the failing rank failed: " +
                 shardrt_last_error());
    allGather(Arrangement::Padded);
    if (inPairs(round) != SHARDRT_SUCCESS)
      expect(false, what + ": the call in pairs after failed: " +
                        shardrt_last_error());
  }
}

/// Defect 7 after a rank's NCCL part was queued: in each round one rank's
/// first kernel launch fails, the copy of what its all_gather received out
/// of staging into its padded view, queued behind its ncclAllGather. Its
/// peers may have completed their part (their data then right) or be
/// alerted (their error then names that rank's); either way the next call
/// must work on every rank, every element right, also for a rank that
/// completed and so was an epoch behind.
void lateFailureAfterQueued() {
  for (int round = 0; round < 3 * world && allOk(); ++round) {
    const int failing = round % world;
    if (rank == failing)
      shardc::sim::failLaunches(1);
    const int status = allGather(Arrangement::Padded, /*mustSucceed=*/false);
    const std::string error = shardrt_last_error();
    const std::string what = "round " + std::to_string(round);
    if (rank == failing)
      expect(status == SHARDRT_ERROR_BACKEND &&
                 has(error, "cudaErrorLaunchFailure") &&
                 has(error, "the other ranks were told"),
             what + ": the failing rank's error is: " + error);
    else if (status != SHARDRT_SUCCESS)
      expect(has(error, ("rank " + std::to_string(failing) +
                         " failed within this call")
                            .c_str()) &&
                 has(error, "cudaErrorLaunchFailure"),
             what + ": a peer's error is: " + error);
    allGather(Arrangement::Padded);
  }
}

void manyGroups() {
  std::vector<int> order(world);
  for (int r = 0; r < world; ++r)
    order[r] = r;
  const std::vector<int> first = order;
  int orders = 0, most = 0;
  do {
    allReduceOver(order);
    ++orders;
    most = std::max(most, shardc::sim::liveCommunicators());
  } while (std::next_permutation(order.begin(), order.end()));
  // The world's communicator and at most 16 of groups.
  expect(most <= 17, std::to_string(most) + " communicators alive after " +
                         std::to_string(orders) + " orders of the group");
  // The first order's was evicted: split again.
  allReduceOver(first);
}

void userFinalize() { allGather(Arrangement::Contiguous); }

void stuckAbort() {
  // A padded global view stages; rank 1's staging fails, rank 0 waits in
  // ncclAllGather for it until the watchdog fires.
  allGather(Arrangement::Padded);
  if (rank == 1)
    std::this_thread::sleep_for(std::chrono::seconds(120));
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  const std::string scenario = argc > 1 ? argv[1] : "";
  if (scenario == "gpu-per-rank")
    gpuPerRank();
  else if (scenario == "local-first")
    localFirst();
  else if (scenario == "mixed-strides")
    mixedStrides();
  else if (scenario == "leftover-error")
    leftoverError();
  else if (scenario == "duplicate-gpu")
    duplicateGpu();
  else if (scenario == "lone-partial")
    lonePartial();
  else if (scenario == "many-groups")
    manyGroups();
  else if (scenario == "user-finalize")
    userFinalize();
  else if (scenario == "stuck-abort")
    stuckAbort();
  else if (scenario == "late-failure")
    lateFailure();
  else if (scenario == "late-failure-groups")
    lateFailureInPairs([](int round) { return allReduceInPairs(5 + round); });
  else if (scenario == "late-failure-queued")
    lateFailureAfterQueued();
  else
    failure = "unknown scenario '" + scenario + "'";
  if (failure.empty())
    std::printf("rank %d: OK\n", rank);
  else
    std::printf("rank %d: FAILED: %s\n", rank, failure.c_str());
  std::fflush(stdout);
  int failed = failure.empty() ? 0 : 1, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (scenario != "user-finalize")
    shardrt_finalize();
  MPI_Finalize();
  // The runtime releases NCCL's communicators when MPI is finalized, by it
  // or by the program.
  if (const int live = shardc::sim::liveCommunicators()) {
    std::printf("rank %d: FAILED: %d NCCL communicators alive after "
                "MPI_Finalize\n",
                rank, live);
    any = 1;
  }
  return any;
}
