//===- MpiGroups.cpp - Named collectives within groups, on MPI ------------===//
//
// Each group of a shardrt_group_collective moves its data in one native MPI
// collective on its own communicator. A rank's piece of a block goes
// straight from (or into) the block when it is contiguous there, and through
// a staging buffer otherwise. The pieces, counts and copies are worked out
// on a call's first run and kept with the cached call.
//
//===----------------------------------------------------------------------===//

#include "../Runtime.h"

#include <climits>
#include <map>
#include <mutex>

namespace shardc {
namespace rt {

/// What a group collective's runs share: the pieces of this rank's blocks
/// that it sends and receives, in member order, and how they move.
struct GroupPlan {
  struct Piece {
    /// Element offset in the block's view, and the copy between the view
    /// and a contiguous buffer of the piece (row-major).
    int64_t offset = 0;
    int64_t count = 0;
    std::shared_ptr<CopyPlan> toBuffer, fromBuffer;
  };
  std::vector<Piece> sends, receives;
  /// Per member: counts and displacements (elements) of the collective, in
  /// the staging buffers or, when direct, in the blocks' views.
  std::vector<int> sendCounts, sendDispls, recvCounts, recvDispls;
  bool sendDirect = false, receiveDirect = false;
  /// all_gather: every member sends as much as each receives from each
  /// (MPI_Allgather rather than MPI_Allgatherv).
  bool evenConsecutive = false;
  int64_t sendStaged = 0, receiveStaged = 0;
  /// Broadcast on the root: the copy of its source block into its
  /// destination block.
  std::shared_ptr<CopyPlan> rootCopy;
};

namespace mpi {
namespace {

std::shared_ptr<CopyPlan> copyPlan(const std::vector<int64_t> &sizes,
                                   const std::vector<int64_t> &from,
                                   const std::vector<int64_t> &to,
                                   size_t elemSize) {
  return std::make_shared<CopyPlan>(sizes, from, to, elemSize);
}

using MaybeBox = std::optional<layout::Box>;

/// The piece `part` of a block `box` held in `view` (none when either is
/// none).
GroupPlan::Piece pieceOf(const View &view, const MaybeBox &box,
                         const MaybeBox &part, size_t elemSize) {
  GroupPlan::Piece p;
  p.count = !box || !part || part->empty()
                ? 0
                : layout::volume(part->sizes).value_or(0);
  if (p.count == 0)
    return p;
  std::vector<int64_t> rel(part->offsets.size());
  for (size_t d = 0; d < rel.size(); ++d)
    rel[d] = part->offsets[d] - box->offsets[d];
  p.offset = linearOffset(rel, view.strides);
  std::vector<int64_t> packed = rowMajorStrides(part->sizes);
  p.toBuffer = copyPlan(part->sizes, view.strides, packed, elemSize);
  p.fromBuffer = copyPlan(part->sizes, packed, view.strides, elemSize);
  return p;
}

MaybeBox intersection(const MaybeBox &a, const MaybeBox &b) {
  if (!a || !b)
    return std::nullopt;
  return layout::intersect(*a, *b);
}

/// Whether a piece is one contiguous run in its view.
bool contiguous(const GroupPlan::Piece &p, size_t elemSize) {
  if (p.count == 0)
    return true;
  const CopyPlan &plan = *p.toBuffer;
  return plan.numCopies() == 1 && plan.rectangle().height == 1 &&
         plan.rectangle().width == p.count * static_cast<int64_t>(elemSize);
}

/// Offsets of consecutive counts, and their total.
std::vector<int> prefixSums(const std::vector<int> &counts, int64_t &total) {
  std::vector<int> displs(counts.size(), 0);
  total = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    displs[k] = static_cast<int>(total);
    total += counts[k];
  }
  return displs;
}

std::shared_ptr<GroupPlan> planGroup(const Collective &c,
                                     std::string &problem) {
  const GroupCall &g = c.group;
  auto plan = std::make_shared<GroupPlan>();
  const int me = c.rank;
  auto src = [&](int r) { return boxOf(c.boxes, c.owners, r); };
  auto dst = [&](int r) { return boxOf(c.dst.boxes, c.dst.owners, r); };
  const MaybeBox mySrc = src(me), myDst = dst(me);
  auto sendPiece = [&](const MaybeBox &part) {
    return pieceOf(c.local, mySrc, part, c.elemSize);
  };
  auto receivePiece = [&](const MaybeBox &part) {
    return pieceOf(c.dstLocal, myDst, part, c.elemSize);
  };
  const bool isRoot = g.root == me;
  switch (g.kind) {
  case SHARDRT_COLLECTIVE_ALL_GATHER:
    plan->sends.push_back(sendPiece(mySrc));
    for (int r : g.members)
      plan->receives.push_back(receivePiece(src(r)));
    break;
  case SHARDRT_COLLECTIVE_REDUCE_SCATTER:
    for (int r : g.members)
      plan->sends.push_back(sendPiece(intersection(mySrc, dst(r))));
    plan->receives.push_back(receivePiece(myDst));
    break;
  case SHARDRT_COLLECTIVE_ALL_REDUCE:
    plan->sends.push_back(sendPiece(mySrc));
    plan->receives.push_back(receivePiece(myDst));
    break;
  case SHARDRT_COLLECTIVE_ALL_TO_ALL:
    for (int r : g.members) {
      plan->sends.push_back(sendPiece(intersection(mySrc, dst(r))));
      plan->receives.push_back(receivePiece(intersection(src(r), myDst)));
    }
    break;
  case SHARDRT_COLLECTIVE_BROADCAST:
    if (isRoot) {
      plan->sends.push_back(sendPiece(mySrc));
      if (mySrc && myDst && !myDst->empty())
        plan->rootCopy = copyPlan(mySrc->sizes, c.local.strides,
                                  c.dstLocal.strides, c.elemSize);
    } else {
      plan->receives.push_back(receivePiece(myDst));
    }
    break;
  case SHARDRT_COLLECTIVE_GATHER:
    plan->sends.push_back(sendPiece(mySrc));
    if (isRoot)
      for (int r : g.members)
        plan->receives.push_back(receivePiece(src(r)));
    break;
  }
  // Counts: per member for the v-collectives, one for the others.
  auto fits = [&](int64_t v) { return v >= 0 && v <= INT_MAX; };
  for (const auto *pieces : {&plan->sends, &plan->receives})
    for (const GroupPlan::Piece &p : *pieces)
      if (!fits(p.count)) {
        problem = "a piece of " + std::to_string(p.count) +
                  " elements exceeds MPI's int counts";
        return nullptr;
      }
  auto counts = [](const std::vector<GroupPlan::Piece> &pieces) {
    std::vector<int> out;
    for (const GroupPlan::Piece &p : pieces)
      out.push_back(static_cast<int>(p.count));
    return out;
  };
  plan->sendCounts = counts(plan->sends);
  plan->recvCounts = counts(plan->receives);
  if (g.kind == SHARDRT_COLLECTIVE_ALL_GATHER ||
      g.kind == SHARDRT_COLLECTIVE_GATHER) {
    // Every member receives (the root, for gather) each member's block.
    std::vector<int> all;
    for (int r : g.members) {
      MaybeBox s = src(r);
      int64_t v = !s || s->empty() ? 0 : layout::volume(s->sizes).value_or(0);
      if (!fits(v)) {
        problem = "a block of " + std::to_string(v) +
                  " elements exceeds MPI's int counts";
        return nullptr;
      }
      all.push_back(static_cast<int>(v));
    }
    plan->recvCounts = all;
  }
  // MPI_Reduce_scatter's recvcounts: what each member receives, which is
  // what this rank sends it.
  if (g.kind == SHARDRT_COLLECTIVE_REDUCE_SCATTER)
    plan->recvCounts = plan->sendCounts;
  // Direct where every piece is contiguous in its block.
  auto allContiguous = [&](const std::vector<GroupPlan::Piece> &pieces) {
    for (const GroupPlan::Piece &p : pieces)
      if (!contiguous(p, c.elemSize) || p.offset < 0 || p.offset > INT_MAX)
        return false;
    return true;
  };
  const bool consecutiveSends = g.kind == SHARDRT_COLLECTIVE_REDUCE_SCATTER;
  plan->sendDirect = allContiguous(plan->sends);
  if (plan->sendDirect && consecutiveSends) {
    int64_t at = -1;
    for (const GroupPlan::Piece &p : plan->sends) {
      if (p.count == 0)
        continue;
      if (at >= 0 && p.offset != at)
        plan->sendDirect = false;
      at = p.offset + p.count;
    }
  }
  // MPI_Allgather where every member's count is the same: a function of the
  // agreed tables only, so every member calls the same one.
  const std::vector<int> &rc = plan->recvCounts;
  plan->evenConsecutive = !rc.empty() &&
                          std::all_of(rc.begin(), rc.end(),
                                      [&](int n) { return n == rc.front(); }) &&
                          g.kind == SHARDRT_COLLECTIVE_ALL_GATHER &&
                          !plan->sendCounts.empty() &&
                          plan->sendCounts[0] == rc.front();
  plan->receiveDirect = allContiguous(plan->receives);
  if (plan->receiveDirect && plan->evenConsecutive) {
    // MPI_Allgather lays the blocks one after another: where they do not
    // lie so in this rank's destination, it receives into staging (a local
    // choice; the call stays the same).
    for (size_t k = 1; k < plan->receives.size(); ++k)
      if (plan->receives[k].offset !=
          plan->receives[0].offset + int64_t(k) * rc.front())
        plan->receiveDirect = false;
  }
  int64_t total = 0;
  if (plan->sendDirect) {
    for (const GroupPlan::Piece &p : plan->sends)
      plan->sendDispls.push_back(static_cast<int>(p.offset));
  } else {
    plan->sendDispls = prefixSums(plan->sendCounts, total);
    plan->sendStaged = total;
  }
  if (plan->receiveDirect) {
    for (const GroupPlan::Piece &p : plan->receives)
      plan->recvDispls.push_back(static_cast<int>(p.offset));
  } else {
    std::vector<int> pieceCounts = counts(plan->receives);
    plan->recvDispls = prefixSums(pieceCounts, total);
    plan->receiveStaged = total;
  }
  return plan;
}

/// The MPI datatype and op of a reduction, and whether it needs dividing
/// afterwards (avg). Native where MPI's arithmetic is the runtime's (sums and
/// products, integer max and min); otherwise an op of the runtime's own.
template <shardrt_dtype D, shardrt_reduce R>
void ownReduce(void *in, void *inout, int *len, MPI_Datatype *) {
  View from{static_cast<char *>(in), {*len}, {1}};
  View to{static_cast<char *>(inout), {*len}, {1}};
  reduceView(from, to, D, R);
}

template <shardrt_dtype D> MPI_Op ownOp(shardrt_reduce r) {
  static std::once_flag once;
  static MPI_Op ops[5];
  std::call_once(once, [] {
    MPI_Op_create(&ownReduce<D, SHARDRT_SUM>, 1, &ops[SHARDRT_SUM]);
    MPI_Op_create(&ownReduce<D, SHARDRT_MAX>, 1, &ops[SHARDRT_MAX]);
    MPI_Op_create(&ownReduce<D, SHARDRT_MIN>, 1, &ops[SHARDRT_MIN]);
    MPI_Op_create(&ownReduce<D, SHARDRT_PRODUCT>, 1, &ops[SHARDRT_PRODUCT]);
  });
  return ops[r == SHARDRT_AVG ? SHARDRT_SUM : r];
}

void reduction(shardrt_dtype dtype, shardrt_reduce reduce, MPI_Datatype &type,
               MPI_Op &op) {
  const shardrt_reduce r = reduce == SHARDRT_AVG ? SHARDRT_SUM : reduce;
  MPI_Op native = r == SHARDRT_SUM   ? MPI_SUM
                  : r == SHARDRT_MAX ? MPI_MAX
                  : r == SHARDRT_MIN ? MPI_MIN
                                     : MPI_PROD;
  switch (dtype) {
  case SHARDRT_F32:
    type = MPI_FLOAT;
    op = r == SHARDRT_MAX || r == SHARDRT_MIN ? ownOp<SHARDRT_F32>(r) : native;
    return;
  case SHARDRT_F64:
    type = MPI_DOUBLE;
    op = r == SHARDRT_MAX || r == SHARDRT_MIN ? ownOp<SHARDRT_F64>(r) : native;
    return;
  case SHARDRT_F16:
    type = MPI_UINT16_T;
    op = ownOp<SHARDRT_F16>(r);
    return;
  case SHARDRT_BF16:
    type = MPI_UINT16_T;
    op = ownOp<SHARDRT_BF16>(r);
    return;
  case SHARDRT_I8:
    type = MPI_INT8_T;
    break;
  case SHARDRT_I32:
    type = MPI_INT32_T;
    break;
  case SHARDRT_I64:
    type = MPI_INT64_T;
    break;
  case SHARDRT_U8:
    type = MPI_UINT8_T;
    break;
  }
  op = native;
}

} // namespace

int groupCollective(const Collective &c) {
  const GroupCall &g = c.group;
  if (g.comm == MPI_COMM_NULL)
    return SHARDRT_SUCCESS; // this rank takes no part
  if (!g.plan) {
    std::string problem;
    g.plan = planGroup(c, problem);
    if (!g.plan)
      return c.fail(SHARDRT_ERROR_INVALID_ARGUMENT, problem);
  }
  const GroupPlan &p = *g.plan;
  const size_t es = c.elemSize;
  char *srcData = c.myBlock >= 0 ? c.local.data : nullptr;
  char *dstData = c.myDstBlock >= 0 ? c.dstLocal.data : nullptr;
  // Pack what is sent, unless it goes straight from the block.
  std::vector<char> sendStage, receiveStage;
  char *sendBase = srcData, *receiveBase = dstData;
  if (!p.sendDirect) {
    sendStage.resize(static_cast<size_t>(p.sendStaged) * es);
    for (size_t k = 0; k < p.sends.size(); ++k)
      if (p.sends[k].count > 0)
        copyOnHost(*p.sends[k].toBuffer, srcData + p.sends[k].offset * es,
                   sendStage.data() + int64_t(p.sendDispls[k]) * es, es);
    sendBase = sendStage.data();
  }
  if (!p.receiveDirect) {
    receiveStage.resize(static_cast<size_t>(p.receiveStaged) * es);
    receiveBase = receiveStage.data();
  }
  MPI_Datatype bytes = elementType(es);
  int rc = MPI_SUCCESS;
  const char *call = "";
  switch (g.kind) {
  case SHARDRT_COLLECTIVE_ALL_GATHER:
    if (p.evenConsecutive) {
      // Even blocks, one after another: the call a user would write (MPI
      // tunes it apart from the v-variant).
      call = "MPI_Allgather";
      watchStep("in MPI_Allgather (a group's all_gather)");
      rc = MPI_Allgather(sendBase + int64_t(p.sendDispls[0]) * es,
                         p.sendCounts[0], bytes,
                         receiveBase + int64_t(p.recvDispls[0]) * es,
                         p.recvCounts[0], bytes, g.comm);
      break;
    }
    call = "MPI_Allgatherv";
    watchStep("in MPI_Allgatherv (a group's all_gather)");
    rc = MPI_Allgatherv(
        sendBase + int64_t(p.sendDispls[0]) * es, p.sendCounts[0], bytes,
        receiveBase, p.recvCounts.data(), p.recvDispls.data(), bytes, g.comm);
    break;
  case SHARDRT_COLLECTIVE_REDUCE_SCATTER:
  case SHARDRT_COLLECTIVE_ALL_REDUCE: {
    MPI_Datatype type;
    MPI_Op op;
    reduction(c.dtype, c.reduce, type, op);
    if (g.kind == SHARDRT_COLLECTIVE_ALL_REDUCE) {
      call = "MPI_Allreduce";
      watchStep("in MPI_Allreduce (a group's all_reduce)");
      rc = MPI_Allreduce(sendBase + int64_t(p.sendDispls[0]) * es,
                         receiveBase + int64_t(p.recvDispls[0]) * es,
                         p.sendCounts[0], type, op, g.comm);
    } else {
      int first = 0;
      for (size_t k = 0; k < p.sends.size(); ++k)
        if (p.sends[k].count > 0) {
          first = p.sendDispls[k];
          break;
        }
      // The v-variant even for even chunks: Open MPI 4.1 runs it at 0.5 to
      // 0.7 of MPI_Reduce_scatter_block's time from 1 MiB per rank on 2
      // ranks, and as fast below (bench/runtime_overhead.sh).
      call = "MPI_Reduce_scatter";
      watchStep("in MPI_Reduce_scatter (a group's reduce_scatter)");
      rc = MPI_Reduce_scatter(sendBase + int64_t(first) * es,
                              receiveBase + int64_t(p.recvDispls[0]) * es,
                              p.recvCounts.data(), type, op, g.comm);
    }
    break;
  }
  case SHARDRT_COLLECTIVE_ALL_TO_ALL:
    call = "MPI_Alltoallv";
    watchStep("in MPI_Alltoallv (a group's all_to_all)");
    rc = MPI_Alltoallv(sendBase, p.sendCounts.data(), p.sendDispls.data(),
                       bytes, receiveBase, p.recvCounts.data(),
                       p.recvDispls.data(), bytes, g.comm);
    break;
  case SHARDRT_COLLECTIVE_BROADCAST: {
    call = "MPI_Bcast";
    watchStep("in MPI_Bcast (a group's broadcast)");
    const bool isRoot = g.root == c.rank;
    int count = isRoot ? p.sendCounts[0] : p.recvCounts[0];
    char *buffer = isRoot ? sendBase + int64_t(p.sendDispls[0]) * es
                          : receiveBase + int64_t(p.recvDispls[0]) * es;
    rc = MPI_Bcast(buffer, count, bytes, g.position[g.root], g.comm);
    if (rc == MPI_SUCCESS && isRoot && p.rootCopy && dstData)
      copyOnHost(*p.rootCopy, srcData, dstData, es);
    break;
  }
  case SHARDRT_COLLECTIVE_GATHER: {
    call = "MPI_Gatherv";
    watchStep("in MPI_Gatherv (a group's gather)");
    const bool isRoot = g.root == c.rank;
    rc = MPI_Gatherv(sendBase + int64_t(p.sendDispls[0]) * es, p.sendCounts[0],
                     bytes, isRoot ? receiveBase : nullptr,
                     isRoot ? p.recvCounts.data() : nullptr,
                     isRoot ? p.recvDispls.data() : nullptr, bytes,
                     g.position[g.root], g.comm);
    break;
  }
  }
  if (rc != MPI_SUCCESS)
    return c.fail(SHARDRT_ERROR_BACKEND,
                  std::string(call) + " failed: " + mpiErrorString(rc));
  // Unpack what arrived in the staging buffer, then divide an avg.
  if (!p.receiveDirect)
    for (size_t k = 0; k < p.receives.size(); ++k)
      if (p.receives[k].count > 0)
        copyOnHost(*p.receives[k].fromBuffer,
                   receiveStage.data() + int64_t(p.recvDispls[k]) * es,
                   dstData + p.receives[k].offset * es, es);
  if (c.reduce == SHARDRT_AVG &&
      (g.kind == SHARDRT_COLLECTIVE_REDUCE_SCATTER ||
       g.kind == SHARDRT_COLLECTIVE_ALL_REDUCE) &&
      dstData && !p.receives.empty() && p.receives[0].count > 0) {
    View mine = c.dstLocal;
    mine.data = dstData;
    divideView(mine, static_cast<int64_t>(g.members.size()), c.dtype);
  }
  return SHARDRT_SUCCESS;
}

} // namespace mpi
} // namespace rt
} // namespace shardc
