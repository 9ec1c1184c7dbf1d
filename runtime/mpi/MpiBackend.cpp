//===- MpiBackend.cpp - Collectives on host buffers with MPI --------------===//
//
// Counts are in elements of an unsigned integer type of the element's size:
// the backend only moves data. Blocks go straight into (all_gather) or out of
// (scatter) the global tensor when each is contiguous there; otherwise they
// are staged in rank order in a contiguous buffer and packed or unpacked. A
// redistribution is one MPI_Alltoallv of the boxes of its plan, straight out
// of the source block and into the destination block where they are
// contiguous there, packed and unpacked otherwise. A redistribution that
// reduces partial values receives into a staging buffer, then combines the
// contributions into the destination block in the plan's order.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"

#include <climits>
#include <memory>

namespace shardc {
namespace rt {
namespace mpi {

namespace {

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

/// Fails when a rank's block has more elements than an int counts.
int checkCounts(const Collective &c) {
  for (int r = 0; r < c.worldSize; ++r) {
    if (c.counts[r] > INT_MAX)
      return c.fail(SHARDRT_ERROR_INVALID_ARGUMENT,
                    "the block of rank " + std::to_string(r) + " holds " +
                        std::to_string(c.counts[r]) +
                        " elements, more than MPI's int counts allow (" +
                        std::to_string(INT_MAX) + "); " + c.describeCounts());
  }
  return SHARDRT_SUCCESS;
}

/// Fails when staged offsets exceed MPI's int displacements.
int checkStagedOffsets(const Collective &c,
                       const std::vector<int64_t> &offsets) {
  if (fitInt(offsets))
    return SHARDRT_SUCCESS;
  return c.fail(SHARDRT_ERROR_INVALID_ARGUMENT,
                "the blocks hold " + std::to_string(c.totalCount()) +
                    " elements in all, more than MPI's int displacements "
                    "address (" +
                    std::to_string(INT_MAX) + "); " + c.describeCounts());
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

int checkMpi(const Collective &c, int rc, const char *call) {
  if (rc == MPI_SUCCESS)
    return SHARDRT_SUCCESS;
  return c.fail(SHARDRT_ERROR_BACKEND, std::string(call) +
                                           " failed: " + mpiErrorString(rc) +
                                           "; " + c.describeCounts());
}

} // namespace

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

/// Whether `counts` are all `n` > 0 and `displs` go up by n from the first.
bool isUniform(const std::vector<int> &counts, const std::vector<int> &displs,
               int n) {
  for (size_t q = 0; q < counts.size(); ++q) {
    if (counts[q] != n ||
        static_cast<int64_t>(displs[q]) !=
            static_cast<int64_t>(displs[0]) + static_cast<int64_t>(q) * n)
      return false;
  }
  return n > 0;
}

/// What the MPI backend derives once from a checked call: counts,
/// displacements and planned copies, all relative to the call's buffers, so
/// that a cached call repeated on new buffers only moves data.
struct Prepared {
  /// all_gather: whether blocks land straight in the global tensor; the
  /// unpacking of the staged blocks otherwise (from the stage, into global).
  bool direct = false;
  std::vector<PlannedCopy> unpack;
  /// all_gather: counts and displacements. Redistribute: the
  /// MPI_Alltoallv's.
  std::vector<int> counts, displs;
  std::vector<int> sendCounts, sendDispls, recvCounts, recvDispls;
  int64_t sent = 0, received = 0;
  /// Redistribute: whether boxes are sent straight out of the source blocks
  /// (else packed by `pack`, source to stage) and received straight into the
  /// destination blocks (else staged and, when not reducing, unpacked by
  /// `unpack`); the local copies (source to destination).
  bool sendDirect = false, recvDirect = false;
  std::vector<PlannedCopy> pack, copies;
  /// Whether every rank's block (all_gather) or every peer's box, this
  /// rank's own included (redistribute), has `uniformCount` elements, laid
  /// one after the other in rank order from element `sendStart` of the
  /// source (or the local block) and `recvStart` of the destination (or the
  /// global tensor): the call is then MPI_Allgather or MPI_Alltoall, which
  /// MPI implements with algorithms of their own.
  bool uniform = false;
  int uniformCount = 0;
  int64_t sendStart = 0, recvStart = 0;
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
  if (!c.mpiPrepared) {
    if (int status = checkCounts(c))
      return status;
    std::optional<std::vector<int64_t>> direct = directOffsets(c);
    if (direct && !fitInt(*direct))
      direct.reset();
    std::vector<int64_t> offsets = direct ? *direct : stagedOffsets(c);
    if (int status = checkStagedOffsets(c, offsets))
      return status;
    auto p = std::make_shared<Prepared>();
    p->direct = direct.has_value();
    p->counts = toInt(c.counts);
    p->displs = toInt(offsets);
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
    p->uniform = p->direct && isUniform(p->counts, p->displs, p->counts[0]);
    p->uniformCount = p->counts.empty() ? 0 : p->counts[0];
    p->recvStart = p->displs.empty() ? 0 : p->displs[0];
    c.mpiPrepared = std::move(p);
  }
  const Prepared &p = *c.mpiPrepared;

