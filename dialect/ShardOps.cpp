//===- ShardOps.cpp - Global and SPMD ops ---------------------------------===//

#include "shardc/Dialect/Shard.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace shardc;

#include "shardc/Dialect/ShardEnums.cpp.inc"

static ParseResult parseGroup(OpAsmParser &parser, DenseI64ArrayAttr &axes);
static void printGroup(OpAsmPrinter &p, Operation *, DenseI64ArrayAttr axes);
/// shard.constraint after `layout`: `SPEC {attrs} : type`. Written inline,
/// the spec takes the `: type` after it for its own (MLIR's generic parser
/// does): the type is taken back from there.
static ParseResult parseConstraintTail(OpAsmParser &parser,
                                       ShardingSpecAttrInterface &spec,
                                       NamedAttrList &attrs, Type &type) {
  (void)shardc::detail::takeTrailingType();
  if (parseSpecRef(parser, spec))
    return failure();
  if (Type trailing = shardc::detail::takeTrailingType()) {
    type = trailing;
    return parser.parseOptionalAttrDict(attrs);
  }
  return failure(parser.parseOptionalAttrDict(attrs) ||
                 parser.parseColonType(type));
}

static void printConstraintTail(OpAsmPrinter &p, Operation *op,
                                ShardingSpecAttrInterface spec,
                                DictionaryAttr attrs, Type type) {
  printSpecRef(p, spec);
  p.printOptionalAttrDict(attrs.getValue(), {"layout"});
  p << " : " << type;
}

#define GET_OP_CLASSES
#include "shardc/Dialect/ShardOps.cpp.inc"

/// MPI ranks are C ints.
static LogicalResult verifySourceRank(Operation *op, int64_t rank) {
  if (rank <= layout::kMaxRank)
    return success();
  return op->emitOpError() << "rank " << rank
                           << " is out of range (MPI ranks are at most "
                           << layout::kMaxRank << ")";
}

/// Checks that `full` is the whole tensor of `type`: same static shape and
/// element type.
static LogicalResult verifyFullTensor(Operation *op, ShardedTensorType type,
                                      RankedTensorType full, StringRef what) {
  if (full.getElementType() != type.getElementType())
    return op->emitOpError()
           << what << " element type " << full.getElementType()
           << " does not match the sharded tensor's " << type.getElementType();
  if (full.getShape() != type.getDims())
    return op->emitOpError() << what << " shape " << formatDims(full.getShape())
                             << " does not match the sharded tensor's shape "
                             << formatDims(type.getDims());
  return success();
}

LogicalResult DistributeOp::verify() {
  if (failed(verifySourceRank(*this, getSrcRank())))
    return failure();
  return verifyFullTensor(*this, getResult().getType(), getSource().getType(),
                          "source");
}

LogicalResult RedistributeOp::verify() {
  ShardedTensorType from = getSource().getType(), to = getResult().getType();
  if (from.getElementType() != to.getElementType())
    return emitOpError() << "cannot change the element type from "
                         << from.getElementType() << " to "
                         << to.getElementType();
  if (from.getDims() != to.getDims())
    return emitOpError() << "cannot change the shape from "
                         << formatDims(from.getDims()) << " to "
                         << formatDims(to.getDims());
  return success();
}

LogicalResult AllGatherOp::verify() {
  return verifyFullTensor(*this, getSource().getType(), getResult().getType(),
                          "result");
}

LogicalResult GatherOp::verify() {
  if (failed(verifySourceRank(*this, getDstRank())))
    return failure();
  return verifyFullTensor(*this, getSource().getType(), getResult().getType(),
                          "result");
}

LogicalResult LocalShardsOp::verify() {
  return verifyLocalType(getSource().getType(), getResult().getType(), "result",
                         [&] { return emitOpError(); });
}

