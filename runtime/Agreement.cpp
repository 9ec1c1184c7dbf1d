//===- Agreement.cpp - Every rank agrees on a call before it counts -------===//
//
// Before a call's results count, the ranks learn that every rank's local
// checks passed and that all pass the same call: within the call's own
// messages (tags), by a round of two-value messages, or by an MPI_Iallreduce;
// under SHARDRT_AGREE=first-call only on a call's first run (docs/runtime.md).
// When they disagree, every rank fails alike, naming the ranks and what
// differs.
//
//===----------------------------------------------------------------------===//

#include "RecentlyUsed.h"
#include "Runtime.h"

#include <algorithm>
#include <chrono>
#include <vector>

namespace shardc {
namespace rt {

namespace {
/// What a rank passed, as every rank learns it when one failed its checks
/// or the ranks disagree.
struct RankCall {
  int64_t status;
  CallSummary summary;
};
} // namespace

/// Once every rank knows that a rank failed its checks (this one: `status`
/// and `problem`) or that the ranks disagree on the call: learns which from
/// every rank (one MPI_Allgather, on this failure path only) and fails
/// alike on every rank (after this rank's prefix): with this rank's own
/// problem, else naming the first rank that rejected its arguments, else the
/// ranks that disagree and on what. `after` says what became of the data.
int failAlike(const Collective &c, MPI_Comm comm, int status,
              const std::string &problem, const char *after) {
  RankCall mine{status, {}};
  if (status == SHARDRT_SUCCESS)
    mine.summary = summarizeCall(c);
  constexpr int kFields = sizeof(RankCall) / sizeof(int64_t);
  std::vector<RankCall> all(c.worldSize);
  watchStep("gathering what every rank passes (a rank rejected its "
            "arguments, or the ranks disagree on the call)");
  int rc = MPI_Allgather(&mine, kFields, MPI_INT64_T, all.data(), kFields,
                         MPI_INT64_T, comm);
  if (status != SHARDRT_SUCCESS)
    return c.fail(static_cast<shardrt_status>(status), problem);
  if (rc != MPI_SUCCESS)
    return c.fail(SHARDRT_ERROR_INVALID_ARGUMENT,
                  "a rank rejected its arguments or the ranks disagree on the "
                  "call (MPI_Allgather, to learn which, failed: " +
                      mpiErrorString(rc) + "); " + after);
  for (int r = 0; r < c.worldSize; ++r) {
    if (all[r].status != SHARDRT_SUCCESS)
      return c.fail(static_cast<shardrt_status>(all[r].status),
                    "rank " + std::to_string(r) +
                        " rejected its arguments (see its message); " + after);
  }
  std::vector<CallSummary> summaries;
  for (const RankCall &call : all)
    summaries.push_back(call.summary);
  return c.fail(SHARDRT_ERROR_INVALID_ARGUMENT,
                "the ranks disagree on the call: " +
                    describeDisagreement(summaries) + "; " + after);
}

namespace {

/// Where a roll call is made: a communicator and its two tags, "who is
/// waiting here?" and "this rank is".
struct RollCall {
  MPI_Comm comm;
  int ask, here;
};

/// The agreement's: on rollCallComm, apart from every call's messages.
RollCall agreementRollCall() { return {rollCallComm(), 1, 2}; }

/// Before the runtime's communicators exist (while every rank's first call
/// makes them): MPI_COMM_WORLD, with its two largest tags, which the
/// program's own messages are unlikely to use. Only ranks waiting there
/// probe for them, and only a timeout sends them.
RollCall worldRollCall() {
  static const int upper = [] {
    int *value = nullptr;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &found);
    return found && value && *value > 2 ? *value : 32767;
  }();
  return {MPI_COMM_WORLD, upper - 1, upper};
}

/// How long a rank that asks waits for the answers (the watchdog waits up to
/// a second for its list).
constexpr double kRollCallSeconds = 0.5;

/// Answers every rank that asked whether this one waits there too (those
/// ranks wait there too: marked in `present` when given).
void answerRollCalls(const RollCall &roll, std::vector<char> *present) {
  static const char here = 1;
  for (;;) {
    int found = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, roll.ask, roll.comm, &found, &status) !=
            MPI_SUCCESS ||
        !found)
      return;
    char ask = 0;
    MPI_Recv(&ask, 1, MPI_CHAR, status.MPI_SOURCE, roll.ask, roll.comm,
             MPI_STATUS_IGNORE);
    MPI_Request reply;
    if (MPI_Isend(&here, 1, MPI_CHAR, status.MPI_SOURCE, roll.here, roll.comm,
                  &reply) == MPI_SUCCESS)
      MPI_Request_free(&reply);
    if (present)
      (*present)[status.MPI_SOURCE] = 1;
  }
}

