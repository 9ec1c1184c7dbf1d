//===- ImportUpstream.cpp - Programs annotated for upstream's Shard dialect
//===//
//
// shard-translate --import-upstream-shard (shardc/Translate/ImportUpstream.h):
// read in a context with upstream's `shard` dialect, each annotation
// replaced there by a placeholder that carries shardc's layout as text
// (an unregistered op, or a discardable attribute on a function's argument
// or result), printed with its locations, and read again in shardc's
// context, where the placeholders become shard.constraint ops and
// `shard.layout` attributes.
//
//===----------------------------------------------------------------------===//

#include "shardc/Translate/ImportUpstream.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/RegisterEverything.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

using namespace mlir;

namespace {

/// The placeholders' names: a dialect neither context registers.
constexpr llvm::StringLiteral kPin = "shardc_import.pin";
constexpr llvm::StringLiteral kLayout = "shardc_import.layout";
constexpr llvm::StringLiteral kLayoutText = "layout";
/// shardc's annotation of function arguments and results.
constexpr llvm::StringLiteral kShardLayout = "shard.layout";

/// The blocks a sharding with explicit shard offsets gives a tensor of type
/// `type` on a grid of `shape` (each rank, row-major in the grid, its block:
/// along a split dim, the shard its axes' indices name, major first,
/// between the offsets listed for that dim), as a #shard.enumerable layout
/// (text); nullopt after `fail` says why there is none.
template <typename Fail>
std::optional<std::string>
blocksOf(shard::ShardingOp sharding, RankedTensorType type,
         ArrayRef<int64_t> shape, ArrayRef<int64_t> offsets, Fail fail) {
  ArrayRef<shard::GridAxesAttr> split = sharding.getSplitAxes().getAxes();
  // Per dim: its axes and where its offsets start (-1: not split).
  std::vector<int64_t> from(type.getRank(), -1);
  std::vector<bool> used(shape.size(), false);
  size_t at = 0;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    if (dim >= static_cast<int64_t>(split.size()) || split[dim].empty())
      continue;
    int64_t shards = 1;
    for (shard::GridAxis axis : split[dim].asArrayRef()) {
      shards *= shape[axis];
      used[axis] = true;
    }
    const int64_t size = type.getDimSize(dim);
    if (ShapedType::isDynamic(size))
      return fail("gives shard offsets along dim " + Twine(dim) +
                  " of dynamic size, which are not imported: give the "
                  "layout in shardc's form");
    // (Upstream's verifier counts them, and sees them not decrease.)
    if (at + shards + 1 > offsets.size())
      return fail("gives " + Twine(offsets.size()) +
                  " shard offsets, which upstream's verifier should have "
                  "refused; please report this");
    ArrayRef<int64_t> own = offsets.slice(at, shards + 1);
    for (size_t k = 0; k + 1 < own.size(); ++k)
      if (own[k] < 0 || own[k] > own[k + 1])
        return fail("gives shard offsets along dim " + Twine(dim) +
                    " that are negative or decrease, which upstream's "
                    "verifier should have refused; please report this");
    if (own.front() != 0 || own.back() != size)
      return fail("gives shard offsets along dim " + Twine(dim) + " from " +
                  Twine(own.front()) + " to " + Twine(own.back()) +
                  ", not from 0 to its size " + Twine(size));
    from[dim] = static_cast<int64_t>(at);
    at += shards + 1;
  }
  if (at != offsets.size())
    return fail("gives " + Twine(offsets.size()) +
                " shard offsets, which upstream's verifier should have "
                "refused; please report this");
  for (auto [axis, extent] : llvm::enumerate(shape))
    if (!used[axis] && extent > 1)
      return fail("gives shard offsets on grid @" + sharding.getGrid() +
                  ", whose axis " + Twine(axis) +
                  " splits nothing: its blocks would be copies, which a "
                  "#shard.enumerable layout does not hold; give the layout "
                  "in shardc's form");
  int64_t ranks = 1;
  for (int64_t extent : shape)
    ranks *= extent;
  std::string text = "#shard.enumerable<[";
  llvm::raw_string_ostream os(text);
  for (int64_t rank = 0; rank < ranks; ++rank) {
    // The rank's index along each grid axis.
    std::vector<int64_t> index(shape.size());
    for (int64_t a = static_cast<int64_t>(shape.size()) - 1, r = rank; a >= 0;
         --a) {
      index[a] = r % shape[a];
      r /= shape[a];
    }
    std::vector<int64_t> first, sizes;
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      if (from[dim] < 0) {
        first.push_back(0);
        sizes.push_back(type.getDimSize(dim));
        continue;
      }
      int64_t shard = 0;
      for (shard::GridAxis axis : split[dim].asArrayRef())
        shard = shard * shape[axis] + index[axis];
      first.push_back(offsets[from[dim] + shard]);
      sizes.push_back(offsets[from[dim] + shard + 1] - first.back());
    }
    os << (rank ? ", " : "") << "{offsets = [";
    llvm::interleaveComma(first, os);
    os << "], sizes = [";
    llvm::interleaveComma(sizes, os);
    os << "], placement = \"rank:" << rank << "/cpu\"}";
  }
  os << "]>";
  return text;
}

