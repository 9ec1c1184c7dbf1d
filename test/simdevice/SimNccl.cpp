//===- SimNccl.cpp - NCCL's calls over MPI, strictly matched --------------===//
//
// A communicator is a set of MPI processes with an MPI communicator of their
// own (MPI_Comm_create_group: only the members take part). Creation finds
// the members through the process that made the unique id, which collects
// every member's join and answers with the table (or with why it failed).
//
// Every call is one message from each member to each other member it
// concerns: a header that says what the sender called (kind, its number on
// the communicator, count, type, op, root, peer) and the sender's data for
// the receiver. A collective sends one to every other member, also where no
// data moves, so every member sees every member's call; a send one to its
// peer, which its receive consumes in order. A call's part is queued on its
// stream (SimDevice.h), as a kernel is: when it reaches the head of the
// stream it reads its input and posts its messages, then takes what has
// arrived each time the host polls the stream. A receiver compares the header
// with its own call before it touches the data: a mismatch fails the call on
// every rank that sees it, naming both ranks and both calls; a peer whose
// message does not come within the timeout is named as the rank that has
// not made its part. A failed communicator fails every later call with the
// same text; an aborted one (ncclCommAbort) ends the parts queued on it
// without touching their buffers, as NCCL's abort ends its kernels.
// Within ncclGroupStart/ncclGroupEnd the calls run at the end, as one piece
// of work: every message is sent first, then every message received, so the
// order of calls within a group does not matter, as in NCCL.
//
//===----------------------------------------------------------------------===//

#include "SimDevice.h"

#include "Reduce.h"

#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

using namespace shardc;

namespace {

enum Kind : int32_t {
  kAllGather = 1,
  kAllReduce,
  kReduceScatter,
  kBroadcast,
  kReduce,
  kAllToAll,
  kGather,
  kScatter,
  kSend,
  kSplit,
  kAbort,
};

const char *kindName(int32_t kind) {
  switch (kind) {
  case kAllGather:
    return "ncclAllGather";
  case kAllReduce:
    return "ncclAllReduce";
  case kReduceScatter:
    return "ncclReduceScatter";
  case kBroadcast:
    return "ncclBroadcast";
  case kReduce:
    return "ncclReduce";
  case kAllToAll:
    return "ncclAlltoAll";
  case kGather:
    return "ncclGather";
  case kScatter:
    return "ncclScatter";
  case kSend:
    return "ncclSend";
  case kSplit:
    return "ncclCommSplit";
  case kAbort:
    return "a failure report";
  }
  return "an unknown call";
}

const char *typeName(int32_t t) {
  static const char *names[] = {"int8",    "uint8",    "int32",   "uint32",
                                "int64",   "uint64",   "float16", "float32",
                                "float64", "bfloat16", "fp8e4m3", "fp8e5m2"};
  return t >= 0 && t < 12 ? names[t] : "unknown type";
}

const char *opName(int32_t op) {
  static const char *names[] = {"sum", "prod", "max", "min", "avg"};
  return op >= 0 && op < 5 ? names[op] : "unknown op";
}

size_t typeSize(int32_t t) {
  switch (t) {
  case ncclInt8:
  case ncclUint8:
  case ncclFloat8e4m3:
  case ncclFloat8e5m2:
    return 1;
  case ncclFloat16:
  case ncclBfloat16:
    return 2;
  case ncclInt32:
  case ncclUint32:
  case ncclFloat32:
    return 4;
  default:
    return 8;
  }
}

/// What a rank called: the header of each of its messages.
struct Header {
  int32_t kind = 0;
  int32_t type = 0;
  int32_t op = -1;
  int32_t root = -1;
  int32_t peer = -1;
  int64_t count = 0;
  /// The call's number: of collectives on the communicator, or of sends to
  /// the peer.
  uint64_t number = 0;
};

std::string describe(const Header &h) {
  std::string s = kindName(h.kind);
  if (h.kind == kAbort)
    return s;
  if (h.kind == kSplit)
    return s + " (call #" + std::to_string(h.number) + ")";
  s += "(count " + std::to_string(h.count) + ", " + typeName(h.type);
  if (h.kind == kAllReduce || h.kind == kReduceScatter || h.kind == kReduce)
    s += std::string(", ") + opName(h.op);
  if (h.kind == kBroadcast || h.kind == kReduce || h.kind == kGather ||
      h.kind == kScatter)
    s += ", root " + std::to_string(h.root);
  if (h.kind == kSend)
    s += ", to peer " + std::to_string(h.peer);
  s += ") (";
  s += h.kind == kSend ? "send #" : "collective call #";
  return s + std::to_string(h.number) + ")";
}

bool sameCall(const Header &a, const Header &b) {
  return a.kind == b.kind && a.type == b.type && a.op == b.op &&
         a.root == b.root && a.count == b.count && a.number == b.number;
}

constexpr int kInitTag = 0x5d01, kInitReplyTag = 0x5d02, kDataTag = 0x5d03;
constexpr uint64_t kIdMagic = 0x5348415244534d31ULL; // "SHARDSM1"

int worldRank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

std::string lastError;

/// Records `text` as NCCL's last error and returns `r`.
ncclResult_t fail(ncclResult_t r, const std::string &text) {
  lastError = text;
  return r;
}

double now() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Sends still in flight, with their buffers.
struct Outgoing {
  MPI_Request request;
  std::vector<char> bytes;
};
std::list<Outgoing> &outgoing() {
  static auto *list = new std::list<Outgoing>();
  return *list;
}

void progressSends() {
  auto &list = outgoing();
  for (auto it = list.begin(); it != list.end();) {
    int done = 0;
    MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
    it = done ? list.erase(it) : std::next(it);
  }
}

void post(MPI_Comm comm, int dest, int tag, std::vector<char> bytes) {
  outgoing().push_back(Outgoing{MPI_REQUEST_NULL, std::move(bytes)});
  Outgoing &o = outgoing().back();
  MPI_Isend(o.bytes.data(), static_cast<int>(o.bytes.size()), MPI_BYTE, dest,
            tag, comm, &o.request);
}

/// Receives the next message from `source` (MPI_ANY_SOURCE: any) with
/// `tag` on `comm` within the simulator's timeout (`factor` times it).
bool receive(MPI_Comm comm, int source, int tag, std::vector<char> &bytes,
             double factor = 1) {
  const double deadline = now() + factor * sim::timeoutSeconds();
  MPI_Status status;
  while (true) {
    int found = 0;
    MPI_Iprobe(source, tag, comm, &found, &status);
    if (found)
      break;
    progressSends();
    if (now() > deadline)
      return false;
    std::this_thread::yield();
  }
  int size = 0;
  MPI_Get_count(&status, MPI_BYTE, &size);
  bytes.resize(static_cast<size_t>(size));
  MPI_Recv(bytes.data(), size, MPI_BYTE, status.MPI_SOURCE, tag, comm,
           MPI_STATUS_IGNORE);
  return true;
}

std::vector<char> message(const Header &h, const void *data, size_t bytes) {
  std::vector<char> m(sizeof(Header) + bytes);
  std::memcpy(m.data(), &h, sizeof(Header));
  if (bytes)
    std::memcpy(m.data() + sizeof(Header), data, bytes);
  return m;
}

bool blockingByDefault() {
  const char *text = std::getenv("NCCL_COMM_BLOCKING");
  return !(text && std::string(text) == "0");
}

} // namespace

