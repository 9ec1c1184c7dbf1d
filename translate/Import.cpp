//===- Import.cpp - Sharded tensor metadata from JSON ---------------------===//
//
// Reads PyTorch's sharded tensor metadata (docs/json.md) with
// nlohmann_json. Reading never throws: parse errors are caught, and every
// value is type-checked before it is read. Spec checking is the verifier's
// (shardc::verifyBlocks and the attribute and type verifiers), so JSON input
// gets the same diagnostics as IR.
//
//===----------------------------------------------------------------------===//

#include "shardc/Translate/ShardedMetadata.h"

#include "JsonText.h"

#include "shardc/Dialect/ElementTypes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace shardc;
using Json = nlohmann::json;

//===----------------------------------------------------------------------===//
// PyTorch dtypes
//===----------------------------------------------------------------------===//

Type shardc::parseTorchDtype(StringRef name, MLIRContext *context) {
  const ElementTypeInfo *row = lookupTorchDtype(name);
  return row ? row->build(context) : Type();
}

StringRef shardc::getTorchDtypeName(Type type) {
  const ElementTypeInfo *row = lookupElementType(type);
  return row ? StringRef(row->torchName) : StringRef();
}

/// "float32 (float), float64 (double), ... or complex128": the PyTorch
/// names the importer knows, with their aliases.
static std::string torchDtypesText() {
  std::vector<std::string> names;
  llvm::StringSet<> seen;
  for (const ElementTypeInfo &row : elementTypes()) {
    if (row.torchName.empty() || !seen.insert(row.torchName).second)
      continue;
    names.push_back(row.torchName.str());
    if (!row.torchAlias.empty())
      names.back() += " (" + row.torchAlias.str() + ")";
  }
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {

/// Where a JSON value sits in the document, as messages name it:
/// "shards_metadata[2].shard_sizes[1]". Paths live on the stack while the
/// reader descends, and are only formatted for a message.
struct Path {
  const Path *parent = nullptr;
  /// A field name, or null for an array element.
  const char *key = nullptr;
  size_t index = 0;

  Path field(const char *name) const { return Path{this, name, 0}; }
  Path element(size_t i) const { return Path{this, nullptr, i}; }

  /// "" for the document itself.
  std::string str() const {
    std::string s;
    append(s);
    return s;
  }

private:
  void append(std::string &s) const {
    if (!parent)
      return;
    parent->append(s);
    if (key) {
      if (!s.empty())
        s += '.';
      s += key;
      return;
    }
    s += '[';
    s += std::to_string(index);
    s += ']';
  }
};

} // namespace

static std::string quote(const std::string &s) {
  return shardc::detail::quoteJson(s);
}

/// A value as messages show it: its type, and the value for scalars.
static std::string describe(const Json &v) {
  switch (v.type()) {
  case Json::value_t::string: {
    const std::string &s = v.get_ref<const std::string &>();
    if (s.size() <= 64)
      return "string " + quote(s);
    return "string " + quote(s.substr(0, 61)) + "...";
  }
  case Json::value_t::boolean:
    return v.get<bool>() ? "boolean true" : "boolean false";
  case Json::value_t::null:
    return "null";
  case Json::value_t::array:
    return "an array";
  case Json::value_t::object:
    return "an object";
  case Json::value_t::number_integer:
  case Json::value_t::number_unsigned:
  case Json::value_t::number_float:
    return v.dump();
  default:
    return v.type_name();
  }
}

namespace {

/// Reads a document into a sharded tensor type, emitting at `loc`.
class Reader {
public:
  Reader(MLIRContext *context, Location loc) : context(context), loc(loc) {}

  /// Frees the parts of `doc` it has read once they are no longer needed.
  FailureOr<ShardedTensorType> read(Json &doc);

private:
  /// An error about the value at `path`, which the message starts with.
  InFlightDiagnostic error(const Path &path) {
    InFlightDiagnostic diag = emitError(loc);
    std::string where = path.str();
    if (!where.empty())
      diag << where << ": ";
    return diag;
  }

  /// The field `name` of `object` (at `path`); null when it is missing
  /// (after an error "missing field" when `required`) or, when optional,
  /// null.
  const Json *getField(const Json &object, const Path &path, const char *name,
                       bool required);
  LogicalResult expectObject(const Json &v, const Path &path);
  LogicalResult readInt(const Json &v, const Path &path, int64_t &out,
                        bool nonNegative);
  LogicalResult readIntList(const Json &v, const Path &path,
                            std::vector<int64_t> &out, bool nonNegative);
  LogicalResult readString(const Json &v, const Path &path,
                           const std::string *&out);
  LogicalResult readDevice(const Json &v, const Path &path,
                           layout::Device &out);
  LogicalResult readBlocks(const Json &v, const Path &path,
                           std::vector<layout::Block> &blocks);
  LogicalResult readMeshIds(const Json &v, const Path &path,
                            ArrayRef<int64_t> shape, std::vector<int64_t> &ids);
  FailureOr<ShardedTensorType> readShardedTensor(Json &doc,
                                                 ArrayRef<int64_t> shape,
                                                 Type elementType,
                                                 const Json *spec);
  FailureOr<ShardedTensorType> readDTensor(const Json &doc,
                                           ArrayRef<int64_t> shape,
                                           Type elementType, const Json *spec);
  /// Checks that `listed` (shards_metadata) and `expected` (what `what`
  /// gives; `name(i)` names its block i) are the same blocks, in any order.
  LogicalResult checkConsistent(const std::vector<layout::Block> &listed,
                                const std::vector<layout::Block> &expected,
                                StringRef what,
                                function_ref<std::string(size_t)> name);

  MLIRContext *context;
  Location loc;
  Path root;
};

} // namespace

const Json *Reader::getField(const Json &object, const Path &path,
                             const char *name, bool required) {
  auto it = object.find(name);
  // A null optional field is absent; a null required one has a wrong type.
  if (it != object.end() && (required || !it->is_null()))
    return &*it;
  if (required)
    error(path) << "missing field '" << name << "'";
  return nullptr;
}

LogicalResult Reader::expectObject(const Json &v, const Path &path) {
  if (v.is_object())
    return success();
  return error(path) << "expected an object, got " << describe(v);
}

LogicalResult Reader::readInt(const Json &v, const Path &path, int64_t &out,
                              bool nonNegative) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(kMax))
      return error(path) << u << " is out of the int64 range";
    out = static_cast<int64_t>(u);
  } else if (v.is_number_integer()) {
    out = v.get<int64_t>();
  } else if (v.is_number_float()) {
    // Integers beyond uint64 parse as doubles; so do 1e30 and 1.5.
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::trunc(d) && (d >= 0x1p63 || d < -0x1p63))
      return error(path) << v.dump() << " is out of the int64 range";
    return error(path) << "expected an integer, got " << v.dump();
  } else {
    return error(path) << "expected an integer, got " << describe(v);
  }
  if (nonNegative && out < 0)
    return error(path) << "expected a non-negative integer, got " << out;
  return success();
}

