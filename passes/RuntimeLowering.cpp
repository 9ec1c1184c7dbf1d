//===- RuntimeLowering.cpp - SPMD ops as runtime calls --------------------===//
//
// SPMD collectives -> calls of the shardrt C ABI (runtime/include/shardrt.h)
// on unranked memrefs, with each layout's block table as a constant global.
//
//===----------------------------------------------------------------------===//

#include "RuntimeLowering.h"

#include "DynamicExtents.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

#include <map>

using namespace mlir;
using namespace shardc;

namespace {

/// Builds runtime calls in one symbol table, declaring functions, wrappers
/// and constant tables on first use. Nothing is cached here: each is found
/// again by a name derived from what it is (a runtime function by its name,
/// a wrapper by its function and argument types, a table by its contents),
/// so that lowerings of single ops, as bufferization makes them, share them.
class RuntimeLowering {
public:
  RuntimeLowering(Operation *op, SymbolTableCollection &tables)
      : scope(SymbolTable::getNearestSymbolTable(op->getParentOp())),
        symbols(tables.getSymbolTable(scope)), ctx(op->getContext()) {}

  /// The block table of a layout as a constant: a row per device block
  /// (deviceTableRows, what the runtime calls take).
  Value blockTable(OpBuilder &b, Location loc, ShardedTensorType type) {
    std::vector<int64_t> rows = deviceTableRows(type);
    const int64_t cols = 1 + 2 * type.getRank();
    return constantTable(b, loc, "__shard_blocks", rows,
                         {static_cast<int64_t>(rows.size()) / cols, cols});
  }

  /// This rank's index as an i32 (`shardrt_rank()`).
  FailureOr<Value> rank(Operation *op, OpBuilder &b) {
    FailureOr<func::FuncOp> rankFn =
        runtimeFunction(op, "shardrt_rank", {}, {b.getI32Type()});
    if (failed(rankFn))
      return failure();
    return func::CallOp::create(b, op->getLoc(), *rankFn, ValueRange{})
        .getResult(0);
  }

  /// This rank's block sizes under `type`, for the dynamic dims of its local
  /// type; 0 on ranks owning no block. Found at run time by scanning the
  /// block table for this rank's row (`patchedTable` where the run time
  /// made it: a layout cutting a dynamic dim), but in a dim with a value in
  /// `known` (a dynamic dim of the tensor no layout cuts: its extent).
  FailureOr<SmallVector<Value>> localDynamicSizes(Operation *op, OpBuilder &b,
                                                  ShardedTensorType type,
                                                  ArrayRef<int64_t> shape,
                                                  ArrayRef<Value> known,
                                                  Value patchedTable = {}) {
    SmallVector<Value> sizes;
    SmallVector<int64_t> dims;
    for (auto [d, size] : llvm::enumerate(shape))
      if (ShapedType::isDynamic(size) && !known[d])
        dims.push_back(d);
    // The dynamic dims' sizes in order: known ones, then each scanned one.
    auto inOrder = [&](ValueRange scanned) {
      size_t next = 0;
      for (auto [d, size] : llvm::enumerate(shape))
        if (ShapedType::isDynamic(size))
          sizes.push_back(known[d] ? known[d] : scanned[next++]);
      return sizes;
    };
    if (dims.empty())
      return inOrder({});
    Location loc = op->getLoc();
    FailureOr<Value> rank32 = rank(op, b);
    if (failed(rank32))
      return failure();
    Value rank = arith::ExtSIOp::create(b, loc, b.getI64Type(), *rank32);
    Value table = patchedTable ? patchedTable : blockTable(b, loc, type);
    if (auto strided = stridedLocalShapes(type)) {
      // Strided shards: a rank's blocks are rows of its N-D local tensor;
      // its sizes are one row of a table [rank, zeros, sizes].
      std::vector<int64_t> rows;
      for (const auto &[owner, local] : *strided) {
        rows.push_back(owner);
        rows.insert(rows.end(), local.size(), 0);
        rows.insert(rows.end(), local.begin(), local.end());
      }
      const int64_t cols = 1 + 2 * type.getRank();
      table = constantTable(b, loc, "__shard_local_shapes", rows,
                            {static_cast<int64_t>(rows.size()) / cols, cols});
    }
    const bool packed = severalPerRank(type) && !stridedLocalShapes(type);
    int64_t numBlocks = cast<MemRefType>(table.getType()).getDimSize(0);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value count = arith::ConstantIndexOp::create(b, loc, numBlocks);
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
    return inOrder(loop.getResults());
  }

