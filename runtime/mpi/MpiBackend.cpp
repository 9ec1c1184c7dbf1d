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

int checkMpi(const Collective &c, int rc, const char *call) {
  if (rc == MPI_SUCCESS)
    return SHARDRT_SUCCESS;
  return c.fail(SHARDRT_ERROR_BACKEND, std::string(call) +
                                           " failed: " + mpiErrorString(rc) +
                                           "; " + c.describeCounts());
}

} // namespace

int allGather(const Collective &c) {
  if (int status = checkCounts(c))
    return status;
  const size_t es = c.elemSize;
  std::optional<std::vector<int64_t>> direct = directOffsets(c);
  if (direct && !fitInt(*direct))
    direct.reset();
  std::vector<int64_t> offsets = direct ? *direct : stagedOffsets(c);
  if (int status = checkStagedOffsets(c, offsets))
    return status;

  std::vector<char> stage;
  char *base = c.global.data;
  if (!direct) {
    stage.resize(static_cast<size_t>(c.totalCount()) * es);
    base = stage.data();
  }
  // The collective runs in place: put this rank's block at its place in the
  // receive buffer first.
  if (c.myBlock >= 0 && c.counts[c.rank] > 0) {
    const layout::Box &box = c.boxes[c.myBlock];
    View dst = direct ? subView(c.global, box, es)
                      : contiguousView(base + offsets[c.rank] * es, box.sizes);
    copyView(c.local, dst, es);
  }
  std::vector<int> counts = toInt(c.counts), displs = toInt(offsets);
  watchStep("in MPI_Allgatherv");
  int rc =
      MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, base, counts.data(),
                     displs.data(), elementType(es), worldComm(c.prefix));
  if (int status = checkMpi(c, rc, "MPI_Allgatherv"))
    return status;
  if (direct)
    return SHARDRT_SUCCESS;
  for (int r = 0; r < c.worldSize; ++r) {
    if (c.counts[r] > 0)
      unpackBox(base + offsets[r] * es, c.global, c.boxes[c.blockOfRank[r]],
                es);
  }
  return SHARDRT_SUCCESS;
}

int scatter(const Collective &c) {
  if (int status = checkCounts(c))
    return status;
  const size_t es = c.elemSize;
  const bool isRoot = c.rank == c.root;

  // Root: where each rank's block is sent from.
  std::vector<char> sendStage;
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
      sendStage.resize(static_cast<size_t>(next) * es);
      for (int r = 0; r < c.worldSize; ++r) {
        if (r != c.root && c.counts[r] > 0)
          packBox(c.global, c.boxes[c.blockOfRank[r]], es,
                  sendStage.data() + offsets[r] * es);
      }
      sendBase = sendStage.data();
    }
    counts = toInt(c.counts);
    displs = toInt(offsets);
  }

  // Every rank: where its block is received.
  const int myCount = static_cast<int>(c.counts[c.rank]);
  std::vector<char> recvStage;
  void *recvBuffer = nullptr;
  if (isRoot) {
    recvBuffer = MPI_IN_PLACE;
  } else if (myCount > 0 && isContiguous(c.local.sizes, c.local.strides)) {
    recvBuffer = c.local.data;
  } else if (myCount > 0) {
    recvStage.resize(static_cast<size_t>(myCount) * es);
    recvBuffer = recvStage.data();
  }
  MPI_Datatype type = elementType(es);
  watchStep("in MPI_Scatterv");
  int rc = MPI_Scatterv(sendBase, isRoot ? counts.data() : nullptr,
                        isRoot ? displs.data() : nullptr, type, recvBuffer,
                        myCount, type, c.root, worldComm(c.prefix));
  if (int status = checkMpi(c, rc, "MPI_Scatterv"))
    return status;
  if (!recvStage.empty())
    copyView(contiguousView(recvStage.data(), c.local.sizes), c.local, es);
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

/// The view of a transfer's box in the source block it is sent from.
View sendView(const Collective &c, const Transfer &t) {
  return boxView(c.srcViews.at(t.srcBlock), c.boxes[t.srcBlock], t.box,
                 c.elemSize);
}

/// The view of a transfer's box in the destination block it arrives in.
View receiveView(const Collective &c, const Transfer &t) {
  return boxView(c.dstViews.at(t.dstBlock), c.dst.boxes[t.dstBlock], t.box,
                 c.elemSize);
}