/// When the watchdog fires while this rank waits for `pending` (which every
/// rank of the world must join): asks every other rank whether it waits
/// there too and lists those that do not answer within kRollCallSeconds
/// (rankList). Ranks that joined answer from their own wait loop; one that
/// joins meanwhile completes `pending`, and then none is missing. The
/// watchdog aborts every rank next, so the asks that nobody answered are
/// never seen.
std::string rollCall(const RollCall &roll, int rank, int size,
                     MPI_Request &pending) {
  static const char ask = 1;
  std::vector<char> present(size, 0);
  present[rank] = 1;
  for (int r = 0; r < size; ++r) {
    MPI_Request request;
    if (r != rank && MPI_Isend(&ask, 1, MPI_CHAR, r, roll.ask, roll.comm,
                               &request) == MPI_SUCCESS)
      MPI_Request_free(&request);
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(kRollCallSeconds);
  int heard = 1;
  while (heard < size && std::chrono::steady_clock::now() < deadline) {
    answerRollCalls(roll, &present);
    int found = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, roll.here, roll.comm, &found, &status) ==
            MPI_SUCCESS &&
        found) {
      char here = 0;
      MPI_Recv(&here, 1, MPI_CHAR, status.MPI_SOURCE, roll.here, roll.comm,
               MPI_STATUS_IGNORE);
      present[status.MPI_SOURCE] = 1;
    }
    int done = 0;
    if (MPI_Test(&pending, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done)
      return "";
    heard = static_cast<int>(std::count(present.begin(), present.end(), 1));
  }
  std::vector<int> missing;
  for (int r = 0; r < size; ++r)
    if (!present[r])
      missing.push_back(r);
  return rankList(missing);
}

/// Waits for `request`, which every rank of `roll`'s communicator must
/// join, answering roll calls and, when the watchdog asks, making one.
int waitNamingMissing(const RollCall &roll, int rank, int size,
                      MPI_Request &request) {
  for (unsigned spin = 1;; ++spin) {
    int done = 0;
    const int rc = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || done)
      return rc;
    if (spin % 8 != 0)
      continue;
    answerRollCalls(roll, nullptr);
    if (watchAsksWhoIsMissing())
      watchTellMissing(rollCall(roll, rank, size, request));
  }
}

} // namespace

/// Agrees with every rank on the call by an MPI_Iallreduce before any data
/// moves: that every rank's local checks passed (this rank's outcome:
/// `status` and `problem`) and that all pass the same call (the same
/// callHash). `values` are this rank's part of maxima over all ranks, which
/// it receives. On failure fails alike on every rank (failAlike).
int agree(const Collective &c, MPI_Comm comm, int status,
          const std::string &problem, AgreedValues &values) {
  // Whether any rank failed, whether all ranks pass the same call (the
  // maximum of the hash and of its negation), and the values.
  const int64_t hash = status == SHARDRT_SUCCESS ? c.hash : 0;
  int64_t mine[5] = {status == SHARDRT_SUCCESS ? 0 : 1, hash, -hash,
                     values.flag, values.epoch};
  int64_t all[5] = {0, 0, 0, 0, 0};
  watchStep("waiting for every rank to join the call (the MPI_Iallreduce "
            "that checks that all ranks agree on it)");
  // Non-blocking, so that this thread can tell the watchdog which ranks
  // have not joined (a roll call among the ranks waiting here) and answer
  // the roll calls of others. It costs about 0.85 us per call more than a
  // blocking MPI_Allreduce (2.07 against 1.22 us, 8 B reduce_scatter on 2
  // ranks), paid only where the messages cannot carry the agreement.
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Iallreduce(mine, all, 5, MPI_INT64_T, MPI_MAX, comm, &request);
  if (rc == MPI_SUCCESS)
    rc = waitNamingMissing(agreementRollCall(), c.rank, c.worldSize, request);
  if (rc != MPI_SUCCESS)
    return c.fail(SHARDRT_ERROR_BACKEND,
                  "MPI_Iallreduce (checking that all ranks agree on the call) "
                  "failed: " +
                      mpiErrorString(rc));
  if (all[0] != 0 || all[1] != mine[1] || all[2] != mine[2])
    return failAlike(c, comm, status, problem, kNoDataMoved);
  values = {all[3], all[4]};
  return SHARDRT_SUCCESS;
}

