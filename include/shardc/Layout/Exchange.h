//===- Exchange.h - Block tables and the plan of a redistribution -*- C++
//-*-===//
//
// Pure computations, no MPI, shared by the runtime (which executes the plan)
// and the compiler (which reports its traffic): reading and checking a block
// table, and one rank's part of a redistribution (the boxes of the global
// tensor it sends to each peer, receives from each peer, and copies from its
// source block into its destination block). Every rank computes its part from
// the same two tables, and the parts fit together because every rank makes the
// same choices.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LAYOUT_EXCHANGE_H
#define SHARDC_LAYOUT_EXCHANGE_H

#include "shardc/Layout/Layout.h"

#include <cstdint>
#include <string>
#include <vector>

namespace shardc {
namespace layout {

/// A checked block table.
struct BlockTable {
  /// Per block: its box, its owner and its number of elements.
  std::vector<Box> boxes;
  std::vector<int> owners;
  std::vector<int64_t> volumes;

  size_t size() const { return boxes.size(); }
  /// The block `rank` owns, or -1.
  int64_t blockOf(int rank) const;
  /// The smallest shape (of `rank` dims) that holds every non-empty block;
  /// zeros when there is none.
  std::vector<int64_t> extent(int64_t rank) const;
};

/// The table of checked blocks (each placement naming a rank that fits an
/// int, at most one block per rank: what the compiler's verifiers ensure).
BlockTable blockTableOf(const std::vector<Block> &blocks);

/// Reads `numBlocks` rows [owner, offsets[R], sizes[R]] of a table for a
/// tensor of rank R = `rank` and checks them: owners in [0, worldSize) (any
/// int when `worldSize` is 0), non-negative offsets and sizes, block ends and
/// volumes that int64 holds, at most one block per owner, and, when `shape`
/// is given, every block inside it. `what` names the table in messages: ""
/// ("block 3 ...") or "source " ("source block 3 ..."). On failure sets
/// `problem` and returns false.
bool readBlockTable(const int64_t *blocks, int64_t numBlocks, int64_t rank,
                    int64_t worldSize, const std::vector<int64_t> *shape,
                    const std::string &what, BlockTable &table,
                    std::string &problem);

/// Reads the source and destination tables of a redistribution of a tensor
/// of rank `rank` (readBlockTable), and checks that both span the same
/// extent.
bool readRedistributionTables(const int64_t *srcBlocks, int64_t numSrc,
                              const int64_t *dstBlocks, int64_t numDst,
                              int64_t rank, int64_t worldSize, BlockTable &src,
                              BlockTable &dst, std::string &problem);

/// A box of the global tensor that moves between this rank and `peer`.
struct Transfer {
  int peer = 0;
  Box box;
};

/// One rank's part of a redistribution.
struct RedistributionPlan {
  /// What this rank sends and receives, sorted by peer, and for one peer by
  /// destination block, then source group: the order in which they lie
  /// packed, alike on both sides.
  std::vector<Transfer> sends;
  std::vector<Transfer> receives;
  /// Boxes copied from this rank's source block into its destination block.
  std::vector<Box> copies;
  /// Whether any rank of the world sends anything (known once the ranks have
  /// agreed on the call; true until then).
  bool exchange = true;

  int64_t sentElements() const;
  int64_t receivedElements() const;
  int64_t copiedElements() const;
};

/// Plans rank `rank`'s part of moving a tensor from layout `src` to layout
/// `dst` (checked tables of the same tensor, at most one block per rank).
/// Source blocks with identical non-empty boxes are replicas of one group;
/// groups are numbered in the order of their first block. For every
/// non-empty destination block (owner q, box B) and every group G whose box
/// meets B: when q owns a block of G, q copies the intersection locally;
/// otherwise G's owner at index q mod |G| (owners in table order) sends it
/// to q.
RedistributionPlan planRedistribution(const BlockTable &src,
                                      const BlockTable &dst, int rank);

/// Per rank of a world of `worldSize`: the elements `transfers` (sorted by
/// peer) move with it, and where they start when packed one after the other
/// in that order. Returns the elements packed in all.
int64_t packedOffsets(const std::vector<Transfer> &transfers, int worldSize,
                      std::vector<int64_t> &counts,
                      std::vector<int64_t> &offsets);

} // namespace layout
} // namespace shardc

#endif // SHARDC_LAYOUT_EXCHANGE_H
