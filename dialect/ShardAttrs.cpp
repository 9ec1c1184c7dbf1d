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