  /// A constant 1-D i64 global holding `values`; returns its memref.
  Value constantI64(OpBuilder &b, Location loc, StringRef prefix,
                    ArrayRef<int64_t> values) {
    return constantTable(b, loc, prefix, values,
                         {static_cast<int64_t>(values.size())});
  }

  /// Calls the runtime function `name` with `args`, each ranked memref
  /// passed as an unranked one. The LLVM lowering of a ranked -> unranked
  /// cast puts the ranked descriptor on the stack (an `llvm.alloca`); in a
  /// loop, every iteration would grow the stack until it overflows. So the
  /// casts and the call sit in a private function of their own, one per
  /// runtime function and argument types (`@__shard_call_<name>`): a
  /// function's stack is freed when it returns, whatever later passes do
  /// (canonicalization inlines a `memref.alloca_scope` that ends a loop
  /// body, and the stack grew again). Memref arguments are passed with
  /// every size and stride dynamic, so that one wrapper serves every shape.
  LogicalResult callRuntime(Operation *op, OpBuilder &b, StringRef name,
                            ValueRange args) {
    Location loc = op->getLoc();
    SmallVector<Value> passed;
    SmallVector<Type> inputs;
    for (Value arg : args) {
      auto ranked = dyn_cast<MemRefType>(arg.getType());
      if (!ranked) {
        passed.push_back(arg);
        inputs.push_back(arg.getType());
        continue;
      }
      MemRefType general = dynamicType(ranked);
      passed.push_back(general == ranked
                           ? arg
                           : memref::CastOp::create(b, loc, general, arg));
      inputs.push_back(UnrankedMemRefType::get(ranked.getElementType(), 0));
    }
    FailureOr<func::FuncOp> callee = runtimeFunction(op, name, inputs, {});
    if (failed(callee))
      return failure();
    FunctionType wrapperType =
        b.getFunctionType(ValueRange(passed).getTypes(), {});
    func::FuncOp wrapper = findWrapper(name, wrapperType);
    if (!wrapper) {
      OpBuilder wb(ctx);
      wb.setInsertionPointToStart(&scope->getRegion(0).front());
      Location sloc = scope->getLoc();
      wrapper = func::FuncOp::create(wb, sloc, ("__shard_call_" + name).str(),
                                     wrapperType);
      wrapper.setPrivate();
      symbols.insert(wrapper); // renames on collision
      Block *body = wrapper.addEntryBlock();
      wb.setInsertionPointToStart(body);
      SmallVector<Value> operands;
      for (auto [arg, type] : llvm::zip_equal(body->getArguments(), inputs))
        operands.push_back(arg.getType() == type
                               ? Value(arg)
                               : memref::CastOp::create(wb, sloc, type, arg));
      func::CallOp::create(wb, sloc, *callee, operands);
      func::ReturnOp::create(wb, sloc);
    }
    func::CallOp::create(b, loc, wrapper, passed);
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
  /// tables (named by a hash of their contents); returns its memref.
  Value constantTable(OpBuilder &b, Location loc, StringRef prefix,
                      ArrayRef<int64_t> values, ArrayRef<int64_t> shape) {
    auto memrefType = MemRefType::get(shape, b.getI64Type());
    auto data = DenseElementsAttr::get(
        RankedTensorType::get(shape, b.getI64Type()), values);
    SmallVector<int64_t> key(shape.begin(), shape.end());
    key.push_back(-1);
    key.append(values.begin(), values.end());
    uint64_t hash = llvm::xxh3_64bits(
        ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(key.data()),
                          key.size() * sizeof(int64_t)));
    std::string name = (prefix + "_" + llvm::utohexstr(hash, true)).str();
    auto global = dyn_cast_or_null<memref::GlobalOp>(symbols.lookup(name));
    if (!global || global.getType() != memrefType ||
        global.getInitialValueAttr() != data) {
      OpBuilder mb(ctx);
      mb.setInsertionPointToStart(&scope->getRegion(0).front());
      global = memref::GlobalOp::create(
          mb, scope->getLoc(), name, mb.getStringAttr("private"), memrefType,
          data, /*constant=*/true, /*alignment=*/nullptr);
      symbols.insert(global); // renames on a collision of hashes
    }
    return memref::GetGlobalOp::create(b, loc, memrefType, global.getSymName());
  }

private:
  /// `type` with every size, stride and the offset dynamic.
  static MemRefType dynamicType(MemRefType type) {
    SmallVector<int64_t> shape(type.getRank(), ShapedType::kDynamic);
    SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
    auto layout = StridedLayoutAttr::get(type.getContext(),
                                         ShapedType::kDynamic, strides);
    return MemRefType::get(shape, type.getElementType(), layout,
                           type.getMemorySpace());
  }

