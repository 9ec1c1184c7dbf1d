//===- ShardAttrs.cpp - Placements, blocks and specs ----------------------===//

#include "shardc/Dialect/Shard.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace shardc;

#include "shardc/Dialect/ShardInterfaces.cpp.inc"

//===----------------------------------------------------------------------===//
// Custom directives of the assembly formats
//===----------------------------------------------------------------------===//

/// `[1, 2, 3]`, possibly empty.
static ParseResult parseIntList(AsmParser &parser,
                                SmallVector<int64_t> &values) {
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

/// A quoted PyTorch remote-device string (`"rank:0/cuda:0"`), reported at
/// its location when malformed.
static std::optional<layout::Device> parseQuotedDevice(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  std::string text;
  if (parser.parseString(&text))
    return std::nullopt;
  layout::Result<layout::Device> device = layout::parseDevice(text);
  if (!device) {
    parser.emitError(loc) << device.error();
    return std::nullopt;
  }
  return *device;
}

static ParseResult parseDeviceString(AsmParser &parser, int64_t &rank,
                                     layout::Device::Kind &kind,
                                     int64_t &index) {
  std::optional<layout::Device> device = parseQuotedDevice(parser);
  if (!device)
    return failure();
  rank = device->rank;
  kind = device->kind;
  index = device->index;
  return success();
}

static void printDeviceString(AsmPrinter &printer, int64_t rank,
                              layout::Device::Kind kind, int64_t index) {
  layout::Device device;
  device.rank = rank;
  device.kind = kind;
  device.index = index;
  printer.printString(layout::formatDevice(device));
}

/// A device parameter, written as its string.
static ParseResult parseDeviceRef(AsmParser &parser, DeviceAttr &device);
static void printDeviceRef(AsmPrinter &printer, DeviceAttr device);

/// `["rank:0", "rank:1"]`.
static ParseResult parseDeviceList(AsmParser &parser,
                                   SmallVector<DeviceAttr> &devices) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    DeviceAttr d;
    if (parseDeviceRef(parser, d))
      return failure();
    devices.push_back(d);
    return success();
  });
}

static void printDeviceList(AsmPrinter &printer, ArrayRef<DeviceAttr> devices) {
  printer << '[';
  llvm::interleaveComma(devices, printer,
                        [&](DeviceAttr d) { printDeviceRef(printer, d); });
  printer << ']';
}

/// `offsets = [...], sizes = [...], placement = "..."`: a block's body, in
/// `#shard.block<...>` and in the enumerable spec's `{...}` entries.
static ParseResult parseBlockBody(AsmParser &parser,
                                  SmallVector<int64_t> &offsets,
                                  SmallVector<int64_t> &sizes,
                                  DeviceAttr &placement) {
  return failure(parser.parseKeyword("offsets") || parser.parseEqual() ||
                 parseIntList(parser, offsets) || parser.parseComma() ||
                 parser.parseKeyword("sizes") || parser.parseEqual() ||
                 parseIntList(parser, sizes) || parser.parseComma() ||
                 parser.parseKeyword("placement") || parser.parseEqual() ||
                 parseDeviceRef(parser, placement));
}

static void printBlockBody(AsmPrinter &printer, ArrayRef<int64_t> offsets,
                           ArrayRef<int64_t> sizes, DeviceAttr placement) {
  printer << "offsets = ";
  printIntList(printer, offsets);
  printer << ", sizes = ";
  printIntList(printer, sizes);
  printer << ", placement = ";
  printDeviceRef(printer, placement);
}

/// `[{body}, {body}]`.
static ParseResult parseBlockList(AsmParser &parser,
                                  SmallVector<BlockAttr> &blocks) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    SmallVector<int64_t> offsets, sizes;
    DeviceAttr placement;
    if (parser.parseLBrace() ||
        parseBlockBody(parser, offsets, sizes, placement) ||
        parser.parseRBrace())
      return failure();
    blocks.push_back(
        BlockAttr::get(parser.getContext(), offsets, sizes, placement));
    return success();
  });
}

static void printBlockList(AsmPrinter &printer, ArrayRef<BlockAttr> blocks) {
  printer << '[';
  llvm::interleaveComma(blocks, printer, [&](BlockAttr b) {
    printer << '{';
    printBlockBody(printer, b.getOffsets(), b.getSizes(), b.getPlacement());
    printer << '}';
  });
  printer << ']';
}

