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
struct Placement {
  enum class Kind : uint8_t { Shard, Replicate, Partial };
  /// Partial's reduction.
  enum class Reduce : uint8_t { Sum, Avg, Max, Min, Product };
  Kind kind = Kind::Replicate;
  /// The tensor dim of Shard (may be negative: from the end).
  int64_t dim = 0;
  Reduce reduce = Reduce::Sum;

  static Placement shard(int64_t dim) { return {Kind::Shard, dim, {}}; }
  static Placement replicate() { return {}; }
  static Placement partial(Reduce r) { return {Kind::Partial, 0, r}; }
  bool operator==(const Placement &o) const {
    return kind == o.kind && (kind != Kind::Shard || dim == o.dim) &&
           (kind != Kind::Partial || reduce == o.reduce);
  }
};

/// "sum", "avg", "max", "min", "product".
const char *reduceName(Placement::Reduce reduce);
std::optional<Placement::Reduce> parseReduce(std::string_view name);

/// DTensor's printed forms: "S(0)", "R", "P(sum)".
std::string formatPlacement(const Placement &placement);
/// Parses DTensor's printed forms; a failure quotes the string.
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
/// mesh axis and Shard dims in range. A failure names the first problem.
Result<void> checkPlacements(const Mesh &mesh,
                             const std::vector<Placement> &placements,
                             int64_t tensorRank);

/// The box the device at mesh coordinate `coord` holds, with DTensor's
/// semantics: each Shard(d) axis chunks dim d as torch.chunk does; several
/// axes sharding one dim nest, the outer (lower) mesh axis first; Replicate
/// and Partial axes leave the dim whole. Placements must be checked.
Box meshBox(const std::vector<int64_t> &shape, const Mesh &mesh,
            const std::vector<Placement> &placements,
            const std::vector<int64_t> &coord);

/// Every device's block, replicas included, in row-major mesh order; each
/// placement is the device's rank on `kind`.
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

/// The reduction of the Partial axes: nullopt without any; sets `mixed` when
/// two Partial axes reduce differently (DTensor allows it; shardc does not
/// plan it yet).
std::optional<Placement::Reduce>
partialReduce(const std::vector<Placement> &placements, bool &mixed);

} // namespace layout
} // namespace shardc

#endif // SHARDC_LAYOUT_MESH_H
