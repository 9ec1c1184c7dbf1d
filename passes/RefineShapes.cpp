//===- RefineShapes.cpp - Static shapes before propagation ----------------===//
//
// -shard-propagate's first step (RefineShapes.h).
//
//===----------------------------------------------------------------------===//

#include "RefineShapes.h"

#include "llvm/ADT/DenseSet.h"

#include "FunctionAttrs.h"
#include "UnreadDestinations.h"
#include "shardc/Dialect/Shard.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace shardc;

/// A function that gets layouts (on its arguments or results, or pinned in
/// its body) and has tensors of dynamic shape, canonicalized: tensor.cast
/// to and from dynamic shapes, tensor.empty and tensor.dim of sizes known
/// as constants fold away, and the static shapes they name reach the ops
/// between them (as torch-mlir's output needs). Other functions are left
/// as they are; what stays dynamic is diagnosed (checkCovered).
namespace {
/// An expand_shape of a tensor.empty: a tensor.empty of the expanded
/// sizes (the inits of linalg ops a fold was fused into are such expands,
/// of an empty sized by tensor.dim of the folded tensor as torch-mlir sizes
/// a batch_matmul's: the fold goes with its last use).
struct EmptyExpanded : OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    if (!expand.getSrc().getDefiningOp<tensor::EmptyOp>())
      return failure();
    rewriter.replaceOpWithNewOp<tensor::EmptyOp>(
        expand, expand.getMixedOutputShape(),
        expand.getResultType().getElementType());
    return success();
  }
};
} // namespace

/// Whether `reshape` (a collapse_shape or expand_shape) folds a dim of
/// run-time size with others: the folded dim stays whole (its groups would
/// have run-time sizes).
static bool foldsDynamicGroup(Operation *reshape) {
  auto folds = [](RankedTensorType expanded,
                  ArrayRef<ReassociationIndices> groups) {
    return llvm::any_of(groups, [&](const ReassociationIndices &g) {
      return g.size() > 1 && llvm::any_of(g, [&](int64_t d) {
               return expanded.isDynamicDim(d);
             });
    });
  };
  if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(reshape))
    return folds(collapse.getSrcType(), collapse.getReassociationIndices());
  if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(reshape))
    return folds(expand.getResultType(), expand.getReassociationIndices());
  return false;
}

/// Whether `op` carries what a user wrote for shardc (a pinned sharding, a
/// written rule): such an op is kept as written, never rewritten here.
static bool carriesShardAttrs(Operation *op) {
  return op && llvm::any_of(op->getDiscardableAttrs(), [](NamedAttribute a) {
           return a.getName().strref().starts_with("shard.");
         });
}

void shardc::refineShapes(ModuleOp module, ArrayRef<func::FuncOp> callees) {
  llvm::DenseSet<Operation *> takesLayouts;
  for (func::FuncOp callee : callees)
    takesLayouts.insert(callee);
  auto dynamic = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && !tensor.hasStaticShape();
  };
  SmallVector<func::FuncOp> refine;
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    bool layouts = takesLayouts.contains(func), hasDynamic = false;
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      layouts |= static_cast<bool>(func.getArgAttr(i, kLayoutAttr));
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      layouts |= static_cast<bool>(func.getResultAttr(i, kLayoutAttr));
    func.walk([&](Operation *op) {
      layouts |= isa<ConstraintOp>(op);
      hasDynamic |= llvm::any_of(op->getResultTypes(), dynamic);
    });
    if (layouts && hasDynamic)
      refine.push_back(func);
  });
  if (refine.empty())
    return;
  MLIRContext *ctx = module.getContext();
  RewritePatternSet patterns(ctx);
  for (Dialect *dialect : ctx->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : ctx->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, ctx);
  // A reshape folding a dim of run-time size with others (torch-mlir's
  // [B?, H] -> [B? * H] around a 4-D matmul lowered to batch_matmul) keeps
  // the folded dim whole (a cut of it would have groups of run-time
  // sizes): folded into the linalg op beside it instead, whose loops then
  // run over the dims unfolded (each loop a rule's own, cut as the rest).
  linalg::populateFoldReshapeOpsByExpansionPatterns(
      patterns, [](OpOperand *fused) {
        Operation *reshape = fused->get().getDefiningOp();
        const bool collapse = isa_and_nonnull<tensor::CollapseShapeOp>(reshape);
        // (The linalg op the fold goes into: the use's, or the one whose
        // result the expand reads.)
        Operation *linalgOp = collapse ? fused->getOwner() : reshape;
        return !carriesShardAttrs(linalgOp) &&
               foldsDynamicGroup(collapse ? reshape : fused->getOwner());
      });
  patterns.add<EmptyExpanded>(ctx);
  FrozenRewritePatternSet frozen(std::move(patterns));
  // An elementwise op on tensors beside such a fold (a math.exp of the
  // folded heads) is written as the linalg.generic it is first, so that
  // the fold is fused into it too; no other op is touched.
  RewritePatternSet toLinalg(ctx);
  linalg::populateElementwiseToLinalgConversionPatterns(toLinalg);
  FrozenRewritePatternSet frozenToLinalg(std::move(toLinalg));
  for (func::FuncOp func : refine) {
    SmallVector<Operation *> beside;
    func.walk([&](Operation *op) {
      if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
          !isa<RankedTensorType>(op->getResult(0).getType()) ||
          carriesShardAttrs(op))
        return;
      if (llvm::any_of(
              op->getOperands(),
              [](Value v) { return foldsDynamicGroup(v.getDefiningOp()); }) ||
          llvm::any_of(op->getUsers(), foldsDynamicGroup))
        beside.push_back(op);
    });
    if (!beside.empty()) {
      (void)applyOpPatternsGreedily(beside, frozenToLinalg,
                                    GreedyRewriteConfig().setStrictness(
                                        GreedyRewriteStrictness::ExistingOps));
      // The generics written read their operand as their init, which they
      // never read: an empty tensor instead, as everywhere else.
      emptyUnreadDestinations({func});
    }
    (void)applyPatternsGreedily(func, frozen);
  }
}
