//===- Rules.h - The sharding rules shardc attaches to upstream ops -*- C++
//-*-===//
//
// External models of ShardingRuleOpInterface (shardc/Dialect/ShardingRule.h)
// for upstream dialects: every linalg structured op (from its indexing maps),
// the elementwise arith and math ops, arith.constant and tensor.empty.
// shardc::registerAllDialects registers them all; an embedder that builds
// its own registry calls registerShardingRules.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_RULES_H
#define SHARDC_RULES_RULES_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace shardc {

/// Every rule below.
void registerShardingRules(mlir::DialectRegistry &registry);

/// Every linalg structured op, named ops and linalg.generic.
void registerLinalgShardingRules(mlir::DialectRegistry &registry);

/// The elementwise arith and math ops, arith.constant and tensor.empty.
void registerElementwiseShardingRules(mlir::DialectRegistry &registry);

} // namespace shardc

#endif // SHARDC_RULES_RULES_H