  char *base = c.global.data;
  if (!p.direct)
    base = scratch(Slot::Receive, static_cast<size_t>(c.totalCount()) * es);
  // A contiguous local block apart from the global tensor is sent as it is
  // (MPI copies it into place); otherwise the collective runs in place, this
  // rank's block put at its place in the receive buffer first.
  const int64_t myCount = c.myBlock >= 0 ? c.counts[c.rank] : 0;
  const bool sendLocal =
      myCount == 0 || (isContiguous(c.local.sizes, c.local.strides) &&
                       !spansOverlap(c.local, c.global, es));
  if (!sendLocal) {
    const layout::Box &box = c.boxes[c.myBlock];
    View dst = p.direct
                   ? subView(c.global, box, es)
                   : contiguousView(base + p.displs[c.rank] * es, box.sizes);
    copyView(c.local, dst, es);
  }
  MPI_Datatype type = elementType(es);
  char none = 0;
  watchStep("in MPI_Allgatherv");
  if (p.uniform && sendLocal) {
    watchStep("in MPI_Allgather");
    int rc =
        MPI_Allgather(c.local.data, p.uniformCount, type,
                      base + p.recvStart * es, p.uniformCount, type, c.comm);
    return checkMpi(c, rc, "MPI_Allgather");
  }
  int rc = sendLocal
               ? MPI_Allgatherv(myCount > 0 ? c.local.data : &none,
                                static_cast<int>(myCount), type, base,
                                p.counts.data(), p.displs.data(), type, c.comm)
               : MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, base,
                                p.counts.data(), p.displs.data(), type, c.comm);
  if (int status = checkMpi(c, rc, "MPI_Allgatherv"))
    return status;
  for (const PlannedCopy &copy : p.unpack)
    copy.run(base, c.global.data, es);
  return SHARDRT_SUCCESS;
}

int scatter(const Collective &c) {
  if (int status = checkCounts(c))
    return status;
  const size_t es = c.elemSize;
  const bool isRoot = c.rank == c.root;

  // Root: where each rank's block is sent from.
  const char *sendBase = nullptr;
  std::vector<int> counts, displs;
  if (isRoot) {
    std::optional<std::vector<int64_t>> direct = directOffsets(c);
    if (direct && !fitInt(*direct))
      direct.reset();
    std::vector<int64_t> offsets(c.worldSize, 0);
    if (direct) {
      offsets = *direct;
      sendBase = c.global.data;
    } else {
      // Stage the other ranks' blocks in rank order; root's own block is
      // copied locally below.
      int64_t next = 0;
      offsets = scatterStagingOffsets(c, next);
      if (int status = checkStagedOffsets(c, offsets))
        return status;
      char *sendStage = scratch(Slot::Send, static_cast<size_t>(next) * es);
      for (int r = 0; r < c.worldSize; ++r) {
        if (r != c.root && c.counts[r] > 0)
          packBox(c.global, c.boxes[c.blockOfRank[r]], es,
                  sendStage + offsets[r] * es);
      }
      sendBase = sendStage;
    }
    counts = toInt(c.counts);
    displs = toInt(offsets);
  }

  // Every rank: where its block is received.
  const int myCount = static_cast<int>(c.counts[c.rank]);
  char *recvStage = nullptr;
  void *recvBuffer = nullptr;
  if (isRoot) {
    recvBuffer = MPI_IN_PLACE;
  } else if (myCount > 0 && isContiguous(c.local.sizes, c.local.strides)) {
    recvBuffer = c.local.data;
  } else if (myCount > 0) {
    recvStage = scratch(Slot::Receive, static_cast<size_t>(myCount) * es);
    recvBuffer = recvStage;
  }
  MPI_Datatype type = elementType(es);
  watchStep("in MPI_Scatterv");
  int rc = MPI_Scatterv(sendBase, isRoot ? counts.data() : nullptr,
                        isRoot ? displs.data() : nullptr, type, recvBuffer,
                        myCount, type, c.root, c.comm);
  if (int status = checkMpi(c, rc, "MPI_Scatterv"))
    return status;
  if (recvStage)
    copyView(contiguousView(recvStage, c.local.sizes), c.local, es);
  if (isRoot && myCount > 0)
    copyView(subView(c.global, c.boxes[c.myBlock], es), c.local, es);
  return SHARDRT_SUCCESS;
}

int checkRedistributePlan(const Collective &c, std::string &problem) {
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

namespace {

/// Prepares the MPI_Alltoallv of a redistribution's plan once: sends
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
  // ints: checkRedistributePlan).
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
  // With this rank's own box in place, is it an MPI_Alltoall?
  if (p->sendDirect && p->recvDirect && plan.copies.size() == 1 &&
      !plan.reduces()) {
    const View from = copySource(c, 0), to = copyDestination(c, 0);
    const int64_t n = *layout::volume(plan.copies[0].sizes);
    const int64_t fromAt = (from.data - c.srcBase) / esi,
                  toAt = (to.data - c.dstBase) / esi;
    if (isContiguous(from.sizes, from.strides) &&
        isContiguous(to.sizes, to.strides) && n <= INT_MAX && fromAt >= 0 &&
        toAt >= 0 && fromAt <= INT_MAX && toAt <= INT_MAX) {
      std::vector<int> sc = p->sendCounts, sd = p->sendDispls,
                       rc = p->recvCounts, rd = p->recvDispls;
      sc[c.rank] = rc[c.rank] = static_cast<int>(n);
      sd[c.rank] = static_cast<int>(fromAt);
      rd[c.rank] = static_cast<int>(toAt);
      if (isUniform(sc, sd, static_cast<int>(n)) &&
          isUniform(rc, rd, static_cast<int>(n))) {
        p->uniform = true;
        p->uniformCount = static_cast<int>(n);
        p->sendStart = sd[0];
        p->recvStart = rd[0];
      }
    }
  }
  c.mpiPrepared = std::move(p);
  return *c.mpiPrepared;
}

/// Runs the prepared MPI_Alltoallv. When the boxes are not received
/// straight into the destination blocks, `recvStage` is where they are, in
/// plan order.
int exchange(const Collective &c, const Prepared &p, char *&recvStage) {
  const size_t es = c.elemSize;
  // A rank that sends or receives nothing still passes a buffer.
  char none = 0;
  const char *sendBase = p.sent > 0 ? c.srcBase : &none;
  char *recvBase = p.received > 0 ? c.dstBase : &none;
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
  MPI_Datatype type = elementType(es);
  watchStep("in MPI_Alltoallv");
  int status = MPI_Alltoallv(sendBase, p.sendCounts.data(), p.sendDispls.data(),
                             type, recvBase, p.recvCounts.data(),
                             p.recvDispls.data(), type, c.comm);
  return checkMpi(c, status, "MPI_Alltoallv");
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
  if (p.uniform && c.plan.exchange) {
    MPI_Datatype type = elementType(es);
    watchStep("in MPI_Alltoall");
    int rc = MPI_Alltoall(c.srcBase + p.sendStart * es, p.uniformCount, type,
                          c.dstBase + p.recvStart * es, p.uniformCount, type,
                          c.comm);
    return checkMpi(c, rc, "MPI_Alltoall");
  }
  for (const PlannedCopy &copy : p.copies)
    copy.run(c.srcBase, c.dstBase, es);
  if (!c.plan.exchange)
    return SHARDRT_SUCCESS;
  char *recvStage = nullptr;
  if (int status = exchange(c, p, recvStage))
    return status;
  if (p.recvDirect)
    return SHARDRT_SUCCESS;
  for (const PlannedCopy &copy : p.unpack)
    copy.run(recvStage, c.dstBase, es);
  return SHARDRT_SUCCESS;
}

} // namespace mpi
} // namespace rt
} // namespace shardc
