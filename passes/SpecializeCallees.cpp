//===- SpecializeCallees.cpp - A callee per layout at its calls -----------===//
//
// A function without layouts of its own takes its layouts from its calls.
// Called from two places with different layouts, one copy of it would take
// one of them and every other call would move its tensors there and back;
// each call gets a callee of its own instead, searched with that call's
// layouts (Propagation's search chooses a callee's argument and result
// layouts with its caller's, then searches the callee's body), and the
// copies that come out equal are merged: one callee per distinct layout.
//
//===----------------------------------------------------------------------===//

#include "SpecializeCallees.h"

#include "FunctionAttrs.h"
#include "shardc/Dialect/Shard.h"

#include "mlir/Analysis/CallGraph.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SCCIterator.h"
#include "llvm/ADT/SetVector.h"

#include <deque>

using namespace mlir;
using namespace shardc;

namespace {

/// Names the function a copy was made from (on the copies and on the
/// function itself where a call keeps it), until the copies are merged.
constexpr llvm::StringLiteral kSpecializedFromAttr = "shard.specialized_from";

/// The most copies made in a module: calls nested k deep, each callee
/// calling the next twice, would make 2^k. Past it the remaining calls keep
/// their callee (shared: its calls' functions go op by op, as they did
/// before copies).
constexpr size_t kMaxCopies = 4096;

/// Functions in a cycle of calls (recursion): each copy would call for
/// another, so they are left as they are.
llvm::DenseSet<Operation *> functionsInCycles(ModuleOp module) {
  llvm::DenseSet<Operation *> cyclic;
  CallGraph graph(module);
  for (auto scc = llvm::scc_begin(static_cast<const CallGraph *>(&graph));
       !scc.isAtEnd(); ++scc) {
    if (!scc.hasCycle())
      continue;
    for (CallGraphNode *node : *scc)
      if (!node->isExternal())
        cyclic.insert(node->getCallableRegion()->getParentOp());
  }
  return cyclic;
}

} // namespace

