//===- Payload.cpp - What the rules ask of an op's regions ----------------===//

#include "shardc/Rules/Payload.h"

#include "shardc/Dialect/Shard.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

bool shardc::dependsOn(Value value, Block &body,
                       const llvm::SmallPtrSetImpl<Value> &args) {
  llvm::SmallVector<Value> stack{value};
  llvm::SmallPtrSet<Value, 8> seen;
  while (!stack.empty()) {
    Value v = stack.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (args.contains(v))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &body)
      continue;
    for (Value operand : def->getOperands())
      stack.push_back(operand);
    // Values used inside a nested region count too.
    def->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        stack.push_back(operand);
    });
  }
  return false;
}

/// The scalar a tensor of one element made by tensor.from_elements holds,
/// or null.
static Value wrappedScalar(Value tensor) {
  auto made = tensor.getDefiningOp<tensor::FromElementsOp>();
  if (!made || made.getElements().size() != 1)
    return nullptr;
  return made.getElements()[0];
}

/// Whether `read` reads its tensor at no index or at constant 0s.
static bool readsFirst(tensor::ExtractOp read) {
  return llvm::all_of(read.getIndices(), [](Value index) {
    return matchPattern(index, m_Zero());
  });
}

Value shardc::throughScalarWraps(Value value) {
  while (auto read = value.getDefiningOp<tensor::ExtractOp>()) {
    Value scalar = wrappedScalar(read.getTensor());
    if (!scalar || !readsFirst(read))
      break;
    value = scalar;
  }
  return value;
}

Value shardc::maskedRead(OpBuilder &b, Location loc, Value table,
                         ValueRange indices, ArrayRef<LocalDim> local) {
  SmallVector<Value> at(indices);
  Value inRange;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (const LocalDim &dim : local) {
    auto sub = arith::SubIOp::create(b, loc, at[dim.dim], dim.first);
    if (!ShapedType::isDynamic(dim.extent))
      sub->setAttr(kLookupExtentAttr, b.getI64IntegerAttr(dim.extent));
    Value index = sub;
    Value above =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index, zero);
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        index, dim.size);
    Value here = arith::AndIOp::create(b, loc, above, below);
    inRange = inRange ? arith::AndIOp::create(b, loc, inRange, here) : here;
    at[dim.dim] = index;
  }
  Type element = cast<RankedTensorType>(table.getType()).getElementType();
  auto branch = scf::IfOp::create(b, loc, TypeRange{element}, inRange,
                                  /*addThenBlock=*/true,
                                  /*addElseBlock=*/true);
  OpBuilder then = branch.getThenBodyBuilder();
  scf::YieldOp::create(
      then, loc, ValueRange{tensor::ExtractOp::create(then, loc, table, at)});
  OpBuilder other = branch.getElseBodyBuilder();
  scf::YieldOp::create(
      other, loc,
      ValueRange{arith::ConstantOp::create(
          other, loc, identityOf(layout::Placement::Reduce::Sum, element))});
  return branch.getResult(0);
}

//===----------------------------------------------------------------------===//
// Linearity (ShardingRule::linear)
//===----------------------------------------------------------------------===//

namespace {
using shardc::Degree;

/// A sum's degree: both terms alike, or one of them 0.
Degree sumOf(Degree a, Degree b) {
  if (a == Degree::Other || b == Degree::Other)
    return Degree::Other;
  if (a == Degree::Zero)
    return b;
  if (b == Degree::Zero)
    return a;
  return a == b ? a : Degree::Other; // a linear term plus a constant: affine
}
} // namespace

/// What a constant factor's elements span: enough to say whether a
/// partial value may pass through a product or quotient by it.
struct ConstantFactor {
  /// Its largest and smallest nonzero magnitudes (over finite elements).
  double largest = 0, smallestNonzero = INFINITY;
  bool nonFinite = false, anyZero = false;
};

/// For block argument k of a payload (a linalg op's body), the op's
/// operand k; null for any other value.
static Value payloadOperand(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  Operation *parent = arg ? arg.getOwner()->getParentOp() : nullptr;
  if (!parent || !isa<linalg::LinalgOp>(parent) ||
      arg.getArgNumber() >= parent->getNumOperands() ||
      arg.getOwner() != &parent->getRegion(0).front())
    return {};
  return parent->getOperand(arg.getArgNumber());
}

