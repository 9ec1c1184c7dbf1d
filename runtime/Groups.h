//===- Groups.h - Splitting the world into groups of ranks ----------------===//
//
// A group collective runs on a communicator of each group of ranks. The key
// of a split (which ranks, in which order) names the communicator, so that
// splits alike share one, and describes the group in messages. Pure logic,
// without CUDA or MPI, so that it is tested everywhere.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_GROUPS_H
#define SHARDRT_GROUPS_H

#include <string>
#include <vector>

namespace shardc {
namespace rt {

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
