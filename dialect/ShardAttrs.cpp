//===- ShardAttrs.cpp - Placements, blocks and specs ----------------------===//

#include "shardc/Dialect/Shard.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace shardc;

#include "shardc/Dialect/ShardInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "shardc/Dialect/ShardAttrs.cpp.inc"

void ShardDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "shardc/Dialect/ShardAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// DeviceAttr
//===----------------------------------------------------------------------===//

DeviceAttr DeviceAttr::get(MLIRContext *context, const layout::Device &device) {
  return get(context, device.rank, device.kind, device.index);
}

DeviceAttr DeviceAttr::parse(StringRef text,
                             function_ref<InFlightDiagnostic()> emitError,
                             MLIRContext *context) {
  std::string error;
  std::optional<layout::Device> device =
      layout::parseDevice(std::string_view(text.data(), text.size()), error);
  if (!device) {
    emitError() << error;
    return {};
  }
  return get(context, *device);
}

layout::Device DeviceAttr::getDevice() const {
  layout::Device d;
  d.rank = getRank();
  d.kind = getKind();
  d.index = getIndex();
  return d;
}

std::string DeviceAttr::str() const {
  return layout::formatDevice(getDevice());
}

/// Parses a quoted device string into a DeviceAttr, reporting at its location.
static DeviceAttr parseDeviceString(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  std::string text;
  if (parser.parseString(&text))
    return {};
  return DeviceAttr::parse(
      text, [&] { return parser.emitError(loc); }, parser.getContext());
}

Attribute DeviceAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  DeviceAttr attr = parseDeviceString(parser);
  if (!attr || parser.parseGreater())
    return {};
  return attr;
}

void DeviceAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printString(str());
  printer << '>';
}

//===----------------------------------------------------------------------===//
// BlockAttr
//===----------------------------------------------------------------------===//

layout::Block BlockAttr::getBlock() const {
  layout::Block b;
  b.box.offsets.assign(getOffsets().begin(), getOffsets().end());
  b.box.sizes.assign(getSizes().begin(), getSizes().end());
  b.placement = getPlacement().getDevice();
  return b;
}

static ParseResult parseIntList(AsmParser &parser,
                                SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    int64_t v;
    if (parser.parseInteger(v))
      return failure();
    values.push_back(v);
    return success();
  });
}

static void printIntList(AsmPrinter &printer, ArrayRef<int64_t> values) {
  printer << '[';
  llvm::interleaveComma(values, printer);
  printer << ']';
}

BlockAttr BlockAttr::parseBody(AsmParser &parser) {
  SmallVector<int64_t> offsets, sizes;
  if (parser.parseKeyword("offsets") || parser.parseEqual() ||
      parseIntList(parser, offsets) || parser.parseComma() ||
      parser.parseKeyword("sizes") || parser.parseEqual() ||
      parseIntList(parser, sizes) || parser.parseComma() ||
      parser.parseKeyword("placement") || parser.parseEqual())
    return {};
  DeviceAttr placement = parseDeviceString(parser);
  if (!placement)
    return {};
  return get(parser.getContext(), offsets, sizes, placement);
}

void BlockAttr::printBody(AsmPrinter &printer) const {
  printer << "offsets = ";
  printIntList(printer, getOffsets());
  printer << ", sizes = ";
  printIntList(printer, getSizes());
  printer << ", placement = ";
  printer.printString(getPlacement().str());
}

Attribute BlockAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  BlockAttr attr = parseBody(parser);
  if (!attr || parser.parseGreater())
    return {};
  return attr;
}

void BlockAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printBody(printer);
  printer << '>';
}

//===----------------------------------------------------------------------===//
// ChunkSpecAttr
//===----------------------------------------------------------------------===//

Attribute ChunkSpecAttr::parse(AsmParser &parser, Type) {
  int64_t dim;
  SmallVector<DeviceAttr> placements;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword("dim") || parser.parseEqual() ||
      parser.parseInteger(dim) || parser.parseComma() ||
      parser.parseKeyword("placements") || parser.parseEqual() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     [&] {
                                       DeviceAttr d = parseDeviceString(parser);
                                       if (!d)
                                         return failure();
                                       placements.push_back(d);
                                       return success();
                                     }) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<ChunkSpecAttr>(loc, parser.getContext(), dim,
                                          placements);
}

void ChunkSpecAttr::print(AsmPrinter &printer) const {
  printer << "<dim = " << getDim() << ", placements = [";
  llvm::interleaveComma(getPlacements(), printer,
                        [&](DeviceAttr d) { printer.printString(d.str()); });
  printer << "]>";
}

LogicalResult
ChunkSpecAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t dim,
                      ArrayRef<DeviceAttr> placements) {
  if (placements.empty())
    return emitError() << "a chunk spec needs at least one placement";
  return success();
}

