//===- Mesh.cpp - DTensor device meshes and placements --------------------===//

#include "shardc/Layout/Mesh.h"

#include <algorithm>
#include <set>

namespace shardc {
namespace layout {

namespace {
constexpr const char *kReduceNames[] = {"sum", "avg", "max", "min", "product"};
} // namespace

const char *reduceName(Placement::Reduce reduce) {
  return kReduceNames[static_cast<int>(reduce)];
}

std::optional<Placement::Reduce> parseReduce(std::string_view name) {
  for (int i = 0; i < 5; ++i)
    if (name == kReduceNames[i])
      return static_cast<Placement::Reduce>(i);
  return std::nullopt;
}

std::string formatPlacement(const Placement &p) {
  switch (p.kind) {
  case Placement::Kind::Shard:
    return "S(" + std::to_string(p.dim) + ")";
  case Placement::Kind::Replicate:
    return "R";
  case Placement::Kind::Partial:
    return std::string("P(") + reduceName(p.reduce) + ")";
  }
  return "?";
}

Result<Placement> parsePlacement(std::string_view text) {
  auto fail = [&](const std::string &why) -> Result<Placement> {
    return Failure{
        "invalid placement \"" + std::string(text) + "\": " + why +
        "; expected 'S(<dim>)', 'R' or 'P(sum|avg|max|min|product)'"};
  };
  if (text == "R")
    return Placement::replicate();
  if (text.size() < 4 || text[1] != '(' || text.back() != ')')
    return fail("not a placement");
  std::string_view arg = text.substr(2, text.size() - 3);
  if (text[0] == 'S') {
    bool negative = !arg.empty() && arg[0] == '-';
    std::string_view digits = negative ? arg.substr(1) : arg;
    if (digits.empty() || digits.size() > 18 ||
        !std::all_of(digits.begin(), digits.end(),
                     [](char c) { return c >= '0' && c <= '9'; }))
      return fail("the dim '" + std::string(arg) + "' is not an integer");
    int64_t dim = std::stoll(std::string(digits));
    return Placement::shard(negative ? -dim : dim);
  }
  if (text[0] == 'P') {
    std::optional<Placement::Reduce> r = parseReduce(arg);
    if (!r)
      return fail("'" + std::string(arg) + "' is not a reduction");
    return Placement::partial(*r);
  }
  return fail("not a placement");
}

Result<void> checkMesh(const Mesh &mesh) {
  for (size_t a = 0; a < mesh.shape.size(); ++a)
    if (mesh.shape[a] <= 0)
      return Failure{"mesh axis " + std::to_string(a) + " has size " +
                     std::to_string(mesh.shape[a]) +
                     "; sizes must be positive"};
  std::optional<int64_t> size = mesh.size();
  if (!size || *size > kMaxMeshDevices)
    return Failure{"the mesh " + formatList(mesh.shape) +
                   " has too many devices (at most " +
                   std::to_string(kMaxMeshDevices) + ")"};
  if (mesh.devices.empty())
    return {};
  if (static_cast<int64_t>(mesh.devices.size()) != *size)
    return Failure{"the mesh " + formatList(mesh.shape) + " has " +
                   std::to_string(*size) + " positions but " +
                   std::to_string(mesh.devices.size()) + " device ids"};
  std::set<int64_t> seen;
  for (size_t i = 0; i < mesh.devices.size(); ++i) {
    int64_t d = mesh.devices[i];
    if (d < 0 || d > kMaxRank)
      return Failure{"device id " + std::to_string(d) + " at position " +
                     std::to_string(i) + " is not a rank (0 to " +
                     std::to_string(kMaxRank) + ")"};
    if (!seen.insert(d).second)
      return Failure{"device id " + std::to_string(d) +
                     " appears twice in the mesh"};
  }
  return {};
}

Result<void> checkPlacements(const Mesh &mesh,
                             const std::vector<Placement> &placements,
                             int64_t tensorRank) {
  if (placements.size() != mesh.shape.size())
    return Failure{std::to_string(placements.size()) +
                   " placements for a mesh of rank " +
                   std::to_string(mesh.shape.size()) +
                   "; DTensor needs one per mesh axis"};
  for (size_t a = 0; a < placements.size(); ++a) {
    const Placement &p = placements[a];
    if (p.kind == Placement::Kind::Shard && !normalizeDim(p.dim, tensorRank))
      return Failure{formatPlacement(p) + " on mesh axis " + std::to_string(a) +
                     " is out of range for a tensor of rank " +
                     std::to_string(tensorRank)};
  }
  return {};
}

Box meshBox(const std::vector<int64_t> &shape, const Mesh &mesh,
            const std::vector<Placement> &placements,
            const std::vector<int64_t> &coord) {
  Box box;
  box.offsets.assign(shape.size(), 0);
  box.sizes = shape;
  // Outer mesh axes first: each Shard(d) chunks what the previous ones left.
  for (size_t a = 0; a < placements.size(); ++a) {
    const Placement &p = placements[a];
    if (p.kind != Placement::Kind::Shard)
      continue;
    int64_t d = *normalizeDim(p.dim, shape.size());
    Chunk c = chunkOf(box.sizes[d], mesh.shape[a], coord[a]);
    // DTensor (compute_local_shape_and_global_offset) puts an empty chunk at
    // the tensor's end, global_shape[d], also where Shard(d) nests (where
    // ChunkShardingSpec puts it at split * i).
    box.offsets[d] = c.size == 0 ? shape[d] : box.offsets[d] + c.offset;
    box.sizes[d] = c.size;
  }
  return box;
}

namespace {

/// Calls `fn(linear, coord)` for every mesh position in row-major order.
template <typename Fn> void forEachPosition(const Mesh &mesh, Fn fn) {
  int64_t size = *mesh.size();
  std::vector<int64_t> coord(mesh.shape.size(), 0);
  for (int64_t linear = 0; linear < size; ++linear) {
    fn(linear, coord);
    for (size_t a = coord.size(); a-- > 0;) {
      if (++coord[a] < mesh.shape[a])
        break;
      coord[a] = 0;
    }
  }
}

} // namespace

namespace {

/// The blocks of the mesh positions, in row-major order; without `replicas`
/// only the positions at coordinate 0 of every Replicate and Partial axis.
std::vector<Block> positionBlocks(const std::vector<int64_t> &shape,
                                  const Mesh &mesh,
                                  const std::vector<Placement> &placements,
                                  Device::Kind kind, bool replicas) {
  std::vector<Block> blocks;
  if (replicas)
    blocks.reserve(static_cast<size_t>(*mesh.size()));
  forEachPosition(mesh, [&](int64_t linear, const std::vector<int64_t> &c) {
    for (size_t a = 0; a < placements.size() && !replicas; ++a)
      if (placements[a].kind != Placement::Kind::Shard && c[a] != 0)
        return; // a replica (or another partial) of a block listed already
    Block b;
    b.box = meshBox(shape, mesh, placements, c);
    b.placement.rank = mesh.deviceAt(linear);
    b.placement.kind = kind;
    blocks.push_back(std::move(b));
  });
  return blocks;
}

} // namespace

std::vector<Block> meshDeviceBlocks(const std::vector<int64_t> &shape,
                                    const Mesh &mesh,
                                    const std::vector<Placement> &placements,
                                    Device::Kind kind) {
  return positionBlocks(shape, mesh, placements, kind, /*replicas=*/true);
}

std::vector<Block> meshBlocks(const std::vector<int64_t> &shape,
                              const Mesh &mesh,
                              const std::vector<Placement> &placements,
                              Device::Kind kind) {
  return positionBlocks(shape, mesh, placements, kind, /*replicas=*/false);
}

std::vector<int64_t>
meshPartialIndices(const Mesh &mesh, const std::vector<Placement> &placements) {
  std::vector<int64_t> indices;
  forEachPosition(mesh, [&](int64_t, const std::vector<int64_t> &c) {
    int64_t index = 0;
    for (size_t a = 0; a < placements.size(); ++a)
      if (placements[a].kind == Placement::Kind::Partial)
        index = index * mesh.shape[a] + c[a];
    indices.push_back(index);
  });
  return indices;
}

std::optional<Placement::Reduce>
partialReduce(const std::vector<Placement> &placements, bool &mixed) {
  mixed = false;
  std::optional<Placement::Reduce> reduce;
  for (const Placement &p : placements) {
    if (p.kind != Placement::Kind::Partial)
      continue;
    if (reduce && *reduce != p.reduce)
      mixed = true;
    reduce = p.reduce;
  }
  return reduce;
}

bool sameMesh(const Mesh &a, const Mesh &b) {
  if (a.shape != b.shape)
    return false;
  if (a.devices.empty() && b.devices.empty())
    return true; // both 0, 1, ..., size - 1
  int64_t n = a.size().value_or(0);
  for (int64_t i = 0; i < n; ++i)
    if (a.deviceAt(i) != b.deviceAt(i))
      return false;
  return true;
}

} // namespace layout
} // namespace shardc
