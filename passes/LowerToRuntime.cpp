//===- LowerToRuntime.cpp - shard-lower-to-runtime ------------------------===//
//
// SPMD collectives -> calls of the shardrt C ABI (runtime/include/shardrt.h)
// on unranked memrefs, with each layout's block table as a constant global.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/ElementTypes.h"
#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"

#include "shardrt.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDLOWERTORUNTIME
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// The runtime's reduction code of a Partial placement's reduction: the
/// layout library numbers them as shardrt.h does.
static_assert(
    int(layout::Placement::Reduce::Sum) == SHARDRT_SUM &&
        int(layout::Placement::Reduce::Avg) == SHARDRT_AVG &&
        int(layout::Placement::Reduce::Max) == SHARDRT_MAX &&
        int(layout::Placement::Reduce::Min) == SHARDRT_MIN &&
        int(layout::Placement::Reduce::Product) == SHARDRT_PRODUCT,
    "layout::Placement::Reduce must number reductions as shardrt_reduce");
int32_t reduceCode(layout::Placement::Reduce reduce) {
  return static_cast<int32_t>(reduce);
}

/// The runtime's symbol suffix for an element type, or "" if the runtime
/// does not move it (the element-type table's).
std::string dtypeSuffix(Type type) {
  const ElementTypeInfo *row = lookupElementType(type);
  return row && row->hasRuntime() ? row->runtimeSuffix().str() : "";
}

/// Builds runtime calls, declaring functions and globals on first use.
class RuntimeLowering {
public:
  /// Declares functions and globals in `symbolTableOp` (the nearest symbol
  /// table of the ops it lowers, usually the module).
  explicit RuntimeLowering(Operation *symbolTableOp)
      : scope(symbolTableOp), symbols(symbolTableOp),
        ctx(symbolTableOp->getContext()) {}

  /// The device code of a layout; emits at `op` and fails when its blocks
  /// mix cpu and cuda.
  FailureOr<int32_t> deviceOf(Operation *op, ShardedTensorType type) {
    std::vector<layout::Block> blocks = type.getBlocks();
    auto kind = blocks.front().placement.kind;
    for (size_t i = 1; i < blocks.size(); ++i)
      if (blocks[i].placement.kind != kind)
        return op->emitError()
               << "cannot lower " << type << ": block #0 is on \""
               << layout::formatDevice(blocks.front().placement)
               << "\" but block #" << i << " is on \""
               << layout::formatDevice(blocks[i].placement)
               << "\"; one collective cannot mix cpu and cuda buffers";
    return kind == layout::Device::Kind::CUDA ? SHARDRT_DEVICE_CUDA
                                              : SHARDRT_DEVICE_CPU;
  }

  /// The block table of a layout: rows [owner, offsets..., sizes...]. With
  /// `replicas`, a row for every device that holds a block (what a scatter
  /// fills); without, a row per distinct block (what an all_gather reads).
  Value blockTable(OpBuilder &b, Location loc, ShardedTensorType type,
                   bool replicas) {
    std::vector<layout::Block> blocks =
        replicas ? type.getDeviceBlocks() : type.getBlocks();
    int64_t cols = 1 + 2 * type.getRank();
    SmallVector<int64_t> values;
    for (const layout::Block &block : blocks) {
      values.push_back(block.placement.rank);
      values.append(block.box.offsets.begin(), block.box.offsets.end());
      values.append(block.box.sizes.begin(), block.box.sizes.end());
    }
    return constantTable(b, loc, "__shard_blocks", values,
                         {static_cast<int64_t>(blocks.size()), cols});
  }

