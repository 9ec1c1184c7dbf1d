//===- Runtime.cpp - The C ABI: initialization, errors, dispatch ----------===//
//
// Every collective call runs the same steps on every rank: check the
// arguments locally, agree with all ranks that everybody's arguments are fine
// and alike (within the call's own messages in small worlds, else by one
// small MPI_Allreduce, so that a problem seen by one rank fails the call
// everywhere instead of leaving the others waiting), and hand the checked
// call to the backend of its device.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

namespace shardc {
namespace rt {

namespace {

/// The process's MPI state. Never destroyed: it must outlive the handler
/// that finalizes MPI at exit.
struct State {
  std::mutex mutex;
  /// Whether shardrt called MPI_Init_thread (and so owes MPI_Finalize).
  bool initializedMpi = false;
  bool atExitRegistered = false;
  int rank = -1;
  int size = 0;
  MPI_Comm world = MPI_COMM_NULL;
  int nodeRank = 0;
  /// Set once MPI is initialized and rank and size are known (`ready`) and
  /// once `world` exists (`worldReady`); both are cleared when MPI is
  /// finalized, by shardrt or by the program. A call checks them without
  /// the mutex or any MPI query.
  std::atomic<bool> ready{false};
  std::atomic<bool> worldReady{false};
};

State &state() {
  static State *s = new State();
  return *s;
}

thread_local std::string lastError;
thread_local void *cudaStreamOfThread = nullptr;

void releaseAgreedCalls();

/// Runs at the start of MPI_Finalize, whoever calls it (MPI deletes
/// MPI_COMM_SELF's attributes first): later calls take the slow path, which
/// reports that MPI has been finalized.
int onMpiFinalize(MPI_Comm, int, void *, void *) {
  State &s = state();
  s.ready.store(false);
  s.worldReady.store(false);
  return MPI_SUCCESS;
}

/// Releases what shardrt holds and finalizes MPI if shardrt initialized it.
/// At exit the CUDA runtime may already be torn down: NCCL resources are then
/// left to the operating system.
void finalizeRuntime(bool atExit) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    return;
#ifdef SHARDRT_HAVE_NCCL
  if (!atExit)
    nccl::release();
#else
  (void)atExit;
#endif
  releaseAgreedCalls();
  releaseGroupComms();
  s.ready.store(false);
  s.worldReady.store(false);
  if (s.world != MPI_COMM_NULL)
    MPI_Comm_free(&s.world);
  s.world = MPI_COMM_NULL;
  if (s.initializedMpi) {
    MPI_Finalize();
    s.initializedMpi = false;
  }
}

void finalizeAtExit() { finalizeRuntime(/*atExit=*/true); }

} // namespace

std::string plural(int64_t n, const std::string &noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

void *threadCudaStream() { return cudaStreamOfThread; }

int fail(shardrt_status status, std::string message) {
  lastError = std::move(message);
  return status;
}

std::string mpiErrorString(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, length) + " (MPI error " + std::to_string(code) +
         ")";
}

int ensureMpi() {
  State &s = state();
  if (s.ready.load(std::memory_order_acquire))
    return SHARDRT_SUCCESS;
  std::lock_guard<std::mutex> lock(s.mutex);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    return fail(SHARDRT_ERROR_BACKEND,
                "shardrt: MPI has been finalized; call shardrt before "
                "MPI_Finalize or shardrt_finalize");
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    int rc =
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS)
      return fail(SHARDRT_ERROR_BACKEND,
                  "shardrt: MPI_Init_thread failed: " + mpiErrorString(rc));
    s.initializedMpi = true;
    if (!s.atExitRegistered) {
      std::atexit(finalizeAtExit);
      s.atExitRegistered = true;
    }
  }
  if (s.rank < 0) {
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.size);
    int keyval = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, onMpiFinalize, &keyval,
                               nullptr) != MPI_SUCCESS ||
        MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr) != MPI_SUCCESS)
      return SHARDRT_SUCCESS; // Without it, every call takes this path.
  }
  s.ready.store(true, std::memory_order_release);
  return SHARDRT_SUCCESS;
}

int worldRank() { return state().rank; }
int worldSize() { return state().size; }

bool agreesInMessages(int worldSize) {
  return worldSize <= kAgreeInMessagesMaxRanks;
}
int nodeLocalRank() { return state().nodeRank; }

