//===- RuntimeCalls.cpp - The runtime call of each SPMD op ----------------===//

#include "shardc/Passes/RuntimeCalls.h"

#include "shardc/Dialect/ElementTypes.h"

#include "shardrt.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace shardc;

namespace {

// The runtime's reduction codes and collective kinds, numbered as the
// layout library numbers them.
static_assert(
    int(layout::Placement::Reduce::Sum) == SHARDRT_SUM &&
        int(layout::Placement::Reduce::Avg) == SHARDRT_AVG &&
        int(layout::Placement::Reduce::Max) == SHARDRT_MAX &&
        int(layout::Placement::Reduce::Min) == SHARDRT_MIN &&
        int(layout::Placement::Reduce::Product) == SHARDRT_PRODUCT,
    "layout::Placement::Reduce must number reductions as shardrt_reduce");
static_assert(int(layout::CollectiveKind::AllGather) ==
                      SHARDRT_COLLECTIVE_ALL_GATHER &&
                  int(layout::CollectiveKind::ReduceScatter) ==
                      SHARDRT_COLLECTIVE_REDUCE_SCATTER &&
                  int(layout::CollectiveKind::AllReduce) ==
                      SHARDRT_COLLECTIVE_ALL_REDUCE &&
                  int(layout::CollectiveKind::AllToAll) ==
                      SHARDRT_COLLECTIVE_ALL_TO_ALL &&
                  int(layout::CollectiveKind::Broadcast) ==
                      SHARDRT_COLLECTIVE_BROADCAST &&
                  int(layout::CollectiveKind::Gather) ==
                      SHARDRT_COLLECTIVE_GATHER,
              "layout::CollectiveKind must number collectives as "
              "shardrt_collective");

/// The device code of a layout. The SPMD ops' verifiers guarantee that a
/// collective's blocks share one device kind (verifyDeviceKinds).
int32_t deviceOf(ShardedTensorType type) {
  return type.getBlocks().front().placement.kind == layout::Device::Kind::CUDA
             ? SHARDRT_DEVICE_CUDA
             : SHARDRT_DEVICE_CPU;
}

} // namespace

std::vector<int64_t> shardc::deviceTableRows(ShardedTensorType type) {
  std::vector<int64_t> rows;
  for (const layout::Block &block : type.getDeviceBlocks()) {
    rows.push_back(block.placement.rank);
    rows.insert(rows.end(), block.box.offsets.begin(), block.box.offsets.end());
    rows.insert(rows.end(), block.box.sizes.begin(), block.box.sizes.end());
  }
  return rows;
}

// The dialect's element-type table numbers the runtime's dtype codes
// itself (ElementTypes.h): they must be shardrt.h's.
static_assert(
    runtime_dtype::F32 == SHARDRT_F32 && runtime_dtype::F64 == SHARDRT_F64 &&
        runtime_dtype::F16 == SHARDRT_F16 &&
        runtime_dtype::BF16 == SHARDRT_BF16 &&
        runtime_dtype::I8 == SHARDRT_I8 && runtime_dtype::I32 == SHARDRT_I32 &&
        runtime_dtype::I64 == SHARDRT_I64 && runtime_dtype::U8 == SHARDRT_U8 &&
        runtime_dtype::I16 == SHARDRT_I16 &&
        runtime_dtype::U16 == SHARDRT_U16 &&
        runtime_dtype::U32 == SHARDRT_U32 && runtime_dtype::U64 == SHARDRT_U64,
    "ElementTypes.h's runtime dtype codes differ from shardrt.h's");
static_assert(SHARDRT_F32 == 0 && SHARDRT_F64 == 1 && SHARDRT_F16 == 2 &&
                  SHARDRT_BF16 == 3 && SHARDRT_I8 == 4 && SHARDRT_I32 == 5 &&
                  SHARDRT_I64 == 6 && SHARDRT_U8 == 7,
              "shardrt_dtype codes are part of the compiled ABI");

