//===- PairwisePort.h - PyTorch's pairwise spec check, as a baseline -*- C++
//-*-===//
//
// A C++ port of how PyTorch validates an enumerable spec, for the benchmark
// to compare against: `validate_non_overlapping_shards_metadata` tests every
// pair of shards with `_check_shard_metadata_pair_overlap` (quadratic), then
// `check_tensor` compares ranks, bounds and the sum of the shard volumes
// with the tensor volume. A baseline only: the product uses checkBlocks.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_BENCH_PAIRWISEPORT_H
#define SHARDC_BENCH_PAIRWISEPORT_H

#include "shardc/Layout/Layout.h"

#include <string>
#include <vector>

namespace shardc {
namespace bench {

/// Runs PyTorch's checks on `blocks` for `shape` in PyTorch's order and
/// returns the first error's text (PyTorch raises ValueError there), or ""
/// when the spec is valid.
std::string pytorchPairwiseCheck(const std::vector<int64_t> &shape,
                                 const std::vector<layout::Block> &blocks);

} // namespace bench
} // namespace shardc

#endif // SHARDC_BENCH_PAIRWISEPORT_H