MPI_Comm worldComm(const std::string &prefix) {
  State &s = state();
  if (s.worldReady.load(std::memory_order_acquire))
    return s.world;
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.world != MPI_COMM_NULL)
    return s.world;
  MPI_Comm world = MPI_COMM_NULL;
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &world);
  if (rc != MPI_SUCCESS) {
    fail(SHARDRT_ERROR_BACKEND,
         prefix + "MPI_Comm_dup(MPI_COMM_WORLD) failed: " + mpiErrorString(rc));
    return MPI_COMM_NULL;
  }
  MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  // The rank among the processes of this node picks the GPU.
  MPI_Comm node = MPI_COMM_NULL;
  rc = MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, s.rank, MPI_INFO_NULL,
                           &node);
  if (rc != MPI_SUCCESS) {
    fail(SHARDRT_ERROR_BACKEND,
         prefix + "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed: " +
             mpiErrorString(rc));
    MPI_Comm_free(&world);
    return MPI_COMM_NULL;
  }
  MPI_Comm_rank(node, &s.nodeRank);
  MPI_Comm_free(&node);
  s.world = world;
  s.worldReady.store(true, std::memory_order_release);
  return s.world;
}

std::string callPrefix(OpKind op, int32_t dtype, int32_t device, int64_t root,
                       int32_t reduce, int32_t groupKind) {
  const bool group = op == OpKind::Group;
  std::string s =
      "shardrt: rank " + std::to_string(worldRank()) + ": " +
      (group ? "group " + groupKindName(groupKind) : std::string(opName(op))) +
      "(" + dtypeName(dtype) + ", " + deviceName(device) + ", world of " +
      plural(worldSize(), "rank");
  const bool rooted = group && (groupKind == SHARDRT_COLLECTIVE_BROADCAST ||
                                groupKind == SHARDRT_COLLECTIVE_GATHER);
  const bool reduces =
      group && (groupKind == SHARDRT_COLLECTIVE_ALL_REDUCE ||
                groupKind == SHARDRT_COLLECTIVE_REDUCE_SCATTER);
  if (op == OpKind::Scatter || rooted)
    s += ", root " + std::to_string(root);
  if (op == OpKind::RedistributeReduce || reduces)
    s += ", op " +
         (isReduceOp(reduce) ? reduceName(reduce) : std::to_string(reduce));
  return s + "): ";
}