  /// The wrapper of runtime function `name` of type `type`, if declared:
  /// `__shard_call_<name>`, or that name with a suffix where another type
  /// took it first.
  func::FuncOp findWrapper(StringRef name, FunctionType type) {
    std::string base = ("__shard_call_" + name).str();
    for (int suffix = -1;; ++suffix) {
      std::string candidate =
          suffix < 0 ? base : base + "_" + std::to_string(suffix);
      Operation *found = symbols.lookup(candidate);
      if (!found)
        return nullptr;
      auto f = dyn_cast<func::FuncOp>(found);
      if (f && f.getFunctionType() == type && !f.isExternal())
        return f;
    }
  }

  Operation *scope;
  SymbolTable &symbols;
  MLIRContext *ctx;
};

} // namespace

FailureOr<Value>
shardc::lowerCollectiveToRuntime(OpBuilder &b, Operation *op, Value input,
                                 AllocateBuffer allocate,
                                 SymbolTableCollection &tables) {
  FailureOr<RuntimeCall> call = runtimeCallOf(op);
  if (failed(call))
    return failure();
  RuntimeLowering rt(op, tables);
  using Fn = RuntimeCall::Function;
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  auto outType =
      MemRefType::get(resultType.getShape(), resultType.getElementType());
  // The run-time extent of each dynamic dim: the op's `extents`, or, for a
  // dim no layout cuts, the input buffer's own on every rank. The tables,
  // made with the nominal extent, get them at run time.
  ShardedTensorType global = call->from;
  SmallVector<Value> extents(global.getRank());
  if (!global.hasStaticShape()) {
    auto inputType = dyn_cast<MemRefType>(input.getType());
    if (call->packed || severalPerRank(call->to) || !inputType ||
        inputType.getRank() != global.getRank())
      return op->emitError()
             << "cannot move " << global
             << ": a rank owns several blocks of a tensor with dynamic dims, "
                "whose packed sizes are not known before it runs";
    ValueRange given = op->getOperands().drop_front();
    std::vector<DimCut> cutFrom = dynamicDimCuts(call->from),
                        cutTo = dynamicDimCuts(call->to);
    for (int64_t d = 0, next = 0; d < global.getRank(); ++d) {
      if (!global.isDynamicDim(d))
        continue;
      if (!given.empty())
        extents[d] = given[next++];
      else if (cutFrom[d].cuts() || cutTo[d].cuts())
        return op->emitError()
               << "cannot move " << global << ": a layout cuts dynamic dim "
               << d << " and the op gives no extents";
      else
        extents[d] = memref::DimOp::create(b, loc, input, d);
    }
  }
  // A packed call (a rank owning several blocks of either layout) reads
  // its input as one contiguous run: a view with strides (a column's
  // slice) is copied to a buffer of its own first (the runtime refused it,
  // aborting every rank).
  if (auto inputType = dyn_cast<MemRefType>(input.getType());
      call->packed && inputType && !inputType.getLayout().isIdentity()) {
    SmallVector<Value> dims;
    for (int64_t d = 0; d < inputType.getRank(); ++d)
      if (inputType.isDynamicDim(d))
        dims.push_back(memref::DimOp::create(b, loc, input, d));
    FailureOr<Value> copy = allocate(
        b, loc,
        MemRefType::get(inputType.getShape(), inputType.getElementType()),
        dims);
    if (failed(copy))
      return failure();
    memref::CopyOp::create(b, loc, input, *copy);
    input = *copy;
  }
  const int64_t columns = call->tableColumns();
  // Patched tables by rows and type: two layouts with the same rows at the
  // nominal extent may differ at run time (a nested cut and a flat one).
  std::map<std::pair<std::vector<int64_t>, const void *>, Value> patched;
  auto table = [&](const std::vector<int64_t> &rows, StringRef prefix,
                   int64_t width, ShardedTensorType type) -> Value {
    const bool patch = prefix == "__shard_blocks" && !global.hasStaticShape();
    // One copy per table (a reduction's source and destination tables are
    // often the same).
    const auto key = std::make_pair(
        rows, cutsDynamicDim(type) ? type.getAsOpaquePointer() : nullptr);
    if (auto done = patched.find(key); patch && done != patched.end())
      return done->second;
    Value constant =
        rt.constantTable(b, loc, prefix, rows,
                         {static_cast<int64_t>(rows.size()) / width, width});
    if (!patch)
      return constant;
    // A block table of a tensor with dynamic dims: a copy, each row's box
    // in such a dim (made with the nominal extent) replaced by the run-time
    // one's: the whole dim, or the chunk of the row's mesh coordinates on
    // the axes cutting it (a table of them, by row).
    const int64_t rank = global.getRank();
    std::vector<DimCut> cuts = dynamicDimCuts(type);
    std::map<int64_t, std::vector<int64_t>> coords;
    std::vector<int64_t> coordRows;
    int64_t coordColumns = 0;
    for (const DimCut &cut : cuts)
      coordColumns += static_cast<int64_t>(cut.axes.size());
    if (coordColumns > 0) {
      coords = meshCoordinatesByRank(type);
      for (size_t r = 0; r < rows.size(); r += width) {
        const std::vector<int64_t> &at = coords.at(rows[r]);
        for (const DimCut &cut : cuts)
          for (int64_t axis : cut.axes)
            coordRows.push_back(at[axis]);
      }
    }
    auto tableType = cast<MemRefType>(constant.getType());
    Value copy = memref::AllocOp::create(b, loc, tableType);
    memref::CopyOp::create(b, loc, constant, copy);
    Value coordTable =
        coordColumns == 0
            ? Value()
            : rt.constantTable(b, loc, "__shard_coords", coordRows,
                               {tableType.getDimSize(0), coordColumns});
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value count =
        arith::ConstantIndexOp::create(b, loc, tableType.getDimSize(0));
    scf::ForOp::create(
        b, loc, zero, count, one, ValueRange{},
        [&](OpBuilder &lb, Location l, Value row, ValueRange) {
          auto store = [&](Value value, int64_t column) {
            Value col = arith::ConstantIndexOp::create(lb, l, column);
            Value v = arith::IndexCastOp::create(lb, l, lb.getI64Type(), value);
            memref::StoreOp::create(lb, l, v, copy, ValueRange{row, col});
          };
          int64_t coordColumn = 0;
          for (int64_t d = 0; d < rank; ++d) {
            if (!extents[d])
              continue;
            const DimCut &cut = cuts[d];
            if (!cut.cuts()) {
              store(extents[d], 1 + rank + d);
              continue;
            }
            SmallVector<Value> indices;
            for (size_t k = 0; k < cut.axes.size(); ++k) {
              Value col = arith::ConstantIndexOp::create(lb, l, coordColumn++);
              Value index = memref::LoadOp::create(lb, l, coordTable,
                                                   ValueRange{row, col});
              indices.push_back(
                  arith::IndexCastOp::create(lb, l, lb.getIndexType(), index));
            }
            auto [offset, size] =
                buildMeshChunk(lb, l, extents[d], cut.counts, indices);
            store(offset, 1 + d);
            store(size, 1 + rank + d);
          }
          scf::YieldOp::create(lb, l);
        });
    patched[key] = copy;
    return copy;
  };
  SmallVector<Value> sizes;
  if (call->function != Fn::AllGather &&
      call->function != Fn::ExchangeToWorld) {
    // This rank's block of `to`: the dims no layout cuts are the extents;
    // the others are read from its (patched) table.
    std::vector<DimCut> cutTo = dynamicDimCuts(call->to);
    SmallVector<Value> known(extents);
    for (int64_t d = 0; d < global.getRank(); ++d)
      if (cutTo[d].cuts())
        known[d] = Value();
    Value toTable =
        cutsDynamicDim(call->to)
            ? table(call->toTable, "__shard_blocks", columns, call->to)
            : Value();
    FailureOr<SmallVector<Value>> dynamic = rt.localDynamicSizes(
        op, b, call->to, resultType.getShape(), known, toTable);
    if (failed(dynamic))
      return failure();
    sizes = std::move(*dynamic);
  } else {
    // The whole tensor: its dynamic dims' extents.
    for (int64_t d = 0; d < resultType.getRank(); ++d)
      if (resultType.isDynamicDim(d))
        sizes.push_back(extents[d]);
  }
  FailureOr<Value> out = allocate(b, loc, outType, sizes);
  if (failed(out))
    return failure();
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
    args = {input, *out,
            table(call->fromTable, "__shard_blocks", columns, call->from),
            i32(call->device)};
    break;
  case Fn::Scatter:
    args = {input, *out,
            table(call->toTable, "__shard_blocks", columns, call->to),
            i64(call->root), i32(call->device)};
    break;
  case Fn::Redistribute:
    args = {input, *out,
            table(call->fromTable, "__shard_blocks", columns, call->from),
            table(call->toTable, "__shard_blocks", columns, call->to),
            i32(call->device)};
    break;
  case Fn::RedistributeReduce:
    args = {input,
            *out,
            table(call->fromTable, "__shard_blocks", columns, call->from),
            rt.constantI64(b, loc, "__shard_partial", call->partial),
            table(call->toTable, "__shard_blocks", columns, call->to),
            i32(call->reduce),
            i32(call->device)};
    break;
  case Fn::GroupCollective:
    args = {i32(call->kind),
            input,
            *out,
            table(call->fromTable, "__shard_blocks", columns, call->from),
            table(call->toTable, "__shard_blocks", columns, call->to),
            table(call->groups, "__shard_groups", 3, call->from),
            i64(call->root),
            i32(call->reduce),
            i32(call->device)};
    break;
  }
  if (failed(rt.callRuntime(op, b, call->entryPoint(), args)))
    return failure();
  return *out;
}

FailureOr<Value> shardc::lowerRankToRuntime(OpBuilder &b, Operation *op,
                                            SymbolTableCollection &tables) {
  RuntimeLowering rt(op, tables);
  FailureOr<Value> rank32 = rt.rank(op, b);
  if (failed(rank32))
    return failure();
  return Value(
      arith::IndexCastOp::create(b, op->getLoc(), b.getIndexType(), *rank32));
}
