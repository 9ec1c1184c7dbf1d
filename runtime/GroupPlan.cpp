//===- GroupPlan.cpp - A group collective's pieces, for every backend -----===//

#include "GroupPlan.h"

#include <algorithm>

namespace shardc {
namespace rt {

namespace {

using MaybeBox = std::optional<layout::Box>;

/// The piece `part` of a block `box` held in `view` (none when either is
/// none).
GroupPlan::Piece pieceOf(const View &view, const MaybeBox &box,
                         const MaybeBox &part, size_t elemSize) {
  GroupPlan::Piece p;
  p.count = box ? volumeOf(part) : 0;
  if (p.count == 0)
    return p;
  p.box = part;
  std::vector<int64_t> rel(part->offsets.size());
  for (size_t d = 0; d < rel.size(); ++d)
    rel[d] = part->offsets[d] - box->offsets[d];
  p.offset = linearOffset(rel, view.strides);
  std::vector<int64_t> packed = rowMajorStrides(part->sizes);
  p.toBuffer =
      std::make_shared<CopyPlan>(part->sizes, view.strides, packed, elemSize);
  p.fromBuffer =
      std::make_shared<CopyPlan>(part->sizes, packed, view.strides, elemSize);
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
std::vector<int64_t> prefixSums(const std::vector<int64_t> &counts,
                                int64_t &total) {
  std::vector<int64_t> displs(counts.size(), 0);
  total = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    displs[k] = total;
    total += counts[k];
  }
  return displs;
}

std::vector<int64_t> countsOf(const std::vector<GroupPlan::Piece> &pieces) {
  std::vector<int64_t> out;
  for (const GroupPlan::Piece &p : pieces)
    out.push_back(p.count);
  return out;
}

/// Whether the non-empty pieces lie one after the other in their view.
bool consecutive(const std::vector<GroupPlan::Piece> &pieces) {
  int64_t at = -1;
  for (const GroupPlan::Piece &p : pieces) {
    if (p.count == 0)
      continue;
    if (at >= 0 && p.offset != at)
      return false;
    at = p.offset + p.count;
  }
  return true;
}

bool allEqual(const std::vector<int64_t> &v) {
  return !v.empty() &&
         std::all_of(v.begin(), v.end(), [&](int64_t n) { return n == v[0]; });
}

} // namespace

View pieceView(const View &block, const GroupPlan::Piece &piece,
               size_t elemSize) {
  View view;
  view.data = block.data + piece.offset * static_cast<int64_t>(elemSize);
  view.sizes = piece.box ? piece.box->sizes : std::vector<int64_t>{};
  view.strides = block.strides;
  return view;
}

std::shared_ptr<GroupPlan> planGroup(const Collective &c, int64_t maxOffset) {
  const GroupCall &g = c.group;
  auto plan = std::make_shared<GroupPlan>();
  const int me = c.rank;
  plan->position = me < int(g.position.size()) ? g.position[me] : -1;
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
        plan->rootCopy = std::make_shared<CopyPlan>(
            mySrc->sizes, c.local.strides, c.dstLocal.strides, c.elemSize);
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
  plan->sendCounts = countsOf(plan->sends);
  plan->recvCounts = countsOf(plan->receives);
  if (g.kind == SHARDRT_COLLECTIVE_ALL_GATHER ||
      g.kind == SHARDRT_COLLECTIVE_GATHER) {
    // Every member receives (the root, for gather) each member's block.
    plan->recvCounts.clear();
    for (int r : g.members)
      plan->recvCounts.push_back(volumeOf(src(r)));
  }
  // What each member receives is what this rank sends it.
  if (g.kind == SHARDRT_COLLECTIVE_REDUCE_SCATTER)
    plan->recvCounts = plan->sendCounts;
  plan->even = (g.kind == SHARDRT_COLLECTIVE_ALL_GATHER ||
                g.kind == SHARDRT_COLLECTIVE_REDUCE_SCATTER) &&
               allEqual(plan->recvCounts);
  // Direct where every piece is one contiguous run in its block.
  auto allContiguous = [&](const std::vector<GroupPlan::Piece> &pieces) {
    for (const GroupPlan::Piece &p : pieces)
      if (!contiguous(p, c.elemSize) || p.offset < 0 || p.offset > maxOffset)
        return false;
    return true;
  };
  plan->sendDirect = allContiguous(plan->sends);
  // A reduce_scatter's pieces are one buffer in member order.
  if (g.kind == SHARDRT_COLLECTIVE_REDUCE_SCATTER && !consecutive(plan->sends))
    plan->sendDirect = false;
  plan->receiveDirect = allContiguous(plan->receives);
  // An even all_gather lays the blocks one after another: where they do not
  // lie so in this rank's destination, it receives into staging (a local
  // choice; the call stays the same).
  if (plan->receiveDirect && plan->even &&
      g.kind == SHARDRT_COLLECTIVE_ALL_GATHER) {
    for (size_t k = 1; k < plan->receives.size(); ++k)
      if (plan->receives[k].offset !=
          plan->receives[0].offset + int64_t(k) * plan->recvCounts[0])
        plan->receiveDirect = false;
  }
  int64_t total = 0;
  if (plan->sendDirect) {
    for (const GroupPlan::Piece &p : plan->sends)
      plan->sendDispls.push_back(p.offset);
  } else {
    plan->sendDispls = prefixSums(plan->sendCounts, total);
    plan->sendStaged = total;
  }
  if (plan->receiveDirect) {
    for (const GroupPlan::Piece &p : plan->receives)
      plan->recvDispls.push_back(p.offset);
  } else {
    plan->recvDispls = prefixSums(countsOf(plan->receives), total);
    plan->receiveStaged = total;
  }
  return plan;
}

} // namespace rt
} // namespace shardc