/// `, devices = [...]`, `, axes = ["dp", ...]`, `, device = "cuda"`: each
/// optional, in any order; printed only when not the default.
static ParseResult parseMeshOptions(AsmParser &parser,
                                    SmallVector<int64_t> &devices,
                                    SmallVector<StringAttr> &axes,
                                    layout::Device::Kind &kind) {
  kind = layout::Device::Kind::CPU;
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (!seen.insert(key).second)
      return parser.emitError(keyLoc) << "'" << key << "' is given twice";
    if (key == "devices") {
      if (parseIntList(parser, devices))
        return failure();
    } else if (key == "axes") {
      if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
            std::string name;
            if (parser.parseString(&name))
              return failure();
            axes.push_back(parser.getBuilder().getStringAttr(name));
            return success();
          }))
        return failure();
    } else if (key == "device") {
      std::string type;
      SMLoc typeLoc = parser.getCurrentLocation();
      if (parser.parseString(&type))
        return failure();
      if (type == "cuda")
        kind = layout::Device::Kind::CUDA;
      else if (type != "cpu")
        return parser.emitError(typeLoc)
               << "mesh device type must be \"cpu\" or \"cuda\", got \"" << type
               << "\"";
    } else {
      return parser.emitError(keyLoc)
             << "expected 'devices', 'axes' or 'device', got '" << key << "'";
    }
  }
  return success();
}

static void printMeshOptions(AsmPrinter &printer, ArrayRef<int64_t> devices,
                             ArrayRef<StringAttr> axes,
                             layout::Device::Kind kind) {
  if (!devices.empty()) {
    printer << ", devices = ";
    printIntList(printer, devices);
  }
  if (!axes.empty()) {
    printer << ", axes = [";
    llvm::interleaveComma(axes, printer,
                          [&](StringAttr a) { printer.printString(a); });
    printer << ']';
  }
  if (kind == layout::Device::Kind::CUDA)
    printer << ", device = \"cuda\"";
}

/// A mesh parameter: any attribute spelling (an alias included) that is a
/// #shard.mesh.
static ParseResult parseMeshRef(AsmParser &parser, MeshAttr &mesh);
static void printMeshRef(AsmPrinter &printer, MeshAttr mesh) {
  printer << Attribute(mesh);
}

/// Parses S(<dim>), _S(<dim>, <split>), R or P(<reduce>).
static FailureOr<layout::Placement> parsePlacementToken(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef kind;
  if (parser.parseKeyword(&kind))
    return failure();
  if (kind == "R")
    return layout::Placement::replicate();
  if (kind == "_S") {
    int64_t dim, split;
    if (parser.parseLParen() || parser.parseInteger(dim) || parser.parseComma())
      return failure();
    SMLoc splitLoc = parser.getCurrentLocation();
    if (parser.parseInteger(split) || parser.parseRParen())
      return failure();
    if (split < 1)
      return parser.emitError(splitLoc)
             << "a strided shard's split is 1 or more, got " << split;
    return layout::Placement::strided(dim, split);
  }
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
         << "expected a placement: S(<dim>), _S(<dim>, <split>), R or P(<op>), "
            "got '"
         << kind << "'";
}

/// `[S(0), R, P(sum)]`.
static ParseResult
parsePlacementList(AsmParser &parser,
                   SmallVector<layout::Placement> &placements) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
    FailureOr<layout::Placement> p = parsePlacementToken(parser);
    if (failed(p))
      return failure();
    placements.push_back(*p);
    return success();
  });
}

static void printPlacementList(AsmPrinter &printer,
                               ArrayRef<layout::Placement> placements) {
  printer << '[';
  llvm::interleaveComma(placements, printer, [&](const layout::Placement &p) {
    printer << layout::formatPlacement(p);
  });
  printer << ']';
}

/// `[d0, -, d2]`: the loop each mesh axis cuts, or none.
static ParseResult parseAxisLoops(AsmParser &parser,
                                  SmallVector<int64_t> &loops,
                                  SmallVector<int64_t> &splits) {
  std::vector<int64_t> each;
  ParseResult parsed = parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        if (succeeded(parser.parseOptionalMinus())) {
          loops.push_back(-1);
          each.push_back(1);
          return success();
        }
        SMLoc loc = parser.getCurrentLocation();
        StringRef word;
        int64_t loop = -1;
        if (failed(parser.parseOptionalKeyword(&word)) ||
            !word.consume_front("d") || word.getAsInteger(10, loop) || loop < 0)
          return parser.emitError(loc)
                 << "expected a loop (d0, d1, ...) or '-' per mesh axis";
        loops.push_back(loop);
        int64_t split = 1;
        if (succeeded(parser.parseOptionalKeyword("strided"))) {
          SMLoc at = parser.getCurrentLocation();
          if (parser.parseInteger(split))
            return failure();
          if (split < 2)
            return parser.emitError(at)
                   << "a strided cut has 2 or more groups, got " << split;
        }
        each.push_back(split);
        return success();
      });
  // Splits only where some axis cuts strided.
  if (llvm::any_of(each, [](int64_t s) { return s != 1; }))
    splits.assign(each.begin(), each.end());
  return parsed;
}

