//===- ShardcModule.cpp - shardc's Python module (_shardc) ---------------===//
//
// The C++ half of the `shardc` Python package: layouts read from the JSON
// the tools read (docs/json.md) through the translation library, checked
// as shard-translate checks them, and planned, costed and drawn through the
// planning library, as shard-plan does. No MLIR Python bindings: one MLIR
// context lives inside the module. Every error arrives as a
// shardc.ShardcError (a ValueError) carrying the message the tools print;
// nothing here aborts the interpreter. The Python half (shardc/__init__.py)
// reads PyTorch's objects by attribute and DTensor-style placements into
// that JSON.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/ElementTypes.h"
#include "shardc/Dialect/Shard.h"
#include "shardc/Passes/Passes.h"
#include "shardc/Passes/RuntimeCalls.h"
#include "shardc/Planning/CostModel.h"
#include "shardc/Planning/Describe.h"

#include "shardc/Planning/ShardPlanner.h"
#include "shardc/Translate/ShardedMetadata.h"
#include "shardrt.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <mpi.h>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace mlir;
using namespace shardc;

namespace {

/// shardc.ShardcError: what the tools would print, as an exception.
struct ShardcError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The module's one MLIR context: the shard and func dialects, no threads.
MLIRContext &context() {
  static MLIRContext *ctx = [] {
    auto *c = new MLIRContext(MLIRContext::Threading::DISABLED);
    c->loadDialect<ShardDialect, func::FuncDialect>();
    c->printOpOnDiagnostic(false);
    return c;
  }();
  return *ctx;
}

/// Collects the diagnostics emitted while it lives, as the tools print
/// them: "NAME: error: message" for a whole file (the importer's), the
/// message with its severity otherwise.
class Collect {
public:
  /// With `onlyWholeFile`, other diagnostics go to the handler below.
  explicit Collect(bool onlyWholeFile = false)
      : handler(&context(), [this, onlyWholeFile](Diagnostic &diag) {
          if (std::optional<std::string> text =
                  formatWholeFileDiagnostic(diag)) {
            messages += *text;
            return success();
          }
          if (onlyWholeFile)
            return failure();
          messages += diag.str() + "\n";
          for (const Diagnostic &note : diag.getNotes())
            messages += "note: " + note.str() + "\n";
          return success();
        }) {}
  /// What was collected.
  const std::string &text() const { return messages; }
  /// Throws ShardcError with what was collected (or `fallback`).
  [[noreturn]] void raise(const std::string &fallback) {
    std::string text = messages.empty() ? fallback : messages;
    while (!text.empty() && text.back() == '\n')
      text.pop_back();
    throw ShardcError(text);
  }

private:
  std::string messages;
  ScopedDiagnosticHandler handler;
};

/// A layout of one tensor: its shape, dtype and blocks (a sharded tensor
/// type).
struct Layout {
  ShardedTensorType type;
};

Layout fromJson(const std::string &json, const std::string &name) {
  // Errors at a line of the text (a JSON syntax error) as the tools print
  // them, the line shown: the source manager's handler, under Collect's.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(json, name),
                               llvm::SMLoc());
  std::string located;
  llvm::raw_string_ostream locatedOs(located);
  SourceMgrDiagnosticHandler lines(sourceMgr, &context(), locatedOs);
  FailureOr<ShardedTensorType> type = failure();
  std::string whole;
  {
    Collect collect(/*onlyWholeFile=*/true);
    type = importShardedMetadata(json, name, &context());
    if (failed(type))
      whole = collect.text();
  }
  if (failed(type)) {
    std::string text = located + whole;
    while (!text.empty() && text.back() == '\n')
      text.pop_back();
    throw ShardcError(text.empty() ? name + ": error: not a layout" : text);
  }
  return Layout{*type};
}

std::string toJson(const Layout &layout) {
  Collect collect;
  std::string text;
  llvm::raw_string_ostream os(text);
  if (failed(
          exportShardedMetadata(layout.type, os, UnknownLoc::get(&context()))))
    collect.raise("cannot write this layout as JSON");
  return text;
}

std::vector<int64_t> shapeOf(const Layout &layout) {
  return {layout.type.getDims().begin(), layout.type.getDims().end()};
}

