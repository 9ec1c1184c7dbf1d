//===- Groups.h - Redistributions that are collectives within groups ------===//
//
// A redistribution between block tables is, in general, a set of transfers
// (grouped send/recv). Some are a native collective within groups of ranks,
// which NCCL runs faster on a communicator of each group: a partial ->
// replicate over a mesh axis is an all-reduce within every group of ranks that
// hold the same box. Pure layout logic, without CUDA, so that it is tested
// everywhere.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_GROUPS_H
#define SHARDRT_GROUPS_H

#include "shardc/Layout/Exchange.h"

#include <optional>
#include <string>
#include <vector>

namespace shardc {
namespace rt {

/// The groups of a grouped all-reduce, when reducing `src` (with
/// `partial`, one index per source row) into `dst` is one: every rank holds
/// at most one block of each table, the same non-empty box in both, and the
/// ranks that hold a box hold distinct partial indices (no replicas), so
/// that each destination element is the reduction over the ranks of its
/// box. Per world rank: its group's color (the lowest rank of the group),
/// or -1 for a rank that holds nothing. nullopt otherwise.
std::optional<std::vector<int>>
groupedAllReduce(const layout::BlockTable &src,
                 const std::vector<int64_t> &partial,
                 const layout::BlockTable &dst, int worldSize);

/// The key of a split of the world's ranks into groups by `colors` (-1: in
/// none), ordered within each group by `keys` (ties by rank): per rank, two
/// entries: its group, numbered in the order the groups first appear (-1:
/// none), and its place in its group. Colors and keys that split the world
/// alike have the same key.
std::vector<int> splitKey(const std::vector<int> &colors,
                          const std::vector<int> &keys);

/// From a splitKey: "world" when `rank`'s group is every rank in rank
/// order, else "group of ranks [2, 0]" (its ranks in their order).
std::string describeGroup(const std::vector<int> &splitKey, int rank);

} // namespace rt
} // namespace shardc

#endif // SHARDRT_GROUPS_H
