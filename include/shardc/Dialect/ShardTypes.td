//===- ShardTypes.td - The sharded tensor type -------------*- tablegen -*-===//

#ifndef SHARDC_DIALECT_SHARDTYPES_TD
#define SHARDC_DIALECT_SHARDTYPES_TD

include "shardc/Dialect/ShardAttrs.td"

def Shard_ShardedTensorType : TypeDef<Shard_Dialect, "ShardedTensor"> {
  let mnemonic = "tensor";
  let summary = "A tensor cut into blocks (PyTorch's ShardedTensorMetadata)";
  let description = [{
    A global shape, an element type and a sharding spec. The verifier checks
    the spec against the shape: same rank everywhere, non-negative offsets and
    sizes of equal length, every block inside the shape, no two blocks
    overlapping, the blocks covering the shape, a non-empty list, a chunk dim
    in range. Blocks with a zero size hold nothing and are always accepted.
    A dim may be dynamic (`?`, its extent known at run time) where the spec
    leaves it whole: every block holds all of it.

    <!-- check: excerpt test/Dialect/td-examples.mlir -->
    ```mlir
    !shard.tensor<6x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
    !shard.tensor<?x10xf32, #shard.chunk<dim = 1, placements = ["rank:0", "rank:1"]>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$dims,
                        "::mlir::Type":$elementType,
                        "::shardc::ShardingSpecAttrInterface":$spec);
  let assemblyFormat = [{
    `<` custom<DimensionList>($dims) `` $elementType `,`
    custom<SpecRef>($spec) `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The blocks of the spec for this shape (the type is verified, so this
    /// cannot fail).
    std::vector<::shardc::layout::Block> getBlocks() const;
    /// Every device's block, replicas included (see the spec interface).
    std::vector<::shardc::layout::Block> getDeviceBlocks() const;
    int64_t getRank() const { return getDims().size(); }
    /// The shape as written, dynamic dims as ShapedType::kDynamic (as a
    /// ranked tensor's getShape); getDims() is the same.
    ::llvm::ArrayRef<int64_t> getShape() const { return getDims(); }
    /// Whether dim `d` is dynamic ('?'): its extent is known at run time.
    bool isDynamicDim(int64_t d) const {
      return ::mlir::ShapedType::isDynamic(getDims()[d]);
    }
    bool hasStaticShape() const {
      return !::mlir::ShapedType::isDynamicShape(getDims());
    }
    /// The shape the layout arithmetic works on: each dynamic dim counted
    /// as kNominalDynamicExtent. A layout leaves every dynamic dim whole
    /// (the verifier checks it), so its blocks hold all of such a dim
    /// whatever its size; what the arithmetic derives from it (blocks,
    /// plans, costs) holds for every size, costs scaled as for that one.
    std::vector<int64_t> getLayoutShape() const;
  }];
}

#endif // SHARDC_DIALECT_SHARDTYPES_TD