namespace {

/// What a rank passed, as every rank learns it when one failed its checks
/// or the ranks disagree.
struct RankCall {
  int64_t status;
  CallSummary summary;
};

/// What became of the data when the ranks find, before any moves, that
/// they cannot run the call, and when they find it within the call's
/// messages.
constexpr const char *kNoDataMoved = "no data was moved";
constexpr const char *kDataUndefined =
    "the destination buffers hold undefined values";

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

/// Agrees with every rank on the call by an MPI_Allreduce before any data
/// moves: that every rank's local checks passed (this rank's outcome:
/// `status` and `problem`) and that all pass the same call (the same
/// callHash). `flag` is this rank's part of a maximum over all ranks, which
/// it receives. On failure fails alike on every rank (failAlike).
int agree(const Collective &c, MPI_Comm comm, int status,
          const std::string &problem, int64_t &flag) {
  // Whether any rank failed, whether all ranks pass the same call (the
  // maximum of the hash and of its negation), and the flag.
  const int64_t hash = status == SHARDRT_SUCCESS ? c.hash : 0;
  int64_t mine[4] = {status == SHARDRT_SUCCESS ? 0 : 1, hash, -hash, flag};
  int64_t all[4] = {0, 0, 0, 0};
  watchStep("waiting for every rank to join the call (the MPI_Allreduce "
            "that checks that all ranks agree on it)");
  int rc = MPI_Allreduce(mine, all, 4, MPI_INT64_T, MPI_MAX, comm);
  if (rc != MPI_SUCCESS)
    return c.fail(SHARDRT_ERROR_BACKEND,
                  "MPI_Allreduce (checking that all ranks agree on the call) "
                  "failed: " +
                      mpiErrorString(rc));
  if (all[0] != 0 || all[1] != mine[1] || all[2] != mine[2])
    return failAlike(c, comm, status, problem, kNoDataMoved);
  flag = all[3];
  return SHARDRT_SUCCESS;
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

/// Agrees on `c` within one round of messages that carry only `flag` (calls
/// whose data does not move in MPI messages, and ranks whose checks
/// failed), which becomes the maximum over all ranks. Returns
/// kRanksDisagree when the messages show that the ranks disagree.
int agreeByFlags(const Collective &c, int64_t &flag) {
  const int world = c.worldSize;
  std::vector<int64_t> flags(world, 0);
  std::vector<int> ones(world, 1), zeros(world, 0), ranks(world);
  for (int r = 0; r < world; ++r)
    ranks[r] = r;
  int status = mpi::exchangeMessages(
      c, {MPI_INT64_T, sizeof(int64_t), reinterpret_cast<const char *>(&flag),
          ones.data(), zeros.data(), reinterpret_cast<char *>(flags.data()),
          ones.data(), ranks.data()});
  if (status != SHARDRT_SUCCESS)
    return status;
  for (int r = 0; r < world; ++r) {
    if (r != c.rank)
      flag = std::max(flag, flags[r]);
  }
  return SHARDRT_SUCCESS;
}

/// The `capacity` most recently used values by key, found by a linear
/// search (a handful of entries, compared word for word) that first tries
/// the entry found after the last one found the previous time, then the
/// last one found: a loop that repeats one call or cycles through several
/// finds each with one comparison, not one per entry before it.
template <typename Key, typename Value> class RecentlyUsed {
public:
  explicit RecentlyUsed(size_t capacity) : capacity(capacity) {}

  /// The value of `key`, now the most recently used, or null.
  Value *find(const Key &key) {
    return findIf([&](const Key &k) { return k == key; });
  }
  /// The value of a key for which `same(key)` holds, now the most recently
  /// used, or null.
  template <typename Same> Value *findIf(Same &&same) {
    if (last < entries.size()) {
      for (size_t guess : {entries[last].next, last}) {
        if (guess < entries.size() && same(entries[guess].key))
          return &use(guess);
      }
    }
    for (size_t i = 0; i < entries.size(); ++i) {
      if (same(entries[i].key))
        return &use(i);
    }
    return nullptr;
  }
  /// Adds `value` for `key`, first passing the least recently used value to
  /// `evict` when full.
  template <typename Evict> void insert(Key key, Value value, Evict &&evict) {
    if (entries.size() >= capacity) {
      auto oldest = std::min_element(
          entries.begin(), entries.end(),
          [](const Entry &a, const Entry &b) { return a.lastUse < b.lastUse; });
      evict(oldest->value);
      entries.erase(oldest);
      // Indices moved: forget the guesses.
      for (Entry &e : entries)
        e.next = kNone;
      last = kNone;
    }
    entries.push_back({std::move(key), std::move(value), 0, kNone});
    use(entries.size() - 1);
  }
  /// Passes every value to `evict` and forgets them.
  template <typename Evict> void clear(Evict &&evict) {
    for (Entry &e : entries)
      evict(e.value);
    entries.clear();
    last = kNone;
  }

private:
  static constexpr size_t kNone = ~size_t(0);
  struct Entry {
    Key key;
    Value value;
    uint64_t lastUse;
    /// The entry found right after this one, the last time.
    size_t next;
  };
  Value &use(size_t i) {
    if (last < entries.size())
      entries[last].next = i;
    last = i;
    entries[i].lastUse = ++clock;
    return entries[i].value;
  }
  size_t capacity;
  std::vector<Entry> entries;
  uint64_t clock = 0;
  size_t last = kNone;
};

/// The largest tensor rank a cached call's key holds.
constexpr int64_t kMaxKeyTensorRank = 64;

/// Checked calls, by their arguments but the data pointers: a call repeated
/// with the same tables, views and dtype (a training step) skips reading the
/// tables, planning and building messages. Only calls that passed the local
/// checks are kept; the least recently used of 16 goes first.
using CallCache =
    RecentlyUsed<std::vector<int64_t>, std::unique_ptr<Collective>>;

CallCache &callCache() {
  static CallCache *cache = new CallCache(16);
  return *cache;
}

/// The words of a cached call's key, written.
struct KeyWords {
  std::vector<int64_t> words;
  void put(int64_t v) { words.push_back(v); }
  void put(const int64_t *values, int64_t n) {
    words.insert(words.end(), values, values + n);
  }
};

/// Compares the words of a call's key with a cached call's, as they come:
/// a repeat is recognized without writing its key.
struct KeyMatch {
  const int64_t *at;
  const int64_t *end;
  bool same = true;
  explicit KeyMatch(const std::vector<int64_t> &words)
      : at(words.data()), end(words.data() + words.size()) {}
  void put(int64_t v) {
    if (same && at != end && *at == v)
      ++at;
    else
      same = false;
  }
  void put(const int64_t *values, int64_t n) {
    if (same && end - at >= n && std::equal(values, values + n, at))
      at += n;
    else
      same = false;
  }
  bool matched() const { return same && at == end; }
};

/// The cache key of a call: every argument but the data pointers (whether
/// each is NULL counts), given word by word to `Sink` (KeyWords or
/// KeyMatch). Gives up (`ok` false) on arguments the checks would reject
/// before reading them, so that it never reads more than they do.
template <typename Sink> struct CallKey {
  Sink sink;
  bool ok = true;

  void value(int64_t v) { sink.put(v); }
  void tensor(const shardrt_tensor *t) {
    value(t ? 1 : 0);
    if (!t)
      return;
    if (t->rank < 0 || t->rank > kMaxKeyTensorRank ||
        (t->rank > 0 && (!t->sizes || !t->strides))) {
      ok = false;
      return;
    }
    value(t->dtype);
    value(t->device);
    value(t->rank);
    value(t->data ? 1 : 0);
    sink.put(t->sizes, t->rank);
    sink.put(t->strides, t->rank);
  }
  /// A table of `rows` rows of `width` values (NULL allowed when empty).
  void table(const int64_t *values, int64_t rows, int64_t width) {
    value(rows);
    if (rows == 0)
      return;
    if (!values || rows < 0 || rows > (int64_t(1) << 24) || width < 1 ||
        width > 1 + 2 * kMaxKeyTensorRank) {
      ok = false;
      return;
    }
    sink.put(values, rows * width);
  }
};

/// With SHARDRT_AGREE=first-call: the calls the ranks agreed on, by hash
/// (alike on every rank), each with a communicator of its own on which its
/// repeats move their data without agreeing again, and the flag the ranks
/// agreed on. Ranks that make the same calls see the same hashes in the same
/// order, so they evict alike (the least recently used of 16).
struct Agreed {
  MPI_Comm comm;
  int64_t flag;
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

void releaseAgreedCalls() { agreedCalls().clear(freeAgreed); }

/// Agrees with every rank on `c` on `world` (the runtime's communicator),
/// or, under SHARDRT_AGREE=first-call, skips that for a CPU call agreed on
/// before; sets c.comm to the communicator the data moves on.
int agreeOrRecall(Collective &c, MPI_Comm world, int status,
                  const std::string &problem, int64_t &flag) {
  const bool firstCall = agreeMode().kind == AgreeMode::FirstCall &&
                         c.device == SHARDRT_DEVICE_CPU;
  if (firstCall && status == SHARDRT_SUCCESS && c.checked) {
    if (const Agreed *agreed = agreedCalls().find(c.hash)) {
      c.comm = agreed->comm;
      flag = agreed->flag;
      return SHARDRT_SUCCESS;
    }
  }
  c.comm = world;
  if (int failed = agree(c, world, status, problem, flag))
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
  agreedCalls().insert(c.hash, Agreed{comm, flag}, freeAgreed);
  return SHARDRT_SUCCESS;
}

/// Points a cached call's views at this call's data. `srcBase` and
/// `dstBase` are the new bases of the redistribution's blocks (every view
/// keeps its offset from its base).
void rebase(Collective &c, char *srcBase, char *dstBase) {
  for (auto &[b, view] : c.srcViews)
    view.data = srcBase + (view.data - c.srcBase);
  for (auto &[b, view] : c.dstViews)
    view.data = dstBase + (view.data - c.dstBase);
  c.srcBase = srcBase;
  c.dstBase = dstBase;
  if (c.myBlock >= 0)
    c.local.data = c.srcViews.at(c.myBlock).data;
  if (c.myDstBlock >= 0)
    c.dstLocal.data = c.dstViews.at(c.myDstBlock).data;
}

/// Checks the call, agrees with every rank, and runs it on its backend.
/// The steps every call shares, around its own: the call cached for `key`
/// has its buffers updated by `rebase`, or a fresh one (its rank, world
/// size and `prefix()` set) is checked by `check(c, problem)` and kept when it
/// passes; then the CUDA checks, the agreement (or its recall), with `flag`
/// from `flagOf(c)`, and `run(c, flag)` while the watchdog watches. When the
/// agreement rides in the messages, a CPU call's agreement happens within
/// `run` (flag 1), and other calls agree in a round of messages of their
/// own (agreeByFlags).
template <typename Describe, typename Prefix, typename Rebase, typename Check,
          typename FlagOf, typename Run>
int runCall(Describe &&describe, Prefix &&prefix, Rebase &&rebase,
            Check &&check, FlagOf &&flagOf, Run &&run) {
  Collective *cached = nullptr;
  if (std::unique_ptr<Collective> *found =
          callCache().findIf([&](const std::vector<int64_t> &words) {
            CallKey<KeyMatch> key{KeyMatch(words)};
            describe(key);
            return key.ok && key.sink.matched();
          }))
    cached = found->get();
  std::unique_ptr<Collective> fresh;
  std::string problem;
  int status = SHARDRT_SUCCESS;
  if (cached) {
    rebase(*cached);
  } else {
    fresh = std::make_unique<Collective>();
    fresh->rank = worldRank();
    fresh->worldSize = worldSize();
    fresh->prefix = prefix();
    status = check(*fresh, problem);
    fresh->checked = status == SHARDRT_SUCCESS;
    if (fresh->checked)
      fresh->hash = callHash(*fresh);
    // Unusable settings fail every call, on every rank (and such calls are
    // not kept: a kept call needs none of this again).
    for (const std::string *setting :
         {&callTimeout().problem, &agreeMode().problem}) {
      if (status == SHARDRT_SUCCESS && !setting->empty()) {
        status = SHARDRT_ERROR_INVALID_ARGUMENT;
        problem = *setting;
      }
    }
    fresh->watched = callTimeout().seconds > 0;
    // A group collective's data moves in MPI collectives, which cannot
    // carry the agreement: the ranks agree before.
    fresh->agreeInMessages = agreeMode().kind == AgreeMode::EveryCall &&
                             agreesInMessages(fresh->worldSize) &&
                             fresh->op != OpKind::Group;
    fresh->callTag = fresh->checked ? messageTag(*fresh) : 0;
  }
  Collective &c = cached ? *cached : *fresh;
  CallKey<KeyWords> key;
  if (fresh && status == SHARDRT_SUCCESS)
    describe(key);
  const bool keep = fresh && status == SHARDRT_SUCCESS && key.ok;
  CallWatch watch(c, /*outlivesCall=*/cached || keep);
#ifdef SHARDRT_HAVE_NCCL
  if (status == SHARDRT_SUCCESS && c.device == SHARDRT_DEVICE_CUDA)
    status = nccl::checkLocal(c, problem);
#endif
  if (keep)
    callCache().insert(
        std::move(key.sink.words), std::move(fresh),
        [](std::unique_ptr<Collective> &) { forgetWatchedCall(); });
  watchStep("creating the runtime's communicator (MPI_Comm_dup)");
  MPI_Comm comm = worldComm(c.prefix);
  if (comm == MPI_COMM_NULL)
    return SHARDRT_ERROR_BACKEND;
  c.comm = comm;
  if (!c.agreeInMessages) {
    int64_t flag = status == SHARDRT_SUCCESS ? flagOf(c) : 0;
    if (int failed = agreeOrRecall(c, comm, status, problem, flag))
      return failed;
    return run(c, flag);
  }
  c.tag = status == SHARDRT_SUCCESS ? c.callTag : 0;
  int result = SHARDRT_SUCCESS;
  if (status == SHARDRT_SUCCESS && c.device == SHARDRT_DEVICE_CPU) {
    // The data's messages carry the agreement: every rank exchanges them,
    // also when none has data to send (the flag is then 1).
    result = run(c, 1);
  } else {
    int64_t flag = status == SHARDRT_SUCCESS ? flagOf(c) : 0;
    result = agreeByFlags(c, flag);
    if (result == SHARDRT_SUCCESS && status == SHARDRT_SUCCESS)
      return run(c, flag);
  }
  if (result == kRanksDisagree ||
      (result == SHARDRT_SUCCESS && status != SHARDRT_SUCCESS))
    return failAlike(c, comm, status, problem, kDataUndefined);
  return result;
}

int runCollective(OpKind op, const shardrt_tensor *local,
                  const shardrt_tensor *global, const int64_t *blocks,
                  int64_t numBlocks, int64_t root) {
  if (int status = ensureMpi())
    return status;
  const shardrt_tensor *any = global ? global : local;
  return runCall(
      [&](auto &key) {
        key.value(static_cast<int64_t>(op));
        key.value(root);
        key.tensor(global);
        key.tensor(local);
        if (key.ok && global)
          key.table(blocks, numBlocks, 1 + 2 * global->rank);
        else
          key.ok = false;
      },
      [&] {
        return callPrefix(op, any ? any->dtype : -1, any ? any->device : -1,
                          root);
      },
      [&](Collective &c) {
        const bool needsGlobalData = op == OpKind::AllGather || c.rank == root;
        c.global.data =
            needsGlobalData ? static_cast<char *>(global->data) : nullptr;
        if (c.myBlock >= 0)
          c.local.data = static_cast<char *>(local->data);
      },
      [&](Collective &c, std::string &problem) {
        int status =
            checkCall(op, local, global, blocks, numBlocks, root, c, problem);
        if (status == SHARDRT_SUCCESS && c.device == SHARDRT_DEVICE_CPU)
          status = mpi::checkCounts(c, problem);
        return status;
      },
      [](const Collective &) { return int64_t(0); },
      [&](const Collective &c, int64_t) {
        // Without data, only messages that carry the agreement move.
        if (c.totalCount() == 0 && !c.agreeInMessages)
          return static_cast<int>(SHARDRT_SUCCESS);
#ifdef SHARDRT_HAVE_NCCL
        if (c.device == SHARDRT_DEVICE_CUDA)
          return op == OpKind::AllGather ? nccl::allGather(c)
                                         : nccl::scatter(c);
#endif
        return op == OpKind::AllGather ? mpi::allGather(c) : mpi::scatter(c);
      });
}

/// Checks a redistribution (`op` Redistribute, or RedistributeReduce with
/// `partial` and `reduce`), agrees with every rank, and runs it on its
/// backend.
int runRedistribute(OpKind op, const shardrt_tensor *srcLocal,
                    const shardrt_tensor *dstLocal, const PackedBuffers *packed,
                    const int64_t *srcBlocks, int64_t numSrc,
                    const int64_t *partial, const int64_t *dstBlocks,
                    int64_t numDst, int32_t reduce) {
  if (int status = ensureMpi())
    return status;
  const shardrt_tensor *any = srcLocal ? srcLocal : dstLocal;
  return runCall(
      [&](auto &key) {
        key.value(static_cast<int64_t>(op));
        key.value(op == OpKind::RedistributeReduce ? reduce : 0);
        int64_t tensorRank = -1;
        if (packed) {
          for (int64_t v :
               {int64_t(1), int64_t(packed->dtype), int64_t(packed->device),
                packed->rank, int64_t(packed->src ? 1 : 0),
                int64_t(packed->dst ? 1 : 0)})
            key.value(v);
          tensorRank = packed->rank;
        } else {
          key.value(0);
          key.tensor(srcLocal);
          key.tensor(dstLocal);
          tensorRank = any ? any->rank : -1;
        }
        if (tensorRank < 0 || tensorRank > kMaxKeyTensorRank)
          key.ok = false;
        if (key.ok) {
          key.table(srcBlocks, numSrc, 1 + 2 * tensorRank);
          key.table(dstBlocks, numDst, 1 + 2 * tensorRank);
        }
        if (key.ok && op == OpKind::RedistributeReduce)
          key.table(partial, numSrc, 1);
      },
      [&] {
        return packed ? callPrefix(op, packed->dtype, packed->device, 0, reduce)
                      : callPrefix(op, any ? any->dtype : -1,
                                   any ? any->device : -1, 0, reduce);
      },
      [&](Collective &c) {
        if (packed)
          rebase(c, static_cast<char *>(packed->src),
                 static_cast<char *>(packed->dst));
        else
          rebase(c,
                 c.myBlock >= 0 ? static_cast<char *>(srcLocal->data) : nullptr,
                 c.myDstBlock >= 0 ? static_cast<char *>(dstLocal->data)
                                   : nullptr);
      },
      [&](Collective &c, std::string &problem) {
        c.op = op;
        int status =
            checkRedistribute(srcLocal, dstLocal, packed, srcBlocks, numSrc,
                              partial, dstBlocks, numDst, reduce, c, problem);
        if (status == SHARDRT_SUCCESS && c.device == SHARDRT_DEVICE_CPU)
          status = mpi::checkCounts(c, problem);
        return status;
      },
      // Whether this rank sends: the ranks learn whether any does; if none
      // does, every rank only copies locally.
      [](const Collective &c) { return int64_t(c.plan.sends.empty() ? 0 : 1); },
      [](Collective &c, int64_t sends) {
        c.plan.exchange = sends != 0;
        if (!c.plan.exchange && c.plan.copies.empty())
          return static_cast<int>(SHARDRT_SUCCESS);
#ifdef SHARDRT_HAVE_NCCL
        if (c.device == SHARDRT_DEVICE_CUDA)
          return nccl::redistribute(c);
#endif
        return mpi::redistribute(c);
      });
}

/// Checks a named collective within groups, agrees with every rank before
/// any data moves (its data does not carry the agreement), and runs it on
/// each group's communicator.
int runGroupCollective(int32_t kind, const shardrt_tensor *srcLocal,
                       const shardrt_tensor *dstLocal, const int64_t *srcBlocks,
                       int64_t numSrc, const int64_t *dstBlocks, int64_t numDst,
                       const int64_t *groups, int64_t numMembers, int64_t root,
                       int32_t reduce) {
  if (int status = ensureMpi())
    return status;
  const shardrt_tensor *any = srcLocal ? srcLocal : dstLocal;
  return runCall(
      [&](auto &key) {
        key.value(static_cast<int64_t>(OpKind::Group));
        key.value(kind);
        key.value(root);
        key.value(reduce);
        key.tensor(srcLocal);
        key.tensor(dstLocal);
        const int64_t tensorRank = any ? any->rank : -1;
        if (tensorRank < 0 || tensorRank > kMaxKeyTensorRank)
          key.ok = false;
        if (key.ok) {
          key.table(srcBlocks, numSrc, 1 + 2 * tensorRank);
          key.table(dstBlocks, numDst, 1 + 2 * tensorRank);
          key.table(groups, numMembers, 3);
        }
      },
      [&] {
        return callPrefix(OpKind::Group, any ? any->dtype : -1,
                          any ? any->device : -1, root, reduce, kind);
      },
      [&](Collective &c) {
        rebase(
            c, c.myBlock >= 0 ? static_cast<char *>(srcLocal->data) : nullptr,
            c.myDstBlock >= 0 ? static_cast<char *>(dstLocal->data) : nullptr);
      },
      [&](Collective &c, std::string &problem) {
        c.op = OpKind::Group;
        int status =
            checkRedistribute(srcLocal, dstLocal, nullptr, srcBlocks, numSrc,
                              nullptr, dstBlocks, numDst, reduce, c, problem);
        if (status == SHARDRT_SUCCESS)
          status =
              checkGroup(kind, groups, numMembers, root, reduce, c, problem);
        return status;
      },
      [](const Collective &) { return int64_t(0); },
      [](Collective &c, int64_t) {
        MPI_Comm comm = MPI_COMM_NULL;
        if (!groupComm(c, c.comm, comm))
          return static_cast<int>(SHARDRT_ERROR_BACKEND);
        c.group.comm = comm;
        return mpi::groupCollective(c);
      });
}

} // namespace

} // namespace rt
} // namespace shardc