/// A communicator of the simulator.
struct ncclComm {
  uint64_t id = 0;
  int rank = 0, size = 0;
  std::vector<int> worldRanks;
  MPI_Comm mpi = MPI_COMM_NULL;
  int device = 0;
  uint64_t collectives = 0;
  int splits = 0;
  std::vector<uint64_t> sent, received;
  /// Destroyed or aborted (the watchdog's thread may abort it).
  std::atomic<bool> destroyed{false};
  /// Parts of calls on it still queued on a stream.
  int pending = 0;
  bool blocking = true;
  /// Why the communicator failed ("" while it works).
  std::string failure;
  ncclResult_t failedWith = ncclSuccess;
  /// A non-blocking communicator's work not yet done (run when its
  /// asynchronous error is polled).
  std::vector<std::function<ncclResult_t()>> deferred;

  std::string name(int r) const {
    return "comm rank " + std::to_string(r) + " (world rank " +
           std::to_string(worldRanks[static_cast<size_t>(r)]) + ")";
  }
  std::string title() const {
    return "communicator " + std::to_string(id % 100000) + " of " +
           std::to_string(size) + " ranks";
  }
};

namespace {

/// Fails `comm` for good with `text`, telling every other member.
ncclResult_t failComm(ncclComm *comm, ncclResult_t r, const std::string &text) {
  if (comm->failure.empty()) {
    comm->failure = text;
    comm->failedWith = r;
    Header h;
    h.kind = kAbort;
    for (int p = 0; p < comm->size; ++p)
      if (p != comm->rank)
        post(comm->mpi, p, kDataTag, message(h, text.data(), text.size()));
  }
  return fail(r, comm->failure);
}

/// Whether `comm` may take a call (ncclSuccess when it may).
ncclResult_t usable(ncclComm *comm, const char *call) {
  if (!comm)
    return fail(ncclInvalidArgument, std::string(call) + ": comm is NULL");
  if (comm->destroyed)
    return fail(ncclInvalidUsage,
                std::string(call) + " on a destroyed or aborted communicator");
  if (!comm->deferred.empty())
    return fail(ncclInvalidUsage,
                std::string(call) + " on a " + comm->title() +
                    " whose earlier work is still in progress (ncclInProgress):"
                    " poll ncclCommGetAsyncError until it is no longer "
                    "ncclInProgress before the next call");
  if (!comm->failure.empty())
    return fail(comm->failedWith, comm->failure);
  return ncclSuccess;
}

/// Whether [ptr, ptr + bytes) is device memory of the communicator's device.
ncclResult_t checkBuffer(ncclComm *comm, const char *call, const char *what,
                         const void *ptr, size_t bytes) {
  if (bytes == 0)
    return ncclSuccess;
  if (sim::reachable(ptr, bytes, comm->device))
    return ncclSuccess;
  const int device = sim::deviceOf(ptr, bytes);
  return fail(ncclInvalidArgument,
              std::string(call) + ": " + what + " (" + std::to_string(bytes) +
                  " bytes) is " +
                  (device < 0 ? std::string("not device memory")
                              : "on device " + std::to_string(device)) +
                  ", but the " + comm->title() + " is on device " +
                  std::to_string(comm->device));
}

/// One call's part on one rank: what it sends each peer, what it expects
/// from each, and what it does with what arrives.
struct Part {
  ncclComm *comm;
  cudaStream_t stream = nullptr;
  Header mine;
  /// The peers (comm ranks) it sends to and receives from.
  std::vector<int> sendTo, receiveFrom;
  /// The bytes for peer p (sendTo order).
  std::function<std::vector<char>(int)> payload;
  /// Reads the call's input when its part reaches the head of its stream.
  std::function<void()> start;
  /// Takes what peer p sent (receiveFrom order).
  std::function<void(int, const char *, size_t)> take;
  /// Runs once everything arrived.
  std::function<void()> finish;
};

void postPart(const Part &part) {
  for (int p : part.sendTo) {
    std::vector<char> data =
        part.payload ? part.payload(p) : std::vector<char>{};
    Header h = part.mine;
    post(part.comm->mpi, p, kDataTag, message(h, data.data(), data.size()));
  }
}

/// Calls' parts in progress on a stream: posted, and how far what they
/// expect has arrived.
struct Work {
  std::vector<Part> parts;
  bool posted = false;
  size_t part = 0, peer = 0;
  double deadline = 0;
};

/// Takes the message `bytes` from comm rank `p` for `part`; false when it
/// failed the communicator (a peer's failure report, or calls that do not
/// match).
bool takeMessage(Part &part, int p, const std::vector<char> &bytes) {
  ncclComm *comm = part.comm;
  Header theirs;
  std::memcpy(&theirs, bytes.data(), sizeof(Header));
  if (theirs.kind == kAbort) {
    const std::string text(bytes.data() + sizeof(Header),
                           bytes.size() - sizeof(Header));
    comm->failure = comm->name(p) + " failed: " + text;
    comm->failedWith = ncclRemoteError;
    fail(ncclRemoteError, comm->failure);
    return false;
  }
  Header expected = part.mine;
  if (part.mine.kind == kSend) {
    // A receive takes a send to this rank.
    expected.peer = comm->rank;
  }
  if (!sameCall(theirs, expected) || theirs.peer != expected.peer) {
    std::string what = part.mine.kind == kSend
                           ? "posted ncclRecv(count " +
                                 std::to_string(part.mine.count) + ", " +
                                 typeName(part.mine.type) + ", from peer " +
                                 std::to_string(p) + ") (receive #" +
                                 std::to_string(part.mine.number) + ")"
                           : "made " + describe(part.mine);
    failComm(comm, ncclInvalidUsage,
             comm->title() + ": the ranks' calls do not match: " +
                 comm->name(comm->rank) + " " + what + " where " +
                 comm->name(p) + " made " + describe(theirs));
    return false;
  }
  if (part.take)
    part.take(p, bytes.data() + sizeof(Header), bytes.size() - sizeof(Header));
  return true;
}

/// Runs `w` as far as it goes without waiting: true when it is done (all
/// arrived; or its communicator failed, the failure then the communicator's
/// asynchronous error; or it was aborted, its buffers left as they were).
bool step(Work &w) {
  for (const Part &part : w.parts)
    if (part.comm->destroyed.load())
      return true;
  if (!w.posted) {
    for (Part &part : w.parts)
      if (part.start)
        part.start();
    for (const Part &part : w.parts)
      postPart(part);
    w.posted = true;
    w.deadline = now() + sim::timeoutSeconds();
  }
  progressSends();
  while (w.part < w.parts.size()) {
    Part &part = w.parts[w.part];
    ncclComm *comm = part.comm;
    if (!comm->failure.empty())
      return true;
    if (w.peer == part.receiveFrom.size()) {
      if (part.finish)
        part.finish();
      ++w.part;
      w.peer = 0;
      continue;
    }
    const int p = part.receiveFrom[w.peer];
    int found = 0;
    MPI_Status status;
    MPI_Iprobe(p, kDataTag, comm->mpi, &found, &status);
    if (!found) {
      if (now() <= w.deadline)
        return false;
      failComm(
          comm, ncclRemoteError,
          comm->title() + ": " + comm->name(comm->rank) + " made " +
              describe(part.mine) + ", but " + comm->name(p) +
              " has not made its part within " +
              std::to_string(static_cast<int>(sim::timeoutSeconds())) +
              " s (SHARDC_SIM_TIMEOUT_SECONDS): it made fewer calls on this "
              "communicator, or never created it, or waits elsewhere");
      return true;
    }
    int size = 0;
    MPI_Get_count(&status, MPI_BYTE, &size);
    std::vector<char> bytes(static_cast<size_t>(size));
    MPI_Recv(bytes.data(), size, MPI_BYTE, p, kDataTag, comm->mpi,
             MPI_STATUS_IGNORE);
    if (!takeMessage(part, p, bytes))
      return true;
    ++w.peer;
  }
  return true;
}

/// Queues `parts` (on one stream: the first's) as one piece of work.
void enqueueParts(std::vector<Part> parts) {
  if (parts.empty())
    return;
  for (const Part &part : parts)
    ++part.comm->pending;
  const cudaStream_t stream = parts.front().stream;
  auto work = std::make_shared<Work>();
  work->parts = std::move(parts);
  sim::enqueue(stream, [work] {
    if (!step(*work))
      return false;
    for (const Part &part : work->parts)
      --part.comm->pending;
    return true;
  });
}

/// The outcome of `comm`'s work so far: its failure, or ncclSuccess.
ncclResult_t outcome(ncclComm *comm, const char *call) {
  if (comm->destroyed.load())
    return fail(ncclInvalidUsage, std::string(call) +
                                      ": the communicator was aborted while "
                                      "the call ran");
  if (!comm->failure.empty())
    return fail(comm->failedWith, comm->failure);
  return ncclSuccess;
}

int groupDepth = 0;
std::vector<Part> &grouped() {
  static auto *parts = new std::vector<Part>();
  return *parts;
}

/// With SHARDC_SIM_LOG_CALLS=1, prints each NCCL call a rank makes to its
/// stdout ("shardsim: ncclAllGather"; a send or a receive as "ncclSend" or
/// "ncclRecv"): what tests of compiled programs check ran.
void logCall(const Part &part) {
  static const bool logging = [] {
    const char *text = std::getenv("SHARDC_SIM_LOG_CALLS");
    return text && std::string(text) == "1";
  }();
  if (!logging)
    return;
  const char *name = part.mine.kind != kSend ? kindName(part.mine.kind)
                     : part.sendTo.empty()   ? "ncclRecv"
                                             : "ncclSend";
  std::printf("shardsim: %s\n", name);
  std::fflush(stdout);
}

/// Queues `part` on its stream now, or at the end of the open group.
ncclResult_t submit(Part part) {
  logCall(part);
  if (part.mine.kind != kSend)
    ++part.comm->collectives;
  if (groupDepth > 0) {
    grouped().push_back(std::move(part));
    return ncclSuccess;
  }
  std::vector<Part> parts;
  parts.push_back(std::move(part));
  enqueueParts(std::move(parts));
  return ncclSuccess;
}

/// Runs `part` on the host until it is done (a call that blocks the host:
/// ncclCommSplit), after the work queued on its communicator.
ncclResult_t runNow(Part part, const char *call) {
  ncclComm *comm = part.comm;
  while (comm->pending > 0 && !comm->destroyed.load()) {
    sim::progressAll();
    std::this_thread::yield();
  }
  ++comm->collectives;
  Work work;
  work.parts.push_back(std::move(part));
  while (!step(work))
    std::this_thread::yield();
  return outcome(comm, call);
}

std::vector<int> others(const ncclComm *comm) {
  std::vector<int> peers;
  for (int p = 0; p < comm->size; ++p)
    if (p != comm->rank)
      peers.push_back(p);
  return peers;
}

/// The runtime's dtype of an NCCL type it reduces (none for the others).
std::optional<shardrt_dtype> runtimeType(int32_t type) {
  switch (type) {
  case ncclInt8:
    return SHARDRT_I8;
  case ncclUint8:
    return SHARDRT_U8;
  case ncclUint32:
    return SHARDRT_U32;
  case ncclUint64:
    return SHARDRT_U64;
  case ncclInt32:
    return SHARDRT_I32;
  case ncclInt64:
    return SHARDRT_I64;
  case ncclFloat16:
    return SHARDRT_F16;
  case ncclBfloat16:
    return SHARDRT_BF16;
  case ncclFloat32:
    return SHARDRT_F32;
  case ncclFloat64:
    return SHARDRT_F64;
  default:
    return std::nullopt;
  }
}

/// dst = dst op src over `count` elements of `type` (a reducible one), with
/// the runtime's host arithmetic (Reduce.h); avg sums (divided after).
void combine(char *dst, const char *src, int64_t count, int32_t type,
             int32_t op) {
  const shardrt_reduce reduce = op == ncclProd  ? SHARDRT_PRODUCT
                                : op == ncclMax ? SHARDRT_MAX
                                : op == ncclMin ? SHARDRT_MIN
                                                : SHARDRT_SUM;
  rt::reduceView(rt::View{const_cast<char *>(src), {count}, {1}},
                 rt::View{dst, {count}, {1}}, *runtimeType(type), reduce);
}

/// data = data / by over `count` elements of `type` (a reducible one).
void divideAll(char *data, int64_t count, int32_t type, int64_t by) {
  rt::divideView(rt::View{data, {count}, {1}}, by, *runtimeType(type));
}

bool reducible(int32_t type) { return runtimeType(type).has_value(); }

/// Checks a call's arguments common to every call.
ncclResult_t checkCall(ncclComm *comm, const char *call, size_t count,
                       ncclDataType_t type, cudaStream_t stream) {
  if (ncclResult_t r = usable(comm, call))
    return r;
  (void)stream;
  if (static_cast<int>(type) < 0 || static_cast<int>(type) >= ncclNumTypes)
    return fail(ncclInvalidArgument, std::string(call) + ": unknown datatype " +
                                         std::to_string(type));
  if (count > (size_t(1) << 40))
    return fail(ncclInvalidArgument, std::string(call) + ": count " +
                                         std::to_string(count) +
                                         " is beyond what the simulator moves");
  if (sim::currentDevice() != comm->device)
    return fail(ncclInvalidUsage,
                std::string(call) + ": the current device is " +
                    std::to_string(sim::currentDevice()) + " but the " +
                    comm->title() + " was created on device " +
                    std::to_string(comm->device));
  return ncclSuccess;
}

Header headerOf(ncclComm *comm, int32_t kind, size_t count, ncclDataType_t type,
                int32_t op = -1, int32_t root = -1) {
  Header h;
  h.kind = kind;
  h.type = type;
  h.op = op;
  h.root = root;
  h.count = static_cast<int64_t>(count);
  h.number = comm->collectives + 1;
  return h;
}

/// A reducing collective's checks.
ncclResult_t checkOp(const char *call, ncclDataType_t type, ncclRedOp_t op) {
  if (static_cast<int>(op) < 0 || static_cast<int>(op) >= ncclNumOps)
    return fail(ncclInvalidArgument, std::string(call) +
                                         ": unknown reduction op " +
                                         std::to_string(op));
  if (!reducible(type))
    return fail(ncclInvalidArgument, std::string(call) +
                                         ": the simulator does not reduce " +
                                         typeName(type));
  return ncclSuccess;
}

/// Creates the MPI communicator of `members` (world ranks, in comm order)
/// among them only.
MPI_Comm groupOf(const std::vector<int> &members, uint64_t id) {
  MPI_Group world, group;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, static_cast<int>(members.size()), members.data(),
                 &group);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_create_group(MPI_COMM_WORLD, group, static_cast<int>(id % 30000),
                        &comm);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  return comm;
}

