//===- ShardDialect.cpp - The shard dialect -------------------------------===//

#include "shardc/Dialect/Shard.h"

#include "shardc/Layout/Mesh.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <cctype>
#include <mutex>

using namespace mlir;
using namespace shardc;

struct ShardDialect::FactsCache {
  std::mutex mutex;
  /// Boxed: references handed out stay valid as the map grows.
  llvm::DenseMap<Type, std::unique_ptr<TypeFacts>> facts;
  /// (type, layout) pairs verifyLayoutOf found valid.
  llvm::DenseSet<std::pair<Type, Attribute>> verifiedLayouts;
};

#include "shardc/Dialect/ShardDialect.cpp.inc"

namespace {

/// `text` as part of an alias name: '-' as 'm' (S(-1): Sm1), ',' as 'x', other
/// characters that may not be in one left out.
std::string aliasPart(llvm::StringRef text) {
  std::string out;
  for (char c : text)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
      out.push_back(c);
    else if (c == '-')
      out.push_back('m');
    else if (c == ',')
      out.push_back('x'); // _S(0, 2): _S0x2
  return out;
}

/// Aliases for the attributes that make printed IR long: meshes (`#mesh`,
/// or `#mesh_dp_tp` for axes named dp and tp) and DTensor placements
/// (`#layout_S0_R` for [S(0), R]); the printer numbers aliases that
/// collide (`#mesh1`, `#layout_S0_R_1`).
struct ShardAsmInterface : OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (auto mesh = dyn_cast<MeshAttr>(attr)) {
      os << "mesh";
      for (StringAttr axis : mesh.getAxes())
        os << "_" << aliasPart(axis.getValue());
      return AliasResult::OverridableAlias;
    }
    if (auto spec = dyn_cast<PlacementsSpecAttr>(attr)) {
      os << "layout";
      for (const layout::Placement &p : spec.getPlacements())
        os << "_" << aliasPart(layout::formatPlacement(p));
      return AliasResult::OverridableAlias;
    }
    return AliasResult::NoAlias;
  }
};

} // namespace

/// The names of upstream MLIR's shard ops `Ops` (header-only: each op's
/// getOperationName is a constant of its declaration; nothing of upstream's
/// dialect is linked).
template <typename... Ops>
static llvm::SmallVector<llvm::StringRef> upstreamOpNames() {
  return {Ops::getOperationName()...};
}

void ShardDialect::initialize() {
  factsCache = std::make_unique<FactsCache>();
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "shardc/Dialect/ShardOps.cpp.inc"
      >();
  addInterfaces<ShardAsmInterface>();
}

std::optional<Dialect::ParseOpHook>
ShardDialect::getParseOperationHook(StringRef opName) const {
  // Upstream's ops (asked only for names shardc's dialect does not
  // register): their names as upstream's own headers declare them.
  static const llvm::SmallVector<llvm::StringRef> kUpstream = upstreamOpNames<
#define GET_OP_LIST
#include "mlir/Dialect/Shard/IR/ShardOps.cpp.inc"
      >();
  if (!llvm::is_contained(kUpstream, opName))
    return std::nullopt;
  // (The parser says "custom op 'NAME' " first.)
  return ParseOpHook([](OpAsmParser &parser, OperationState &) {
    return parser.emitError(parser.getNameLoc())
           << "is of upstream MLIR's own shard dialect, not of shardc's "
              "(which takes its name): shard-translate "
              "--import-upstream-shard reads a program annotated for "
              "upstream's (shard.grid, shard.sharding, shard.shard) and "
              "writes it in shardc's form";
  });
}

const TypeFacts &ShardDialect::factsOf(ShardedTensorType type) {
  {
    std::lock_guard<std::mutex> lock(factsCache->mutex);
    auto it = factsCache->facts.find(type);
    if (it != factsCache->facts.end())
      return *it->second;
  }
  // Computed outside the lock: the computation may ask for other types'
  // facts.
  auto computed = std::make_unique<TypeFacts>(detail::computeTypeFacts(type));
  std::lock_guard<std::mutex> lock(factsCache->mutex);
  auto [it, inserted] =
      factsCache->facts.try_emplace(type, std::move(computed));
  return *it->second;
}

bool ShardDialect::layoutVerified(Type type, Attribute layout) {
  std::lock_guard<std::mutex> lock(factsCache->mutex);
  return factsCache->verifiedLayouts.contains({type, layout});
}

void ShardDialect::noteLayoutVerified(Type type, Attribute layout) {
  std::lock_guard<std::mutex> lock(factsCache->mutex);
  factsCache->verifiedLayouts.insert({type, layout});
}