/// `extents` of an op moving a tensor of global type `a` (and `b`): none,
/// or one index per dynamic dim; required where a layout cuts a dynamic dim
/// (a rank's block holds only its chunk of it).
static LogicalResult verifyExtents(Operation *op, ValueRange extents,
                                   ShardedTensorType a,
                                   ShardedTensorType b = {}) {
  const int64_t dynamic = llvm::count_if(
      a.getDims(), [](int64_t d) { return ShapedType::isDynamic(d); });
  if (extents.empty()) {
    for (ShardedTensorType type : {a, b})
      if (type && cutsDynamicDim(type))
        return op->emitOpError()
               << "moves " << type
               << ", whose layout cuts a dynamic dim: it needs the tensor's "
                  "extents (`extents(%n, ...)`, one index per dynamic dim), "
                  "which no rank's block tells";
    return success();
  }
  if (static_cast<int64_t>(extents.size()) != dynamic)
    return op->emitOpError()
           << "has " << extents.size() << " extents for a tensor of shape "
           << formatDims(a.getDims()) << " with " << dynamic
           << " dynamic dims; it takes one per dynamic dim";
  return success();
}

LogicalResult FromLocalShardsOp::verify() {
  if (failed(verifyExtents(*this, getExtents(), getResult().getType())))
    return failure();
  return verifyLocalType(getResult().getType(), getLocal().getType(), "operand",
                         [&] { return emitOpError(); });
}

//===----------------------------------------------------------------------===//
// SPMD collectives
//===----------------------------------------------------------------------===//

/// `over world` (no axes) or `over axes [..]`.
static ParseResult parseGroup(OpAsmParser &parser, DenseI64ArrayAttr &axes) {
  if (succeeded(parser.parseOptionalKeyword("world")))
    return success();
  if (parser.parseKeyword("axes"))
    return failure();
  Attribute attr = DenseI64ArrayAttr::parse(parser, Type());
  if (!attr)
    return failure();
  axes = cast<DenseI64ArrayAttr>(attr);
  return success();
}

static void printGroup(OpAsmPrinter &p, Operation *, DenseI64ArrayAttr axes) {
  if (!axes) {
    p << "world";
    return;
  }
  p << "axes ";
  axes.print(p);
}

layout::Placement::Reduce shardc::reduceOf(Reduction reduction) {
  return static_cast<layout::Placement::Reduce>(reduction);
}

Reduction shardc::reductionOf(layout::Placement::Reduce reduce) {
  return static_cast<Reduction>(reduce);
}

// The op's reduction attribute and the layout library's placements number
// the reductions alike.
static_assert(int(Reduction::Sum) == int(layout::Placement::Reduce::Sum) &&
                  int(Reduction::Avg) == int(layout::Placement::Reduce::Avg) &&
                  int(Reduction::Max) == int(layout::Placement::Reduce::Max) &&
                  int(Reduction::Min) == int(layout::Placement::Reduce::Min) &&
                  int(Reduction::Product) ==
                      int(layout::Placement::Reduce::Product),
              "shardc::Reduction must number reductions as Placement::Reduce");

/// Checks a collective's two layouts and local types: layouts of one tensor,
/// `local` this rank's block under `from`, `result` its block under `to`,
/// and `c` taking `from` to `to` (over mesh axes: both on one mesh).
/// Checks the Partial placements of an SPMD collective's layouts: no
/// collective leaves values partial (the planner reduces them first), and
/// only a reducing one (`reduces`) reads them.
static LogicalResult verifyPartial(Operation *op, ShardedTensorType from,
                                   ShardedTensorType to, bool reduces) {
  if (to && to.getSpec().hasPartial())
    return op->emitOpError() << "leaves partial values in " << to
                             << "; SPMD collectives end in reduced values";
  if (from && !reduces && from.getSpec().hasPartial())
    return op->emitOpError()
           << "moves the partial values of " << from
           << " without reducing them; reduce them first (reduce_scatter, "
              "all_reduce or an exchange)";
  if (auto spec = from ? dyn_cast<PlacementsSpecAttr>(from.getSpec())
                       : PlacementsSpecAttr()) {
    bool mixed = false;
    layout::partialReduce(
        {spec.getPlacements().begin(), spec.getPlacements().end()}, mixed);
    if (mixed)
      return op->emitOpError() << "reduces the Partial axes of " << from
                               << " with different operations";
  }
  return success();
}