/// Joins sent to this process for unique ids it has not been asked about
/// yet, and answers for ids this process has not waited for yet.
std::multimap<uint64_t, std::vector<char>> &stashed(int tag) {
  static auto *joins = new std::multimap<uint64_t, std::vector<char>>();
  static auto *replies = new std::multimap<uint64_t, std::vector<char>>();
  return tag == kInitTag ? *joins : *replies;
}

/// The next message for `id` with `tag` (from the stash, else from MPI).
bool receiveFor(uint64_t id, int tag, std::vector<char> &bytes, double factor) {
  auto &stash = stashed(tag);
  const double deadline = now() + factor * sim::timeoutSeconds();
  while (true) {
    auto it = stash.find(id);
    if (it != stash.end()) {
      bytes = std::move(it->second);
      stash.erase(it);
      return true;
    }
    std::vector<char> m;
    const double left = deadline - now();
    if (left <= 0 || !receive(MPI_COMM_WORLD, MPI_ANY_SOURCE, tag, m,
                              std::min(left, 0.05) / sim::timeoutSeconds())) {
      if (now() > deadline)
        return false;
      continue;
    }
    uint64_t theirs = 0;
    std::memcpy(&theirs, m.data(), sizeof(theirs));
    stash.emplace(theirs, std::move(m));
  }
}