  /// This rank's block sizes under `type`, for the dynamic dims of its local
  /// type; 0 on ranks owning no block. Found at run time by scanning the
  /// block table for this rank's row.
  FailureOr<SmallVector<Value>> localDynamicSizes(Operation *op, OpBuilder &b,
                                                  ShardedTensorType type,
                                                  RankedTensorType local) {
    SmallVector<Value> sizes;
    if (local.hasStaticShape())
      return sizes;
    Location loc = op->getLoc();
    const bool packed = severalPerRank(type);
    FailureOr<func::FuncOp> rankFn =
        runtimeFunction(op, "shardrt_rank", {}, {b.getI32Type()});
    if (failed(rankFn))
      return failure();
    Value rank32 =
        func::CallOp::create(b, loc, *rankFn, ValueRange{}).getResult(0);
    Value rank = arith::ExtSIOp::create(b, loc, b.getI64Type(), rank32);
    Value table = blockTable(b, loc, type, /*replicas=*/true);
    int64_t numBlocks = cast<MemRefType>(table.getType()).getDimSize(0);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value count = arith::ConstantIndexOp::create(b, loc, numBlocks);
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < local.getRank(); ++d)
      if (local.isDynamicDim(d))
        dims.push_back(d);
    SmallVector<Value> init(dims.size(), zero);
    auto loop = scf::ForOp::create(
        b, loc, zero, count, one, init,
        [&](OpBuilder &lb, Location l, Value row, ValueRange current) {
          Value owner =
              memref::LoadOp::create(lb, l, table, ValueRange{row, zero});
          Value mine = arith::CmpIOp::create(lb, l, arith::CmpIPredicate::eq,
                                             owner, rank);
          SmallVector<Value> next;
          if (packed) {
            // Several blocks per rank, packed: the sum of its volumes.
            Value n = arith::ConstantIndexOp::create(lb, l, 1);
            for (int64_t d = 0; d < type.getRank(); ++d) {
              Value col =
                  arith::ConstantIndexOp::create(lb, l, 1 + type.getRank() + d);
              Value size =
                  memref::LoadOp::create(lb, l, table, ValueRange{row, col});
              size = arith::IndexCastOp::create(lb, l, lb.getIndexType(), size);
              n = arith::MulIOp::create(lb, l, n, size);
            }
            Value sum = arith::AddIOp::create(lb, l, current[0], n);
            next.push_back(
                arith::SelectOp::create(lb, l, mine, sum, current[0]));
            scf::YieldOp::create(lb, l, next);
            return;
          }
          for (auto [k, d] : llvm::enumerate(dims)) {
            Value col =
                arith::ConstantIndexOp::create(lb, l, 1 + type.getRank() + d);
            Value size =
                memref::LoadOp::create(lb, l, table, ValueRange{row, col});
            size = arith::IndexCastOp::create(lb, l, lb.getIndexType(), size);
            next.push_back(
                arith::SelectOp::create(lb, l, mine, size, current[k]));
          }
          scf::YieldOp::create(lb, l, next);
        });
    sizes.append(loop.getResults().begin(), loop.getResults().end());
    return sizes;
  }

  /// A constant 1-D i64 global holding `values`; returns its memref.
  Value constantI64(OpBuilder &b, Location loc, StringRef prefix,
                    ArrayRef<int64_t> values) {
    return constantTable(b, loc, prefix, values,
                         {static_cast<int64_t>(values.size())});
  }

  /// A buffer for this rank's block of `layout`, of type `local` (its
  /// dynamic sizes found at run time, 0 on ranks owning no block).
  FailureOr<Value> allocLocal(Operation *op, OpBuilder &b,
                              ShardedTensorType layout,
                              RankedTensorType local) {
    FailureOr<SmallVector<Value>> sizes =
        localDynamicSizes(op, b, layout, local);
    if (failed(sizes))
      return failure();
    auto type = MemRefType::get(local.getShape(), local.getElementType());
    return Value(memref::AllocOp::create(b, op->getLoc(), type, *sizes));
  }

  /// `tensor` as a strided memref (read only; any layout).
  Value tensorAsBuffer(OpBuilder &b, Location loc, Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
    auto layoutAttr =
        StridedLayoutAttr::get(ctx, ShapedType::kDynamic, strides);
    auto memrefType =
        MemRefType::get(type.getShape(), type.getElementType(), layoutAttr);
    return bufferization::ToBufferOp::create(b, loc, memrefType, tensor,
                                             /*read_only=*/true);
  }

  /// Calls the runtime function `name` with `args`, each ranked memref
  /// passed as an unranked one. The LLVM lowering of a ranked -> unranked
  /// cast puts the ranked descriptor on the stack (an `llvm.alloca`); in a
  /// loop, every iteration would grow the stack until it overflows. So the
  /// casts and the call sit in a private function of their own, one per
  /// runtime function and argument types (`@__shard_call_<name>`): a
  /// function's stack is freed when it returns, whatever later passes do
  /// (canonicalization inlines a `memref.alloca_scope` that ends a loop
  /// body, and the stack grew again).
  LogicalResult callRuntime(Operation *op, OpBuilder &b, StringRef name,
                            ValueRange args) {
    SmallVector<Type> inputs;
    for (Value arg : args) {
      auto ranked = dyn_cast<MemRefType>(arg.getType());
      inputs.push_back(ranked
                           ? UnrankedMemRefType::get(ranked.getElementType(), 0)
                           : arg.getType());
    }
    FailureOr<func::FuncOp> callee = runtimeFunction(op, name, inputs, {});
    if (failed(callee))
      return failure();
    FunctionType wrapperType = b.getFunctionType(args.getTypes(), {});
    func::FuncOp &wrapper = wrappers[{callee->getSymNameAttr(), wrapperType}];
    if (!wrapper) {
      OpBuilder wb(ctx);
      wb.setInsertionPointToStart(&scope->getRegion(0).front());
      Location loc = scope->getLoc();
      wrapper = func::FuncOp::create(wb, loc, ("__shard_call_" + name).str(),
                                     wrapperType);
      wrapper.setPrivate();
      symbols.insert(wrapper); // renames on collision
      Block *body = wrapper.addEntryBlock();
      wb.setInsertionPointToStart(body);
      SmallVector<Value> operands;
      for (auto [arg, type] : llvm::zip_equal(body->getArguments(), inputs))
        operands.push_back(arg.getType() == type
                               ? Value(arg)
                               : memref::CastOp::create(wb, loc, type, arg));
      func::CallOp::create(wb, loc, *callee, operands);
      func::ReturnOp::create(wb, loc);
    }
    func::CallOp::create(b, op->getLoc(), wrapper, args);
    return success();
  }

  /// Declares (once) and returns a runtime function; emits at `op` and
  /// fails when the name is taken by something else.
  FailureOr<func::FuncOp> runtimeFunction(Operation *op, StringRef name,
                                          TypeRange inputs, TypeRange results) {
    OpBuilder b(ctx);
    FunctionType type = b.getFunctionType(inputs, results);
    if (Operation *existing = symbols.lookup(name)) {
      auto f = dyn_cast<func::FuncOp>(existing);
      if (f && f.getFunctionType() == type)
        return f;
      return op->emitError()
             << "cannot call the runtime: the symbol '" << name
             << "' is already defined with another type; expected a "
                "func.func of type "
             << type;
    }
    b.setInsertionPointToStart(&scope->getRegion(0).front());
    auto f = func::FuncOp::create(b, scope->getLoc(), name, type);
    f.setPrivate();
    symbols.insert(f);
    return f;
  }

  /// A constant i64 global holding `values` in `shape`, shared by equal
  /// tables; returns its memref.
  Value constantTable(OpBuilder &b, Location loc, StringRef prefix,
                      ArrayRef<int64_t> values, ArrayRef<int64_t> shape) {
    auto memrefType = MemRefType::get(shape, b.getI64Type());
    auto data = DenseElementsAttr::get(
        RankedTensorType::get(shape, b.getI64Type()), values);
    memref::GlobalOp &global = globals[data];
    if (!global) {
      OpBuilder mb(ctx);
      mb.setInsertionPointToStart(&scope->getRegion(0).front());
      global = memref::GlobalOp::create(
          mb, scope->getLoc(), prefix, mb.getStringAttr("private"), memrefType,
          data, /*constant=*/true, /*alignment=*/nullptr);
      symbols.insert(global); // renames on collision
    }
    return memref::GetGlobalOp::create(b, loc, memrefType, global.getSymName());
  }

