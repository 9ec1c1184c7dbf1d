//===- ShardTypes.cpp - The sharded tensor type ---------------------------===//

#include "shardc/Dialect/Shard.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>
#include <set>

using namespace mlir;
using namespace shardc;

/// `4x8x` (the trailing x included; empty for a 0-D tensor).
static ParseResult parseDimensionList(AsmParser &parser,
                                      SmallVector<int64_t> &shape) {
  return parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                   /*withTrailingX=*/true);
}

static void printDimensionList(AsmPrinter &printer, ArrayRef<int64_t> shape) {
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d))
      printer << '?';
    else
      printer << d;
    printer << 'x';
  }
}

ParseResult shardc::parseSpecRef(AsmParser &parser,
                                 ShardingSpecAttrInterface &spec) {
  SMLoc loc = parser.getCurrentLocation();
  Attribute attr;
  if (parser.parseAttribute(attr))
    return failure();
  spec = dyn_cast<ShardingSpecAttrInterface>(attr);
  if (!spec)
    return parser.emitError(loc)
           << "expected a sharding spec (#shard.chunk, #shard.enumerable, "
              "#shard.placements or #shard.device_placement), got "
           << attr;
  return success();
}

void shardc::printSpecRef(AsmPrinter &printer, ShardingSpecAttrInterface spec) {
  printer << Attribute(spec);
}

#define GET_TYPEDEF_CLASSES
#include "shardc/Dialect/ShardTypes.cpp.inc"

void ShardDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "shardc/Dialect/ShardTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// ShardedTensorType
//===----------------------------------------------------------------------===//

std::vector<int64_t> shardc::layoutShape(ArrayRef<int64_t> dims,
                                         int64_t extent) {
  std::vector<int64_t> shape(dims.begin(), dims.end());
  for (int64_t &d : shape)
    if (ShapedType::isDynamic(d))
      d = extent;
  return shape;
}

std::string shardc::formatDims(ArrayRef<int64_t> dims) {
  std::string text = "[";
  for (size_t d = 0; d < dims.size(); ++d)
    text += (d ? ", " : "") + (ShapedType::isDynamic(dims[d])
                                   ? std::string("?")
                                   : std::to_string(dims[d]));
  return text + "]";
}

LogicalResult
ShardedTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                          ArrayRef<int64_t> dims, Type elementType,
                          ShardingSpecAttrInterface spec) {
  for (int64_t d : dims)
    if (d < 0 && !ShapedType::isDynamic(d))
      return emitError() << "sharded tensor dims must be non-negative or "
                            "dynamic ('?'), got "
                         << formatDims(dims);
  if (!isShardedElementType(elementType))
    return emitError() << "invalid element type " << elementType
                       << " for a sharded tensor";
  if (!spec)
    return emitError() << "a sharded tensor needs a sharding spec";
  const std::vector<int64_t> shape = layoutShape(dims);
  std::vector<layout::Block> blocks;
  if (failed(spec.getBlocks(shape, emitError, blocks)) ||
      failed(verifyBlocks(shape, blocks, emitError)))
    return failure();
  if (!ShapedType::isDynamicShape(dims))
    return success();
  // Mesh Shard placements cut a dynamic dim by torch.chunk's formula on its
  // run-time extent (dynamicDimCuts); no other layout may cut one.
  if (auto placements = dyn_cast<PlacementsSpecAttr>(spec)) {
    std::vector<layout::Placement> list(placements.getPlacements().begin(),
                                        placements.getPlacements().end());
    if (!layout::hasStrided(list))
      return success();
    // A strided shard of a dynamic dim: its groups' sizes are not known
    // before it runs.
    for (const layout::Placement &p : list)
      if (p.kind == layout::Placement::Kind::StridedShard)
        if (std::optional<int64_t> d =
                layout::normalizeDim(p.dim, static_cast<int64_t>(dims.size()));
            d && ShapedType::isDynamic(dims[*d]))
          return emitError()
                 << "dim " << *d << " of " << formatDims(dims)
                 << " is dynamic, but " << layout::formatPlacement(p)
                 << " cuts it strided; only Shard placements cut a dynamic "
                    "dim (by torch.chunk on its run-time extent): give the "
                    "dim a static size or cut it with S("
                 << *d << ")";
  }
  // Any other layout: a dynamic dim must be whole in every block, whatever
  // its size: checked at two extents (a block of fixed size that happens to
  // equal one of them is no whole dim).
  for (int64_t extent : {kNominalDynamicExtent, kNominalDynamicExtent + 1}) {
    std::vector<layout::Block> at;
    if (failed(spec.getBlocks(layoutShape(dims, extent), emitError, at)))
      return failure();
    for (size_t i = 0; i < at.size(); ++i)
      for (size_t d = 0; d < dims.size(); ++d) {
        const layout::Box &box = at[i].box;
        if (!ShapedType::isDynamic(dims[d]) ||
            (box.offsets[d] == 0 && box.sizes[d] == extent))
          continue;
        return emitError()
               << "dim " << d << " of " << formatDims(dims)
               << " is dynamic, but the layout cuts it (block #" << i
               << " holds " << box.sizes[d] << " of its elements at offset "
               << box.offsets[d] << " when it has " << extent
               << "); only a mesh layout's Shard placements "
                  "(#shard.placements) cut a dynamic dim, by torch.chunk on "
                  "its run-time extent: cut a static dim, give the dim a "
                  "static size or use a mesh layout";
      }
  }
  return success();
}

