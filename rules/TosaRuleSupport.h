//===- TosaRuleSupport.h - Helpers of the TOSA rules -------------*- C++
//-*-===//
//
// What TosaRules.cpp and TosaWindowRules.cpp build their rules from.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_TOSARULESUPPORT_H
#define SHARDC_RULES_TOSARULESUPPORT_H

#include "shardc/Dialect/ShardingRule.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
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

/// Attaches the rules of TOSA's convolutions and pooling
/// (TosaWindowRules.cpp).
void attachWindowRules(mlir::MLIRContext *ctx);

} // namespace shardc::tosa_rules

#endif // SHARDC_RULES_TOSARULESUPPORT_H