namespace {

/// The groups of collective `c` from `from`: rows [rank, group, position].
std::vector<int64_t> groupRows(const layout::Collective &c,
                               ShardedTensorType from) {
  std::vector<int64_t> rows;
  if (!c.axes.empty()) {
    auto spec = cast<PlacementsSpecAttr>(from.getSpec());
    std::vector<std::vector<int64_t>> groups =
        layout::meshGroups(spec.getMesh().getMesh(), c.axes);
    for (size_t g = 0; g < groups.size(); ++g)
      for (size_t p = 0; p < groups[g].size(); ++p)
        rows.insert(rows.end(), {groups[g][p], int64_t(g), int64_t(p)});
    return rows;
  }
  for (size_t p = 0; p < c.ranks.size(); ++p)
    rows.insert(rows.end(), {c.ranks[p], 0, int64_t(p)});
  return rows;
}

/// The element type's row, or failure after emitting at `op`.
FailureOr<const ElementTypeInfo *> runtimeType(Operation *op, Type type) {
  const ElementTypeInfo *row = lookupElementType(type);
  if (row && row->hasRuntime())
    return row;
  return op->emitError() << "element type " << type
                         << " is not supported by the runtime (supported: "
                         << runtimeElementTypesText() << ")";
}

/// A call on one layout (all_gather, scatter): one block per rank.
FailureOr<RuntimeCall> oneLayout(Operation *op, RuntimeCall::Function fn,
                                 Value input, ShardedTensorType type) {
  if (severalPerRank(type))
    return op->emitError() << "cannot lower '" << op->getName() << "' of "
                           << type
                           << ": a rank owns several blocks, which this "
                              "collective does not support yet";
  FailureOr<const ElementTypeInfo *> row =
      runtimeType(op, type.getElementType());
  if (failed(row))
    return failure();
  RuntimeCall call;
  call.function = fn;
  call.dtype = (*row)->runtimeDtype;
  call.suffix = (*row)->runtimeSuffix().str();
  call.device = deviceOf(type);
  call.input = input;
  call.from = call.to = type;
  (fn == RuntimeCall::Function::Scatter ? call.toTable : call.fromTable) =
      deviceTableRows(type);
  return call;
}

/// The runtime's avg sums the copies in their element type, then divides
/// (as NCCL's integer avg does): integer copies whose sum passes the
/// type's range wrap around first. Said once per op, where it may.
void warnIntegerAvg(Operation *op, Type elementType,
                    layout::Placement::Reduce reduce) {
  if (reduce != layout::Placement::Reduce::Avg ||
      !isa<IntegerType>(elementType))
    return;
  op->emitWarning() << "averages " << elementType
                    << " copies as the runtime does: their sum in "
                    << elementType
                    << ", then divided; where the sum passes the type's range "
                       "it wraps around first and the average is wrong "
                       "(docs/runtime.md)";
}

/// A call between two layouts: the exchange (reducing partial values), or,
/// given `c` and one block per rank, the group collective.
FailureOr<RuntimeCall> twoLayouts(Operation *op, Value input,
                                  ShardedTensorType from, ShardedTensorType to,
                                  const layout::Collective *c) {
  FailureOr<const ElementTypeInfo *> row = runtimeType(op, to.getElementType());
  if (failed(row))
    return failure();
  RuntimeCall call;
  call.dtype = (*row)->runtimeDtype;
  call.suffix = (*row)->runtimeSuffix().str();
  call.device = deviceOf(to);
  call.input = input;
  call.from = from;
  call.to = to;
  call.fromTable = deviceTableRows(from);
  call.toTable = deviceTableRows(to);
  call.packed = severalPerRank(from) || severalPerRank(to);
  // A named collective with one block per rank is the group collective,
  // on CPU blocks (MPI's collectives) and CUDA blocks (NCCL's) alike;
  // with several blocks per rank, the exchange between the same layouts.
  if (c && c->reduce && (*row)->bytesOnly)
    return op->emitError() << "cannot reduce " << to.getElementType()
                           << " values: the runtime moves them as bytes and "
                              "does not reduce them";
  if (c && !call.packed) {
    call.function = RuntimeCall::Function::GroupCollective;
    call.kind = static_cast<int32_t>(c->kind);
    call.groups = groupRows(*c, from);
    call.root = c->root;
    call.reduce = c->reduce ? static_cast<int32_t>(*c->reduce) : 0;
    if (c->reduce)
      warnIntegerAvg(op, to.getElementType(), *c->reduce);
    return call;
  }
  call.function = RuntimeCall::Function::Redistribute;
  auto partial = dyn_cast<PlacementsSpecAttr>(from.getSpec());
  if (partial && partial.hasPartial()) {
    if ((*row)->bytesOnly)
      return op->emitError() << "cannot reduce the partial values of " << from
                             << ": the runtime moves " << to.getElementType()
                             << " as bytes and does not reduce it";
    // Each destination element reduces one copy of every partial index.
    std::vector<layout::Placement> placements(partial.getPlacements().begin(),
                                              partial.getPlacements().end());
    bool mixed = false;
    call.function = RuntimeCall::Function::RedistributeReduce;
    const layout::Placement::Reduce reduce =
        *layout::partialReduce(placements, mixed);
    call.reduce = static_cast<int32_t>(reduce);
    warnIntegerAvg(op, to.getElementType(), reduce);
    call.partial = layout::meshBlockPartialIndices(
        from.getLayoutShape(), partial.getMesh().getMesh(), placements);
  }
  return call;
}

} // namespace

