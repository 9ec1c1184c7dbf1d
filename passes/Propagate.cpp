//===- Propagate.cpp - Give every tensor value of a program a layout ------===//
//
// -shard-propagate. Every tensor value gets a slot (values that must share a
// layout share one: an scf.for result and its region argument, a call's
// result and the callee's result). Two kinds of nodes join slots:
//
// - a compute op with a sharding rule: its tensors' layouts follow from one
//   LoopSharding (which mesh axis shards which loop);
// - an edge: a use that asks for the layout of another slot (a constraint's
//   input, a returned, yielded or passed value, a loop's init).
//
// Pinned slots (shard.layout, shard.constraint) start the work; a node
// whose slots are partly known gives the others a layout; each slot is set
// once, so each node is decided once and the work is linear (but for the
// queues' logarithm). Layouts flowing forward go first, in program order,
// so that an op is decided with everything its operands learn from the ops
// before it; only when none is left does a layout flow backward (from the
// latest op), from uses to the values they use. A compute op
// whose known tensors ask for different shardings weighs each candidate by
// what the planner says the forced redistributions cost. Slots no pin
// reaches, in a function that has layouts, are replicated on its mesh.
// Then the layouts are written back (docs/partition.md). The graph of
// slots and nodes is built in PropagateBuild.cpp; by default
// (search=whole) each function's layouts are chosen together first, in
// PropagateSearch.cpp; they are written back as shard.constraint ops in
// PropagateWriteBack.cpp; the class and its state are in Propagation.h.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"
#include "shardc/Rules/Padding.h"
#include "shardc/Rules/Rules.h"

#include "ControlFlow.h"
#include "CostModelOptions.h"
#include "FunctionAttrs.h"
#include "Propagation.h"
#include "RefineShapes.h"
#include "ScalarSlices.h"
#include "SliceProducers.h"
#include "SpecializeCallees.h"
#include "UnreadDestinations.h"
#include "shardc/Planning/ShardPlanner.h"
#include "shardc/Rules/LoopSharding.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <queue>