using namespace shardc::rt;

int shardrt_group_collective(int32_t kind, const shardrt_tensor *src_local,
                             const shardrt_tensor *dst_local,
                             const int64_t *src_blocks, int64_t num_src,
                             const int64_t *dst_blocks, int64_t num_dst,
                             const int64_t *groups, int64_t num_members,
                             int64_t root, int32_t op) {
  return runGroupCollective(kind, src_local, dst_local, src_blocks, num_src,
                            dst_blocks, num_dst, groups, num_members, root, op);
}

int shardrt_init(void) { return ensureMpi(); }

int shardrt_finalize(void) {
  finalizeRuntime(/*atExit=*/false);
  return SHARDRT_SUCCESS;
}

int shardrt_rank(void) {
  if (ensureMpi() != SHARDRT_SUCCESS)
    return -1;
  return worldRank();
}

int shardrt_world_size(void) {
  if (ensureMpi() != SHARDRT_SUCCESS)
    return -1;
  return worldSize();
}

const char *shardrt_backends(void) {
#ifdef SHARDRT_HAVE_NCCL
  return "mpi,nccl";
#else
  return "mpi";
#endif
}

const char *shardrt_last_error(void) { return lastError.c_str(); }

int shardrt_set_cuda_stream(void *stream) {
  cudaStreamOfThread = stream;
  return SHARDRT_SUCCESS;
}