LogicalResult Reader::readIntList(const Json &v, const Path &path,
                                  std::vector<int64_t> &out, bool nonNegative) {
  if (!v.is_array())
    return error(path) << "expected an array of integers, got " << describe(v);
  out.resize(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    if (failed(readInt(v[i], path.element(i), out[i], nonNegative)))
      return failure();
  return success();
}

LogicalResult Reader::readString(const Json &v, const Path &path,
                                 const std::string *&out) {
  if (!v.is_string())
    return error(path) << "expected a string, got " << describe(v);
  out = &v.get_ref<const std::string &>();
  return success();
}

LogicalResult Reader::readDevice(const Json &v, const Path &path,
                                 layout::Device &out) {
  const std::string *text;
  if (failed(readString(v, path, text)))
    return failure();
  layout::Result<layout::Device> device = layout::parseDevice(*text);
  if (!device)
    return error(path) << device.error();
  out = *device;
  return success();
}

LogicalResult Reader::readBlocks(const Json &v, const Path &path,
                                 std::vector<layout::Block> &blocks) {
  if (!v.is_array())
    return error(path) << "expected an array of shards, got " << describe(v);
  blocks.resize(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    Path shard = path.element(i);
    const Json &s = v[i];
    if (failed(expectObject(s, shard)))
      return failure();
    layout::Block &b = blocks[i];
    const Json *offsets = getField(s, shard, "shard_offsets", true);
    if (!offsets || failed(readIntList(*offsets, shard.field("shard_offsets"),
                                       b.box.offsets, /*nonNegative=*/true)))
      return failure();
    const Json *sizes = getField(s, shard, "shard_sizes", true);
    if (!sizes || failed(readIntList(*sizes, shard.field("shard_sizes"),
                                     b.box.sizes, /*nonNegative=*/true)))
      return failure();
    const Json *placement = getField(s, shard, "placement", true);
    if (!placement ||
        failed(readDevice(*placement, shard.field("placement"), b.placement)))
      return failure();
  }
  return success();
}

/// "[1][0]": the indices of row-major position `linear` in lists nested
/// with lengths `dims`.
static std::string nestedIndices(size_t linear, ArrayRef<size_t> dims) {
  std::string where;
  for (size_t a = dims.size(); a-- > 0;) {
    where.insert(0, "[" + std::to_string(linear % dims[a]) + "]");
    linear /= dims[a];
  }
  return where;
}

LogicalResult Reader::readMeshIds(const Json &v, const Path &path,
                                  ArrayRef<int64_t> shape,
                                  std::vector<int64_t> &ids) {
  if (!v.is_array() || v.empty())
    return error(path) << "expected a non-empty array of device ids, got "
                       << (v.is_array() ? "an empty array" : describe(v));
  // A flat list in row-major order, or DeviceMesh.mesh.tolist(): lists
  // nested as deep as the mesh's rank. Levels are flattened one at a time
  // (no recursion); the lists of a level must all have the same length.
  std::string name = path.str();
  std::vector<const Json *> level{&v};
  SmallVector<size_t> nested;
  while (level.front()->is_array()) {
    size_t length = level.front()->size();
    std::vector<const Json *> next;
    for (size_t i = 0; i < level.size(); ++i) {
      const Json &list = *level[i];
      if (list.is_array() && !list.empty() && list.size() == length) {
        for (const Json &e : list)
          next.push_back(&e);
        continue;
      }
      std::string where = name + nestedIndices(i, nested);
      InFlightDiagnostic diag = error(root.field(where.c_str()));
      diag << "expected ";
      if (length == 0)
        return diag << "a non-empty list of device ids";
      return diag << "a list of " << length
                  << " device ids, as the other lists at this depth, got "
                  << describe(list)
                  << (list.is_array()
                          ? " of length " + std::to_string(list.size())
                          : std::string());
    }
    nested.push_back(length);
    level = std::move(next);
  }
  if (nested.size() > 1 &&
      !std::equal(nested.begin(), nested.end(), shape.begin(), shape.end(),
                  [](size_t n, int64_t m) { return m >= 0 && n == size_t(m); }))
    return error(path) << "nested lists of shape "
                       << layout::formatList({nested.begin(), nested.end()})
                       << " do not match the mesh shape "
                       << layout::formatList({shape.begin(), shape.end()});
  ids.resize(level.size());
  for (size_t i = 0; i < level.size(); ++i) {
    if (level[i]->is_number_integer() &&
        (!level[i]->is_number_unsigned() ||
         level[i]->get<uint64_t>() <=
             uint64_t(std::numeric_limits<int64_t>::max()))) {
      ids[i] = level[i]->get<int64_t>();
      continue;
    }
    // Let readInt say what is wrong, at the element's own path.
    if (nested.size() <= 1)
      return readInt(*level[i], path.element(i), ids[i],
                     /*nonNegative=*/false);
    std::string where = name + nestedIndices(i, nested);
    return readInt(*level[i], root.field(where.c_str()), ids[i],
                   /*nonNegative=*/false);
  }
  return success();
}

LogicalResult
Reader::checkConsistent(const std::vector<layout::Block> &listed,
                        const std::vector<layout::Block> &expected,
                        StringRef what,
                        function_ref<std::string(size_t)> name) {
  Path shards = root.field("shards_metadata");
  if (listed.size() != expected.size())
    return error(shards) << "inconsistent with " << what << ": "
                         << listed.size() << " shards listed, "
                         << expected.size() << " expected from " << what;
  auto same = [](const layout::Block &a, const layout::Block &b) {
    return a.box == b.box && a.placement == b.placement;
  };
  bool inOrder = true;
  for (size_t i = 0; i < listed.size() && inOrder; ++i)
    inOrder = same(listed[i], expected[i]);
  if (inOrder)
    return success();
  // PyTorch does not fix the order of shards_metadata: compare sorted.
  auto less = [](const layout::Block &a, const layout::Block &b) {
    return std::tie(a.box.offsets, a.box.sizes, a.placement.rank,
                    a.placement.kind, a.placement.index) <
           std::tie(b.box.offsets, b.box.sizes, b.placement.rank,
                    b.placement.kind, b.placement.index);
  };
  auto sortedOrder = [&](const std::vector<layout::Block> &blocks) {
    std::vector<size_t> order(blocks.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return less(blocks[a], blocks[b]);
    });
    return order;
  };
  std::vector<size_t> l = sortedOrder(listed), e = sortedOrder(expected);
  for (size_t k = 0; k < l.size(); ++k) {
    const layout::Block &a = listed[l[k]], &b = expected[e[k]];
    if (same(a, b))
      continue;
    return error(shards.element(l[k]))
           << layout::formatBox(a.box) << " on \""
           << layout::formatDevice(a.placement) << "\" is inconsistent with "
           << what << ", whose " << name(e[k]) << " is "
           << layout::formatBox(b.box) << " on \""
           << layout::formatDevice(b.placement) << "\"";
  }
  return success();
}

