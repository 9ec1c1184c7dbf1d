//===- Runtime.cpp - The collectives' C ABI: check, agree, dispatch -------===//
//
// Every collective call runs the same steps on every rank: find it in the
// call cache or check its arguments locally (CallCache.h, Collective.cpp),
// agree with all ranks that everybody's arguments are fine and alike
// (Agreement.cpp), and hand the checked call to the backend of its device
// (backendFor: MPI or NCCL, one Backend interface, Runtime.h)
// while the watchdog watches (Watchdog.cpp). The process's MPI world and
// errors are World.cpp's.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"
#include "CallCache.h"

#include "shardc/Layout/Collectives.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <vector>

namespace shardc {
namespace rt {

namespace {

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

} // namespace

const Backend &backendFor(const Collective &c) {
#ifdef SHARDRT_HAVE_NCCL
  if (c.device == SHARDRT_DEVICE_CUDA)
    return nccl::backend();
#endif
  return mpi::backend();
}

namespace {

/// What this rank receives from other ranks in a successful run of `c`
/// (shardrt_bytes_received).
int64_t receivedBytes(const Collective &c) {
  const int64_t es = static_cast<int64_t>(c.elemSize);
  const int64_t own =
      c.myBlock >= 0 && c.rank < static_cast<int>(c.counts.size())
          ? c.counts[c.rank]
          : 0;
  switch (c.op) {
  case OpKind::AllGather:
    return (c.totalCount() - own) * es;
  case OpKind::Scatter:
    return c.rank == c.root ? 0 : own * es;
  case OpKind::Group:
    if (c.group.kind == SHARDRT_COLLECTIVE_REDUCE_SCATTER) {
      // Its piece from every other member's copy (the tables hold the
      // copies as replicas: the plan between them moves nothing).
      const int64_t g = static_cast<int64_t>(c.group.members.size());
      const int64_t piece = c.myDstBlock >= 0 ? c.dst.volumes[c.myDstBlock] : 0;
      return g > 1 ? (g - 1) * piece * es : 0;
    }
    if (c.group.kind == SHARDRT_COLLECTIVE_ALL_REDUCE) {
      if (c.group.members.size() < 2 || c.group.position.empty())
        return 0;
      const int64_t g = static_cast<int64_t>(c.group.members.size());
      return layout::ringAllReduceReceived(own, g, c.group.position[c.rank]) *
             es;
    }
    break;
  default:
    break;
  }
  return c.plan.receivedElements() * es;
}

std::atomic<int64_t> &bytesReceived() {
  static std::atomic<int64_t> total{0};
  return total;
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
            Check &&check, FlagOf &&flagOf, Run &&runOnBackend) {
  // A call that completes adds what this rank received to the count.
  auto run = [&](Collective &call, int flag) {
    int result = runOnBackend(call, flag);
    if (result == SHARDRT_SUCCESS) {
      // Calls are serialized: a plain add, no read-modify-write; what a
      // call receives is derived once, on its first run.
      if (call.received < 0)
        call.received = receivedBytes(call);
      std::atomic<int64_t> &total = bytesReceived();
      total.store(total.load(std::memory_order_relaxed) + call.received,
                  std::memory_order_relaxed);
    }
    return result;
  };
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
    // In small worlds the ranks agree in messages: in the call's own where
    // its data moves in tagged messages, else (a group collective, whose
    // data moves in MPI's collectives, or a call on CUDA buffers) in a
    // round of their own before it (agreeByFlags); either way a timeout
    // names the ranks not heard from.
    fresh->agreeInMessages = agreeMode().kind == AgreeMode::EveryCall &&
                             agreesInMessages(fresh->worldSize);
    fresh->callTag = fresh->checked ? messageTag(*fresh) : 0;
  }
  Collective &c = cached ? *cached : *fresh;
  CallKey<KeyWords> key;
  if (fresh && status == SHARDRT_SUCCESS)
    describe(key);
  const bool keep = fresh && status == SHARDRT_SUCCESS && key.ok;
  CallWatch watch(c, /*outlivesCall=*/cached || keep);
  // The world first: it also learns this rank's place on its node, which
  // picks its GPU (before, the first call's checks picked GPU 0 on every
  // rank).
  watchStep("creating the runtime's communicator (MPI_Comm_idup, which "
            "every rank joins in its first call)");
  MPI_Comm comm = worldComm(c.prefix);
  if (comm == MPI_COMM_NULL)
    return SHARDRT_ERROR_BACKEND;
  if (status == SHARDRT_SUCCESS)
    status = backendFor(c).checkBuffers(c, problem);
  if (keep)
    callCache().insert(
        std::move(key.sink.words), std::move(fresh),
        [](std::unique_ptr<Collective> &) { forgetWatchedCall(); });
  c.comm = comm;
  // Every rank that agreed starts here: a CUDA call's communicators are
  // made before any rank can return early for lack of data.
  // A failure of a CUDA call after this point is one that other ranks do
  // not share: the NCCL backend tells them (nccl::failedAfterAgreement).
  auto runAgreed = [&](Collective &agreed, const AgreedValues &values) {
    const Backend &backend = backendFor(agreed);
    int failed = backend.prepare(agreed, values.epoch);
    if (!failed)
      failed = run(agreed, values.flag);
    return failed ? backend.failedAfterAgreement(agreed, failed) : failed;
  };
  auto valuesOf = [&](const Collective &call) {
    AgreedValues values;
    if (status != SHARDRT_SUCCESS)
      return values;
    values.flag = flagOf(call);
    values.epoch = backendFor(call).epoch();
    return values;
  };
  if (!c.agreeInMessages) {
    AgreedValues values = valuesOf(c);
    if (int failed = agreeOrRecall(c, comm, status, problem, values))
      return failed;
    return runAgreed(c, values);
  }
  c.tag = status == SHARDRT_SUCCESS ? c.callTag : 0;
  int result = SHARDRT_SUCCESS;
  if (status == SHARDRT_SUCCESS && backendFor(c).dataCarriesAgreement(c)) {
    // The data's messages carry the agreement: every rank exchanges them,
    // also when none has data to send (the flag is then 1).
    result = run(c, 1);
  } else {
    AgreedValues values = valuesOf(c);
    result = agreeByFlags(c, values);
    if (result == SHARDRT_SUCCESS && status == SHARDRT_SUCCESS)
      return runAgreed(c, values);
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
        if (status == SHARDRT_SUCCESS)
          status = backendFor(c).checkOnce(c, problem);
        return status;
      },
      [](const Collective &) { return int64_t(0); },
      [&](const Collective &c, int64_t) {
        // Without data, only messages that carry the agreement move.
        if (c.totalCount() == 0 && !c.agreeInMessages)
          return static_cast<int>(SHARDRT_SUCCESS);
        const Backend &backend = backendFor(c);
        return op == OpKind::AllGather ? backend.allGather(c)
                                       : backend.scatter(c);
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
        if (status == SHARDRT_SUCCESS)
          status = backendFor(c).checkOnce(c, problem);
        return status;
      },
      // Whether this rank sends: the ranks learn whether any does; if none
      // does, every rank only copies locally.
      [](const Collective &c) { return int64_t(c.plan.sends.empty() ? 0 : 1); },
      [](Collective &c, int64_t sends) {
        c.plan.exchange = sends != 0;
        if (!c.plan.exchange && c.plan.copies.empty())
          return static_cast<int>(SHARDRT_SUCCESS);
        return backendFor(c).redistribute(c);
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
      [](Collective &c, int64_t) { return backendFor(c).groupCollective(c); });
}

} // namespace

} // namespace rt
} // namespace shardc

