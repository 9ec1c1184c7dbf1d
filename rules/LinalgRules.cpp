//===- LinalgRules.cpp - The sharding rule of every linalg structured op --===//
//
// One rule for every linalg structured op, named ops and linalg.generic
// alike, from its indexing maps and iterator types: each loop of the
// iteration space is a loop of the rule; an operand dim indexed by a loop
// itself is indexed by that loop; a dim indexed by anything else (a
// constant, a convolution window `d0 + d2`) may not be sharded, nor may the
// loops in its expression. A reduction loop may be sharded only when every
// result's payload combines its init with one of add, mul, max or min (the
// combiner of the result's Partial value; `out - x` is a sum).
//
//===----------------------------------------------------------------------===//

#include "shardc/Rules/Rules.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Rules/LoopSharding.h"
#include "shardc/Rules/Payload.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace shardc;
using Reduce = layout::Placement::Reduce;

namespace {

/// The reduction a payload applies to its init `out` to give `yielded`:
/// `yielded = combine(out, x)` (or `combine(x, out)`) where `out` has no other
/// use and `x` depends on no init.
std::optional<Reduce> combinerOf(Block &body, BlockArgument out, Value yielded,
                                 const llvm::SmallPtrSetImpl<Value> &inits) {
  // Scalars wrapped in tensors of one element and read back
  // (throughScalarWraps) are the scalars.
  Operation *def = throughScalarWraps(yielded).getDefiningOp();
  if (!def || def->getBlock() != &body || def->getNumOperands() != 2 ||
      def->getNumResults() != 1)
    return std::nullopt;
  // `out` reaches the combine through its one use (or one chain of wraps).
  Value reached = out;
  while (reached.hasOneUse()) {
    Operation *user = reached.use_begin()->getOwner();
    if (user == def || !isa<tensor::FromElementsOp, tensor::ExtractOp>(user) ||
        user->getNumResults() != 1)
      break;
    reached = user->getResult(0);
  }
  if (!reached.hasOneUse() || reached.use_begin()->getOwner() != def ||
      throughScalarWraps(reached) != out)
    return std::nullopt;
  Value other;
  if (def->getOperand(0) == reached)
    other = def->getOperand(1);
  else if (def->getOperand(1) == reached)
    other = def->getOperand(0);
  else
    return std::nullopt;
  if (dependsOn(other, body, inits))
    return std::nullopt;
  if (isa<arith::AddFOp, arith::AddIOp>(def))
    return Reduce::Sum;
  // `out - x`: a sum of the values negated (its parts, each rank's init
  // part less its own x's, sum to the init less every x); not `x - out`,
  // whose sign alternates with each step.
  if (isa<arith::SubFOp, arith::SubIOp>(def) && def->getOperand(0) == reached)
    return Reduce::Sum;
  if (isa<arith::MulFOp, arith::MulIOp>(def))
    return Reduce::Product;
  // Not maxnumf and minnumf: they ignore NaN, and the runtime's max and min
  // (as arith.maximumf and minimumf) propagate it, so a rank whose block is
  // all NaN would make every rank's answer NaN.
  if (isa<arith::MaximumFOp, arith::MaxSIOp>(def))
    return Reduce::Max;
  if (isa<arith::MinimumFOp, arith::MinSIOp>(def))
    return Reduce::Min;
  return std::nullopt;
}

/// Whether `yielded` is a NaN-ignoring max or min (combinerOf's exception).
bool ignoresNaN(Value yielded) {
  return isa_and_nonnull<arith::MaxNumFOp, arith::MinNumFOp>(
      throughScalarWraps(yielded).getDefiningOp());
}

/// Whether `index` reads a loop of `op`: the nearest linalg op around it
/// (a linalg op in `op`'s payload reads its own loops).
bool indexesLoopOf(linalg::IndexOp index, Operation *op) {
  for (Operation *p = index->getParentOp(); p; p = p->getParentOp())
    if (isa<linalg::LinalgOp>(p))
      return p == op;
  return false;
}

std::string exprText(AffineExpr expr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  expr.print(os);
  return text;
}

/// Whether `value` is a constant zero (a float's either sign).
bool isZero(Value value) {
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

/// Whether `read` reaches `yielded` through ops that map 0 to 0, each
/// value used once: a negation, a float extension or truncation, and a
/// select between it and a constant zero (torch-mlir's nll_loss: the
/// negated logit, or 0 where the label is ignore_index). A rank that
/// holds none of the table's row reads 0 and yields 0, the identity of
/// the lookup's sum.
bool zeroPreserving(Value read, Value yielded, Block *body) {
  Value at = read;
  while (at != yielded) {
    if (!at.hasOneUse())
      return false;
    Operation *user = *at.user_begin();
    if (user->getBlock() != body || user->getNumResults() != 1)
      return false;
    if (isa<arith::NegFOp, arith::ExtFOp, arith::TruncFOp>(user)) {
      at = user->getResult(0);
      continue;
    }
    auto select = dyn_cast<arith::SelectOp>(user);
    if (!select || select.getCondition() == at)
      return false;
    Value other = select.getTrueValue() == at ? select.getFalseValue()
                                              : select.getTrueValue();
    if (!isZero(other))
      return false;
    at = select.getResult();
  }
  return true;
}

/// The lookup of `table` that is `op`'s one result: the one tensor.extract
/// of it in the payload, yielded as it is or through ops that map 0 to 0
/// (zeroPreserving), or added to the init the payload yields (`out + x`,
/// `x + out`: an embedding bag's sum over the bag, where `summed` is set;
/// a rank that holds none of a row adds 0). Null for any other use.
tensor::ExtractOp lookupOf(linalg::LinalgOp op, Value table,
                           bool *summed = nullptr) {
  Block *body = op.getBlock();
  if (!body || op->getNumResults() != 1)
    return nullptr;
  tensor::ExtractOp lookup;
  for (Operation *user : table.getUsers()) {
    if (!op->isProperAncestor(user))
      continue;
    auto extract = dyn_cast<tensor::ExtractOp>(user);
    if (!extract || lookup || extract->getBlock() != body)
      return nullptr;
    lookup = extract;
  }
  if (!lookup)
    return nullptr;
  const Value yielded = body->getTerminator()->getOperand(0);
  if (summed)
    *summed = false;
  if (zeroPreserving(lookup.getResult(), yielded, body))
    return lookup;
  // Added to the init: `out` (the result's block argument) used by the add
  // alone, the other operand the lookup through ops that map 0 to 0.
  Operation *add = yielded.getDefiningOp();
  const Value out = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  if (!isa_and_nonnull<arith::AddFOp, arith::AddIOp>(add) ||
      add->getBlock() != body || !out.hasOneUse() ||
      out.use_begin()->getOwner() != add)
    return nullptr;
  const Value other =
      add->getOperand(0) == out ? add->getOperand(1) : add->getOperand(0);
  if (other == out || !zeroPreserving(lookup.getResult(), other, body))
    return nullptr;
  if (summed)
    *summed = true;
  return lookup;
}

/// Per dim of `table` (a tensor the payload reads from outside the op),
/// the op's own loop that indexes it, or -1: where every read of the table
/// is a tensor.extract in the payload whose index there is that loop's
/// linalg.index and the dim has the loop's size (a column-parallel
/// embedding: the table's hidden dim is the result's). Cut alike, each
/// rank reads its own block at the local index, which is the loop's local
/// index: nothing moves, nothing is masked. The index ops used only so are
/// added to `tableIndices` (their loop stays shardable).
std::vector<int64_t>
ownLoopDims(linalg::LinalgOp op, Value table, const ShardingRule &rule,
            llvm::SmallPtrSetImpl<Operation *> &tableIndices) {
  auto type = cast<RankedTensorType>(table.getType());
  std::vector<int64_t> dims(type.getRank(), -1);
  Block *body = op.getBlock();
  if (!body || !type.hasStaticShape())
    return dims;
  SmallVector<tensor::ExtractOp> reads;
  for (Operation *user : table.getUsers()) {
    if (!op->isProperAncestor(user))
      continue;
    auto extract = dyn_cast<tensor::ExtractOp>(user);
    if (!extract || extract->getBlock() != body)
      return dims;
    reads.push_back(extract);
  }
  if (reads.empty())
    return dims;
  auto loopAt = [&](tensor::ExtractOp read, int64_t d) -> int64_t {
    auto index = read.getIndices()[d].getDefiningOp<linalg::IndexOp>();
    if (!index || index->getBlock() != body)
      return -1;
    const int64_t loop = static_cast<int64_t>(index.getDim());
    if (loop >= static_cast<int64_t>(rule.loops.size()) ||
        rule.loops[loop].size != type.getDimSize(d))
      return -1;
    return loop;
  };
  for (int64_t d = 0; d < type.getRank(); ++d) {
    const int64_t loop = loopAt(reads.front(), d);
    if (loop >= 0 && llvm::all_of(reads, [&](tensor::ExtractOp read) {
          return loopAt(read, d) == loop;
        }))
      dims[d] = loop;
  }
  // A loop may index only one dim of the table (else a diagonal).
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (dims[d] >= 0 && llvm::count(dims, dims[d]) > 1)
      dims[d] = -1;
  // The index ops whose every use indexes such a dim.
  body->walk([&](linalg::IndexOp index) {
    if (!indexesLoopOf(index, op))
      return;
    bool onlyTables = !index->use_empty();
    for (OpOperand &use : index->getUses()) {
      auto read = dyn_cast<tensor::ExtractOp>(use.getOwner());
      if (!read || read.getTensor() != table || use.getOperandNumber() == 0 ||
          dims[use.getOperandNumber() - 1] !=
              static_cast<int64_t>(index.getDim())) {
        onlyTables = false;
        break;
      }
    }
    if (onlyTables)
      tableIndices.insert(index);
  });
  return dims;
}

/// Each loop's size: the first operand dim (in operand order) its
/// indexing map reads as the loop alone, as LinalgOp::getStaticLoopRanges
/// gives it, from the maps asked for once (that one builds and inverts
/// their concatenation on each call: a quarter of a named op's rule).
static SmallVector<int64_t> loopSizes(linalg::LinalgOp op,
                                      ArrayRef<AffineMap> maps) {
  SmallVector<int64_t> sizes(op.getNumLoops(), ShapedType::kDynamic);
  SmallVector<bool> found(sizes.size(), false);
  for (OpOperand &operand : op->getOpOperands()) {
    auto shaped = dyn_cast<ShapedType>(operand.get().getType());
    if (!shaped || !shaped.hasRank())
      continue;
    for (auto [d, expr] :
         llvm::enumerate(maps[operand.getOperandNumber()].getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr);
          dim && dim.getPosition() < sizes.size() &&
          !found[dim.getPosition()]) {
        found[dim.getPosition()] = true;
        sizes[dim.getPosition()] = shaped.getDimSize(d);
      }
  }
  return sizes;
}

FailureOr<ShardingRule> linalgRule(linalg::LinalgOp op) {
  ShardingRule rule;
  // Operand dims from the indexing maps (a named op builds them on each
  // request: asked for once).
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<int64_t> ranges = loopSizes(op, maps);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // A loop of dynamic size is kept whole (shardingRuleOf).
  for (auto [loop, size] : llvm::enumerate(ranges)) {
    rule.loops.push_back(
        {size, iterators[loop] == utils::IteratorType::reduction, {}});
  }
  auto markUnshardable = [&](int64_t loop, const std::string &why) {
    if (rule.loops[loop].unshardable.empty())
      rule.loops[loop].unshardable = why;
  };

  for (OpOperand &operand : op->getOpOperands()) {
    std::vector<int64_t> dims;
    if (isa<RankedTensorType>(operand.get().getType()) &&
        !op.isScalar(&operand)) {
      AffineMap map = maps[operand.getOperandNumber()];
      for (AffineExpr expr : map.getResults()) {
        if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
          // A loop indexing two dims of one operand (a diagonal) cuts
          // them differently from their blocks.
          if (llvm::is_contained(dims, int64_t(dim.getPosition())))
            markUnshardable(dim.getPosition(),
                            "operand #" +
                                std::to_string(operand.getOperandNumber()) +
                                " is indexed by it in two dims");
          dims.push_back(dim.getPosition());
          continue;
        }
        dims.push_back(-1);
        expr.walk([&](AffineExpr sub) {
          if (auto dim = dyn_cast<AffineDimExpr>(sub))
            markUnshardable(dim.getPosition(),
                            "operand #" +
                                std::to_string(operand.getOperandNumber()) +
                                " is indexed by " + exprText(expr));
        });
      }
    }
    rule.operands.push_back(std::move(dims));
  }

  // A loop getStaticLoopRanges calls dynamic (its first dim is) may index
  // a static dim of another operand: that is its size (a dynamic input
  // read into a static output).
  for (auto [i, dims] : llvm::enumerate(rule.operands)) {
    auto type = dyn_cast<RankedTensorType>(op->getOperand(i).getType());
    for (auto [d, loop] : llvm::enumerate(dims))
      if (type && loop >= 0 && ShapedType::isDynamic(rule.loops[loop].size) &&
          !type.isDynamicDim(d))
        rule.loops[loop].size = type.getDimSize(d);
  }

  // A reduction loop that indexes a result (a softmax's exp and its sum
  // fused: the exp indexed by the loop the sum reduces) reduces some
  // results and places others: never cut (each rank runs all of it), and
  // not a reduction of the rule (whose results it would not index).
  for (OpOperand &init : op.getDpsInitsMutable()) {
    const std::vector<int64_t> &dims = rule.operands[init.getOperandNumber()];
    for (int64_t loop : dims)
      if (loop >= 0 && rule.loops[loop].reduction) {
        rule.loops[loop].reduction = false;
        markUnshardable(loop, "a reduction loop that indexes result #" +
                                  std::to_string(init.getOperandNumber() -
                                                 op.getNumDpsInputs()));
      }
  }

  // Tensors the payload reads from outside the op (tensor.extract of an
  // embedding's table): needed whole, but for a table whose element is
  // the op's one result (an embedding lookup, indexed by data): its dims
  // indexed by data are loops of the op of their own, reductions summed.
  // Sharded, each rank looks up the rows it holds and yields 0 for the
  // others, and the result is their sum (Megatron's vocab-parallel
  // embedding): partitionLinalg masks the lookup.
  Block *body = op.getBlock();
  const bool ownReductions = llvm::any_of(
      rule.loops, [](const ShardingRule::Loop &l) { return l.reduction; });
  const int64_t ownLoops = static_cast<int64_t>(rule.loops.size());
  bool gathers = false;
  // The index ops that only index a table dim their loop indexes (below):
  // read on a shard, the local index is the position in the local block.
  llvm::SmallPtrSet<Operation *, 4> tableIndices;
  for (Value table : capturedTensors(op)) {
    auto type = cast<RankedTensorType>(table.getType());
    std::vector<int64_t> dims = ownLoopDims(op, table, rule, tableIndices);
    // With reductions of its own, only a lookup summed into the init (an
    // embedding bag): their sum and the masked rows' are one P(sum).
    bool summed = false;
    tensor::ExtractOp lookup = lookupOf(op, table, &summed);
    if (lookup && (!ownReductions || summed)) {
      for (auto [d, index] : llvm::enumerate(lookup.getIndices())) {
        // A dim the data selects is masked by its blocks' offsets, known
        // where it is static (a table's rows of a run-time extent are read
        // whole; its dims the op's loops index may be dynamic).
        if (dims[d] >= 0 || index.getDefiningOp<linalg::IndexOp>() ||
            matchPattern(index, m_Constant()) || type.isDynamicDim(d))
          continue;
        dims[d] = static_cast<int64_t>(rule.loops.size());
        rule.loops.push_back({type.getDimSize(d), true, {}});
        rule.loops.back().unstrided =
            "it selects rows of a table by data, masked by the offset of "
            "the rows each rank holds";
        gathers = true;
      }
    }
    rule.operands.push_back(std::move(dims));
  }

  // A payload that reads a loop's index (linalg.index) reads the local
  // index on a shard: partitionLinalg adds this rank's offset of the loop,
  // which a tensor dim the loop indexes gives; without one (the loop
  // indexes no operand's dim) the loop is not cut.
  const size_t ownOperands = op->getNumOperands();
  if (body)
    body->walk([&](linalg::IndexOp index) {
      const int64_t loop = static_cast<int64_t>(index.getDim());
      if (!indexesLoopOf(index, op) || loop >= ownLoops ||
          tableIndices.contains(index))
        return;
      if (rule.loops[loop].unstrided.empty())
        rule.loops[loop].unstrided =
            "the payload reads its index (linalg.index), made global by one "
            "offset per rank";
      const bool offsetKnown =
          llvm::any_of(llvm::make_range(rule.operands.begin(),
                                        rule.operands.begin() + ownOperands),
                       [&](const std::vector<int64_t> &dims) {
                         return llvm::is_contained(dims, loop);
                       });
      if (!offsetKnown)
        markUnshardable(loop, "the payload reads its index (linalg.index) "
                              "and it indexes no operand's dim");
    });

  // Results: indexed as their inits; the combiners of reductions.
  llvm::SmallPtrSet<Value, 4> initArgs;
  for (OpOperand &init : op.getDpsInitsMutable())
    initArgs.insert(op.getMatchingBlockArgument(&init));
  bool reduces = llvm::any_of(
      rule.loops, [](const ShardingRule::Loop &l) { return l.reduction; });
  for (OpResult result : op->getResults()) {
    OpOperand *init = op.getDpsInitOperand(result.getResultNumber());
    rule.results.push_back(rule.operands[init->getOperandNumber()]);
    rule.inits.push_back(init->getOperandNumber());
    std::optional<Reduce> combiner;
    if (gathers) {
      // The one result is the lookup: one rank's row, zeros elsewhere.
      combiner = Reduce::Sum;
    } else if (reduces && body) {
      Operation *yield = body->getTerminator();
      combiner =
          combinerOf(*body, op.getMatchingBlockArgument(init),
                     yield->getOperand(result.getResultNumber()), initArgs);
      if (!combiner) {
        const Value yielded = yield->getOperand(result.getResultNumber());
        const std::string why =
            "result #" + std::to_string(result.getResultNumber()) +
            (ignoresNaN(yielded)
                 ? " is combined by a max or min that ignores NaN (maxnumf, "
                   "minnumf), which the runtime's propagates"
                 : " is not combined by add, mul, max or min");
        for (auto [loop, info] : llvm::enumerate(rule.loops))
          if (info.reduction)
            markUnshardable(loop, why);
      }
    }
    rule.combiners.push_back(combiner);
    // A parallel loop that does not index the result would write the same
    // element on several ranks.
    const std::vector<int64_t> &dims = rule.results.back();
    for (auto [loop, info] : llvm::enumerate(rule.loops))
      if (!info.reduction && !llvm::is_contained(dims, int64_t(loop)))
        markUnshardable(loop, "result #" +
                                  std::to_string(result.getResultNumber()) +
                                  " is not indexed by it");
  }

  // The groups of tensors (read by the payload) its results are linear in;
  // none where a result is reduced by anything but a sum (a product is
  // linear in its init, but its P(product) parts would not commute with
  // P(sum) ones on another axis).
  const bool sumsOnly = !reduces || llvm::all_of(rule.combiners, [](auto c) {
    return c == layout::Placement::Reduce::Sum;
  });
  if (body && sumsOnly && llvm::all_of(op->getResultTypes(), summable)) {
    std::vector<int64_t> candidates;
    for (OpOperand &operand : op->getOpOperands())
      if (isa<RankedTensorType>(operand.get().getType()) &&
          summable(operand.get().getType()) &&
          !op.getMatchingBlockArgument(&operand).use_empty())
        candidates.push_back(operand.getOperandNumber());
    SmallVector<Value> captured = capturedTensors(op);
    for (auto [j, tensor] : llvm::enumerate(captured))
      if (summable(tensor.getType()))
        candidates.push_back(static_cast<int64_t>(ownOperands + j));
    // Where the op reduces, each result's accumulator holds the earlier
    // iterations' values: it is as linear as the result, and its init
    // must be in the group (its parts, not a copy on every rank).
    std::vector<int64_t> accumulators;
    if (reduces)
      for (OpOperand &init : op.getDpsInitsMutable())
        if (!op.getMatchingBlockArgument(&init).use_empty())
          accumulators.push_back(init.getOperandNumber());
    rule.linear = linearGroups(candidates, [&](ArrayRef<int64_t> group) {
      if (llvm::any_of(accumulators, [&](int64_t init) {
            return !llvm::is_contained(group, init);
          }))
        return false;
      return llvm::all_of(
          yieldedDegrees(*body, captured, ownOperands, group, accumulators),
          [](Degree d) { return d == Degree::Linear || d == Degree::Zero; });
    });
  }
  return rule;
}

/// The same op on local blocks. A sharded reduction leaves each result
/// Partial: its init is made the result's partial copies (the planner's
/// move), so that the copies combine to the op's value.
/// The payload's loop indices made global: each linalg.index of a cut
/// loop plus this rank's offset of the loop (from the first operand dim
/// the loop indexes), except where it indexes a table dim the loop indexes
/// (ownLoopDims: the local block, read at the local index).
LogicalResult globalIndices(linalg::LinalgOp linalgOp, const ShardingRule &rule,
                            PartitionContext &context) {
  Operation *op = linalgOp.getOperation();
  Block *body = linalgOp.getBlock();
  if (!body)
    return success();
  SmallVector<linalg::IndexOp> indices;
  body->walk([&](linalg::IndexOp index) {
    if (indexesLoopOf(index, op))
      indices.push_back(index);
  });
  if (indices.empty())
    return success();
  const unsigned own = op->getNumOperands();
  SmallVector<Value> captured = capturedTensors(op);
  // Whether `use` indexes a dim of a captured table that `loop` indexes.
  auto localUse = [&](OpOperand &use, int64_t loop) {
    auto read = dyn_cast<tensor::ExtractOp>(use.getOwner());
    if (!read || use.getOperandNumber() == 0)
      return false;
    auto at = llvm::find(captured, read.getTensor());
    if (at == captured.end())
      return false;
    const std::vector<int64_t> &dims =
        rule.operands[own + static_cast<unsigned>(at - captured.begin())];
    return dims[use.getOperandNumber() - 1] == loop;
  };
  OpBuilder b(op);
  Location loc = op->getLoc();
  llvm::DenseMap<int64_t, Value> offsetOf;
  for (linalg::IndexOp index : indices) {
    const int64_t loop = static_cast<int64_t>(index.getDim());
    // Read only as the index of table dims the loop indexes: the local
    // index as it is, whatever the cut (a strided one included: the
    // table's rows lie as the loop's), so no offset is asked.
    if (llvm::all_of(index->getUses(),
                     [&](OpOperand &use) { return localUse(use, loop); }))
      continue;
    auto cached = offsetOf.find(loop);
    if (cached == offsetOf.end()) {
      Value offset;
      for (unsigned i = 0; i < own && !offset; ++i) {
        const std::vector<int64_t> &dims = rule.operands[i];
        auto d = llvm::find(dims, loop);
        if (d == dims.end())
          continue;
        Value operand = op->getOperand(i);
        ShardedTensorType global = context.globalOf(operand);
        // A strided cut holds rows of several groups: no one offset makes
        // the local index global.
        if (auto mesh = dyn_cast<PlacementsSpecAttr>(global.getSpec()))
          for (const layout::Placement &p : mesh.getPlacements())
            if (p.kind == layout::Placement::Kind::StridedShard &&
                p.dim == d - dims.begin())
              return op->emitOpError()
                     << "reads loop d" << loop
                     << " through linalg.index, which a strided cut ("
                     << layout::formatPlacement(p)
                     << ") leaves without one offset per rank";
        // (The tensor's extents: another dim of it may be a cut dynamic
        // one; what is not read here goes again.)
        SmallVector<OpFoldResult> extents;
        for (int64_t k = 0; k < global.getRank(); ++k)
          extents.push_back(context.globalExtent(b, loc, operand, k));
        SmallVector<OpFoldResult> offsets =
            context.localOffsets(b, loc, op, global, extents);
        OpFoldResult at = offsets[d - dims.begin()];
        if (!isConstantIntValue(at, 0))
          offset = getValueOrCreateConstantIndexOp(b, loc, at);
        break;
      }
      cached = offsetOf.try_emplace(loop, offset).first;
    }
    if (!cached->second)
      continue; // not cut, or its offset is 0 on every rank
    OpBuilder in(index);
    in.setInsertionPointAfter(index);
    Value global =
        arith::AddIOp::create(in, index.getLoc(), index, cached->second);
    index.getResult().replaceUsesWithIf(global, [&](OpOperand &use) {
      return use.getOwner() != global.getDefiningOp() && !localUse(use, loop);
    });
  }
  return success();
}

LogicalResult partitionLinalg(linalg::LinalgOp linalgOp,
                              const ShardingRule &rule,
                              PartitionContext &context) {
  Operation *op = linalgOp.getOperation();
  OpBuilder b(op);
  Location loc = op->getLoc();
  // The layouts the op reads, taken before any init is made partial below
  // (a later result read an earlier one's partial init as a Partial
  // operand and kept its own init on every copy: a linalg.reduce of two
  // inits summed the second N times).
  SmallVector<PlacementsSpecAttr> reads;
  {
    SmallVector<Value> tensors(op->getOperands());
    llvm::append_range(tensors, capturedTensors(op));
    for (Value operand : tensors)
      if (isa<RankedTensorType>(operand.getType()))
        if (auto read = dyn_cast<PlacementsSpecAttr>(
                context.globalOf(operand).getSpec()))
          reads.push_back(read);
  }
  for (OpResult result : op->getResults()) {
    ShardedTensorType global = context.globalOf(result);
    auto spec = dyn_cast<PlacementsSpecAttr>(global.getSpec());
    if (!spec || !spec.hasPartial())
      continue;
    OpOperand *init = linalgOp.getDpsInitOperand(result.getResultNumber());
    // A payload that never reads its init (an embedding lookup) writes
    // every element whatever it holds.
    if (linalgOp.getMatchingBlockArgument(init).use_empty())
      continue;
    // The Partial axes of sharded reductions; on an axis where the op
    // reads a linear group Partial (some operand is P there: no loop is
    // cut on such an axis), the parts it reads (its init's included, where
    // the group has it) are the result's.
    std::vector<bool> partialReads(spec.getPlacements().size(), false);
    for (PlacementsSpecAttr read : reads) {
      if (read.getMesh() != spec.getMesh())
        continue;
      for (auto [a, p] : llvm::enumerate(read.getPlacements()))
        if (p.kind == layout::Placement::Kind::Partial &&
            a < partialReads.size())
          partialReads[a] = true;
    }
    std::vector<layout::Placement> placements(spec.getPlacements().begin(),
                                              spec.getPlacements().end());
    for (auto [a, p] : llvm::enumerate(placements))
      if (p.kind == layout::Placement::Kind::Partial &&
          !(a < partialReads.size() && partialReads[a]))
        p = layout::Placement::replicate();
    auto from =
        PlacementsSpecAttr::get(op->getContext(), spec.getMesh(), placements);
    if (from == spec)
      continue;
    std::optional<layout::Placement::Reduce> combiner =
        rule.combiners[result.getResultNumber()];
    if (!combiner)
      return op->emitOpError()
             << "has a Partial result #" << result.getResultNumber()
             << " but no combiner for its reduction";
    Value value = init->get();
    TypedAttr identity =
        identityOf(*combiner, getElementTypeOrSelf(value.getType()));
    // An init filled with the identity already (a matmul's zeros).
    if (auto fill = value.getDefiningOp<linalg::FillOp>()) {
      Attribute filledWith;
      if (matchPattern(fill.value(), m_Constant(&filledWith)) &&
          filledWith == identity)
        continue;
    }
    // The init whole on those axes, made the result's partial copies by
    // the planner's one move (planning::decideMove: the first copy keeps
    // it, the others the identity, for sum and product).
    auto whole = ShardedTensorType::get(op->getContext(), global.getDims(),
                                        global.getElementType(), from);
    init->set(context.redistribute(b, loc, value, whole, global));
  }
  for (OpResult result : op->getResults())
    result.setType(
        linalgOp.getDpsInitOperand(result.getResultNumber())->get().getType());
  if (failed(globalIndices(linalgOp, rule, context)))
    return failure();
  // A lookup in a table cut along a dim the data indexes: this rank's rows
  // at their local index, 0 for the rows other ranks hold (the result is
  // Partial, their sum). A rank that holds none never reads its table.
  const unsigned own = op->getNumOperands();
  const int64_t ownLoops = static_cast<int64_t>(linalgOp.getNumLoops());
  SmallVector<Value> captured = capturedTensors(op);
  for (auto [k, table] : llvm::enumerate(captured)) {
    // Dims the op's own loops index are read at the local index as they
    // are (ownLoopDims); only dims the data selects are masked.
    const std::vector<int64_t> &dims = rule.operands[own + k];
    if (llvm::all_of(dims, [&](int64_t loop) { return loop < ownLoops; }))
      continue;
    tensor::ExtractOp lookup = lookupOf(linalgOp, table);
    if (!lookup)
      return op->emitOpError() << "reads a table from outside it in a way "
                                  "its sharding rule does not describe";
    ShardedTensorType global = context.globalOf(table);
    if (getLocalType(global) ==
        RankedTensorType::get(global.getDims(), global.getElementType()))
      continue; // Not cut: the lookup reads it whole.
    SmallVector<OpFoldResult> offsets =
        context.localOffsets(b, loc, op, global);
    SmallVector<OpFoldResult> sizes = context.localSizes(
        b, loc, op, global, tensor::getMixedSizes(b, loc, table));
    SmallVector<LocalDim> local;
    for (auto [d, loop] : llvm::enumerate(dims))
      if (loop >= ownLoops)
        local.push_back({static_cast<unsigned>(d),
                         getValueOrCreateConstantIndexOp(b, loc, offsets[d]),
                         getValueOrCreateConstantIndexOp(b, loc, sizes[d]),
                         global.getDims()[d]});
    OpBuilder in(lookup);
    Value read =
        maskedRead(in, lookup.getLoc(), table, lookup.getIndices(), local);
    lookup.replaceAllUsesWith(read);
    lookup.erase();
  }
  return success();
}

template <typename OpT>
struct LinalgRuleModel
    : ShardingRuleOpInterface::ExternalModel<LinalgRuleModel<OpT>, OpT> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    return linalgRule(cast<linalg::LinalgOp>(op));
  }
  LogicalResult partition(Operation *op, const ShardingRule &rule,
                          PartitionContext &context) const {
    return partitionLinalg(cast<linalg::LinalgOp>(op), rule, context);
  }
  /// The op on local blocks, whatever their sizes (a loop's index the
  /// payload reads shifted by the block's offset, computed at run time from
  /// the extent: PartitionContext::localOffsets): but where the loop
  /// indexes a static dim of a table from outside it, whose blocks are cut
  /// at compile time (a position table's rows against a run-time sequence).
  /// The rows of an embedding's ids are cut (each rank looks up its own),
  /// and a batch an nll_loss payload reads logits' rows of by linalg.index.
  bool cutsDynamicLoop(Operation *op, const ShardingRule &rule,
                       int64_t loop) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    SmallVector<Value> captured = capturedTensors(op);
    for (size_t i = op->getNumOperands(); i < rule.operands.size(); ++i) {
      auto type =
          cast<RankedTensorType>(captured[i - op->getNumOperands()].getType());
      for (auto [d, l] : llvm::enumerate(rule.operands[i]))
        if (l == loop && !type.isDynamicDim(d))
          return false;
    }
    return loop < static_cast<int64_t>(linalgOp.getNumLoops());
  }
};