namespace {

/// Whether two non-empty rows of a block table hold the same box (replicas).
bool hasReplicas(const int64_t *blocks, int64_t numBlocks, int64_t rank) {
  if (!blocks || numBlocks <= 0 || rank < 0)
    return false;
  const int64_t cols = 1 + 2 * rank;
  std::set<std::vector<int64_t>> boxes;
  for (int64_t b = 0; b < numBlocks; ++b) {
    const int64_t *row = blocks + b * cols;
    std::vector<int64_t> box(row + 1, row + cols);
    bool empty = false;
    for (int64_t d = 0; d < rank; ++d)
      empty |= row[1 + rank + d] == 0;
    if (!empty && !boxes.insert(std::move(box)).second)
      return true;
  }
  return false;
}

} // namespace

int shardrt_all_gather(const shardrt_tensor *local,
                       const shardrt_tensor *global, const int64_t *blocks,
                       int64_t num_blocks) {
  // With replicas, an all_gather would send every rank what its replica
  // holds already: gather as the exchange to the whole tensor on every rank
  // instead, which receives only what each rank lacks.
  if (global && global->sizes &&
      hasReplicas(blocks, num_blocks, global->rank)) {
    int world = shardrt_world_size();
    if (world > 0) {
      const int64_t rank = global->rank, cols = 1 + 2 * rank;
      std::vector<int64_t> whole(static_cast<size_t>(world) * cols, 0);
      for (int r = 0; r < world; ++r) {
        whole[r * cols] = r;
        for (int64_t d = 0; d < rank; ++d)
          whole[r * cols + 1 + rank + d] = global->sizes[d];
      }
      return shardrt_redistribute(local, global, blocks, num_blocks,
                                  whole.data(), world);
    }
  }
  return runCollective(OpKind::AllGather, local, global, blocks, num_blocks,
                       /*root=*/0);
}