/// What `value` stands for: the value a constraint pins, or, for block
/// argument k of a payload (a linalg op's body), the op's operand k.
static Value throughPins(Value value, bool payload) {
  while (true) {
    if (auto constraint = value.getDefiningOp<shardc::ConstraintOp>()) {
      value = constraint.getInput();
      continue;
    }
    if (Value operand = payload ? payloadOperand(value) : Value()) {
      value = operand;
      payload = false; // (the op's operands are outside its body)
      continue;
    }
    return value;
  }
}

Attribute shardc::constantElementsOf(Value value) {
  while (true) {
    Operation *op = value.getDefiningOp();
    if (!op)
      return {};
    // Ops whose result's elements are some of their source's, or a
    // scalar's: the source's span holds theirs.
    if (auto constraint = dyn_cast<shardc::ConstraintOp>(op))
      value = constraint.getInput();
    else if (auto cast = dyn_cast<tensor::CastOp>(op))
      value = cast.getSource();
    else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
      value = expand.getSrc();
    else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
      value = collapse.getSrc();
    else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
      value = slice.getSource();
    else if (auto splat = dyn_cast<tensor::SplatOp>(op))
      value = splat.getInput();
    else if (auto broadcast = dyn_cast<linalg::BroadcastOp>(op))
      value = broadcast.getInput();
    else if (auto transpose = dyn_cast<linalg::TransposeOp>(op))
      value = transpose.getInput();
    else if (auto fill = dyn_cast<linalg::FillOp>(op))
      value = fill.getInputs().front();
    else {
      Attribute attr;
      return matchPattern(value, m_Constant(&attr)) ? attr : Attribute();
    }
  }
}

namespace {
/// The origins this thread's questions go to (ConstantOrigins::Scope).
thread_local shardc::ConstantOrigins *activeOrigins = nullptr;
} // namespace

shardc::ConstantOrigins::Scope::Scope(ConstantOrigins &origins)
    : previous(activeOrigins) {
  activeOrigins = &origins;
}

shardc::ConstantOrigins::Scope::~Scope() { activeOrigins = previous; }

/// madeOfConstants by the origins in scope, else by a walk of its own.
static bool madeOfConstants(Value value, bool payload) {
  if (activeOrigins)
    return activeOrigins->madeOfConstants(value, payload);
  shardc::ConstantOrigins once;
  return once.madeOfConstants(value, payload);
}

/// The function whose body holds `value`, or the op without a parent that
/// does (a rule's detached copy of an op: generalized, say).
static Operation *rootOf(Value value) {
  Operation *at = isa<BlockArgument>(value)
                      ? cast<BlockArgument>(value).getOwner()->getParentOp()
                      : value.getDefiningOp();
  while (at && !isa<FunctionOpInterface>(at) && at->getParentOp())
    at = at->getParentOp();
  return at;
}

/// The func.func a call calls, with a body (null: none).
static Operation *calleeOf(func::CallOp call) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  return callee && !callee.isExternal() ? callee.getOperation() : nullptr;
}

/// Whether a region's argument is made of constants, from the answers `of`
/// gives: a function's argument is data; a linalg body's argument k is its
/// op's operand k; another (an induction variable, a carried value) is
/// made of what its op is given.
static bool argumentMade(BlockArgument arg,
                         llvm::function_ref<bool(Value)> of) {
  Operation *parent = arg.getOwner()->getParentOp();
  if (!parent || isa<FunctionOpInterface>(parent))
    return false;
  if (Value operand = payloadOperand(arg))
    return of(operand);
  return llvm::all_of(parent->getOperands(), of);
}

/// Whether an op's result is made of constants, from the answers `of` gives
/// for what the op reads and `returned` for what a callee returns.
static bool
resultMade(OpResult result, llvm::function_ref<bool(Value)> of,
           llvm::function_ref<bool(Operation *, unsigned)> returned) {
  Operation *op = result.getOwner();
  const unsigned i = result.getResultNumber();
  if (shardc::constantElementsOf(result))
    return true;
  if (auto constraint = dyn_cast<shardc::ConstraintOp>(op))
    return of(constraint.getInput());
  if (auto call = dyn_cast<func::CallOp>(op)) {
    // What the callee returns there (its arguments: data).
    Operation *callee = calleeOf(call);
    return callee && returned(callee, i);
  }
  if (isa<tensor::EmptyOp>(op))
    return true; // (no values: an init that is written)
  if (auto select = dyn_cast<arith::SelectOp>(op))
    return of(select.getTrueValue()) && of(select.getFalseValue());
  // (Data among its operands answers first: asking for an op's memory
  // effects walks its regions.)
  if (!isa<scf::IfOp>(op) && !llvm::all_of(op->getOperands(), of))
    return false;
  if (!isMemoryEffectFree(op))
    return false; // what memory holds: data
  if (auto branch = dyn_cast<scf::IfOp>(op))
    return llvm::all_of(branch->getRegions(), [&](Region &r) {
      return !r.empty() && of(r.front().getTerminator()->getOperand(i));
    });
  // What its regions (a payload, a loop's body) read from outside it.
  bool captured = true;
  for (Region &region : op->getRegions())
    region.walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (captured &&
            !op->isAncestor(operand.getParentRegion()->getParentOp()))
          captured = of(operand);
    });
  return captured;
}

