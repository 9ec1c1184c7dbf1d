//===- LowerToRuntime.cpp - shard-lower-to-runtime ------------------------===//
//
// SPMD collectives -> calls of the shardrt C ABI (runtime/include/shardrt.h)
// on unranked memrefs, with each layout's block table as a constant global.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"

namespace shardc {
#define GEN_PASS_DEF_SHARDLOWERTORUNTIME
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

/// Device codes of shardrt.h.
constexpr int32_t kDeviceCPU = 0;
constexpr int32_t kDeviceCUDA = 1;

/// The runtime's symbol suffix for an element type, or "" if unsupported.
std::string dtypeSuffix(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isSignlessInteger(8))
    return "i8";
  if (type.isSignlessInteger(32))
    return "i32";
  if (type.isSignlessInteger(64))
    return "i64";
  if (type.isUnsignedInteger(8))
    return "ui8";
  return "";
}

/// Builds runtime calls, declaring functions and globals on first use.
class RuntimeLowering {
public:
  explicit RuntimeLowering(ModuleOp module)
      : module(module), symbols(module), ctx(module.getContext()) {}

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
    return kind == layout::Device::Kind::CUDA ? kDeviceCUDA : kDeviceCPU;
  }

  /// The block table of a layout: rows [owner, offsets..., sizes...].
  Value blockTable(OpBuilder &b, Location loc, ShardedTensorType type) {
    std::vector<layout::Block> blocks = type.getBlocks();
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
  /// type; 0 on ranks owning no block.
  SmallVector<Value> localDynamicSizes(OpBuilder &b, Location loc,
                                       ShardedTensorType type,
                                       RankedTensorType local) {
    SmallVector<Value> sizes;
    if (local.hasStaticShape())
      return sizes;
    std::vector<layout::Block> blocks = type.getBlocks();
    int64_t ranks = 0;
    for (const layout::Block &block : blocks)
      ranks = std::max(ranks, block.placement.rank + 1);
    int64_t dims = type.getRank();
    SmallVector<int64_t> table(ranks * dims, 0);
    for (const layout::Block &block : blocks)
      for (int64_t d = 0; d < dims; ++d)
        table[block.placement.rank * dims + d] = block.box.sizes[d];
    Value global =
        constantTable(b, loc, "__shard_local_sizes", table, {ranks, dims});

    Value rank32 =
        func::CallOp::create(
            b, loc, runtimeFunction("shardrt_rank", {}, {b.getI32Type()}),
            ValueRange{})
            .getResult(0);
    Value rank = arith::IndexCastOp::create(b, loc, b.getIndexType(), rank32);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value numRanks = arith::ConstantIndexOp::create(b, loc, ranks);
    Value owns = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, rank,
                                       numRanks);
    Value row = arith::SelectOp::create(b, loc, owns, rank, zero);
    for (int64_t d = 0; d < dims; ++d) {
      if (!local.isDynamicDim(d))
        continue;
      Value col = arith::ConstantIndexOp::create(b, loc, d);
      Value size = memref::LoadOp::create(b, loc, global, ValueRange{row, col});
      size = arith::IndexCastOp::create(b, loc, b.getIndexType(), size);
      sizes.push_back(arith::SelectOp::create(b, loc, owns, size, zero));
    }
    return sizes;
  }

  /// `tensor` as a memref<*xT> (read only; any layout).
  Value tensorAsUnranked(OpBuilder &b, Location loc, Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
    auto layoutAttr =
        StridedLayoutAttr::get(ctx, ShapedType::kDynamic, strides);
    auto memrefType =
        MemRefType::get(type.getShape(), type.getElementType(), layoutAttr);
    Value buffer = bufferization::ToBufferOp::create(b, loc, memrefType, tensor,
                                                     /*read_only=*/true);
    return unranked(b, loc, buffer);
  }

  Value unranked(OpBuilder &b, Location loc, Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    return memref::CastOp::create(
        b, loc, UnrankedMemRefType::get(type.getElementType(), 0), memref);
  }

  /// Declares (once) and returns a runtime function.
  func::FuncOp runtimeFunction(StringRef name, TypeRange inputs,
                               TypeRange results) {
    if (auto f = symbols.lookup<func::FuncOp>(name))
      return f;
    OpBuilder b(ctx);
    b.setInsertionPointToStart(module.getBody());
    auto f = func::FuncOp::create(b, module.getLoc(), name,
                                  b.getFunctionType(inputs, results));
    f.setPrivate();
    symbols.insert(f);
    return f;
  }