std::vector<int64_t> ShardedTensorType::getLayoutShape() const {
  return layoutShape(getDims());
}

std::vector<layout::Block> ShardedTensorType::getBlocks() const {
  std::vector<layout::Block> blocks;
  MLIRContext *ctx = getContext();
  (void)getSpec().getBlocks(
      getLayoutShape(), [&] { return mlir::emitError(UnknownLoc::get(ctx)); },
      blocks);
  return blocks;
}

std::vector<layout::Block> ShardedTensorType::getDeviceBlocks() const {
  std::vector<layout::Block> blocks;
  MLIRContext *ctx = getContext();
  (void)getSpec().getDeviceBlocks(
      getLayoutShape(), [&] { return mlir::emitError(UnknownLoc::get(ctx)); },
      blocks);
  return blocks;
}

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// How many problems one diagnostic lists (the first as the error, the
/// others as notes); the total of overlapping pairs is always given.
static constexpr size_t kMaxReportedProblems = 8;

LogicalResult
shardc::verifyBlocks(ArrayRef<int64_t> shape,
                     const std::vector<layout::Block> &blocks,
                     function_ref<InFlightDiagnostic()> emitError) {
  layout::CheckResult result =
      layout::checkBlocks(std::vector<int64_t>(shape.begin(), shape.end()),
                          blocks, kMaxReportedProblems);
  if (result.ok())
    return success();
  InFlightDiagnostic diag = emitError();
  diag << "invalid sharding of tensor "
       << layout::formatList({shape.begin(), shape.end()}) << ": "
       << result.problems.front().message;
  int64_t listedOverlaps = 0;
  for (const layout::Problem &p : result.problems) {
    if (p.kind == layout::Problem::Kind::Overlap)
      ++listedOverlaps;
    if (&p != &result.problems.front())
      diag.attachNote() << p.message;
  }
  if (result.overlapCount > listedOverlaps)
    diag.attachNote() << result.overlapCount
                      << " overlapping pairs of blocks in total";
  return diag;
}

/// Whether a rank owns several of `blocks`.
static bool severalPerRank(const std::vector<layout::Block> &blocks) {
  std::set<int64_t> owners;
  for (const layout::Block &b : blocks)
    if (b.placement.hasRank() && !owners.insert(b.placement.rank).second)
      return true;
  return false;
}

std::vector<int64_t> shardc::holdingRanks(ShardedTensorType type) {
  std::set<int64_t> ranks;
  for (const layout::Block &b : type.getDeviceBlocks())
    if (b.placement.hasRank())
      ranks.insert(b.placement.rank);
  return {ranks.begin(), ranks.end()};
}

bool shardc::severalPerRank(ShardedTensorType type) {
  return typeFacts(type).severalPerRank;
}

const TypeFacts &shardc::typeFacts(ShardedTensorType type) {
  return cast<ShardDialect>(type.getDialect()).factsOf(type);
}

/// Per rank owning some of `blocks`: the elements of all its blocks.
static std::map<int64_t, int64_t>
elementsPerRank(const std::vector<layout::Block> &blocks) {
  std::map<int64_t, int64_t> total;
  for (const layout::Block &b : blocks)
    total[b.placement.rank] += layout::volume(b.box.sizes).value_or(0);
  return total;
}

