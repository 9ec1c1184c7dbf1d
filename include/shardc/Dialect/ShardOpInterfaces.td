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
    InterfaceMethod<[{
        The layout of result `result` when each rank computes it from what
        it holds of the op's tensors laid out as `layouts` (the op's
        operands, then the tensors its regions read from outside it; null
        where not known), moving nothing: for an op that reads a window of
        an operand (an extract_slice), the parts of the window each rank
        holds. Null where the op has no such form (the default). It lets an
        operand whose layout is not a mesh layout (an enumerable layout with
        several blocks per rank) stay as it is where that result layout is
        the one chosen; the hook then computes from the blocks as they are.
      }],
      "::shardc::ShardingSpecAttrInterface", "layoutInPlace",
      (ins "unsigned":$result,
           "::llvm::ArrayRef<::shardc::ShardingSpecAttrInterface>":$layouts),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        (void)result;
        (void)layouts;
        return nullptr;
      }]>,
    InterfaceMethod<[{
        The layout operand `operand`, laid out as `have` (cut along a dim
        the op places into: a window the rule lets stay cut), is moved to
        before the op places it into result 0 laid out as `result`: each
        rank's elements that land in its block (or whole along those dims
        where `result` has copies). Null where the op reads it as it is, or
        places nothing (the default). The partition hook moves it there;
        the search prices that move.
      }],
      "::shardc::ShardingSpecAttrInterface", "layoutToPlace",
      (ins "unsigned":$operand,
           "::shardc::ShardingSpecAttrInterface":$have,
           "::shardc::ShardingSpecAttrInterface":$result),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        (void)operand;
        (void)have;
        (void)result;
        return nullptr;
      }]>,
    InterfaceMethod<[{
        Whether the op's partition hook computes this rank's blocks where
        loop `loop` of `rule`, which indexes a dynamic dim (or has a dynamic
        size), is cut: its local form reads the sizes of its blocks as they
        are or asks the context for them with the tensor's extents
        (PartitionContext::localSizes, globalExtent), never a block table
        made at the nominal extent. Where not (the default), shardingRuleOf
        keeps such a loop whole.
      }],
      "bool", "cutsDynamicLoop",
      (ins "const ::shardc::ShardingRule &":$rule, "int64_t":$loop),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        (void)rule;
        (void)loop;
        return false;
      }]>,
  ];
}

#endif // SHARDC_DIALECT_SHARDOPINTERFACES_TD
