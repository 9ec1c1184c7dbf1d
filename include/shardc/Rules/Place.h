//===- Place.h - One rule for every concatenation --------------*- C++ -*-===//
//
// tensor.concat and tosa.concat take one rule and place their operands
// alike (rules/TensorPlaceRules.cpp): a dim other than the axis is cut alike
// in every tensor, and the axis is, in each operand, the window of its
// result loop, so that cutting it moves only the part of each operand that
// lands in another rank's block. tensor.pad and tosa.pad place their source
// alike too.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_PLACE_H
#define SHARDC_RULES_PLACE_H

#include "shardc/Dialect/Shard.h"
#include "shardc/Dialect/ShardingRule.h"

#include "mlir/IR/Operation.h"

namespace shardc {

/// The rule of `op`, which concatenates all its operands along `axis` into
/// its result 0 (static shapes): one loop per result dim; the others
/// indexed by their loops in every tensor, the axis the window of its loop
/// in each operand.
ShardingRule concatRule(mlir::Operation *op, int64_t axis);

/// ShardingRuleOpInterface::layoutToPlace of such an op's operand
/// `operand` (its types global, as the search sees them).
ShardingSpecAttrInterface concatLayoutToPlace(mlir::Operation *op, int64_t axis,
                                              unsigned operand,
                                              ShardingSpecAttrInterface have,
                                              ShardingSpecAttrInterface result);

/// ShardingRuleOpInterface::layoutToPlace of the source (operand 0) of an
/// op that pads it by `lows` and `highs` (one each per dim) into its result
/// 0, as tensor.pad does (its types global).
ShardingSpecAttrInterface padLayoutToPlace(mlir::Operation *op,
                                           llvm::ArrayRef<int64_t> lows,
                                           llvm::ArrayRef<int64_t> highs,
                                           ShardingSpecAttrInterface have,
                                           ShardingSpecAttrInterface result);

} // namespace shardc

#endif // SHARDC_RULES_PLACE_H
