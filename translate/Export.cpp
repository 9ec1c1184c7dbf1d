//===- Export.cpp - Sharded tensor metadata to JSON, and the translations ===//
//
// Writes PyTorch's sharded tensor metadata (docs/json.md) for a sharded
// tensor type, and registers shard-translate's two translations.
//
//===----------------------------------------------------------------------===//

#include "shardc/Translate/ShardedMetadata.h"

#include "JsonText.h"

#include "shardc/Dialect/ElementTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace shardc;

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// Writes `s` as a JSON string.
static void writeString(raw_ostream &os, StringRef s) {
  os << shardc::detail::quoteJson(s.str());
}

static void writeIntList(raw_ostream &os, ArrayRef<int64_t> values) {
  os << '[';
  llvm::interleaveComma(values, os);
  os << ']';
}

LogicalResult shardc::exportShardedMetadata(ShardedTensorType type,
                                            raw_ostream &os, Location loc) {
  StringRef dtype = getTorchDtypeName(type.getElementType());
  if (dtype.empty())
    return emitError(loc) << "element type " << type.getElementType()
                          << " has no PyTorch dtype; cannot write it as "
                             "sharded tensor metadata";
  if (!type.hasStaticShape())
    return emitError(loc) << "the tensor " << type
                          << " has dynamic dims; sharded tensor metadata "
                             "holds sizes (give the dims static sizes)";
  // One field per line, one shard per line: readable and diff-friendly at
  // any number of shards.
  os << "{\n  \"size\": ";
  writeIntList(os, type.getDims());
  os << ",\n  \"tensor_properties\": {\"dtype\": ";
  writeString(os, dtype);
  os << "},\n  \"shards_metadata\": [";
  std::vector<layout::Block> blocks = type.getBlocks();
  for (size_t i = 0; i < blocks.size(); ++i) {
    const layout::Block &b = blocks[i];
    os << (i ? ",\n" : "\n") << "    {\"shard_offsets\": ";
    writeIntList(os, b.box.offsets);
    os << ", \"shard_sizes\": ";
    writeIntList(os, b.box.sizes);
    os << ", \"placement\": ";
    writeString(os, layout::formatDevice(b.placement));
    os << '}';
  }
  os << "\n  ],\n  \"sharding_spec\": ";
  if (auto chunk = dyn_cast<ChunkSpecAttr>(type.getSpec())) {
    os << "{\"type\": \"chunk\", \"dim\": " << chunk.getDim()
       << ", \"placements\": [";
    llvm::interleaveComma(chunk.getPlacements(), os,
                          [&](DeviceAttr d) { writeString(os, d.str()); });
    os << "]}";
  } else {
    os << "{\"type\": \"enumerable\"}";
  }
  auto dtensor = dyn_cast<PlacementsSpecAttr>(type.getSpec());
  if (dtensor) {
    MeshAttr mesh = dtensor.getMesh();
    os << ",\n  \"device_mesh\": {\"shape\": ";
    writeIntList(os, mesh.getShape());
    if (!mesh.getDevices().empty()) {
      os << ", \"mesh\": ";
      writeIntList(os, mesh.getDevices());
    }
    os << ", \"device_type\": "
       << (mesh.getKind() == layout::Device::Kind::CUDA ? "\"cuda\""
                                                        : "\"cpu\"");
    if (!mesh.getAxes().empty()) {
      os << ", \"mesh_dim_names\": [";
      llvm::interleaveComma(mesh.getAxes(), os,
                            [&](StringAttr a) { writeString(os, a); });
      os << ']';
    }
    os << "},\n  \"placements\": [";
    llvm::interleaveComma(dtensor.getPlacements(), os,
                          [&](const layout::Placement &p) {
                            writeString(os, layout::formatPlacement(p));
                          });
    os << ']';
  }
  os << "\n}\n";
  return success();
}

LogicalResult shardc::exportShardedMetadata(Operation *op, raw_ostream &os) {
  ShardedTensorType found;
  Location foundLoc = op->getLoc();
  op->walk<WalkOrder::PreOrder>([&](FunctionOpInterface fn) {
    for (Type t : fn.getArgumentTypes()) {
      if (auto sharded = dyn_cast<ShardedTensorType>(t)) {
        found = sharded;
        foundLoc = fn.getLoc();
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  if (!found)
    return emitError(op->getLoc())
           << "no function argument of sharded tensor type (!shard.tensor) "
              "to export";
  return exportShardedMetadata(found, os, foundLoc);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

std::optional<std::string>
shardc::formatWholeFileDiagnostic(const Diagnostic &diag) {
  auto loc = dyn_cast<FileLineColLoc>(diag.getLocation());
  if (!loc || loc.getLine() != 0)
    return std::nullopt;
  std::string text;
  auto print = [&](const Diagnostic &d) {
    StringRef severity = "error";
    switch (d.getSeverity()) {
    case DiagnosticSeverity::Error:
      break;
    case DiagnosticSeverity::Warning:
      severity = "warning";
      break;
    case DiagnosticSeverity::Note:
      severity = "note";
      break;
    case DiagnosticSeverity::Remark:
      severity = "remark";
      break;
    }
    text +=
        (loc.getFilename().getValue() + ": " + severity + ": " + d.str() + "\n")
            .str();
  };
  print(diag);
  for (const Diagnostic &note : diag.getNotes())
    print(note);
  return text;
}

LogicalResult shardc::printWholeFileDiagnostic(Diagnostic &diag) {
  std::optional<std::string> text = formatWholeFileDiagnostic(diag);
  if (!text)
    return failure();
  llvm::errs() << *text;
  return success();
}

void shardc::registerShardedMetadataTranslations(
    std::function<void(DialectRegistry &)> registerDialects) {
  auto dialects = [registerDialects](DialectRegistry &registry) {
    registry.insert<ShardDialect, func::FuncDialect>();
    if (registerDialects)
      registerDialects(registry);
  };
  static TranslateToMLIRRegistration importRegistration(
      "import-sharded-metadata",
      "sharded tensor metadata (PyTorch's field names, JSON) to a function "
      "whose argument has the sharded tensor type",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *input =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        // Diagnostics about the file as a whole print as "x.json: error:
        // ..."; parse errors (with a line) go to the source manager's
        // handler, which shows the line.
        ScopedDiagnosticHandler wholeFile(context, printWholeFileDiagnostic);
        OwningOpRef<ModuleOp> module = importShardedMetadataModule(
            input->getBuffer(), input->getBufferIdentifier(), context);
        return OwningOpRef<Operation *>(module.release());
      },
      dialects);
  static TranslateFromMLIRRegistration exportRegistration(
      "export-sharded-metadata",
      "the first sharded tensor argument's type as sharded tensor metadata "
      "(JSON)",
      [](Operation *op, raw_ostream &os) {
        return exportShardedMetadata(op, os);
      },
      dialects);
}
