//===- Compile.cpp - shard-run's JIT compilation
//---------------------------===//
//
// The program as written or partitioned, lowered and JIT-compiled
// (Compile.h).
//===----------------------------------------------------------------------===//

#include "Compile.h"
#include "RankZero.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"
#include "shardc/Planning/ShardPlanner.h"
#include "shardc/Rules/LoopSharding.h"
#include "shardc/Rules/Payload.h"

#include "mlir/Conversion/TosaToSCF/TosaToSCF.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::run;

namespace shardc::run::detail {

static constexpr llvm::StringLiteral kLayoutAttr = "shard.layout";
static constexpr llvm::StringLiteral kGlobalAttr = "shard.global";

/// Drops every annotation: the program as written, on whole tensors.
static void stripLayouts(ModuleOp module) {
  module.walk([](Operation *op) {
    // An op's sharding (propagation's decision, or a user's pin).
    op->removeAttr(kOpShardingAttr);
    if (auto constraint = dyn_cast<ConstraintOp>(op)) {
      constraint.getResult().replaceAllUsesWith(constraint.getInput());
      constraint.erase();
      return;
    }
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      // Propagation's hints (-shard-propagate=auto=true) go too.
      func->removeAttr("shard.mesh");
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        func.removeArgAttr(i, kLayoutAttr);
        func.removeArgAttr(i, StringAttr::get(op->getContext(), "shard.batch"));
      }
      for (unsigned i = 0; i < func.getNumResults(); ++i)
        func.removeResultAttr(i,
                              StringAttr::get(op->getContext(), kLayoutAttr));
    }
  });
}

/// Whether the program as written communicates itself: a shard op that
/// stripLayouts keeps (a global op such as shard.distribute, an SPMD
/// collective, shard.spmd.rank), so that it is already a distributed
/// program and runs on every rank, as its collectives need.
bool writtenCommunicates(ModuleOp module) {
  return module
      .walk([](Operation *op) {
        if (op->getDialect() && op->getDialect()->getNamespace() == "shard" &&
            !isa<ConstraintOp, MeshOp>(op))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Erases the functions `entry` does not call (directly or not): what runs,
/// and what the report counts, is the entry's.
static void keepReachable(ModuleOp module, func::FuncOp entry) {
  SymbolTable symbols(module);
  llvm::DenseSet<Operation *> reached{entry};
  SmallVector<func::FuncOp> work{entry};
  while (!work.empty()) {
    func::FuncOp f = work.pop_back_val();
    f.walk([&](func::CallOp call) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (callee && reached.insert(callee).second)
        work.push_back(callee);
    });
  }
  for (func::FuncOp f :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!reached.contains(f))
      f.erase();
  // A nested module is a program of its own (its symbols are its own: no
  // call reaches it from here): its layouts named ranks the entry does not
  // run on, and its moves were counted in the entry's report.
  for (ModuleOp nested : llvm::make_early_inc_range(module.getOps<ModuleOp>()))
    nested.erase();
  // The entry is called by the JIT (a private one was not found there:
  // "Symbols not found").
  entry.setPublic();
}

/// Every f32, f16 and bf16 of `module` as f64 (types, constants): the
/// program as written in double precision, the reference that those
/// results' rounding is measured against. Fails where the program does not
/// stay valid (a bitcast of f32 to i32, an extension of f16 to f32, say);
/// the caller then keeps its first tolerance.
static LogicalResult widenFloats(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  Type f64 = Float64Type::get(ctx);
  auto narrow = [](Type type) {
    return type.isF32() || type.isF16() || type.isBF16();
  };
  using AttrResult = std::optional<std::pair<Attribute, WalkResult>>;
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](FloatType type) -> std::optional<Type> {
    if (!narrow(type))
      return std::nullopt;
    return f64;
  });
  replacer.addReplacement([&](FloatAttr attr) -> AttrResult {
    if (!narrow(attr.getType()))
      return std::nullopt;
    return std::make_pair(FloatAttr::get(f64, attr.getValueAsDouble()),
                          WalkResult::skip());
  });
  replacer.addReplacement([&](DenseFPElementsAttr attr) -> AttrResult {
    if (!narrow(attr.getElementType()))
      return std::nullopt;
    Attribute wide = attr.mapValues(f64, [](const llvm::APFloat &value) {
      llvm::APFloat w = value;
      bool lost = false;
      w.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &lost);
      return w.bitcastToAPInt();
    });
    return std::make_pair(wide, WalkResult::skip());
  });
  replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  return verify(module);
}