static void printAxisLoops(AsmPrinter &printer, ArrayRef<int64_t> loops,
                           ArrayRef<int64_t> splits) {
  printer << '[';
  llvm::interleaveComma(llvm::enumerate(loops), printer, [&](auto entry) {
    const int64_t loop = entry.value();
    if (loop < 0)
      printer << '-';
    else
      printer << 'd' << loop;
    if (entry.index() < splits.size() && splits[entry.index()] > 1)
      printer << " strided " << splits[entry.index()];
  });
  printer << ']';
}

#define GET_ATTRDEF_CLASSES
#include "shardc/Dialect/ShardAttrs.cpp.inc"

/// The type MLIR's parser read after the last inline shard attribute
/// (`#shard.chunk<...> : T`), if any; see takeTrailingType.
static thread_local Type trailingType;

Type shardc::detail::takeTrailingType() {
  Type t = trailingType;
  trailingType = {};
  return t;
}

Attribute ShardDialect::parseAttribute(DialectAsmParser &parser,
                                       Type type) const {
  if (type)
    trailingType = type;
  SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic;
  Attribute attr;
  OptionalParseResult parsed =
      generatedAttributeParser(parser, &mnemonic, type, attr);
  if (parsed.has_value())
    return attr;
  parser.emitError(loc) << "unknown attribute `" << mnemonic << "` in dialect `"
                        << getNamespace() << "`";
  return {};
}

void ShardDialect::printAttribute(Attribute attr,
                                  DialectAsmPrinter &printer) const {
  if (failed(generatedAttributePrinter(attr, printer)))
    llvm_unreachable("every shard attribute has a printer");
}

void ShardDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "shardc/Dialect/ShardAttrs.cpp.inc"
      >();
}

static ParseResult parseDeviceRef(AsmParser &parser, DeviceAttr &device) {
  std::optional<layout::Device> d = parseQuotedDevice(parser);
  if (!d)
    return failure();
  device = DeviceAttr::get(parser.getContext(), *d);
  return success();
}

static void printDeviceRef(AsmPrinter &printer, DeviceAttr device) {
  printer.printString(device.str());
}

static ParseResult parseMeshRef(AsmParser &parser, MeshAttr &mesh) {
  SMLoc loc = parser.getCurrentLocation();
  Attribute attr;
  if (parser.parseAttribute(attr))
    return failure();
  mesh = dyn_cast<MeshAttr>(attr);
  if (!mesh)
    return parser.emitError(loc) << "expected a #shard.mesh, got " << attr;
  return success();
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
  layout::Result<layout::Device> device =
      layout::parseDevice(std::string_view(text.data(), text.size()));
  if (!device) {
    emitError() << device.error();
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

//===----------------------------------------------------------------------===//
// ChunkSpecAttr
//===----------------------------------------------------------------------===//

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
    // Failure whatever the emitter (a silent one's empty diagnostic
    // converts to success).
    if (rank == 0)
      (void)(emitError() << "chunk dim " << getDim()
                         << " is out of range: a rank-0 tensor has no dims");
    else
      (void)(emitError() << "chunk dim " << getDim()
                         << " is out of range for a tensor of rank " << rank
                         << " (expected " << -rank << " <= dim < " << rank
                         << ")");
    return failure();
  }
  std::vector<layout::Device> devices;
  devices.reserve(getPlacements().size());
  for (DeviceAttr d : getPlacements())
    devices.push_back(d.getDevice());
  // A dynamic dim at its nominal extent (ShardedTensorType::getLayoutShape).
  blocks = layout::chunkBlocks(layoutShape(shape), *dim, devices);
  return success();
}

//===----------------------------------------------------------------------===//
// EnumerableSpecAttr
//===----------------------------------------------------------------------===//

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