int waitForEveryRankOfWorld(MPI_Request &request) {
  return waitNamingMissing(worldRollCall(), worldRank(), worldSize(), request);
}

/// The tag of a checked call's messages when they carry the agreement: 1 to
/// MPI_TAG_UB from the hash (a rank whose checks failed sends tag 0).
int messageTag(const Collective &c) {
  static const int64_t upper = [] {
    int *value = nullptr;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &found);
    return found && value && *value > 1 ? int64_t(*value) : int64_t(32767);
  }();
  return static_cast<int>(1 +
                          static_cast<int64_t>(static_cast<uint64_t>(c.hash) %
                                               static_cast<uint64_t>(upper)));
}

/// Agrees on `c` within one round of messages that carry only `values`
/// (calls whose data does not move in MPI messages, and ranks whose checks
/// failed), each of which becomes the maximum over all ranks. Returns
/// kRanksDisagree when the messages show that the ranks disagree.
int agreeByFlags(const Collective &c, AgreedValues &values) {
  const int world = c.worldSize;
  const int64_t mine[2] = {values.flag, values.epoch};
  std::vector<int64_t> all(2 * static_cast<size_t>(world), 0);
  std::vector<int> twos(world, 2), zeros(world, 0), displs(world);
  for (int r = 0; r < world; ++r)
    displs[r] = 2 * r;
  int status = mpi::exchangeMessages(
      c, {MPI_INT64_T, sizeof(int64_t), reinterpret_cast<const char *>(mine),
          twos.data(), zeros.data(), reinterpret_cast<char *>(all.data()),
          twos.data(), displs.data()});
  if (status != SHARDRT_SUCCESS)
    return status;
  for (int r = 0; r < world; ++r) {
    if (r == c.rank)
      continue;
    values.flag = std::max(values.flag, all[2 * r]);
    values.epoch = std::max(values.epoch, all[2 * r + 1]);
  }
  return SHARDRT_SUCCESS;
}

/// With SHARDRT_AGREE=first-call: the calls the ranks agreed on, by hash
/// (alike on every rank), each with a communicator of its own on which its
/// repeats move their data without agreeing again, and the flag the ranks
/// agreed on. Ranks that make the same calls see the same hashes in the same
/// order, so they evict alike (the least recently used of 16).
namespace {
struct Agreed {
  MPI_Comm comm;
  AgreedValues values;
};
using AgreedCalls = RecentlyUsed<int64_t, Agreed>;

void freeAgreed(Agreed &a) {
  releaseGroupComms(a.comm);
  MPI_Comm_free(&a.comm);
}

AgreedCalls &agreedCalls() {
  static AgreedCalls *calls = new AgreedCalls(16);
  return *calls;
}
} // namespace

void releaseAgreedCalls() { agreedCalls().clear(freeAgreed); }

/// Agrees with every rank on `c` on `world` (the runtime's communicator),
/// or, under SHARDRT_AGREE=first-call, skips that for a CPU call agreed on
/// before; sets c.comm to the communicator the data moves on.
int agreeOrRecall(Collective &c, MPI_Comm world, int status,
                  const std::string &problem, AgreedValues &values) {
  const bool firstCall = agreeMode().kind == AgreeMode::FirstCall &&
                         c.device == SHARDRT_DEVICE_CPU;
  if (firstCall && status == SHARDRT_SUCCESS && c.checked) {
    if (const Agreed *agreed = agreedCalls().find(c.hash)) {
      c.comm = agreed->comm;
      values = agreed->values;
      return SHARDRT_SUCCESS;
    }
  }
  c.comm = world;
  if (int failed = agree(c, world, status, problem, values))
    return failed;
  if (!firstCall)
    return SHARDRT_SUCCESS;
  // Every rank has agreed, so every rank duplicates here.
  MPI_Comm comm = MPI_COMM_NULL;
  int rc = MPI_Comm_dup(world, &comm);
  if (rc != MPI_SUCCESS)
    return c.fail(SHARDRT_ERROR_BACKEND,
                  "MPI_Comm_dup (the communicator of an agreed call) failed: " +
                      mpiErrorString(rc));
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  agreedCalls().insert(c.hash, Agreed{comm, values}, freeAgreed);
  return SHARDRT_SUCCESS;
}

} // namespace rt
} // namespace shardc