/// Every CUDA device of `module`'s layouts as the CPU device of the same
/// rank: shard-run's buffers are host memory (the JIT-compiled program
/// allocates them with malloc), so a program on CUDA layouts runs the same
/// plan on host buffers through the MPI backend. Returns whether there were
/// any.
static bool cudaLayoutsOnHost(ModuleOp module, bool retarget = true) {
  using Kind = layout::Device::Kind;
  bool any = false;
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](MeshAttr mesh) -> std::optional<Attribute> {
    if (mesh.getKind() != Kind::CUDA)
      return std::nullopt;
    any = true;
    if (!retarget)
      return std::nullopt;
    return MeshAttr::get(mesh.getContext(), mesh.getShape(), mesh.getDevices(),
                         mesh.getAxes(), Kind::CPU);
  });
  replacer.addReplacement([&](DeviceAttr device) -> std::optional<Attribute> {
    if (device.getKind() != Kind::CUDA)
      return std::nullopt;
    any = true;
    if (!retarget)
      return std::nullopt;
    return DeviceAttr::get(device.getContext(), device.getRank(), Kind::CPU,
                           -1);
  });
  replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  return any;
}

/// `dims` with each dynamic dim of size `size` (--dynamic-size).
static SmallVector<int64_t> concreteDims(ArrayRef<int64_t> dims, int64_t size) {
  SmallVector<int64_t> out(dims);
  for (int64_t &d : out)
    if (ShapedType::isDynamic(d))
      d = size;
  return out;
}

/// The entry's type in this run: its tensors' dynamic dims of size `size`.
FunctionType concreteType(FunctionType type, int64_t size) {
  auto concrete = [&](Type t) -> Type {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || tensor.hasStaticShape())
      return t;
    return RankedTensorType::get(concreteDims(tensor.getShape(), size),
                                 tensor.getElementType(), tensor.getEncoding());
  };
  SmallVector<Type> inputs, results;
  for (Type t : type.getInputs())
    inputs.push_back(concrete(t));
  for (Type t : type.getResults())
    results.push_back(concrete(t));
  return FunctionType::get(type.getContext(), inputs, results);
}

/// A layout of the entry's in this run: its dynamic dims (whole, or cut by
/// torch.chunk of the run-time extent) of size `size`.
static ShardedTensorType concreteGlobal(ShardedTensorType type, int64_t size) {
  if (!type || type.hasStaticShape())
    return type;
  return ShardedTensorType::get(type.getContext(),
                                concreteDims(type.getDims(), size),
                                type.getElementType(), type.getSpec());
}

/// Rank 0's results (`descriptors`, as an entry of type `type` returned
/// them) on every rank, each packed row-major in a buffer of its own.
/// Every rank calls it.