/// Runs the MPI_Alltoallv of a redistribution's plan: sends straight out of
/// the source blocks where possible (else packed in plan order), and receives
/// straight into the destination blocks when `intoDestination` allows and
/// possible; otherwise into `recvStage`, packed in plan order (`staged` is
/// then set).
int exchange(const Collective &c, bool intoDestination,
             std::vector<char> &recvStage, bool &staged) {
  const size_t es = c.elemSize;
  const RedistributionPlan &plan = c.plan;

  // Where each peer's data is sent from and received into (the counts fit
  // ints: checkRedistributePlan).
  std::vector<int64_t> sendCounts, sendOffsets, recvCounts, recvOffsets;
  const int64_t sent =
      packedOffsets(plan.sends, c.worldSize, sendCounts, sendOffsets);
  const int64_t received =
      packedOffsets(plan.receives, c.worldSize, recvCounts, recvOffsets);
  std::optional<std::vector<int64_t>> directSend, directRecv;
  if (sent > 0)
    directSend = directTransferOffsets(
        plan.sends, c.srcBase,
        [&](const Transfer &t) { return sendView(c, t); }, c.worldSize, es,
        /*disjoint=*/false);
  if (received > 0 && intoDestination)
    directRecv = directTransferOffsets(
        plan.receives, c.dstBase,
        [&](const Transfer &t) { return receiveView(c, t); }, c.worldSize, es,
        /*disjoint=*/true);
  if (directSend && !fitInt(*directSend))
    directSend.reset();
  if (directRecv && !fitInt(*directRecv))
    directRecv.reset();

  // A rank that sends or receives nothing still passes a buffer.
  char none = 0;
  std::vector<char> sendStage;
  const char *sendBase = sent > 0 ? c.srcBase : &none;
  char *recvBase = received > 0 ? c.dstBase : &none;
  if (directSend) {
    sendOffsets = *directSend;
  } else if (sent > 0) {
    sendStage.resize(static_cast<size_t>(sent) * es);
    sendBase = sendStage.data();
    int64_t next = 0;
    for (const Transfer &t : plan.sends) {
      copyView(sendView(c, t),
               contiguousView(sendStage.data() + next * es, t.box.sizes), es);
      next += *layout::volume(t.box.sizes);
    }
  }
  staged = !directRecv && received > 0;
  if (directRecv) {
    recvOffsets = *directRecv;
  } else if (staged) {
    recvStage.resize(static_cast<size_t>(received) * es);
    recvBase = recvStage.data();
  }

  std::vector<int> sc = toInt(sendCounts), sd = toInt(sendOffsets),
                   rc = toInt(recvCounts), rd = toInt(recvOffsets);
  MPI_Datatype type = elementType(es);
  watchStep("in MPI_Alltoallv");
  int status = MPI_Alltoallv(sendBase, sc.data(), sd.data(), type, recvBase,
                             rc.data(), rd.data(), type, worldComm(c.prefix));
  return checkMpi(c, status, "MPI_Alltoallv");
}

/// The view of local copy `i` of the plan in its source and destination
/// blocks.
View copySource(const Collective &c, size_t i) {
  const int64_t b = c.plan.copyBlocks[i].first;
  return boxView(c.srcViews.at(b), c.boxes[b], c.plan.copies[i], c.elemSize);
}
View copyDestination(const Collective &c, size_t i) {
  const int64_t b = c.plan.copyBlocks[i].second;
  return boxView(c.dstViews.at(b), c.dst.boxes[b], c.plan.copies[i],
                 c.elemSize);
}

/// A redistribution that reduces on this rank: the exchange into a staging
/// buffer, then the contributions combined into the destination blocks in
/// the plan's order, and avg's division.
int redistributeReducing(const Collective &c) {
  const size_t es = c.elemSize;
  const RedistributionPlan &plan = c.plan;
  std::vector<char> recvStage;
  bool staged = false;
  if (plan.exchange) {
    if (int status = exchange(c, /*intoDestination=*/false, recvStage, staged))
      return status;
  }
  // Where each received box starts in the staging buffer.
  std::vector<int64_t> starts;
  int64_t next = 0;
  for (const Transfer &t : plan.receives) {
    starts.push_back(next);
    next += *layout::volume(t.box.sizes);
  }
  for (const layout::Contribution &step : plan.order) {
    const Transfer *t = step.received ? &plan.receives[step.index] : nullptr;
    const View from =
        t ? contiguousView(recvStage.data() + starts[step.index] * es,
                           t->box.sizes)
          : copySource(c, step.index);
    const View to = t ? receiveView(c, *t) : copyDestination(c, step.index);
    if (step.reduce)
      reduceView(from, to, c.dtype, c.reduce);
    else
      copyView(from, to, es);
  }
  if (c.reduce == SHARDRT_AVG) {
    for (const layout::Combined &combined : plan.combined)
      divideView(boxView(c.dstViews.at(combined.dstBlock),
                         c.dst.boxes[combined.dstBlock], combined.box, es),
                 combined.count, c.dtype);
  }
  return SHARDRT_SUCCESS;
}

} // namespace

int redistribute(const Collective &c) {
  if (c.plan.reduces())
    return redistributeReducing(c);
  const size_t es = c.elemSize;
  const RedistributionPlan &plan = c.plan;
  for (size_t i = 0; i < plan.copies.size(); ++i)
    copyView(copySource(c, i), copyDestination(c, i), es);
  if (!plan.exchange)
    return SHARDRT_SUCCESS;
  std::vector<char> recvStage;
  bool staged = false;
  if (int status = exchange(c, /*intoDestination=*/true, recvStage, staged))
    return status;
  if (!staged)
    return SHARDRT_SUCCESS;
  int64_t next = 0;
  for (const Transfer &t : plan.receives) {
    copyView(contiguousView(recvStage.data() + next * es, t.box.sizes),
             receiveView(c, t), es);
    next += *layout::volume(t.box.sizes);
  }
  return SHARDRT_SUCCESS;
}

} // namespace mpi
} // namespace rt
} // namespace shardc