using namespace shardc::rt;

int64_t shardrt_bytes_received(void) { return bytesReceived().load(); }

int shardrt_group_collective(int32_t kind, const shardrt_tensor *src_local,
                             const shardrt_tensor *dst_local,
                             const int64_t *src_blocks, int64_t num_src,
                             const int64_t *dst_blocks, int64_t num_dst,
                             const int64_t *groups, int64_t num_members,
                             int64_t root, int32_t op) {
  return runGroupCollective(kind, src_local, dst_local, src_blocks, num_src,
                            dst_blocks, num_dst, groups, num_members, root, op);
}

namespace {

/// Whether two non-empty rows of a block table hold the same box (replicas).
/// Runs on every all_gather: the rows are sorted by box, on the stack for
/// tables of up to 16 rows (no allocation).
bool hasReplicas(const int64_t *blocks, int64_t numBlocks, int64_t rank) {
  if (!blocks || numBlocks <= 1 || rank < 0)
    return false;
  const int64_t cols = 1 + 2 * rank;
  auto box = [&](int64_t b) { return blocks + b * cols + 1; };
  auto empty = [&](int64_t b) {
    for (int64_t d = 0; d < rank; ++d)
      if (box(b)[rank + d] == 0)
        return true;
    return false;
  };
  auto less = [&](int64_t a, int64_t b) {
    return std::lexicographical_compare(box(a), box(a) + 2 * rank, box(b),
                                        box(b) + 2 * rank);
  };
  auto same = [&](int64_t a, int64_t b) {
    return std::equal(box(a), box(a) + 2 * rank, box(b));
  };
  int64_t onStack[16];
  std::vector<int64_t> onHeap;
  int64_t *rows = onStack;
  if (numBlocks > 16) {
    onHeap.resize(static_cast<size_t>(numBlocks));
    rows = onHeap.data();
  }
  int64_t n = 0;
  for (int64_t b = 0; b < numBlocks; ++b)
    if (!empty(b))
      rows[n++] = b;
  std::sort(rows, rows + n, less);
  for (int64_t i = 1; i < n; ++i)
    if (same(rows[i - 1], rows[i]))
      return true;
  return false;
}

} // namespace

