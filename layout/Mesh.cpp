//===- Mesh.cpp - DTensor device meshes and placements --------------------===//

#include "shardc/Layout/Mesh.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace shardc {
namespace layout {

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

bool hasStrided(const std::vector<Placement> &placements) {
  return std::any_of(placements.begin(), placements.end(),
                     [](const Placement &p) {
                       return p.kind == Placement::Kind::StridedShard;
                     });
}

std::string formatPlacement(const Placement &p) {
  switch (p.kind) {
  case Placement::Kind::Shard:
    return "S(" + std::to_string(p.dim) + ")";
  case Placement::Kind::StridedShard:
    return "_S(" + std::to_string(p.dim) + ", " + std::to_string(p.split) + ")";
  case Placement::Kind::Replicate:
    return "R";
  case Placement::Kind::Partial:
    return std::string("P(") + reduceName(p.reduce) + ")";
  }
  return "?";
}

Result<Placement> parsePlacement(std::string_view text) {
  auto fail = [&](const std::string &why) -> Result<Placement> {
    return Failure{"invalid placement \"" + std::string(text) + "\": " + why +
                   "; expected 'S(<dim>)', '_S(<dim>, <split>)', 'R' or "
                   "'P(sum|avg|max|min|product)'"};
  };
  // An integer of int64's range, optionally negative (the IR's: what
  // export writes, import reads back); `big` where it has more.
  bool big = false;
  auto integer = [&](std::string_view digits) -> std::optional<int64_t> {
    big = false;
    if (digits.empty() ||
        (digits[0] != '-' && (digits[0] < '0' || digits[0] > '9')))
      return std::nullopt;
    int64_t value = 0;
    auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), value);
    big = error == std::errc::result_out_of_range &&
          end == digits.data() + digits.size();
    if (error != std::errc() || end != digits.data() + digits.size())
      return std::nullopt;
    return value;
  };
  auto notInteger = [&](const char *what, std::string_view digits,
                        const char *kind) {
    return fail(
        std::string("the ") + what + " '" + std::string(digits) + "' " +
        (big ? "does not fit in 64 bits" : std::string("is not ") + kind));
  };
  if (text == "R")
    return Placement::replicate();
  // DTensor's repr, "_StridedShard(dim=0, sf=2)" (older:
  // "split_factor=2"), read as "_S(0, 2)".
  std::string repr;
  if (text.size() > 14 && text.substr(0, 14) == "_StridedShard(" &&
      text.back() == ')') {
    std::string_view args = text.substr(14, text.size() - 15);
    auto field = [&](std::string_view name) -> std::string_view {
      size_t at = args.find(name);
      if (at == std::string_view::npos)
        return {};
      std::string_view rest = args.substr(at + name.size());
      return rest.substr(0, rest.find(','));
    };
    std::string_view dim = field("dim="), split = field("sf=");
    if (split.empty())
      split = field("split_factor=");
    if (dim.empty() || split.empty())
      return fail("a strided shard names its dim and split");
    repr = "_S(" + std::string(dim) + ", " + std::string(split) + ")";
    text = repr;
  }
  if (text.size() > 3 && text.substr(0, 3) == "_S(" && text.back() == ')') {
    std::string_view args = text.substr(3, text.size() - 4);
    size_t comma = args.find(',');
    if (comma == std::string_view::npos)
      return fail("a strided shard names its dim and split");
    std::string_view dim = args.substr(0, comma),
                     split = args.substr(comma + 1);
    while (!split.empty() && split.front() == ' ')
      split.remove_prefix(1);
    std::optional<int64_t> d = integer(dim);
    if (!d)
      return notInteger("dim", dim, "an integer");
    std::optional<int64_t> n = integer(split);
    if (!n)
      return notInteger("split", split, "a positive integer");
    if (*n < 1)
      return fail("the split '" + std::string(split) +
                  "' is not a positive integer");
    return Placement::strided(*d, *n);
  }
  if (text.size() < 4 || text[1] != '(' || text.back() != ')')
    return fail("not a placement");
  std::string_view arg = text.substr(2, text.size() - 3);
  if (text[0] == 'S') {
    std::optional<int64_t> dim = integer(arg);
    if (!dim)
      return notInteger("dim", arg, "an integer");
    return Placement::shard(*dim);
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
    if (p.cuts() && !normalizeDim(p.dim, tensorRank))
      return Failure{formatPlacement(p) + " on mesh axis " + std::to_string(a) +
                     " is out of range for a tensor of rank " +
                     std::to_string(tensorRank)};
    if (p.kind == Placement::Kind::StridedShard && p.split < 1)
      return Failure{formatPlacement(p) + " on mesh axis " + std::to_string(a) +
                     " splits its piece in " + std::to_string(p.split) +
                     " groups; a split is 1 or more"};
  }
  return {};
}

