//===- Mesh.h - DTensor device meshes and placements ------------*- C++ -*-===//
//
// DTensor's view of a sharding: an n-D mesh of devices and, per mesh axis, a
// placement: Shard(d), Replicate, or Partial(op). Plain C++, beside Layout.h.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LAYOUT_MESH_H
#define SHARDC_LAYOUT_MESH_H

#include "shardc/Layout/Layout.h"

namespace shardc {
namespace layout {

/// One mesh axis's placement.
///
/// Shard(d) and StridedShard(d, split) cut the rows of dim d the earlier
/// (outer) mesh axes left on a device, its piece, DTensor's left-to-right
/// order: Shard(d) takes its torch.chunk of the piece; StridedShard(d, split)
/// (DTensor's _StridedShard, printed `_S(d, split)`) cuts the piece into
/// `split` groups by torch.chunk and takes its torch.chunk of every group:
/// the heads of a [B*H] dim folded from [B, H] are `_S(0, B)`, each device
/// holding its heads of every batch; FSDP2 + TP's `[_S(0, tp), S(0)]` is
/// the dp cut of the tp pieces. Uneven groups and groups the devices do not
/// divide are cut as PyTorch 2.11 cuts them, element for element
/// (python/tests/test_torch_reference.py holds its answers; earlier
/// PyTorch releases may cut those differently).
/// A device's rows of a strided dim are several intervals, laid one after
/// the other in its local tensor (meshRows).
struct Placement {
  enum class Kind : uint8_t { Shard, Replicate, Partial, StridedShard };
  /// Partial's reduction.
  enum class Reduce : uint8_t { Sum, Avg, Max, Min, Product };
  Kind kind = Kind::Replicate;
  /// The tensor dim of Shard and StridedShard (may be negative: from the
  /// end).
  int64_t dim = 0;
  Reduce reduce = Reduce::Sum;
  /// StridedShard's number of groups (1 or more).
  int64_t split = 1;

  static Placement shard(int64_t dim) { return {Kind::Shard, dim, {}}; }
  static Placement strided(int64_t dim, int64_t split) {
    return {Kind::StridedShard, dim, {}, split};
  }
  static Placement replicate() { return {}; }
  static Placement partial(Reduce r) { return {Kind::Partial, 0, r}; }
  /// Whether it cuts a dim (Shard or StridedShard).
  bool cuts() const {
    return kind == Kind::Shard || kind == Kind::StridedShard;
  }
  bool operator==(const Placement &o) const {
    return kind == o.kind && (!cuts() || dim == o.dim) &&
           (kind != Kind::StridedShard || split == o.split) &&
           (kind != Kind::Partial || reduce == o.reduce);
  }
};

/// Whether any placement is a StridedShard.
bool hasStrided(const std::vector<Placement> &placements);

/// "sum", "avg", "max", "min", "product".
const char *reduceName(Placement::Reduce reduce);
std::optional<Placement::Reduce> parseReduce(std::string_view name);

/// DTensor's printed forms: "S(0)", "_S(0, 2)", "R", "P(sum)".
std::string formatPlacement(const Placement &placement);
/// Parses DTensor's printed forms (and its repr of a strided shard,
/// "_StridedShard(dim=0, sf=2)"); a failure quotes the string.
Result<Placement> parsePlacement(std::string_view text);

/// A device mesh: its shape and the device id (rank) at each coordinate, in
/// row-major order.
struct Mesh {
  std::vector<int64_t> shape;
  /// Empty means 0, 1, ..., size - 1.
  std::vector<int64_t> devices;

