//===- PropagateBuild.cpp - -shard-propagate's graph of slots and nodes --===//
//
// Propagation::build and buildFunction: every tensor value gets a slot
// (values that must share a layout share one), every op with a sharding
// rule becomes a node joining its tensors' slots, and every use that asks
// for another slot's layout (a constraint's input, a returned, yielded or
// passed value, a loop's init) an edge; pins on arguments, results and
// constraints set their slots. Propagate.cpp decides layouts on this graph.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/ElementTypes.h"
#include "shardc/Dialect/Shard.h"

#include "ControlFlow.h"
#include "FunctionAttrs.h"
#include "Propagation.h"

using namespace mlir;
using namespace shardc;
using namespace shardc::propagation;

/// The pinned layout of an argument or result attribute dictionary.
static ShardingSpecAttrInterface pinned(DictionaryAttr attrs) {
  if (!attrs)
    return nullptr;
  return dyn_cast_or_null<ShardingSpecAttrInterface>(attrs.get(kLayoutAttr));
}

LogicalResult Propagation::build() {
  module.walk([&](func::FuncOp func) {
    funcIndex[func] = static_cast<int>(funcs.size());
    funcs.push_back(func);
  });
  argSlots.resize(funcs.size());
  resultSlots.resize(funcs.size());
  opaque.assign(funcs.size(), false);
  // Arguments and results first: calls refer to them. A layout pinned on
  // one that cannot take it (an encoding; the attribute's verifier checks
  // the rest) is an error, not ignored.
  for (auto [index, func] : llvm::enumerate(funcs)) {
    FunctionType type = func.getFunctionType();
    auto unusable = [&](Type t, DictionaryAttr attrs, StringRef what,
                        size_t i) -> LogicalResult {
      if (hasLayout(t) || !pinned(attrs))
        return success();
      return func.emitOpError()
             << "pins a layout on " << what << " #" << i << " of type " << t
             << "; sharding needs ranked tensors without encodings";
    };
    // Partial values of an element type the runtime cannot reduce (i1,
    // moved as bytes): nothing could use them (as a constraint's are
    // refused, planning the move there).
    auto unreducible = [&](Type t, DictionaryAttr attrs, StringRef what,
                           size_t i) -> LogicalResult {
      ShardingSpecAttrInterface spec = pinned(attrs);
      auto ranked = dyn_cast<RankedTensorType>(t);
      if (!spec || !ranked || !spec.hasPartial())
        return success();
      std::string why = whyNotReducible(ranked.getElementType());
      if (why.empty())
        return success();
      return func.emitOpError()
             << "pins a layout of partial values on " << what << " #" << i
             << " of type " << t << ", which could not be reduced: " << why;
    };
    for (auto [i, input] : llvm::enumerate(type.getInputs()))
      if (failed(unusable(input, func.getArgAttrDict(i), "argument", i)) ||
          failed(unreducible(input, func.getArgAttrDict(i), "argument", i)))
        return failure();
    for (auto [i, result] : llvm::enumerate(type.getResults()))
      if (failed(unusable(result, func.getResultAttrDict(i), "result", i)) ||
          failed(unreducible(result, func.getResultAttrDict(i), "result", i)))
        return failure();
    for (auto [i, input] : llvm::enumerate(type.getInputs())) {
      int slot = -1;
      if (hasLayout(input)) {
        slot = func.isExternal()
                   ? newSlot(input, index)
                   : slotFor(func.getArgument(i), static_cast<int>(index));
        slots[slot].layout = pinned(func.getArgAttrDict(i));
        slots[slot].whole = func.isExternal() && !slots[slot].layout;
      }
      argSlots[index].push_back(slot);
    }
    for (auto [i, result] : llvm::enumerate(type.getResults())) {
      int slot = -1;
      if (hasLayout(result)) {
        slot = newSlot(result, index);
        slots[slot].layout = pinned(func.getResultAttrDict(i));
        slots[slot].whole = func.isExternal() && !slots[slot].layout;
      }
      resultSlots[index].push_back(slot);
    }
  }
  for (size_t index = 0; index < funcs.size(); ++index)
    if (failed(buildFunction(static_cast<int>(index))))
      return failure();
  // Held through the search: no spare room (a node per op, thousands).
  nodes.shrink_to_fit();
  return success();
}

