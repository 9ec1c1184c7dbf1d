//===- MpiBackend.cpp - Collectives on host buffers with MPI --------------===//
//
// Counts are in elements of an unsigned integer type of the element's size:
// the backend only moves data. Blocks go straight into (all_gather) or out of
// (scatter) the global tensor when each is contiguous there; otherwise they
// are staged in rank order in a contiguous buffer and packed or unpacked. A
// redistribution moves the boxes of its plan, one message per peer, straight
// out of the source block and into the destination block where they are
// contiguous there, packed and unpacked otherwise. A redistribution that
// reduces partial values receives into a staging buffer, then combines the
// contributions into the destination block in the plan's order.
//
// Every call is one round of point-to-point messages, at most one each way
// between two ranks: in small worlds these messages also carry the ranks'
// agreement on the call (their tags), so that checking it costs no message
// of its own. Receives then match this call's tag only; a message of another
// call is found by MPI_Iprobe and received whole, never into a shorter
// buffer.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"

#include <climits>
#include <cstring>
#include <memory>

namespace shardc {
namespace rt {
namespace mpi {

/// An MPI datatype of `elemSize` bytes.
MPI_Datatype elementType(size_t elemSize) {
  switch (elemSize) {
  case 1:
    return MPI_UINT8_T;
  case 2:
    return MPI_UINT16_T;
  case 4:
    return MPI_UINT32_T;
  default:
    return MPI_UINT64_T;
  }
}

namespace {

/// Whether every value fits MPI's int counts and displacements.
bool fitInt(const std::vector<int64_t> &values) {
  for (int64_t v : values) {
    if (v > INT_MAX)
      return false;
  }
  return true;
}

std::vector<int> toInt(const std::vector<int64_t> &values) {
  return std::vector<int>(values.begin(), values.end());
}

/// Staging buffers kept between calls (grown, never shrunk nor cleared):
/// one for what is sent, one for what is received. Calls are serialized.
enum class Slot { Send, Receive };
char *scratch(Slot slot, size_t bytes) {
  struct Buffer {
    std::unique_ptr<char[]> data;
    size_t size = 0;
  };
  static Buffer buffers[2];
  Buffer &b = buffers[static_cast<int>(slot)];
  if (bytes > b.size) {
    b.data.reset(new char[bytes]);
    b.size = bytes;
  }
  return b.data.get();
}

int checkMpi(const Collective &c, int rc, const std::string &call) {
  if (rc == MPI_SUCCESS)
    return SHARDRT_SUCCESS;
  return c.fail(SHARDRT_ERROR_BACKEND,
                call + " failed: " + mpiErrorString(rc) +
                    (c.checked ? "; " + c.describeCounts() : std::string()));
}

/// The element offsets of an all_gather's blocks where they are received:
/// straight in the global tensor when possible, else staged in rank order.
std::vector<int64_t> gatherOffsets(const Collective &c, bool &direct) {
  std::optional<std::vector<int64_t>> offsets = directOffsets(c);
  direct = offsets && fitInt(*offsets);
  return direct ? *offsets : stagedOffsets(c);
}

/// The element offsets of a scatter's blocks on its root: straight out of
/// the global tensor when possible, else staged in rank order (root's own
/// block excepted); `staged` is then the number of elements staged.
std::vector<int64_t> scatterOffsets(const Collective &c, bool &direct,
                                    int64_t &staged) {
  std::optional<std::vector<int64_t>> offsets = directOffsets(c);
  direct = offsets && fitInt(*offsets);
  staged = 0;
  return direct ? *offsets : scatterStagingOffsets(c, staged);
}

} // namespace

int checkCounts(const Collective &c, std::string &problem) {
  if (c.op == OpKind::Redistribute || c.op == OpKind::RedistributeReduce) {
    const int64_t sent = c.plan.sentElements();
    const int64_t received = c.plan.receivedElements();
    if (sent <= INT_MAX && received <= INT_MAX)
      return SHARDRT_SUCCESS;
    problem = "this rank would send " + std::to_string(sent) +
              " elements and receive " + std::to_string(received) +
              ", more than MPI's int counts and displacements allow (" +
              std::to_string(INT_MAX) + "); " + c.describeCounts();
    return SHARDRT_ERROR_INVALID_ARGUMENT;
  }
  for (int r = 0; r < c.worldSize; ++r) {
    if (c.counts[r] > INT_MAX) {
      problem = "the block of rank " + std::to_string(r) + " holds " +
                std::to_string(c.counts[r]) +
                " elements, more than MPI's int counts allow (" +
                std::to_string(INT_MAX) + "); " + c.describeCounts();
      return SHARDRT_ERROR_INVALID_ARGUMENT;
    }
  }
  // The element offsets the messages will name, as ints.
  bool direct = false;
  int64_t staged = 0;
  std::vector<int64_t> offsets;
  if (c.op == OpKind::AllGather)
    offsets = gatherOffsets(c, direct);
  else if (c.rank == c.root)
    offsets = scatterOffsets(c, direct, staged);
  if (fitInt(offsets))
    return SHARDRT_SUCCESS;
  problem = "the blocks hold " + std::to_string(c.totalCount()) +
            " elements in all, more than MPI's int displacements address (" +
            std::to_string(INT_MAX) + "); " + c.describeCounts();
  return SHARDRT_ERROR_INVALID_ARGUMENT;
}

namespace {

/// What an empty message is sent from and received into.
char noData = 0;

/// Waits for every request (MPI_Waitall) and reports the first that failed.
/// The first `receives` requests are receives, from `sources`. Open MPI's
/// MPI_Waitall returns at a request that failed before it looked at the
/// others (which it marks MPI_ERR_PENDING): those are waited for too, so
/// that none outlives the call.
int waitAll(const Collective &c, std::vector<MPI_Request> &requests,
            size_t receives, const std::vector<int> &sources) {
  static std::vector<MPI_Status> statuses;
  statuses.resize(requests.size());
  watchStep("exchanging this call's messages with the other ranks "
            "(MPI_Waitall)");
  int rc = MPI_Waitall(static_cast<int>(requests.size()), requests.data(),
                       statuses.data());
  if (rc == MPI_SUCCESS)
    return SHARDRT_SUCCESS;
  if (rc != MPI_ERR_IN_STATUS)
    return checkMpi(c, rc, "MPI_Waitall");
  for (size_t i = 0; i < requests.size(); ++i) {
    if (statuses[i].MPI_ERROR == MPI_ERR_PENDING)
      statuses[i].MPI_ERROR = MPI_Wait(&requests[i], &statuses[i]);
  }
  for (size_t i = 0; i < statuses.size(); ++i) {
    if (statuses[i].MPI_ERROR != MPI_SUCCESS)
      return checkMpi(c, statuses[i].MPI_ERROR,
                      i < receives
                          ? "a receive from rank " + std::to_string(sources[i])
                          : std::string("MPI_Isend"));
  }
  return SHARDRT_SUCCESS;
}

/// exchangeMessages once the ranks have agreed on the call (by the
/// MPI_Allreduce): only the non-empty messages move, under tag 0, each
/// received where it belongs (every rank derives the same counts from the
/// agreed call, so no message is longer than its receive).
int exchangeAgreed(const Collective &c, const Messages &m,
                   Callback beforeSends) {
  // Reused between calls (calls are serialized): requests, receives first.
  static std::vector<MPI_Request> requests;
  static std::vector<int> sources;
  requests.clear();
  sources.clear();
  // A failed post: the receives already posted are cancelled and the sends
  // let go, so that none writes into or reads from the buffers later.
  auto abandon = [&](int rc, const char *call) {
    for (size_t i = 0; i < requests.size(); ++i) {
      if (i < sources.size()) {
        MPI_Cancel(&requests[i]);
        MPI_Wait(&requests[i], MPI_STATUS_IGNORE);
      } else {
        MPI_Request_free(&requests[i]);
      }
    }
    return checkMpi(c, rc, call);
  };
  const int tag = 0;
  const size_t es = m.elemSize;
  // Peers in a different order on every rank, so that they do not all
  // send to rank 0 first.
  for (int i = 1; i < c.worldSize; ++i) {
    const int p = (c.rank + c.worldSize - i) % c.worldSize;
    const int n = m.recvCounts[p];
    if (n == 0)
      continue;
    MPI_Request request;
    int rc = MPI_Irecv(m.recvBase + m.recvDispls[p] * es, n, m.type, p, tag,
                       c.comm, &request);
    if (rc != MPI_SUCCESS)
      return abandon(rc, "MPI_Irecv");
    requests.push_back(request);
    sources.push_back(p);
  }
  const size_t receives = requests.size();
  if (beforeSends)
    beforeSends();
  for (int i = 1; i < c.worldSize; ++i) {
    const int p = (c.rank + i) % c.worldSize;
    const int n = m.sendCounts[p];
    if (n == 0)
      continue;
    if (i == c.worldSize - 1) {
      // The last message goes by a blocking send: the call waits for it
      // anyway, and Open MPI's blocking path costs less than a request
      // (about 1% of a 64 KiB exchange on 2 ranks). Every receive is posted
      // before any send blocks, on every rank, so the sends cannot wait on
      // each other.
      watchStep("exchanging this call's messages with the other ranks "
                "(MPI_Send)");
      int rc = MPI_Send(m.sendBase + m.sendDispls[p] * es, n, m.type, p, tag,
                        c.comm);
      if (rc != MPI_SUCCESS)
        return abandon(rc, "MPI_Send");
      continue;
    }
    MPI_Request request;
    int rc = MPI_Isend(m.sendBase + m.sendDispls[p] * es, n, m.type, p, tag,
                       c.comm, &request);
    if (rc != MPI_SUCCESS)
      return abandon(rc, "MPI_Isend");
    requests.push_back(request);
  }
  return waitAll(c, requests, receives, sources);
}

/// exchangeMessages when the messages carry the agreement. Every rank sends
/// one message, empty when it has no data for the peer, to every other rank,
/// tagged c.tag, and posts one receive from every peer under its own tag
/// c.tag, sized as it expects (MPI_Irecv, before any send). A message of the
/// same call has the same tag and size, and lands where it belongs. A
/// message of another call (or of a rank whose checks failed) has another
/// tag: it matches no receive, and stays unreceived until this rank, while
/// it waits for its requests, looks for messages under any tag from the
/// peers whose receive has not completed (MPI_Iprobe). It then cancels that
/// receive and receives the message whole into a buffer of its own size
/// (MPI_Mprobe, MPI_Mrecv), and the call returns kRanksDisagree.
///
/// No receive is ever shorter than its message: Open MPI 4.1 writes a
/// truncated message that moves by rendezvous (past the eager limit, 4 KB
/// in shared memory) past the end of the receive buffer. Every message is
/// received and every send completes, on every rank; every rank sees a
/// message of another call when any two ranks differ (it differs from one
/// of them), so every rank goes on to the failure path (failAlike), and
/// none waits here for a message that will not come. (Two different calls
/// share a tag with a chance of 2^-31, from 31 bits of their hashes: their
/// messages then meet as if the call were the same; one of another size
/// still shows the disagreement, or fails the call when longer.)
///
/// The sends are all MPI_Isend: a rank blocked in MPI_Send of a message
/// that its peer's receive does not match could wait for a peer blocked
/// likewise.
int exchangeAgreeing(const Collective &c, const Messages &m,
                     Callback beforeSends) {
  // Reused between calls (calls are serialized): requests, receives first;
  // the receives' peers and statuses; where messages of another call go.
  static std::vector<MPI_Request> requests;
  static std::vector<MPI_Status> statuses;
  static std::vector<int> sources;
  static std::vector<char> seen, discarded;
  requests.clear();
  sources.clear();
  // A failed call to MPI: the receives still posted are cancelled and the
  // sends let go, so that none writes into or reads from the buffers later.
  auto abandon = [&](int rc, const char *call) {
    for (size_t i = 0; i < requests.size(); ++i) {
      if (requests[i] == MPI_REQUEST_NULL)
        continue;
      if (i < sources.size()) {
        MPI_Cancel(&requests[i]);
        MPI_Wait(&requests[i], MPI_STATUS_IGNORE);
      } else {
        MPI_Request_free(&requests[i]);
      }
    }
    return checkMpi(c, rc, call);
  };
  const size_t es = m.elemSize;
  // Peers in a different order on every rank, so that they do not all
  // send to rank 0 first.
  for (int i = 1; i < c.worldSize; ++i) {
    const int p = (c.rank + c.worldSize - i) % c.worldSize;
    const int n = m.recvCounts[p];
    MPI_Request request;
    int rc = MPI_Irecv(n > 0 ? m.recvBase + m.recvDispls[p] * es : &noData, n,
                       m.type, p, c.tag, c.comm, &request);
    if (rc != MPI_SUCCESS)
      return abandon(rc, "MPI_Irecv");
    requests.push_back(request);
    sources.push_back(p);
  }
  const size_t receives = requests.size();
  if (beforeSends)
    beforeSends();
  for (int i = 1; i < c.worldSize; ++i) {
    const int p = (c.rank + i) % c.worldSize;
    const int n = m.sendCounts[p];
    MPI_Request request;
    int rc = MPI_Isend(n > 0 ? m.sendBase + m.sendDispls[p] * es : &noData, n,
                       m.type, p, c.tag, c.comm, &request);
    if (rc != MPI_SUCCESS)
      return abandon(rc, "MPI_Isend");
    requests.push_back(request);
  }
  const int total = static_cast<int>(requests.size());
  statuses.resize(total);
  // Per receive: whether its request ended while looking for messages of
  // another call (its outcome is then known).
  seen.assign(receives, 0);
  bool disagree = false;
  watchStep("exchanging this call's messages with the other ranks "
            "(MPI_Testall, MPI_Iprobe)");
  for (unsigned spin = 1;; ++spin) {
    int done = 0;
    int rc = MPI_Testall(total, requests.data(), &done, statuses.data());
    if (rc != MPI_SUCCESS) {
      if (rc == MPI_ERR_IN_STATUS) {
        for (int i = 0; i < total; ++i) {
          if (statuses[i].MPI_ERROR != MPI_SUCCESS &&
              statuses[i].MPI_ERROR != MPI_ERR_PENDING) {
            rc = statuses[i].MPI_ERROR;
            break;
          }
        }
      }
      return abandon(rc, "MPI_Testall");
    }
    if (done)
      break;
    // Messages of another call are looked for now and then only: they
    // are rare, and each look costs about as much as a test.
    if (spin % 8 != 0)
      continue;
    if (watchAsksWhoIsMissing()) {
      // The watchdog reports a timeout: the peers whose message has not
      // come have not joined (a peer that joins receives before it sends).
      std::vector<int> missing;
      for (size_t i = 0; i < receives; ++i) {
        int complete = 0;
        if (!seen[i] && requests[i] != MPI_REQUEST_NULL)
          MPI_Request_get_status(requests[i], &complete, MPI_STATUS_IGNORE);
        if (!seen[i] && requests[i] != MPI_REQUEST_NULL && !complete)
          missing.push_back(sources[i]);
      }
      std::sort(missing.begin(), missing.end());
      watchTellMissing(rankList(missing));
    }
    for (size_t i = 0; i < receives; ++i) {
      if (seen[i])
        continue;
      int complete = 0;
      MPI_Request_get_status(requests[i], &complete, MPI_STATUS_IGNORE);
      if (complete)
        continue;
      int found = 0;
      MPI_Status status;
      rc = MPI_Iprobe(sources[i], MPI_ANY_TAG, c.comm, &found, &status);
      if (rc != MPI_SUCCESS)
        return abandon(rc, "MPI_Iprobe");
      if (!found)
        continue;
      // A message under another tag than this call's, from a peer whose
      // receive has not matched: unless the receive matches this call's
      // message meanwhile (the message seen is then the peer's next call's,
      // left for it), it is this call's message from the peer.
      MPI_Status ended;
      MPI_Cancel(&requests[i]);
      MPI_Wait(&requests[i], &ended);
      seen[i] = 1;
      int cancelled = 0, count = 0;
      MPI_Test_cancelled(&ended, &cancelled);
      if (!cancelled) {
        MPI_Get_count(&ended, m.type, &count);
        disagree |= count != m.recvCounts[sources[i]];
        continue;
      }
      disagree = true;
      MPI_Message message;
      rc = MPI_Mprobe(sources[i], MPI_ANY_TAG, c.comm, &message, &status);
      if (rc != MPI_SUCCESS)
        return abandon(rc, "MPI_Mprobe");
      int bytes = 0;
      MPI_Get_count(&status, MPI_BYTE, &bytes);
      if (discarded.size() < static_cast<size_t>(bytes) + 1)
        discarded.resize(static_cast<size_t>(bytes) + 1);
      rc = MPI_Mrecv(discarded.data(), bytes, MPI_BYTE, &message,
                     MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS)
        return abandon(rc, "MPI_Mrecv");
    }
  }
  // A message of this call's tag but another size (two calls sharing a
  // tag) shows the disagreement too.
  for (size_t i = 0; i < receives && !disagree; ++i) {
    if (seen[i])
      continue;
    int count = 0;
    MPI_Get_count(&statuses[i], m.type, &count);
    disagree = count != m.recvCounts[sources[i]];
  }
  return disagree ? kRanksDisagree : SHARDRT_SUCCESS;
}

} // namespace

int exchangeMessages(const Collective &c, const Messages &m,
                     Callback beforeSends) {
  return c.agreeInMessages ? exchangeAgreeing(c, m, beforeSends)
                           : exchangeAgreed(c, m, beforeSends);
}

namespace {

/// A copy between two views planned once: the byte offsets of the views'
/// first elements from their bases (which change between calls; the
/// offsets do not).
struct PlannedCopy {
  CopyPlan plan;
  int64_t from;
  int64_t to;

