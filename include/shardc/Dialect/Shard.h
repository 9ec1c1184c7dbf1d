//===- Shard.h - The shard dialect ------------------------------*- C++ -*-===//
//
// The `shard` dialect: device placements, blocks, chunk and enumerable specs,
// the sharded tensor type, and the global and SPMD ops. C++ namespace shardc.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_DIALECT_SHARD_H
#define SHARDC_DIALECT_SHARD_H

#include "shardc/Dialect/PartitionContext.h"
#include "shardc/Dialect/ShardingRule.h"
#include "shardc/Layout/Collectives.h"
#include "shardc/Layout/Layout.h"
#include "shardc/Layout/Mesh.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <map>
#include <vector>

namespace shardc {
namespace layout {
/// Hashing for placements stored in attributes.
/// What operator== compares, packed into one word and hashed once (a
/// layout's attribute is looked up tens of thousands of times in a large
/// function; four hash_combines per placement were half of each lookup).
inline llvm::hash_code hash_value(const Placement &p) {
  const uint64_t dim = p.cuts() ? static_cast<uint32_t>(p.dim) : 0;
  const uint64_t split = p.kind == Placement::Kind::StridedShard
                             ? static_cast<uint32_t>(p.split)
                             : 1;
  const uint64_t reduce =
      p.kind == Placement::Kind::Partial ? static_cast<uint64_t>(p.reduce) : 0;
  return llvm::hash_value((static_cast<uint64_t>(p.kind) << 62) ^
                          (reduce << 59) ^ (dim << 27) ^ split);
}
} // namespace layout
} // namespace shardc

namespace shardc {
class ShardedTensorType;
/// What verifiers and passes ask of a sharded tensor type, computed once
/// (ShardDialect::factsOf, typeFacts).
struct TypeFacts {
  /// getLocalType's answer.
  mlir::RankedTensorType localType;
  /// Whether every device block names a rank (a local view exists).
  bool ranksNamed = false;
  /// Whether a rank owns several blocks (replicas included).
  bool severalPerRank = false;
  /// Whether a rank's several blocks are the rows of its N-D local tensor,
  /// laid row-major one after the other (strided shards, layout::meshRows),
  /// rather than packed in a 1-D one.
  bool rowsPacked = false;
  /// The device kind of the blocks, when they share one.
  std::optional<layout::Device::Kind> kind;
};
} // namespace shardc

#include "shardc/Dialect/ShardDialect.h.inc"
#include "shardc/Dialect/ShardEnums.h.inc"
#include "shardc/Dialect/ShardInterfaces.h.inc"
#include "shardc/Dialect/ShardOpInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "shardc/Dialect/ShardAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "shardc/Dialect/ShardTypes.h.inc"

namespace shardc {
/// A sharding spec in an assembly format (the sharded tensor type's and
/// shard.constraint's): any attribute spelling, an alias included, that
/// implements the spec interface; anything else is a located error.
mlir::ParseResult parseSpecRef(mlir::AsmParser &parser,
                               ShardingSpecAttrInterface &spec);
void printSpecRef(mlir::AsmPrinter &printer, ShardingSpecAttrInterface spec);

namespace detail {
/// The type MLIR's generic parser read after the last inline shard attribute
/// (it reads `: T` after `#dialect.name<...>` as the attribute's type), then
/// forgotten; null if none. shard.constraint's parser takes its operand type
/// from it when the spec is written inline before the colon.
mlir::Type takeTrailingType();
} // namespace detail

/// Checks that `spec` fits the ordinary tensor type `type` (static shape,
/// an element type a sharded tensor takes, the spec's rank, mesh and
/// bounds), as the sharded tensor type's verifier would; emits otherwise.
llvm::LogicalResult
verifyLayoutOf(mlir::Type type, ShardingSpecAttrInterface spec,
               llvm::function_ref<mlir::InFlightDiagnostic()> emitError);
} // namespace shardc

namespace shardc {
/// The named collective an SPMD op runs (shard.spmd.<name> of a row of the
/// collective table, layout/Collectives.h), read from the attributes the
/// row names; nullopt for any other op (the exchange and scatter included).
std::optional<layout::Collective> namedCollectiveOf(mlir::Operation *op);
} // namespace shardc

#define GET_OP_CLASSES
#include "shardc/Dialect/ShardOps.h.inc"

