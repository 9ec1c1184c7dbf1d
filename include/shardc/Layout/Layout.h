//===- Layout.h - The one implementation of layout arithmetic ---*- C++ -*-===//
//
// Chunk sizes, boxes, intersections, device strings and spec checking, with
// PyTorch's semantics (torch.chunk, ShardMetadata, _remote_device). This
// library depends on the C++ standard library only, so that the verifiers,
// the passes, the tools, the runtime and the benchmarks all use this one copy.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LAYOUT_LAYOUT_H
#define SHARDC_LAYOUT_LAYOUT_H

#include "shardc/Layout/Result.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardc {
namespace layout {

//===----------------------------------------------------------------------===//
// Chunking (torch.chunk)
//===----------------------------------------------------------------------===//

/// One chunk of a dimension: where it starts and how many elements it holds.
struct Chunk {
  int64_t offset = 0;
  int64_t size = 0;
};

/// torch.chunk's split size: ceil(n / k). Requires n >= 0 and k > 0.
int64_t chunkSplit(int64_t n, int64_t k);

/// Chunk `i` of `k` of a dimension of `n` elements: offset split*i, size
/// clamp(n - split*i, 0, split). Trailing chunks may be empty, and then their
/// offset may lie past the end (n=5, k=4: the last chunk is at 6, size 0).
Chunk chunkOf(int64_t n, int64_t k, int64_t i);

/// All `k` chunks of a dimension of `n` elements.
std::vector<Chunk> chunks(int64_t n, int64_t k);

/// Maps a possibly negative dim (counting from the end) into [0, rank);
/// nullopt when out of range.
std::optional<int64_t> normalizeDim(int64_t dim, int64_t rank);

//===----------------------------------------------------------------------===//
// Boxes
//===----------------------------------------------------------------------===//

/// An axis-aligned box of a tensor: per dim, an offset and a size.
struct Box {
  std::vector<int64_t> offsets;
  std::vector<int64_t> sizes;

  size_t rank() const { return sizes.size(); }
  /// A box with a zero size in any dim holds nothing.
  bool empty() const;
  bool operator==(const Box &other) const {
    return offsets == other.offsets && sizes == other.sizes;
  }
};

/// The number of elements of a shape; nullopt on int64 overflow or a
/// negative size.
std::optional<int64_t> volume(const std::vector<int64_t> &sizes);

/// The box shared by `a` and `b`, or nullopt when they share no element.
/// Empty boxes share nothing with anything.
std::optional<Box> intersect(const Box &a, const Box &b);

/// Whether `a` and `b` share an element: intersect(a, b) has a value, without
/// building the box.
bool overlaps(const Box &a, const Box &b);

/// The number of elements `a` and `b` share: 0 when they share none, nullopt
/// on int64 overflow.
std::optional<int64_t> intersectionVolume(const Box &a, const Box &b);

/// Whether non-empty `box` lies inside `shape`. Empty boxes lie anywhere.
bool fitsIn(const Box &box, const std::vector<int64_t> &shape);

/// Merges disjoint boxes of one rank that touch along one dim and agree in
/// all others (offsets [0, 0], sizes [1, 4] and offsets [1, 0], sizes [2, 4]
/// become offsets [0, 0], sizes [3, 4]), until no two do. The boxes cover the
/// same elements as before; their order is unspecified.
void mergeBoxes(std::vector<Box> &boxes);

/// "[1, 2, 3]".
std::string formatList(const std::vector<int64_t> &values);

/// "(offsets [0, 0], sizes [5, 10])".
std::string formatBox(const Box &box);

//===----------------------------------------------------------------------===//
// Devices (PyTorch's _remote_device)
//===----------------------------------------------------------------------===//

/// The largest rank a placement may name: MPI ranks are C ints.
constexpr int64_t kMaxRank = 2147483647;

/// The most ranks an MPI world may have: its size is a C int too.
constexpr int64_t kMaxWorldSize = 2147483647;

/// Checks a world size a user gives (a tool's or a pass's option): whether it
/// can be the size of an MPI world (1 to kMaxWorldSize) holding rank
/// `largestRank` (the largest rank the layouts name; -1 for none). A failure
/// is the rest of a sentence that starts with the option's name: "must be
/// between 1 and 2147483647 (...), got 0", "is 2 but the layouts name rank 3
/// (...)".
Result<void> checkWorldSize(int64_t worldSize, int64_t largestRank = -1);

/// A device placement: an optional rank, a device kind, an optional index.
/// Worker names (PyTorch's "<workername>/<device>") are not supported: an SPMD
/// program knows ranks, not RPC worker names.
struct Device {
  enum class Kind : uint8_t { CPU, CUDA };
  /// -1 when the string names no rank ("cuda:0", "cpu").
  int64_t rank = -1;
  Kind kind = Kind::CPU;
  /// -1 when the device has no index ("cpu", "cuda").
  int64_t index = -1;

