//===- ShardBase.td - The shard dialect --------------------*- tablegen -*-===//

#ifndef SHARDC_DIALECT_SHARDBASE_TD
#define SHARDC_DIALECT_SHARDBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Shard_Dialect : Dialect {
  let name = "shard";
  let cppNamespace = "::shardc";
  let summary = "Sharded tensors with PyTorch's sharding semantics";
  let description = [{
    The `shard` dialect describes how a tensor is cut into blocks and where
    each block lives, with the semantics of PyTorch's ShardedTensor
    (ChunkShardingSpec, EnumerableShardingSpec, ShardMetadata) and DTensor.
    Global ops (distribute, redistribute, all_gather, local_shards,
    from_local_shards) work on the sharded tensor type; after planning, SPMD
    ops (`shard.spmd.*`) work on each rank's local blocks.

    This dialect is named `shard` like upstream MLIR's own Shard dialect, but
    lives in the C++ namespace `shardc`. The two must not be registered in the
    same MLIRContext.
  }];
  // Written in ShardAttrs.cpp around the generated parser: it notes the type
  // MLIR's parser reads after an inline attribute (`#shard.chunk<...> : T`),
  // which shard.constraint's syntax puts there.
  let useDefaultAttributePrinterParser = 0;
  let useDefaultTypePrinterParser = 1;
  // `shard.layout` on function arguments and results.
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Defined beside the storage classes (ShardAttrs.cpp, ShardTypes.cpp).
    void registerAttributes();
    void registerTypes();

    ::mlir::Attribute parseAttribute(::mlir::DialectAsmParser &parser,
                                     ::mlir::Type type) const override;
    void printAttribute(::mlir::Attribute attr,
                        ::mlir::DialectAsmPrinter &printer) const override;

    /// What verifiers and passes ask of a sharded tensor type (its local
    /// type, whether its blocks name ranks, ...), computed once per type
    /// and kept for the context's life; thread-safe (ShardTypes.cpp).
    const ::shardc::TypeFacts &factsOf(::shardc::ShardedTensorType type);

    /// Whether `layout` was found a valid layout of `type` before (then it
    /// is: both are uniqued and immutable), and a note that it was; kept
    /// for the context's life, thread-safe (verifyLayoutOf: propagation
    /// writes a shard.constraint per value, and each is verified after
    /// every pass).
    bool layoutVerified(::mlir::Type type, ::mlir::Attribute layout);
    void noteLayoutVerified(::mlir::Type type, ::mlir::Attribute layout);

    /// An op of upstream MLIR's own `shard` dialect that shardc's has not
    /// (shard.grid, shard.sharding, shard.shard, ...): an error that says
    /// so and names shard-translate --import-upstream-shard, which reads
    /// such a program (ShardDialect.cpp).
    std::optional<ParseOpHook>
    getParseOperationHook(::llvm::StringRef opName) const override;

  private:
    struct FactsCache;
    std::unique_ptr<FactsCache> factsCache;

  public:
  }];
}

#endif // SHARDC_DIALECT_SHARDBASE_TD
