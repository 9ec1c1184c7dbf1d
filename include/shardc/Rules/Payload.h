//===- Payload.h - What the rules ask of an op's regions --------*- C++ -*-===//
//
// For the rules of ops with regions (a linalg payload, tensor.pad's body):
// what a value computed there depends on, and the masked read of a table
// cut over the ranks (an embedding lookup, vocab-parallel).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_PAYLOAD_H
#define SHARDC_RULES_PAYLOAD_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace shardc {

/// Whether `value`, computed in `body` (or its nested regions), depends on
/// one of `args`.
bool dependsOn(mlir::Value value, mlir::Block &body,
               const llvm::SmallPtrSetImpl<mlir::Value> &args);

/// A dim of a table that this rank holds a block of: the block's first
/// index and size there, and the table's extent along it in all (dynamic:
/// not known here).
struct LocalDim {
  unsigned dim;
  mlir::Value first, size;
  int64_t extent = mlir::ShapedType::kDynamic;
};

/// The attribute (an i64) on the subtraction of a masked read's first index
/// from a global index (maskedRead): the table's extent along that dim.
/// The unmasked read's bounds are checked at run time by MLIR's runtime op
/// verification; a masked read's index is in bounds on every rank, so
/// shard-run checks the global index against this extent instead.
constexpr llvm::StringLiteral kLookupExtentAttr = "shard.lookup_extent";

/// The element of `table` (this rank's block) at the global `indices`, read
/// at the local index along each of `local`'s dims, and 0 (a sum's
/// identity) where an index falls outside this rank's block there, which is
/// then not read: each rank's part of a lookup whose parts are summed. Each
/// subtraction of a dim's first index is marked with its extent where known
/// (kLookupExtentAttr).
mlir::Value maskedRead(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value table, mlir::ValueRange indices,
                       llvm::ArrayRef<LocalDim> local);

/// How a value depends on a group of an op's operands (ShardingRule::
/// linear): not at all, always 0, linearly (a sum of terms each the
/// product of exactly one element of the group's tensors with values
/// independent of them), or otherwise.
enum class Degree { None, Zero, Linear, Other };

/// `value` with the scalar round trips around it taken off: an element
/// extracted (at no index, or 0) from a tensor of one element that
/// tensor.from_elements makes of a scalar is that scalar (reductions lowered
/// from StableHLO/MHLO wrap each scalar of their payload so, until
/// canonicalized). Anything else is itself.
mlir::Value throughScalarWraps(mlir::Value value);

/// The degree of the result of `op` (an elementwise arith/math op on
/// scalars or tensors) whose operands have `operands`: sums and selects
/// of linear terms (or 0), products and quotients of a linear term by
/// independent values, negations and float extensions and truncations of
/// linear terms are linear (a quotient only by a constant that is finite
/// and not 0: x / w, w data, gives NaN from parts where x / 0 gives an
/// infinity); anything else of a linear or other term is Other, of
/// independent terms None. A constant factor is one however it is held: a
/// scalar, splat or dense elements, or, in a payload (`payload`: `op` is in
/// a linalg op's body, whose block argument k is its operand k), an
/// operand of the op that is one, or an element extracted from one.
Degree degreeOf(mlir::Operation *op, llvm::ArrayRef<Degree> operands,
                bool payload = false);

/// The constant `value`'s elements are taken from (all or some of them,
/// rearranged, or a scalar repeated): through shard.constraint,
/// tensor.cast, reshapes, extract_slice and splat, linalg.broadcast,
/// transpose and fill; null where it is not made of one. What decides
/// whether a product by `value` passes partial values (degreeOf), and so
/// what ops alike must share to share a rule (RuleMemo).
mlir::Attribute constantElementsOf(mlir::Value value);

/// What a product's rule reads of an operand `value`: its constant
/// (constantElementsOf), a unit attribute where it is computed from
/// constants by ops whose elements are not read (an extension, a
/// negation: a constant of elements not known), null for data. Ops alike
/// share a rule only where their operands' keys are the same (RuleMemo).
mlir::Attribute constantKeyOf(mlir::Value value);

/// Which values are computed from constants alone: nothing from a
/// function's argument, an external call or memory; a select's or an
/// scf.if's value from its choices whatever the condition, a region's
/// argument from its op's operands (a linalg body's argument k, its op's
/// operand k), a call's result from what its callee returns, a loop's
/// carried value a fixed point (of constants: one). Every value of a
/// function (and of the functions it calls) is answered at once, in one
/// walk, on the first question about one of them; the answer is exact,
/// whatever the order of the questions. What constantKeyOf and the
/// products' rules (degreeOf) ask; RuleMemo keeps one for its ops' rules
/// (it holds values: clear it before any may be erased or rewritten).
class ConstantOrigins {
public:
  /// Whether `value` is made of constants; with `payload`, a linalg body's
  /// argument k stands for its op's operand k.
  bool madeOfConstants(mlir::Value value, bool payload = false);
  void clear() {
    made.clear();
    returns.clear();
  }

  /// While one lives, this thread's questions (constantKeyOf, degreeOf) are
  /// answered by `origins` (else each by a walk of its own).
  class Scope {
  public:
    explicit Scope(ConstantOrigins &origins);
    ~Scope();
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    ConstantOrigins *previous;
  };

private:
  void analyze(mlir::Operation *function);
  bool walkBody(mlir::Operation *function);
  bool valueMade(mlir::Value value);

  llvm::DenseMap<mlir::Value, bool> made;
  /// The function being walked; those of the analysis under way not walked
  /// yet, and whether a walk read what one of them returns.
  mlir::Operation *walking = nullptr;
  llvm::DenseSet<mlir::Operation *> unwalked;
  bool provisional = false;
  /// Per function walked: whether each of its results is made of constants.
  llvm::DenseMap<mlir::Operation *, std::vector<bool>> returns;
};

/// The degree in `group` of every value `body` yields (its terminator's
/// operands): block argument k is the op's operand k; `captured[j]` (a
/// tensor the body reads from outside the op) is operand
/// `capturedBase + j`; a tensor.extract of a group tensor at indices
/// independent of the group is linear. The block arguments of
/// `accumulators` (a reduction's inits: they carry earlier iterations'
/// values) are linear whatever the group. Ops with regions of their own in
/// `body` are Other where they use the group.
std::vector<Degree> yieldedDegrees(mlir::Block &body,
                                   llvm::ArrayRef<mlir::Value> captured,
                                   int64_t capturedBase,
                                   llvm::ArrayRef<int64_t> group,
                                   llvm::ArrayRef<int64_t> accumulators = {});

/// Whether tensors of `type` (an element type or a tensor type) may pass
/// P(sum) parts through linear ops: floats of 32 bits or more (f16's and
/// bf16's rounding of each part can lose what their sum keeps) and
/// integers of 8 bits or more (exact modulo 2^n; an i1's sum is not what
/// its ops compute).
bool summable(mlir::Type type);

/// The minimal groups of `candidates` (operand numbers, increasing), of at
/// most three operands each, in which `linearIn` holds (every result
/// linear or 0), smallest first: ShardingRule::linear.
std::vector<std::vector<int64_t>>
linearGroups(llvm::ArrayRef<int64_t> candidates,
             const std::function<bool(llvm::ArrayRef<int64_t>)> &linearIn);

} // namespace shardc

#endif // SHARDC_RULES_PAYLOAD_H
