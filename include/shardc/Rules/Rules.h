//===- Rules.h - The sharding rules shardc attaches to upstream ops -*- C++
//-*-===//
//
// External models of ShardingRuleOpInterface (shardc/Dialect/ShardingRule.h)
// for upstream dialects, one file per op kind in rules/, each with the op's
// rule and, where its local form is not the same op on local blocks, its
// partition hook: every linalg structured op (from its indexing maps), the
// elementwise arith and math ops, arith.constant, tensor.empty and reshapes,
// TOSA's elementwise ops and tosa.matmul.
// shardc::registerAllDialects registers them all; an embedder that builds
// its own registry calls registerShardingRules.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_RULES_H
#define SHARDC_RULES_RULES_H

#include "shardc/Dialect/ShardingRule.h"

#include <cstdint>

namespace mlir {
class DialectRegistry;
class Operation;
} // namespace mlir

namespace shardc {

/// Every rule below.
void registerShardingRules(mlir::DialectRegistry &registry);

/// Every linalg structured op, named ops and linalg.generic.
void registerLinalgShardingRules(mlir::DialectRegistry &registry);

/// The elementwise arith and math ops and arith.constant.
void registerElementwiseShardingRules(mlir::DialectRegistry &registry);

/// The tensor dialect's ops: tensor.empty, expand_shape and collapse_shape.
void registerTensorShardingRules(mlir::DialectRegistry &registry);

/// tensor.pad, tensor.insert_slice, tensor.concat (registered with the
/// others by registerTensorShardingRules).
void registerTensorPlaceShardingRules(mlir::DialectRegistry &registry);

/// TOSA's elementwise ops and tosa.matmul.
void registerTosaShardingRules(mlir::DialectRegistry &registry);

/// bufferization.materialize_in_destination into a tensor and
/// bufferization.alloc_tensor.
void registerBufferizationShardingRules(mlir::DialectRegistry &registry);

/// vector.transfer_read / transfer_write, vector.gather / scatter of a
/// tensor.
void registerVectorShardingRules(mlir::DialectRegistry &registry);

/// linalg.pack and linalg.unpack: the dims they do not tile cut alike on
/// both sides, the tiled ones whole.
void registerPackShardingRules(mlir::DialectRegistry &registry);

/// scf.forall and vector.mask: every tensor they read (operands and
/// captured) and make whole, their regions run as written on every rank.
void registerRegionShardingRules(mlir::DialectRegistry &registry);

/// The rule of an op that reads (or writes) its tensors whole: no loop,
/// every ranked tensor operand and result needed whole, non-tensors
/// nothing; each tensor result's init operand `init` (-1: none). A sharded
/// or Partial operand is made whole first; the op runs as written on every
/// rank (the default partition hook).
ShardingRule wholeTensorsRule(mlir::Operation *op, int64_t init = -1);

} // namespace shardc

#endif // SHARDC_RULES_RULES_H