LogicalResult Propagation::buildFunction(int index) {
  func::FuncOp func = funcs[index];
  if (func.isExternal())
    return success();
  if (!func.getBody().hasOneBlock()) {
    // Left alone, unless layouts reach it (checkCovered).
    opaque[index] = true;
    return success();
  }
  auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
  // The slots each forwarded operand of an op that carries layouts must
  // reach (its flow groups'): the op's own edges are added at the op, its
  // terminators' where the walk meets them (in program order).
  llvm::DenseMap<OpOperand *, SmallVector<int, 1>> flowSlots;
  auto touchesTensors = [&](Operation *op) {
    return llvm::any_of(op->getOperandTypes(), isTensor) ||
           llvm::any_of(op->getResultTypes(), isTensor);
  };
  WalkResult walk = func.getBody().walk<WalkOrder::PreOrder>(
      [&](Operation *op) -> WalkResult {
        // Layouts follow tensors into the regions of ops that carry them
        // (ControlFlow.h; a rule op's regions, a linalg payload, hold
        // scalars: below). Another op's regions are not entered; a tensor
        // used or a layout pinned there is diagnosed once the function
        // gets layouts (checkCovered).
        if (op->getNumRegions() > 0 && !carriesLayouts(op) &&
            !hasShardingRule(op)) {
          op->walk([&](Operation *inner) {
            if (inner != op &&
                (isa<ConstraintOp>(inner) || touchesTensors(inner))) {
              unentered.push_back({inner, op});
              return WalkResult::interrupt();
            }
            return WalkResult::advance();
          });
          if (touchesTensors(op))
            uncovered.push_back(op);
          return WalkResult::skip();
        }
        if (auto constraint = dyn_cast<ConstraintOp>(op)) {
          int result = slotFor(constraint.getResult(), index);
          if (result < 0) {
            // The verifier takes any ranked tensor the spec fits; a layout
            // needs no encoding (before: a segfault).
            constraint.emitOpError()
                << "pins a layout on a tensor of type "
                << constraint.getResult().getType()
                << "; sharding needs ranked tensors without encodings";
            return WalkResult::interrupt();
          }
          slots[result].layout = constraint.getLayout();
          addEdge(constraint.getInputMutable(), index, result);
          return WalkResult::advance();
        }
        if (auto ret = dyn_cast<func::ReturnOp>(op)) {
          for (OpOperand &use : op->getOpOperands())
            addEdge(use, index, resultSlots[index][use.getOperandNumber()]);
          return WalkResult::advance();
        }
        if (auto call = dyn_cast<func::CallOp>(op)) {
          // func.call's verifier makes the callee a func.func, found from
          // the call (in a nested module too).
          auto callee = calleeOf(call);
          auto found = funcIndex.find(callee);
          if (!callee || found == funcIndex.end()) {
            call.emitOpError() << "calls " << call.getCalleeAttr()
                               << ", which -shard-propagate cannot find";
            return WalkResult::interrupt();
          }
          int target = found->second;
          for (OpOperand &use : op->getOpOperands())
            addEdge(use, index, argSlots[target][use.getOperandNumber()]);
          for (auto [i, result] : llvm::enumerate(call.getResults()))
            if (resultSlots[target][i] >= 0)
              slotOf[result] = resultSlots[target][i];
          return WalkResult::advance();
        }
        if (carriesLayouts(op)) {
          // Each group of values it passes along as one shares a slot;
          // what is forwarded into the group is an edge into it.
          for (const FlowGroup &group : flowGroups(op)) {
            int slot = -1;
            for (Value value : group.values) {
              if (slot < 0)
                slot = slotFor(value, index);
              else if (hasLayout(value.getType()))
                slotOf[value] = slot;
            }
            if (slot < 0)
              continue;
            for (OpOperand *source : group.sources) {
              if (source->getOwner() == op)
                addEdge(*source, index, slot);
              else
                flowSlots[source].push_back(slot);
            }
          }
          return WalkResult::advance();
        }
        if (forwardsLayouts(op)) {
          for (OpOperand &use : op->getOpOperands())
            if (auto it = flowSlots.find(&use); it != flowSlots.end())
              for (int slot : it->second)
                addEdge(use, index, slot);
          return WalkResult::advance();
        }
        const bool isRule = hasShardingRule(op);
        if (!touchesTensors(op) && !(isRule && capturesTensors(op)))
          return WalkResult::advance();
        Node node;
        node.op = op;
        for (Value operand : op->getOperands())
          node.operandSlots.push_back(slotFor(operand, index));
        for (Value result : op->getResults())
          node.resultSlots.push_back(slotFor(result, index));
        if (!isRule) {
          uncovered.push_back(op);
          return WalkResult::advance();
        }
        // A rule op's regions (a linalg payload) compute each element on
        // the rank that holds it: the tensors they read from outside (an
        // embedding's table) are the op's operands too, after its own, and
        // its rule says how they are held; tensors made inside (a scalar
        // wrapped in a tensor of one element, as StableHLO's reductions
        // lower) are the element's own, on every cut alike. A layout or a
        // sharding pinned inside is not entered (diagnosed).
        for (Value tensor : capturedTensors(op))
          node.operandSlots.push_back(slotFor(tensor, index));
        op->walk([&](Operation *inner) {
          if (inner != op &&
              (isa<ConstraintOp>(inner) || inner->hasAttr(kOpShardingAttr)))
            unentered.push_back({inner, op});
        });
        node.isRule = true;
        node.hasPin = op->hasAttr(kOpShardingAttr);
        addNode(std::move(node));
        return WalkResult::skip();
      });
  return failure(walk.wasInterrupted());
}