bool shardc::ConstantOrigins::madeOfConstants(Value value, bool payload) {
  value = throughPins(value, payload);
  if (auto it = made.find(value); it != made.end())
    return it->second;
  Operation *root = rootOf(value);
  if (root && isa<FunctionOpInterface>(root)) {
    analyze(root);
    if (auto it = made.find(value); it != made.end())
      return it->second;
    // Not met in its walk (an unreachable block): a constant of elements
    // not known, through which nothing passes.
    return true;
  }
  // In an op of no function (a rule's detached copy, erased after): its
  // values answered afresh, never kept (another may take their place).
  llvm::DenseMap<Value, bool> local;
  std::function<bool(Value)> of = [&](Value v) -> bool {
    if (rootOf(v) != root)
      return madeOfConstants(v);
    auto [it, fresh] = local.try_emplace(v, true);
    if (!fresh)
      return it->second; // (met again: a fixed point of constants)
    bool is = true;
    if (auto arg = dyn_cast<BlockArgument>(v))
      is = argumentMade(arg, of);
    else
      is =
          resultMade(cast<OpResult>(v), of, [&](Operation *callee, unsigned i) {
            analyze(callee);
            const std::vector<bool> &r = returns[callee];
            return i < r.size() && r[i];
          });
    local[v] = is;
    return is;
  };
  return of(value);
}

/// The functions `function` calls, directly or not, callees first
/// (each once; those already walked left out).
static void
calleesFirst(Operation *function,
             const llvm::DenseMap<Operation *, std::vector<bool>> &walked,
             std::vector<Operation *> &order) {
  // (A stack of (function, its calls), not recursion: call chains may be
  // deep.)
  llvm::DenseSet<Operation *> seen;
  std::vector<std::pair<Operation *, std::vector<Operation *>>> stack;
  auto push = [&](Operation *f) {
    if (walked.count(f) || !seen.insert(f).second)
      return;
    std::vector<Operation *> calls;
    f->walk([&](func::CallOp call) {
      if (Operation *callee = calleeOf(call))
        calls.push_back(callee);
    });
    std::reverse(calls.begin(), calls.end());
    stack.push_back({f, std::move(calls)});
  };
  push(function);
  while (!stack.empty()) {
    auto &[f, calls] = stack.back();
    if (!calls.empty()) {
      Operation *next = calls.back();
      calls.pop_back();
      push(next);
      continue;
    }
    order.push_back(f);
    stack.pop_back();
  }
}

void shardc::ConstantOrigins::analyze(Operation *function) {
  if (returns.count(function))
    return;
  std::vector<Operation *> order;
  calleesFirst(function, returns, order);
  // A callee not walked yet (a call back up the chain) returns constants
  // until its walk says otherwise: walked again until nothing changes (its
  // results only ever turn to data), the fixed point is the same whatever
  // the order.
  // Room for an answer per value of each (a result per op, an argument or
  // two per block, each asked once): a function of thousands of ops grew
  // the map a dozen times.
  size_t values = 0;
  for (Operation *f : order) {
    returns[f].assign(cast<FunctionOpInterface>(f).getResultTypes().size(),
                      true);
    f->walk([&](Operation *op) { values += op->getNumResults() + 2; });
  }
  made.reserve(made.size() + values);
  // Callees first: one walk each, unless one read what a function not
  // walked yet returns (a recursion).
  for (bool again = true; again;) {
    again = false;
    provisional = false;
    unwalked.clear();
    unwalked.insert(order.begin(), order.end());
    for (Operation *f : order) {
      again |= walkBody(f);
      unwalked.erase(f);
    }
    again &= provisional;
  }
  unwalked.clear();
}

