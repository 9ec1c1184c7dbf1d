//===- ShardOpInterfaces.td - Sharding rules of compute ops -*- tablegen -*-===//

#ifndef SHARDC_DIALECT_SHARDOPINTERFACES_TD
#define SHARDC_DIALECT_SHARDOPINTERFACES_TD

include "mlir/IR/OpBase.td"

def Shard_ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::shardc";
  let description = [{
    A compute op's sharding rule (shardc/Dialect/ShardingRule.h): its loops
    and which loop indexes each dim of each tensor operand and result, and
    how the op is partitioned (its `partition` hook). -shard-propagate and
    -shard-spmd-partition derive every layout of the op from the rule;
    -shard-print-sharding-rules prints it. Adding an op kind is one file in
    rules/: its rule and, where its local form is not the same op on local
    blocks, its hook. shardc attaches it to linalg structured ops (from their indexing
    maps and iterator types), the elementwise arith and math ops, constants
    and tensor.empty (shardc::registerShardingRules); an embedder attaches
    it to its own ops as an external model:

    ```c++
    struct MyRule : shardc::ShardingRuleOpInterface::ExternalModel<MyRule, MyOp> {
      mlir::FailureOr<shardc::ShardingRule> getShardingRule(mlir::Operation *op) const;
      // Optional: the default retypes the results to their local types.
      mlir::LogicalResult partition(mlir::Operation *op,
                                    const shardc::ShardingRule &rule,
                                    shardc::PartitionContext &context) const;
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
    InterfaceMethod<[{
        Rewrites the op into its per-rank form (-shard-spmd-partition): its
        operands are this rank's blocks already, in the layouts `rule` (the
        op's rule, as getShardingRule gave it) asks under the sharding the
        analysis chose; the hook makes the op compute this rank's blocks of
        its results, asking `context` (shardc/Dialect/PartitionContext.h)
        for the layouts and per-rank values. It may rewrite the op in place,
        or replace its results (context.replace) and erase it. The default
        retypes the tensor results to their local types, which is all an op
        whose local form is the same op on local blocks needs.
      }],
      "::mlir::LogicalResult", "partition",
      (ins "const ::shardc::ShardingRule &":$rule,
           "::shardc::PartitionContext &":$context),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        (void)rule;
        return ::shardc::retypeResultsToLocal($_op, context);
      }]>,
  ];
}

#endif // SHARDC_DIALECT_SHARDOPINTERFACES_TD