/// The device kind of a layout's blocks, when they share one.
static std::optional<layout::Device::Kind> kindOf(ShardedTensorType type) {
  return typeFacts(type).kind;
}

/// An SPMD collective moves data between blocks of one device kind: both
/// layouts (one of them null: the other alone) have their blocks on cpu alone
/// or on cuda alone, the same kind in both, since one runtime call cannot mix
/// host and device buffers.
static LogicalResult verifyDeviceKinds(Operation *op, ShardedTensorType from,
                                       ShardedTensorType to) {
  for (ShardedTensorType type : {from, to}) {
    if (type && !kindOf(type))
      return op->emitOpError()
             << "moves data between devices of different kinds (cpu and "
                "cuda): the blocks of "
             << type << " are on both";
  }
  if (from && to && kindOf(from) != kindOf(to))
    return op->emitOpError()
           << "moves data between devices of different kinds (cpu and "
              "cuda): from "
           << from << " to " << to;
  return success();
}

static LogicalResult verifyCollective(Operation *op,
                                      const layout::Collective &c,
                                      bool overAxes, ShardedTensorType from,
                                      ShardedTensorType to, Type local,
                                      Type result) {
  auto emit = [&] { return op->emitOpError(); };
  if (from.getDims() != to.getDims() ||
      from.getElementType() != to.getElementType())
    return emit() << "layouts of different tensors: " << from << " and " << to;
  if (failed(verifyDeviceKinds(op, from, to)))
    return failure();
  const bool reduces = layout::collectiveTraits(c.kind).reduceAttr != nullptr;
  if (failed(verifyPartial(op, from, to, reduces)))
    return failure();
  if (failed(verifyLocalType(from, cast<RankedTensorType>(local), "operand",
                             emit)) ||
      failed(
          verifyLocalType(to, cast<RankedTensorType>(result), "result", emit)))
    return failure();
  std::vector<int64_t> shape = from.getLayoutShape();
  layout::Result<void> problem;
  if (overAxes) {
    auto a = dyn_cast<PlacementsSpecAttr>(from.getSpec());
    auto b = dyn_cast<PlacementsSpecAttr>(to.getSpec());
    if (!a || !b ||
        !layout::sameMesh(a.getMesh().getMesh(), b.getMesh().getMesh()))
      return emit() << "runs over mesh axes, so both layouts must be "
                       "placements on one mesh";
    problem = layout::checkAxisCollective(
        c, shape, a.getMesh().getMesh(),
        {a.getPlacements().begin(), a.getPlacements().end()},
        {b.getPlacements().begin(), b.getPlacements().end()});
  } else {
    problem = layout::checkRankCollective(c, shape, from.getDeviceBlocks(),
                                          to.getDeviceBlocks());
  }
  if (!problem)
    return emit() << problem.error();
  return success();
}

/// verifyCollective for an op over a group with both layouts.
template <typename OpT>
static LogicalResult verifyGroupCollective(OpT op, bool overAxes) {
  if (failed(verifyExtents(op, op.getExtents(), op.getFrom(), op.getTo())))
    return failure();
  return verifyCollective(op, op.getCollective(), overAxes, op.getFrom(),
                          op.getTo(), op.getLocal().getType(),
                          op.getResult().getType());
}

std::optional<layout::Collective> shardc::namedCollectiveOf(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (!name.consume_front("shard.spmd."))
    return std::nullopt;
  std::optional<layout::CollectiveKind> kind = layout::collectiveNamed(name);
  if (!kind || *kind == layout::CollectiveKind::Exchange)
    return std::nullopt;
  const layout::CollectiveTraits &row = layout::collectiveTraits(*kind);
  layout::Collective c;
  c.kind = *kind;
  if (auto group =
          op->getAttrOfType<DenseI64ArrayAttr>(row.overAxes ? "axes" : "ranks"))
    (row.overAxes ? c.axes : c.ranks)
        .assign(group.asArrayRef().begin(), group.asArrayRef().end());
  auto number = [&](const char *attr, int64_t &into) {
    if (attr)
      if (auto value = op->getAttrOfType<IntegerAttr>(attr))
        into = value.getInt();
  };
  number(row.dimAttr, c.dim);
  number(row.concatAttr, c.concatDim);
  number(row.rootAttr, c.root);
  if (row.reduceAttr)
    if (auto reduce = op->getAttrOfType<ReductionAttr>(row.reduceAttr))
      c.reduce = reduceOf(reduce.getValue());
  return c;
}

