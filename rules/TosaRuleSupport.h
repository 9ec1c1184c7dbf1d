//===- TosaRuleSupport.h - Helpers of the TOSA rules -------------*- C++
//-*-===//
//
// What TosaRules.cpp, TosaWindowRules.cpp and TosaPlaceRules.cpp build their
// rules from.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_TOSARULESUPPORT_H
#define SHARDC_RULES_TOSARULESUPPORT_H

#include "shardc/Dialect/ShardingRule.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace shardc::tosa_rules {

/// Every dim of `value` needed whole (none: not a ranked tensor).
std::vector<int64_t> wholeDims(mlir::Value value);

/// Dims 0 .. rank - 1 indexed by loops 0 .. rank - 1 but `skipped`, needed
/// whole; with `skipped` dropped (`dropped`), the dims after it by the
/// loop before theirs (an argmax's input against its result).
std::vector<int64_t> dimsByLoops(int64_t rank, int64_t skipped = -1,
                                 bool dropped = false);

/// One parallel loop per dim of the op's one result; operand i's dims
/// indexed as `given[i]` says (past its end or empty: needed whole); the
/// loops in `whole` may not be sharded, for the reason `why` (the result
/// and the operand dims they would index are whole along them). The op
/// partitions as itself on local blocks.
mlir::FailureOr<ShardingRule>
resultLoopsRule(mlir::Operation *op,
                const std::vector<std::vector<int64_t>> &given,
                llvm::ArrayRef<int64_t> whole = {}, llvm::StringRef why = {});

/// Every loop whole: what an op whose verifier let through shapes or an
/// axis its rule does not know gets (correct for any op, cutting nothing).
mlir::FailureOr<ShardingRule> wholeRule(mlir::Operation *op);

/// The rank of a ranked tensor value, else 0.
int64_t rankOf(mlir::Value value);

/// An op's `axis` attribute, or -1 where it has none.
int64_t axisOf(mlir::Operation *op);

/// The values of a tosa.const_shape (a pad's padding, a slice's start, a
/// tile's multiples), or nothing for a shape computed otherwise.
std::optional<llvm::SmallVector<int64_t>> constShape(mlir::Value shape);

/// tosa.pad's (`pad`) or tosa.tile's rule where tensor.pad's is not taken:
/// one loop per result dim; a dim left as it is (no padding either side; a
/// multiple of 1) indexed by its loop, the others whole (every dim, where
/// the padding or multiples are not a tosa.const_shape). The op partitions
/// as itself on local blocks: a cut dim is one it leaves alone.
mlir::FailureOr<ShardingRule> unchangedDimsRule(mlir::Operation *op, bool pad);

/// Attaches the rules of TOSA's convolutions and pooling
/// (TosaWindowRules.cpp).
void attachWindowRules(mlir::MLIRContext *ctx);

/// Attaches the rules of tosa.pad, tosa.slice and tosa.concat, which take
/// tensor.pad's, tensor.extract_slice's and tensor.concat's and partition
/// as those ops (TosaPlaceRules.cpp).
void attachPlaceRules(mlir::MLIRContext *ctx);

} // namespace shardc::tosa_rules

#endif // SHARDC_RULES_TOSARULESUPPORT_H
