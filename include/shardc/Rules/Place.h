//===- Place.h - One rule for every concatenation --------------*- C++ -*-===//
//
// tensor.concat and tosa.concat take one rule and place their operands
// alike (rules/TensorPlaceRules.cpp): a dim other than the axis is cut alike
// in every tensor, and the axis is, in each operand, the window of its
// result loop, so that cutting it moves only the part of each operand that
// lands in another rank's block.
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

} // namespace shardc

#endif // SHARDC_RULES_PLACE_H