FailureOr<ShardedTensorType> Reader::read(Json &doc) {
  if (!doc.is_object())
    return error(root) << "expected a JSON object at the top level, got "
                       << describe(doc);
  const Json *size = getField(doc, root, "size", true);
  std::vector<int64_t> shape;
  if (!size || failed(readIntList(*size, root.field("size"), shape,
                                  /*nonNegative=*/true)))
    return failure();

  Path propsPath = root.field("tensor_properties");
  const Json *props = getField(doc, root, "tensor_properties", true);
  if (!props || failed(expectObject(*props, propsPath)))
    return failure();
  const Json *dtype = getField(*props, propsPath, "dtype", true);
  const std::string *dtypeName;
  Path dtypePath = propsPath.field("dtype");
  if (!dtype || failed(readString(*dtype, dtypePath, dtypeName)))
    return failure();
  Type elementType = parseTorchDtype(*dtypeName, context);
  if (!elementType)
    return error(dtypePath)
           << "unknown dtype " << quote(*dtypeName) << "; expected "
           << torchDtypesText() << ", optionally with a \"torch.\" prefix";

  const Json *spec = getField(doc, root, "sharding_spec", false);
  if (spec) {
    Path specPath = root.field("sharding_spec");
    if (failed(expectObject(*spec, specPath)))
      return failure();
    const Json *type = getField(*spec, specPath, "type", true);
    const std::string *typeName;
    Path typePath = specPath.field("type");
    if (!type || failed(readString(*type, typePath, typeName)))
      return failure();
    if (*typeName != "chunk" && *typeName != "enumerable")
      return error(typePath) << "expected \"chunk\" or \"enumerable\", got "
                             << quote(*typeName);
  }
  if (getField(doc, root, "device_mesh", false) ||
      getField(doc, root, "placements", false))
    return readDTensor(doc, shape, elementType, spec);
  return readShardedTensor(doc, shape, elementType, spec);
}