RankedTensorType shardc::getLocalType(ShardedTensorType type) {
  return typeFacts(type).localType;
}

std::optional<std::vector<std::pair<int64_t, std::vector<int64_t>>>>
shardc::stridedLocalShapes(ShardedTensorType type) {
  auto spec = dyn_cast<PlacementsSpecAttr>(type.getSpec());
  if (!spec)
    return std::nullopt;
  std::vector<layout::Placement> placements(spec.getPlacements().begin(),
                                            spec.getPlacements().end());
  if (!layout::hasStrided(placements))
    return std::nullopt;
  return layout::meshLocalShapes(type.getLayoutShape(),
                                 spec.getMesh().getMesh(), placements);
}

/// getLocalType's answer from the device blocks.
static RankedTensorType localTypeOf(ShardedTensorType type,
                                    const std::vector<layout::Block> &blocks) {
  if (auto strided = stridedLocalShapes(type)) {
    // The rank's rows of every dim, laid row-major: the local tensor.
    SmallVector<int64_t> shape(strided->front().second.begin(),
                               strided->front().second.end());
    for (const auto &[rank, local] : *strided)
      for (size_t d = 0; d < shape.size(); ++d)
        if (local[d] != shape[d] || type.isDynamicDim(d))
          shape[d] = ShapedType::kDynamic;
    return RankedTensorType::get(shape, type.getElementType());
  }
  if (::severalPerRank(blocks)) {
    // The rank's blocks packed one after the other, in table order.
    std::map<int64_t, int64_t> total = elementsPerRank(blocks);
    int64_t size = total.begin()->second;
    for (auto [rank, n] : total)
      if (n != size || !type.hasStaticShape())
        size = ShapedType::kDynamic;
    return RankedTensorType::get({size}, type.getElementType());
  }
  // A dynamic dim, whole or cut at run time: dynamic locally.
  SmallVector<int64_t> shape(type.getDims());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (type.isDynamicDim(d))
      continue;
    for (const layout::Block &b : blocks)
      if (b.box.sizes[d] != blocks.front().box.sizes[d])
        shape[d] = ShapedType::kDynamic;
    if (!blocks.empty() && shape[d] != ShapedType::kDynamic)
      shape[d] = blocks.front().box.sizes[d];
  }
  return RankedTensorType::get(shape, type.getElementType());
}

/// Whether every one of a type's device blocks names a rank (verifyLocalView).
static LogicalResult
verifyRanksNamed(const std::vector<layout::Block> &blocks,
                 function_ref<InFlightDiagnostic()> emitError) {
  for (size_t i = 0; i < blocks.size(); ++i) {
    const layout::Device &d = blocks[i].placement;
    if (!d.hasRank())
      return emitError() << "block #" << i << " is placed on \""
                         << layout::formatDevice(d)
                         << "\", which names no rank; a local view needs "
                            "'rank:<N>/<device>' placements";
  }
  return success();
}

TypeFacts shardc::detail::computeTypeFacts(ShardedTensorType type) {
  std::vector<layout::Block> blocks = type.getDeviceBlocks();
  TypeFacts facts;
  facts.localType = localTypeOf(type, blocks);
  facts.ranksNamed = llvm::all_of(
      blocks, [](const layout::Block &b) { return b.placement.hasRank(); });
  facts.severalPerRank = ::severalPerRank(blocks);
  if (auto spec = dyn_cast<PlacementsSpecAttr>(type.getSpec()))
    facts.rowsPacked = facts.severalPerRank &&
                       layout::hasStrided({spec.getPlacements().begin(),
                                           spec.getPlacements().end()});
  if (!blocks.empty() && llvm::all_of(blocks, [&](const layout::Block &b) {
        return b.placement.kind == blocks.front().placement.kind;
      }))
    facts.kind = blocks.front().placement.kind;
  return facts;
}