/// Whether some tensor in `module` has a dynamic dim.
static bool hasDynamicTensors(ModuleOp module) {
  auto dynamic = [](Type t) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && !tensor.hasStaticShape();
  };
  return module
      .walk([&](Operation *op) {
        if (llvm::any_of(op->getResultTypes(), dynamic))
          return WalkResult::interrupt();
        for (Region &region : op->getRegions())
          for (Block &block : region)
            if (llvm::any_of(block.getArgumentTypes(), dynamic))
              return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether a slice or an element of the module is taken or placed at an
/// offset or index only the run time knows (a loop's induction variable: a
/// recurrence's step; an index read from data: a lookup), which the program
/// may carry past its tensor's end.
static bool indexedAtRunTime(ModuleOp module) {
  auto runTime = [](ValueRange indices) {
    return llvm::any_of(indices,
                        [](Value v) { return !getConstantIntValue(v); });
  };
  return module
      .walk([&](Operation *op) {
        if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
            slice && !slice.getOffsets().empty())
          return WalkResult::interrupt();
        if (auto insert = dyn_cast<tensor::InsertSliceOp>(op);
            insert && !insert.getOffsets().empty())
          return WalkResult::interrupt();
        if (auto extract = dyn_cast<tensor::ExtractOp>(op);
            extract && runTime(extract.getIndices()))
          return WalkResult::interrupt();
        if (auto insert = dyn_cast<tensor::InsertOp>(op);
            insert && runTime(insert.getIndices()))
          return WalkResult::interrupt();
        if (isa<tensor::GatherOp, tosa::GatherOp>(op))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// `op` as runtime op verification prints it (without its regions).
static std::string opText(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os,
            OpPrintingFlags().skipRegions().useLocalScope().assumeVerified());
  return text;
}

/// Runtime op verification's message: `subject` (an op's text), `what`
/// failed, at `loc`.
static std::string verificationMessage(StringRef subject, StringRef what,
                                       Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "ERROR: Runtime op verification failed\n"
     << subject << "\n^ " << what << "\nLocation: ";
  loc.print(os);
  return text;
}

/// At `b`: stops the rank with `message` unless 0 <= `index` < `bound`.
static void assertInRange(OpBuilder &b, Location loc, Value index, Value bound,
                          const std::string &message) {
  Value above =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index,
                            arith::ConstantIndexOp::create(b, loc, 0));
  Value below =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, bound);
  cf::AssertOp::create(b, loc, arith::AndIOp::create(b, loc, above, below),
                       message);
}

/// Before `op`: a check that every element of `indices` (a ranked tensor
/// of integers or indices: its rank is the loops') is at least 0 and below
/// `boundAt(its coordinates)`, in loops over its dims; `message` where one is
/// not.
static void checkIndices(
    Operation *op, Value indices,
    llvm::function_ref<Value(OpBuilder &, Location, ValueRange)> boundAt,
    const std::string &message) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(indices.getType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> at;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    auto loop = scf::ForOp::create(
        b, loc, zero, tensor::DimOp::create(b, loc, indices, d), one);
    at.push_back(loop.getInductionVar());
    b.setInsertionPointToStart(loop.getBody());
  }
  Value index = tensor::ExtractOp::create(b, loc, indices, at);
  if (!isa<IndexType>(index.getType()))
    index = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  assertInRange(b, loc, index, boundAt(b, loc, at), message);
}

/// The bounds MLIR's runtime op verification does not check: the indices
/// of tensor.gather and tosa.gather (each within the dim it selects), and
/// the global index of a lookup masked to this rank's rows (maskedRead: in
/// bounds here whatever it was, so checked against the table's extent in
/// all, kLookupExtentAttr), each stopping the rank as MLIR's checks do.
static void checkGatheredIndices(ModuleOp module) {
  module.walk([](Operation *op) {
    // Indices of unknown rank (tosa.gather's verifier allows them) are not
    // looped over: such a gather is not lowered either.
    auto ranked = [](Value v) { return isa<RankedTensorType>(v.getType()); };
    if (auto gather = dyn_cast<tensor::GatherOp>(op)) {
      ArrayRef<int64_t> dims = gather.getGatherDims();
      if (dims.empty() || !ranked(gather.getIndices()))
        return;
      Value source = gather.getSource();
      checkIndices(
          op, gather.getIndices(),
          [&](OpBuilder &b, Location loc, ValueRange at) -> Value {
            // The last coordinate says which gathered dim the index is of.
            Value bound = tensor::DimOp::create(b, loc, source, dims.back());
            for (size_t j = dims.size() - 1; j-- > 0;) {
              Value isJ = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::eq, at.back(),
                  arith::ConstantIndexOp::create(b, loc, j));
              bound = arith::SelectOp::create(
                  b, loc, isJ, tensor::DimOp::create(b, loc, source, dims[j]),
                  bound);
            }
            return bound;
          },
          verificationMessage(opText(op),
                              "index out of bounds of the dim it gathers "
                              "along",
                              op->getLoc()));
      return;
    }
    if (auto gather = dyn_cast<tosa::GatherOp>(op)) {
      Value values = gather.getValues();
      if (!ranked(gather.getIndices()) || !ranked(values))
        return;
      checkIndices(
          op, gather.getIndices(),
          [&](OpBuilder &b, Location loc, ValueRange) -> Value {
            return tensor::DimOp::create(b, loc, values, 1);
          },
          verificationMessage(opText(op),
                              "index out of bounds of the values' dim 1 (K)",
                              op->getLoc()));
      return;
    }
    if (auto sub = dyn_cast<arith::SubIOp>(op)) {
      auto extent = sub->getAttrOfType<IntegerAttr>(kLookupExtentAttr);
      if (!extent)
        return;
      OpBuilder b(op);
      Location loc = op->getLoc();
      assertInRange(
          b, loc, sub.getLhs(),
          arith::ConstantIndexOp::create(b, loc, extent.getInt()),
          verificationMessage(
              "a lookup in a table cut along the dim it looks up (each rank "
              "reads the rows it holds)",
              "index out of bounds of the dim it looks up (" +
                  std::to_string(extent.getInt()) + " in all)",
              loc));
    }
  });
}