private:
  Operation *scope;
  SymbolTable symbols;
  MLIRContext *ctx;
  llvm::DenseMap<Attribute, memref::GlobalOp> globals;
  /// The call wrappers, by runtime function and argument types.
  llvm::DenseMap<std::pair<Attribute, Type>, func::FuncOp> wrappers;
};

LogicalResult checkElementType(Operation *op, Type type) {
  if (!dtypeSuffix(type).empty())
    return success();
  return op->emitError() << "element type " << type
                         << " is not supported by the runtime (supported: "
                         << runtimeElementTypesText() << ")";
}

LogicalResult lowerExchange(RuntimeLowering &rt, Operation *op, Value local,
                            ShardedTensorType from, ShardedTensorType to);

// The named collectives, numbered as the runtime numbers them.
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

/// Checks a move from `from` to `to`: an element type the runtime moves,
/// and one device kind for both layouts, which it returns.
FailureOr<int32_t> checkMove(RuntimeLowering &rt, Operation *op,
                             ShardedTensorType from, ShardedTensorType to) {
  if (failed(checkElementType(op, to.getElementType())))
    return failure();
  FailureOr<int32_t> fromDevice = rt.deviceOf(op, from);
  FailureOr<int32_t> toDevice = rt.deviceOf(op, to);
  if (failed(fromDevice) || failed(toDevice))
    return failure();
  if (*fromDevice != *toDevice)
    return op->emitError() << "cannot lower a redistribution between cpu and "
                              "cuda blocks: from "
                           << from << " to " << to;
  return *toDevice;
}