int shardrt_exchange_to_world(const shardrt_tensor *local,
                              const shardrt_tensor *global,
                              const int64_t *blocks, int64_t num_blocks) {
  // The destination table: the whole tensor on every rank of the world,
  // known here only (the world's size is a run-time fact).
  if (!global || !global->sizes || global->rank < 0)
    return runCollective(OpKind::AllGather, local, global, blocks, num_blocks,
                         /*root=*/0); // reports the bad argument
  const int world = shardrt_world_size();
  if (world <= 0)
    return SHARDRT_ERROR_BACKEND;
  const int64_t rank = global->rank, cols = 1 + 2 * rank;
  std::vector<int64_t> whole(static_cast<size_t>(world) * cols, 0);
  for (int r = 0; r < world; ++r) {
    whole[r * cols] = r;
    for (int64_t d = 0; d < rank; ++d)
      whole[r * cols + 1 + rank + d] = global->sizes[d];
  }
  return shardrt_redistribute(local, global, blocks, num_blocks, whole.data(),
                              world);
}

int shardrt_all_gather(const shardrt_tensor *local,
                       const shardrt_tensor *global, const int64_t *blocks,
                       int64_t num_blocks) {
  // Direct callers may pass replicas (the compiler emits the exchange to the
  // world itself): an all_gather would send a replica's holder its own block.
  if (global && global->sizes && hasReplicas(blocks, num_blocks, global->rank))
    return shardrt_exchange_to_world(local, global, blocks, num_blocks);
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
  Result<RedistributionTables> tables = readRedistributionTables(
      srcBlocks, numSrc, dstBlocks, numDst, rankOfTensor, /*worldSize=*/0);
  if (!tables)
    return fail(SHARDRT_ERROR_INVALID_ARGUMENT, prefix + tables.error());
  Result<std::vector<int64_t>> indices =
      reduces ? readPartialIndices(partial, numSrc)
              : Result<std::vector<int64_t>>(std::vector<int64_t>());
  if (!indices)
    return fail(SHARDRT_ERROR_INVALID_ARGUMENT, prefix + indices.error());
  const int rank = static_cast<int>(processRank);
  const RedistributionPlan plan =
      reduces ? planReduction(tables->src, *indices, tables->dst, rank)
              : planRedistribution(tables->src, tables->dst, rank);
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
