//===- DisagreeTest.cpp - Ranks that disagree fail alike, again and again -===//
//
// Run under mpirun: shardrt-disagree-test <collective> [runs]
// where <collective> is all_gather, scatter, all_to_all (a redistribution
// that moves every rank's block to another rank) or reduce_scatter (a
// redistribute_reduce of partial values to chunks). Run i (default 40 runs):
// - rank `odd` = i % world passes another call than the others: in runs
//   0 and 2 (mod 4) its table splits the blocks of ranks 0 and 1 otherwise
//   (by half a block, alternately one way and the other, so that some of its
//   messages are longer and some shorter than their receivers expect); in
//   runs 1 and 3 (mod 4) a block its own checks reject (one element too
//   many), so that it sends its one-value agreement messages while the
//   others send data;
// - blocks of 3 + i elements (runs 0, 1 mod 4) and 3000 + i (runs 2, 3 mod
//   4: 12 KB messages, which move by rendezvous in Open MPI's shared memory,
//   where a receive shorter than its message is written past its end), every
//   call a new one (so that SHARDRT_AGREE=first-call checks each);
// - every rank must fail, naming the disagreement (or the rank that
//   rejected its arguments), without writing outside its buffers; then the
//   same collective, agreed on, must move the right data (the ranks' rounds
//   of messages are still aligned).
// Run it with SHARDRT_TIMEOUT_SECONDS=0 under an outer timeout: a rank that
// waits for another (in the call's messages, or in the failure path's
// MPI_Allgather) fails the test by the timeout. Each rank prints one line;
// the exit status says whether any rank failed.
//
//===----------------------------------------------------------------------===//

#include "shardrt.h"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// A float buffer with guard elements on both sides that must keep their
/// value.
class Guarded {
public:
  static constexpr int64_t kGuard = 8192;
  static constexpr float kCanary = -12345.0f;

  explicit Guarded(int64_t n) : n(n), storage(n + 2 * kGuard, kCanary) {
    std::fill(data(), data() + n, -1.0f);
  }
  float *data() { return storage.data() + kGuard; }
  float &operator[](int64_t i) { return data()[i]; }
  int64_t size() const { return n; }
  bool intact() const {
    return std::all_of(storage.begin(), storage.begin() + kGuard,
                       [](float v) { return v == kCanary; }) &&
           std::all_of(storage.end() - kGuard, storage.end(),
                       [](float v) { return v == kCanary; });
  }
  shardrt_tensor tensor() {
    return {data(), SHARDRT_F32, SHARDRT_DEVICE_CPU, 1, &n, &kUnit};
  }

private:
  static const int64_t kUnit;
  int64_t n;
  std::vector<float> storage;
};
const int64_t Guarded::kUnit = 1;

/// Offsets of `world` blocks of `per` elements in rank order; with `shift`,
/// the boundary between the blocks of ranks 0 and 1 moves by it.
std::vector<int64_t> cuts(int world, int64_t per, int64_t shift) {
  std::vector<int64_t> c(world + 1);
  for (int r = 0; r <= world; ++r)
    c[r] = r * per;
  c[1] += shift;
  return c;
}