int shardrt_scatter(const shardrt_tensor *global, const shardrt_tensor *local,
                    const int64_t *blocks, int64_t num_blocks, int64_t root) {
  return runCollective(OpKind::Scatter, local, global, blocks, num_blocks,
                       root);
}

int shardrt_redistribute(const shardrt_tensor *src_local,
                         const shardrt_tensor *dst_local,
                         const int64_t *src_blocks, int64_t num_src,
                         const int64_t *dst_blocks, int64_t num_dst) {
  return runRedistribute(OpKind::Redistribute, src_local, dst_local, nullptr,
                         src_blocks, num_src, nullptr, dst_blocks, num_dst,
                         SHARDRT_SUM);
}

int shardrt_redistribute_packed(void *src_data, void *dst_data, int32_t dtype,
                                int32_t device, int64_t tensor_rank,
                                const int64_t *src_blocks, int64_t num_src,
                                const int64_t *dst_blocks, int64_t num_dst) {
  const PackedBuffers packed{src_data, dst_data, dtype, device, tensor_rank};
  return runRedistribute(OpKind::Redistribute, nullptr, nullptr, &packed,
                         src_blocks, num_src, nullptr, dst_blocks, num_dst,
                         SHARDRT_SUM);
}

int shardrt_redistribute_reduce_packed(
    void *src_data, void *dst_data, int32_t dtype, int32_t device,
    int64_t tensor_rank, const int64_t *src_blocks, int64_t num_src,
    const int64_t *src_partial, const int64_t *dst_blocks, int64_t num_dst,
    int32_t op) {
  const PackedBuffers packed{src_data, dst_data, dtype, device, tensor_rank};
  return runRedistribute(OpKind::RedistributeReduce, nullptr, nullptr, &packed,
                         src_blocks, num_src, src_partial, dst_blocks, num_dst,
                         op);
}