  /// The number of devices; nullopt on overflow.
  std::optional<int64_t> size() const { return volume(shape); }
  /// The device id at row-major position `linear`.
  int64_t deviceAt(int64_t linear) const {
    return devices.empty() ? linear : devices[linear];
  }
};

/// Whether two meshes have the same shape and devices (listed or not).
bool sameMesh(const Mesh &a, const Mesh &b);

/// The most devices a mesh may have: its blocks are materialized, one per
/// device, to be checked and lowered.
constexpr int64_t kMaxMeshDevices = int64_t(1) << 24;

/// Checks a mesh: positive sizes, at most kMaxMeshDevices devices, device ids
/// non-negative, unique, at most kMaxRank, and as many as the mesh has
/// positions (when given). A failure names the first problem.
Result<void> checkMesh(const Mesh &mesh);

/// Checks placements against a mesh and a tensor rank: one placement per
/// mesh axis, Shard and StridedShard dims in range, splits of 1 or more. A
/// failure names the first problem.
Result<void> checkPlacements(const Mesh &mesh,
                             const std::vector<Placement> &placements,
                             int64_t tensorRank);

/// The most blocks the devices of a layout with StridedShard placements may
/// hold in all (meshDeviceBlocks lists each device's intervals as blocks).
constexpr int64_t kMaxStridedBlocks = int64_t(1) << 22;

/// checkPlacements, then, where a StridedShard cuts: the devices hold at
/// most kMaxStridedBlocks blocks in all. A failure names the mesh.
Result<void> checkPlacements(const Mesh &mesh,
                             const std::vector<Placement> &placements,
                             const std::vector<int64_t> &shape);
/// A braced shape (`{rows}`) would take the overload of a rank above, which
/// checks no strided piece (a crash once followed): refused at compile
/// time. Pass std::vector<int64_t>{...}.
Result<void> checkPlacements(const Mesh &mesh,
                             const std::vector<Placement> &placements,
                             std::initializer_list<int64_t> shape) = delete;

/// Per dim, the rows the device at mesh coordinate `coord` holds: intervals
/// of the dim in increasing order, laid one after the other in its local
/// tensor (several only where a StridedShard cuts the dim; a device holding
/// no row of a dim holds one empty interval at the dim's end, as DTensor
/// places empty chunks). Placements must be checked against `shape`.
std::vector<std::vector<Chunk>>
meshRows(const std::vector<int64_t> &shape, const Mesh &mesh,
         const std::vector<Placement> &placements,
         const std::vector<int64_t> &coord);

/// The boxes of the rows `rows` (meshRows) in the order the local tensor
/// lays them row-major: one box where every dim is one interval; else the
/// dims before the last one of several intervals are taken a row at a time.
std::vector<Box> rowBoxes(const std::vector<std::vector<Chunk>> &rows);

/// The local tensor's shape of `rows`: per dim, the rows held.
std::vector<int64_t> rowsShape(const std::vector<std::vector<Chunk>> &rows);

/// Every mesh coordinate, in row-major mesh order.
std::vector<std::vector<int64_t>> meshCoordinates(const Mesh &mesh);

/// Every device's rank and local shape (rowsShape of its meshRows), in
/// row-major mesh order. Placements must be checked against `shape`.
std::vector<std::pair<int64_t, std::vector<int64_t>>>
meshLocalShapes(const std::vector<int64_t> &shape, const Mesh &mesh,
                const std::vector<Placement> &placements);

/// The box the device at mesh coordinate `coord` holds, with DTensor's
/// semantics: each Shard(d) axis chunks dim d as torch.chunk does; several
/// axes sharding one dim nest, the outer (lower) mesh axis first; Replicate
/// and Partial axes leave the dim whole. Placements must be checked and
/// hold no StridedShard (a device holds several boxes then: meshRows).
Box meshBox(const std::vector<int64_t> &shape, const Mesh &mesh,
            const std::vector<Placement> &placements,
            const std::vector<int64_t> &coord);

/// Every device's block, replicas included, in row-major mesh order; each
/// placement is the device's rank on `kind`. Under StridedShard placements
/// a device holds several blocks, listed in the order its local tensor lays
/// them (rowBoxes).
std::vector<Block> meshDeviceBlocks(const std::vector<int64_t> &shape,
                                    const Mesh &mesh,
                                    const std::vector<Placement> &placements,
                                    Device::Kind kind);

/// The distinct blocks: the device blocks without replicas, each held by the
/// first device (in mesh order) that holds its box: coordinate 0 along every
/// Replicate and Partial axis.
std::vector<Block> meshBlocks(const std::vector<int64_t> &shape,
                              const Mesh &mesh,
                              const std::vector<Placement> &placements,
                              Device::Kind kind);

/// Per device, in row-major mesh order (the order of meshDeviceBlocks): which
/// partial copy it holds, numbering the coordinates along the Partial axes
/// row-major. Devices that differ only along Replicate axes hold the same
/// index (replicas); all 0 without Partial axes.
std::vector<int64_t>
meshPartialIndices(const Mesh &mesh, const std::vector<Placement> &placements);

/// meshPartialIndices per row of meshDeviceBlocks: a device's index once
/// per block it holds (several under StridedShard placements, which must
/// be checked against `shape`).
std::vector<int64_t>
meshBlockPartialIndices(const std::vector<int64_t> &shape, const Mesh &mesh,
                        const std::vector<Placement> &placements);

/// The reduction of the Partial axes: nullopt without any; sets `mixed` when
/// two Partial axes reduce differently (DTensor allows it; shardc does not
/// plan it yet).
std::optional<Placement::Reduce>
partialReduce(const std::vector<Placement> &placements, bool &mixed);

} // namespace layout
} // namespace shardc

#endif // SHARDC_LAYOUT_MESH_H