/// What every call between two layouts passes: this rank's block of the
/// source (as a buffer), a new buffer for its block of the destination, and
/// both block tables.
struct TwoLayoutCall {
  Value source, out, fromTable, toTable;
};

FailureOr<TwoLayoutCall> prepareCall(RuntimeLowering &rt, OpBuilder &b,
                                     Operation *op, Value local,
                                     ShardedTensorType from,
                                     ShardedTensorType to) {
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  TwoLayoutCall call;
  call.source = rt.tensorAsBuffer(b, loc, local);
  FailureOr<Value> allocated = rt.allocLocal(op, b, to, resultType);
  if (failed(allocated))
    return failure();
  call.out = *allocated;
  call.fromTable = rt.blockTable(b, loc, from, /*replicas=*/true);
  call.toTable = rt.blockTable(b, loc, to, /*replicas=*/true);
  return call;
}

/// Replaces `op`'s result by the destination buffer `call` filled.
void replaceWithResult(OpBuilder &b, Operation *op, const TwoLayoutCall &call) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Value result = bufferization::ToTensorOp::create(b, op->getLoc(), resultType,
                                                   call.out, /*restrict=*/true,
                                                   /*writable=*/true);
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

/// The groups of collective `c` from `from`, as the runtime reads them: rows
/// [rank, group, position].
SmallVector<int64_t> groupRows(const layout::Collective &c,
                               ShardedTensorType from) {
  SmallVector<int64_t> rows;
  if (!c.axes.empty()) {
    auto spec = cast<PlacementsSpecAttr>(from.getSpec());
    std::vector<std::vector<int64_t>> groups =
        layout::meshGroups(spec.getMesh().getMesh(), c.axes);
    for (size_t g = 0; g < groups.size(); ++g)
      for (size_t p = 0; p < groups[g].size(); ++p)
        rows.append({groups[g][p], int64_t(g), int64_t(p)});
    return rows;
  }
  for (size_t p = 0; p < c.ranks.size(); ++p)
    rows.append({c.ranks[p], 0, int64_t(p)});
  return rows;
}

/// A named collective over a group: one call of the runtime's
/// shardrt_mlir_group_collective_<dtype> with both block tables and the
/// groups, each group moving its data in one native MPI collective. On CUDA
/// blocks (whose group collectives the runtime does not run yet), the
/// exchange between the two layouts, which moves the same bytes.
LogicalResult lowerGroup(RuntimeLowering &rt, Operation *op,
                         const layout::Collective &c, Value local,
                         ShardedTensorType from, ShardedTensorType to) {
  Type elementType = to.getElementType();
  FailureOr<int32_t> device = checkMove(rt, op, from, to);
  if (failed(device))
    return failure();
  if (*device != SHARDRT_DEVICE_CPU)
    return lowerExchange(rt, op, local, from, to);
  OpBuilder b(op);
  Location loc = op->getLoc();
  FailureOr<TwoLayoutCall> call = prepareCall(rt, b, op, local, from, to);
  if (failed(call))
    return failure();
  SmallVector<int64_t> rows = groupRows(c, from);
  Value groups = rt.constantTable(b, loc, "__shard_groups", rows,
                                  {static_cast<int64_t>(rows.size() / 3), 3});
  auto i32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32).getResult();
  };
  Value kind = i32(static_cast<int64_t>(c.kind));
  Value root = arith::ConstantIntOp::create(b, loc, c.root, 64);
  Value reduce = i32(c.reduce ? reduceCode(*c.reduce) : 0);
  if (failed(rt.callRuntime(
          op, b, "shardrt_mlir_group_collective_" + dtypeSuffix(elementType),
          {kind, call->source, call->out, call->fromTable, call->toTable,
           groups, root, reduce, i32(SHARDRT_DEVICE_CPU)})))
    return failure();
  replaceWithResult(b, op, *call);
  return success();
}

