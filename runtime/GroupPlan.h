//===- GroupPlan.h - A group collective's pieces, for every backend -------===//
//
// What a shardrt_group_collective moves on this rank, worked out once from
// the checked call and kept with it: the pieces of its source block it sends
// and of its destination block it receives, in the order of its group's
// members, where each lies in its block, and whether the pieces can move
// straight from (or into) the blocks or go through a staging buffer. Both
// backends run from it (mpi/MpiGroups.cpp, nccl/NcclGroups.cpp); which
// native call a backend makes is chosen from `even`, which depends on the
// agreed tables only, never on this rank's strides.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_GROUPPLAN_H
#define SHARDRT_GROUPPLAN_H

#include "Runtime.h"

#include <memory>
#include <optional>
#include <vector>

namespace shardc {
namespace rt {

struct GroupPlan {
  struct Piece {
    /// The piece's box in the tensor (none: nothing moves), its element
    /// offset in its block's view and its number of elements.
    std::optional<layout::Box> box;
    int64_t offset = 0;
    int64_t count = 0;
    /// The copies between the piece in its view and a contiguous row-major
    /// buffer of it.
    std::shared_ptr<CopyPlan> toBuffer, fromBuffer;
  };
  /// all_gather: this rank's block, sent; every member's, received (the
  /// root's only, for gather). reduce_scatter: this rank's piece of every
  /// member's destination, sent; its own destination, received. all_reduce:
  /// the block, both ways. all_to_all: a piece to and from every member.
  /// broadcast: the root's block sent, the others' received.
  std::vector<Piece> sends, receives;
  /// Per entry of `sends` and `receives`: counts and element displacements,
  /// in the staging buffers or, when direct, in the blocks' views.
  /// all_gather and gather receive every member's block (recvCounts are
  /// their volumes); reduce_scatter's recvCounts are what every member
  /// receives (sendCounts).
  std::vector<int64_t> sendCounts, sendDispls, recvCounts, recvDispls;
  bool sendDirect = false, receiveDirect = false;
  /// all_gather: every member's block has as many elements;
  /// reduce_scatter: every member's destination does. From the agreed
  /// tables: every member sees the same.
  bool even = false;
  /// Elements staged, when not direct.
  int64_t sendStaged = 0, receiveStaged = 0;
  /// Broadcast on the root: the copy of its source block into its
  /// destination block.
  std::shared_ptr<CopyPlan> rootCopy;
  /// This rank's position in its group.
  int position = -1;
  /// What the MPI backend derives: the counts and displacements as MPI's
  /// ints (sendCounts, sendDispls, recvCounts, recvDispls).
  std::vector<int> mpiCounts[4];
};

/// Plans this rank's part of the checked group collective `c` (a member of
/// a group). A piece moves straight from or into its block when it is one
/// contiguous run there at an element offset of at most `maxOffset` (and
/// the pieces lie one after the other where the call needs it: the blocks
/// of an even all_gather, the pieces a reduce_scatter sends).
std::shared_ptr<GroupPlan> planGroup(const Collective &c, int64_t maxOffset);

/// The view of a piece in the view `block` of the block that holds it.
View pieceView(const View &block, const GroupPlan::Piece &piece,
               size_t elemSize);

} // namespace rt
} // namespace shardc

#endif // SHARDRT_GROUPPLAN_H
