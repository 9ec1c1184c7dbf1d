//===- ShardDialect.cpp - The shard dialect -------------------------------===//

#include "shardc/Dialect/Shard.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseMap.h"

#include <mutex>

using namespace mlir;
using namespace shardc;

struct ShardDialect::FactsCache {
  std::mutex mutex;
  /// Boxed: references handed out stay valid as the map grows.
  llvm::DenseMap<Type, std::unique_ptr<TypeFacts>> facts;
};

#include "shardc/Dialect/ShardDialect.cpp.inc"

void ShardDialect::initialize() {
  factsCache = std::make_unique<FactsCache>();
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "shardc/Dialect/ShardOps.cpp.inc"
      >();
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