namespace shardc {

/// Checks `blocks` against `shape` with the layout library and emits the
/// problems found: the first as an error, the others as notes on it.
llvm::LogicalResult
verifyBlocks(llvm::ArrayRef<int64_t> shape,
             const std::vector<layout::Block> &blocks,
             llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// The extent the layout arithmetic gives a dynamic dim (ShardedTensorType::
/// getLayoutShape). Where a layout leaves such a dim whole, blocks and plans
/// hold for every extent; where it cuts one (dynamicDimCuts), the run time
/// makes the blocks from the real extent and nothing is decided by blocks
/// at this one (ShardPlanner::stepsOf). Byte counts and modelled times
/// count the dim as this.
constexpr int64_t kNominalDynamicExtent = 64;

/// `dims` with each dynamic dim counted as `extent`.
std::vector<int64_t> layoutShape(llvm::ArrayRef<int64_t> dims,
                                 int64_t extent = kNominalDynamicExtent);

/// Where a layout cuts a dim whose extent only the run time knows: the
/// mesh axes whose Shard(d) placements nest on dim `d` (outer first, as
/// layout::meshBox cuts it) and their sizes. Only a mesh layout of Shard
/// placements (#shard.placements without StridedShard) cuts a dynamic dim:
/// each block's rows are torch.chunk's of the run-time extent, as
/// meshBox's; the verifier refuses any other layout that cuts one.
struct DimCut {
  /// Mesh axes cutting the dim, outer first, and each one's size.
  llvm::SmallVector<int64_t> axes, counts;
  bool cuts() const { return !axes.empty(); }
};
/// Per dim of `type`, how its layout cuts it (nothing for a static dim or
/// a layout other than mesh Shard placements).
std::vector<DimCut> dynamicDimCuts(ShardedTensorType type);
/// The same of `spec` on a tensor of `dims`.
std::vector<DimCut> dynamicDimCuts(ShardingSpecAttrInterface spec,
                                   llvm::ArrayRef<int64_t> dims);

/// Whether `type`'s layout cuts one of its dynamic dims (`spec` one of
/// `dims`).
bool cutsDynamicDim(ShardedTensorType type);
bool cutsDynamicDim(ShardingSpecAttrInterface spec,
                    llvm::ArrayRef<int64_t> dims);

/// The mesh coordinate of every rank a mesh layout `type` places a block
/// on (each rank is at one position: mesh devices are unique).
std::map<int64_t, std::vector<int64_t>>
meshCoordinatesByRank(ShardedTensorType type);

/// "[?, 16]": a shape with its dynamic dims as '?'.
std::string formatDims(llvm::ArrayRef<int64_t> dims);

/// typeFacts(type): what the dialect keeps of the type.
const TypeFacts &typeFacts(ShardedTensorType type);

namespace detail {
/// The facts of a type, computed from its blocks (ShardDialect::factsOf
/// keeps them).
TypeFacts computeTypeFacts(ShardedTensorType type);
} // namespace detail

/// The ranks holding a block of `type` (empty ones included), ascending.
std::vector<int64_t> holdingRanks(ShardedTensorType type);

/// Whether a rank owns several blocks of `type` (replicas included).
bool severalPerRank(ShardedTensorType type);

/// Where strided shards cut `type` (layout::Placement::StridedShard): per
/// device, in mesh order, its rank and its local tensor's shape (its rows of
/// each dim, layout::meshRows); nullopt for any other layout.
std::optional<std::vector<std::pair<int64_t, std::vector<int64_t>>>>
stridedLocalShapes(ShardedTensorType type);

/// The type of one rank's local view of `type`: its block, per dim static
/// when every block has the same size in it, dynamic otherwise; or, when a
/// rank owns several blocks, a 1-D tensor packing a rank's blocks row-major
/// one after the other in table order (static when every rank's hold alike).
mlir::RankedTensorType getLocalType(ShardedTensorType type);

/// The same tensor as `type`, whole on rank `rank` (a DevicePlacementSpec on
/// the device kind of `type`'s first block): the destination of a gather.
ShardedTensorType wholeOnRank(ShardedTensorType type, int64_t rank);

/// `layout` with every Partial axis replicated (the value after its
/// reduction).
PlacementsSpecAttr withoutPartial(PlacementsSpecAttr layout);

/// Checks that `type` has a local view: every placement names a rank.
llvm::LogicalResult
verifyLocalView(ShardedTensorType type,
                llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// The reduction of a collective op as the layout library names it, and
/// back (numbered alike).
layout::Placement::Reduce reduceOf(Reduction reduction);
Reduction reductionOf(layout::Placement::Reduce reduce);

/// Bytes of one element of `type` (complex: two parts; index: 8).
int64_t elementBytes(mlir::Type type);

/// Whether a sharded tensor holds elements of `type`: integers, floats,
/// index and complex numbers (what elementBytes sizes); not a quantized
/// type, say.
bool isShardedElementType(mlir::Type type);

/// Checks that a redistribution of `type` can be planned and reported: it
/// has a local view (verifyLocalView) and its size in bytes fits int64, as
/// every byte count of the planner, the report and the runtime must.
llvm::LogicalResult
verifyPlannable(ShardedTensorType type,
                llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// Checks that `local` can hold any rank's local view of `type`: same
/// element type; same rank and static dims equal to every block's size, or,
/// when a rank owns several blocks, 1-D and static only when every rank's
/// blocks hold that many elements. `what` names the value in messages
/// ("result", "operand").
llvm::LogicalResult
verifyLocalType(ShardedTensorType type, mlir::RankedTensorType local,
                llvm::StringRef what,
                llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

} // namespace shardc

#endif // SHARDC_DIALECT_SHARD_H