bool shardc::ConstantOrigins::valueMade(Value value) {
  if (auto it = made.find(value); it != made.end())
    return it->second;
  if (rootOf(value) != walking)
    return madeOfConstants(value); // (another function's: a region's)
  // A region's argument, from its op's operands; a result not met yet (a
  // graph region's use before its definition): a constant of elements not
  // known.
  bool is = true;
  if (auto arg = dyn_cast<BlockArgument>(value))
    is = argumentMade(arg, [&](Value v) { return valueMade(v); });
  made[value] = is;
  return is;
}

/// Walks `function`'s body, each op after those it reads (its regions'
/// ops before it); says whether its results' answer changed.
bool shardc::ConstantOrigins::walkBody(Operation *function) {
  Operation *const outer = walking;
  walking = function;
  // Its regions' arguments are answered again from their ops' operands.
  function->walk([&](Block *block) {
    for (BlockArgument arg : block->getArguments())
      made.erase(arg);
  });
  auto of = [&](Value v) { return valueMade(v); };
  auto returned = [&](Operation *callee, unsigned i) {
    provisional |= unwalked.contains(callee);
    auto it = returns.find(callee);
    return it != returns.end() && i < it->second.size() && it->second[i];
  };
  function->walk<WalkOrder::PostOrder>([&](Operation *op) {
    if (op == function)
      return;
    for (OpResult result : op->getResults())
      made[result] = resultMade(result, of, returned);
  });
  // Every argument answered too (an op's answer stops at its first
  // operand of data).
  function->walk([&](Block *block) {
    for (BlockArgument arg : block->getArguments())
      valueMade(arg);
  });
  // What it returns: made of constants where every return's is.
  std::vector<bool> now(returns[function].size(), true);
  function->walk([&](func::ReturnOp ret) {
    if (ret->getParentOp() != function)
      return;
    for (size_t i = 0; i < now.size(); ++i)
      now[i] =
          now[i] && i < ret.getNumOperands() && valueMade(ret.getOperand(i));
  });
  walking = outer;
  const bool changed = now != returns[function];
  returns[function] = std::move(now);
  return changed;
}

Attribute shardc::constantKeyOf(Value value) {
  if (Attribute attr = constantElementsOf(value))
    return attr;
  return madeOfConstants(value, /*payload=*/false)
             ? UnitAttr::get(value.getContext())
             : Attribute();
}

/// The elements of a float constant `value` (a scalar, a splat or dense
/// elements; in a payload, an operand of the op that is one, or an element
/// read from one by tensor.extract), through the layouts -shard-propagate
/// pins on it (shard.constraint), so that an op's rule is the same before
/// and after propagation; nullopt where `value` is no float constant. A
/// resource's blob of f32 or f64 is read; a constant whose elements cannot
/// be read (an elided blob, a float type of its own) spans infinity:
/// nothing passes through it.
static std::optional<ConstantFactor> floatConstant(Value value,
                                                   bool payload = false) {
  value = throughPins(value, payload);
  if (auto extract = value.getDefiningOp<tensor::ExtractOp>())
    value = throughPins(extract.getTensor(), payload);
  if (!isa<FloatType>(getElementTypeOrSelf(value.getType())))
    return std::nullopt;
  Attribute attr = shardc::constantElementsOf(value);
  if (!attr) {
    // Computed from constants by ops whose elements are not read here (an
    // extension, a negation, a product of constants): a constant all the
    // same, of elements not known; nothing passes through it.
    if (madeOfConstants(value, payload)) {
      ConstantFactor unknown;
      unknown.nonFinite = true;
      return unknown;
    }
    return std::nullopt;
  }
  ConstantFactor out;
  auto addNumber = [&](double x) {
    if (!std::isfinite(x)) {
      out.nonFinite = true;
      return;
    }
    if (x == 0) {
      out.anyZero = true;
      return;
    }
    const double m = std::fabs(x);
    out.largest = std::max(out.largest, m);
    out.smallestNonzero = std::min(out.smallestNonzero, m);
  };
  // Another float type's element, as a double (one past its range, an f80's
  // or f128's, as infinity: nothing passes).
  auto add = [&](APFloat f) {
    bool lost = false;
    f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    addNumber(f.convertToDouble());
  };
  if (auto f = dyn_cast<FloatAttr>(attr)) {
    add(f.getValue());
  } else if (auto splat = dyn_cast<SplatElementsAttr>(attr);
             splat && isa<FloatType>(splat.getElementType())) {
    add(splat.getSplatValue<APFloat>());
  } else if (auto dense = dyn_cast<DenseFPElementsAttr>(attr);
             dense && dense.getElementType().isF32()) {
    // (Read as the numbers they are: a million elements in a millisecond.)
    for (float x : dense.getValues<float>())
      addNumber(x);
  } else if (dense && dense.getElementType().isF64()) {
    for (double x : dense.getValues<double>())
      addNumber(x);
  } else if (dense) {
    for (const APFloat &f : dense.getValues<APFloat>())
      add(f);
  } else if (std::optional<ArrayRef<float>> f32 =
                 isa<DenseF32ResourceElementsAttr>(attr)
                     ? cast<DenseF32ResourceElementsAttr>(attr)
                           .tryGetAsArrayRef()
                     : std::nullopt) {
    // (torch-mlir's weights: a blob; an elided one cannot be read.)
    for (float x : *f32)
      addNumber(x);
  } else if (std::optional<ArrayRef<double>> f64 =
                 isa<DenseF64ResourceElementsAttr>(attr)
                     ? cast<DenseF64ResourceElementsAttr>(attr)
                           .tryGetAsArrayRef()
                     : std::nullopt) {
    for (double x : *f64)
      addNumber(x);
  } else {
    out.nonFinite = true;
  }
  return out;
}