bool shardc::hasOwnLayouts(func::FuncOp func) {
  if (func->hasAttr(kMeshAttr))
    return true;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (func.getArgAttr(i, kLayoutAttr))
      return true;
  for (unsigned i = 0; i < func.getNumResults(); ++i)
    if (func.getResultAttr(i, kLayoutAttr))
      return true;
  return func.walk([](ConstraintOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// Per function, the functions that call it (once per call), but from
/// inside a rule op's regions: such a call runs as written, whole, so its
/// callee gets no layouts through it, nor a copy for it (-shard-propagate
/// refuses it where the callee gets layouts otherwise).
static llvm::DenseMap<Operation *, SmallVector<Operation *>>
callersByCallee(ModuleOp module, SymbolTableCollection &tables) {
  llvm::DenseMap<Operation *, SmallVector<Operation *>> callersOf;
  module.walk([&](func::CallOp call) {
    auto f = tables.lookupNearestSymbolFrom<func::FuncOp>(call,
                                                          call.getCalleeAttr());
    auto caller = call->getParentOfType<func::FuncOp>();
    if (f && caller && !enclosingRuleOp(call))
      callersOf[f].push_back(caller);
  });
  return callersOf;
}

/// `from` and every function a call path leads from to one of them.
static llvm::SetVector<Operation *> leadingTo(
    ArrayRef<Operation *> from,
    const llvm::DenseMap<Operation *, SmallVector<Operation *>> &callersOf) {
  llvm::SetVector<Operation *> lead(from.begin(), from.end());
  for (size_t i = 0; i < lead.size(); ++i)
    for (Operation *caller : callersOf.lookup(lead[i]))
      lead.insert(caller);
  return lead;
}

SmallVector<func::FuncOp>
shardc::functionsGettingLayouts(ModuleOp module,
                                ArrayRef<func::FuncOp> callees) {
  SmallVector<Operation *> given;
  module.walk([&](func::FuncOp f) {
    if (!f.isExternal() && (hasOwnLayouts(f) || llvm::is_contained(callees, f)))
      given.push_back(f);
  });
  SymbolTableCollection tables;
  SmallVector<func::FuncOp> funcs;
  for (Operation *f : leadingTo(given, callersByCallee(module, tables)))
    funcs.push_back(cast<func::FuncOp>(f));
  return funcs;
}

SmallVector<func::FuncOp> shardc::specializeCallees(ModuleOp module) {
  SmallVector<func::FuncOp> given;
  SymbolTableCollection tables;
  llvm::DenseSet<Operation *> cyclic;
  bool cyclesFound = false;
  auto calleeOf = [&](func::CallOp call) {
    return tables.lookupNearestSymbolFrom<func::FuncOp>(call,
                                                        call.getCalleeAttr());
  };
  auto inCycle = [&](Operation *f) {
    if (!cyclesFound) {
      cyclic = functionsInCycles(module);
      cyclesFound = true;
    }
    return cyclic.contains(f);
  };
  // The functions whose calls are given callees: those with layouts of
  // their own, and the functions that get layouts only through their calls
  // (an entry calling a kernel that pins its layouts: a call's operands and
  // results are its callee's values) that no function calls (or in a cycle
  // of calls); the functions between them and the layouts they reach are
  // candidates, each call of one given its own callee as any other.
  llvm::DenseSet<Operation *> roots;
  module.walk([&](func::FuncOp f) {
    if (!f.isExternal() && hasOwnLayouts(f))
      roots.insert(f);
  });
  if (roots.empty())
    return given;
  const llvm::DenseMap<Operation *, SmallVector<Operation *>> callersOf =
      callersByCallee(module, tables);
  {
    // Every function a call path leads from to one with layouts of its own.
    SmallVector<Operation *> own(roots.begin(), roots.end());
    for (Operation *f : leadingTo(own, callersOf))
      if (!roots.contains(f) && (!callersOf.count(f) || inCycle(f)))
        roots.insert(f);
  }
  // A callee this work gives its calls: with a body, outside any cycle, and
  // not a root.
  llvm::DenseMap<Operation *, bool> candidate;
  auto isCandidate = [&](func::FuncOp f) {
    if (!f || f.isExternal())
      return false;
    auto [it, fresh] = candidate.try_emplace(f, false);
    if (!fresh)
      return it->second;
    if (roots.contains(f))
      return false;
    return candidate[f] = !inCycle(f);
  };

  // The functions the calls reach: the roots, and the candidates they call,
  // transitively.
  std::deque<func::FuncOp> work;
  llvm::DenseSet<Operation *> reached;
  module.walk([&](func::FuncOp f) {
    if (roots.contains(f) && reached.insert(f).second)
      work.push_back(f);
  });
  const size_t rootCount = work.size();
  for (size_t i = 0; i < work.size(); ++i)
    work[i].walk([&](func::CallOp call) {
      func::FuncOp f = calleeOf(call);
      if (!enclosingRuleOp(call) && isCandidate(f) && reached.insert(f).second)
        work.push_back(f);
    });
  // No call reaches a candidate: nothing to give (and the module's symbol
  // uses, a walk of every op's attributes, are not needed).
  if (work.size() == rootCount)
    return given;

  // A candidate keeps its name for its first call where it is private and
  // only ever called, from the functions reached (the copies made below
  // are reached, and call what their functions call: their calls do not
  // change this). The module's uses of symbols, found once.
  llvm::DenseSet<Operation *> usedOtherwise;
  auto noteUses = [&](ModuleOp from) {
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(&from.getBodyRegion());
    if (!uses) {
      usedOtherwise.insert(nullptr); // uses not known: keep none
      return;
    }
    for (const SymbolTable::SymbolUse &use : *uses) {
      Operation *user = use.getUser();
      auto f = tables.lookupNearestSymbolFrom<func::FuncOp>(user,
                                                            use.getSymbolRef());
      if (!f)
        continue;
      // (A call inside a rule op's regions keeps the original, whole.)
      auto call = dyn_cast<func::CallOp>(user);
      if (!call || !reached.contains(call->getParentOfType<func::FuncOp>()) ||
          enclosingRuleOp(call))
        usedOtherwise.insert(f);
    }
  };
  noteUses(module);
  module.walk([&](ModuleOp nested) {
    if (nested != module)
      noteUses(nested);
  });
  auto keepable = [&](func::FuncOp f) {
    return f.isPrivate() && !usedOtherwise.contains(f) &&
           !usedOtherwise.contains(nullptr);
  };

  // Each call of a candidate, from a function reached or a copy, gets its
  // own callee.
  llvm::DenseSet<Operation *> kept;
  llvm::SetVector<Operation *> copiedFrom;
  size_t copies = 0;
  std::deque<func::FuncOp> callers;
  module.walk([&](func::FuncOp f) {
    if (roots.contains(f))
      callers.push_back(f);
  });
  while (!callers.empty()) {
    func::FuncOp caller = callers.front();
    callers.pop_front();
    SmallVector<func::CallOp> calls;
    caller.walk([&](func::CallOp call) { calls.push_back(call); });
    for (func::CallOp call : calls) {
      func::FuncOp f = calleeOf(call);
      if (!isCandidate(f) || enclosingRuleOp(call))
        continue;
      auto origin = FlatSymbolRefAttr::get(f.getSymNameAttr());
      if (!kept.contains(f) && keepable(f)) {
        kept.insert(f);
        f->setAttr(kSpecializedFromAttr, origin);
        callers.push_back(f);
        given.push_back(f);
        continue;
      }
      if (copies == kMaxCopies)
        continue;
      ++copies;
      // A private copy beside the function, under a name of its own.
      auto copy = cast<func::FuncOp>(f->clone());
      copy.setPrivate();
      copy->setAttr(kSpecializedFromAttr, origin);
      SymbolTable &table = tables.getSymbolTable(f->getParentOp());
      table.insert(copy, std::next(Block::iterator(f)));
      call.setCalleeAttr(FlatSymbolRefAttr::get(copy.getSymNameAttr()));
      candidate[copy] = true;
      reached.insert(copy);
      callers.push_back(copy);
      given.push_back(copy);
      copiedFrom.insert(f);
    }
  }
  // A private function whose every call now has a copy is left uncalled
  // (it was called only from the functions reached, and none keeps it):
  // dropped.
  for (Operation *f : copiedFrom)
    if (keepable(cast<func::FuncOp>(f)) && !kept.contains(f))
      f->erase();
  return given;
}

void shardc::mergeSpecializedCallees(ModuleOp module) {
  // The copies of each function, in module order.
  llvm::MapVector<std::pair<Operation *, Attribute>, SmallVector<func::FuncOp>>
      copiesOf;
  module.walk([&](func::FuncOp f) {
    if (Attribute origin = f->getAttr(kSpecializedFromAttr))
      copiesOf[{f->getParentOp(), origin}].push_back(f);
  });
  auto equal = [](func::FuncOp a, func::FuncOp b) {
    return a.getFunctionType() == b.getFunctionType() &&
           a.getAllArgAttrs() == b.getAllArgAttrs() &&
           a.getAllResultAttrs() == b.getAllResultAttrs() &&
           OperationEquivalence::isRegionEquivalentTo(
               &a.getBody(), &b.getBody(),
               OperationEquivalence::IgnoreLocations);
  };
  // Callees first: a copy is merged once the copies it calls are (their
  // names then agree), so this repeats while something merges. Only calls
  // name the copies (specializeCallees made them for calls).
  while (true) {
    llvm::DenseMap<Operation *, func::FuncOp> mergedInto;
    for (auto &[key, copies] : copiesOf) {
      SmallVector<func::FuncOp> kept;
      for (func::FuncOp copy : copies) {
        auto same =
            llvm::find_if(kept, [&](func::FuncOp k) { return equal(k, copy); });
        if (same == kept.end())
          kept.push_back(copy);
        else
          mergedInto[copy] = *same;
      }
      copies = std::move(kept);
    }
    if (mergedInto.empty())
      break;
    SymbolTableCollection tables;
    module.walk([&](func::CallOp call) {
      auto callee = tables.lookupNearestSymbolFrom<func::FuncOp>(
          call, call.getCalleeAttr());
      if (auto it = mergedInto.find(callee); it != mergedInto.end())
        call.setCalleeAttr(FlatSymbolRefAttr::get(it->second.getSymNameAttr()));
    });
    for (auto &[copy, into] : mergedInto)
      copy->erase();
  }
  for (auto &[key, copies] : copiesOf)
    for (func::FuncOp f : copies)
      f->removeAttr(kSpecializedFromAttr);
}