FailureOr<ShardedTensorType> Reader::readShardedTensor(Json &doc,
                                                       ArrayRef<int64_t> shape,
                                                       Type elementType,
                                                       const Json *spec) {
  Path shardsPath = root.field("shards_metadata");
  const Json *shards = getField(doc, root, "shards_metadata", true);
  std::vector<layout::Block> blocks;
  if (!shards || failed(readBlocks(*shards, shardsPath, blocks)))
    return failure();
  // Read: the shards' JSON (most of the document) is freed before the type
  // is built and verified, which keeps the peak memory of large imports
  // down.
  doc.erase("shards_metadata");
  auto shardsError = [&] { return error(shardsPath); };

  if (!spec || spec->at("type") == "enumerable") {
    SmallVector<BlockAttr> attrs;
    attrs.reserve(blocks.size());
    for (const layout::Block &b : blocks)
      attrs.push_back(BlockAttr::get(context, b.box.offsets, b.box.sizes,
                                     DeviceAttr::get(context, b.placement)));
    std::vector<layout::Block>().swap(blocks); // in the attributes now
    ShardedTensorType type = ShardedTensorType::getChecked(
        shardsError, context, shape, elementType,
        ShardingSpecAttrInterface(EnumerableSpecAttr::get(context, attrs)));
    if (!type)
      return failure();
    return type;
  }

  // A chunk spec: it must give exactly the listed shards.
  Path specPath = root.field("sharding_spec");
  auto specError = [&] { return error(specPath); };
  const Json *dim = getField(*spec, specPath, "dim", true);
  int64_t dimValue;
  if (!dim || failed(readInt(*dim, specPath.field("dim"), dimValue,
                             /*nonNegative=*/false)))
    return failure();
  Path placementsPath = specPath.field("placements");
  const Json *placements = getField(*spec, specPath, "placements", true);
  if (!placements)
    return failure();
  if (!placements->is_array())
    return error(placementsPath)
           << "expected an array of devices, got " << describe(*placements);
  SmallVector<DeviceAttr> devices;
  devices.reserve(placements->size());
  for (size_t i = 0; i < placements->size(); ++i) {
    layout::Device d;
    if (failed(readDevice((*placements)[i], placementsPath.element(i), d)))
      return failure();
    devices.push_back(DeviceAttr::get(context, d));
  }
  auto chunk = ChunkSpecAttr::getChecked(specError, context, dimValue,
                                         ArrayRef<DeviceAttr>(devices));
  if (!chunk)
    return failure();
  // PyTorch 1.x's ChunkShardingSpec.build_metadata leaves out the chunks of
  // size 0 along the dim (2.x lists them at offset split*i): a list of
  // exactly the others means the same spec. Of a dim of size 0 it lists
  // none.
  std::optional<int64_t> dimIndex =
      layout::normalizeDim(dimValue, shape.size());
  const bool noneListed = blocks.empty() && dimIndex && shape[*dimIndex] == 0;
  // The listed shards first, so that their problems are named as such.
  if (!noneListed && failed(verifyBlocks(shape, blocks, shardsError)))
    return failure();
  std::vector<layout::Block> expected;
  if (failed(cast<ShardingSpecAttrInterface>(chunk).getBlocks(shape, specError,
                                                              expected)))
    return failure();
  int64_t normalized = *dimIndex;
  auto isEmpty = [&](const layout::Block &b) {
    return b.box.sizes[normalized] == 0;
  };
  std::vector<size_t> chunkIndex(expected.size());
  std::iota(chunkIndex.begin(), chunkIndex.end(), 0);
  if (noneListed) {
    expected.clear();
    chunkIndex.clear();
  } else if (blocks.size() < expected.size() &&
             llvm::none_of(blocks, isEmpty)) {
    std::vector<layout::Block> nonEmpty;
    std::vector<size_t> nonEmptyIndex;
    for (size_t i = 0; i < expected.size(); ++i) {
      if (isEmpty(expected[i]))
        continue;
      nonEmpty.push_back(expected[i]);
      nonEmptyIndex.push_back(i);
    }
    if (nonEmpty.size() == blocks.size()) {
      expected = std::move(nonEmpty);
      chunkIndex = std::move(nonEmptyIndex);
    }
  }
  if (failed(checkConsistent(blocks, expected, "sharding_spec", [&](size_t i) {
        return "chunk " + std::to_string(chunkIndex[i]) + " of dim " +
               std::to_string(normalized);
      })))
    return failure();
  ShardedTensorType type = ShardedTensorType::getChecked(
      specError, context, shape, elementType, ShardingSpecAttrInterface(chunk));
  if (!type)
    return failure();
  return type;
}

