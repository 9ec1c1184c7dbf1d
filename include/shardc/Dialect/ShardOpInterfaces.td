//===- ShardOpInterfaces.td - Sharding rules of compute ops -*- tablegen -*-===//

#ifndef SHARDC_DIALECT_SHARDOPINTERFACES_TD
#define SHARDC_DIALECT_SHARDOPINTERFACES_TD

include "mlir/IR/OpBase.td"

def Shard_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::shardc";
  let description = [{
    A compute op's sharding rule (shardc/Dialect/ShardingRule.h): its loops
    and which loop indexes each dim of each tensor operand and result.
    -shard-propagate and -shard-spmd-partition derive every layout of the op from
    it. shardc attaches it to linalg structured ops (from their indexing
    maps and iterator types), the elementwise arith and math ops, constants
    and tensor.empty (shardc::registerShardingRules); an embedder attaches
    it to its own ops as an external model:

    ```c++
    struct MyRule : shardc::ShardingRuleOpInterface::ExternalModel<MyRule, MyOp> {
      mlir::FailureOr<shardc::ShardingRule> getShardingRule(mlir::Operation *op) const;
    };
    registry.addExtension(+[](mlir::MLIRContext *ctx, MyDialect *) {
      MyOp::attachInterface<MyRule>(*ctx);
    });
    ```
  }];
  let methods = [
    InterfaceMethod<[{
        The op's rule; fails, after emitting an error at the op, when the op
        as written has none (for example a dynamic loop size).
      }],
      "::mlir::FailureOr<::shardc::ShardingRule>", "getShardingRule", (ins)>,
  ];
}

#endif // SHARDC_DIALECT_SHARDOPINTERFACES_TD