struct Join {
  uint64_t id;
  int32_t nranks, rank, world, device;
  /// The host, as NCCL tells hosts apart: NCCL_HOSTID, else the host name.
  uint64_t host;
};

uint64_t hostHash() {
  std::string host;
  if (const char *id = std::getenv("NCCL_HOSTID"); id && *id)
    host = id;
  else {
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    host = name;
  }
  return std::hash<std::string>()(host);
}

int live = 0;

/// At a normal exit: the communicators never destroyed.
void reportLeaks() {
  if (live > 0) {
    std::printf("shardsim: rank %d: FAILED: %d NCCL communicator%s never "
                "destroyed (ncclCommDestroy or ncclCommAbort) before the "
                "process exited\n",
                worldRank(), live, live == 1 ? " was" : "s were");
    std::fflush(stdout);
    std::_Exit(1);
  }
}

/// Counts a new communicator (and registers the check at exit once).
void born() {
  static const bool registered = [] {
    std::atexit(reportLeaks);
    return true;
  }();
  (void)registered;
  ++live;
}

ncclResult_t createComm(ncclComm_t *out, int nranks, const ncclUniqueId &uid,
                        int rank, bool blocking) {
  uint64_t magic = 0, id = 0;
  int32_t creator = -1;
  std::memcpy(&magic, uid.internal, 8);
  std::memcpy(&id, uid.internal + 8, 8);
  std::memcpy(&creator, uid.internal + 16, 4);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    return fail(ncclSystemError,
                "ncclCommInitRank: the simulator carries NCCL's traffic over "
                "MPI, which is not initialized");
  int worldSize = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  if (magic != kIdMagic || creator < 0 || creator >= worldSize)
    return fail(ncclInvalidArgument,
                "ncclCommInitRank: the unique id was not made by "
                "ncclGetUniqueId (of this world)");
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return fail(ncclInvalidArgument, "ncclCommInitRank: rank " +
                                         std::to_string(rank) +
                                         " is not in a communicator of " +
                                         std::to_string(nranks) + " ranks");
  const int me = worldRank();
  Join mine{id, nranks, rank, me, sim::currentDevice(), hostHash()};
  std::vector<int> members(static_cast<size_t>(nranks), -1);
  std::vector<int> devices(static_cast<size_t>(nranks), -1);
  std::string problem;
  auto joinText = [&](const Join &j) {
    return "world rank " + std::to_string(j.world) + " (rank " +
           std::to_string(j.rank) + " of " + std::to_string(j.nranks) + ")";
  };
  if (me == creator) {
    members[static_cast<size_t>(rank)] = me;
    devices[static_cast<size_t>(rank)] = mine.device;
    std::vector<Join> joined;
    std::vector<Join> all{mine};
    for (int k = 1; k < nranks; ++k) {
      std::vector<char> m;
      if (!receiveFor(id, kInitTag, m, 1)) {
        std::string missing;
        for (int r = 0; r < nranks; ++r)
          if (members[static_cast<size_t>(r)] < 0)
            missing += (missing.empty() ? "" : ", ") + std::to_string(r);
        problem = "ncclCommInitRank of a communicator of " +
                  std::to_string(nranks) + " ranks: rank(s) " + missing +
                  " never joined within " +
                  std::to_string(static_cast<int>(sim::timeoutSeconds())) +
                  " s (SHARDC_SIM_TIMEOUT_SECONDS)";
        break;
      }
      Join j;
      std::memcpy(&j, m.data(), sizeof(Join));
      joined.push_back(j);
      for (const Join &other : all)
        if (other.host == j.host && other.device == j.device)
          problem = "ncclCommInitRank: Duplicate GPU detected: " + joinText(j) +
                    " and " + joinText(other) + " both use device " +
                    std::to_string(j.device) +
                    " of one host (NCCL refuses two ranks on one GPU unless "
                    "each has its own NCCL_HOSTID)";
      all.push_back(j);
      if (!problem.empty())
        continue;
      if (j.nranks != nranks)
        problem = "ncclCommInitRank: " + joinText(j) + " and " +
                  joinText(mine) + " disagree on the communicator's size";
      else if (members[static_cast<size_t>(j.rank)] >= 0)
        problem = "ncclCommInitRank: world ranks " +
                  std::to_string(members[static_cast<size_t>(j.rank)]) +
                  " and " + std::to_string(j.world) + " both joined as rank " +
                  std::to_string(j.rank);
      else {
        members[static_cast<size_t>(j.rank)] = j.world;
        devices[static_cast<size_t>(j.rank)] = j.device;
      }
    }
    // The answer: the members' world ranks, or why it failed.
    std::vector<char> answer(8 + 4 + sizeof(int) * members.size() * 2);
    std::memcpy(answer.data(), &id, 8);
    const int32_t ok = problem.empty() ? 1 : 0;
    std::memcpy(answer.data() + 8, &ok, 4);
    std::memcpy(answer.data() + 12, members.data(),
                sizeof(int) * members.size());
    std::memcpy(answer.data() + 12 + sizeof(int) * members.size(),
                devices.data(), sizeof(int) * devices.size());
    if (!ok)
      answer.insert(answer.end(), problem.begin(), problem.end());
    for (const Join &j : joined)
      post(MPI_COMM_WORLD, j.world, kInitReplyTag, answer);
  } else {
    std::vector<char> m(sizeof(Join));
    std::memcpy(m.data(), &mine, sizeof(Join));
    post(MPI_COMM_WORLD, creator, kInitTag, m);
    std::vector<char> answer;
    // The creator names who is missing within the timeout; twice it, and
    // the creator itself has not joined.
    if (!receiveFor(id, kInitReplyTag, answer, 2))
      return fail(
          ncclRemoteError,
          "ncclCommInitRank: world rank " + std::to_string(creator) +
              ", which made the unique id, never answered within " +
              std::to_string(static_cast<int>(2 * sim::timeoutSeconds())) +
              " s: it has not called ncclCommInitRank with this id");
    int32_t ok = 0;
    std::memcpy(&ok, answer.data() + 8, 4);
    const size_t table = 12 + sizeof(int) * members.size() * 2;
    if (!ok)
      return fail(
          ncclInvalidUsage,
          std::string(answer.begin() + static_cast<long>(table), answer.end()));
    std::memcpy(members.data(), answer.data() + 12,
                sizeof(int) * members.size());
    std::memcpy(devices.data(),
                answer.data() + 12 + sizeof(int) * members.size(),
                sizeof(int) * devices.size());
  }
  if (!problem.empty())
    return fail(ncclInvalidUsage, problem);
  auto *comm = new ncclComm();
  comm->id = id;
  comm->rank = rank;
  comm->size = nranks;
  comm->worldRanks = members;
  comm->device = mine.device;
  comm->blocking = blocking;
  comm->sent.assign(static_cast<size_t>(nranks), 0);
  comm->received.assign(static_cast<size_t>(nranks), 0);
  comm->mpi = groupOf(members, id);
  *out = comm;
  born();
  return ncclSuccess;
}