/// shardc's layout (as text) of a tensor of type `type` sharded as
/// `sharding` says; nullopt after emitting at `at` why there is none.
std::optional<std::string> layoutOf(shard::ShardingOp sharding,
                                    RankedTensorType type, Operation *at) {
  auto fail = [&](const Twine &why) -> std::optional<std::string> {
    InFlightDiagnostic diag = at->emitError() << why;
    diag.attachNote(sharding.getLoc()) << "the sharding is defined here";
    return std::nullopt;
  };
  if (!sharding.getStaticHaloSizes().empty() ||
      !sharding.getDynamicHaloSizes().empty())
    return fail("has halo sizes, which no shardc layout holds (a block and "
                "its neighbours' rows are not one tensor's blocks): remove "
                "them, or give the layout in shardc's form");
  if (!sharding.getDynamicShardedDimsOffsets().empty())
    return fail("has shard offsets only the run time knows "
                "(sharded_dims_offsets), which are not imported: give the "
                "layout in shardc's form");
  ArrayRef<int64_t> offsets = sharding.getStaticShardedDimsOffsets();
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
      sharding, sharding.getGridAttr());
  // (Upstream's verifier resolves the grid, which has an axis.)
  if (!grid || grid.getShape().empty())
    return fail("is on grid @" + sharding.getGrid() +
                ", which upstream's verifier should have refused; please "
                "report this");
  ArrayRef<int64_t> shape = grid.getShape();
  for (int64_t extent : shape)
    if (ShapedType::isDynamic(extent) || extent < 1)
      return fail("is on grid @" + sharding.getGrid() +
                  ", whose shape is not static: shardc's meshes are");
  ArrayRef<shard::GridAxesAttr> split = sharding.getSplitAxes().getAxes();
  // (Upstream writes [[]] for a replicated tensor of any rank, 0 included.)
  for (size_t dim = type.getRank(); dim < split.size(); ++dim)
    if (!split[dim].empty())
      return fail("splits dim " + Twine(dim) + " of a tensor of rank " +
                  Twine(type.getRank()));
  std::vector<std::string> placements(shape.size(), "R");
  for (auto [dim, axesAttr] : llvm::enumerate(split)) {
    ArrayRef<shard::GridAxis> axes = axesAttr.asArrayRef();
    if (axes.empty() || static_cast<int64_t>(dim) >= type.getRank())
      continue;
    int64_t shards = 1;
    for (auto [k, axis] : llvm::enumerate(axes)) {
      if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
        return fail("splits dim " + Twine(dim) + " over grid axis " +
                    Twine(axis) + ", not an axis of grid @" +
                    sharding.getGrid());
      if (placements[axis] != "R")
        return fail("splits grid axis " + Twine(axis) +
                    " twice, which upstream's verifier should have refused; "
                    "please report this");
      // Axes listed major first; DTensor nests a dim's shards in mesh
      // order, so an axis split before (more major than) axes after it
      // in the grid is a strided shard whose split factor is their
      // shards: [[1, 0]] on a 2x4 grid is [_S(d, 4), S(d)].
      int64_t factor = 1;
      for (shard::GridAxis major : axes.take_front(k))
        if (major > axis)
          factor *= shape[major];
      placements[axis] = factor == 1 ? "S(" + std::to_string(dim) + ")"
                                     : "_S(" + std::to_string(dim) + ", " +
                                           std::to_string(factor) + ")";
      shards *= shape[axis];
    }
    const int64_t size = type.getDimSize(dim);
    if (!offsets.empty())
      continue;
    if (ShapedType::isDynamic(size))
      return fail("splits dim " + Twine(dim) +
                  " of dynamic size, which only the run time knows to divide "
                  "evenly: such a split is imported only in shardc's form, "
                  "whose cut is torch.chunk's; give the layout that way");
    if (size % shards != 0)
      return fail("splits dim " + Twine(dim) + " of size " + Twine(size) +
                  " into " + Twine(shards) +
                  " shards, which do not divide it: an uneven split is "
                  "imported only in shardc's form, whose cut is "
                  "torch.chunk's; give the layout that way, or a size the "
                  "shards divide");
  }
  if (!offsets.empty())
    return blocksOf(sharding, type, shape, offsets, fail);
  std::string text = "#shard.placements<mesh = #shard.mesh<shape = [";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os);
  os << "]>, placements = [";
  llvm::interleaveComma(placements, os);
  os << "]>";
  return text;
}