LogicalResult lowerAllGather(RuntimeLowering &rt, SpmdAllGatherOp op) {
  auto layoutType = cast<ShardedTensorType>(op.getFrom());
  if (!op.isWorld())
    return lowerGroup(rt, op, op.getCollective(), op.getLocal(), layoutType,
                      cast<ShardedTensorType>(*op.getTo()));
  if (severalPerRank(layoutType))
    return op.emitError() << "cannot lower '" << op->getName() << "' of "
                          << layoutType
                          << ": a rank owns several blocks, which this "
                             "collective does not support yet";
  Type elementType = layoutType.getElementType();
  if (failed(checkElementType(op, elementType)))
    return failure();
  FailureOr<int32_t> device = rt.deviceOf(op, layoutType);
  if (failed(device))
    return failure();

  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType resultType = op.getType();
  Value local = rt.tensorAsBuffer(b, loc, op.getLocal());
  auto outType = MemRefType::get(resultType.getShape(), elementType);
  Value out = memref::AllocOp::create(b, loc, outType);
  Value table = rt.blockTable(b, loc, layoutType, /*replicas=*/true);
  Value deviceCode = arith::ConstantIntOp::create(b, loc, *device, 32);
  if (failed(rt.callRuntime(
          op, b, "shardrt_mlir_all_gather_" + dtypeSuffix(elementType),
          {local, out, table, deviceCode})))
    return failure();
  Value result = bufferization::ToTensorOp::create(
      b, loc, resultType, out, /*restrict=*/true, /*writable=*/true);
  op.replaceAllUsesWith(result);
  op.erase();
  return success();
}

LogicalResult lowerScatter(RuntimeLowering &rt, SpmdScatterOp op) {
  auto layoutType = cast<ShardedTensorType>(op.getTo());
  if (severalPerRank(layoutType))
    return op.emitError() << "cannot lower '" << op->getName() << "' of "
                          << layoutType
                          << ": a rank owns several blocks, which this "
                             "collective does not support yet";
  Type elementType = layoutType.getElementType();
  if (failed(checkElementType(op, elementType)))
    return failure();
  FailureOr<int32_t> device = rt.deviceOf(op, layoutType);
  if (failed(device))
    return failure();

  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType localType = op.getType();
  Value source = rt.tensorAsBuffer(b, loc, op.getSource());
  FailureOr<Value> allocated = rt.allocLocal(op, b, layoutType, localType);
  if (failed(allocated))
    return failure();
  Value out = *allocated;
  Value table = rt.blockTable(b, loc, layoutType, /*replicas=*/true);
  Value root = arith::ConstantIntOp::create(b, loc, op.getRoot(), 64);
  Value deviceCode = arith::ConstantIntOp::create(b, loc, *device, 32);
  if (failed(rt.callRuntime(op, b,
                            "shardrt_mlir_scatter_" + dtypeSuffix(elementType),
                            {source, out, table, root, deviceCode})))
    return failure();
  Value result = bufferization::ToTensorOp::create(
      b, loc, localType, out, /*restrict=*/true, /*writable=*/true);
  op.replaceAllUsesWith(result);
  op.erase();
  return success();
}