LogicalResult
shardc::verifyLocalType(ShardedTensorType type, RankedTensorType local,
                        StringRef what,
                        function_ref<InFlightDiagnostic()> emitError) {
  if (local.getElementType() != type.getElementType())
    return emitError() << what << " element type " << local.getElementType()
                       << " does not match the sharded tensor's "
                       << type.getElementType();
  // Only the run time knows how many elements a rank holds of a dynamic dim.
  const TypeFacts &facts = typeFacts(type);
  if (!type.hasStaticShape() && local.getRank() == facts.localType.getRank())
    for (int64_t d = 0; d < local.getRank(); ++d)
      if (facts.localType.isDynamicDim(d) && !local.isDynamicDim(d) &&
          (facts.severalPerRank || type.isDynamicDim(d)))
        return emitError() << what << " dim " << d << " is static ("
                           << local.getDimSize(d) << ") but the sharded tensor "
                           << formatDims(type.getDims())
                           << " is dynamic there; make it dynamic ('?')";
  // The common case from the kept facts: a local type that agrees with the
  // one every block fits (a static dim where the blocks agree on it).
  if (facts.ranksNamed && local.getRank() == facts.localType.getRank() &&
      (facts.severalPerRank || local.getRank() == type.getRank())) {
    bool fits = true;
    for (int64_t d = 0; d < local.getRank(); ++d)
      fits &= local.isDynamicDim(d) ||
              local.getDimSize(d) == facts.localType.getDimSize(d);
    if (fits)
      return success();
  }
  // The device blocks, computed once for both checks.
  std::vector<layout::Block> blocks = type.getDeviceBlocks();
  if (failed(verifyRanksNamed(blocks, emitError)))
    return failure();
  if (auto strided = stridedLocalShapes(type)) {
    // Each rank's rows of every dim (strided shards), laid row-major.
    if (local.getRank() != type.getRank())
      return emitError() << what << " has rank " << local.getRank()
                         << " but the sharded tensor has rank "
                         << type.getRank()
                         << " (a rank's rows of a strided dim lie one after "
                            "the other along it)";
    for (const auto &[rank, shape] : *strided)
      for (int64_t d = 0; d < local.getRank(); ++d)
        if (!local.isDynamicDim(d) && local.getDimSize(d) != shape[d])
          return emitError()
                 << what << " dim " << d << " is static ("
                 << local.getDimSize(d) << ") but rank " << rank << " holds "
                 << shape[d] << " rows of it; make it dynamic ('?')";
    return success();
  }
  if (::severalPerRank(blocks)) {
    // Several blocks per rank: packed in a 1-D tensor.
    if (local.getRank() != 1)
      return emitError() << what << " has rank " << local.getRank()
                         << " but a rank owns several blocks of the sharded "
                            "tensor: its local view packs them in a 1-D "
                            "tensor";
    if (local.isDynamicDim(0))
      return success();
    for (auto [rank, n] : elementsPerRank(blocks))
      if (n != local.getDimSize(0))
        return emitError() << what << " has " << local.getDimSize(0)
                           << " elements but the blocks of rank " << rank
                           << " hold " << n << "; make it dynamic ('?')";
    return success();
  }
  if (local.getRank() != type.getRank())
    return emitError() << what << " has rank " << local.getRank()
                       << " but the sharded tensor has rank " << type.getRank();
  for (size_t i = 0; i < blocks.size(); ++i) {
    const layout::Block &b = blocks[i];
    for (int64_t d = 0; d < local.getRank(); ++d) {
      if (local.isDynamicDim(d) || local.getDimSize(d) == b.box.sizes[d])
        continue;
      return emitError() << what << " dim " << d << " is static ("
                         << local.getDimSize(d) << ") but block #" << i << " "
                         << layout::formatBox(b.box) << " has size "
                         << b.box.sizes[d] << " in it; make it dynamic ('?')";
    }
  }
  return success();
}

LogicalResult
shardc::verifyLocalView(ShardedTensorType type,
                        function_ref<InFlightDiagnostic()> emitError) {
  if (typeFacts(type).ranksNamed)
    return success();
  return verifyRanksNamed(type.getDeviceBlocks(), emitError);
}

bool shardc::isShardedElementType(Type type) {
  return isa<IntegerType, FloatType, IndexType, ComplexType>(type);
}

