//===- Runtime.h - Internals shared by the runtime's parts ------*- C++ -*-===//
//
// A collective call, once its arguments are checked, becomes a `Collective`:
// the blocks as boxes, their owners, the views of the local and global
// tensors (for a redistribution: both layouts, this rank's two blocks and its
// part of the plan), and the prefix every message of the call starts with.
// The backends move the data; this header also holds the error helpers and
// the MPI state they share.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_RUNTIME_H
#define SHARDRT_RUNTIME_H

// The library is built with hidden visibility: only the C ABI is exported.
#pragma GCC visibility push(default)
#include "shardrt.h"
#pragma GCC visibility pop

#include "Pack.h"
#include "Reduce.h"
#include "shardc/Layout/Exchange.h"
#include "shardc/Layout/Layout.h"

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace shardc {
namespace rt {

// The plan of a redistribution is the layout library's, shared with the
// compiler.
using layout::BlockTable;
using layout::packedOffsets;
using layout::planRedistribution;
using layout::planReduction;
using layout::readBlockTable;
using layout::readPartialIndices;
using layout::readRedistributionTables;
using layout::RedistributionPlan;
using layout::RedistributionTables;
using layout::Result;
using layout::Transfer;

/// The collectives of the C ABI. Group is shardrt_group_collective (its
/// kind in Collective::group).
enum class OpKind {
  AllGather,
  Scatter,
  Redistribute,
  RedistributeReduce,
  Group
};

/// "all_gather", "scatter", "redistribute", "redistribute_reduce", "group".
const char *opName(OpKind op);
/// "all_gather", "reduce_scatter", ..., or "collective <n>" when unknown.
std::string groupKindName(int64_t kind);
/// Whether `op` moves a tensor between two block layouts.
inline bool isRedistribution(OpKind op) {
  return op == OpKind::Redistribute || op == OpKind::RedistributeReduce ||
         op == OpKind::Group;
}
/// "f32", ..., "ui8" (the MLIR suffixes), or "dtype <n>" when unknown.
std::string dtypeName(int32_t dtype);
/// "cpu", "cuda", or "device <n>" when unknown.
std::string deviceName(int32_t device);
/// The size of an element in bytes; 0 for an unknown dtype.
size_t elementSize(int32_t dtype);

/// "1 rank", "4 ranks".
std::string plural(int64_t n, const std::string &noun);

/// The CUDA stream this thread's calls are enqueued on
/// (shardrt_set_cuda_stream); null for the runtime's own.
void *threadCudaStream();

/// Records `message` as this thread's last error and returns `status`.
int fail(shardrt_status status, std::string message);

/// Initializes MPI unless somebody has (registering finalization at exit when
/// shardrt did). On failure sets the last error and returns its status.
int ensureMpi();
/// This process's rank and the world size; valid after ensureMpi succeeded.
int worldRank();
int worldSize();
/// The runtime's own duplicate of MPI_COMM_WORLD (errors return), created on
/// first use. Collective: called by every rank at the start of every
/// collective call. MPI_COMM_NULL on failure, with the last error set.
MPI_Comm worldComm(const std::string &prefix);
/// A second duplicate of MPI_COMM_WORLD, made with worldComm's: where ranks
/// waiting in an agreement's MPI_Iallreduce ask which ranks are there when
/// a timeout fires (Agreement.cpp), apart from every call's messages.
MPI_Comm rollCallComm();
/// Waits for `request`, a collective on MPI_COMM_WORLD that every rank
/// joins before the runtime's communicators exist (their MPI_Comm_idup):
/// meanwhile answers, and when the watchdog asks makes, a roll call on
/// MPI_COMM_WORLD (its two largest tags), so that a timeout names the ranks
/// not heard from. Returns MPI_Test's code.
int waitForEveryRankOfWorld(MPI_Request &request);
/// This process's rank among the ranks on its node (for picking a GPU);
/// valid after worldComm succeeded.
int nodeLocalRank();
/// MPI_Error_string of `code`.
std::string mpiErrorString(int code);

/// "shardrt: rank 2: all_gather(f32, cpu, world of 4 ranks): ". With a root
/// for scatter, with the reduction ("op sum") for redistribute_reduce; a
/// group collective is named by its kind ("group all_reduce(f32, ...").
std::string callPrefix(OpKind op, int32_t dtype, int32_t device, int64_t root,
                       int32_t reduce = SHARDRT_SUM, int32_t groupKind = -1);

namespace mpi {
struct Prepared;
} // namespace mpi

struct GroupPlan;

/// A named collective within groups (shardrt_group_collective): its kind,
/// root and reduction, and this rank's group.
struct GroupCall {
  shardrt_collective kind = SHARDRT_COLLECTIVE_ALL_GATHER;
  /// broadcast, gather: the root's world rank; -1 otherwise.
  int64_t root = -1;
  /// Per world rank: the dense index of its group (0, 1, ... in the order of
  /// the groups' ids), or -1 when it takes no part; and its position.
  std::vector<int> color, position;
  /// This rank's group: its members' world ranks, by position (empty when
  /// it takes no part).
  std::vector<int> members;
  /// A hash of `color` and `position` (in CallSummary: to tell ranks that
  /// pass other groups).
  int64_t groupsHash = 0;
  /// The communicator of this rank's group (MPI_COMM_NULL when it takes no
  /// part), set before the data moves.
  MPI_Comm comm = MPI_COMM_NULL;
  /// What the backends derive on the call's first run (GroupPlan.h).
  mutable std::shared_ptr<GroupPlan> plan;
};

/// A checked collective call. A redistribution keeps its source layout in the
/// fields of the other calls (boxes, owners, blockOfRank, counts, myBlock,
/// with `local` this rank's source block) and its destination layout in
/// `dst`; its `global` has no data, only the sizes the tables span.
struct Collective {
  // What every repeat of a kept call reads first, together.
  OpKind op = OpKind::AllGather;
  shardrt_dtype dtype = SHARDRT_F32;
  size_t elemSize = 0;
  shardrt_device device = SHARDRT_DEVICE_CPU;
  int rank = 0;
  int worldSize = 1;
  /// Whether the arguments passed this rank's checks (the fields below are
  /// then complete), and then callHash of the call.
  bool checked = false;
  int64_t hash = 0;
  /// Whether the watchdog watches the call (SHARDRT_TIMEOUT_SECONDS > 0).
  bool watched = false;
  /// Whether this call's messages carry the ranks' agreement (see
  /// agreesInMessages): every rank then sends exactly one message, empty
  /// when it has no data for it, to every other rank, tagged `tag`, and
  /// receives one from each with any tag. `tag` is `callTag` (from the hash)
  /// or 0 on a rank whose checks failed.
  bool agreeInMessages = false;
  int callTag = 0;
  int tag = 0;
  /// The communicator the data moves on in this call (the runtime's world).
  MPI_Comm comm = MPI_COMM_NULL;
  /// What the MPI backend derives from the call on its first run (offsets
  /// relative to the buffers), kept while the call is cached.
  mutable std::shared_ptr<mpi::Prepared> mpiPrepared;
  /// The root of a scatter.
  int root = 0;
  /// The whole tensor. Its data is null on scatter ranks other than root.
  View global;
  /// This rank's block; meaningful only when myBlock >= 0.
  View local;
  /// Per block: its box and its owner.
  std::vector<layout::Box> boxes;
  std::vector<int> owners;
  /// Per rank: the block it owns, or -1.
  std::vector<int64_t> blockOfRank;
  /// Per rank: the number of elements of its block (0 when none).
  std::vector<int64_t> counts;
  /// The block this rank owns, or -1.
  int64_t myBlock = -1;
  /// Redistribute: the destination layout, the block this rank owns in it
  /// (or -1), that block's view, and this rank's part of the plan.
  BlockTable dst;
  int64_t myDstBlock = -1;
  View dstLocal;
  RedistributionPlan plan;
  /// Redistribute: the view of every block this rank owns, by index in the
  /// source and destination tables (`local` and `dstLocal` are the first
  /// ones), and the buffers that hold them: offsets in a transfer are
  /// counted from `srcBase` and `dstBase`.
  std::map<int64_t, View> srcViews, dstViews;
  char *srcBase = nullptr, *dstBase = nullptr;
  /// Redistribute_reduce: the partial index of every source block, and how
  /// partial values combine.
  std::vector<int64_t> partial;
  shardrt_reduce reduce = SHARDRT_SUM;
  /// What every message of the call starts with.
  std::string prefix;
  /// A group collective's kind and groups.
  GroupCall group;
  /// The bytes this rank receives in a run of the call
  /// (shardrt_bytes_received), once derived (-1 before).
  int64_t received = -1;

  /// Sets the last error to prefix + `what` and returns `status`.
  int fail(shardrt_status status, const std::string &what) const;
  /// "global [6, 10], elements per rank [18, 18, 18, 6]"; for a
  /// redistribution "global [6, 10], source elements per rank [...],
  /// destination elements per rank [...]".
  std::string describeCounts() const;
  /// The sum of `counts`.
  int64_t totalCount() const;
};

/// Checks the arguments of a collective call on this rank (without any
/// communication) and fills `c`, whose rank, worldSize and prefix the caller
/// has set. On failure returns the status and sets `problem` (to be appended
/// to the prefix).
int checkCall(OpKind op, const shardrt_tensor *local,
              const shardrt_tensor *global, const int64_t *blocks,
              int64_t numBlocks, int64_t root, Collective &c,
              std::string &problem);

/// The buffers of shardrt_redistribute_packed: each rank's blocks of a
/// table, row-major, one after the other in table order.
struct PackedBuffers {
  void *src = nullptr;
  void *dst = nullptr;
  int32_t dtype = 0;
  int32_t device = 0;
  int64_t rank = 0;
};

/// Checks the arguments of a redistribution on this rank (without any
/// communication), fills `c` (whose op, rank, worldSize and prefix the caller
/// has set) and plans this rank's part. The blocks come as views
/// (`srcLocal`, `dstLocal`: at most one block per rank of each table) or, when
/// `packed` is given, packed. For redistribute_reduce, `partial` and `reduce`
/// are its src_partial and op (ignored otherwise). On failure returns the
/// status and sets `problem`.
int checkRedistribute(const shardrt_tensor *srcLocal,
                      const shardrt_tensor *dstLocal,
                      const PackedBuffers *packed, const int64_t *srcBlocks,
                      int64_t numSrc, const int64_t *partial,
                      const int64_t *dstBlocks, int64_t numDst, int32_t reduce,
                      Collective &c, std::string &problem);

/// Checks the kind, root, reduction and groups table of a group collective
/// whose tables `c` holds (after checkRedistribute): the groups partition
/// the ranks that take part, and within every group the source and
/// destination blocks are what the kind makes of them. Fills c.group. On
/// failure returns the status and sets `problem`.
int checkGroup(int32_t kind, const int64_t *groups, int64_t numMembers,
               int64_t root, int32_t reduce, Collective &c,
               std::string &problem);

/// The box rank `r` holds in a table with at most one block per rank, or
/// nullopt when it holds none (a 0-D tensor's box is its one element).
std::optional<layout::Box> boxOf(const std::vector<layout::Box> &boxes,
                                 const std::vector<int> &owners, int r);
/// The number of elements of a box (0 when none or empty).
int64_t volumeOf(const std::optional<layout::Box> &box);

/// The most communicators of groups kept at once (by each backend).
constexpr size_t kMaxGroupComms = 16;
/// The communicator of this rank's group of `c` (MPI_COMM_NULL when it takes
/// no part), split from `base` by every rank on first use and kept, by
/// `base` and the groups' colors and positions, among the kMaxGroupComms
/// most recently used. Every rank calls it for every agreed group call, so
/// every rank keeps and frees the same communicators. Collective over
/// `base`. On failure sets the last error and returns false.
bool groupComm(const Collective &c, MPI_Comm base, MPI_Comm &comm);
/// Frees the kept group communicators (those split from `base` when given:
/// it is about to be freed).
void releaseGroupComms(MPI_Comm base = MPI_COMM_NULL);

/// What every rank must pass alike, as int64 values (MPI_Allgather sends
/// them as such): the operation, dtype, device, root (scatter), reduction
/// (redistribute_reduce; -1 otherwise), tensor rank, and hashes of the
/// global sizes, the block tables and the partial indices; `hash` covers
/// them all.
struct CallSummary {
  int64_t op, dtype, device, root, reduce, tensorRank, sizesHash;
  int64_t numSrc, srcHash, numDst, dstHash, partialHash;
  /// A group collective's kind and groups (-1 and 0 otherwise).
  int64_t groupKind, groupsHash;
  int64_t hash;
};
CallSummary summarizeCall(const Collective &c);
/// summarizeCall(c).hash: to detect ranks that disagree.
int64_t callHash(const Collective &c);
/// What differs between two calls: "the destination block table (4 blocks vs
/// 3)", "the dtype (f32 vs f16) and the root (1 vs 0)".
std::string describeDifference(const CallSummary &a, const CallSummary &b);
/// Names the ranks that disagree, given every rank's summary (by rank):
/// "rank 1 differs from ranks 0, 2, 3 in the source block table (4 blocks vs
/// 4)". The largest group of ranks passing one call is the reference (the
/// one with the lowest rank on ties).
std::string describeDisagreement(const std::vector<CallSummary> &all);

/// Element offsets in the global view of every rank's block when each
/// non-empty block is contiguous there and no two share memory, so that the
/// data can move straight into (or out of) the global tensor; nullopt
/// otherwise. Ranks without data get 0.
std::optional<std::vector<int64_t>> directOffsets(const Collective &c);

/// The element offsets, in a staging buffer, of every rank's block but
/// root's, packed in rank order (root's own block is copied locally); sets
/// `total` to the elements staged.
std::vector<int64_t> scatterStagingOffsets(const Collective &c, int64_t &total);
/// Element offsets of every rank's block when the blocks lie one after the
/// other in rank order (a staging buffer).
std::vector<int64_t> stagedOffsets(const Collective &c);

/// Per peer of the world, the element offset from `base` of the box it moves
/// with that peer (`viewOf(transfer)`: its view, in one of this rank's
/// blocks), when every peer moves at most one box, each contiguous at a
/// non-negative offset, and (when `disjoint`) no two boxes share memory, so
/// that the data can move straight out of (or into) the blocks; nullopt
/// otherwise. Peers without a transfer get 0.
std::optional<std::vector<int64_t>>
directTransferOffsets(const std::vector<Transfer> &transfers, const char *base,
                      const std::function<View(const Transfer &)> &viewOf,
                      int worldSize, size_t elemSize, bool disjoint);

/// The timeout of a collective call, from the environment variable
/// SHARDRT_TIMEOUT_SECONDS (read once): a number of seconds, 0 for none;
/// 600 when unset. `problem` says why the variable is unusable (every call
/// then fails with SHARDRT_ERROR_INVALID_ARGUMENT).
struct CallTimeout {
  double seconds = 600;
  std::string problem;
};
const CallTimeout &callTimeout();

/// When and how the ranks check that they agree on a call
/// (SHARDRT_AGREE):
/// - every-call (the default): on every call; in worlds of up to
///   kAgreeInMessagesMaxRanks ranks within the call's own messages (no
///   message of its own), in larger worlds by an MPI_Allreduce before the
///   data moves;
/// - allreduce: on every call, always by the MPI_Allreduce;
/// - first-call: by the MPI_Allreduce before the first of each distinct
///   cached call only (its repeats then move their data on a communicator
///   of their own, so that ranks making different calls wait for each
///   other, and the watchdog ends the wait, instead of mixing data).
/// `problem` says why the variable is unusable.
struct AgreeMode {
  enum Kind { EveryCall, Allreduce, FirstCall } kind = EveryCall;
  std::string problem;
};
const AgreeMode &agreeMode();
constexpr int kAgreeInMessagesMaxRanks = 16;
/// Whether calls in a world of `worldSize` ranks agree within their
/// messages: each rank's message to each other rank is tagged with (31 bits
/// of) the call's hash, or with 0 when its checks failed; a message under
/// another tag than the receiver's, or of another size, means the ranks
/// disagree, and every rank sees such a message when any two ranks do.
bool agreesInMessages(int worldSize);
/// The internal status of a call whose messages showed that the ranks
/// disagree or that one failed its checks: the runtime then learns which
/// from every rank (never returned to the user).
constexpr int kRanksDisagree = 1000;

/// What became of the data when the ranks find, before any moves, that
/// they cannot run the call, and when they find it within the call's
/// messages.
inline constexpr const char *kNoDataMoved = "no data was moved";
inline constexpr const char *kDataUndefined =
    "the destination buffers hold undefined values";

// Agreement.cpp.

/// Once every rank knows that a rank failed its checks (this one: `status`
/// and `problem`) or that the ranks disagree on the call: learns which from
/// every rank and fails alike on every rank; `after` says what became of
/// the data.
int failAlike(const Collective &c, MPI_Comm comm, int status,
              const std::string &problem, const char *after);
/// The tag of a checked call's messages when they carry the agreement.
int messageTag(const Collective &c);
/// What every rank contributes to the agreement, and learns from it: the
/// largest over the ranks of each.
struct AgreedValues {
  /// The call's own (redistribute: whether any rank sends).
  int64_t flag = 0;
  /// A CUDA call's: the epoch of the NCCL communicators (nccl::epoch()).
  int64_t epoch = 0;
};
/// Agrees on `c` within one round of messages that carry only `values`;
/// returns kRanksDisagree when they show that the ranks disagree.
int agreeByFlags(const Collective &c, AgreedValues &values);
/// Agrees with every rank on `c` on `world` by an MPI_Allreduce, or, under
/// SHARDRT_AGREE=first-call, recalls an agreed call; sets c.comm.
int agreeOrRecall(Collective &c, MPI_Comm world, int status,
                  const std::string &problem, AgreedValues &values);
/// Frees the communicators of agreed calls (at finalize, World.cpp).
void releaseAgreedCalls();

/// Watches the collective call `c` while it lives: when it runs longer than
/// the timeout, a watchdog thread prints c's prefix, the step it waits in
/// (watchStep) and its sizes, runs the abort hooks and aborts every rank
/// (MPI_Abort). At most one call is watched at a time (MPI is used serially).
class CallWatch {
public:
  /// `outlivesCall`: `c` is cached, so it is not destroyed when the call
  /// returns (forgetWatchedCall runs before it is).
  CallWatch(const Collective &c, bool outlivesCall);
  ~CallWatch();
  CallWatch(const CallWatch &) = delete;
  CallWatch &operator=(const CallWatch &) = delete;

private:
  bool outlivesCall;
  bool armed = false;
};
/// Returns once the watchdog no longer reads a call that is not in flight
/// (it reads the one in flight when it reports): a call kept after its
/// return may then be destroyed.
void forgetWatchedCall();
/// Names the step the watched call is in ("in MPI_Alltoallv"); `what` must
/// outlive the call (a string literal).
void watchStep(const char *what);
/// Whether the watchdog, about to report the call in flight, asks which
/// ranks have not joined it (a relaxed load: for waiting loops to poll).
bool watchAsksWhoIsMissing();
/// Answers it: the ranks of the call not heard from ("2", "1, 3 and 5",
/// empty when unknown).
void watchTellMissing(const std::string &ranks);
/// "2", "1 and 3", "1, 3 and 5"; past 16 ranks, the first 16 and a count.
std::string rankList(const std::vector<int> &ranks);
/// Registers a function the watchdog runs before MPI_Abort (once per hook).
void addAbortHook(void (*hook)());

/// A redistribution's views, in this rank's blocks: of a transfer's box in
/// the source block it is sent from and in the destination block it arrives
/// in; of local copy `i` of the plan in its source and destination blocks.
View sendView(const Collective &c, const Transfer &t);
View receiveView(const Collective &c, const Transfer &t);
View copySource(const Collective &c, size_t i);
View copyDestination(const Collective &c, size_t i);

/// What moves a checked call's data: the MPI backend (host buffers) or the
/// NCCL backend (CUDA buffers), chosen by the call's device (backendFor).
/// runCall (Runtime.cpp) drives every call through these steps, in order,
/// with no device branches of its own.
class Backend {
public:
  virtual ~Backend() = default;
  /// When the call is first checked (before it is kept): what this backend
  /// cannot take, whatever the buffers.
  virtual int checkOnce(const Collective &c, std::string &problem) const = 0;
  /// On every call, before the ranks agree: this rank's buffers.
  virtual int checkBuffers(const Collective &c, std::string &problem) const = 0;
  /// Whether the call's data messages can carry the ranks' agreement (MPI's
  /// tagged messages; NCCL's cannot: its ranks agree in a round of their
  /// own first).
  virtual bool dataCarriesAgreement(const Collective &c) const = 0;
  /// The value the ranks agree on with the call (NCCL: its communicators'
  /// epoch; 0 otherwise).
  virtual int64_t epoch() const = 0;
  /// Once the ranks agreed: what the call needs made first (NCCL: the
  /// communicators of the agreed epoch).
  virtual int prepare(const Collective &c, int64_t agreedEpoch) const = 0;
  /// A failure after the ranks agreed: tells the others where they may wait
  /// for this rank (NCCL); returns `status`.
  virtual int failedAfterAgreement(const Collective &c, int status) const = 0;
  virtual int allGather(const Collective &c) const = 0;
  virtual int scatter(const Collective &c) const = 0;
  virtual int redistribute(const Collective &c) const = 0;
  virtual int groupCollective(Collective &c) const = 0;
};

/// The backend of `c`'s device.
const Backend &backendFor(const Collective &c);

namespace mpi {
/// The MPI backend as a Backend.
const Backend &backend();
/// The MPI backend (host buffers). Every rank calls them with the same,
/// checked call; they return a shardrt_status, or kRanksDisagree when the
/// call's messages carry the agreement and show that the ranks disagree.
/// redistribute also runs redistribute_reduce.
int allGather(const Collective &c);
int scatter(const Collective &c);
int redistribute(const Collective &c);
/// A group collective, on c.group.comm (MpiGroups.cpp).
int groupCollective(const Collective &c);
/// Checks, before the ranks agree, that a call fits MPI's int counts and
/// displacements: every block of an all_gather or scatter, the staged
/// blocks, this rank's part of a redistribution. Returns a status and sets
/// `problem` on failure.
int checkCounts(const Collective &c, std::string &problem);

/// A callable passed down a call without copying or allocating: it refers
/// to `f`, which must outlive it.
class Callback {
public:
  Callback() = default;
  template <typename F, typename = std::enable_if_t<
                            !std::is_same_v<std::decay_t<F>, Callback>>>
  Callback(F &f) // NOLINT: converts implicitly, like a function reference
      : object(&f), call([](void *o) { (*static_cast<F *>(o))(); }) {}
  explicit operator bool() const { return call != nullptr; }
  void operator()() const { call(object); }

private:
  void *object = nullptr;
  void (*call)(void *) = nullptr;
};

/// The messages of one call between this rank and every other: to and from
/// rank p, counts of `type` at element offsets (of `elemSize` bytes) from
/// the bases. This rank's own entries are ignored.
struct Messages {
  MPI_Datatype type;
  size_t elemSize;
  const char *sendBase;
  const int *sendCounts, *sendDispls;
  char *recvBase;
  const int *recvCounts, *recvDispls;
};
/// Sends and receives them on c.comm, running `beforeSends` (when given: the
/// call's local copies) before any send: copying before the sends keeps a
/// peer that reads this rank's data (single-copy shared memory) from waiting
/// on the copy (measured: 3 to 6% of a 64 KiB exchange on 2 ranks).
/// - When c.agreeInMessages, every pair exchanges a message, empty ones too,
///   tagged c.tag: every receive posted under c.tag (MPI_Irecv), then the
///   sends (MPI_Isend), then MPI_Testall until all complete, looking now and
///   then for a message under another tag from a peer whose receive has not
///   matched (MPI_Iprobe): such a message (another call's, or a rank's whose
///   checks failed) is received whole into a buffer of its own size, its
///   receive cancelled, and makes it return kRanksDisagree, on every rank
///   when any two differ. No receive is ever shorter than its message (Open
///   MPI writes a truncated rendezvous message past the receive's end).
/// - Otherwise (the ranks agreed before) only the non-empty messages move,
///   under tag 0: every receive posted (MPI_Irecv), then the sends
///   (MPI_Isend, MPI_Send for the last peer), then MPI_Waitall.
/// Every message is received and every send completes before it returns.
int exchangeMessages(const Collective &c, const Messages &m,
                     Callback beforeSends = {});
/// The MPI datatype of `elemSize` bytes the backend moves data as.
MPI_Datatype elementType(size_t elemSize);
} // namespace mpi

#ifdef SHARDRT_HAVE_NCCL
namespace nccl {
/// The NCCL backend as a Backend.
const Backend &backend();
/// Local checks of a CUDA call before any communication: a visible GPU, the
/// buffers in device memory on this rank's GPU. Returns a status and sets
/// `problem` on failure.
int checkLocal(const Collective &c, std::string &problem);
/// The epoch of this rank's NCCL communicators: how many times it has
/// abandoned them (aborted, to be made anew) after a failure within a call,
/// its own or another rank's. Every CUDA call's agreement carries it.
int64_t epoch();
/// Makes the world's NCCL communicator and the runtime's stream on first
/// use, and again after the communicators were abandoned. Every rank calls
/// it once the ranks agree on a CUDA call, before any rank can return
/// early, with the largest epoch of any rank: a rank behind it abandons its
/// communicators first (another rank failed within a call whose part this
/// rank completed, or did not take), so that every rank makes them anew
/// alike.
int prepare(const Collective &c, int64_t agreedEpoch);
/// Called with the `status` of a CUDA call that failed after the ranks
/// agreed on it. Unless the failure was another rank's (already handled),
/// the other ranks may wait for this rank's part: it tells them (an alert,
/// naming its error, on which they end their part of the call), aborts its
/// communicators so that no NCCL work it queued still writes into its
/// buffers, waits for its stream, and starts the next epoch. Returns
/// `status`.
int failedAfterAgreement(const Collective &c, int status);
/// The NCCL backend (device buffers). Every rank calls them with the same,
/// checked call, after prepare().
int allGather(const Collective &c);
int scatter(const Collective &c);
int redistribute(const Collective &c);
/// A group collective, on its group's NCCL communicator (NcclGroups.cpp).
int groupCollective(const Collective &c);
/// CUDA managed memory of `bytes` (reachable from the host and every GPU),
/// or null when no GPU is visible or the allocation fails: what compiled
/// programs allocate their buffers with (_mlir_memref_to_llvm_alloc).
void *managedAlloc(size_t bytes);
/// Frees `p` when managedAlloc returned it; false for other memory.
bool managedFree(void *p);
/// The CUDA devices this process sees (0 when none, or on an error).
int visibleDevices();
/// Destroys the communicators, the stream and the staging buffers once the
/// stream is idle (aborts the communicators when it is still running after
/// the call timeout). Run by shardrt_finalize, by MPI_Finalize whoever
/// calls it, and at exit; the next CUDA call creates them again.
void release();
} // namespace nccl
#endif

} // namespace rt
} // namespace shardc

#endif // SHARDRT_RUNTIME_H