LogicalResult
ChunkSpecAttr::getBlocks(ArrayRef<int64_t> shape,
                         function_ref<InFlightDiagnostic()> emitError,
                         std::vector<layout::Block> &blocks) const {
  int64_t rank = shape.size();
  std::optional<int64_t> dim = layout::normalizeDim(getDim(), rank);
  if (!dim) {
    if (rank == 0)
      return emitError() << "chunk dim " << getDim()
                         << " is out of range: a rank-0 tensor has no dims";
    return emitError() << "chunk dim " << getDim()
                       << " is out of range for a tensor of rank " << rank
                       << " (expected " << -rank << " <= dim < " << rank << ")";
  }
  std::vector<layout::Device> devices;
  devices.reserve(getPlacements().size());
  for (DeviceAttr d : getPlacements())
    devices.push_back(d.getDevice());
  blocks = layout::chunkBlocks(std::vector<int64_t>(shape.begin(), shape.end()),
                               *dim, devices);
  return success();
}

//===----------------------------------------------------------------------===//
// EnumerableSpecAttr
//===----------------------------------------------------------------------===//

Attribute EnumerableSpecAttr::parse(AsmParser &parser, Type) {
  SmallVector<BlockAttr> blocks;
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     [&] {
                                       if (parser.parseLBrace())
                                         return failure();
                                       BlockAttr b =
                                           BlockAttr::parseBody(parser);
                                       if (!b || parser.parseRBrace())
                                         return failure();
                                       blocks.push_back(b);
                                       return success();
                                     }) ||
      parser.parseGreater())
    return {};
  return get(parser.getContext(), blocks);
}

void EnumerableSpecAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(getBlocks(), printer, [&](BlockAttr b) {
    printer << '{';
    b.printBody(printer);
    printer << '}';
  });
  printer << "]>";
}

LogicalResult
EnumerableSpecAttr::getBlocks(ArrayRef<int64_t> shape,
                              function_ref<InFlightDiagnostic()> emitError,
                              std::vector<layout::Block> &blocks) const {
  blocks.clear();
  blocks.reserve(getBlocks().size());
  for (BlockAttr b : getBlocks())
    blocks.push_back(b.getBlock());
  return success();
}

//===----------------------------------------------------------------------===//
// DevicePlacementSpecAttr
//===----------------------------------------------------------------------===//

Attribute DevicePlacementSpecAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  DeviceAttr device = parseDeviceString(parser);
  if (!device || parser.parseGreater())
    return {};
  return get(parser.getContext(), device);
}

void DevicePlacementSpecAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printString(getDevice().str());
  printer << '>';
}

LogicalResult
DevicePlacementSpecAttr::getBlocks(ArrayRef<int64_t> shape,
                                   function_ref<InFlightDiagnostic()> emitError,
                                   std::vector<layout::Block> &blocks) const {
  layout::Block b;
  b.box.offsets.assign(shape.size(), 0);
  b.box.sizes.assign(shape.begin(), shape.end());
  b.placement = getDevice().getDevice();
  blocks.assign(1, std::move(b));
  return success();
}

//===----------------------------------------------------------------------===//
// MeshAttr
//===----------------------------------------------------------------------===//

Attribute MeshAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> shape, devices;
  SmallVector<StringAttr> axes;
  auto kind = layout::Device::Kind::CPU;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword("shape") ||
      parser.parseEqual() || parseIntList(parser, shape))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (key == "devices") {
      if (parseIntList(parser, devices))
        return {};
    } else if (key == "axes") {
      if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
            std::string name;
            if (parser.parseString(&name))
              return failure();
            axes.push_back(parser.getBuilder().getStringAttr(name));
            return success();
          }))
        return {};
    } else if (key == "device") {
      std::string type;
      SMLoc typeLoc = parser.getCurrentLocation();
      if (parser.parseString(&type))
        return {};
      if (type == "cuda") {
        kind = layout::Device::Kind::CUDA;
      } else if (type != "cpu") {
        parser.emitError(typeLoc)
            << "mesh device type must be \"cpu\" or \"cuda\", got \"" << type
            << "\"";
        return {};
      }
    } else {
      parser.emitError(keyLoc)
          << "expected 'devices', 'axes' or 'device', got '" << key << "'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<MeshAttr>(loc, parser.getContext(), shape, devices,
                                     axes, kind);
}

void MeshAttr::print(AsmPrinter &printer) const {
  printer << "<shape = ";
  printIntList(printer, getShape());
  if (!getDevices().empty()) {
    printer << ", devices = ";
    printIntList(printer, getDevices());
  }
  if (!getAxes().empty()) {
    printer << ", axes = [";
    llvm::interleaveComma(getAxes(), printer,
                          [&](StringAttr a) { printer.printString(a); });
    printer << ']';
  }
  if (getKind() == layout::Device::Kind::CUDA)
    printer << ", device = \"cuda\"";
  printer << '>';
}