LogicalResult SpmdAllGatherOp::verify() {
  auto from = cast<ShardedTensorType>(getFrom());
  if (failed(verifyExtents(*this, getExtents(), from)))
    return failure();
  if (isWorld()) {
    if (getDim() || getTo())
      return emitOpError() << "over the world gathers the whole tensor: it "
                              "takes no dim and no destination layout";
    if (failed(verifyDeviceKinds(*this, from, {})))
      return failure();
    if (failed(verifyPartial(*this, from, {}, /*reduces=*/false)))
      return failure();
    if (failed(verifyLocalType(from, getLocal().getType(), "operand",
                               [&] { return emitOpError(); })))
      return failure();
    return verifyFullTensor(*this, from, getResult().getType(), "result");
  }
  if (!getDim() || !getTo())
    return emitOpError() << "over mesh axes needs a dim and a destination "
                            "layout (`dim D ... to !layout`)";
  return verifyCollective(*this, getCollective(), /*overAxes=*/true, from,
                          cast<ShardedTensorType>(*getTo()),
                          getLocal().getType(), getResult().getType());
}

LogicalResult SpmdReduceScatterOp::verify() {
  return verifyGroupCollective(*this, /*overAxes=*/true);
}

LogicalResult SpmdAllReduceOp::verify() {
  return verifyGroupCollective(*this, /*overAxes=*/true);
}

LogicalResult SpmdAllToAllOp::verify() {
  return verifyGroupCollective(*this, /*overAxes=*/true);
}

LogicalResult SpmdBroadcastOp::verify() {
  return verifyGroupCollective(*this, /*overAxes=*/false);
}

LogicalResult SpmdGatherOp::verify() {
  return verifyGroupCollective(*this, /*overAxes=*/false);
}

LogicalResult SpmdScatterOp::verify() {
  if (failed(verifySourceRank(*this, getRoot())))
    return failure();
  auto layoutType = cast<ShardedTensorType>(getTo());
  if (failed(verifyExtents(*this, getExtents(), layoutType)) ||
      failed(verifyDeviceKinds(*this, {}, layoutType)) ||
      failed(verifyFullTensor(*this, layoutType, getSource().getType(),
                              "source")) ||
      failed(verifyPartial(*this, {}, layoutType, /*reduces=*/false)))
    return failure();
  return verifyLocalType(layoutType, getResult().getType(), "result",
                         [&] { return emitOpError(); });
}

LogicalResult SpmdExchangeOp::verify() {
  auto from = cast<ShardedTensorType>(getFrom());
  if (failed(verifyExtents(*this, getExtents(), from,
                           getTo() ? cast<ShardedTensorType>(*getTo())
                                   : ShardedTensorType())))
    return failure();
  if (isToWorld()) {
    if (failed(verifyDeviceKinds(*this, from, {})))
      return failure();
    if (failed(verifyPartial(*this, from, {}, /*reduces=*/false)))
      return failure();
    if (failed(verifyLocalType(from, getSource().getType(), "operand",
                               [&] { return emitOpError(); })))
      return failure();
    return verifyFullTensor(*this, from, getResult().getType(), "result");
  }
  auto to = cast<ShardedTensorType>(*getTo());
  if (from.getDims() != to.getDims() ||
      from.getElementType() != to.getElementType())
    return emitOpError() << "layouts of different tensors: " << from << " and "
                         << to;
  if (failed(verifyDeviceKinds(*this, from, to)))
    return failure();
  if (failed(verifyPartial(*this, from, to, /*reduces=*/true)))
    return failure();
  if (failed(verifyLocalType(from, getSource().getType(), "operand",
                             [&] { return emitOpError(); })))
    return failure();
  return verifyLocalType(to, getResult().getType(), "result",
                         [&] { return emitOpError(); });
}

