//===- Exchange.h - Block tables and the plan of a redistribution -*- C++
//-*-===//
//
// Pure computations, no MPI, shared by the runtime (which executes the plan)
// and the compiler (which reports its traffic): reading and checking a block
// table, and one rank's part of a redistribution (the boxes of the global
// tensor it sends to each peer, receives from each peer, and copies from its
// source block into its destination block; for a source of partial values,
// also the order in which the contributions combine). Every rank computes its
// part from the same two tables, and the parts fit together because every rank
// makes the same choices.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LAYOUT_EXCHANGE_H
#define SHARDC_LAYOUT_EXCHANGE_H

#include "shardc/Layout/Layout.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
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
  /// Every block `rank` owns, in table order.
  std::vector<int64_t> blocksOf(int rank) const;
  /// The smallest shape (of `rank` dims) that holds every non-empty block;
  /// zeros when there is none.
  std::vector<int64_t> extent(int64_t rank) const;
};

/// The table of checked blocks (each placement naming a rank that fits an
/// int: what the compiler's verifiers ensure).
BlockTable blockTableOf(const std::vector<Block> &blocks);
/// The same, taking the boxes rather than copying them.
BlockTable blockTableOf(std::vector<Block> &&blocks);

/// Reads `numBlocks` rows [owner, offsets[R], sizes[R]] of a table for a
/// tensor of rank R = `rank` and checks them: owners in [0, worldSize) (any
/// int when `worldSize` is 0), non-negative offsets and sizes, block ends and
/// volumes that int64 holds, at most one block per owner (with
/// `severalPerRank`: any number, but one owner holds a non-empty box once),
/// and, when `shape` is given, every block inside it. `what` names the table
/// in messages: "" ("block 3 ...") or "source " ("source block 3 ...").
Result<BlockTable> readBlockTable(const int64_t *blocks, int64_t numBlocks,
                                  int64_t rank, int64_t worldSize,
                                  const std::vector<int64_t> *shape,
                                  const std::string &what,
                                  bool severalPerRank = false);

/// The two tables of a redistribution.
struct RedistributionTables {
  BlockTable src, dst;
};

/// Reads the source and destination tables of a redistribution of a tensor
/// of rank `rank` (readBlockTable, several blocks per rank allowed), and
/// checks that both span the same extent.
Result<RedistributionTables>
readRedistributionTables(const int64_t *srcBlocks, int64_t numSrc,
                         const int64_t *dstBlocks, int64_t numDst, int64_t rank,
                         int64_t worldSize);

/// A box of the global tensor that moves between this rank and `peer`, from
/// source block `srcBlock` (on the sender) to destination block `dstBlock`
/// (on the receiver), both indices in their tables.
struct Transfer {
  int peer = 0;
  Box box;
  int64_t srcBlock = -1;
  int64_t dstBlock = -1;

  bool operator==(const Transfer &other) const {
    return peer == other.peer && box == other.box;
  }
};

/// In a reduction, one contribution to this rank's destination block: a box
/// copied from its own source block (`copies[index]`) or received
/// (`receives[index]`), copied into the destination block when it is the
/// first contribution to its box, else reduced into it.
struct Contribution {
  bool received = false;
  size_t index = 0;
  bool reduce = false;

  bool operator==(const Contribution &other) const {
    return received == other.received && index == other.index &&
           reduce == other.reduce;
  }
};

/// In a reduction, a box of this rank's destination block that combines the
/// partial values of `count` (> 1) partial indices.
struct Combined {
  Box box;
  int64_t count = 0;
  /// The destination block it lies in.
  int64_t dstBlock = -1;

  bool operator==(const Combined &other) const {
    return box == other.box && count == other.count;
  }
};

/// One rank's part of a redistribution.
struct RedistributionPlan {
  /// What this rank sends and receives, sorted by peer, and for one peer by
  /// destination block, then source group and class: the order in which
  /// they lie packed, alike on both sides.
  std::vector<Transfer> sends;
  std::vector<Transfer> receives;
  /// Boxes copied from one of this rank's source blocks into one of its
  /// destination blocks, and those blocks (source, destination), alike.
  std::vector<Box> copies;
  std::vector<std::pair<int64_t, int64_t>> copyBlocks;
  /// Reductions only: the order in which `copies` and `receives` combine
  /// into the destination block (for one box, by ascending partial index,
  /// so that every rank combines the values of a box alike); empty when
  /// nothing is reduced on this rank, every contribution being copied.
  std::vector<Contribution> order;
  /// Reductions only: the boxes of the destination block that combine
  /// several partial indices (avg divides by their number); empty when
  /// `order` is.
  std::vector<Combined> combined;
  /// Whether any rank of the world sends anything (known once the ranks have
  /// agreed on the call; true until then).
  bool exchange = true;