std::string dtypeOf(const Layout &layout) {
  return getTorchDtypeName(layout.type.getElementType()).str();
}

/// Blocks as PyTorch's ShardMetadata lists them: shard_offsets,
/// shard_sizes, placement.
py::list shardsMetadata(llvm::ArrayRef<layout::Block> blocks) {
  py::list out;
  for (const layout::Block &b : blocks) {
    py::dict block;
    block["shard_offsets"] = b.box.offsets;
    block["shard_sizes"] = b.box.sizes;
    block["placement"] = layout::formatDevice(b.placement);
    out.append(block);
  }
  return out;
}

/// The distinct blocks of a layout.
py::list blocksOf(const Layout &layout) {
  return shardsMetadata(layout.type.getBlocks());
}

/// Infers a chunk spec where PyTorch would (and, with `blocksToMesh`, Shard
/// placements on a mesh; with `meshToBlocks`, the other way), by running
/// -shard-infer-chunk-spec itself on a function that takes the layout.
Layout inferChunkSpecOf(const Layout &layout, bool blocksToMesh,
                        bool meshToBlocks) {
  MLIRContext *ctx = &context();
  Location loc = UnknownLoc::get(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
  auto fn = func::FuncOp::create(
      builder, loc, "sharded_tensor",
      builder.getFunctionType(TypeRange{layout.type}, TypeRange{}));
  builder.setInsertionPointToEnd(fn.addEntryBlock());
  func::ReturnOp::create(builder, loc);
  PassManager pm(ctx);
  ShardInferChunkSpecOptions options;
  options.blocksToMesh = blocksToMesh;
  options.meshToBlocks = meshToBlocks;
  pm.addPass(createShardInferChunkSpec(options));
  Collect collect;
  if (failed(pm.run(*module)))
    collect.raise("-shard-infer-chunk-spec failed");
  auto out = dyn_cast<ShardedTensorType>(
      cast<func::FuncOp>(module->getBody()->front()).getArgumentTypes()[0]);
  if (!out)
    throw ShardcError("-shard-infer-chunk-spec gave no sharded tensor type");
  return Layout{out};
}

std::string gridOf(const Layout &layout) {
  std::string text;
  for (const std::string &line : planning::drawLayout(layout.type))
    text += line + "\n";
  return text;
}

/// The cost model (the options every pass and shard-plan take).
using Options = planning::PlanningOptions;

/// The cost model Python's keywords give (link="infiniband", alpha_us=3,
/// world_size=4, ...: the planning library's table, '_' for '-'). None is
/// an option's default; a number or a string is its text, which the table
/// parses. Raises ShardcError naming the option for anything else.
Options optionsFrom(const py::kwargs &keywords) {
  Options o;
  for (const auto &[key, value] : keywords) {
    std::string name = py::str(key);
    std::string text;
    if (value.is_none())
      text = "";
    else if (py::isinstance<py::bool_>(value))
      throw ShardcError(name + ": expected a number or a string, got a bool");
    else if (py::isinstance<py::int_>(value) ||
             py::isinstance<py::float_>(value) ||
             py::isinstance<py::str>(value))
      text = py::str(value);
    else
      throw ShardcError(
          name + ": expected a number or a string, got " +
          std::string(py::str(py::type::of(value).attr("__name__"))));
    if (std::string problem = planning::setCostModelOption(o, name, text);
        !problem.empty())
      throw ShardcError(problem);
  }
  return o;
}

/// How many option sets keep a planner, and how many plans a planner
/// caches before it starts afresh: the module's memory stays bounded
/// however many distinct pairs and options a long run asks about.
constexpr size_t kPlannersKept = 16;
constexpr size_t kPlansCached = 4096;

/// A planner per set of options (the kPlannersKept last used): its plans
/// are cached, so that cost() of a pair asked again is a lookup.
planning::ShardPlanner &plannerFor(const Options &o) {
  static std::map<std::string, std::unique_ptr<planning::ShardPlanner>>
      planners;
  // Option sets by last use, most recent last.
  static std::vector<std::string> used;
  const std::string key = planning::costModelOptionsText(o);
  used.erase(std::remove(used.begin(), used.end(), key), used.end());
  used.push_back(key);
  if (used.size() > kPlannersKept) {
    planners.erase(used.front());
    used.erase(used.begin());
  }
  std::unique_ptr<planning::ShardPlanner> &slot = planners[key];
  if (slot && slot->cachedEntries() > kPlansCached)
    slot.reset();
  if (!slot) {
    Collect collect;
    slot = planning::ShardPlanner::create(
        o, [] { return emitError(UnknownLoc::get(&context())); });
    if (!slot) {
      planners.erase(key);
      used.pop_back();
      collect.raise("invalid planning options");
    }
  }
  return *slot;
}

/// Checks that a value can move from `a` to `b`, as shard-plan and the
/// pass check it (the planning library's decideMove included), with their
/// messages; returns that decision.
planning::MoveDecision checkMove(const Layout &a, const Layout &b) {
  if (a.type.getDims() != b.type.getDims() ||
      a.type.getElementType() != b.type.getElementType())
    throw ShardcError("the layouts are of different tensors: " +
                      planning::tensorText(a.type) + " and " +
                      planning::tensorText(b.type) +
                      "; a redistribution keeps the shape and the dtype");
  for (const Layout *l : {&a, &b}) {
    Collect collect;
    if (failed(verifyPlannable(l->type, [] {
          return emitError(UnknownLoc::get(&context()))
                 << "cannot plan this layout: ";
        })))
      collect.raise("cannot plan this layout");
  }
  Collect collect;
  FailureOr<planning::MoveDecision> decision = planning::decideMove(
      a.type, b.type, [] { return emitError(UnknownLoc::get(&context())); });
  if (failed(decision))
    collect.raise("cannot plan this redistribution");
  return *decision;
}

/// Checks that `a` -> `b` can be planned, as shard-plan checks it.
void checkPair(const Layout &a, const Layout &b, const Options &o) {
  checkMove(a, b);
  // The world, when given, holds every rank the layouts name.
  int64_t largest = -1;
  for (const Layout *l : {&a, &b})
    for (const layout::Block &block : l->type.getDeviceBlocks())
      largest = std::max(largest, block.placement.rank);
  if (o.worldSize > 0 && largest >= o.worldSize)
    throw ShardcError("world-size " +
                      layout::checkWorldSize(o.worldSize, largest).error());
}

/// A plan's summary, as shard-plan's report gives it, and its words.
py::dict planOf(const Layout &a, const Layout &b, const Options &o) {
  planning::ShardPlanner &planner = plannerFor(o);
  checkPair(a, b, o);
  const planning::PlanSummary &summary = planner.cost(a.type, b.type);
  if (summary.overflow)
    throw ShardcError("the plan's byte counts do not fit int64");
  const planning::PlanChoice &choice = planner.choose(a.type, b.type);
  const planning::Plan &best = choice.best();
  const int64_t elementBytes = shardc::elementBytes(a.type.getElementType());
  py::list steps;
  for (size_t i = 0; i < summary.steps.size(); ++i) {
    const planning::StepSummary &s = summary.steps[i];
    py::dict step;
    step["kind"] = s.kind;
    step["group"] = s.group;
    step["received"] = s.received;
    step["others_receive"] = s.other;
    std::map<int, int64_t> sent;
    if (i < best.steps.size())
      for (int r = 0; r < static_cast<int>(summary.ranks); ++r)
        if (int64_t n = best.steps[i].trafficOf(r).sent; n > 0)
          sent[r] = n * elementBytes;
    step["sent"] = sent;
    steps.append(step);
  }
  py::list candidates;
  for (const planning::CandidateSummary &c : summary.candidates) {
    py::dict candidate;
    candidate["name"] = c.name;
    candidate["steps"] = c.steps;
    candidate["bytes_received"] =
        c.bytesReceivedTotal ? py::cast(*c.bytesReceivedTotal) : py::none();
    candidate["modelled_us"] = c.modelledUs;
    candidates.append(candidate);
  }
  std::string words;
  llvm::raw_string_ostream os(words);
  planning::WordsOptions options;
  options.ranks = summary.ranks;
  options.costModel = planning::costModelText(o, planner.topology(), "--");
  planning::printPlan(os, planner, a.type, b.type, options);
  py::dict out;
  out["plan"] = summary.plan.empty() ? best.name : summary.plan;
  out["ranks"] = summary.ranks;
  out["steps"] = steps;
  out["bytes_received"] = summary.bytesReceivedTotal;
  out["bytes_received_max_rank"] = summary.bytesReceivedMaxRank;
  out["lower_bound"] = summary.lowerBoundTotal;
  out["lower_bound_max_rank"] = summary.lowerBoundMaxRank;
  out["at_lower_bound"] = summary.atLowerBound();
  out["modelled_us"] = summary.modelledUs;
  out["candidates"] = candidates;
  // The local step after the moves where `b` keeps partial values (None
  // otherwise), in words.
  out["partial_copies"] = summary.partialCopies.empty()
                              ? py::object(py::none())
                              : py::cast(summary.partialCopies);
  out["text"] = words;
  return out;
}

double costOf(const Layout &a, const Layout &b, const Options &o) {
  planning::ShardPlanner &planner = plannerFor(o);
  checkPair(a, b, o);
  return planner.cost(a.type, b.type).modelledUs;
}

std::string showOf(const Layout &a, const Layout &b) {
  std::string text;
  llvm::raw_string_ostream os(text);
  planning::printLayouts(os, a.type, b.type);
  return text;
}

/// The blocks of PyTorch's ChunkShardingSpec (placement i holds chunk i of
/// dim, torch.chunk's cut), as shards_metadata lists them, from the layout
/// library's arithmetic.
py::list chunkShards(const std::vector<int64_t> &shape, int64_t dim,
                     const std::vector<std::string> &placements) {
  std::optional<int64_t> d =
      layout::normalizeDim(dim, static_cast<int64_t>(shape.size()));
  if (!d)
    throw ShardcError("sharding_spec.dim " + std::to_string(dim) +
                      " is out of range for a tensor of rank " +
                      std::to_string(shape.size()));
  for (int64_t n : shape)
    if (n < 0)
      throw ShardcError("size " + layout::formatList(shape) +
                        " has a negative dim");
  std::vector<layout::Device> devices;
  for (const std::string &p : placements) {
    layout::Result<layout::Device> device = layout::parseDevice(p);
    if (!device)
      throw ShardcError("sharding_spec.placements: " + device.error());
    devices.push_back(*device);
  }
  return shardsMetadata(layout::chunkBlocks(shape, *d, devices));
}

/// The runtime's dtype code of a layout's element type and its NumPy
/// dtype (PyTorch's dtype name, which is NumPy's for the types both have),
/// from the one table of element types (bfloat16, which NumPy lacks, as
/// uint16 bit patterns); ShardcError where the runtime has no such type.
std::pair<int32_t, py::dtype> runtimeTypeOf(ShardedTensorType type) {
  const ElementTypeInfo *info = lookupElementType(type.getElementType());
  if (!info || !info->hasRuntime() || info->torchName.empty())
    throw ShardcError("redistribute: the runtime moves " +
                      runtimeElementTypesText() + ", not " +
                      planning::tensorText(type));
  try {
    return {info->runtimeDtype, py::dtype(info->torchName.str())};
  } catch (const py::error_already_set &) {
    // bfloat16, which NumPy lacks: its bits in uint16 arrays (from torch,
    // t.view(torch.uint16).numpy()); the runtime reduces them as bf16.
    if (type.getElementType().isIntOrFloat() &&
        type.getElementType().getIntOrFloatBitWidth() == 16)
      return {info->runtimeDtype, py::dtype("uint16")};
    throw ShardcError("redistribute: NumPy has no " + info->torchName.str() +
                      " type for the blocks of " + planning::tensorText(type));
  }
}

/// This rank's blocks of `type` (rows of its device table it owns), in
/// table order, and the table.
struct Owned {
  std::vector<int64_t> table;
  std::vector<std::vector<int64_t>> sizes;
  int64_t rows = 0;
};
Owned ownedBlocks(ShardedTensorType type, int rank) {
  Owned out;
  out.table = deviceTableRows(type);
  const size_t columns = 1 + 2 * type.getDims().size();
  out.rows = static_cast<int64_t>(out.table.size() / columns);
  for (int64_t r = 0; r < out.rows; ++r) {
    const int64_t *row = out.table.data() + r * columns;
    if (row[0] == rank)
      out.sizes.emplace_back(row + 1 + type.getDims().size(), row + columns);
  }
  return out;
}

/// Fails a redistribution this rank cannot take part in (`problem`) on every
/// rank at once: it goes to the runtime with an invalid dtype, which the
/// ranks learn of when they agree on their arguments, before any data
/// moves, so that each of the others fails naming this rank instead of
/// waiting for it. Raises `problem` here.
[[noreturn]] void refuseOnEveryRank(const std::string &problem) {
  if (shardrt_init() == SHARDRT_SUCCESS) {
    py::gil_scoped_release release;
    (void)shardrt_redistribute_packed(nullptr, nullptr, /*dtype=*/-1,
                                      SHARDRT_DEVICE_CPU, /*tensor_rank=*/0,
                                      nullptr, 0, nullptr, 0);
  }
  throw ShardcError(problem);
}

/// Moves this rank's blocks of `a` (NumPy arrays, one per block it owns,
/// in the order of a's device blocks) to layout `b`, through the runtime
/// (shardrt_redistribute_packed, or _reduce_packed from Partial values):
/// every rank of the MPI world calls it alike. Returns the blocks of `b`
/// this rank owns, in order.
py::list redistributeBlocks(const py::list &local, const Layout &a,
                            const Layout &b) {
  if (shardrt_init() != SHARDRT_SUCCESS)
    throw ShardcError(std::string("redistribute: cannot start MPI: ") +
                      shardrt_last_error());
  const int rank = shardrt_rank();
  Owned from = ownedBlocks(a.type, rank), to = ownedBlocks(b.type, rank);
  const int64_t itemBytes = elementBytes(a.type.getElementType());
  const int64_t tensorRank = static_cast<int64_t>(a.type.getDims().size());
  // What this rank was given, checked; a problem found here alone must not
  // leave the other ranks waiting in the collective: the call below then
  // goes to the runtime with an invalid dtype, which fails it on every
  // rank (the ranks agree on their arguments before data moves), and this
  // rank raises its own message.
  int32_t dtype = -1;
  std::vector<char> src, dst;
  std::string problem;
  std::optional<planning::MoveDecision> decision;
  try {
    // What plan() and shard-plan refuse, this refuses, with their message.
    try {
      decision = checkMove(a, b);
    } catch (const ShardcError &e) {
      throw ShardcError(std::string("redistribute: ") + e.what());
    }
    if (py::len(local) != from.sizes.size())
      throw ShardcError("redistribute: rank " + std::to_string(rank) +
                        " owns " + std::to_string(from.sizes.size()) +
                        " blocks of the source layout but was given " +
                        std::to_string(py::len(local)));
    // The layout's dtype, then each block against it, packed in table
    // order.
    auto [code, numpyType] = runtimeTypeOf(a.type);
    dtype = code;
    if (lookupElementType(a.type.getElementType())->bytesOnly &&
        a.type.getSpec().hasPartial() && a.type != b.type)
      throw ShardcError("redistribute: cannot reduce the partial values of " +
                        planning::tensorText(a.type) +
                        ": the runtime moves them as bytes and does not "
                        "reduce them");
    for (size_t i = 0; i < from.sizes.size(); ++i) {
      py::array block = py::array::ensure(local[i]);
      if (!block)
        throw ShardcError("redistribute: block " + std::to_string(i) +
                          " is not an array");
      if (!block.dtype().is(numpyType)) {
        std::string holds = std::string(py::str(py::handle(numpyType)));
        if (holds == "uint16" && !a.type.getElementType().isInteger(16))
          holds = "bfloat16 (as uint16 bits: t.view(torch.uint16))";
        throw ShardcError("redistribute: the layout holds " + holds +
                          " but block " + std::to_string(i) + " is " +
                          std::string(py::str(py::handle(block.dtype()))));
      }
      std::vector<int64_t> shape(block.shape(), block.shape() + block.ndim());
      if (shape != from.sizes[i])
        throw ShardcError("redistribute: rank " + std::to_string(rank) +
                          "'s block " + std::to_string(i) + " has shape " +
                          layout::formatList(shape) +
                          " but the source layout's block there is " +
                          layout::formatList(from.sizes[i]));
      py::array contiguous =
          py::array::ensure(block, py::array::c_style | py::array::forcecast);
      const char *data = static_cast<const char *>(contiguous.data());
      src.insert(src.end(), data, data + contiguous.nbytes());
    }
  } catch (const ShardcError &e) {
    problem = e.what();
  }
  if (!problem.empty())
    refuseOnEveryRank(problem);
  int64_t dstElements = 0;
  for (const std::vector<int64_t> &sizes : to.sizes) {
    int64_t n = 1;
    for (int64_t d : sizes)
      n *= d;
    dstElements += n;
  }
  dst.assign(static_cast<size_t>(dstElements * itemBytes), 0);
  const int32_t device = SHARDRT_DEVICE_CPU;
  int status = SHARDRT_SUCCESS;
  auto placements = dyn_cast<PlacementsSpecAttr>(a.type.getSpec());
  {
    py::gil_scoped_release release;
    // A Partial source is reduced into b (the planner's ReduceExchange)
    // unless it stays as it is: then nothing moves.
    if (placements && placements.hasPartial() && a.type != b.type) {
      std::vector<layout::Placement> ps(placements.getPlacements().begin(),
                                        placements.getPlacements().end());
      bool mixed = false;
      std::optional<layout::Placement::Reduce> op =
          layout::partialReduce(ps, mixed);
      if (mixed) {
        status = -1;
      } else {
        // One index per row of the table: per block, not per device (a
        // strided shard gives a device several).
        std::vector<int64_t> partial = layout::meshBlockPartialIndices(
            a.type.getLayoutShape(), placements.getMesh().getMesh(), ps);
        status = shardrt_redistribute_reduce_packed(
            src.empty() ? nullptr : src.data(),
            dst.empty() ? nullptr : dst.data(), dtype, device, tensorRank,
            from.table.data(), from.rows, partial.data(), to.table.data(),
            to.rows, static_cast<int32_t>(*op));
      }
    } else {
      status = shardrt_redistribute_packed(
          src.empty() ? nullptr : src.data(),
          dst.empty() ? nullptr : dst.data(), dtype, device, tensorRank,
          from.table.data(), from.rows, to.table.data(), to.rows);
    }
  }
  if (status == -1)
    throw ShardcError("redistribute: the Partial axes reduce differently");
  if (status != SHARDRT_SUCCESS)
    throw ShardcError(std::string("redistribute: ") + shardrt_last_error());
  // The runtime agreed on the tables, dtypes and reductions; the copies a
  // Partial destination makes after it are not among them (P(sum) and R
  // hold the same blocks): the ranks agree on b as well, every rank
  // failing alike where one differs.
  {
    const std::string text = planning::tensorText(b.type) + " " + [&] {
      std::string spec;
      llvm::raw_string_ostream os(spec);
      os << b.type.getSpec();
      return spec;
    }();
    const uint64_t hash = llvm::xxh3_64bits(text);
    uint64_t mine[2] = {hash, ~hash}, least[2] = {0, 0};
    {
      py::gil_scoped_release release;
      MPI_Allreduce(mine, least, 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    }
    if (least[0] != mine[0] || least[1] != mine[1])
      throw ShardcError("redistribute: the ranks disagree on the destination "
                        "layout (rank " +
                        std::to_string(rank) + "'s: " + text + ")");
  }
  // The partial copies, made where the move left the value whole
  // (decideMove): past each group's first copy, the reduction's identity.
  bool identity = false;
  if (decision->identityPastFirstCopy) {
    identity = !planning::holdsFirstCopy(b.type, rank);
  }
  // Unpacked into one array per block of b this rank owns.
  py::list out;
  size_t at = 0;
  const py::dtype numpyType = runtimeTypeOf(a.type).second;
  for (const std::vector<int64_t> &sizes : to.sizes) {
    int64_t n = 1;
    for (int64_t d : sizes)
      n *= d;
    py::array result(numpyType, sizes);
    std::memcpy(result.mutable_data(), dst.data() + at,
                static_cast<size_t>(n * itemBytes));
    at += static_cast<size_t>(n * itemBytes);
    if (identity)
      result.attr("fill")(*decision->identityPastFirstCopy ==
                                  layout::Placement::Reduce::Sum
                              ? 0
                              : 1);
    out.append(result);
  }
  return out;
}

/// Defines `name(a, b, **cost_model)` calling `fn(a, b, options)`: the
/// cost model's keywords are read by optionsFrom.
template <typename Fn>
void defWithOptions(py::module_ &m, const char *name, Fn fn, const char *doc) {
  m.def(
      name,
      [fn](const Layout &a, const Layout &b, const py::kwargs &costModel) {
        return fn(a, b, optionsFrom(costModel));
      },
      py::arg("a"), py::arg("b"), doc);
}

} // namespace

PYBIND11_MODULE(_shardc, m) {
  m.doc() = "shardc's layouts and plans (the C++ half of the shardc package)";
  py::register_exception<ShardcError>(m, "ShardcError", PyExc_ValueError);

  py::class_<Layout>(m, "Layout")
      .def_static("from_json", &fromJson, py::arg("json"),
                  py::arg("name") = "<layout>",
                  "A layout from sharded tensor metadata or DTensor JSON "
                  "(docs/json.md); raises ShardcError with shard-translate's "
                  "message")
      .def("to_json", &toJson, "The layout as ShardedTensor metadata JSON")
      .def_property_readonly("shape", &shapeOf)
      .def_property_readonly("dtype", &dtypeOf)
      .def_property_readonly("blocks", &blocksOf,
                             "The distinct blocks: shard_offsets, "
                             "shard_sizes, placement")
      .def_property_readonly(
          "device_blocks",
          [](const Layout &l) {
            return shardsMetadata(l.type.getDeviceBlocks());
          },
          "Every device's block, replicas included")
      .def_property_readonly(
          "partial",
          [](const Layout &l) {
            return cast<ShardingSpecAttrInterface>(l.type.getSpec())
                .hasPartial();
          },
          "Whether some device holds a partial value (DTensor's Partial)")
      .def("infer_chunk_spec", &inferChunkSpecOf,
           py::arg("blocks_to_mesh") = false, py::arg("mesh_to_blocks") = false,
           "The layout as -shard-infer-chunk-spec rewrites it: a chunk spec "
           "where PyTorch infers one from the blocks")
      .def("describe",
           [](const Layout &l) { return planning::describeLayout(l.type); })
      .def("grid", &gridOf,
           "The layout drawn as a text grid (as shard-plan --show)")
      .def("__eq__",
           [](const Layout &a, const Layout &b) { return a.type == b.type; })
      .def("__hash__",
           [](const Layout &l) {
             return static_cast<size_t>(
                 llvm::hash_value(l.type.getAsOpaquePointer()));
           })
      .def("__repr__", [](const Layout &l) {
        return "<shardc.Layout " + planning::tensorText(l.type) + ": " +
               planning::describeLayout(l.type) + ">";
      });

  m.def(
      "cost_model_options",
      [] {
        py::list out;
        for (const planning::CostModelOption &option :
             planning::costModelOptions()) {
          std::string keyword = option.name;
          std::replace(keyword.begin(), keyword.end(), '-', '_');
          out.append(py::make_tuple(keyword, option.help));
        }
        return out;
      },
      "The cost model's keywords (plan(), cost()) with their help: the "
      "options every pass and shard-plan take, '_' for '-'");
  defWithOptions(m, "_plan", planOf,
                 "The plan from a to b, as shard-plan gives it (a dict)");
  defWithOptions(m, "cost", costOf,
                 "The modelled time of the cheapest plan from a to b, in us "
                 "(cached per pair and options)");
  m.def("_redistribute", &redistributeBlocks, py::arg("local"), py::arg("a"),
        py::arg("b"));
  m.def("_redistribute_refused", &refuseOnEveryRank, py::arg("problem"),
        "Fails a redistribution this rank cannot take part in on every rank "
        "(naming this one), then raises `problem` here");
  m.def("_rank", [] {
    if (shardrt_init() != SHARDRT_SUCCESS)
      throw ShardcError(std::string("cannot start MPI: ") +
                        shardrt_last_error());
    return shardrt_rank();
  });
  m.def("_ranks_label", &planning::ranksLabel, py::arg("ranks"),
        "A text grid's label of ranks (ascending): \"0-3,8\"");
  m.def("_chunk_shards", &chunkShards, py::arg("shape"), py::arg("dim"),
        py::arg("placements"));
  m.def("show", &showOf, py::arg("a"), py::arg("b"),
        "Both layouts drawn side by side, as shard-plan --show");
}