/// Returns ncclInProgress for a non-blocking communicator, whose `work` runs
/// when its asynchronous error is polled; runs it now otherwise.
ncclResult_t maybeDefer(ncclComm *comm, std::function<ncclResult_t()> work) {
  if (comm->blocking)
    return work();
  comm->deferred.push_back(std::move(work));
  return ncclInProgress;
}

} // namespace

int shardc::sim::liveCommunicators() { return live; }

ncclResult_t ncclGetVersion(int *version) {
  if (!version)
    return ncclInvalidArgument;
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId) {
  if (!uniqueId)
    return fail(ncclInvalidArgument, "ncclGetUniqueId: uniqueId is NULL");
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    return fail(ncclSystemError, "ncclGetUniqueId: the simulator needs MPI");
  static std::mt19937_64 random(std::random_device{}());
  std::memset(uniqueId->internal, 0, sizeof(uniqueId->internal));
  const uint64_t id = random() | 1;
  const int32_t me = worldRank();
  std::memcpy(uniqueId->internal, &kIdMagic, 8);
  std::memcpy(uniqueId->internal + 8, &id, 8);
  std::memcpy(uniqueId->internal + 16, &me, 4);
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId,
                              int rank) {
  if (!comm)
    return fail(ncclInvalidArgument, "ncclCommInitRank: comm is NULL");
  *comm = nullptr;
  return createComm(comm, nranks, commId, rank, blockingByDefault());
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks,
                                    ncclUniqueId commId, int rank,
                                    ncclConfig_t *config) {
  if (!comm)
    return fail(ncclInvalidArgument, "ncclCommInitRankConfig: comm is NULL");
  *comm = nullptr;
  const bool blocking = config && config->blocking != NCCL_CONFIG_UNDEF_INT
                            ? config->blocking != 0
                            : blockingByDefault();
  ncclResult_t r = createComm(comm, nranks, commId, rank, blocking);
  if (r == ncclSuccess && !blocking)
    return maybeDefer(*comm, [] { return ncclSuccess; });
  return r;
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key,
                           ncclComm_t *newcomm, ncclConfig_t *config) {
  if (ncclResult_t r = usable(comm, "ncclCommSplit"))
    return r;
  if (!newcomm)
    return fail(ncclInvalidArgument, "ncclCommSplit: newcomm is NULL");
  if (color < NCCL_SPLIT_NOCOLOR)
    return fail(ncclInvalidArgument,
                "ncclCommSplit: color " + std::to_string(color) +
                    " is negative (NCCL_SPLIT_NOCOLOR is -1)");
  *newcomm = nullptr;
  // Every member's color and key, learned by a call of its own kind.
  std::vector<int32_t> colors(static_cast<size_t>(comm->size)),
      keys(static_cast<size_t>(comm->size));
  colors[static_cast<size_t>(comm->rank)] = color;
  keys[static_cast<size_t>(comm->rank)] = key;
  Part part;
  part.comm = comm;
  part.mine = headerOf(comm, kSplit, 0, ncclInt8);
  part.sendTo = part.receiveFrom = others(comm);
  const int32_t pair[2] = {color, key};
  part.payload = [&](int) {
    return std::vector<char>(reinterpret_cast<const char *>(pair),
                             reinterpret_cast<const char *>(pair) + 8);
  };
  part.take = [&](int p, const char *data, size_t) {
    std::memcpy(&colors[static_cast<size_t>(p)], data, 4);
    std::memcpy(&keys[static_cast<size_t>(p)], data + 4, 4);
  };
  if (ncclResult_t r = runNow(std::move(part), "ncclCommSplit"))
    return r;
  const int number = ++comm->splits;
  const bool blocking = config && config->blocking != NCCL_CONFIG_UNDEF_INT
                            ? config->blocking != 0
                            : comm->blocking;
  if (color == NCCL_SPLIT_NOCOLOR)
    return ncclSuccess;
  std::vector<std::pair<std::pair<int, int>, int>> order;
  for (int p = 0; p < comm->size; ++p)
    if (colors[static_cast<size_t>(p)] == color)
      order.push_back({{keys[static_cast<size_t>(p)], p}, p});
  std::sort(order.begin(), order.end());
  auto *child = new ncclComm();
  child->id = comm->id * 1000003ULL + static_cast<uint64_t>(number) * 7919ULL +
              static_cast<uint64_t>(color) + 1;
  child->size = static_cast<int>(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    if (order[k].second == comm->rank)
      child->rank = static_cast<int>(k);
    child->worldRanks.push_back(
        comm->worldRanks[static_cast<size_t>(order[k].second)]);
  }
  child->device = comm->device;
  child->blocking = blocking;
  child->sent.assign(order.size(), 0);
  child->received.assign(order.size(), 0);
  child->mpi = groupOf(child->worldRanks, child->id);
  *newcomm = child;
  born();
  if (!blocking)
    return maybeDefer(child, [] { return ncclSuccess; });
  return ncclSuccess;
}

ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  if (!comm)
    return fail(ncclInvalidArgument, "ncclCommFinalize: comm is NULL");
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm)
    return ncclSuccess;
  if (comm->destroyed)
    return fail(ncclInvalidUsage, "ncclCommDestroy: destroyed twice");
  // Its queued work is flushed first, as NCCL's finalize does.
  while (comm->pending > 0) {
    sim::progressAll();
    std::this_thread::yield();
  }
  comm->destroyed = true;
  --live;
  // The object stays, so that a later call on it is reported.
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (!comm)
    return ncclSuccess;
  // SHARDC_SIM_ABORT_HANGS=1: a device stuck so that ncclCommAbort never
  // returns (it joins NCCL's threads).
  if (const char *hang = std::getenv("SHARDC_SIM_ABORT_HANGS");
      hang && std::string(hang) == "1")
    while (true)
      std::this_thread::sleep_for(std::chrono::seconds(1));
  if (!comm->destroyed)
    --live;
  comm->destroyed = true;
  return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
  case ncclSuccess:
    return "no error";
  case ncclUnhandledCudaError:
    return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
  case ncclSystemError:
    return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
  case ncclInternalError:
    return "internal error - please report this issue to the NCCL developers";
  case ncclInvalidArgument:
    return "invalid argument (run with NCCL_DEBUG=WARN for details)";
  case ncclInvalidUsage:
    return "invalid usage (run with NCCL_DEBUG=WARN for details)";
  case ncclRemoteError:
    return "remote process exited or there was a network error";
  case ncclInProgress:
    return "NCCL operation in progress";
  default:
    return "unknown result code";
  }
}