  int64_t sentElements() const;
  int64_t receivedElements() const;
  int64_t copiedElements() const;
  /// Whether this rank reduces anything (`order` is not empty).
  bool reduces() const { return !order.empty(); }
};

/// Plans rank `rank`'s part of moving a tensor from layout `src` to layout
/// `dst` (checked tables of the same tensor; a rank may own several blocks
/// of either, each of its destination blocks planned on its own).
/// Source blocks with identical non-empty boxes are replicas of one group;
/// groups are numbered in the order of their first block. For every
/// non-empty destination block (owner q, box B) and every group G whose box
/// meets B: when q owns a block of G, q copies the intersection locally;
/// otherwise one owner of G sends it to q: G's receivers (destination blocks
/// meeting G whose owner holds no replica of it, in table order) are served
/// in turn by its owners (in table order), the k-th by owner k mod |G|.
RedistributionPlan planRedistribution(const BlockTable &src,
                                      const BlockTable &dst, int rank);

/// planRedistribution (`partial` null) or planReduction for several ranks of
/// one redistribution: the work that does not depend on the rank (grouping
/// the source blocks, indexing them) is done once. Keeps references to the
/// tables, which must outlive it.
class ExchangePlanner {
public:
  ExchangePlanner(const BlockTable &src, const std::vector<int64_t> *partial,
                  const BlockTable &dst);
  ~ExchangePlanner();
  /// Rank `rank`'s part.
  RedistributionPlan plan(int rank) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Reads the partial indices of a source table of `numSrc` rows: given (not
/// NULL) when there are rows, none negative.
Result<std::vector<int64_t>> readPartialIndices(const int64_t *partial,
                                                int64_t numSrc);

/// Plans rank `rank`'s part of a redistribution whose source holds partial
/// values (`partial`: one index per block of `src`, none negative): source
/// blocks with identical non-empty boxes form a group, and within it those
/// with the same `partial[block]` (a class) are replicas,
/// those with different ones partial values of the same elements. For every
/// non-empty destination block (owner q, box B), every group G whose box
/// meets B and every class C of G: when q owns a block of C, q copies the
/// intersection locally; otherwise an owner of C sends it to q, C's
/// receivers taking its owners in turn as in planRedistribution. q combines the
/// contributions of a box in ascending partial index: the first is copied, the
/// others reduced in (RedistributionPlan::order). Where every group has one
/// class this is planRedistribution (nothing reduced).
RedistributionPlan planReduction(const BlockTable &src,
                                 const std::vector<int64_t> &partial,
                                 const BlockTable &dst, int rank);

/// What one rank does in an exchange, in elements and peers.
struct RankTraffic {
  int64_t received = 0, sent = 0, copied = 0;
  /// The distinct ranks it receives from and sends to.
  int64_t receivePeers = 0, sendPeers = 0;

  RankTraffic &operator+=(const RankTraffic &o) {
    received += o.received;
    sent += o.sent;
    copied += o.copied;
    receivePeers += o.receivePeers;
    sendPeers += o.sendPeers;
    return *this;
  }
};

/// The traffic of some ranks, ascending by rank, each rank once: a flat
/// table (a plan of 16384 ranks keeps one per step and candidate).
class RankTrafficTable {
public:
  using Entry = std::pair<int, RankTraffic>;
  RankTrafficTable() = default;
  /// From entries in any order; a rank listed several times gets their sum.
  explicit RankTrafficTable(std::vector<Entry> entries);

  std::vector<Entry>::const_iterator begin() const { return entries.begin(); }
  std::vector<Entry>::const_iterator end() const { return entries.end(); }
  size_t size() const { return entries.size(); }
  bool empty() const { return entries.empty(); }
  /// Rank `r`'s entry, or null when it is not listed.
  const RankTraffic *find(int r) const;
  /// Rank `r`'s traffic, all zero when it is not listed.
  RankTraffic of(int r) const {
    const RankTraffic *t = find(r);
    return t ? *t : RankTraffic();
  }

private:
  std::vector<Entry> entries;
};

/// The traffic of every rank of planRedistribution (`partial` null) or
/// planReduction, computed for all ranks at once (what the per-rank plans
/// add up to, in time near linear in the blocks and their overlaps rather
/// than quadratic). Ranks that neither send, receive nor copy are left out.
/// When `pairs` is given, it receives the elements each (receiver, sender)
/// pair moves.
RankTrafficTable
exchangeTraffic(const BlockTable &src, const std::vector<int64_t> *partial,
                const BlockTable &dst,
                std::map<std::pair<int, int>, int64_t> *pairs = nullptr);

/// Which axes of a mesh the messages of an exchange cross, for
/// exchangeTrafficByBox to find without listing the pairs of ranks.
struct MeshAxesCrossed {
  /// The mesh's number of axes.
  size_t axes = 0;
  /// Writes rank `r`'s coordinates along the axes to `coords` (`axes` of
  /// them); false when `r` is not on the mesh.
  std::function<bool(int r, int64_t *coords)> coordinates;
  /// Out: per axis, whether a message crosses it (its ends' coordinates
  /// differ along it); whether a message has an end off the mesh. Found
  /// until every axis is crossed or an end is off the mesh, no further.
  std::vector<bool> crossed;
  bool offMesh = false;

  /// Whether nothing more can be learnt.
  bool settled() const;
};

/// How exchangeTrafficByBox adds up: the way that fits the tables (Fit),
/// or one of its two ways, for the tests that compare them.
enum class TrafficWay {
  Fit,
  /// By box groups, in time near linear in the blocks: any size.
  ByBox,
  /// Block by block over both tables, in flat arrays: tables of at most
  /// kMostBlocksPairByPair blocks each (a mesh of a few dozen devices, the
  /// whole-function search's thousands of moves between small layouts),
  /// where it costs a fraction of the groups' hash maps and indices.
  PairByPair,
};
constexpr size_t kMostBlocksPairByPair = 64;

/// exchangeTraffic (without `pairs`) for tables with at most one block per
/// rank on either side, every mesh layout's (nullopt for others), in time
/// near linear in the blocks and in the (destination box, source box) pairs
/// that meet, rather than in the pairs of ranks that exchange data (all N^2
/// of them for a gather to every rank, or for the exchange of N partial
/// copies, from N meeting boxes). Every pair moves data one way in one
/// message: receivePeers and sendPeers count the messages. Given `axes`, it
/// also says which mesh axes those messages cross. `way` PairByPair past
/// its size: nullopt.
std::optional<RankTrafficTable>
exchangeTrafficByBox(const BlockTable &src, const std::vector<int64_t> *partial,
                     const BlockTable &dst, MeshAxesCrossed *axes = nullptr,
                     TrafficWay way = TrafficWay::Fit);

/// The lower bound of a redistribution (`partial` null: no Partial values),
/// in elements (docs/planner.md), per rank and in all.
struct TrafficBound {
  /// Per rank with a destination block: what it must receive whatever the
  /// plan, for every destination element of it and the source group G of
  /// its box (its partial copies, C of them): 0 when C = 1 and q holds a
  /// copy; else 1 (the reduced value, or the others' sum where it holds a
  /// copy: other ranks may reduce for it, so no more than one element is
  /// its own to receive).
  std::map<int, long double> perRank;
  /// What all ranks receive together, whatever the plan: per destination
  /// element of rank q, 1 when q holds no copy, and (C + m - 2) / m when C
  /// > 1 and q holds one, m being the number of ranks holding a copy whose
  /// destination block contains the same intersection (combining C copies
  /// takes C - 1 transfers, and the m - 1 other holders that need the sum
  /// one each; what a reduce_scatter among the copies followed by an
  /// all_gather to the m receives, spread evenly). Never below the sum of
  /// `perRank`.
  long double total = 0;
};
TrafficBound trafficLowerBound(const BlockTable &src,
                               const std::vector<int64_t> *partial,
                               const BlockTable &dst);

/// Per rank of a world of `worldSize`: the elements `transfers` (sorted by
/// peer) move with it, and where they start when packed one after the other
/// in that order. Returns the elements packed in all.
int64_t packedOffsets(const std::vector<Transfer> &transfers, int worldSize,
                      std::vector<int64_t> &counts,
                      std::vector<int64_t> &offsets);

} // namespace layout
} // namespace shardc

#endif // SHARDC_LAYOUT_EXCHANGE_H
