//===- NcclBackend.cpp - Collectives on CUDA buffers with NCCL ------------===//
//
// all_gather, scatter and redistribute on CUDA buffers. NCCL has no
// v-variants: uneven blocks and every redistribution move as grouped
// ncclSend/ncclRecv of staged boxes, even all_gathers run ncclAllGather.
// A redistribution runs as it was planned: the collectives the planner names
// come as shardrt_group_collective (NcclGroups.cpp), and nothing here
// re-detects one from the tables. Boxes are packed, unpacked,
// copied and reduced by the CUDA kernels of Kernels.cu (any dims, any
// strides) with the host's element arithmetic. The communicators, stream
// and staging buffers are NcclResources.cpp's.
//
//===----------------------------------------------------------------------===//

#include "Nccl.h"

namespace shardc {
namespace rt {
namespace nccl {

int allGather(const Collective &c) {
  ncclComm_t world = worldNccl();
  const int64_t es = static_cast<int64_t>(c.elemSize);
  // Which NCCL call runs is a function of the agreed counts only: equal
  // counts run one ncclAllGather, others grouped ncclSend/ncclRecv. Where
  // the blocks lie in this rank's global view is its own: it receives in
  // place when they lie one after another in rank order, else in staging.
  bool even = true;
  for (int r = 0; r < c.worldSize && even; ++r)
    even = c.counts[r] == c.counts[0];
  std::optional<std::vector<int64_t>> direct = directOffsets(c);
  if (direct && even) {
    for (int r = 0; r < c.worldSize && direct; ++r)
      if ((*direct)[r] != r * c.counts[0])
        direct.reset();
  }
  std::vector<int64_t> offsets = direct ? *direct : stagedOffsets(c);
  char *base = c.global.data;
  if (!direct) {
    if (int status = stageBuffer(c, 1, c.totalCount() * es, base))
      return status;
  }
  const int me = c.rank;
  if (c.myBlock >= 0 && c.counts[me] > 0) {
    const layout::Box &box = c.boxes[c.myBlock];
    View dst = direct ? subView(c.global, box, c.elemSize)
                      : contiguousView(base + offsets[me] * es, box.sizes);
    if (int status = copyOnDevice(c, c.local, dst))
      return status;
  }

  if (even) {
    const size_t bytes = c.counts[0] * es;
    watchStep("in ncclAllGather");
    if (int status =
            checkNccl(c,
                      ncclAllGather(base + offsets[me] * es, base, bytes,
                                    ncclUint8, world, callStream()),
                      "ncclAllGather", world))
      return status;
  } else {
    int status = checkNccl(c, ncclGroupStart(), "ncclGroupStart", world);
    if (status)
      return status;
    for (int p = 0; p < c.worldSize && !status; ++p) {
      if (p == me)
        continue;
      if (c.counts[me] > 0)
        status = checkNccl(c,
                           ncclSend(base + offsets[me] * es, c.counts[me] * es,
                                    ncclUint8, p, world, callStream()),
                           "ncclSend", world);
      if (!status && c.counts[p] > 0)
        status = checkNccl(c,
                           ncclRecv(base + offsets[p] * es, c.counts[p] * es,
                                    ncclUint8, p, world, callStream()),
                           "ncclRecv", world);
    }
    if (int groupStatus = endGroup(c, status, world))
      return groupStatus;
  }

  if (!direct) {
    for (int r = 0; r < c.worldSize; ++r) {
      if (c.counts[r] == 0)
        continue;
      const layout::Box &box = c.boxes[c.blockOfRank[r]];
      if (int status =
              copyOnDevice(c, contiguousView(base + offsets[r] * es, box.sizes),
                           subView(c.global, box, c.elemSize)))
        return status;
    }
  }
  return finish(c);
}

int scatter(const Collective &c) {
  ncclComm_t world = worldNccl();
  const int64_t es = static_cast<int64_t>(c.elemSize);
  const bool isRoot = c.rank == c.root;

  std::vector<int64_t> offsets(c.worldSize, 0);
  const char *sendBase = nullptr;
  if (isRoot) {
    std::optional<std::vector<int64_t>> direct = directOffsets(c);
    if (direct) {
      offsets = *direct;
      sendBase = c.global.data;
    } else {
      int64_t next = 0;
      offsets = scatterStagingOffsets(c, next);
      char *stage = nullptr;
      if (int status = stageBuffer(c, 0, next * es, stage))
        return status;
      for (int r = 0; r < c.worldSize; ++r) {
        if (r == c.root || c.counts[r] == 0)
          continue;
        const layout::Box &box = c.boxes[c.blockOfRank[r]];
        if (int status = copyOnDevice(
                c, subView(c.global, box, c.elemSize),
                contiguousView(stage + offsets[r] * es, box.sizes)))
          return status;
      }
      sendBase = stage;
    }
  }

  const int64_t myCount = c.counts[c.rank];
  char *recvBuffer = nullptr;
  bool unpack = false;
  if (!isRoot && myCount > 0) {
    recvBuffer = c.local.data;
    if (!isContiguous(c.local.sizes, c.local.strides)) {
      if (int status = stageBuffer(c, 1, myCount * es, recvBuffer))
        return status;
      unpack = true;
    }
  }

  int status = checkNccl(c, ncclGroupStart(), "ncclGroupStart", world);
  if (status)
    return status;
  if (isRoot) {
    for (int p = 0; p < c.worldSize && !status; ++p) {
      if (p != c.root && c.counts[p] > 0)
        status =
            checkNccl(c,
                      ncclSend(sendBase + offsets[p] * es, c.counts[p] * es,
                               ncclUint8, p, world, callStream()),
                      "ncclSend", world);
    }
  } else if (myCount > 0) {
    status = checkNccl(c,
                       ncclRecv(recvBuffer, myCount * es, ncclUint8, c.root,
                                world, callStream()),
                       "ncclRecv", world);
  }
  if (int groupStatus = endGroup(c, status, world))
    return groupStatus;

  if (unpack)
    status =
        copyOnDevice(c, contiguousView(recvBuffer, c.local.sizes), c.local);
  if (!status && isRoot && myCount > 0)
    status = copyOnDevice(c, subView(c.global, c.boxes[c.myBlock], c.elemSize),
                          c.local);
  if (status)
    return status;
  return finish(c);
}

int redistribute(const Collective &c) {
  ncclComm_t world = worldNccl();
  const int64_t es = static_cast<int64_t>(c.elemSize);
  const RedistributionPlan &plan = c.plan;
  const bool reduces = plan.reduces();
  if (!reduces) {
    for (size_t i = 0; i < plan.copies.size(); ++i) {
      if (int status = copyOnDevice(c, copySource(c, i), copyDestination(c, i)))
        return status;
    }
    if (!plan.exchange)
      return finish(c);
  }

  // Stage what this rank sends, and receive into a stage, each in peer
  // order.
  std::vector<int64_t> sendCounts, sendOffsets, recvCounts, recvOffsets;
  const int64_t sent =
      packedOffsets(plan.sends, c.worldSize, sendCounts, sendOffsets);
  const int64_t received =
      packedOffsets(plan.receives, c.worldSize, recvCounts, recvOffsets);
  char *sendStage = nullptr, *recvStage = nullptr;
  if (sent > 0) {
    if (int status = stageBuffer(c, 0, sent * es, sendStage))
      return status;
  }
  if (received > 0) {
    if (int status = stageBuffer(c, 1, received * es, recvStage))
      return status;
  }
  int64_t next = 0;
  for (const Transfer &t : plan.sends) {
    if (int status =
            copyOnDevice(c, sendView(c, t),
                         contiguousView(sendStage + next * es, t.box.sizes)))
      return status;
    next += *layout::volume(t.box.sizes);
  }

  if (plan.exchange) {
    int status = checkNccl(c, ncclGroupStart(), "ncclGroupStart", world);
    if (status)
      return status;
    for (int p = 0; p < c.worldSize && !status; ++p) {
      if (sendCounts[p] > 0)
        status = checkNccl(c,
                           ncclSend(sendStage + sendOffsets[p] * es,
                                    sendCounts[p] * es, ncclUint8, p, world,
                                    callStream()),
                           "ncclSend", world);
      if (!status && recvCounts[p] > 0)
        status = checkNccl(c,
                           ncclRecv(recvStage + recvOffsets[p] * es,
                                    recvCounts[p] * es, ncclUint8, p, world,
                                    callStream()),
                           "ncclRecv", world);
    }
    if (int groupStatus = endGroup(c, status, world))
      return groupStatus;
  }

  // Where each received box starts in the stage.
  std::vector<int64_t> starts;
  next = 0;
  for (const Transfer &t : plan.receives) {
    starts.push_back(next);
    next += *layout::volume(t.box.sizes);
  }
  if (!reduces) {
    for (size_t i = 0; i < plan.receives.size(); ++i) {
      const Transfer &t = plan.receives[i];
      if (int status = copyOnDevice(
              c, contiguousView(recvStage + starts[i] * es, t.box.sizes),
              receiveView(c, t)))
        return status;
    }
    return finish(c);
  }
  // The contributions in the plan's order (the host's: MpiBackend.cpp).
  for (const layout::Contribution &step : plan.order) {
    const Transfer *t = step.received ? &plan.receives[step.index] : nullptr;
    const View from =
        t ? contiguousView(recvStage + starts[step.index] * es, t->box.sizes)
          : copySource(c, step.index);
    const View to = t ? receiveView(c, *t) : copyDestination(c, step.index);
    if (int status = step.reduce ? reduceOnDevice(c, from, to)
                                 : copyOnDevice(c, from, to))
      return status;
  }
  if (c.reduce == SHARDRT_AVG) {
    for (const layout::Combined &combined : plan.combined) {
      if (int status = divideOnDevice(c,
                                      boxView(c.dstViews.at(combined.dstBlock),
                                              c.dst.boxes[combined.dstBlock],
                                              combined.box, c.elemSize),
                                      combined.count))
        return status;
    }
  }
  return finish(c);
}

namespace {

class NcclBackend final : public Backend {
public:
  int checkOnce(const Collective &, std::string &) const override {
    return SHARDRT_SUCCESS;
  }
  int checkBuffers(const Collective &c, std::string &problem) const override {
    return checkLocal(c, problem);
  }
  bool dataCarriesAgreement(const Collective &) const override { return false; }
  int64_t epoch() const override { return nccl::epoch(); }
  int prepare(const Collective &c, int64_t agreedEpoch) const override {
    return nccl::prepare(c, agreedEpoch);
  }
  int failedAfterAgreement(const Collective &c, int status) const override {
    return nccl::failedAfterAgreement(c, status);
  }
  int allGather(const Collective &c) const override {
    return nccl::allGather(c);
  }
  int scatter(const Collective &c) const override { return nccl::scatter(c); }
  int redistribute(const Collective &c) const override {
    return nccl::redistribute(c);
  }
  int groupCollective(Collective &c) const override {
    return nccl::groupCollective(c);
  }
};

} // namespace

const Backend &backend() {
  static const NcclBackend instance;
  return instance;
}

} // namespace nccl
} // namespace rt
} // namespace shardc