const char *ncclGetLastError(ncclComm_t) { return lastError.c_str(); }

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError) {
  if (!comm || !asyncError)
    return fail(ncclInvalidArgument, "ncclCommGetAsyncError: NULL argument");
  if (!comm->deferred.empty()) {
    // The deferred work of a non-blocking communicator: one piece per poll.
    auto work = std::move(comm->deferred.front());
    comm->deferred.erase(comm->deferred.begin());
    ncclResult_t r = work();
    if (r != ncclSuccess) {
      comm->deferred.clear();
      *asyncError = r;
      return ncclSuccess;
    }
    *asyncError = comm->deferred.empty() ? ncclSuccess : ncclInProgress;
    return ncclSuccess;
  }
  *asyncError = comm->failure.empty() ? ncclSuccess : comm->failedWith;
  return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count) {
  if (!comm || !count)
    return ncclInvalidArgument;
  *count = comm->size;
  return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank) {
  if (!comm || !rank)
    return ncclInvalidArgument;
  *rank = comm->rank;
  return ncclSuccess;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device) {
  if (!comm || !device)
    return ncclInvalidArgument;
  *device = comm->device;
  return ncclSuccess;
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff,
                           size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream) {
  const char *call = "ncclAllGather";
  if (ncclResult_t r = checkCall(comm, call, sendcount, datatype, stream))
    return r;
  const size_t bytes = sendcount * typeSize(datatype);
  if (ncclResult_t r = checkBuffer(comm, call, "sendbuff", sendbuff, bytes))
    return r;
  if (ncclResult_t r = checkBuffer(comm, call, "recvbuff", recvbuff,
                                   bytes * static_cast<size_t>(comm->size)))
    return r;
  Part part;
  part.comm = comm;
  part.mine = headerOf(comm, kAllGather, sendcount, datatype);
  part.sendTo = part.receiveFrom = others(comm);
  part.stream = stream;
  auto mineCopy = std::make_shared<std::vector<char>>();
  const char *in = static_cast<const char *>(sendbuff);
  part.start = [mineCopy, in, bytes] { mineCopy->assign(in, in + bytes); };
  part.payload = [mineCopy](int) { return *mineCopy; };
  char *out = static_cast<char *>(recvbuff);
  part.take = [out, bytes](int p, const char *data, size_t) {
    std::memcpy(out + static_cast<size_t>(p) * bytes, data, bytes);
  };
  const int me = comm->rank;
  part.finish = [out, bytes, me, mineCopy] {
    std::memmove(out + static_cast<size_t>(me) * bytes, mineCopy->data(),
                 bytes);
  };
  return submit(std::move(part));
}