/// The largest magnitude of a constant factor (and the inverse of the
/// smallest of a constant divisor) a partial value passes through: 1, so
/// that no chain of products makes a part larger than it was. A part may
/// be far larger than the value it sums to (parts of mixed signs), and its
/// product by a large constant overflows where the value's does not; each
/// op's rule is its own, so a bound above 1 per product was none along a
/// chain (six products by 1e7, each within 2^24, turned parts of a finite
/// sum into +-inf: NaN). A mean's quotient by its count and a product by
/// 1/sqrt(d) pass; a loss scale's product is reduced first (one collective
/// either way).
static constexpr double kLargestPartialScale = 1.0;

/// Whether a factor of constant elements `f` (nullopt: data) may scale a
/// partial value: anything but a float constant with an element of magnitude
/// past kLargestPartialScale, infinite or NaN (for a divisor: below its
/// inverse, or 0).
static bool partialScale(const std::optional<ConstantFactor> &f, bool divisor) {
  if (!f)
    return !divisor; // a quotient by data: x / 0 gives NaN from parts
  if (f->nonFinite)
    return false;
  if (divisor) // a quotient by 0 is not linear
    return !f->anyZero && f->smallestNonzero >= 1.0 / kLargestPartialScale;
  return f->largest <= kLargestPartialScale; // (a product by 0 is 0)
}

Degree shardc::degreeOf(Operation *op, ArrayRef<Degree> operands,
                        bool payload) {
  auto is = [&](size_t i, Degree d) {
    return i < operands.size() && operands[i] == d;
  };
  const bool independent = llvm::all_of(operands, [](Degree d) {
    return d == Degree::None || d == Degree::Zero;
  });
  if (isa<arith::AddFOp, arith::AddIOp, arith::SubFOp, arith::SubIOp>(op) &&
      operands.size() == 2)
    return sumOf(operands[0], operands[1]);
  if (isa<arith::MulFOp, arith::MulIOp>(op) && operands.size() == 2) {
    if (is(0, Degree::Zero) || is(1, Degree::Zero))
      return Degree::Zero;
    // A constant factor infinite, NaN or too large for the parts (which
    // may be far larger than their sum) to keep: not linear.
    for (Value factor : op->getOperands())
      if (std::optional<ConstantFactor> f = floatConstant(factor, payload);
          f && !partialScale(f, /*divisor=*/false))
        return independent ? Degree::None : Degree::Other;
    if (is(0, Degree::Other) || is(1, Degree::Other) ||
        (is(0, Degree::Linear) && is(1, Degree::Linear)))
      return Degree::Other;
    return is(0, Degree::Linear) || is(1, Degree::Linear) ? Degree::Linear
                                                          : Degree::None;
  }
  // A quotient by a constant that is finite and not 0 (a mean's count).
  if (isa<arith::DivFOp>(op) && operands.size() == 2) {
    if (independent)
      return Degree::None;
    if (!partialScale(floatConstant(op->getOperand(1), payload),
                      /*divisor=*/true))
      return Degree::Other;
    return operands[0];
  }
  // A negation and an extension are exact; a truncation rounds each part
  // apart (what their sum keeps in the wider type, each part loses) and
  // overflows the narrower type's range where the sum may not: parts of an
  // f64 value of 1e39 and -1e39 + 1 are +-inf in f32.
  if (isa<arith::NegFOp, arith::ExtFOp>(op) && operands.size() == 1)
    return operands[0];
  // A scalar wrapped in a tensor of one element is the scalar (read back,
  // yieldedDegrees gives the element its tensor's degree).
  if (isa<tensor::FromElementsOp>(op) && operands.size() == 1)
    return operands[0];
  if (isa<arith::SelectOp>(op) && operands.size() == 3) {
    if (operands[0] == Degree::Linear || operands[0] == Degree::Other)
      return Degree::Other;
    return sumOf(operands[1], operands[2]);
  }
  return independent ? Degree::None : Degree::Other;
}