private:
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
      mb.setInsertionPointToStart(module.getBody());
      global = memref::GlobalOp::create(
          mb, module.getLoc(), prefix, mb.getStringAttr("private"), memrefType,
          data, /*constant=*/true, /*alignment=*/nullptr);
      symbols.insert(global); // renames on collision
    }
    return memref::GetGlobalOp::create(b, loc, memrefType, global.getSymName());
  }

  ModuleOp module;
  SymbolTable symbols;
  MLIRContext *ctx;
  llvm::DenseMap<Attribute, memref::GlobalOp> globals;
};

LogicalResult checkElementType(Operation *op, Type type) {
  if (!dtypeSuffix(type).empty())
    return success();
  return op->emitError() << "element type " << type
                         << " is not supported by the runtime (supported: "
                            "f32, f64, f16, bf16, i8, i32, i64, ui8)";
}

LogicalResult lowerAllGather(RuntimeLowering &rt, SpmdAllGatherOp op) {
  auto layoutType = cast<ShardedTensorType>(op.getLayout());
  Type elementType = layoutType.getElementType();
  if (failed(checkElementType(op, elementType)))
    return failure();
  FailureOr<int32_t> device = rt.deviceOf(op, layoutType);
  if (failed(device))
    return failure();

  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType resultType = op.getType();
  Value local = rt.tensorAsUnranked(b, loc, op.getLocal());
  auto outType = MemRefType::get(resultType.getShape(), elementType);
  Value out = memref::AllocOp::create(b, loc, outType);
  Value table = rt.unranked(b, loc, rt.blockTable(b, loc, layoutType));
  Value deviceCode = arith::ConstantIntOp::create(b, loc, *device, 32);
  Value outU = rt.unranked(b, loc, out);
  func::FuncOp callee = rt.runtimeFunction(
      "shardrt_mlir_all_gather_" + dtypeSuffix(elementType),
      {local.getType(), outU.getType(), table.getType(), b.getI32Type()}, {});
  func::CallOp::create(b, loc, callee,
                       ValueRange{local, outU, table, deviceCode});
  Value result = bufferization::ToTensorOp::create(
      b, loc, resultType, out, /*restrict=*/true, /*writable=*/true);
  op.replaceAllUsesWith(result);
  op.erase();
  return success();
}

LogicalResult lowerScatter(RuntimeLowering &rt, SpmdScatterOp op) {
  auto layoutType = cast<ShardedTensorType>(op.getLayout());
  Type elementType = layoutType.getElementType();
  if (failed(checkElementType(op, elementType)))
    return failure();
  FailureOr<int32_t> device = rt.deviceOf(op, layoutType);
  if (failed(device))
    return failure();

  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType localType = op.getType();
  Value source = rt.tensorAsUnranked(b, loc, op.getSource());
  SmallVector<Value> sizes =
      rt.localDynamicSizes(b, loc, layoutType, localType);
  auto outType = MemRefType::get(localType.getShape(), elementType);
  Value out = memref::AllocOp::create(b, loc, outType, sizes);
  Value table = rt.unranked(b, loc, rt.blockTable(b, loc, layoutType));
  Value root = arith::ConstantIntOp::create(b, loc, op.getRoot(), 64);
  Value deviceCode = arith::ConstantIntOp::create(b, loc, *device, 32);
  Value outU = rt.unranked(b, loc, out);
  func::FuncOp callee =
      rt.runtimeFunction("shardrt_mlir_scatter_" + dtypeSuffix(elementType),
                         {source.getType(), outU.getType(), table.getType(),
                          b.getI64Type(), b.getI32Type()},
                         {});
  func::CallOp::create(b, loc, callee,
                       ValueRange{source, outU, table, root, deviceCode});
  Value result = bufferization::ToTensorOp::create(
      b, loc, localType, out, /*restrict=*/true, /*writable=*/true);
  op.replaceAllUsesWith(result);
  op.erase();
  return success();
}

struct LowerToRuntimePass
    : shardc::impl::ShardLowerToRuntimeBase<LowerToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    RuntimeLowering rt(module);
    SmallVector<Operation *> ops;
    module.walk([&](Operation *op) {
      if (isa<SpmdAllGatherOp, SpmdScatterOp>(op))
        ops.push_back(op);
    });
    bool ok = true;
    for (Operation *op : ops) {
      LogicalResult r = isa<SpmdAllGatherOp>(op)
                            ? lowerAllGather(rt, cast<SpmdAllGatherOp>(op))
                            : lowerScatter(rt, cast<SpmdScatterOp>(op));
      ok &= succeeded(r);
    }
    if (!ok)
      return signalPassFailure();
    // Global ops left here were never planned.
    WalkResult unplanned = module.walk([&](Operation *op) {
      if (!isa<ShardDialect>(op->getDialect()))
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