namespace {

/// ncclAllReduce, ncclReduceScatter and ncclReduce: every member sends the
/// slice each receiver keeps; the receiver combines in comm rank order.
ncclResult_t reduceCall(const char *call, int32_t kind, const void *sendbuff,
                        void *recvbuff, size_t count, ncclDataType_t datatype,
                        ncclRedOp_t op, int root, ncclComm_t comm,
                        cudaStream_t stream) {
  if (ncclResult_t r = checkCall(comm, call, count, datatype, stream))
    return r;
  if (ncclResult_t r = checkOp(call, datatype, op))
    return r;
  if (kind == kReduce && (root < 0 || root >= comm->size))
    return fail(ncclInvalidArgument,
                std::string(call) + ": root " + std::to_string(root) +
                    " is not a rank of the " + comm->title());
  const size_t es = typeSize(datatype);
  const size_t n = static_cast<size_t>(comm->size);
  const size_t sendBytes = count * es * (kind == kReduceScatter ? n : 1);
  const size_t keep = count * es;
  if (ncclResult_t r = checkBuffer(comm, call, "sendbuff", sendbuff, sendBytes))
    return r;
  const bool receives = kind != kReduce || comm->rank == root;
  if (receives) {
    if (ncclResult_t r = checkBuffer(comm, call, "recvbuff", recvbuff, keep))
      return r;
  }
  Part part;
  part.comm = comm;
  part.mine =
      headerOf(comm, kind, count, datatype, op, kind == kReduce ? root : -1);
  part.sendTo = part.receiveFrom = others(comm);
  part.stream = stream;
  auto input = std::make_shared<std::vector<char>>();
  const char *in = static_cast<const char *>(sendbuff);
  part.start = [input, in, sendBytes] { input->assign(in, in + sendBytes); };
  auto slices = std::make_shared<std::vector<std::vector<char>>>(n);
  const int me = comm->rank;
  part.payload = [=](int p) {
    if (kind == kReduce && p != root)
      return std::vector<char>{};
    const size_t at =
        kind == kReduceScatter ? static_cast<size_t>(p) * keep : 0;
    return std::vector<char>(input->begin() + static_cast<long>(at),
                             input->begin() + static_cast<long>(at + keep));
  };
  part.take = [=](int p, const char *data, size_t size) {
    (*slices)[static_cast<size_t>(p)].assign(data, data + size);
  };
  char *out = static_cast<char *>(recvbuff);
  part.finish = [=] {
    if (!receives)
      return;
    const size_t at =
        kind == kReduceScatter ? static_cast<size_t>(me) * keep : 0;
    (*slices)[static_cast<size_t>(me)].assign(
        input->begin() + static_cast<long>(at),
        input->begin() + static_cast<long>(at + keep));
    std::vector<char> result = (*slices)[0];
    for (size_t p = 1; p < n; ++p)
      combine(result.data(), (*slices)[p].data(), static_cast<int64_t>(count),
              datatype, op);
    if (op == ncclAvg)
      divideAll(result.data(), static_cast<int64_t>(count), datatype,
                static_cast<int64_t>(n));
    if (keep)
      std::memcpy(out, result.data(), keep);
  };
  return submit(std::move(part));
}

} // namespace

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream) {
  return reduceCall("ncclAllReduce", kAllReduce, sendbuff, recvbuff, count,
                    datatype, op, -1, comm, stream);
}

ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff,
                               size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream) {
  return reduceCall("ncclReduceScatter", kReduceScatter, sendbuff, recvbuff,
                    recvcount, datatype, op, -1, comm, stream);
}

ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                        ncclDataType_t datatype, ncclRedOp_t op, int root,
                        ncclComm_t comm, cudaStream_t stream) {
  return reduceCall("ncclReduce", kReduce, sendbuff, recvbuff, count, datatype,
                    op, root, comm, stream);
}

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm,
                           cudaStream_t stream) {
  const char *call = "ncclBroadcast";
  if (ncclResult_t r = checkCall(comm, call, count, datatype, stream))
    return r;
  if (root < 0 || root >= comm->size)
    return fail(ncclInvalidArgument,
                std::string(call) + ": root " + std::to_string(root) +
                    " is not a rank of the " + comm->title());
  const size_t bytes = count * typeSize(datatype);
  if (comm->rank == root) {
    if (ncclResult_t r = checkBuffer(comm, call, "sendbuff", sendbuff, bytes))
      return r;
  }
  if (ncclResult_t r = checkBuffer(comm, call, "recvbuff", recvbuff, bytes))
    return r;
  Part part;
  part.comm = comm;
  part.mine = headerOf(comm, kBroadcast, count, datatype, -1, root);
  part.sendTo = part.receiveFrom = others(comm);
  const bool isRoot = comm->rank == root;
  part.stream = stream;
  auto data = std::make_shared<std::vector<char>>();
  const char *in = static_cast<const char *>(sendbuff);
  if (isRoot)
    part.start = [data, in, bytes] { data->assign(in, in + bytes); };
  part.payload = [=](int) { return isRoot ? *data : std::vector<char>{}; };
  char *out = static_cast<char *>(recvbuff);
  part.take = [=](int p, const char *in, size_t size) {
    if (p == root && size == bytes && bytes)
      std::memcpy(out, in, bytes);
  };
  part.finish = [=] {
    if (isRoot && bytes)
      std::memmove(out, data->data(), bytes);
  };
  return submit(std::move(part));
}

ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count,
                          ncclDataType_t datatype, ncclComm_t comm,
                          cudaStream_t stream) {
  const char *call = "ncclAlltoAll";
  if (ncclResult_t r = checkCall(comm, call, count, datatype, stream))
    return r;
  const size_t bytes = count * typeSize(datatype);
  const size_t all = bytes * static_cast<size_t>(comm->size);
  if (ncclResult_t r = checkBuffer(comm, call, "sendbuff", sendbuff, all))
    return r;
  if (ncclResult_t r = checkBuffer(comm, call, "recvbuff", recvbuff, all))
    return r;
  Part part;
  part.comm = comm;
  part.mine = headerOf(comm, kAllToAll, count, datatype);
  part.sendTo = part.receiveFrom = others(comm);
  part.stream = stream;
  auto input = std::make_shared<std::vector<char>>();
  const char *in = static_cast<const char *>(sendbuff);
  part.start = [input, in, all] { input->assign(in, in + all); };
  part.payload = [=](int p) {
    const size_t at = static_cast<size_t>(p) * bytes;
    return std::vector<char>(input->begin() + static_cast<long>(at),
                             input->begin() + static_cast<long>(at + bytes));
  };
  char *out = static_cast<char *>(recvbuff);
  part.take = [=](int p, const char *in, size_t) {
    std::memcpy(out + static_cast<size_t>(p) * bytes, in, bytes);
  };
  const int me = comm->rank;
  part.finish = [=] {
    std::memcpy(out + static_cast<size_t>(me) * bytes,
                input->data() + static_cast<size_t>(me) * bytes, bytes);
  };
  return submit(std::move(part));
}