LogicalResult
DevicePlacementSpecAttr::getBlocks(ArrayRef<int64_t> shape,
                                   function_ref<InFlightDiagnostic()> emitError,
                                   std::vector<layout::Block> &blocks) const {
  layout::Block b;
  b.box.offsets.assign(shape.size(), 0);
  b.box.sizes = layoutShape(shape);
  b.placement = getDevice().getDevice();
  blocks.assign(1, std::move(b));
  return success();
}

//===----------------------------------------------------------------------===//
// MeshAttr
//===----------------------------------------------------------------------===//

LogicalResult MeshAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> devices,
                               ArrayRef<StringAttr> axes,
                               layout::Device::Kind) {
  layout::Mesh mesh{{shape.begin(), shape.end()},
                    {devices.begin(), devices.end()}};
  layout::Result<void> problem = layout::checkMesh(mesh);
  if (!problem.ok())
    return emitError() << "invalid mesh: " << problem.error();
  if (!axes.empty() && axes.size() != shape.size())
    return emitError() << "invalid mesh: " << axes.size()
                       << " axis names for a mesh of rank " << shape.size();
  for (StringAttr a : axes)
    if (!llvm::json::isUTF8(a.getValue()))
      return emitError() << "invalid mesh: axis name " << a
                         << " is not valid UTF-8 (names travel in JSON)";
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
  std::vector<layout::Placement> placements(spec.getPlacements().begin(),
                                            spec.getPlacements().end());
  // Strided shards are checked on the sizes (static ones: a dynamic dim's
  // pieces are not known).
  layout::Result<void> problem =
      llvm::all_of(shape, [](int64_t s) { return s >= 0; })
          ? layout::checkPlacements(
                spec.getMesh().getMesh(), placements,
                std::vector<int64_t>(shape.begin(), shape.end()))
          : layout::checkPlacements(spec.getMesh().getMesh(), placements,
                                    static_cast<int64_t>(shape.size()));
  if (problem.ok())
    return success();
  // Failure whatever the emitter: a caller's silent one returns an empty
  // diagnostic, which converts to success.
  (void)(emitError() << problem.error());
  return failure();
}

LogicalResult
PlacementsSpecAttr::getBlocks(ArrayRef<int64_t> shape,
                              function_ref<InFlightDiagnostic()> emitError,
                              std::vector<layout::Block> &blocks) const {
  if (failed(checkPlacementsFor(*this, shape, emitError)))
    return failure();
  blocks = layout::meshBlocks(layoutShape(shape), getMesh().getMesh(),
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
      layoutShape(shape), getMesh().getMesh(),
      {getPlacements().begin(), getPlacements().end()}, getMesh().getKind());
  return success();
}

bool PlacementsSpecAttr::hasPartial() const {
  return llvm::any_of(getPlacements(), [](const layout::Placement &p) {
    return p.kind == layout::Placement::Kind::Partial;
  });
}

//===----------------------------------------------------------------------===//
// OpShardingAttr
//===----------------------------------------------------------------------===//

LogicalResult
OpShardingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       MeshAttr mesh, ArrayRef<int64_t> loops,
                       ArrayRef<int64_t> splits, ArrayAttr reads) {
  if (loops.size() != mesh.getShape().size())
    return emitError() << loops.size() << " loops for a mesh of rank "
                       << mesh.getShape().size()
                       << "; a sharding names one (or '-') per mesh axis";
  for (int64_t loop : loops)
    if (loop < -1)
      return emitError() << "a sharding's loop is d0, d1, ... or '-'; got "
                         << loop;
  if (!splits.empty() && splits.size() != loops.size())
    return emitError() << splits.size() << " splits for " << loops.size()
                       << " mesh axes; a sharding names one per axis";
  for (auto [loop, split] : llvm::zip(loops, splits))
    if (split < 1 || (split > 1 && loop < 0))
      return emitError() << "a strided cut splits a loop an axis cuts in 2 "
                            "or more groups; got "
                         << split
                         << (loop < 0 ? " on an axis that cuts none" : "");
  if (!reads)
    return success();
  for (Attribute read : reads)
    if (!isa<UnitAttr, ShardingSpecAttrInterface>(read))
      return emitError() << "a sharding reads each operand in a layout or "
                            "as its loops say ('unit'); got "
                         << read;
  if (llvm::all_of(reads, [](Attribute read) { return isa<UnitAttr>(read); }))
    return emitError() << "a sharding's reads name at least one layout "
                          "(leave reads out where every operand is read as "
                          "the loops say)";
  return success();
}