/// Rows [owner, offset, size] of the blocks between `c`, block r owned by
/// `owner(r)`.
template <typename Owner>
std::vector<int64_t> tableOf(const std::vector<int64_t> &c, Owner owner) {
  std::vector<int64_t> t;
  for (size_t r = 0; r + 1 < c.size(); ++r)
    t.insert(t.end(), {owner(static_cast<int>(r)), c[r], c[r + 1] - c[r]});
  return t;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

struct Outcome {
  int status;
  std::string error;
  bool intact;
  bool correct; // the data, for an agreed call
};

/// Runs `collective` on this rank with blocks of `per` elements: agreeing
/// (`shift` 0, `extra` 0), with the boundary between the first two blocks
/// moved by `shift` in this rank's tables, or with a local block `extra`
/// elements longer than its table says.
Outcome run(const std::string &collective, int rank, int world, int64_t per,
            int64_t shift, int64_t extra) {
  const int64_t total = per * world;
  const std::vector<int64_t> mine = cuts(world, per, shift);
  const std::vector<int64_t> even = cuts(world, per, 0);
  auto self = [](int r) { return r; };
  Outcome out{0, "", true, true};
  if (collective == "all_gather" || collective == "scatter") {
    const std::vector<int64_t> table = tableOf(mine, self);
    Guarded local(mine[rank + 1] - mine[rank] + extra), global(total);
    const bool gather = collective == "all_gather";
    for (int64_t j = 0; j < local.size(); ++j)
      local[j] = static_cast<float>(mine[rank] + j) + 0.5f;
    for (int64_t i = 0; i < total && !gather; ++i)
      global[i] = static_cast<float>(i) + 0.5f;
    shardrt_tensor l = local.tensor(), g = global.tensor();
    out.status = gather ? shardrt_all_gather(&l, &g, table.data(), world)
                        : shardrt_scatter(&g, &l, table.data(), world, 0);
    out.intact = local.intact() && global.intact();
    for (int64_t i = 0; i < total && gather; ++i)
      out.correct &= global[i] == static_cast<float>(i) + 0.5f;
    for (int64_t j = 0; j < local.size() && !gather; ++j)
      out.correct &= local[j] == static_cast<float>(mine[rank] + j) + 0.5f;
  } else if (collective == "all_to_all") {
    // Blocks in rank order to blocks in reverse rank order.
    const std::vector<int64_t> src = tableOf(mine, self);
    const std::vector<int64_t> dst =
        tableOf(even, [&](int r) { return world - 1 - r; });
    const int d = world - 1 - rank;
    Guarded s(mine[rank + 1] - mine[rank]), t(per + extra);
    for (int64_t j = 0; j < s.size(); ++j)
      s[j] = static_cast<float>(mine[rank] + j) + 0.5f;
    shardrt_tensor sl = s.tensor(), tl = t.tensor();
    out.status =
        shardrt_redistribute(&sl, &tl, src.data(), world, dst.data(), world);
    out.intact = s.intact() && t.intact();
    for (int64_t j = 0; j < per; ++j)
      out.correct &= t[j] == static_cast<float>(even[d] + j) + 0.5f;
  } else if (collective == "reduce_scatter") {
    // Every rank holds the whole tensor (partial index = rank): summed into
    // chunks in rank order.
    std::vector<int64_t> src, partial;
    for (int r = 0; r < world; ++r) {
      src.insert(src.end(), {r, 0, total});
      partial.push_back(r);
    }
    const std::vector<int64_t> dst = tableOf(mine, self);
    Guarded s(total), t(mine[rank + 1] - mine[rank] + extra);
    for (int64_t i = 0; i < total; ++i)
      s[i] = static_cast<float>(i + rank);
    shardrt_tensor sl = s.tensor(), tl = t.tensor();
    out.status =
        shardrt_redistribute_reduce(&sl, &tl, src.data(), world, partial.data(),
                                    dst.data(), world, SHARDRT_SUM);
    out.intact = s.intact() && t.intact();
    const int64_t ranks = static_cast<int64_t>(world) * (world - 1) / 2;
    for (int64_t j = 0; j < t.size(); ++j)
      out.correct &=
          t[j] == static_cast<float>(world * (mine[rank] + j) + ranks);
  } else {
    out.status = -1;
    out.error = "unknown collective '" + collective + "'";
    return out;
  }
  if (out.status != SHARDRT_SUCCESS)
    out.error = shardrt_last_error();
  return out;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  const std::string collective = argc > 1 ? argv[1] : "";
  const int runs = argc > 2 ? std::atoi(argv[2]) : 40;
  // What names the disagreement: the table that differs.
  const std::string table =
      collective == "all_to_all"       ? "the source block table"
      : collective == "reduce_scatter" ? "the destination block table"
                                       : "the block table";
  std::string failure;
  for (int i = 0; i < runs && failure.empty() && world > 1; ++i) {
    const int odd = i % world;
    const bool reject = i % 2 == 1;
    const int64_t per = (i % 4 < 2 ? 3 : 3000) + i;
    const int64_t shift = (i / 4) % 2 == 0 ? per / 2 : -(per / 2);
    const std::string what =
        "run " + std::to_string(i) + " (rank " + std::to_string(odd) +
        (reject ? " rejects its arguments" : " passes another table") +
        ", blocks of " + std::to_string(per) + ")";
    Outcome o =
        run(collective, rank, world, per, rank == odd && !reject ? shift : 0,
            rank == odd && reject ? 1 : 0);
    // Who is named: with 2 ranks, rank 1 differs from rank 0 (ties go to
    // the lowest rank).
    const int named = world == 2 ? 1 : odd;
    const std::string expected =
        reject
            ? (rank == odd
                   ? "has sizes"
                   : "rank " + std::to_string(odd) + " rejected its arguments")
            : "the ranks disagree on the call: rank " + std::to_string(named) +
                  " differs from ";
    if (o.status == SHARDRT_SUCCESS)
      failure = what + ": the call succeeded on this rank";
    else if (!contains(o.error, expected) ||
             (!reject && !contains(o.error, table)))
      failure = what + ": \"" + o.error + "\" does not contain \"" + expected +
                "\"" + (reject ? "" : " and \"" + table + "\"");
    else if (!o.intact)
      failure = what + ": the call wrote outside this rank's buffers";
    if (!failure.empty())
      break;
    // The same collective, agreed on, right after.
    o = run(collective, rank, world, per, 0, 0);
    if (o.status != SHARDRT_SUCCESS)
      failure = what + ", then the agreed call failed: " + o.error;
    else if (!o.intact || !o.correct)
      failure = what + ", then the agreed call " +
                (o.intact ? "moved wrong data" : "wrote outside the buffers");
  }
  const bool ok = failure.empty() && world > 1;
  std::printf("rank %d: %s %s: %s\n", rank, ok ? "OK" : "FAILED",
              collective.c_str(),
              ok ? (std::to_string(runs) +
                    " runs, each failing on every rank with the cause named")
                       .c_str()
              : world > 1 ? failure.c_str()
                          : "needs at least 2 ranks");
  std::fflush(stdout);
  int failed = ok ? 0 : 1, anyFailed = 0;
  MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  shardrt_finalize();
  MPI_Finalize();
  return anyFailed;
}
