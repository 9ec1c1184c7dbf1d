//===- MpiGroups.cpp - Named collectives within groups, on MPI ------------===//
//
// Each group of a shardrt_group_collective moves its data in one native MPI
// collective on its own communicator. A rank's piece of a block goes
// straight from (or into) the block when it is contiguous there, and through
// a staging buffer otherwise, as the call's plan (GroupPlan.h), worked out
// on its first run and kept with the cached call, says.
//
//===----------------------------------------------------------------------===//

#include "../GroupPlan.h"

#include <climits>
#include <mutex>

namespace shardc {
namespace rt {

namespace mpi {
namespace {

/// Plans the call (GroupPlan.h) and converts its counts and displacements
/// to MPI's ints.
std::shared_ptr<GroupPlan> planForMpi(const Collective &c,
                                      std::string &problem) {
  std::shared_ptr<GroupPlan> plan = planGroup(c, INT_MAX);
  const std::vector<int64_t> *from[4] = {&plan->sendCounts, &plan->sendDispls,
                                         &plan->recvCounts, &plan->recvDispls};
  for (int k = 0; k < 4; ++k)
    for (int64_t v : *from[k]) {
      if (v < 0 || v > INT_MAX) {
        problem = "a count or displacement of " + std::to_string(v) +
                  " elements exceeds MPI's int counts";
        return nullptr;
      }
      plan->mpiCounts[k].push_back(static_cast<int>(v));
    }
  return plan;
}

/// The MPI datatype and op of a reduction, and whether it needs dividing
/// afterwards (avg). Native where MPI's arithmetic is the runtime's (sums and
/// products of 32- and 64-bit numbers, integer max and min); otherwise an op
/// of the runtime's own.
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
  // 8- and 16-bit integers are summed and multiplied by the runtime's own
  // op, which wraps as arith.addi and arith.muli do: Open MPI 4.1's op/avx
  // component sums them with saturating SIMD adds on buffers of 16 or more
  // elements (an i8 100 + 100 came back 127 where the program gives -56;
  // e2e/partition-narrow-int-sums.mlir). Their max and min are exact.
  case SHARDRT_I8:
    type = MPI_INT8_T;
    op = r == SHARDRT_MAX || r == SHARDRT_MIN ? native : ownOp<SHARDRT_I8>(r);
    return;
  case SHARDRT_U8:
    type = MPI_UINT8_T;
    op = r == SHARDRT_MAX || r == SHARDRT_MIN ? native : ownOp<SHARDRT_U8>(r);
    return;
  case SHARDRT_I16:
    type = MPI_INT16_T;
    op = r == SHARDRT_MAX || r == SHARDRT_MIN ? native : ownOp<SHARDRT_I16>(r);
    return;
  case SHARDRT_U16:
    type = MPI_UINT16_T;
    op = r == SHARDRT_MAX || r == SHARDRT_MIN ? native : ownOp<SHARDRT_U16>(r);
    return;
  case SHARDRT_I32:
    type = MPI_INT32_T;
    break;
  case SHARDRT_I64:
    type = MPI_INT64_T;
    break;
  case SHARDRT_U32:
    type = MPI_UINT32_T;
    break;
  case SHARDRT_U64:
    type = MPI_UINT64_T;
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
    g.plan = planForMpi(c, problem);
    if (!g.plan)
      return c.fail(SHARDRT_ERROR_INVALID_ARGUMENT, problem);
  }
  const GroupPlan &p = *g.plan;
  const std::vector<int> &sendCounts = p.mpiCounts[0],
                         &sendDispls = p.mpiCounts[1],
                         &recvCounts = p.mpiCounts[2],
                         &recvDispls = p.mpiCounts[3];
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
                   sendStage.data() + int64_t(sendDispls[k]) * es, es);
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
    if (p.even) {
      // Even blocks, one after another: the call a user would write (MPI
      // tunes it apart from the v-variant).
      call = "MPI_Allgather";
      watchStep("in MPI_Allgather (a group's all_gather)");
      rc = MPI_Allgather(sendBase + int64_t(sendDispls[0]) * es, sendCounts[0],
                         bytes, receiveBase + int64_t(recvDispls[0]) * es,
                         recvCounts[0], bytes, g.comm);
      break;
    }
    call = "MPI_Allgatherv";
    watchStep("in MPI_Allgatherv (a group's all_gather)");
    rc = MPI_Allgatherv(sendBase + int64_t(sendDispls[0]) * es, sendCounts[0],
                        bytes, receiveBase, recvCounts.data(),
                        recvDispls.data(), bytes, g.comm);
    break;
  case SHARDRT_COLLECTIVE_REDUCE_SCATTER:
  case SHARDRT_COLLECTIVE_ALL_REDUCE: {
    MPI_Datatype type;
    MPI_Op op;
    reduction(c.dtype, c.reduce, type, op);
    if (g.kind == SHARDRT_COLLECTIVE_ALL_REDUCE) {
      call = "MPI_Allreduce";
      watchStep("in MPI_Allreduce (a group's all_reduce)");
      rc = MPI_Allreduce(sendBase + int64_t(sendDispls[0]) * es,
                         receiveBase + int64_t(recvDispls[0]) * es,
                         sendCounts[0], type, op, g.comm);
    } else {
      int first = 0;
      for (size_t k = 0; k < p.sends.size(); ++k)
        if (p.sends[k].count > 0) {
          first = sendDispls[k];
          break;
        }
      if (p.even) {
        // Equal chunks, one after another: the call a user would write.
        // (Open MPI 4.1 tunes the v-variant apart: on 2 ranks it ran at
        // 0.5-0.6 of this one's time at 1 MiB per rank but 1.14-1.7 at
        // 16 MiB, and 0.93-1.39 at 1 MiB on the axis groups of a 2x2 mesh.)
        call = "MPI_Reduce_scatter_block";
        watchStep("in MPI_Reduce_scatter_block (a group's reduce_scatter)");
        rc = MPI_Reduce_scatter_block(sendBase + int64_t(sendDispls[0]) * es,
                                      receiveBase + int64_t(recvDispls[0]) * es,
                                      recvCounts[0], type, op, g.comm);
        break;
      }
      call = "MPI_Reduce_scatter";
      watchStep("in MPI_Reduce_scatter (a group's reduce_scatter)");
      rc = MPI_Reduce_scatter(sendBase + int64_t(first) * es,
                              receiveBase + int64_t(recvDispls[0]) * es,
                              recvCounts.data(), type, op, g.comm);
    }
    break;
  }
  case SHARDRT_COLLECTIVE_ALL_TO_ALL:
    call = "MPI_Alltoallv";
    watchStep("in MPI_Alltoallv (a group's all_to_all)");
    rc = MPI_Alltoallv(sendBase, sendCounts.data(), sendDispls.data(), bytes,
                       receiveBase, recvCounts.data(), recvDispls.data(), bytes,
                       g.comm);
    break;
  case SHARDRT_COLLECTIVE_BROADCAST: {
    call = "MPI_Bcast";
    watchStep("in MPI_Bcast (a group's broadcast)");
    const bool isRoot = g.root == c.rank;
    int count = isRoot ? sendCounts[0] : recvCounts[0];
    char *buffer = isRoot ? sendBase + int64_t(sendDispls[0]) * es
                          : receiveBase + int64_t(recvDispls[0]) * es;
    rc = MPI_Bcast(buffer, count, bytes, g.position[g.root], g.comm);
    if (rc == MPI_SUCCESS && isRoot && p.rootCopy && dstData)
      copyOnHost(*p.rootCopy, srcData, dstData, es);
    break;
  }
  case SHARDRT_COLLECTIVE_GATHER: {
    call = "MPI_Gatherv";
    watchStep("in MPI_Gatherv (a group's gather)");
    const bool isRoot = g.root == c.rank;
    rc = MPI_Gatherv(sendBase + int64_t(sendDispls[0]) * es, sendCounts[0],
                     bytes, isRoot ? receiveBase : nullptr,
                     isRoot ? recvCounts.data() : nullptr,
                     isRoot ? recvDispls.data() : nullptr, bytes,
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
                   receiveStage.data() + int64_t(recvDispls[k]) * es,
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