/// The exchange from `from` to `to` of `local` (this rank's block of
/// `from`), replacing `op`'s one result: spmd.exchange (and a named
/// collective on CUDA blocks).
LogicalResult lowerExchange(RuntimeLowering &rt, Operation *op, Value local,
                            ShardedTensorType from, ShardedTensorType to) {
  Type elementType = to.getElementType();
  FailureOr<int32_t> toDevice = checkMove(rt, op, from, to);
  if (failed(toDevice))
    return failure();

  OpBuilder b(op);
  Location loc = op->getLoc();
  FailureOr<TwoLayoutCall> call = prepareCall(rt, b, op, local, from, to);
  if (failed(call))
    return failure();
  auto [source, out, fromTable, toTable] = *call;
  Value deviceCode = arith::ConstantIntOp::create(b, loc, *toDevice, 32);
  std::string suffix = dtypeSuffix(elementType);
  auto partial = dyn_cast<PlacementsSpecAttr>(from.getSpec());
  if (partial && partial.hasPartial()) {
    // Partial values: each destination element reduces one copy of every
    // partial index (shardrt_redistribute_reduce).
    std::vector<layout::Placement> placements(partial.getPlacements().begin(),
                                              partial.getPlacements().end());
    bool mixed = false;
    layout::Placement::Reduce reduce =
        *layout::partialReduce(placements, mixed);
    std::vector<int64_t> indices =
        layout::meshPartialIndices(partial.getMesh().getMesh(), placements);
    Value partialTable = rt.constantI64(b, loc, "__shard_partial", indices);
    Value opCode = arith::ConstantIntOp::create(b, loc, reduceCode(reduce), 32);
    if (failed(rt.callRuntime(op, b,
                              "shardrt_mlir_redistribute_reduce_" + suffix,
                              {source, out, fromTable, partialTable, toTable,
                               opCode, deviceCode})))
      return failure();
  } else if (failed(rt.callRuntime(
                 op, b, "shardrt_mlir_redistribute_" + suffix,
                 {source, out, fromTable, toTable, deviceCode}))) {
    return failure();
  }
  replaceWithResult(b, op, *call);
  return success();
}

struct LowerToRuntimePass
    : shardc::impl::ShardLowerToRuntimeBase<LowerToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<SpmdAllGatherOp, SpmdScatterOp, SpmdExchangeOp,
              SpmdReduceScatterOp, SpmdAllReduceOp, SpmdAllToAllOp,
              SpmdBroadcastOp, SpmdGatherOp>(op))
        ops.push_back(op);
    });
    // Functions and globals go into each op's nearest symbol table, so that
    // nested modules see them.
    llvm::DenseMap<Operation *, std::unique_ptr<RuntimeLowering>> lowerings;
    bool ok = true;
    for (Operation *op : ops) {
      Operation *scope = SymbolTable::getNearestSymbolTable(op->getParentOp());
      std::unique_ptr<RuntimeLowering> &rt = lowerings[scope];
      if (!rt)
        rt = std::make_unique<RuntimeLowering>(scope);
      auto exchange = [&](Value local, ShardedTensorType from,
                          ShardedTensorType to) {
        return lowerExchange(*rt, op, local, from, to);
      };
      LogicalResult r =
          llvm::TypeSwitch<Operation *, LogicalResult>(op)
              .Case([&](SpmdAllGatherOp o) { return lowerAllGather(*rt, o); })
              .Case([&](SpmdScatterOp o) { return lowerScatter(*rt, o); })
              .Case([&](SpmdExchangeOp o) {
                return exchange(o.getSource(), o.getFrom(), o.getTo());
              })
              .Case<SpmdReduceScatterOp, SpmdAllReduceOp, SpmdAllToAllOp,
                    SpmdBroadcastOp, SpmdGatherOp>([&](auto o) {
                return lowerGroup(*rt, op, o.getCollective(), o.getLocal(),
                                  o.getFrom(), o.getTo());
              });
      ok &= succeeded(r);
    }
    if (!ok)
      return signalPassFailure();
    // Mesh declarations mean nothing at run time.
    for (MeshOp mesh : llvm::make_early_inc_range(module.getOps<MeshOp>()))
      mesh.erase();
    // Global ops left here were never planned.
    WalkResult unplanned = module.walk([&](Operation *op) {
      if (!isa_and_nonnull<ShardDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitError() << "'" << op->getName()
                      << "' must be planned first: run "
                         "-shard-plan-redistribute before "
                         "-shard-lower-to-runtime";
      return WalkResult::interrupt();
    });
    if (unplanned.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