  void run(const char *fromBase, char *toBase, size_t es) const {
    copyOnHost(plan, fromBase + from, toBase + to, es);
  }
};

PlannedCopy planCopy(const View &src, const char *srcBase, const View &dst,
                     const char *dstBase, size_t es) {
  return {CopyPlan(src.sizes, src.strides, dst.strides, es), src.data - srcBase,
          dst.data - dstBase};
}

} // namespace

/// What the MPI backend derives once from a checked call: counts,
/// displacements and planned copies, all relative to the call's buffers, so
/// that a cached call repeated on new buffers only moves data.
struct Prepared {
  /// all_gather: whether blocks land straight in the global tensor; the
  /// unpacking of the staged blocks otherwise (from the stage, into global).
  bool direct = false;
  std::vector<PlannedCopy> unpack;
  /// all_gather: whether this rank's block is contiguous, and the bytes it
  /// and the global tensor span (to tell, per call, whether they overlap).
  bool localContiguous = false;
  ByteExtent localExtent, globalExtent;
  /// The messages to and from every rank: counts and element offsets from
  /// the send and receive bases (all_gather: this rank's block to every
  /// peer, and every block where it is received).
  std::vector<int> sendCounts, sendDispls, recvCounts, recvDispls;
  int64_t sent = 0, received = 0;
  /// Redistribute: whether boxes are sent straight out of the source blocks
  /// (else packed by `pack`, source to stage) and received straight into the
  /// destination blocks (else staged and, when not reducing, unpacked by
  /// `unpack`); the local copies (source to destination).
  bool sendDirect = false, recvDirect = false;
  std::vector<PlannedCopy> pack, copies;
  /// Redistribute_reduce: the contributions in the plan's order, from the
  /// stage (else from the source blocks) into the destination blocks,
  /// copied or reduced in; avg's divisions (`from` is the count).
  struct Step {
    PlannedCopy copy;
    bool fromStage;
    bool reduce;
  };
  std::vector<Step> steps;
  std::vector<PlannedCopy> divisions;
};

int allGather(const Collective &c) {
  const size_t es = c.elemSize;
  const int64_t myCount = c.myBlock >= 0 ? c.counts[c.rank] : 0;
  if (!c.mpiPrepared) {
    auto p = std::make_shared<Prepared>();
    const std::vector<int64_t> offsets = gatherOffsets(c, p->direct);
    for (int r = 0; r < c.worldSize && !p->direct; ++r) {
      if (c.counts[r] == 0)
        continue;
      const layout::Box &box = c.boxes[c.blockOfRank[r]];
      const View staged = contiguousView(nullptr, box.sizes);
      PlannedCopy copy = planCopy(staged, nullptr, subView(c.global, box, es),
                                  c.global.data, es);
      copy.from = offsets[r] * static_cast<int64_t>(es);
      p->unpack.push_back(std::move(copy));
    }
    if (myCount > 0) {
      p->localContiguous = isContiguous(c.local.sizes, c.local.strides);
      p->localExtent = byteExtent(c.local, es);
      p->globalExtent = byteExtent(c.global, es);
    }
    p->sendCounts.assign(c.worldSize, static_cast<int>(myCount));
    p->sendDispls.assign(c.worldSize, 0);
    p->recvCounts = toInt(c.counts);
    p->recvDispls = toInt(offsets);
    c.mpiPrepared = std::move(p);
  }
  const Prepared &p = *c.mpiPrepared;

  char *base = c.global.data;
  if (!p.direct)
    base = scratch(Slot::Receive, static_cast<size_t>(c.totalCount()) * es);
  // This rank's block goes to its place in the receive buffer. It is sent
  // as it is when contiguous apart from the global tensor, and copied once
  // the receives are posted (exchangeMessages); otherwise it is copied first
  // and sent from its place.
  char *mine = base + static_cast<int64_t>(p.recvDispls[c.rank]) * es;
  const char *sendFrom = mine;
  auto placeMine = [&] {
    std::memcpy(mine, c.local.data, static_cast<size_t>(myCount) * es);
  };
  Callback beforeSends;
  if (myCount > 0) {
    // Where blocks are received (the global tensor when direct, else the
    // stage) each is contiguous.
    if (p.localContiguous && !extentsOverlap(c.local.data, p.localExtent,
                                             c.global.data, p.globalExtent)) {
      sendFrom = c.local.data;
      beforeSends = placeMine;
    } else {
      const layout::Box &box = c.boxes[c.myBlock];
      copyView(c.local,
               p.direct ? subView(c.global, box, es)
                        : contiguousView(mine, box.sizes),
               es);
    }
  }
  int status = exchangeMessages(c,
                                {elementType(es), es, sendFrom,
                                 p.sendCounts.data(), p.sendDispls.data(), base,
                                 p.recvCounts.data(), p.recvDispls.data()},
                                beforeSends);
  if (status != SHARDRT_SUCCESS)
    return status;
  for (const PlannedCopy &copy : p.unpack)
    copy.run(base, c.global.data, es);
  return SHARDRT_SUCCESS;
}

int scatter(const Collective &c) {
  const size_t es = c.elemSize;
  const bool isRoot = c.rank == c.root;
  const std::vector<int> none(c.worldSize, 0);
  std::vector<int> recvCounts = none;
  recvCounts[c.root] = static_cast<int>(c.counts[c.rank]);

  // Root: where each rank's block is sent from.
  const char *sendBase = nullptr;
  std::vector<int> sendCounts = none, sendDispls = none;
  if (isRoot) {
    bool direct = false;
    int64_t staged = 0;
    std::vector<int64_t> offsets = scatterOffsets(c, direct, staged);
    if (direct) {
      sendBase = c.global.data;
    } else {
      // Stage the other ranks' blocks in rank order; root's own block is
      // copied locally below.
      char *sendStage = scratch(Slot::Send, static_cast<size_t>(staged) * es);
      for (int r = 0; r < c.worldSize; ++r) {
        if (r != c.root && c.counts[r] > 0)
          packBox(c.global, c.boxes[c.blockOfRank[r]], es,
                  sendStage + offsets[r] * es);
      }
      sendBase = sendStage;
    }
    sendCounts = toInt(c.counts);
    sendDispls = toInt(offsets);
  }

  // Every rank: where its block is received.
  const int myCount = recvCounts[c.root];
  char *recvStage = nullptr;
  char *recvBuffer = nullptr;
  if (!isRoot && myCount > 0) {
    if (isContiguous(c.local.sizes, c.local.strides)) {
      recvBuffer = c.local.data;
    } else {
      recvStage = scratch(Slot::Receive, static_cast<size_t>(myCount) * es);
      recvBuffer = recvStage;
    }
  }
  int status = exchangeMessages(
      c, {elementType(es), es, sendBase, sendCounts.data(), sendDispls.data(),
          recvBuffer, recvCounts.data(), none.data()});
  if (status != SHARDRT_SUCCESS)
    return status;
  if (recvStage)
    copyView(contiguousView(recvStage, c.local.sizes), c.local, es);
  if (isRoot && myCount > 0)
    copyView(subView(c.global, c.boxes[c.myBlock], es), c.local, es);
  return SHARDRT_SUCCESS;
}

namespace {

/// Prepares the messages of a redistribution's plan once: sends
/// straight out of the source blocks where possible (else packed in plan
/// order), receives straight into the destination blocks when
/// `intoDestination` allows and possible (else into a stage, in plan order);
/// plans the local copies and the unpacking.
const Prepared &prepareExchange(const Collective &c, bool intoDestination) {
  if (c.mpiPrepared)
    return *c.mpiPrepared;
  const size_t es = c.elemSize;
  const int64_t esi = static_cast<int64_t>(es);
  const RedistributionPlan &plan = c.plan;
  auto p = std::make_shared<Prepared>();

  // Where each peer's data is sent from and received into (the counts fit
  // ints: checkCounts).
  std::vector<int64_t> sendCounts, sendOffsets, recvCounts, recvOffsets;
  p->sent = packedOffsets(plan.sends, c.worldSize, sendCounts, sendOffsets);
  p->received =
      packedOffsets(plan.receives, c.worldSize, recvCounts, recvOffsets);
  std::optional<std::vector<int64_t>> directSend, directRecv;
  if (p->sent > 0)
    directSend = directTransferOffsets(
        plan.sends, c.srcBase,
        [&](const Transfer &t) { return sendView(c, t); }, c.worldSize, es,
        /*disjoint=*/false);
  if (p->received > 0 && intoDestination)
    directRecv = directTransferOffsets(
        plan.receives, c.dstBase,
        [&](const Transfer &t) { return receiveView(c, t); }, c.worldSize, es,
        /*disjoint=*/true);
  if (directSend && !fitInt(*directSend))
    directSend.reset();
  if (directRecv && !fitInt(*directRecv))
    directRecv.reset();

  p->sendDirect = directSend.has_value();
  if (directSend) {
    sendOffsets = *directSend;
  } else {
    int64_t next = 0;
    for (const Transfer &t : plan.sends) {
      const View from = sendView(c, t);
      p->pack.push_back({CopyPlan(t.box.sizes, from.strides,
                                  rowMajorStrides(t.box.sizes), es),
                         from.data - c.srcBase, next * esi});
      next += *layout::volume(t.box.sizes);
    }
  }
  p->recvDirect = directRecv.has_value();
  if (directRecv) {
    recvOffsets = *directRecv;
  } else if (intoDestination) {
    int64_t next = 0;
    for (const Transfer &t : plan.receives) {
      const View to = receiveView(c, t);
      p->unpack.push_back(
          {CopyPlan(t.box.sizes, rowMajorStrides(t.box.sizes), to.strides, es),
           next * esi, to.data - c.dstBase});
      next += *layout::volume(t.box.sizes);
    }
  }
  for (size_t i = 0; i < plan.copies.size() && !plan.reduces(); ++i)
    p->copies.push_back(planCopy(copySource(c, i), c.srcBase,
                                 copyDestination(c, i), c.dstBase, es));
  if (plan.reduces()) {
    // Where each received box starts in the stage.
    std::vector<int64_t> starts;
    int64_t next = 0;
    for (const Transfer &t : plan.receives) {
      starts.push_back(next);
      next += *layout::volume(t.box.sizes);
    }
    for (const layout::Contribution &step : plan.order) {
      if (step.received) {
        const Transfer &t = plan.receives[step.index];
        const View to = receiveView(c, t);
        p->steps.push_back({{CopyPlan(t.box.sizes, rowMajorStrides(t.box.sizes),
                                      to.strides, es),
                             starts[step.index] * esi, to.data - c.dstBase},
                            true,
                            step.reduce});
      } else {
        p->steps.push_back(
            {planCopy(copySource(c, step.index), c.srcBase,
                      copyDestination(c, step.index), c.dstBase, es),
             false, step.reduce});
      }
    }
    if (c.reduce == SHARDRT_AVG) {
      for (const layout::Combined &combined : plan.combined) {
        const View view =
            boxView(c.dstViews.at(combined.dstBlock),
                    c.dst.boxes[combined.dstBlock], combined.box, es);
        p->divisions.push_back(
            {CopyPlan(view.sizes, view.strides, view.strides, es),
             combined.count, view.data - c.dstBase});
      }
    }
  }
  p->sendCounts = toInt(sendCounts);
  p->sendDispls = toInt(sendOffsets);
  p->recvCounts = toInt(recvCounts);
  p->recvDispls = toInt(recvOffsets);
  c.mpiPrepared = std::move(p);
  return *c.mpiPrepared;
}

/// Sends and receives the prepared messages, running `beforeSends` once the
/// receives are posted. When the boxes are not received straight into the
/// destination blocks, `recvStage` is where they are, in plan order.
int exchange(const Collective &c, const Prepared &p, char *&recvStage,
             Callback beforeSends = {}) {
  const size_t es = c.elemSize;
  const char *sendBase = c.srcBase;
  char *recvBase = c.dstBase;
  if (p.sent > 0 && !p.sendDirect) {
    char *sendStage = scratch(Slot::Send, static_cast<size_t>(p.sent) * es);
    for (const PlannedCopy &copy : p.pack)
      copy.run(c.srcBase, sendStage, es);
    sendBase = sendStage;
  }
  if (p.received > 0 && !p.recvDirect) {
    recvStage = scratch(Slot::Receive, static_cast<size_t>(p.received) * es);
    recvBase = recvStage;
  }
  return exchangeMessages(c,
                          {elementType(es), es, sendBase, p.sendCounts.data(),
                           p.sendDispls.data(), recvBase, p.recvCounts.data(),
                           p.recvDispls.data()},
                          beforeSends);
}

/// A redistribution that reduces on this rank: the exchange into a staging
/// buffer, then the contributions combined into the destination blocks in
/// the plan's order, and avg's division.
int redistributeReducing(const Collective &c) {
  const Prepared &p = prepareExchange(c, /*intoDestination=*/false);
  char *recvStage = nullptr;
  if (c.plan.exchange) {
    if (int status = exchange(c, p, recvStage))
      return status;
  }
  for (const Prepared::Step &step : p.steps) {
    const char *from =
        (step.fromStage ? recvStage : c.srcBase) + step.copy.from;
    char *to = c.dstBase + step.copy.to;
    if (step.reduce)
      reducePlanned(step.copy.plan, from, to, c.dtype, c.reduce);
    else
      copyOnHost(step.copy.plan, from, to, c.elemSize);
  }
  for (const PlannedCopy &division : p.divisions)
    dividePlanned(division.plan, c.dstBase + division.to, division.from,
                  c.dtype);
  return SHARDRT_SUCCESS;
}

} // namespace

int redistribute(const Collective &c) {
  if (c.plan.reduces())
    return redistributeReducing(c);
  const size_t es = c.elemSize;
  const Prepared &p = prepareExchange(c, /*intoDestination=*/true);
  auto copyLocally = [&] {
    for (const PlannedCopy &copy : p.copies)
      copy.run(c.srcBase, c.dstBase, es);
  };
  if (!c.plan.exchange) {
    copyLocally();
    return SHARDRT_SUCCESS;
  }
  // The local copies run once the receives are posted, before the sends.
  char *recvStage = nullptr;
  if (int status = exchange(c, p, recvStage, copyLocally))
    return status;
  if (p.recvDirect)
    return SHARDRT_SUCCESS;
  for (const PlannedCopy &copy : p.unpack)
    copy.run(recvStage, c.dstBase, es);
  return SHARDRT_SUCCESS;
}

namespace {

class MpiBackend final : public Backend {
public:
  int checkOnce(const Collective &c, std::string &problem) const override {
    // A group collective's counts are its group plan's (GroupPlan.cpp).
    return c.op == OpKind::Group ? static_cast<int>(SHARDRT_SUCCESS)
                                 : checkCounts(c, problem);
  }
  int checkBuffers(const Collective &, std::string &) const override {
    return SHARDRT_SUCCESS;
  }
  bool dataCarriesAgreement(const Collective &c) const override {
    // A group collective's data moves in MPI's collectives.
    return c.op != OpKind::Group;
  }
  int64_t epoch() const override { return 0; }
  int prepare(const Collective &, int64_t) const override {
    return SHARDRT_SUCCESS;
  }
  int failedAfterAgreement(const Collective &, int status) const override {
    return status;
  }
  int allGather(const Collective &c) const override {
    return mpi::allGather(c);
  }
  int scatter(const Collective &c) const override { return mpi::scatter(c); }
  int redistribute(const Collective &c) const override {
    return mpi::redistribute(c);
  }
  int groupCollective(Collective &c) const override {
    MPI_Comm comm = MPI_COMM_NULL;
    if (!groupComm(c, c.comm, comm))
      return SHARDRT_ERROR_BACKEND;
    c.group.comm = comm;
    return mpi::groupCollective(c);
  }
};

} // namespace

const Backend &backend() {
  static const MpiBackend instance;
  return instance;
}

} // namespace mpi
} // namespace rt
} // namespace shardc