FailureOr<ShardedTensorType> Reader::readDTensor(const Json &doc,
                                                 ArrayRef<int64_t> shape,
                                                 Type elementType,
                                                 const Json *spec) {
  if (spec && spec->at("type") == "chunk")
    return error(root.field("sharding_spec").field("type"))
           << "a \"chunk\" spec cannot be combined with \"device_mesh\" and "
              "\"placements\"; expected \"enumerable\" or no sharding_spec";

  Path meshPath = root.field("device_mesh");
  const Json *meshJson = getField(doc, root, "device_mesh", true);
  if (!meshJson || failed(expectObject(*meshJson, meshPath)))
    return failure();
  const Json *meshShapeJson = getField(*meshJson, meshPath, "shape", true);
  std::vector<int64_t> meshShape;
  if (!meshShapeJson ||
      failed(readIntList(*meshShapeJson, meshPath.field("shape"), meshShape,
                         /*nonNegative=*/false)))
    return failure();
  std::vector<int64_t> ids;
  if (const Json *idsJson = getField(*meshJson, meshPath, "mesh", false))
    if (failed(readMeshIds(*idsJson, meshPath.field("mesh"), meshShape, ids)))
      return failure();
  auto kind = layout::Device::Kind::CPU;
  if (const Json *typeJson =
          getField(*meshJson, meshPath, "device_type", false)) {
    const std::string *type;
    Path typePath = meshPath.field("device_type");
    if (failed(readString(*typeJson, typePath, type)))
      return failure();
    if (*type == "cuda")
      kind = layout::Device::Kind::CUDA;
    else if (*type != "cpu")
      return error(typePath)
             << "expected \"cpu\" or \"cuda\", got " << quote(*type);
  }
  SmallVector<StringAttr> axes;
  if (const Json *namesJson =
          getField(*meshJson, meshPath, "mesh_dim_names", false)) {
    Path namesPath = meshPath.field("mesh_dim_names");
    if (!namesJson->is_array())
      return error(namesPath)
             << "expected an array of strings, got " << describe(*namesJson);
    for (size_t i = 0; i < namesJson->size(); ++i) {
      const std::string *name;
      if (failed(readString((*namesJson)[i], namesPath.element(i), name)))
        return failure();
      axes.push_back(StringAttr::get(context, *name));
    }
  }
  auto mesh = MeshAttr::getChecked(
      [&] { return error(meshPath); }, context, ArrayRef<int64_t>(meshShape),
      ArrayRef<int64_t>(ids), ArrayRef<StringAttr>(axes), kind);
  if (!mesh)
    return failure();

  Path placementsPath = root.field("placements");
  const Json *placementsJson = getField(doc, root, "placements", true);
  if (!placementsJson)
    return failure();
  if (!placementsJson->is_array())
    return error(placementsPath) << "expected an array of placements, got "
                                 << describe(*placementsJson);
  SmallVector<layout::Placement> placements;
  // A strided shard here is DTensor's _StridedShard ("_S(0, 2)", or its
  // repr "_StridedShard(dim=0, sf=2)"): shardc's, cut for cut.
  for (size_t i = 0; i < placementsJson->size(); ++i) {
    const std::string *text;
    Path p = placementsPath.element(i);
    if (failed(readString((*placementsJson)[i], p, text)))
      return failure();
    layout::Result<layout::Placement> placement = layout::parsePlacement(*text);
    if (!placement)
      return error(p) << placement.error();
    placements.push_back(*placement);
  }
  auto placementsError = [&] { return error(placementsPath); };
  auto dtensor = PlacementsSpecAttr::getChecked(
      placementsError, context, mesh, ArrayRef<layout::Placement>(placements));
  if (!dtensor)
    return failure();
  ShardedTensorType type = ShardedTensorType::getChecked(
      placementsError, context, shape, elementType,
      ShardingSpecAttrInterface(dtensor));
  if (!type)
    return failure();

  // shards_metadata, as export writes it beside the DTensor fields, must be
  // the blocks the placements give.
  if (const Json *shards = getField(doc, root, "shards_metadata", false)) {
    std::vector<layout::Block> blocks;
    if (failed(readBlocks(*shards, root.field("shards_metadata"), blocks)) ||
        failed(checkConsistent(
            blocks, type.getBlocks(), "device_mesh and placements",
            [](size_t i) { return "block " + std::to_string(i); })))
      return failure();
  }
  return type;
}