//===----------------------------------------------------------------------===//
// ConstraintOp and shard.layout
//===----------------------------------------------------------------------===//

LogicalResult ConstraintOp::verify() {
  return verifyLayoutOf(getInput().getType(), getLayout(),
                        [&] { return emitOpError(); });
}

/// `shard.layout` on argument or result `index` of a function, of `type`.
static LogicalResult verifyLayoutAttr(Operation *op, NamedAttribute attr,
                                      Type type, const char *what,
                                      unsigned index) {
  if (attr.getName() == "shard.global") {
    // A partitioned function's argument or result: this rank's block of a
    // value of the global type.
    auto global = dyn_cast<TypeAttr>(attr.getValue());
    auto sharded =
        global ? dyn_cast<ShardedTensorType>(global.getValue()) : nullptr;
    if (!sharded)
      return op->emitError()
             << "'shard.global' of " << what << " #" << index
             << " must be a sharded tensor type, got " << attr.getValue();
    // After bufferization the block is a memref of the same shape; after
    // the conversion to LLVM, whatever carries it.
    RankedTensorType local;
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      local = tensor;
    else if (auto buffer = dyn_cast<MemRefType>(type))
      local = RankedTensorType::get(buffer.getShape(), buffer.getElementType());
    else
      return success();
    return verifyLocalType(sharded, local, what, [&] {
      return op->emitError()
             << "'shard.global' of " << what << " #" << index << ": ";
    });
  }
  if (attr.getName() != "shard.layout")
    return op->emitError() << "unknown " << what << " attribute '"
                           << attr.getName().getValue()
                           << "' (the shard dialect's are 'shard.layout', "
                              "'shard.global' and, on arguments, "
                              "'shard.batch')";
  auto spec = dyn_cast<ShardingSpecAttrInterface>(attr.getValue());
  if (!spec)
    return op->emitError()
           << "'shard.layout' of " << what << " #" << index
           << " must be a sharding spec (#shard.chunk, #shard.enumerable, "
              "#shard.placements or #shard.device_placement), got "
           << attr.getValue();
  return verifyLayoutOf(type, spec, [&] {
    return op->emitError() << "'shard.layout' of " << what << " #" << index
                           << ": ";
  });
}

LogicalResult ShardDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned argIndex,
                                                     NamedAttribute attr) {
  Type type;
  if (auto fn = dyn_cast<FunctionOpInterface>(op))
    type = argIndex < fn.getNumArguments() ? fn.getArgumentTypes()[argIndex]
                                           : Type();
  else if (regionIndex < op->getNumRegions() &&
           !op->getRegion(regionIndex).empty() &&
           argIndex < op->getRegion(regionIndex).getNumArguments())
    type = op->getRegion(regionIndex).getArgument(argIndex).getType();
  if (!type)
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' on an argument this op does not have";
  if (attr.getName() == "shard.batch") {
    // -shard-propagate=auto=true's batch dim of an argument.
    // (Bufferized, a memref; lowered to LLVM, whatever carries it.)
    auto dim = dyn_cast<IntegerAttr>(attr.getValue());
    auto shaped = dyn_cast<ShapedType>(type);
    const bool lowered = !isa<ShapedType>(type) && !isa<TensorType>(type);
    if (!dim || (!lowered && (!shaped || !shaped.hasRank())) ||
        dim.getInt() < 0 ||
        (shaped && shaped.hasRank() && dim.getInt() >= shaped.getRank()))
      return op->emitError()
             << "'shard.batch' of argument #" << argIndex
             << " must be a dim of a ranked tensor argument (an integer from "
                "0 to its rank - 1), got "
             << attr.getValue() << " on " << type;
    return success();
  }
  return verifyLayoutAttr(op, attr, type, "argument", argIndex);
}

LogicalResult ShardDialect::verifyRegionResultAttribute(Operation *op,
                                                        unsigned regionIndex,
                                                        unsigned resultIndex,
                                                        NamedAttribute attr) {
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn || resultIndex >= fn.getNumResults())
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' annotates function results only";
  return verifyLayoutAttr(op, attr, fn.getResultTypes()[resultIndex], "result",
                          resultIndex);
}