int64_t shardc::elementBytes(Type type) {
  if (auto complex = dyn_cast<ComplexType>(type))
    return 2 * elementBytes(complex.getElementType());
  if (type.isIndex())
    return 8;
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

LogicalResult
shardc::verifyPlannable(ShardedTensorType type,
                        function_ref<InFlightDiagnostic()> emitError) {
  if (failed(verifyLocalView(type, emitError)))
    return failure();
  std::optional<int64_t> elements = layout::volume(type.getLayoutShape());
  int64_t bytes = 0;
  if (!elements || __builtin_mul_overflow(
                       *elements, elementBytes(type.getElementType()), &bytes))
    return emitError() << "the tensor holds more than 2^63 - 1 bytes ("
                       << (elements ? std::to_string(*elements)
                                    : std::string("more than 2^63 - 1"))
                       << " elements of " << type.getElementType()
                       << "), which no byte count of a plan can hold";
  return success();
}

PlacementsSpecAttr shardc::withoutPartial(PlacementsSpecAttr layout) {
  if (!layout.hasPartial())
    return layout;
  std::vector<layout::Placement> placements(layout.getPlacements().begin(),
                                            layout.getPlacements().end());
  for (layout::Placement &p : placements)
    if (p.kind == layout::Placement::Kind::Partial)
      p = layout::Placement::replicate();
  return PlacementsSpecAttr::get(layout.getContext(), layout.getMesh(),
                                 placements);
}

ShardedTensorType shardc::wholeOnRank(ShardedTensorType type, int64_t rank) {
  layout::Device device;
  device.rank = rank;
  device.kind = type.getBlocks().front().placement.kind;
  MLIRContext *ctx = type.getContext();
  return ShardedTensorType::get(
      ctx, type.getDims(), type.getElementType(),
      DevicePlacementSpecAttr::get(ctx, DeviceAttr::get(ctx, device)));
}

//===----------------------------------------------------------------------===//
// Layouts of ordinary tensors
//===----------------------------------------------------------------------===//

LogicalResult
shardc::verifyLayoutOf(Type type, ShardingSpecAttrInterface spec,
                       function_ref<InFlightDiagnostic()> emitError) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return emitError() << "a layout annotates a ranked tensor, not " << type;
  // Checked once per context: a layout's blocks are computed to check it.
  auto *dialect = type.getContext()->getLoadedDialect<ShardDialect>();
  if (dialect && spec && dialect->layoutVerified(type, spec))
    return success();
  if (failed(ShardedTensorType::verify(emitError, tensor.getShape(),
                                       tensor.getElementType(), spec)))
    return failure();
  if (dialect && spec)
    dialect->noteLayoutVerified(type, spec);
  return success();
}

std::vector<DimCut> shardc::dynamicDimCuts(ShardedTensorType type) {
  return dynamicDimCuts(type.getSpec(), type.getDims());
}

std::vector<DimCut> shardc::dynamicDimCuts(ShardingSpecAttrInterface layout,
                                           ArrayRef<int64_t> dims) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  std::vector<DimCut> cuts(rank);
  auto spec = dyn_cast_or_null<PlacementsSpecAttr>(layout);
  if (!spec || !ShapedType::isDynamicShape(dims))
    return cuts;
  const layout::Mesh &mesh = spec.getMesh().getMesh();
  for (auto [axis, p] : llvm::enumerate(spec.getPlacements())) {
    if (p.kind != layout::Placement::Kind::Shard)
      continue;
    std::optional<int64_t> d = layout::normalizeDim(p.dim, rank);
    if (!d || !ShapedType::isDynamic(dims[*d]))
      continue;
    cuts[*d].axes.push_back(static_cast<int64_t>(axis));
    cuts[*d].counts.push_back(mesh.shape[axis]);
  }
  return cuts;
}

bool shardc::cutsDynamicDim(ShardedTensorType type) {
  return cutsDynamicDim(type.getSpec(), type.getDims());
}

bool shardc::cutsDynamicDim(ShardingSpecAttrInterface spec,
                            ArrayRef<int64_t> dims) {
  return llvm::any_of(dynamicDimCuts(spec, dims),
                      [](const DimCut &cut) { return cut.cuts(); });
}

std::map<int64_t, std::vector<int64_t>>
shardc::meshCoordinatesByRank(ShardedTensorType type) {
  std::map<int64_t, std::vector<int64_t>> out;
  auto spec = dyn_cast<PlacementsSpecAttr>(type.getSpec());
  if (!spec)
    return out;
  const layout::Mesh &mesh = spec.getMesh().getMesh();
  std::vector<std::vector<int64_t>> coords = layout::meshCoordinates(mesh);
  for (size_t linear = 0; linear < coords.size(); ++linear)
    out[mesh.deviceAt(static_cast<int64_t>(linear))] = coords[linear];
  return out;
}