/// linalg.softmax: one parallel loop per dim, input and output indexed
/// alike; the normalized dim is needed whole (its max and sum are over all
/// of it), every other dim may be cut. The same op on local blocks.
struct SoftmaxRuleModel
    : ShardingRuleOpInterface::ExternalModel<SoftmaxRuleModel,
                                             linalg::SoftmaxOp> {
  FailureOr<ShardingRule> getShardingRule(Operation *op) const {
    auto softmax = cast<linalg::SoftmaxOp>(op);
    ShapedType type = softmax.getInputOperandType();
    if (failed(checkRankedShapes(op)))
      return failure();
    ShardingRule rule = ShardingRule::elementwise(
        std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
        {true, true});
    rule.loops[softmax.getDimension()].unshardable =
        "softmax normalizes along it";
    rule.inits.back() = 1;
    return rule;
  }
  /// The same op on local blocks.
  bool cutsDynamicLoop(Operation *, const ShardingRule &, int64_t) const {
    return true;
  }
};

template <typename... Ops> void attachLinalgRules(MLIRContext *ctx) {
  (Ops::template attachInterface<LinalgRuleModel<Ops>>(*ctx), ...);
}

} // namespace

void shardc::registerLinalgShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attachLinalgRules<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(ctx);
    linalg::SoftmaxOp::attachInterface<SoftmaxRuleModel>(*ctx);
  });
}
