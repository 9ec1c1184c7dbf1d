//===- NcclGroups.cpp - Named collectives within groups, on NCCL ----------===//
//
// Each group of a shardrt_group_collective moves its data on a communicator
// of its own, split once from the world's with its members in position
// order (NcclResources.cpp). The call made is a function of the agreed
// tables only, so every member makes the same:
// - all_gather of even blocks: ncclAllGather; reduce_scatter of even pieces
//   with a reduction NCCL computes as the runtime does: ncclReduceScatter;
//   all_reduce with such a reduction: ncclAllReduce; broadcast:
//   ncclBroadcast;
// - uneven all_gather, all_to_all and gather: grouped ncclSend/ncclRecv of
//   the pieces (NCCL has no v-variants), this rank's own piece copied on the
//   device;
// - uneven reduce_scatter, and all_reduce or reduce_scatter with max or min
//   of a floating type (NCCL's do not propagate NaN): the pieces move by
//   grouped ncclSend/ncclRecv and the runtime's kernels reduce them in
//   position order, so that every member computes the same bits.
// avg is a sum divided by the group's size afterwards, as on the host. A
// piece moves straight from or into its block when it is one contiguous run
// there (GroupPlan.h), else through a staging buffer (packed and unpacked by
// the kernels).
//
//===----------------------------------------------------------------------===//

#include "GroupPlan.h"
#include "Nccl.h"

#include <cstdint>