LogicalResult MeshAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> devices,
                               ArrayRef<StringAttr> axes,
                               layout::Device::Kind) {
  layout::Mesh mesh{{shape.begin(), shape.end()},
                    {devices.begin(), devices.end()}};
  std::string problem = layout::checkMesh(mesh);
  if (!problem.empty())
    return emitError() << "invalid mesh: " << problem;
  if (!axes.empty() && axes.size() != shape.size())
    return emitError() << "invalid mesh: " << axes.size()
                       << " axis names for a mesh of rank " << shape.size();
  for (size_t i = 0; i < axes.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (axes[i] == axes[j])
        return emitError() << "invalid mesh: axis name " << axes[i]
                           << " appears twice";
  return success();
}

layout::Mesh MeshAttr::getMesh() const {
  return layout::Mesh{{getShape().begin(), getShape().end()},
                      {getDevices().begin(), getDevices().end()}};
}

//===----------------------------------------------------------------------===//
// PlacementsSpecAttr
//===----------------------------------------------------------------------===//

/// Parses S(<dim>), R or P(<reduce>).
static FailureOr<layout::Placement> parsePlacementToken(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef kind;
  if (parser.parseKeyword(&kind))
    return failure();
  if (kind == "R")
    return layout::Placement::replicate();
  if (kind == "S") {
    int64_t dim;
    if (parser.parseLParen() || parser.parseInteger(dim) ||
        parser.parseRParen())
      return failure();
    return layout::Placement::shard(dim);
  }
  if (kind == "P") {
    StringRef name;
    SMLoc nameLoc;
    if (parser.parseLParen())
      return failure();
    nameLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&name) || parser.parseRParen())
      return failure();
    std::optional<layout::Placement::Reduce> r = layout::parseReduce(name);
    if (!r)
      return parser.emitError(nameLoc)
             << "expected sum, avg, max, min or product, got '" << name << "'";
    return layout::Placement::partial(*r);
  }
  return parser.emitError(loc)
         << "expected a placement: S(<dim>), R or P(<op>), got '" << kind
         << "'";
}

Attribute PlacementsSpecAttr::parse(AsmParser &parser, Type) {
  Attribute meshAttr;
  SmallVector<layout::Placement> placements;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword("mesh") || parser.parseEqual())
    return {};
  SMLoc meshLoc = parser.getCurrentLocation();
  if (parser.parseAttribute(meshAttr))
    return {};
  auto mesh = dyn_cast<MeshAttr>(meshAttr);
  if (!mesh) {
    parser.emitError(meshLoc) << "expected a #shard.mesh, got " << meshAttr;
    return {};
  }
  if (parser.parseComma() || parser.parseKeyword("placements") ||
      parser.parseEqual() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                     [&] {
                                       FailureOr<layout::Placement> p =
                                           parsePlacementToken(parser);
                                       if (failed(p))
                                         return failure();
                                       placements.push_back(*p);
                                       return success();
                                     }) ||
      parser.parseGreater())
    return {};
  return parser.getChecked<PlacementsSpecAttr>(loc, parser.getContext(), mesh,
                                               placements);
}

void PlacementsSpecAttr::print(AsmPrinter &printer) const {
  printer << "<mesh = " << getMesh() << ", placements = [";
  llvm::interleaveComma(getPlacements(), printer,
                        [&](const layout::Placement &p) {
                          printer << layout::formatPlacement(p);
                        });
  printer << "]>";
}

LogicalResult
PlacementsSpecAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           MeshAttr mesh,
                           ArrayRef<layout::Placement> placements) {
  if (placements.size() != mesh.getShape().size())
    return emitError() << placements.size() << " placements for a mesh of rank "
                       << mesh.getShape().size()
                       << "; DTensor needs one per mesh axis";
  return success();
}

/// The placements checked against a tensor rank; emits on failure.
static LogicalResult
checkPlacementsFor(PlacementsSpecAttr spec, ArrayRef<int64_t> shape,
                   function_ref<InFlightDiagnostic()> emitError) {
  std::string problem = layout::checkPlacements(
      spec.getMesh().getMesh(),
      {spec.getPlacements().begin(), spec.getPlacements().end()}, shape.size());
  if (problem.empty())
    return success();
  return emitError() << problem;
}

LogicalResult
PlacementsSpecAttr::getBlocks(ArrayRef<int64_t> shape,
                              function_ref<InFlightDiagnostic()> emitError,
                              std::vector<layout::Block> &blocks) const {
  if (failed(checkPlacementsFor(*this, shape, emitError)))
    return failure();
  blocks = layout::meshBlocks({shape.begin(), shape.end()}, getMesh().getMesh(),
                              {getPlacements().begin(), getPlacements().end()},
                              getMesh().getKind());
  return success();
}

LogicalResult PlacementsSpecAttr::getDeviceBlocks(
    ArrayRef<int64_t> shape, function_ref<InFlightDiagnostic()> emitError,
    std::vector<layout::Block> &blocks) const {
  if (failed(checkPlacementsFor(*this, shape, emitError)))
    return failure();
  blocks = layout::meshDeviceBlocks(
      {shape.begin(), shape.end()}, getMesh().getMesh(),
      {getPlacements().begin(), getPlacements().end()}, getMesh().getKind());
  return success();
}

bool PlacementsSpecAttr::hasPartial() const {
  return llvm::any_of(getPlacements(), [](const layout::Placement &p) {
    return p.kind == layout::Placement::Kind::Partial;
  });
}