namespace shardc {
#define GEN_PASS_DEF_SHARDPROPAGATE
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;
using planning::ShardPlanner;
using namespace shardc::propagation;

/// `layout` replicated on every axis of its mesh (null without a mesh).
static PlacementsSpecAttr replicated(ShardingSpecAttrInterface layout,
                                     ArrayRef<int64_t> shape) {
  PlacementsSpecAttr mesh = asMeshLayout(layout, shape);
  if (!mesh)
    return nullptr;
  std::vector<layout::Placement> all(mesh.getPlacements().size());
  return PlacementsSpecAttr::get(mesh.getContext(), mesh.getMesh(), all);
}

void Propagation::assign(int slot, ShardingSpecAttrInterface layout) {
  if (slot < 0 || slots[slot].layout || !layout)
    return;
  // A function without a body takes and gives whole tensors.
  if (slots[slot].whole) {
    layout = replicated(layout, slots[slot].type.getShape());
    if (!layout)
      return;
  }
  slots[slot].layout = layout;
  for (int node : nodesOf[slot])
    enqueue(node, isInput(node, slot));
}

bool Propagation::typeTakesLayout(RankedTensorType type,
                                  ShardingSpecAttrInterface spec) {
  auto [at, fresh] = layoutAccepted.try_emplace({Type(type), spec}, true);
  if (fresh) {
    MLIRContext *ctx = type.getContext();
    ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
    auto emit = [&] { return mlir::emitError(UnknownLoc::get(ctx)); };
    at->second = succeeded(ShardedTensorType::verify(
        emit, type.getShape(), type.getElementType(), spec));
  }
  return at->second;
}

Move Propagation::moveCost(RankedTensorType type,
                           ShardingSpecAttrInterface from,
                           ShardingSpecAttrInterface to) {
  if (sameBlocks(from, to, type.getShape()))
    return {};
  MLIRContext *ctx = type.getContext();
  for (ShardingSpecAttrInterface spec : {from, to})
    if (!plannableLayout(type, spec))
      return {0, 0, false};
  auto fromType =
      ShardedTensorType::get(ctx, type.getShape(), type.getElementType(), from);
  auto toType =
      ShardedTensorType::get(ctx, type.getShape(), type.getElementType(), to);
  {
    // The planner's one decision: what it refuses is no option here.
    ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
    auto emit = [&] { return mlir::emitError(UnknownLoc::get(ctx)); };
    if (failed(planning::decideMove(fromType, toType, emit)))
      return {0, 0, false};
  }
  // Where the plan's steps end holds the same blocks already (a replicated
  // value made partial, say): nothing moves.
  if (sameBlocks(from, planning::reachedBy(fromType, toType).getSpec(),
                 type.getShape()))
    return {};
  // No collective moves data between CPU and CUDA blocks.
  if (typeFacts(fromType).kind != typeFacts(toType).kind)
    return {0, 0, false};
  const planning::ModelledMove &move = planner.modelledCost(fromType, toType);
  if (move.overflow)
    return {0, 0, false};
  return {move.us, move.bytesReceived, true};
}

bool Propagation::plannableLayout(RankedTensorType type,
                                  ShardingSpecAttrInterface spec) {
  const std::pair<Type, Attribute> key{type, spec};
  if (auto it = plannable.find(key); it != plannable.end())
    return it->second;
  // A layout the type refuses (a strided cut of a dynamic dim, whose
  // groups the nominal extent does not hold) is no option; nor is a sharded
  // type the planner refuses.
  bool takes = typeTakesLayout(type, spec);
  if (takes) {
    MLIRContext *ctx = type.getContext();
    ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
    takes = succeeded(
        verifyPlannable(ShardedTensorType::get(ctx, type.getShape(),
                                               type.getElementType(), spec),
                        [&] { return mlir::emitError(UnknownLoc::get(ctx)); }));
  }
  plannable[key] = takes;
  return takes;
}

LogicalResult Propagation::process(int id) {
  Node &node = nodes[id];
  if (node.isRule)
    return processRule(node);
  // An edge: a known side gives the other its layout; a Partial value is
  // reduced where it crosses (the slot it reaches holds it whole).
  ShardingSpecAttrInterface from = slots[node.from].layout;
  ShardingSpecAttrInterface to = slots[node.to].layout;
  if (from && !to) {
    if (auto mesh = dyn_cast<PlacementsSpecAttr>(from))
      from = withoutPartial(mesh);
    assign(node.to, from);
  } else if (to && !from) {
    // Partial values are made where a reduction is sharded, never asked of
    // the value a pin reads: it reaches it whole.
    if (auto mesh = dyn_cast<PlacementsSpecAttr>(to))
      to = withoutPartial(mesh);
    assign(node.from, to);
  }
  return success();
}

LogicalResult Propagation::ruleOf(Node &node) {
  if (node.rule)
    return success();
  // Checked against the op there (verifyRuleFor): one entry per slot.
  FailureOr<std::shared_ptr<const ShardingRule>> rule =
      rules.sharedRuleOf(node.op);
  if (failed(rule))
    return failure();
  assert((*rule)->operands.size() == node.operandSlots.size() &&
         (*rule)->results.size() == node.resultSlots.size());
  node.rule = std::move(*rule);
  return success();
}

/// Whether `slot` is a tensor's and has a layout.
bool Propagation::slotKnown(int slot) const {
  return slot >= 0 && slots[slot].layout;
}

/// The layout operand (or result) #i of `node` needs under `s`: a known
/// operand read as it is where the op's hook cuts its window.
ShardingSpecAttrInterface Propagation::requiredLayout(const Node &node,
                                                      const LoopSharding &s,
                                                      int slotIndex,
                                                      bool result) const {
  const ShardingRule &rule = *node.rule;
  if (result)
    return resultLayoutUnder(rule, s, slotIndex);
  const int slot = node.operandSlots[slotIndex];
  if (slot < 0)
    return layoutUnder(rule, s, rule.operands[slotIndex]);
  return operandLayoutUnder(node.op, rule, s, slotIndex,
                            slotKnown(slot) ? slots[slot].layout : nullptr,
                            slots[slot].type.getShape());
}

bool Propagation::holdsDynamicTensors(const Node &node, const LoopSharding &s) {
  auto fits = [&](int slot, const std::vector<int64_t> &dims) {
    if (slot < 0 || slots[slot].type.hasStaticShape())
      return true;
    PlacementsSpecAttr layout = layoutUnder(*node.rule, s, dims);
    return llvm::none_of(layout.getPlacements(),
                         [](const layout::Placement &p) {
                           return p.kind ==
                                  layout::Placement::Kind::StridedShard;
                         }) &&
           typeTakesLayout(slots[slot].type, layout);
  };
  for (auto [i, slot] : llvm::enumerate(node.operandSlots))
    if (!fits(slot, node.rule->operands[i]) ||
        (s.reads && s.readOf(i) && slot >= 0 &&
         !slots[slot].type.hasStaticShape()))
      return false;
  for (auto [i, slot] : llvm::enumerate(node.resultSlots))
    if (!fits(slot, node.rule->results[i]))
      return false;
  return true;
}

/// The shardings op by op weighs for a rule node: what each known tensor
/// asks for, completed by the others where they agree (or the pinned one
/// alone); empty, the node waiting, where nothing asks yet.
std::vector<LoopSharding> Propagation::greedyCandidates(Node &node) {
  const ShardingRule &rule = *node.rule;
  auto known = [&](int slot) { return slotKnown(slot); };
  // What each known tensor asks for, in operand then result order.
  // `plain` is the proposal without what window dims ask (the op can also
  // read or place a window cut otherwise): a candidate of its own.
  struct Ask {
    std::string who;
    LoopSharding proposal, plain;
  };
  std::vector<Ask> asks;
  auto askOf = [&](int slot, ArrayRef<int64_t> dims, ArrayRef<int64_t> windows,
                   std::string who) {
    if (!known(slot))
      return;
    if (PlacementsSpecAttr mesh =
            asMeshLayout(slots[slot].layout, slots[slot].type.getShape()))
      asks.push_back({std::move(who), proposalOf(rule, dims, mesh, windows),
                      proposalOf(rule, dims, mesh)});
  };
  for (auto [i, slot] : llvm::enumerate(node.operandSlots))
    askOf(slot, rule.operands[i],
          i < rule.windows.size() ? ArrayRef<int64_t>(rule.windows[i])
                                  : ArrayRef<int64_t>(),
          "operand #" + std::to_string(i));
  for (auto [i, slot] : llvm::enumerate(node.resultSlots))
    askOf(slot, rule.results[i], {}, "result #" + std::to_string(i));
  // An operand in a layout that is not a mesh layout (several blocks per
  // rank) asks for the sharding that computes from it as it is, where the
  // op has one (ShardingRuleOpInterface::layoutInPlace).
  auto func = node.op->getParentOfType<func::FuncOp>();
  MeshAttr funcMeshOf = func ? funcMesh[funcIndex[func]] : nullptr;
  for (auto [i, slot] : llvm::enumerate(node.operandSlots)) {
    if (!known(slot) ||
        asMeshLayout(slots[slot].layout, slots[slot].type.getShape()))
      continue;
    if (std::optional<LoopSharding> proposal =
            inPlaceProposal(node.op, rule, funcMeshOf, i, slots[slot].layout))
      asks.push_back({"operand #" + std::to_string(i) + " as it is", *proposal,
                      *proposal});
  }
  if (asks.empty()) {
    // No tensor with a mesh layout: the op runs replicated on its
    // function's mesh, if it has one.
    MeshAttr mesh = funcMeshOf;
    if (mesh)
      asks.push_back(
          {"the function's mesh",
           LoopSharding{mesh, std::vector<int64_t>(mesh.getShape().size(), -1)},
           LoopSharding{mesh,
                        std::vector<int64_t>(mesh.getShape().size(), -1)}});
  }
  if (asks.empty() && !node.pinned) {
    // Decided later if a mesh layout reaches one of its tensors (say
    // through a call); diagnosed at the end otherwise (checkDecided).
    node.waiting = true;
    return {};
  }
  node.waiting = false;

  // The candidates: each ask, completed by the others where they agree.
  // A loop whose folded dim torch.chunk cuts between its steps is not
  // sharded (alignToFactors), and the op says so: its tensors move.
  std::vector<LoopSharding> candidates;
  std::string misaligned;
  for (const Ask &ask : asks) {
    LoopSharding candidate = ask.proposal;
    for (const Ask &other : asks)
      candidate = mergeProposals(candidate, other.proposal);
    std::string why;
    candidate = alignToFactors(rule, std::move(candidate), &why);
    if (!why.empty() && misaligned.empty())
      misaligned = ask.who + " asks for a sharding whose " + why;
    if (!llvm::is_contained(candidates, candidate))
      candidates.push_back(std::move(candidate));
  }
  // Without what window dims ask, last (a tie keeps the window's sharding).
  for (const Ask &ask : asks) {
    if (ask.plain == ask.proposal &&
        llvm::all_of(asks, [](const Ask &a) { return a.plain == a.proposal; }))
      break;
    LoopSharding candidate = ask.plain;
    for (const Ask &other : asks)
      candidate = mergeProposals(candidate, other.plain);
    candidate = alignToFactors(rule, std::move(candidate));
    if (!llvm::is_contained(candidates, candidate))
      candidates.push_back(std::move(candidate));
  }
  // A pinned sharding is the only candidate (its tensors move to it).
  if (node.pinned) {
    candidates.assign(1, *node.pinned);
    misaligned.clear();
  } else {
    // Only shardings the partition holds the op's tensors of dynamic dims
    // in (as search=whole's): a strided one that it does not, cut plainly
    // instead where that holds; none: nothing sharded, which it always
    // does.
    std::vector<LoopSharding> held;
    for (const LoopSharding &s : candidates) {
      if (holdsDynamicTensors(node, s)) {
        if (!llvm::is_contained(held, s))
          held.push_back(s);
        continue;
      }
      if (s.axisSplit.empty())
        continue;
      LoopSharding plain = s;
      plain.axisSplit.clear();
      plain = alignToFactors(rule, std::move(plain));
      if (holdsDynamicTensors(node, plain) && !llvm::is_contained(held, plain))
        held.push_back(std::move(plain));
    }
    candidates = std::move(held);
    if (candidates.empty())
      candidates.push_back(
          LoopSharding{asks.front().proposal.mesh,
                       std::vector<int64_t>(
                           asks.front().proposal.mesh.getShape().size(), -1)});
  }
  if (!misaligned.empty())
    mlir::emitRemark(node.op->getLoc())
        << misaligned << "; its tensors are moved instead (exactly)";
  return candidates;
}

/// The candidate whose moves cost least (known operands to the layouts it
/// needs, its results to the layouts already asked of them); explain=true
/// says why.
size_t
Propagation::chooseCandidate(Node &node,
                             const std::vector<LoopSharding> &candidates) {
  auto known = [&](int slot) { return slotKnown(slot); };
  auto required = [&](const LoopSharding &s, int slotIndex, bool result) {
    return requiredLayout(node, s, slotIndex, result);
  };
  size_t chosen = 0;
  {
    // What each candidate forces to move: known operands to the layouts it
    // needs, and its results to the layouts already asked of them.
    struct Weighed {
      Move total;
      std::string moves;
    };
    std::vector<Weighed> weighed;
    for (const LoopSharding &candidate : candidates) {
      Weighed w;
      auto add = [&](int slot, ShardingSpecAttrInterface from,
                     ShardingSpecAttrInterface to, const std::string &who) {
        Move move = moveCost(slots[slot].type, from, to);
        if (!move.possible) {
          w.total.possible = false;
          return;
        }
        if (move.bytes == 0 && move.us == 0)
          return;
        w.total.us += move.us;
        w.total.bytes += move.bytes;
        std::string text;
        llvm::raw_string_ostream os(text);
        os << who << " " << from << " -> " << to << ": " << move.bytes
           << " bytes, " << llvm::format("%.3g", move.us) << " us";
        w.moves += (w.moves.empty() ? "" : "; ") + text;
      };
      for (auto [i, slot] : llvm::enumerate(node.operandSlots))
        if (known(slot))
          add(slot, slots[slot].layout, required(candidate, i, false),
              "operand #" + std::to_string(i));
      // Results: moved to the layouts asked of them, or, when nothing asks
      // yet, reduced if partial (what a partial result nearly always needs).
      for (auto [i, slot] : llvm::enumerate(node.resultSlots)) {
        if (slot < 0)
          continue;
        auto natural = cast<PlacementsSpecAttr>(required(candidate, i, true));
        if (known(slot))
          add(slot, natural, slots[slot].layout,
              "result #" + std::to_string(i));
        else if (natural.hasPartial())
          add(slot, natural, withoutPartial(natural),
              "result #" + std::to_string(i));
      }
      weighed.push_back(std::move(w));
    }
    auto better = [](const Move &a, const Move &b) {
      if (a.possible != b.possible)
        return a.possible;
      if (a.us != b.us)
        return a.us < b.us;
      return a.bytes < b.bytes;
    };
    for (size_t c = 1; c < candidates.size(); ++c)
      if (better(weighed[c].total, weighed[chosen].total))
        chosen = c;
    if (explain) {
      // Candidates on several meshes name theirs.
      bool meshes = llvm::any_of(candidates, [&](const LoopSharding &c) {
        return c.mesh != candidates.front().mesh;
      });
      auto name = [&](const LoopSharding &c) {
        std::string text = describeSharding(c);
        if (meshes) {
          llvm::raw_string_ostream os(text);
          os << " of " << c.mesh;
        }
        return text;
      };
      auto moves = [&](const Weighed &w) -> std::string {
        if (!w.total.possible)
          return "a move the planner cannot make or count";
        return w.moves.empty() ? "moves nothing" : w.moves;
      };
      InFlightDiagnostic remark = mlir::emitRemark(node.op->getLoc());
      remark << "its tensors ask for " << candidates.size()
             << " different shardings; kept " << name(candidates[chosen])
             << " (" << moves(weighed[chosen]) << ")";
      for (size_t c = 0; c < candidates.size(); ++c)
        if (c != chosen)
          remark << "; over " << name(candidates[c]) << " ("
                 << moves(weighed[c]) << ")";
    }
  }
  return chosen;
}

LogicalResult Propagation::processRule(Node &node) {
  if (node.decision)
    return success();
  auto known = [&](int slot) { return slotKnown(slot); };
  if (!node.pinned && llvm::none_of(node.operandSlots, known) &&
      llvm::none_of(node.resultSlots, known))
    return success();
  if (failed(ruleOf(node)))
    return failure();
  std::vector<LoopSharding> candidates = greedyCandidates(node);
  if (candidates.empty())
    return success(); // waiting
  const size_t chosen =
      candidates.size() > 1 ? chooseCandidate(node, candidates) : 0;
  auto required = [&](const LoopSharding &s, int slotIndex, bool result) {
    return requiredLayout(node, s, slotIndex, result);
  };
  node.decision = candidates[chosen];
  for (auto [i, slot] : llvm::enumerate(node.operandSlots))
    if (slot >= 0)
      assign(slot, required(*node.decision, i, false));
  for (auto [i, slot] : llvm::enumerate(node.resultSlots))
    if (slot >= 0)
      assign(slot, required(*node.decision, i, true));
  return success();
}

Move Propagation::cachedMoveCost(RankedTensorType type,
                                 ShardingSpecAttrInterface from,
                                 ShardingSpecAttrInterface to) {
  auto key = std::make_tuple(Type(type), Attribute(from), Attribute(to));
  auto it = moveCache.find(key);
  if (it != moveCache.end())
    return it->second;
  Move move = moveCost(type, from, to);
  moveCache[key] = move;
  return move;
}

LogicalResult Propagation::drain() {
  while (!forward.empty() || !backward.empty()) {
    int id;
    if (!forward.empty()) {
      id = forward.top();
      forward.pop();
      queuedForward[id] = false;
    } else {
      id = backward.top();
      backward.pop();
      queuedBackward[id] = false;
    }
    if (failed(process(id)))
      return failure();
  }
  return success();
}

LogicalResult Propagation::fillUnreached() {
  // The mesh of each function: that of its first slot with a mesh layout.
  std::vector<PlacementsSpecAttr> meshOf(funcs.size());
  for (const Slot &slot : slots)
    if (slot.layout && slot.func >= 0 && !meshOf[slot.func])
      meshOf[slot.func] = asMeshLayout(slot.layout, slot.type.getShape());
  // A callee none of whose values got a layout (a fill's result read whole
  // by its caller's tensor.extract, say) runs on its callers' mesh, where
  // every caller with a mesh has the same one: its results are values of
  // theirs (a call's result is its callee's), else left without a layout
  // in a function that has them. Through chains of calls.
  std::vector<int> work;
  for (size_t f = 0; f < funcs.size(); ++f)
    if (meshOf[f])
      work.push_back(static_cast<int>(f));
  // Given by a caller (not by a value of its own); callers of two meshes
  // (the first two met).
  std::vector<bool> derived(funcs.size(), false), conflicting(funcs.size());
  std::vector<std::pair<MeshAttr, MeshAttr>> meshesMet(funcs.size());
  while (!work.empty()) {
    const int f = work.back();
    work.pop_back();
    if (conflicting[f])
      continue;
    funcs[f].walk([&](func::CallOp call) {
      auto found = funcIndex.find(calleeOf(call));
      // (A call inside a rule op's regions passes whole tensors.)
      if (found == funcIndex.end() || enclosingRuleOp(call))
        return;
      const int callee = found->second;
      if (!meshOf[callee]) {
        meshOf[callee] = meshOf[f];
        derived[callee] = true;
        work.push_back(callee);
      } else if (derived[callee] && !conflicting[callee] &&
                 meshOf[callee].getMesh() != meshOf[f].getMesh()) {
        conflicting[callee] = true;
        meshesMet[callee] = {meshOf[callee].getMesh(), meshOf[f].getMesh()};
      }
    });
  }
  // Such a callee is not copied per call only in a cycle of calls or past
  // the copies' limit (specializeCallees): its values would be left without
  // a layout in functions that have them.
  for (size_t s = 0; s < slots.size(); ++s) {
    const int f = slots[s].func;
    if (f < 0 || !conflicting[f] || slots[s].layout)
      continue;
    return funcs[f].emitOpError()
           << "has no layouts of its own and none of its values got one, "
              "and it is called from functions on two meshes ("
           << meshesMet[f].first << " and " << meshesMet[f].second
           << "), which cannot each have a copy of it (it is in a cycle of "
              "calls, or past the copies' limit); pin its layouts ("
           << kLayoutAttr << ") or call it from one mesh";
  }
  for (size_t s = 0; s < slots.size(); ++s) {
    if (slots[s].layout || slots[s].func < 0 || !meshOf[slots[s].func])
      continue;
    MeshAttr mesh = meshOf[slots[s].func].getMesh();
    std::vector<layout::Placement> replicated(mesh.getShape().size());
    assign(static_cast<int>(s),
           PlacementsSpecAttr::get(mesh.getContext(), mesh, replicated));
    if (failed(drain()))
      return failure();
  }
  return success();
}

/// How the regions of rule op `op` run, in a diagnostic's words: a
/// payload on each element where it is held, else whole on every rank.
static const char *howRegionsRun(Operation *op) {
  return isa<linalg::LinalgOp, tensor::GenerateOp>(op)
             ? "compute each element where it is held"
             : "run as written, whole, on every rank";
}

LogicalResult Propagation::checkElementTypes(func::FuncOp func) {
  auto refused = [](Type type) {
    return hasLayout(type) &&
           !isShardedElementType(cast<RankedTensorType>(type).getElementType());
  };
  const char *why = ", whose elements no sharded tensor holds (integers, "
                    "floats, index and complex numbers); keep layouts out of "
                    "this function";
  for (BlockArgument arg : func.getArguments())
    if (refused(arg.getType()))
      return func.emitOpError()
             << "gets layouts and has argument #" << arg.getArgNumber()
             << " of type " << arg.getType() << why;
  WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
    for (Type type :
         llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
      if (refused(type))
        return op->emitOpError() << "has a tensor of type " << type
                                 << " in a function that gets layouts" << why;
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult Propagation::checkCovered() {
  // A function that has layouts has them everywhere (fillUnreached): every
  // op in it that touches tensors must have a rule and static shapes.
  std::vector<bool> sharded(funcs.size(), false);
  for (const Slot &slot : slots)
    if (slot.layout && slot.func >= 0)
      sharded[slot.func] = true;
  // A tensor that cannot take a layout: unranked or carrying an encoding
  // (which its local blocks would lose).
  auto noLayout = [](Type type) {
    return isa<TensorType>(type) && !hasLayout(type);
  };
  for (auto [index, func] : llvm::enumerate(funcs)) {
    if (opaque[index]) {
      bool pinned = false;
      func.walk([&](ConstraintOp) { pinned = true; });
      if (sharded[index] || pinned)
        return func.emitOpError()
               << "has " << func.getBody().getBlocks().size()
               << " blocks and gets layouts; -shard-propagate handles "
                  "functions of one block (structured control flow)";
      // Its calls pass whole tensors: their callees must not get layouts.
      WalkResult walk = func.walk([&](func::CallOp call) -> WalkResult {
        auto callee = calleeOf(call);
        auto found = funcIndex.find(callee);
        if (found == funcIndex.end() || !sharded[found->second])
          return WalkResult::advance();
        return call.emitOpError()
               << "calls " << call.getCalleeAttr()
               << ", which gets layouts, from a function of "
               << func.getBody().getBlocks().size()
               << " blocks that -shard-propagate leaves alone (it handles "
                  "functions of one block); keep layouts out of the callee "
                  "or give the caller structured control flow";
      });
      if (walk.wasInterrupted())
        return failure();
      continue;
    }
    // A call inside a rule op's regions passes whole tensors, as written
    // (specializeCallees gives it the callee as written): a callee with
    // layouts of its own cannot take them (a declaration takes whole
    // tensors everywhere).
    WalkResult calls = func.walk([&](func::CallOp call) -> WalkResult {
      auto found = funcIndex.find(calleeOf(call));
      Operation *ruleOp = enclosingRuleOp(call);
      if (!ruleOp || found == funcIndex.end() || !sharded[found->second] ||
          funcs[found->second].isExternal())
        return WalkResult::advance();
      return call.emitOpError()
             << "calls " << call.getCalleeAttr()
             << ", which gets layouts (its own, a mesh it is searched on, or "
                "its other calls' where it cannot be copied for them: a "
                "recursion), from inside '"
             << ruleOp->getName() << "', whose regions "
             << howRegionsRun(ruleOp)
             << ", and so pass it whole values; keep layouts out of the "
                "callee, or call a function of its own there";
    });
    if (calls.wasInterrupted())
      return failure();
    if (!sharded[index] || func.isExternal())
      continue;
    if (failed(checkElementTypes(func)))
      return failure();
    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      for (Type type :
           llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
        if (noLayout(type))
          return op->emitOpError()
                 << "has a tensor of type " << type
                 << " in a function that gets layouts; sharding needs "
                    "ranked tensors without encodings";
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    for (BlockArgument arg : func.getArguments())
      if (noLayout(arg.getType()))
        return func.emitOpError() << "has argument #" << arg.getArgNumber()
                                  << " of type " << arg.getType()
                                  << " and gets layouts; sharding needs ranked "
                                     "tensors without encodings";
  }
  for (auto [op, parent] : unentered) {
    auto func = op->getParentOfType<func::FuncOp>();
    // A sharding or a layout pinned inside a rule op's regions (a payload,
    // which computes each element where it is held; an op run whole, whose
    // regions run as written on every rank) pins nothing.
    const bool constraint = isa<ConstraintOp>(op);
    if (hasShardingRule(parent) && (constraint || sharded[funcIndex[func]]))
      return op->emitOpError()
             << "pins a "
             << (constraint ? std::string("layout")
                            : "sharding (" + std::string(kOpShardingAttr) + ")")
             << " inside '" << parent->getName() << "', whose regions "
             << howRegionsRun(parent)
             << ": only an op of the function's own body is sharded; remove "
                "it";
    if (sharded[funcIndex[func]] || isa<ConstraintOp>(op))
      return op->emitOpError()
             << "uses tensors inside '" << parent->getName()
             << "', whose regions -shard-propagate does not enter (layouts "
                "follow tensors through the regions of ops whose values "
                "RegionBranchOpInterface says they forward, as scf.for's and "
                "affine.for's, and through func.call), and its function gets "
                "layouts";
  }
  for (Operation *op : uncovered) {
    auto func = op->getParentOfType<func::FuncOp>();
    if (sharded[funcIndex[func]])
      return op->emitOpError()
             << "has no sharding rule, and its function gets layouts; give "
                "it one (ShardingRuleOpInterface or a written "
             << kShardingRuleAttr
             << ", docs/partition.md) or keep "
                "layouts out of this function";
  }
  return success();
}

/// auto=true: in a function it is to shard (a mesh, no layout pinned; or no
/// mesh, its calls all to functions with one: writeWholeRules), an op
/// without a rule that is the same op on whole tensors (no regions, no
/// memory effects, static shapes: a tosa.scatter, a tensor.bitcast) runs
/// whole on every rank. The rule that says so (no loop, every tensor
/// whole) is written on it, the decision read as any written rule (by the
/// search, then by -shard-spmd-partition), and a warning names it.
bool shardc::propagation::sameOpOnWholeTensors(Operation *op) {
  auto staticTensor = [](Type type) {
    auto ranked = dyn_cast<RankedTensorType>(type);
    return !isa<TensorType>(type) || (ranked && ranked.hasStaticShape());
  };
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         llvm::all_of(op->getOperandTypes(), staticTensor) &&
         llvm::all_of(op->getResultTypes(), staticTensor);
}

static void writeWholeRules(ModuleOp module) {
  auto isTensor = [](Type type) { return isa<TensorType>(type); };
  // A function without a mesh whose calls all go to functions with a mesh
  // gets layouts through them (their results'): its ops without a rule run
  // whole too (else it was refused for an op it never asked to shard). Not
  // one that also calls a function with neither mesh nor layouts, whose
  // results would stay without a layout in a function that has them.
  SymbolTableCollection symbols;
  auto callsMeshed = [&](func::FuncOp func) {
    bool meshed = false;
    bool other = func.walk([&](func::CallOp call) {
                       if (enclosingRuleOp(call))
                         return WalkResult::advance(); // passes whole tensors
                       auto callee =
                           symbols.lookupNearestSymbolFrom<func::FuncOp>(
                               call, call.getCalleeAttr());
                       if (!callee || !callee->hasAttr(kMeshAttr))
                         return WalkResult::interrupt();
                       meshed = true;
                       return WalkResult::advance();
                     })
                     .wasInterrupted();
    return meshed && !other;
  };
  module.walk([&](func::FuncOp func) {
    if (func.isExternal() || !(func->hasAttr(kMeshAttr) || callsMeshed(func)))
      return;
    auto pinned = [](ArrayRef<DictionaryAttr> attrs) {
      return llvm::any_of(attrs, [](DictionaryAttr dict) {
        return dict && dict.contains(kLayoutAttr);
      });
    };
    SmallVector<DictionaryAttr> args, results;
    func.getAllArgAttrs(args);
    func.getAllResultAttrs(results);
    if (pinned(args) || pinned(results) ||
        func.walk([](Operation *op) {
              return isa<ConstraintOp>(op) || op->hasAttr(kOpShardingAttr)
                         ? WalkResult::interrupt()
                         : WalkResult::advance();
            })
            .wasInterrupted())
      return;
    // The ops without a rule, each the same op on whole tensors; none where
    // one is not (it has regions, memory effects, dynamic shapes): then the
    // function stays as written (searchNodes says why), nothing written.
    SmallVector<Operation *> whole;
    bool otherwise = false;
    // (Not inside a rule op: its payload computes each element where it is
    // held, the tensors it makes its own.)
    func->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (hasShardingRule(op))
        return WalkResult::skip();
      if (isa<CallOpInterface>(op) || op->hasTrait<OpTrait::IsTerminator>() ||
          !(llvm::any_of(op->getOperandTypes(), isTensor) ||
            llvm::any_of(op->getResultTypes(), isTensor)) ||
          carriesLayouts(op) || forwardsLayouts(op))
        return WalkResult::advance();
      if (sameOpOnWholeTensors(op))
        whole.push_back(op);
      else
        otherwise = true;
      return WalkResult::advance();
    });
    if (otherwise)
      return;
    for (Operation *op : whole) {
      op->setAttr(
          kShardingRuleAttr,
          ShardingRuleAttr::get(op->getContext(), wholeTensorsRule(op)));
      mlir::emitWarning(op->getLoc())
          << "'" << op->getName()
          << "' op has no sharding rule: auto=true runs it whole on every "
             "rank (its tensors gathered first) and writes that rule on it ("
          << kShardingRuleAttr
          << "); give it a rule of its own to cut it (ShardingRuleOpInterface, "
             "docs/partition.md)";
    }
  });
}

LogicalResult Propagation::run() {
  if (failed(refuseMisplacedWrittenRules(module)))
    return failure();
  if (search.autoShard)
    writeWholeRules(module);
  if (failed(build()))
    return failure();
  funcMesh.assign(funcs.size(), nullptr);
  for (const Slot &slot : slots)
    if (slot.layout && slot.func >= 0 && !funcMesh[slot.func])
      if (PlacementsSpecAttr mesh =
              asMeshLayout(slot.layout, slot.type.getShape()))
        funcMesh[slot.func] = mesh.getMesh();
  if (search.autoShard)
    for (auto [index, func] : llvm::enumerate(funcs)) {
      Attribute attr = func->getAttr(kMeshAttr);
      if (!attr)
        continue;
      auto mesh = dyn_cast<MeshAttr>(attr);
      if (!mesh)
        return func.emitOpError() << "has " << kMeshAttr << " = " << attr
                                  << ", which is not a #shard.mesh";
      if (!funcMesh[index])
        funcMesh[index] = mesh;
      else if (funcMesh[index] != mesh)
        return func.emitOpError()
               << "has " << kMeshAttr << " = " << mesh
               << " but its pinned layouts are on " << funcMesh[index];
    }
  queuedForward.assign(nodes.size(), false);
  queuedBackward.assign(nodes.size(), false);
  // Shardings pinned on ops (shard.sharding), checked against their rules;
  // one on an op without a rule would be ignored: refused.
  WalkResult ruleless = module.walk([&](Operation *op) {
    if (!op->hasAttr(kOpShardingAttr) || hasShardingRule(op))
      return WalkResult::advance();
    op->emitOpError() << "has " << kOpShardingAttr
                      << " but no sharding rule to cut its loops by";
    return WalkResult::interrupt();
  });
  if (ruleless.wasInterrupted())
    return failure();
  for (Node &node : nodes) {
    if (!node.hasPin)
      continue;
    if (failed(ruleOf(node)))
      return failure();
    FailureOr<std::optional<LoopSharding>> pinned =
        pinnedSharding(node.op, *node.rule, "-shard-propagate");
    if (failed(pinned))
      return failure();
    node.pinned = std::move(*pinned);
  }
  if (search.mode == PropagationSearch::Whole) {
    // Callees before their callers: a call passes and takes the layouts
    // its callee's search (or pins) gave its arguments and results.
    // Each function's nodes, slots and uncovered ops, found once.
    nodesOfFunc.assign(funcs.size(), {});
    slotsOfFunc.assign(funcs.size(), {});
    uncoveredIn.assign(funcs.size(), false);
    auto funcOf = [&](Operation *op) -> int {
      auto found = funcIndex.find(op->getParentOfType<func::FuncOp>());
      return found == funcIndex.end() ? -1 : found->second;
    };
    for (size_t id = 0; id < nodes.size(); ++id)
      if (int f = funcOf(nodes[id].op); f >= 0)
        nodesOfFunc[f].push_back(static_cast<int>(id));
    for (size_t s = 0; s < slots.size(); ++s)
      if (slots[s].func >= 0)
        slotsOfFunc[slots[s].func].push_back(static_cast<int>(s));
    for (Operation *op : uncovered)
      if (int f = funcOf(op); f >= 0)
        uncoveredIn[f] = true;
    // auto=true: a function it is to shard (a mesh, no layout pinned) with
    // an op that refuses a rule (a slice at a dynamic offset, say) stays as
    // written, as one with an op without a rule does: the refusal is a
    // warning (searchNodes), not an error.
    if (search.autoShard)
      for (auto [f, func] : llvm::enumerate(funcs)) {
        if (uncoveredIn[f] || !func->hasAttr(kMeshAttr) ||
            llvm::any_of(slotsOfFunc[f],
                         [&](int s) { return bool(slots[s].layout); }))
          continue;
        for (int id : nodesOfFunc[f]) {
          if (!nodes[id].isRule)
            continue;
          std::string why;
          bool ruled;
          {
            ScopedDiagnosticHandler quiet(module.getContext(),
                                          [&](Diagnostic &diagnostic) {
                                            if (why.empty())
                                              why = diagnostic.str();
                                            return success();
                                          });
            ruled = succeeded(ruleOf(nodes[id]));
          }
          if (!ruled) {
            if (why.empty())
              why = ("'" + nodes[id].op->getName().getStringRef() +
                     "' op has no sharding rule here")
                        .str();
            uncoveredIn[f] = true;
            ruleRefusedIn[static_cast<int>(f)] = {nodes[id].op, why};
            break;
          }
        }
      }
    // A depth-first post-order, with a stack of its own (a chain of
    // thousands of calls must not exhaust the thread's).
    std::vector<std::vector<int>> callees(funcs.size());
    callsOf.assign(funcs.size(), 0);
    for (auto [f, func] : llvm::enumerate(funcs))
      func.walk([&](func::CallOp call) {
        auto callee = calleeOf(call);
        if (auto found = funcIndex.find(callee); found != funcIndex.end()) {
          callees[f].push_back(found->second);
          ++callsOf[found->second];
        }
      });
    std::vector<int> order;
    std::vector<bool> seen(funcs.size(), false);
    std::vector<std::pair<int, size_t>> stack; // (function, next callee)
    for (size_t root = 0; root < funcs.size(); ++root) {
      if (seen[root])
        continue;
      seen[root] = true;
      stack.push_back({static_cast<int>(root), 0});
      while (!stack.empty()) {
        auto &[f, next] = stack.back();
        if (next < callees[f].size()) {
          const int callee = callees[f][next++];
          if (!seen[callee]) {
            seen[callee] = true;
            stack.push_back({callee, 0});
          }
          continue;
        }
        order.push_back(f);
        stack.pop_back();
      }
    }
    // A function with no mesh of its own that gets layouts only through its
    // calls (an entry calling kernels that pin theirs) is searched on the
    // mesh they reach, where they reach one (directly or through callees
    // searched with their calls): its other values and the callees searched
    // with it are chosen with the kernels' layouts (else left op by op, a
    // callee's fill then cut and gathered for its caller's tensor.extract).
    // Callees first, so that a chain of such functions takes the mesh up.
    std::vector<llvm::SmallVector<MeshAttr, 1>> reached(funcs.size());
    for (int f : order) {
      if (funcMesh[f]) {
        reached[f] = {funcMesh[f]};
        continue;
      }
      for (int c : callees[f])
        for (MeshAttr mesh : reached[c])
          if (!llvm::is_contained(reached[f], mesh))
            reached[f].push_back(mesh);
      if (reached[f].size() == 1 && !funcs[f].isExternal() && !opaque[f] &&
          !searchedWithItsCall(f))
        funcMesh[f] = reached[f].front();
    }
    for (int f : order)
      if (failed(searchFunction(f)))
        return failure();
  }
  for (size_t s = 0; s < slots.size(); ++s) {
    if (!slots[s].layout)
      continue;
    for (int node : nodesOf[s])
      enqueue(node, isInput(node, static_cast<int>(s)));
  }
  for (size_t id = 0; id < nodes.size(); ++id)
    if (nodes[id].pinned)
      enqueue(static_cast<int>(id), /*isForward=*/true);
  if (failed(drain()) || failed(fillUnreached()) || failed(checkCovered()))
    return failure();
  for (Node &node : nodes)
    if (node.waiting && !node.decision)
      return node.op->emitOpError()
             << "cannot be sharded: none of its tensors has a mesh layout "
                "(#shard.placements, or a chunk spec over distinct ranks) to "
                "shard its loops on";
  if (failed(checkMixedResults()))
    return failure();
  writeBack();
  return success();
}

namespace {

struct PropagatePass : shardc::impl::ShardPropagateBase<PropagatePass> {
  using ShardPropagateBase::ShardPropagateBase;
  PropagatePass() = default;
  PropagatePass(const PropagatePass &other) : ShardPropagateBase(other) {}
  /// The cost model's options.
  PassCostModel costModel{*this};

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto emit = [&] {
      return emitError(module.getLoc()) << "-shard-propagate: ";
    };
    std::optional<planning::PlanningOptions> model = costModel.model(emit);
    if (!model)
      return signalPassFailure();
    std::unique_ptr<ShardPlanner> planner = ShardPlanner::create(*model, emit);
    if (!planner)
      return signalPassFailure();
    // A static padding of INT64_MIN reads as a dynamic one with no value:
    // refused here, the first pass of -shard-to-llvm (its canonicalizer
    // crashed on one, reading an operand that is not there).
    if (module
            .walk([](tensor::PadOp pad) {
              return failed(checkPaddingValues(pad)) ? WalkResult::interrupt()
                                                     : WalkResult::advance();
            })
            .wasInterrupted())
      return signalPassFailure();
    // Each call of a callee without layouts of its own gets its own callee
    // first: those callees are refined as functions with layouts are.
    SmallVector<func::FuncOp> callees = specializeCallees(module);
    // Before refineShapes, whose canonicalization then folds what these
    // write (their constants), as it would on a second run.
    {
      SmallVector<func::FuncOp> laidOut =
          functionsGettingLayouts(module, callees);
      emptyUnreadDestinations(laidOut);
      sliceScalarAccesses(laidOut);
    }
    refineShapes(module, callees);
    sliceProducers(module);
    if ((search == PropagationSearch::Whole || autoShard) &&
        (exactOps < 0 || exactOps > 1000000 || memoryBudget < 0 ||
         loopTrips < 1 || loopTrips > 1000000000)) {
      emitError(module.getLoc())
          << "-shard-propagate: exact-ops must be 0 to 10^6, memory-budget "
             ">= 0 (0: none) and loop-trips 1 to 10^9; got "
          // Each option as its value type: a Pass::Option streams into a
          // diagnostic as a character otherwise.
          << static_cast<int64_t>(exactOps) << ", "
          << static_cast<int64_t>(memoryBudget) << " and "
          << static_cast<int64_t>(loopTrips);
      return signalPassFailure();
    }
    if ((search == PropagationSearch::Whole || autoShard) &&
        (solverNodes < 1 || solverNodes > 2147483647 || solverIterations < 1 ||
         solverIterations > 2147483647)) {
      emitError(module.getLoc())
          << "-shard-propagate: solver-nodes and solver-iterations must be "
             "1 to 2^31 - 1; got "
          << static_cast<int64_t>(solverNodes) << " and "
          << static_cast<int64_t>(solverIterations);
      return signalPassFailure();
    }
    SearchOptions options;
    options.mode = autoShard ? PropagationSearch::Whole
                             : static_cast<PropagationSearch>(search);
    options.autoShard = autoShard;
    options.peakGflops = model->peakGflops;
    options.exactOps = exactOps;
    options.solverNodes = solverNodes;
    options.solverIterations = solverIterations;
    options.memoryBudget = memoryBudget;
    options.loopTrips = loopTrips;
    Propagation propagation(module, *planner, explain, options);
    if (failed(propagation.run()))
      return signalPassFailure();
    mergeSpecializedCallees(module);
  }
};

} // namespace

std::unique_ptr<Pass>
shardc::createShardPropagate(const ShardPropagateOptions &options,
                             const planning::PlanningOptions &costModel) {
  auto pass = std::make_unique<PropagatePass>(options);
  pass->costModel.assign(costModel);
  return pass;
}

FailureOr<std::unique_ptr<Pass>>
shardc::parseShardPropagate(StringRef options,
                            planning::PlanningOptions &costModel,
                            llvm::raw_ostream &errors) {
  auto pass = std::make_unique<PropagatePass>();
  if (failed(pass->initializeOptions(options, [&](const Twine &message) {
        errors << message;
        return failure();
      })))
    return failure();
  if (std::string problem = pass->costModel.read(costModel); !problem.empty()) {
    errors << problem;
    return failure();
  }
  return std::unique_ptr<Pass>(std::move(pass));
}