  bool hasRank() const { return rank >= 0; }
  bool operator==(const Device &other) const {
    return rank == other.rank && kind == other.kind && index == other.index;
  }
  bool operator!=(const Device &other) const { return !(*this == other); }
};

/// Parses "rank:0/cuda:0", "rank:1" (device cpu, as PyTorch), "cuda:0", "cpu",
/// "rank:0/cpu". A failure quotes the string.
Result<Device> parseDevice(std::string_view text);

/// The canonical form, as PyTorch's str(_remote_device): "rank:1/cpu",
/// "rank:0/cuda:0", "cuda:0", "cpu".
std::string formatDevice(const Device &device);

//===----------------------------------------------------------------------===//
// Blocks and spec checking
//===----------------------------------------------------------------------===//

/// A block of a sharded tensor (PyTorch's ShardMetadata).
struct Block {
  Box box;
  Device placement;
};

/// The blocks of a chunk spec: placement `i` holds chunk `i` of `dim` (which
/// must be normalized and in range); other dims are whole.
std::vector<Block> chunkBlocks(const std::vector<int64_t> &shape, int64_t dim,
                               const std::vector<Device> &placements);

/// One problem found by checkBlocks.
struct Problem {
  enum class Kind : uint8_t {
    NoBlocks,     ///< the list is empty
    Inconsistent, ///< offsets and sizes differ in length
    RankMismatch, ///< block rank differs from tensor rank
    Negative,     ///< negative offset or size
    Overflow,     ///< offset + size overflows int64
    Exceeds,      ///< block not inside the shape
    Overlap,      ///< two blocks share elements
    NotCovered,   ///< the blocks do not cover the shape (volume summary)
    Gap,          ///< one box of the shape that no block covers
  };
  Kind kind;
  /// The block concerned (and the other one, for overlaps); -1 if none.
  int64_t block = -1;
  int64_t other = -1;
  /// The overlapping box of an Overlap, the uncovered box of a Gap.
  std::optional<Box> box;
  /// Full message naming the block(s) by index with offsets and sizes.
  std::string message;
};

/// What checkBlocks found.
struct CheckResult {
  /// At most `maxProblems` problems, in a deterministic order.
  std::vector<Problem> problems;
  /// The total number of overlapping pairs (also those not listed).
  int64_t overlapCount = 0;
  /// The number of elements of the shape that no block covers; only computed
  /// when no two blocks overlap.
  int64_t uncoveredCount = 0;
  /// The number of disjoint boxes the uncovered elements were described by
  /// (also those not listed); -1 when they were not all enumerated (too
  /// many, or no room left to list any).
  int64_t gapBoxCount = 0;
  bool ok() const { return problems.empty(); }
};

/// Checks blocks against a tensor shape: same rank everywhere, non-negative
/// offsets and sizes of equal length, every non-empty block inside the shape,
/// no two blocks overlapping, the blocks covering the shape, a non-empty list.
///
/// Structural problems (rank, sign, bounds) are reported first, in block
/// order; overlap and coverage are only checked when there are none.
/// Overlapping pairs are all counted, and the first `maxProblems` in (lower
/// index, higher index) order are listed with the box they share. Without
/// overlaps, a coverage problem is one NotCovered summary with the volumes,
/// followed by the uncovered region as disjoint Gap boxes in offset order.
///
/// Cost: a sweep along one dim over a tree of the active blocks ordered by
/// the other dims; O(n log n) for partitions of 2-D tensors, output-sensitive
/// in the number of overlapping pairs. Gaps are found by splitting the shape
/// at block boundaries; the work grows with the number of gap boxes, which
/// is bounded. Messages are built for listed problems only.
CheckResult checkBlocks(const std::vector<int64_t> &shape,
                        const std::vector<Block> &blocks,
                        size_t maxProblems = 16);

} // namespace layout
} // namespace shardc

#endif // SHARDC_LAYOUT_LAYOUT_H
