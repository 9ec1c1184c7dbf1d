//===- Validate.cpp - shard-validate --------------------------------------===//
//
// Checks every sharded tensor type of a module against the world it will run
// on, and summarizes each. The spec checks themselves (overlap, coverage,
// bounds) run in the type's verifier, with the layout library.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <map>

namespace shardc {
#define GEN_PASS_DEF_SHARDVALIDATE
#include "shardc/Passes/Passes.h.inc"
} // namespace shardc

using namespace mlir;
using namespace shardc;

namespace {

struct ValidatePass : shardc::impl::ShardValidateBase<ValidatePass> {
  using ShardValidateBase::ShardValidateBase;

  void runOnOperation() override {
    // 0: not given, not checked.
    if (worldSize != 0) {
      layout::Result<void> problem = layout::checkWorldSize(worldSize);
      if (!problem.ok()) {
        emitError(getOperation().getLoc())
            << "-shard-validate: world-size " << problem.error();
        return signalPassFailure();
      }
    }
    // Each distinct type once, at the first op that mentions it.
    llvm::SetVector<std::pair<Type, Operation *>> uses;
    llvm::DenseSet<Type> seen;
    getOperation().walk([&](Operation *op) {
      auto note = [&](Type t) {
        t.walk([&](ShardedTensorType s) {
          if (seen.insert(s).second)
            uses.insert({s, op});
        });
      };
      for (Type t : op->getOperandTypes())
        note(t);
      for (Type t : op->getResultTypes())
        note(t);
      for (NamedAttribute a : op->getAttrs())
        a.getValue().walk([&](TypeAttr ta) { note(ta.getValue()); });
      for (Region &r : op->getRegions())
        for (Block &b : r)
          for (BlockArgument arg : b.getArguments())
            note(arg.getType());
    });
    // Declared meshes, by their axis names.
    std::map<std::vector<std::string>, MeshOp> declared;
    for (MeshOp mesh : getOperation().getOps<MeshOp>()) {
      std::vector<std::string> axes;
      for (StringAttr a : mesh.getMesh().getAxes())
        axes.push_back(a.str());
      if (!axes.empty())
        declared.emplace(axes, mesh);
    }
    bool ok = true;
    for (auto [type, op] : uses) {
      auto spec =
          dyn_cast<PlacementsSpecAttr>(cast<ShardedTensorType>(type).getSpec());
      if (!spec || spec.getMesh().getAxes().empty())
        continue;
      std::vector<std::string> axes;
      for (StringAttr a : spec.getMesh().getAxes())
        axes.push_back(a.str());
      auto it = declared.find(axes);
      if (it == declared.end() || it->second.getMesh() == spec.getMesh())
        continue;
      InFlightDiagnostic diag = op->emitError()
                                << type << " uses the axis names of mesh @"
                                << it->second.getSymName()
                                << " but another mesh: " << spec.getMesh()
                                << " vs " << it->second.getMesh();
      diag.attachNote(it->second.getLoc()) << "mesh declared here";
      ok = false;
    }
    for (auto [type, op] : uses)
      ok &= succeeded(check(cast<ShardedTensorType>(type), op));
    ok &= succeeded(checkOpRanks());
    if (!ok)
      signalPassFailure();
  }

  /// The ranks ops name beside their types (a gather's destination, a
  /// distribute's source) must be in the world too.
  LogicalResult checkOpRanks() {
    if (worldSize <= 0)
      return success();
    bool ok = true;
    auto check = [&](Operation *op, StringRef what, int64_t rank) {
      if (rank < worldSize)
        return;
      op->emitError() << "'" << op->getName() << "' " << what << " rank "
                      << rank << " but the world has "
                      << static_cast<int64_t>(worldSize) << " ranks";
      ok = false;
    };
    getOperation().walk([&](Operation *op) {
      if (auto gather = dyn_cast<GatherOp>(op))
        check(op, "gathers to", gather.getDstRank());
      else if (auto distribute = dyn_cast<DistributeOp>(op))
        check(op, "distributes from", distribute.getSrcRank());
    });
    return success(ok);
  }

  LogicalResult check(ShardedTensorType type, Operation *op) {
    std::vector<layout::Block> blocks = type.getDeviceBlocks();
    if (worldSize > 0) {
      for (size_t i = 0; i < blocks.size(); ++i) {
        const layout::Block &b = blocks[i];
        if (b.placement.hasRank() && b.placement.rank >= worldSize)
          return op->emitError()
                 << type << ": block #" << i << " " << layout::formatBox(b.box)
                 << " is placed on rank " << b.placement.rank
                 << " but the world has " << static_cast<int64_t>(worldSize)
                 << " ranks";
      }
    }
    if (report) {
      std::map<int64_t, int64_t> perRank;
      int64_t unranked = 0;
      for (const layout::Block &b : blocks) {
        int64_t v = layout::volume(b.box.sizes).value_or(0);
        if (b.placement.hasRank())
          perRank[b.placement.rank] += v;
        else
          unranked += v;
      }
      InFlightDiagnostic remark = op->emitRemark()
                                  << type << ": " << type.getBlocks().size()
                                  << " blocks";
      if (blocks.size() != type.getBlocks().size())
        remark << " (" << blocks.size() << " with replicas)";
      if (!perRank.empty()) {
        auto [lo, hi] = std::minmax_element(
            perRank.begin(), perRank.end(),
            [](auto &a, auto &b) { return a.second < b.second; });
        remark << " on " << perRank.size() << " ranks, " << lo->second << " to "
               << hi->second << " elements per rank";
      }
      if (unranked)
        remark << ", " << unranked << " elements on placements without rank";
    }
    return success();
  }
};

} // namespace