namespace {

/// The rows of `rows` at local positions [begin, begin + size), in order;
/// one empty interval at `end` when there are none.
std::vector<Chunk> selectRows(const std::vector<Chunk> &rows, int64_t begin,
                              int64_t size, int64_t end,
                              std::vector<Chunk> out = {}) {
  int64_t at = 0; // the local position of the current interval
  for (const Chunk &c : rows) {
    if (size <= 0)
      break;
    if (at + c.size > begin) {
      int64_t skip = begin - at;
      int64_t take = std::min(c.size - skip, size);
      Chunk piece{c.offset + skip, take};
      if (!out.empty() && out.back().size > 0 &&
          out.back().offset + out.back().size == piece.offset)
        out.back().size += take; // adjacent: one interval
      else
        out.push_back(piece);
      begin += take;
      size -= take;
    }
    at += c.size;
  }
  if (out.empty())
    out.push_back({end, 0});
  return out;
}

int64_t rowCount(const std::vector<Chunk> &rows) {
  int64_t n = 0;
  for (const Chunk &c : rows)
    n += c.size;
  return n;
}

/// Per dim, the rows the device at `coord` holds (meshRows). A StridedShard
/// cuts its piece into `split` groups by torch.chunk, then each group by
/// torch.chunk over the axis's devices, and the device holds its chunk of
/// every group, in order: DTensor's _StridedShard, checked against PyTorch
/// 2.11 (python/tests/test_torch_reference.py), uneven groups included.
std::vector<std::vector<Chunk>> rowsAt(const std::vector<int64_t> &shape,
                                       const Mesh &mesh,
                                       const std::vector<Placement> &placements,
                                       const std::vector<int64_t> &coord) {
  std::vector<std::vector<Chunk>> rows(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    rows[d] = {{0, shape[d]}};
  for (size_t a = 0; a < placements.size(); ++a) {
    const Placement &p = placements[a];
    if (!p.cuts())
      continue;
    const size_t d = static_cast<size_t>(*normalizeDim(p.dim, shape.size()));
    const int64_t piece = rowCount(rows[d]);
    const int64_t split = p.kind == Placement::Kind::StridedShard ? p.split : 1;
    // torch.chunk's groups: `step` rows each, the last one shorter, fewer
    // than `split` where the piece is short (offsets below the piece: no
    // overflow near 2^63).
    const int64_t step = chunkSplit(piece, split);
    const int64_t groups = step == 0 ? 0 : chunkSplit(piece, step);
    std::vector<Chunk> out;
    for (int64_t m = 0; m < groups; ++m) {
      const int64_t begin = step * m;
      const Chunk c =
          chunkOf(std::min(step, piece - begin), mesh.shape[a], coord[a]);
      if (c.size > 0)
        out = selectRows(rows[d], begin + c.offset, c.size, shape[d],
                         std::move(out));
    }
    if (out.empty())
      out.push_back({shape[d], 0});
    rows[d] = std::move(out);
  }
  return rows;
}

/// How many boxes rowBoxes gives for `rows`.
int64_t rowBoxCount(const std::vector<std::vector<Chunk>> &rows) {
  size_t last = rows.size();
  for (size_t d = 0; d < rows.size(); ++d) {
    if (rowCount(rows[d]) == 0)
      return 1;
    if (rows[d].size() > 1)
      last = d;
  }
  if (last == rows.size())
    return 1;
  int64_t n = static_cast<int64_t>(rows[last].size());
  for (size_t d = 0; d < last; ++d) {
    const int64_t count = rowCount(rows[d]);
    n = count > kMaxStridedBlocks / n ? kMaxStridedBlocks + 1 : n * count;
  }
  return n;
}

} // namespace

std::vector<std::vector<Chunk>>
meshRows(const std::vector<int64_t> &shape, const Mesh &mesh,
         const std::vector<Placement> &placements,
         const std::vector<int64_t> &coord) {
  // Placements unchecked against the shape reaching here are a defect of
  // the caller: stopped with the reason, never read as rows.
  if (Result<void> ok =
          checkPlacements(mesh, placements, static_cast<int64_t>(shape.size()));
      !ok) {
    std::fprintf(stderr,
                 "shardc: meshRows of placements not checked against the "
                 "shape: %s; please report this\n",
                 ok.error().c_str());
    std::abort();
  }
  return rowsAt(shape, mesh, placements, coord);
}

std::vector<std::vector<int64_t>> meshCoordinates(const Mesh &mesh) {
  std::vector<std::vector<int64_t>> out;
  forEachPosition(mesh, [&](int64_t, const std::vector<int64_t> &coord) {
    out.push_back(coord);
  });
  return out;
}

std::vector<std::pair<int64_t, std::vector<int64_t>>>
meshLocalShapes(const std::vector<int64_t> &shape, const Mesh &mesh,
                const std::vector<Placement> &placements) {
  std::vector<std::pair<int64_t, std::vector<int64_t>>> out;
  forEachPosition(mesh, [&](int64_t linear, const std::vector<int64_t> &c) {
    out.emplace_back(mesh.deviceAt(linear),
                     rowsShape(meshRows(shape, mesh, placements, c)));
  });
  return out;
}

std::vector<int64_t> rowsShape(const std::vector<std::vector<Chunk>> &rows) {
  std::vector<int64_t> sizes;
  for (const std::vector<Chunk> &r : rows)
    sizes.push_back(rowCount(r));
  return sizes;
}

std::vector<Box> rowBoxes(const std::vector<std::vector<Chunk>> &rows) {
  const size_t rank = rows.size();
  size_t last = rank;
  bool empty = false;
  for (size_t d = 0; d < rank; ++d) {
    empty |= rowCount(rows[d]) == 0;
    if (rows[d].size() > 1)
      last = d;
  }
  if (empty || last == rank) {
    // One box: its first interval's offset and every row held (an empty
    // device's box holds nothing; its rows lie in order from there).
    Box box;
    for (const std::vector<Chunk> &r : rows) {
      box.offsets.push_back(r.front().offset);
      box.sizes.push_back(rowCount(r));
    }
    return {box};
  }
  // Row-major: the dims before `last` a row at a time, then each interval
  // of `last`, then the dims after it whole (one interval each).
  std::vector<Box> boxes;
  std::vector<int64_t> index(last, 0); // per dim before `last`: its row
  std::vector<size_t> interval(last, 0);
  std::vector<int64_t> within(last, 0);
  while (true) {
    for (const Chunk &c : rows[last]) {
      Box box;
      for (size_t d = 0; d < rank; ++d) {
        if (d < last) {
          box.offsets.push_back(rows[d][interval[d]].offset + within[d]);
          box.sizes.push_back(1);
        } else if (d == last) {
          box.offsets.push_back(c.offset);
          box.sizes.push_back(c.size);
        } else {
          box.offsets.push_back(rows[d].front().offset);
          box.sizes.push_back(rows[d].front().size);
        }
      }
      boxes.push_back(std::move(box));
    }
    // The next row of the dims before `last`, the innermost first.
    size_t d = last;
    while (d-- > 0) {
      if (++within[d] < rows[d][interval[d]].size)
        break;
      within[d] = 0;
      if (++interval[d] < rows[d].size())
        break;
      interval[d] = 0;
    }
    if (d == static_cast<size_t>(-1))
      break;
  }
  return boxes;
}

Result<void> checkPlacements(const Mesh &mesh,
                             const std::vector<Placement> &placements,
                             const std::vector<int64_t> &shape) {
  Result<void> basic =
      checkPlacements(mesh, placements, static_cast<int64_t>(shape.size()));
  if (!basic || !hasStrided(placements))
    return basic;
  // A device holds at most min(split, rows) groups of each strided cut of a
  // dim: bounded before any device's rows are listed (a split near 2^63).
  std::vector<int64_t> groupsOf(shape.size(), 1);
  for (const Placement &p : placements) {
    if (p.kind != Placement::Kind::StridedShard)
      continue;
    const size_t d = static_cast<size_t>(*normalizeDim(p.dim, shape.size()));
    int64_t &g = groupsOf[d];
    const int64_t most = std::max<int64_t>(1, std::min(p.split, shape[d]));
    g = most > kMaxStridedBlocks / g ? kMaxStridedBlocks + 1 : g * most;
    if (g > kMaxStridedBlocks)
      return Failure{"the devices of " + formatList(mesh.shape) +
                     " would hold more than " +
                     std::to_string(kMaxStridedBlocks) +
                     " blocks of the strided layout"};
  }
  int64_t blocks = 0;
  std::string problem;
  forEachPosition(mesh, [&](int64_t, const std::vector<int64_t> &coord) {
    if (!problem.empty())
      return;
    blocks += rowBoxCount(rowsAt(shape, mesh, placements, coord));
    if (blocks > kMaxStridedBlocks)
      problem = "the devices of " + formatList(mesh.shape) +
                " would hold more than " + std::to_string(kMaxStridedBlocks) +
                " blocks of the strided layout";
  });
  if (!problem.empty())
    return Failure{problem};
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
      continue; // (StridedShard: meshRows)
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

/// The blocks of the mesh positions, in row-major order; without `replicas`
/// only the positions at coordinate 0 of every Replicate and Partial axis.
std::vector<Block> positionBlocks(const std::vector<int64_t> &shape,
                                  const Mesh &mesh,
                                  const std::vector<Placement> &placements,
                                  Device::Kind kind, bool replicas) {
  std::vector<Block> blocks;
  if (replicas)
    blocks.reserve(static_cast<size_t>(*mesh.size()));
  const bool strided = hasStrided(placements);
  forEachPosition(mesh, [&](int64_t linear, const std::vector<int64_t> &c) {
    for (size_t a = 0; a < placements.size() && !replicas; ++a)
      if (!placements[a].cuts() && c[a] != 0)
        return; // a replica (or another partial) of a block listed already
    if (strided) {
      for (Box &box : rowBoxes(meshRows(shape, mesh, placements, c))) {
        Block b;
        b.box = std::move(box);
        b.placement.rank = mesh.deviceAt(linear);
        b.placement.kind = kind;
        blocks.push_back(std::move(b));
      }
      return;
    }
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

std::vector<int64_t>
meshBlockPartialIndices(const std::vector<int64_t> &shape, const Mesh &mesh,
                        const std::vector<Placement> &placements) {
  std::vector<int64_t> perDevice = meshPartialIndices(mesh, placements);
  if (!hasStrided(placements))
    return perDevice;
  std::vector<int64_t> rows;
  forEachPosition(mesh, [&](int64_t linear, const std::vector<int64_t> &c) {
    const size_t blocks = rowBoxes(meshRows(shape, mesh, placements, c)).size();
    rows.insert(rows.end(), blocks, perDevice[static_cast<size_t>(linear)]);
  });
  return rows;
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
