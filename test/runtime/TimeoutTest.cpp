//===- TimeoutTest.cpp - Calls that would wait forever abort instead ------===//
//
// Run under mpirun; the first argument picks the scenario:
//   never-joins  after a first call, the last rank never makes the second
//                (it sleeps for longer than the test may take): the others must
//                abort within SHARDRT_TIMEOUT_SECONDS with a message naming the
//                rank, the collective, the group, the sizes, the dtype and
//                the rank that has not joined.
//   two-never-join  as never-joins, the last two ranks: the message names
//                both.
//   never-joins-first  the last rank never makes even the first call, in
//                which the runtime creates its communicator: the others'
//                message names it too.
//   late-joiner  the last rank joins 1 s late, well within the timeout: the
//                call must succeed and move the right data.
//   bad-timeout  SHARDRT_TIMEOUT_SECONDS is not a number: every rank's call
//                fails with a message naming the variable.
//   disagree     rank 1 passes a different block table than the others:
//                every rank's call fails naming rank 1 and the table.
//   first-call-desync  (with SHARDRT_AGREE=first-call) a call all ranks
//                agreed on, repeated by all but rank 1, which makes another:
//                the repeats skip the agreement, so the ranks wait for each
//                other on different communicators until the timeout aborts
//                them (never mixing their data).
//   after-finalize  a call made (and cached) before the program calls
//                MPI_Finalize itself, repeated after it: the repeat must fail
//                with a message, without calling MPI.
// Each rank prints one line; the exit status says whether it saw what it
// should.
//
//===----------------------------------------------------------------------===//

#include "shardrt.h"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

/// all_gather of a 1-D f32 tensor of 4 elements per rank, chunked in rank
/// order; rank `odd` (if any) claims a different split of the table.
int allGather(int rank, int world, int odd, std::vector<float> &global) {
  const int64_t per = 4, total = per * world;
  std::vector<int64_t> table;
  for (int r = 0; r < world; ++r) {
    int64_t offset = r * per, size = per;
    if (rank == odd && world > 1 && r < 2) {
      // Rank `odd` believes the first two blocks split 3 / 5.
      offset = r == 0 ? 0 : 3;
      size = r == 0 ? 3 : 5;
    }
    table.insert(table.end(), {r, offset, size});
  }
  std::vector<float> local(2 * per, 0.0f);
  for (int64_t i = 0; i < per; ++i)
    local[i] = static_cast<float>(rank * per + i) + 0.5f;
  global.assign(total, -1.0f);
  const int64_t localSize = rank == odd && rank < 2 ? table[rank * 3 + 2] : per;
  const int64_t unit = 1;
  shardrt_tensor l{local.data(), SHARDRT_F32, SHARDRT_DEVICE_CPU, 1,
                   &localSize,   &unit};
  shardrt_tensor g{global.data(), SHARDRT_F32, SHARDRT_DEVICE_CPU, 1,
                   &total,        &unit};
  return shardrt_all_gather(&l, &g, table.data(), world);
}

bool contains(const char *text, const std::string &part) {
  return std::strstr(text, part.c_str()) != nullptr;
}

int report(int rank, bool ok, const std::string &what) {
  std::printf("rank %d: %s %s\n", rank, ok ? "OK" : "FAILED", what.c_str());
  std::fflush(stdout);
  return ok ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  const std::string scenario = argc > 1 ? argv[1] : "";
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  int failed = 0;
  std::vector<float> global;

  if (scenario == "never-joins" || scenario == "two-never-join" ||
      scenario == "never-joins-first") {
    // One call everybody makes (but under never-joins-first), then one the
    // last rank (or the last two) never joins.
    const int absent = scenario == "two-never-join" ? 2 : 1;
    if (scenario != "never-joins-first" &&
        allGather(rank, world, -1, global) != SHARDRT_SUCCESS)
      failed = report(rank, false, shardrt_last_error());
    if (rank >= world - absent) {
      // Never joins: the others must abort this process with theirs.
      std::this_thread::sleep_for(std::chrono::seconds(300));
      failed = report(rank, false, "was not aborted by the others' timeout");
    } else {
      int status = allGather(rank, world, -1, global);
      failed =
          report(rank, false,
                 "the call returned (status " + std::to_string(status) + ": " +
                     shardrt_last_error() + ") instead of aborting");
    }
  } else if (scenario == "late-joiner") {
    if (rank == world - 1)
      std::this_thread::sleep_for(std::chrono::seconds(1));
    int status = allGather(rank, world, -1, global);
    bool ok = status == SHARDRT_SUCCESS;
    for (size_t i = 0; ok && i < global.size(); ++i)
      ok = global[i] == static_cast<float>(i) + 0.5f;
    failed = report(rank, ok,
                    "late joiner: status " + std::to_string(status) + " " +
                        shardrt_last_error());
  } else if (scenario == "bad-timeout") {
    int status = allGather(rank, world, -1, global);
    const char *error = shardrt_last_error();
    failed = report(
        rank,
        status == SHARDRT_ERROR_INVALID_ARGUMENT &&
            contains(error, "SHARDRT_TIMEOUT_SECONDS is '") &&
            contains(error, "rank " + std::to_string(rank) + ": all_gather("),
        std::string("bad timeout: ") + error);
  } else if (scenario == "disagree") {
    int status = allGather(rank, world, 1, global);
    const char *error = shardrt_last_error();
    std::string others = world == 2 ? "rank 0" : "ranks 0, 2";
    failed = report(rank,
                    status == SHARDRT_ERROR_INVALID_ARGUMENT &&
                        contains(error, "rank 1 differs from " + others +
                                            " in the block table (" +
                                            std::to_string(world) +
                                            " blocks each, rows differ)"),
                    std::string("disagreement: ") + error);
  } else if (scenario == "after-finalize") {
    if (allGather(rank, world, -1, global) != SHARDRT_SUCCESS)
      failed = report(rank, false, shardrt_last_error());
    MPI_Finalize();
    int status = allGather(rank, world, -1, global);
    const char *error = shardrt_last_error();
    return failed | report(rank,
                           status == SHARDRT_ERROR_BACKEND &&
                               contains(error, "MPI has been finalized"),
                           std::string("after MPI_Finalize: ") + error);
  } else if (scenario == "first-call-desync") {
    for (int i = 0; i < 3; ++i) {
      if (allGather(rank, world, -1, global) != SHARDRT_SUCCESS)
        failed = report(rank, false, shardrt_last_error());
    }
    int status = allGather(rank, world, 1, global);
    failed = report(rank, false,
                    "the desynchronized call returned (status " +
                        std::to_string(status) + ": " + shardrt_last_error() +
                        ") instead of aborting");
  } else {
    failed = report(rank, false, "unknown scenario '" + scenario + "'");
  }

  int anyFailed = 0;
  MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  shardrt_finalize();
  MPI_Finalize();
  return anyFailed;
}