/// Rewrites the upstream annotations of `module` (in upstream's context)
/// into placeholders; fails after emitting what cannot be.
LogicalResult placeholders(ModuleOp module) {
  bool failed = false;
  MLIRContext *ctx = module.getContext();
  SmallVector<shard::ShardOp> shards;
  module.walk([&](shard::ShardOp op) { shards.push_back(op); });
  for (shard::ShardOp op : shards) {
    auto sharding = op.getSharding().getDefiningOp<shard::ShardingOp>();
    if (!sharding) {
      op.emitError() << "takes a sharding not made by a shard.sharding op: "
                        "the importer reads only those";
      failed = true;
      continue;
    }
    std::optional<std::string> layout =
        layoutOf(sharding, op.getSrc().getType(), op);
    if (!layout) {
      failed = true;
      continue;
    }
    auto text = StringAttr::get(ctx, *layout);
    Value src = op.getSrc();
    auto func = op->getParentOfType<func::FuncOp>();
    // An argument of the function: its layout, the first time it is
    // annotated (a later different one pins its users).
    if (auto arg = dyn_cast<BlockArgument>(src);
        func && arg && arg.getOwner() == &func.getBody().front()) {
      auto given =
          func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kLayout);
      if (!given)
        func.setArgAttr(arg.getArgNumber(), kLayout, text);
      if (!given || given == text) {
        op.getResult().replaceAllUsesWith(src);
        op.erase();
        continue;
      }
    }
    // Returned and nothing else: the function's result layout.
    Value result = op.getResult();
    auto returned = [&](OpOperand &use) {
      auto ret = dyn_cast<func::ReturnOp>(use.getOwner());
      return ret && ret->getParentOp() == func.getOperation() &&
             !func.getResultAttr(use.getOperandNumber(), kLayout);
    };
    if (func && !result.use_empty() &&
        llvm::all_of(result.getUses(), returned)) {
      for (OpOperand &use : result.getUses())
        func.setResultAttr(use.getOperandNumber(), kLayout, text);
      result.replaceAllUsesWith(src);
      op.erase();
      continue;
    }
    // Else a pin of the value where it is.
    OpBuilder builder(op);
    OperationState state(op.getLoc(), kPin);
    state.addOperands(src);
    state.addTypes(src.getType());
    state.addAttribute(kLayoutText, text);
    Operation *pin = builder.create(state);
    result.replaceAllUsesWith(pin->getResult(0));
    op.erase();
  }
  // The shardings and grids, now unused; any other op of upstream's dialect
  // has no counterpart here.
  SmallVector<Operation *> rest;
  module.walk([&](Operation *op) {
    if (isa_and_nonnull<shard::ShardDialect>(op->getDialect()))
      rest.push_back(op);
  });
  for (Operation *op : rest) {
    // (A shard.shard left is one refused above.)
    if (isa<shard::GridOp, shard::ShardingOp, shard::ShardOp>(op))
      continue;
    op->emitError() << "is an op of upstream's shard dialect the importer "
                       "has no counterpart for: import the program as "
                       "upstream's sharding-propagation takes it (shard.grid, "
                       "shard.sharding, shard.shard), before shard-partition";
    failed = true;
  }
  for (Operation *op : llvm::reverse(rest))
    if (isa<shard::ShardingOp>(op) && op->use_empty())
      op->erase();
  if (failed)
    return failure();
  module.walk([&](shard::GridOp grid) { grid.erase(); });
  // A !shard.sharding left in a signature (a function taking a sharding),
  // then in an op's operands or results.
  WalkResult typed = module.walk([&](func::FuncOp func) {
    for (Type type : llvm::concat<const Type>(func.getArgumentTypes(),
                                              func.getResultTypes()))
      if (isa<shard::ShardingType>(type)) {
        func.emitError() << "takes or returns upstream's !shard.sharding "
                            "type, which has no counterpart in shardc";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (typed.wasInterrupted())
    return failure();
  typed = module.walk([&](Operation *op) {
    if (isa_and_nonnull<shard::ShardDialect>(op->getDialect()))
      return WalkResult::advance();
    for (Type type :
         llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
      if (isa<shard::ShardingType>(type)) {
        op->emitError() << "uses upstream's !shard.sharding type, which has no "
                           "counterpart in shardc";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(typed.wasInterrupted());
}

/// Parses a layout written by layoutOf in shardc's context.
shardc::ShardingSpecAttrInterface parseLayout(Attribute text, Location loc) {
  auto string = dyn_cast_or_null<StringAttr>(text);
  if (!string)
    return {};
  auto spec = dyn_cast_or_null<shardc::ShardingSpecAttrInterface>(
      parseAttribute(string.getValue(), loc.getContext()));
  if (!spec)
    emitError(loc) << "the importer wrote a layout shardc does not read ("
                   << string.getValue() << "); please report this";
  return spec;
}

} // namespace

OwningOpRef<ModuleOp>
shardc::importUpstreamShard(const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                            MLIRContext *context) {
  // Upstream's context: every upstream dialect, its `shard` included.
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext upstream(registry);
  upstream.disableMultithreading();
  upstream.printOpOnDiagnostic(false);
  // Its diagnostics are said in shardc's context, at the same place (where
  // the tool prints or -verify-diagnostics checks them).
  auto placeIn = [&](Location loc) -> Location {
    if (auto at = loc->findInstanceOf<FileLineColLoc>())
      return FileLineColLoc::get(context, at.getFilename().getValue(),
                                 at.getLine(), at.getColumn());
    return UnknownLoc::get(context);
  };
  ScopedDiagnosticHandler forward(&upstream, [&](Diagnostic &diag) {
    InFlightDiagnostic again = context->getDiagEngine().emit(
        placeIn(diag.getLocation()), diag.getSeverity());
    again << diag.str();
    for (Diagnostic &note : diag.getNotes())
      again.attachNote(placeIn(note.getLocation())) << note.str();
    return success();
  });
  OwningOpRef<ModuleOp> read =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&upstream));
  if (!read)
    return {};
  // The placeholders are ops of no registered dialect.
  upstream.allowUnregisteredDialects(true);
  if (failed(placeholders(*read)))
    return {};
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    read->print(os, OpPrintingFlags().enableDebugInfo().printGenericOpForm());
  }
  read = nullptr;

  // shardc's context.
  const bool unregistered = context->allowsUnregisteredDialects();
  context->allowUnregisteredDialects(true);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, ParserConfig(context));
  bool bad = !module;
  if (module) {
    SmallVector<Operation *> pins;
    module->walk([&](Operation *op) {
      if (op->getName().getStringRef() == kPin)
        pins.push_back(op);
    });
    for (Operation *pin : pins) {
      ShardingSpecAttrInterface layout =
          parseLayout(pin->getAttr(kLayoutText), pin->getLoc());
      if (!layout) {
        bad = true;
        continue;
      }
      OpBuilder builder(pin);
      auto constraint =
          ConstraintOp::create(builder, pin->getLoc(), pin->getResultTypes()[0],
                               pin->getOperand(0), layout);
      pin->getResult(0).replaceAllUsesWith(constraint.getResult());
      pin->erase();
    }
    module->walk([&](func::FuncOp func) {
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        if (Attribute text = func.getArgAttr(i, kLayout)) {
          func.removeArgAttr(i, StringAttr::get(func.getContext(), kLayout));
          if (ShardingSpecAttrInterface layout =
                  parseLayout(text, func.getLoc()))
            func.setArgAttr(i, kShardLayout, layout);
          else
            bad = true;
        }
      for (unsigned i = 0; i < func.getNumResults(); ++i)
        if (Attribute text = func.getResultAttr(i, kLayout)) {
          func.removeResultAttr(i, StringAttr::get(func.getContext(), kLayout));
          if (ShardingSpecAttrInterface layout =
                  parseLayout(text, func.getLoc()))
            func.setResultAttr(i, kShardLayout, layout);
          else
            bad = true;
        }
    });
  }
  context->allowUnregisteredDialects(unregistered);
  if (bad || failed(verify(*module)))
    return {};
  return module;
}

void shardc::registerUpstreamShardImport() {
  static TranslateToMLIRRegistration registration(
      "import-upstream-shard",
      "a program annotated for upstream MLIR's shard dialect (shard.grid, "
      "shard.sharding, shard.shard) in shardc's form",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        return OwningOpRef<Operation *>(
            importUpstreamShard(sourceMgr, context).release());
      },
      [](DialectRegistry &registry) { registerEverything(registry); });
}