FailureOr<Compiled> compile(ModuleOp module, const RunOptions &options,
                            bool partitioned, const std::string &report,
                            bool widen) {
  OwningOpRef<ModuleOp> copy = module.clone();
  auto entry = copy->lookupSymbol<func::FuncOp>(options.entry);
  keepReachable(*copy, entry);
  // A constant whose data the file does not carry (dense_resource, its
  // blob elided as MLIR's tests print them) named at its op: the JIT's
  // translation said "resource does not exist" at no location.
  WalkResult elided = copy->walk([&](Operation *op) {
    for (NamedAttribute attr : op->getAttrs())
      if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr.getValue()))
        if (!resource.getRawHandle().getBlob()) {
          mlir::emitError(op->getLoc())
              << "'" << op->getName() << "' holds dense_resource<"
              << resource.getRawHandle().getKey()
              << ">, whose data the file does not carry (elided): the "
                 "program cannot run; give the constant its values";
          return WalkResult::interrupt();
        }
    return WalkResult::advance();
  });
  if (elided.wasInterrupted())
    return failure();
  // The program's own assertions (torch-mlir checks its inputs with
  // cf.assert) say that they are the program's, and where: a failed one
  // stops the rank as shard-run's checks do, and was taken for a crash of
  // shard-run (its message alone above "please report it").
  copy->walk([](cf::AssertOp assert) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "ERROR: the program's own assertion failed: " << assert.getMsg()
       << "\nLocation: ";
    assert.getLoc().print(os);
    assert.setMsg(text);
  });
  entry->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                 UnitAttr::get(module.getContext()));
  Compiled compiled;
  // The functions the program declares without a body: the JIT finds them
  // in the C library or MLIR's runner utilities, or nowhere (call()).
  copy->walk([&](func::FuncOp f) {
    if (f.isExternal())
      compiled.declared.push_back(f.getSymName().str());
  });
  if (!partitioned) {
    stripLayouts(*copy);
    if (widen && failed(widenFloats(*copy)))
      return failure();
    // The reference with its calls inlined: bufferization then decides
    // within one function, not across calls, where it took a call's
    // results to be buffers of their own, so a wrong in-place decision
    // there cannot make the reference wrong alike with the partitioned run.
    PassManager inlineCalls(module.getContext());
    inlineCalls.addPass(createInlinerPass());
    if (failed(inlineCalls.run(*copy)))
      return failure();
  }
  compiled.type = entry.getFunctionType();
  // One cost model: --propagate's, for propagation, partition and the
  // lowering alike.
  ShardPartitionOptions partition;
  partition.report = report;
  planning::PlanningOptions costModel;
  if (partitioned) {
    PassManager pm(module.getContext());
    std::string errorText;
    llvm::raw_string_ostream errors(errorText);
    FailureOr<std::unique_ptr<Pass>> propagate =
        parseShardPropagate(options.propagate, costModel, errors);
    if (failed(propagate))
      return emitError(module.getLoc())
             << "shard-run: --propagate=" << options.propagate << ": "
             << errorText;
    if (failed(propagateOnRankZero(copy, std::move(*propagate))))
      return failure();
    entry = copy->lookupSymbol<func::FuncOp>(options.entry);
    pm.addPass(createShardPartition(partition, costModel));
    if (failed(pm.run(*copy)))
      return failure();
    // What each rank's entry takes and returns: local types (a rank's
    // several blocks packed in one 1-D view).
    compiled.type = entry.getFunctionType();
    // Partitioned as the compiler partitions it (its diagnostics, mixed
    // cpu and cuda layouts among them). CUDA layouts run on this rank's GPU
    // where the runtime has one (buffers in CUDA managed memory, the NCCL
    // backend), on host buffers through the MPI backend otherwise.
    if (cudaLayoutsOnHost(*copy, /*retarget=*/false) &&
        RuntimeSymbols::get().gpu())
      compiled.onDevice = true;
    else
      compiled.cudaOnHost = cudaLayoutsOnHost(*copy);
    auto read = [&](DictionaryAttr attrs) -> ShardedTensorType {
      auto global =
          attrs ? dyn_cast_or_null<TypeAttr>(attrs.get(kGlobalAttr)) : nullptr;
      return global ? dyn_cast<ShardedTensorType>(global.getValue()) : nullptr;
    };
    for (unsigned i = 0; i < entry.getNumArguments(); ++i)
      compiled.argGlobal.push_back(
          concreteGlobal(read(entry.getArgAttrDict(i)), options.dynamicSize));
    for (unsigned i = 0; i < entry.getNumResults(); ++i)
      compiled.resultGlobal.push_back(concreteGlobal(
          read(entry.getResultAttrDict(i)), options.dynamicSize));
    // Every layout left in the partitioned program: the global types of
    // arguments and results and of each collective's layouts.
    compiled.largestRank = largestNamedRank(*copy);
  }
  // tosa.scatter writes rows at the offsets its indices give: lowered here
  // to the scf loop of insert_slices TOSA lowers it to (the pipeline's own
  // first step after partitioning, then a no-op), each checked below as any
  // insert_slice at a run-time offset (an index out of range wrote past the
  // buffer: a corrupted heap, or a rank that never joined the next
  // collective).
  if (copy->walk([](tosa::ScatterOp) { return WalkResult::interrupt(); })
          .wasInterrupted()) {
    PassManager scatter(module.getContext());
    scatter.addNestedPass<func::FuncOp>(createTosaToSCFPass());
    if (failed(scatter.run(*copy)))
      return failure();
  }
  PassManager lower(module.getContext());
  // A program with dynamic dims may contradict itself at the sizes of this
  // run (a dynamic dim that --dynamic-size makes 5 added to a static 8),
  // and one indexing at run time may index past a tensor's end (a loop of
  // one step too many, an index out of its table): its ops check their
  // operands' extents as they run (MLIR's runtime op verification), and a
  // rank stops with the op and its location instead of reading or writing
  // past a buffer.
  if (hasDynamicTensors(*copy) || indexedAtRunTime(*copy)) {
    // The checks' ops, whatever the program loaded.
    copy->getContext()
        ->loadDialect<arith::ArithDialect, cf::ControlFlowDialect,
                      scf::SCFDialect, tensor::TensorDialect>();
    checkGatheredIndices(*copy);
    // MLIR's checks cover extract_slice and extract but not insert_slice
    // and insert: each of those at a run-time offset, size or index, or
    // into a destination of run-time extent, is preceded by the
    // extract_slice (extract) of its destination there, checked alike (and
    // dropped as unused once checked).
    copy->walk([](Operation *op) {
      OpBuilder b(op);
      if (auto insert = dyn_cast<tensor::InsertSliceOp>(op);
          insert &&
          (!insert.getOffsets().empty() || !insert.getSizes().empty() ||
           !insert.getDestType().hasStaticShape()))
        tensor::ExtractSliceOp::create(
            b, insert.getLoc(), insert.getDest(), insert.getMixedOffsets(),
            insert.getMixedSizes(), insert.getMixedStrides());
      if (auto insert = dyn_cast<tensor::InsertOp>(op);
          insert && (!insert.getDest().getType().hasStaticShape() ||
                     llvm::any_of(insert.getIndices(), [](Value v) {
                       return !getConstantIntValue(v);
                     })))
        tensor::ExtractOp::create(b, insert.getLoc(), insert.getDest(),
                                  insert.getIndices());
      // An elementwise op on tensors of run-time extents needs them equal
      // (an arith.select of a tensor and its doubled self wrote past a
      // buffer, then hung): each tensor operand's dims checked against the
      // first tensor's (a select's condition may be a scalar), and a
      // result's static ones, where they may differ.
      Value firstTensor;
      if (op->hasTrait<OpTrait::Elementwise>())
        for (Value operand : op->getOperands())
          if (isa<RankedTensorType>(operand.getType())) {
            firstTensor = operand;
            break;
          }
      if (!firstTensor)
        return;
      auto first = cast<RankedTensorType>(firstTensor.getType());
      Location loc = op->getLoc();
      std::string text;
      auto check = [&](Value same, int64_t d) {
        if (text.empty())
          text = opText(op);
        cf::AssertOp::create(
            b, loc, same,
            verificationMessage(text,
                                "dim " + std::to_string(d) +
                                    " of a tensor differs from the first "
                                    "operand's (an elementwise op's extents "
                                    "agree)",
                                loc));
      };
      for (Value operand : op->getOperands()) {
        auto type = dyn_cast<RankedTensorType>(operand.getType());
        if (operand == firstTensor || !type ||
            type.getRank() != first.getRank())
          continue;
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (type.isDynamicDim(d) || first.isDynamicDim(d))
            check(arith::CmpIOp::create(
                      b, loc, arith::CmpIPredicate::eq,
                      tensor::DimOp::create(b, loc, operand, d),
                      tensor::DimOp::create(b, loc, firstTensor, d)),
                  d);
      }
      for (Type resultType : op->getResultTypes()) {
        auto type = dyn_cast<RankedTensorType>(resultType);
        if (!type || type.getRank() != first.getRank())
          continue;
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (!type.isDynamicDim(d) && first.isDynamicDim(d))
            check(
                arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::eq,
                    arith::ConstantIndexOp::create(b, loc, type.getDimSize(d)),
                    tensor::DimOp::create(b, loc, firstTensor, d)),
                d);
      }
    });
    lower.addPass(createGenerateRuntimeVerificationPass());
  }
  ShardToLLVMOptions lowering;
  lowering.costModel.assign(costModel);
  lowering.deviceAlloc = compiled.onDevice;
  buildShardToLLVMPipeline(lower, lowering);
  if (failed(lower.run(*copy)))
    return failure();
  ExecutionEngineOptions engineOptions;
  // The IR passes' and the code generator's level alike (3 at most).
  const unsigned level = std::min(options.optLevel, 3u);
  auto transformer = makeOptimizingTransformer(level, 0, nullptr);
  engineOptions.transformer = transformer;
  static constexpr llvm::CodeGenOptLevel kCodeGen[] = {
      llvm::CodeGenOptLevel::None, llvm::CodeGenOptLevel::Less,
      llvm::CodeGenOptLevel::Default, llvm::CodeGenOptLevel::Aggressive};
  engineOptions.jitCodeGenOptLevel = kCodeGen[level];
  SmallVector<StringRef> libs;
  for (const std::string &lib : options.sharedLibs)
    libs.push_back(lib);
  engineOptions.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(*copy, engineOptions);
  if (!engine) {
    std::string text = llvm::toString(engine.takeError());
    return emitError(module.getLoc())
           << "shard-run: JIT compilation failed: " << text;
  }
  compiled.engine = std::move(*engine);
  return compiled;
}

/// Calls the entry through its C interface with `args`; the results'

} // namespace shardc::run::detail