namespace {

/// The checks and header of ncclSend (`send`) or ncclRecv: a receive
/// expects the peer's send of the same count and type, numbered alike.
ncclResult_t pointToPoint(bool send, const void *buffer, size_t count,
                          ncclDataType_t datatype, int peer, ncclComm_t comm,
                          cudaStream_t stream, Part &part) {
  const char *call = send ? "ncclSend" : "ncclRecv";
  if (ncclResult_t r = checkCall(comm, call, count, datatype, stream))
    return r;
  if (peer < 0 || peer >= comm->size)
    return fail(ncclInvalidArgument,
                std::string(call) + ": peer " + std::to_string(peer) +
                    " is not a rank of the " + comm->title());
  if (ncclResult_t r = checkBuffer(comm, call, send ? "sendbuff" : "recvbuff",
                                   buffer, count * typeSize(datatype)))
    return r;
  part.comm = comm;
  part.stream = stream;
  part.mine.kind = kSend;
  part.mine.type = datatype;
  part.mine.count = static_cast<int64_t>(count);
  part.mine.peer = peer;
  part.mine.number =
      ++(send ? comm->sent : comm->received)[static_cast<size_t>(peer)];
  (send ? part.sendTo : part.receiveFrom) = {peer};
  return ncclSuccess;
}

} // namespace

ncclResult_t ncclSend(const void *sendbuff, size_t count,
                      ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  Part part;
  if (ncclResult_t r = pointToPoint(true, sendbuff, count, datatype, peer, comm,
                                    stream, part))
    return r;
  const size_t bytes = count * typeSize(datatype);
  auto data = std::make_shared<std::vector<char>>();
  const char *in = static_cast<const char *>(sendbuff);
  part.start = [data, in, bytes] { data->assign(in, in + bytes); };
  part.payload = [=](int) { return *data; };
  return submit(std::move(part));
}

ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype,
                      int peer, ncclComm_t comm, cudaStream_t stream) {
  Part part;
  if (ncclResult_t r = pointToPoint(false, recvbuff, count, datatype, peer,
                                    comm, stream, part))
    return r;
  const size_t bytes = count * typeSize(datatype);
  char *out = static_cast<char *>(recvbuff);
  part.take = [=](int, const char *in, size_t) {
    if (bytes)
      std::memcpy(out, in, bytes);
  };
  return submit(std::move(part));
}

ncclResult_t ncclGroupStart() {
  ++groupDepth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (groupDepth == 0)
    return fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  if (--groupDepth > 0)
    return ncclSuccess;
  std::vector<Part> parts = std::move(grouped());
  grouped().clear();
  if (parts.empty())
    return ncclSuccess;
  bool deferred = false;
  for (const Part &p : parts)
    deferred |= !p.comm->blocking;
  // One piece of work on the first part's stream: every message is posted
  // before any is awaited.
  auto run = [parts]() mutable {
    enqueueParts(std::move(parts));
    return ncclSuccess;
  };
  if (deferred)
    return maybeDefer(parts.front().comm, run);
  return run();
}
