//===- Describe.h - Layouts and plans for people ----------------*- C++ -*-===//
//
// A layout and the plan of a redistribution as a person reads them: layouts
// in words ("(S(0), R) on mesh [2, 2]"), each step of the plan with what each
// rank receives and sends, the bytes against the lower bound, the modelled
// time and the candidates (shard-plan's output, docs/planner.md); and a
// layout drawn as a grid of the ranks that hold each block, as JAX's
// visualize_array_sharding and DTensor's visualize_sharding draw them.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PLANNING_DESCRIBE_H
#define SHARDC_PLANNING_DESCRIBE_H

#include "shardc/Dialect/Shard.h"
#include "shardc/Planning/ShardPlanner.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace shardc {
namespace planning {

/// "f32[8, 6]".
std::string tensorText(ShardedTensorType type);

/// A layout in words: "(S(0), R) on mesh [2, 2]", "chunks of dim 1 on ranks
/// [0, 1]", "3 blocks on ranks [0, 1, 2]", "the whole tensor on rank:0/cpu".
std::string describeLayout(ShardedTensorType type);

/// "48 B", "1.5 KiB", "2.0 GiB".
std::string bytesText(int64_t bytes);
/// "12.5 us", "3.20 ms", "1.05 s".
std::string timeText(double us);

/// The cost model in words: "nvlink", "infiniband with alpha-us", "topology
/// T.json, a link per mesh axis; slowest". `optionPrefix` goes before each
/// option's name ("--" for a tool).
std::string costModelText(const PlanningOptions &options,
                          const Topology &topology,
                          llvm::StringRef optionPrefix = "");

struct WordsOptions {
  /// The ranks the plan covers (ShardPlanner::cost's `ranks`).
  int64_t ranks = 0;
  /// How many ranks get a line per step; the others are counted.
  int64_t ranksListed = 64;
  /// The cost model in words (costModelText).
  std::string costModel;
};

/// Prints the plan of `from` -> `to` that `planner` chooses, in words: the
/// layouts, each step with every listed rank's part, the bytes received
/// against the lower bound, the modelled time and the candidates.
void printPlan(llvm::raw_ostream &os, ShardPlanner &planner,
               ShardedTensorType from, ShardedTensorType to,
               const WordsOptions &options);

/// A grid cell's label of the ranks holding it, ascending: "0-3,8,10-11",
/// or "N ranks" past 11 characters.
std::string ranksLabel(const std::vector<int> &ranks);

/// Draws `type` (1-D or 2-D; others are named as not drawable) as a grid:
/// a cell per region between the blocks' edges, labelled with the ranks
/// that hold it ("0-3,8"; "*" marks partial values). Returns the lines.
std::vector<std::string> drawLayout(ShardedTensorType type);

/// Draws `from` and `to` side by side, each under its description.
void printLayouts(llvm::raw_ostream &os, ShardedTensorType from,
                  ShardedTensorType to);

} // namespace planning
} // namespace shardc

#endif // SHARDC_PLANNING_DESCRIBE_H