int shardrt_redistribute_reduce(const shardrt_tensor *src_local,
                                const shardrt_tensor *dst_local,
                                const int64_t *src_blocks, int64_t num_src,
                                const int64_t *src_partial,
                                const int64_t *dst_blocks, int64_t num_dst,
                                int32_t op) {
  return runRedistribute(OpKind::RedistributeReduce, src_local, dst_local,
                         nullptr, src_blocks, num_src, src_partial, dst_blocks,
                         num_dst, op);
}

namespace {

/// shardrt_redistribute_counts (`reduces` false) and
/// shardrt_redistribute_reduce_counts.
int redistributeCounts(bool reduces, const int64_t *srcBlocks, int64_t numSrc,
                       const int64_t *partial, const int64_t *dstBlocks,
                       int64_t numDst, int64_t rankOfTensor,
                       int64_t processRank, int64_t *received,
                       int64_t *copied) {
  const std::string prefix =
      std::string("shardrt: ") +
      (reduces ? "redistribute_reduce_counts" : "redistribute_counts") +
      "(tensor of rank " + std::to_string(rankOfTensor) + ", rank " +
      std::to_string(processRank) + "): ";
  if (rankOfTensor < 0)
    return fail(SHARDRT_ERROR_INVALID_ARGUMENT,
                prefix + "the tensor's rank is negative");
  if (processRank < 0 || processRank > shardc::layout::kMaxRank)
    return fail(SHARDRT_ERROR_INVALID_ARGUMENT,
                prefix + "process_rank is not an MPI rank (0 to " +
                    std::to_string(shardc::layout::kMaxRank) + ")");
  if (!received || !copied)
    return fail(SHARDRT_ERROR_INVALID_ARGUMENT,
                prefix + "received or copied is NULL");
  BlockTable src, dst;
  std::vector<int64_t> indices;
  std::string problem;
  if (!readRedistributionTables(srcBlocks, numSrc, dstBlocks, numDst,
                                rankOfTensor, /*worldSize=*/0, src, dst,
                                problem) ||
      (reduces && !readPartialIndices(partial, numSrc, indices, problem)))
    return fail(SHARDRT_ERROR_INVALID_ARGUMENT, prefix + problem);
  const int rank = static_cast<int>(processRank);
  const RedistributionPlan plan = reduces
                                      ? planReduction(src, indices, dst, rank)
                                      : planRedistribution(src, dst, rank);
  *received = plan.receivedElements();
  *copied = plan.copiedElements();
  return SHARDRT_SUCCESS;
}

} // namespace

int shardrt_redistribute_counts(const int64_t *src_blocks, int64_t num_src,
                                const int64_t *dst_blocks, int64_t num_dst,
                                int64_t rank_of_tensor, int64_t process_rank,
                                int64_t *received, int64_t *copied) {
  return redistributeCounts(/*reduces=*/false, src_blocks, num_src, nullptr,
                            dst_blocks, num_dst, rank_of_tensor, process_rank,
                            received, copied);
}

int shardrt_redistribute_reduce_counts(
    const int64_t *src_blocks, int64_t num_src, const int64_t *src_partial,
    const int64_t *dst_blocks, int64_t num_dst, int64_t rank_of_tensor,
    int64_t process_rank, int64_t *received, int64_t *copied) {
  return redistributeCounts(/*reduces=*/true, src_blocks, num_src, src_partial,
                            dst_blocks, num_dst, rank_of_tensor, process_rank,
                            received, copied);
}