/// The line and column (1-based) of byte `offset` of `text`.
static std::pair<unsigned, unsigned> lineAndColumn(StringRef text,
                                                   size_t offset) {
  offset = std::min(offset, text.size());
  StringRef before = text.take_front(offset);
  unsigned line = 1 + before.count('\n');
  size_t lineStart = before.rfind('\n');
  unsigned column =
      offset - (lineStart == StringRef::npos ? 0 : lineStart + 1) + 1;
  return {line, column};
}

/// An nlohmann_json message without its "[json.exception.parse_error.101] ",
/// and with the bytes it quotes from the input that are not ASCII written as
/// "\xFF" (they may not be valid UTF-8).
static std::string withoutExceptionId(StringRef what) {
  size_t bracket = what.find("] ");
  if (what.starts_with("[json.exception.") && bracket != StringRef::npos)
    what = what.drop_front(bracket + 2);
  std::string message;
  llvm::raw_string_ostream os(message);
  for (char c : what) {
    if (static_cast<unsigned char>(c) < 0x80)
      os << c;
    else
      os << "\\x"
         << llvm::format_hex_no_prefix(static_cast<unsigned char>(c), 2,
                                       /*Upper=*/true);
  }
  return message;
}

FailureOr<ShardedTensorType>
shardc::importShardedMetadata(StringRef json, StringRef fileName,
                              MLIRContext *context) {
  context->getOrLoadDialect<ShardDialect>();
  Location loc = FileLineColLoc::get(context, fileName, 0, 0);
  try {
    Json doc;
    try {
      doc = Json::parse(json.begin(), json.end());
    } catch (const Json::parse_error &e) {
      // e.byte counts the characters read, the offending one included.
      auto [line, column] = lineAndColumn(json, e.byte > 0 ? e.byte - 1 : 0);
      emitError(FileLineColLoc::get(context, fileName, line, column))
          << "invalid JSON: " << withoutExceptionId(e.what());
      return failure();
    } catch (const Json::exception &e) {
      // A number beyond double's range ("1e999") is out_of_range.406.
      emitError(loc) << "invalid JSON: " << withoutExceptionId(e.what());
      return failure();
    }
    return Reader(context, loc).read(doc);
  } catch (const std::exception &e) {
    // Not expected: every value is type-checked before it is read.
    emitError(loc) << "cannot read the metadata: " << e.what();
    return failure();
  }
}

OwningOpRef<ModuleOp>
shardc::importShardedMetadataModule(StringRef json, StringRef fileName,
                                    MLIRContext *context) {
  context->getOrLoadDialect<func::FuncDialect>();
  FailureOr<ShardedTensorType> type =
      importShardedMetadata(json, fileName, context);
  if (failed(type))
    return {};
  Location loc = FileLineColLoc::get(context, fileName, 1, 1);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
  auto fn = func::FuncOp::create(
      builder, loc, "sharded_tensor",
      builder.getFunctionType(TypeRange{*type}, TypeRange{}));
  builder.setInsertionPointToEnd(fn.addEntryBlock());
  func::ReturnOp::create(builder, loc);
  return module;
}