namespace shardc {
namespace rt {
namespace nccl {

namespace {

/// One message of a grouped send/recv: the peer (position in the group),
/// the device buffer and its bytes.
struct Message {
  int peer;
  char *data;
  size_t bytes;
};

/// Sends and receives `messages` in one NCCL group on `comm`.
int sendReceive(const Collective &c, ncclComm_t comm, const std::string &name,
                const std::vector<Message> &sends,
                const std::vector<Message> &receives) {
  watchStep("in grouped ncclSend/ncclRecv (a group collective)");
  int status = checkNccl(c, ncclGroupStart(), "ncclGroupStart", comm, name);
  if (status)
    return status;
  for (const Message &m : sends)
    if (!status && m.bytes > 0)
      status = checkNccl(
          c, ncclSend(m.data, m.bytes, ncclUint8, m.peer, comm, callStream()),
          "ncclSend", comm, name);
  for (const Message &m : receives)
    if (!status && m.bytes > 0)
      status = checkNccl(
          c, ncclRecv(m.data, m.bytes, ncclUint8, m.peer, comm, callStream()),
          "ncclRecv", comm, name);
  return endGroup(c, status, comm, name);
}

} // namespace

int groupCollective(const Collective &c) {
  const GroupCall &g = c.group;
  // Every rank splits (or finds) the communicators, also one in no group.
  ncclComm_t comm = nullptr;
  std::string name;
  if (int status = groupComm(c, g.color, g.position, comm, name))
    return status;
  if (!comm)
    return SHARDRT_SUCCESS; // this rank takes no part
  if (!g.plan)
    g.plan = planGroup(c, INT64_MAX);
  const GroupPlan &p = *g.plan;
  const int64_t es = static_cast<int64_t>(c.elemSize);
  const int me = p.position;
  const int n = static_cast<int>(g.members.size());
  const View &src = c.local, &dst = c.dstLocal;
  cudaStream_t stream = callStream();

  // Pack what is sent, unless it goes straight from the block.
  char *sendBase = c.myBlock >= 0 ? src.data : nullptr;
  if (!p.sendDirect && p.sendStaged > 0) {
    if (int status = stageBuffer(c, 0, p.sendStaged * es, sendBase))
      return status;
    for (size_t k = 0; k < p.sends.size(); ++k)
      if (p.sends[k].count > 0)
        if (int status =
                copyOnDevice(c, pieceView(src, p.sends[k], c.elemSize),
                             contiguousView(sendBase + p.sendDispls[k] * es,
                                            p.sends[k].box->sizes)))
          return status;
  }
  ncclRedOp_t op = ncclSum;
  const bool native = nativeReduction(c.dtype, c.reduce, op);
  // Reductions NCCL cannot make combine on this rank's destination itself.
  const bool reducesHere =
      (g.kind == SHARDRT_COLLECTIVE_REDUCE_SCATTER && !(p.even && native)) ||
      (g.kind == SHARDRT_COLLECTIVE_ALL_REDUCE && !native);
  char *receiveBase = c.myDstBlock >= 0 ? dst.data : nullptr;
  if (!p.receiveDirect && p.receiveStaged > 0 && !reducesHere) {
    if (int status = stageBuffer(c, 1, p.receiveStaged * es, receiveBase))
      return status;
  }
  auto sendAt = [&](size_t k) { return sendBase + p.sendDispls[k] * es; };
  auto receiveAt = [&](size_t k) { return receiveBase + p.recvDispls[k] * es; };
  auto bytes = [&](int64_t count) { return static_cast<size_t>(count * es); };
  // The receives that arrive in staging and are unpacked at the end (all
  // but this rank's own piece, when it copies that itself).
  const bool unpack = !p.receiveDirect && !reducesHere;
  int own = -1;
  // This rank's own piece: from its source block into its destination.
  auto copyOwn = [&](const GroupPlan::Piece &from, const GroupPlan::Piece &to) {
    own = me;
    if (from.count == 0)
      return static_cast<int>(SHARDRT_SUCCESS);
    return copyOnDevice(c, pieceView(src, from, c.elemSize),
                        pieceView(dst, to, c.elemSize));
  };
  int status = SHARDRT_SUCCESS;

  // Reduces what every member sends this rank (its `count` elements from
  // this rank's piece `mine` of the source) into its destination block, in
  // position order: received into staging, then combined by the kernels.
  auto reduceByMessages = [&](size_t mine, int64_t count,
                              const std::vector<size_t> &pieceOf) -> int {
    char *scratch = nullptr;
    if (count > 0 && n > 1)
      if (int failed = stageBuffer(c, 2, bytes(count) * (n - 1), scratch))
        return failed;
    std::vector<Message> sends, receives;
    for (int q = 0; q < n; ++q) {
      if (q == me)
        continue;
      const size_t k = pieceOf[q];
      sends.push_back({q, sendAt(k), bytes(p.sendCounts[k])});
      const int slot = q < me ? q : q - 1;
      receives.push_back({q, scratch + slot * bytes(count), bytes(count)});
    }
    if (int failed = sendReceive(c, comm, name, sends, receives))
      return failed;
    if (count == 0)
      return static_cast<int>(SHARDRT_SUCCESS);
    const std::vector<int64_t> &sizes = dst.sizes;
    for (int q = 0; q < n; ++q) {
      const View from =
          q == me ? pieceView(src, p.sends[mine], c.elemSize)
                  : contiguousView(
                        scratch + (q < me ? q : q - 1) * bytes(count), sizes);
      if (int failed = q == 0 ? copyOnDevice(c, from, dst)
                              : reduceOnDevice(c, from, dst))
        return failed;
    }
    return static_cast<int>(SHARDRT_SUCCESS);
  };

  switch (g.kind) {
  case SHARDRT_COLLECTIVE_ALL_GATHER:
    if (p.even) {
      if (p.recvCounts[0] > 0) {
        watchStep("in ncclAllGather (a group's all_gather)");
        status = checkNccl(c,
                           ncclAllGather(sendAt(0), receiveAt(0),
                                         bytes(p.recvCounts[0]), ncclUint8,
                                         comm, stream),
                           "ncclAllGather", comm, name);
      }
      break;
    }
    {
      std::vector<Message> sends, receives;
      for (int q = 0; q < n; ++q)
        if (q != me) {
          sends.push_back({q, sendAt(0), bytes(p.sendCounts[0])});
          receives.push_back({q, receiveAt(q), bytes(p.recvCounts[q])});
        }
      status = sendReceive(c, comm, name, sends, receives);
      if (!status)
        status = copyOwn(p.sends[0], p.receives[me]);
    }
    break;
  case SHARDRT_COLLECTIVE_REDUCE_SCATTER:
    if (!reducesHere) {
      if (p.recvCounts[0] > 0) {
        watchStep("in ncclReduceScatter (a group's reduce_scatter)");
        status =
            checkNccl(c,
                      ncclReduceScatter(sendAt(0), receiveAt(0),
                                        static_cast<size_t>(p.recvCounts[0]),
                                        ncclType(c.dtype), op, comm, stream),
                      "ncclReduceScatter", comm, name);
      }
      break;
    }
    {
      std::vector<size_t> pieceOf(n);
      for (int q = 0; q < n; ++q)
        pieceOf[q] = static_cast<size_t>(q);
      status =
          reduceByMessages(static_cast<size_t>(me), p.recvCounts[me], pieceOf);
    }
    break;
  case SHARDRT_COLLECTIVE_ALL_REDUCE:
    if (!reducesHere) {
      if (p.sendCounts[0] > 0) {
        watchStep("in ncclAllReduce (a group's all_reduce)");
        status = checkNccl(c,
                           ncclAllReduce(sendAt(0), receiveAt(0),
                                         static_cast<size_t>(p.sendCounts[0]),
                                         ncclType(c.dtype), op, comm, stream),
                           "ncclAllReduce", comm, name);
      }
      break;
    }
    status = reduceByMessages(0, p.sendCounts[0], std::vector<size_t>(n, 0));
    break;
  case SHARDRT_COLLECTIVE_ALL_TO_ALL: {
    std::vector<Message> sends, receives;
    for (int q = 0; q < n; ++q)
      if (q != me) {
        sends.push_back({q, sendAt(q), bytes(p.sendCounts[q])});
        receives.push_back({q, receiveAt(q), bytes(p.recvCounts[q])});
      }
    status = sendReceive(c, comm, name, sends, receives);
    if (!status)
      status = copyOwn(p.sends[me], p.receives[me]);
    break;
  }
  case SHARDRT_COLLECTIVE_BROADCAST: {
    const bool isRoot = g.root == c.rank;
    const int64_t count = isRoot ? p.sendCounts[0] : p.recvCounts[0];
    if (count == 0)
      break;
    // The root broadcasts in place and copies its block itself.
    char *buffer = isRoot ? sendAt(0) : receiveAt(0);
    watchStep("in ncclBroadcast (a group's broadcast)");
    status = checkNccl(c,
                       ncclBroadcast(buffer, buffer, bytes(count), ncclUint8,
                                     g.position[g.root], comm, stream),
                       "ncclBroadcast", comm, name);
    if (!status && isRoot && c.myDstBlock >= 0)
      status = copyOnDevice(c, src, dst);
    break;
  }
  case SHARDRT_COLLECTIVE_GATHER: {
    const int root = g.position[g.root];
    std::vector<Message> sends, receives;
    if (me != root) {
      sends.push_back({root, sendAt(0), bytes(p.sendCounts[0])});
    } else {
      for (int q = 0; q < n; ++q)
        if (q != me)
          receives.push_back({q, receiveAt(q), bytes(p.recvCounts[q])});
    }
    status = sendReceive(c, comm, name, sends, receives);
    if (!status && me == root)
      status = copyOwn(p.sends[0], p.receives[me]);
    break;
  }
  }
  if (status)
    return status;
  // Unpack what arrived in staging, then divide an avg.
  if (unpack)
    for (size_t k = 0; k < p.receives.size(); ++k)
      if (p.receives[k].count > 0 && static_cast<int>(k) != own)
        if (int failed = copyOnDevice(
                c, contiguousView(receiveAt(k), p.receives[k].box->sizes),
                pieceView(dst, p.receives[k], c.elemSize)))
          return failed;
  const bool reduces = g.kind == SHARDRT_COLLECTIVE_REDUCE_SCATTER ||
                       g.kind == SHARDRT_COLLECTIVE_ALL_REDUCE;
  if (reduces && c.reduce == SHARDRT_AVG && c.myDstBlock >= 0 &&
      !p.receives.empty() && p.receives[0].count > 0)
    if (int failed = divideOnDevice(c, dst, n))
      return failed;
  return finish(c, comm, name, g.members);
}

} // namespace nccl
} // namespace rt
} // namespace shardc
