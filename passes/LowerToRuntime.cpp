//===- LowerToRuntime.cpp - shard-lower-to-runtime ------------------------===//
//
// SPMD collectives -> calls of the shardrt C ABI (runtime/include/shardrt.h)
// on unranked memrefs, with each layout's block table as a constant global.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"
#include "shardc/Passes/RuntimeCalls.h"

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

/// Builds runtime calls, declaring functions and globals on first use.
class RuntimeLowering {
public:
  /// Declares functions and globals in `symbolTableOp` (the nearest symbol
  /// table of the ops it lowers, usually the module).
  explicit RuntimeLowering(Operation *symbolTableOp)
      : scope(symbolTableOp), symbols(symbolTableOp),
        ctx(symbolTableOp->getContext()) {}

  /// The block table of a layout as a constant: a row per device block
  /// (deviceTableRows, what the runtime calls take).
  Value blockTable(OpBuilder &b, Location loc, ShardedTensorType type) {
    std::vector<int64_t> rows = deviceTableRows(type);
    const int64_t cols = 1 + 2 * type.getRank();
    return constantTable(b, loc, "__shard_blocks", rows,
                         {static_cast<int64_t>(rows.size()) / cols, cols});
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
    Value table = blockTable(b, loc, type);
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

/// Lowers the SPMD collective `op` to its runtime call (RuntimeCalls.h):
/// the constant tables as globals, this rank's input as a buffer, a new
/// buffer for its output, and a call of the function's MLIR entry point.
LogicalResult lowerCall(RuntimeLowering &rt, Operation *op) {
  FailureOr<RuntimeCall> call = runtimeCallOf(op);
  if (failed(call))
    return failure();
  using Fn = RuntimeCall::Function;
  OpBuilder b(op);
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Value input = rt.tensorAsBuffer(b, loc, call->input);
  Value out;
  if (call->function == Fn::AllGather ||
      call->function == Fn::ExchangeToWorld) {
    out = memref::AllocOp::create(
        b, loc,
        MemRefType::get(resultType.getShape(), resultType.getElementType()));
  } else {
    FailureOr<Value> allocated = rt.allocLocal(op, b, call->to, resultType);
    if (failed(allocated))
      return failure();
    out = *allocated;
  }
  const int64_t columns = call->tableColumns();
  auto table = [&](const std::vector<int64_t> &rows, StringRef prefix,
                   int64_t width) {
    return rt.constantTable(b, loc, prefix, rows,
                            {static_cast<int64_t>(rows.size()) / width, width});
  };
  auto i32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 32).getResult();
  };
  auto i64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, v, 64).getResult();
  };
  SmallVector<Value> args;
  switch (call->function) {
  case Fn::AllGather:
  case Fn::ExchangeToWorld:
    args = {input, out, table(call->fromTable, "__shard_blocks", columns),
            i32(call->device)};
    break;
  case Fn::Scatter:
    args = {input, out, table(call->toTable, "__shard_blocks", columns),
            i64(call->root), i32(call->device)};
    break;
  case Fn::Redistribute:
    args = {input, out, table(call->fromTable, "__shard_blocks", columns),
            table(call->toTable, "__shard_blocks", columns), i32(call->device)};
    break;
  case Fn::RedistributeReduce:
    args = {input,
            out,
            table(call->fromTable, "__shard_blocks", columns),
            rt.constantI64(b, loc, "__shard_partial", call->partial),
            table(call->toTable, "__shard_blocks", columns),
            i32(call->reduce),
            i32(call->device)};
    break;
  case Fn::GroupCollective:
    args = {i32(call->kind),
            input,
            out,
            table(call->fromTable, "__shard_blocks", columns),
            table(call->toTable, "__shard_blocks", columns),
            table(call->groups, "__shard_groups", 3),
            i64(call->root),
            i32(call->reduce),
            i32(call->device)};
    break;
  }
  if (failed(rt.callRuntime(op, b, call->entryPoint(), args)))
    return failure();
  Value result = bufferization::ToTensorOp::create(
      b, loc, resultType, out, /*restrict=*/true, /*writable=*/true);
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
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
      LogicalResult r = lowerCall(*rt, op);
      ok &= succeeded(r);
    }
    // This rank: shardrt_rank().
    SmallVector<SpmdRankOp> ranks;
    module.walk([&](SpmdRankOp op) { ranks.push_back(op); });
    for (SpmdRankOp op : ranks) {
      Operation *scope = SymbolTable::getNearestSymbolTable(op->getParentOp());
      std::unique_ptr<RuntimeLowering> &rt = lowerings[scope];
      if (!rt)
        rt = std::make_unique<RuntimeLowering>(scope);
      OpBuilder b(op);
      FailureOr<func::FuncOp> rankFn =
          rt->runtimeFunction(op, "shardrt_rank", {}, {b.getI32Type()});
      if (failed(rankFn)) {
        ok = false;
        continue;
      }
      Value rank32 = func::CallOp::create(b, op.getLoc(), *rankFn, ValueRange{})
                         .getResult(0);
      Value rank =
          arith::IndexCastOp::create(b, op.getLoc(), b.getIndexType(), rank32);
      op.getRank().replaceAllUsesWith(rank);
      op.erase();
    }
    if (!ok)
      return signalPassFailure();
    // A partitioned function's global types (shard.global) documented its
    // blocks; below the runtime calls nothing reads them.
    module.walk([&](func::FuncOp func) {
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        func.removeArgAttr(i, "shard.global");
      for (unsigned i = 0; i < func.getNumResults(); ++i)
        func.removeResultAttr(i,
                              StringAttr::get(&getContext(), "shard.global"));
    });
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