std::string RuntimeCall::entryPoint() const {
  const char *name = "redistribute";
  switch (function) {
  case Function::AllGather:
    name = "all_gather";
    break;
  case Function::ExchangeToWorld:
    name = "exchange_to_world";
    break;
  case Function::Scatter:
    name = "scatter";
    break;
  case Function::Redistribute:
    name = "redistribute";
    break;
  case Function::RedistributeReduce:
    name = "redistribute_reduce";
    break;
  case Function::GroupCollective:
    name = "group_collective";
    break;
  }
  return "shardrt_mlir_" + std::string(name) + "_" + suffix;
}

int64_t RuntimeCall::tableColumns() const {
  return 1 + 2 * (from ? from.getRank() : to.getRank());
}

FailureOr<RuntimeCall> shardc::runtimeCallOf(Operation *op) {
  using Fn = RuntimeCall::Function;
  return llvm::TypeSwitch<Operation *, FailureOr<RuntimeCall>>(op)
      .Case([&](SpmdAllGatherOp o) -> FailureOr<RuntimeCall> {
        if (!o.isWorld()) {
          layout::Collective c = o.getCollective();
          return twoLayouts(op, o.getLocal(), o.getFrom(), *o.getTo(), &c);
        }
        return oneLayout(op, Fn::AllGather, o.getLocal(), o.getFrom());
      })
      .Case([&](SpmdScatterOp o) -> FailureOr<RuntimeCall> {
        FailureOr<RuntimeCall> call =
            oneLayout(op, Fn::Scatter, o.getSource(), o.getTo());
        if (succeeded(call))
          call->root = o.getRoot();
        return call;
      })
      .Case([&](SpmdExchangeOp o) -> FailureOr<RuntimeCall> {
        if (o.isToWorld())
          return oneLayout(op, Fn::ExchangeToWorld, o.getSource(), o.getFrom());
        return twoLayouts(op, o.getSource(), o.getFrom(), *o.getTo(), nullptr);
      })
      .Default([&](Operation *) -> FailureOr<RuntimeCall> {
        // Any other row of the collective table: its local operand, its
        // two layouts and the collective its attributes name.
        std::optional<layout::Collective> c = namedCollectiveOf(op);
        if (!c)
          return op->emitError()
                 << "'" << op->getName() << "' is not an SPMD collective";
        auto from = op->getAttrOfType<TypeAttr>("from");
        auto to = op->getAttrOfType<TypeAttr>("to");
        return twoLayouts(op, op->getOperand(0),
                          cast<ShardedTensorType>(from.getValue()),
                          cast<ShardedTensorType>(to.getValue()), &*c);
      });
}

bool shardc::isSpmdCollective(Operation *op) {
  return isa<SpmdScatterOp, SpmdExchangeOp>(op) ||
         namedCollectiveOf(op).has_value();
}