static bool isConstantZero(Value value) {
  return matchPattern(value, m_AnyZeroFloat()) || matchPattern(value, m_Zero());
}

std::vector<Degree> shardc::yieldedDegrees(Block &body,
                                           ArrayRef<Value> captured,
                                           int64_t capturedBase,
                                           ArrayRef<int64_t> group,
                                           ArrayRef<int64_t> accumulators) {
  llvm::DenseMap<Value, Degree> degree;
  auto inGroup = [&](int64_t operand) {
    return llvm::is_contained(group, operand);
  };
  for (BlockArgument arg : body.getArguments())
    degree[arg] = inGroup(arg.getArgNumber()) ||
                          llvm::is_contained(accumulators, arg.getArgNumber())
                      ? Degree::Linear
                      : Degree::None;
  llvm::DenseMap<Value, int64_t> capturedOperand;
  for (auto [j, tensor] : llvm::enumerate(captured))
    capturedOperand[tensor] = capturedBase + static_cast<int64_t>(j);
  auto of = [&](Value v) {
    auto it = degree.find(v);
    if (it != degree.end())
      return it->second;
    if (isConstantZero(v))
      return Degree::Zero;
    if (auto it = capturedOperand.find(v); it != capturedOperand.end())
      return inGroup(it->second) ? Degree::Linear : Degree::None;
    return Degree::None; // defined outside the op: the same on every rank
  };
  for (Operation &op : body.without_terminator()) {
    Degree result = Degree::None;
    if (op.getNumRegions() > 0) {
      // Its regions' uses of the group are not followed.
      bool uses = false;
      op.walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          uses |= of(operand) == Degree::Linear || of(operand) == Degree::Other;
      });
      result = uses ? Degree::Other : Degree::None;
    } else if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
      bool indicesFree = llvm::all_of(extract.getIndices(), [&](Value i) {
        Degree d = of(i);
        return d == Degree::None || d == Degree::Zero;
      });
      Degree table = of(extract.getTensor());
      result = !indicesFree ? Degree::Other : table;
    } else if (matchPattern(&op, m_Constant())) {
      result = op.getNumResults() == 1 && isConstantZero(op.getResult(0))
                   ? Degree::Zero
                   : Degree::None;
    } else {
      SmallVector<Degree> operands;
      for (Value operand : op.getOperands())
        operands.push_back(of(operand));
      result = degreeOf(&op, operands, /*payload=*/true);
    }
    for (Value r : op.getResults())
      degree[r] = result;
  }
  std::vector<Degree> out;
  for (Value yielded : body.getTerminator()->getOperands())
    out.push_back(of(yielded));
  return out;
}

bool shardc::summable(Type type) {
  Type element = getElementTypeOrSelf(type);
  if (auto floating = dyn_cast<FloatType>(element))
    return floating.getWidth() >= 32;
  auto integer = dyn_cast<IntegerType>(element);
  return integer && integer.getWidth() >= 8;
}

std::vector<std::vector<int64_t>>
shardc::linearGroups(ArrayRef<int64_t> candidates,
                     const std::function<bool(ArrayRef<int64_t>)> &linearIn) {
  std::vector<std::vector<int64_t>> groups;
  const size_t n = candidates.size();
  std::vector<int64_t> group;
  // Subsets of 1, 2 and 3 candidates, in order; none that holds a group
  // found already (minimal groups only).
  std::function<void(size_t, size_t)> pick = [&](size_t from, size_t size) {
    if (group.size() == size) {
      for (const std::vector<int64_t> &found : groups)
        if (std::includes(group.begin(), group.end(), found.begin(),
                          found.end()))
          return;
      if (linearIn(group))
        groups.push_back(group);
      return;
    }
    for (size_t i = from; i < n; ++i) {
      group.push_back(candidates[i]);
      pick(i + 1, size);
      group.pop_back();
    }
  };
  for (size_t size = 1; size <= std::min<size_t>(3, n); ++size)
    pick(0, size);
  return groups;
}
