//===- shard-plan.cpp - A redistribution, from layouts to a plan ----------===//
//
// For people who think in layouts, not IR: reads two layouts of one tensor
// (sharded tensor metadata or DTensor JSON, docs/json.md), plans the
// redistribution with -shard-plan-redistribute, and prints the plan in words
// and its cost (docs/planner.md).
//
//   shard-plan --from A.json --to B.json [--topology T.json] [--link L]
//              [--world-size N] [--report R.json] [-o OUT.mlir [--lower]]
//   mpirun -np N shard-plan --from A.json --to B.json --execute
//
// With --execute every rank runs the planned program
// (-shard-plan-redistribute's output) collective by collective, each as the
// runtime call that -shard-lower-to-runtime makes for it (runtimeCallOf, shared
// with the lowering), on data derived from each element's global index, and
// checks every element it receives against that formula.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/ElementTypes.h"
#include "shardc/Dialect/Shard.h"
#include "shardc/Layout/Exchange.h"
#include "shardc/Passes/Passes.h"
#include "shardc/Passes/RuntimeCalls.h"
#include "shardc/Planning/Describe.h"
#include "shardc/Planning/ShardPlanner.h"
#include "shardc/Register.h"
#include "shardc/Translate/ShardedMetadata.h"

#include "shardrt.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <mpi.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace shardc;
namespace cl = llvm::cl;

namespace {

cl::OptionCategory category("shard-plan options");

cl::opt<std::string> fromFile("from", cl::desc("The source layout (JSON)"),
                              cl::value_desc("A.json"), cl::Required,
                              cl::cat(category));
cl::opt<std::string> toFile("to", cl::desc("The destination layout (JSON)"),
                            cl::value_desc("B.json"), cl::Required,
                            cl::cat(category));
cl::opt<std::string>
    topologyFile("topology",
                 cl::desc("A topology file for the cost model: {\"world\": "
                          "link, \"axes\": [link, ...]}"),
                 cl::value_desc("T.json"), cl::cat(category));
cl::opt<planning::LinkClass> linkOpt(
    "link", cl::desc("The link class of the cost model"),
    cl::values(clEnumValN(planning::LinkClass::NVLink, "nvlink",
                          "NVLink-class: 2 us, 150 GB/s per rank (default)"),
               clEnumValN(planning::LinkClass::InfiniBand, "infiniband",
                          "InfiniBand-class: 5 us, 25 GB/s per rank")),
    cl::init(planning::LinkClass::NVLink), cl::cat(category));
cl::opt<double> alphaUs("alpha-us",
                        cl::desc("Latency per message in us (overrides the "
                                 "link's)"),
                        cl::init(-1), cl::cat(category));
cl::opt<double> betaGBps("beta-gbps",
                         cl::desc("Bandwidth per rank in GB/s (overrides the "
                                  "link's)"),
                         cl::init(-1), cl::cat(category));
cl::opt<int64_t>
    worldSizeOpt("world-size",
                 cl::desc("The ranks the plan covers (default: the ranks the "
                          "layouts name; under --execute, the MPI world)"),
                 cl::value_desc("N"), cl::init(0), cl::cat(category));
cl::opt<std::string> reportFile("report",
                                cl::desc("Write the plan report (JSON) here"),
                                cl::value_desc("R.json"), cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Write the planned SPMD IR here"),
                                cl::value_desc("OUT.mlir"), cl::cat(category));
cl::opt<bool> lower("lower",
                    cl::desc("With -o: the IR after the whole shard-to-llvm "
                             "pipeline"),
                    cl::cat(category));
cl::opt<bool> execute("execute",
                      cl::desc("Run the plan on every MPI rank (under "
                               "mpirun) and check every element"),
                      cl::cat(category));
cl::opt<planning::PlanSet> plansOpt(
    "plans", cl::desc("Which plans the redistribution may get"),
    cl::values(clEnumValN(planning::PlanSet::Cheapest, "cheapest",
                          "the cheapest of the candidate plans (default)"),
               clEnumValN(planning::PlanSet::Direct, "direct", "one exchange")),
    cl::init(planning::PlanSet::Cheapest), cl::cat(category));
cl::opt<bool> show("show",
                   cl::desc("Draw both layouts (1-D and 2-D tensors) as grids "
                            "of the ranks that hold each block"),
                   cl::cat(category));
cl::opt<bool> allRanks("all-ranks",
                       cl::desc("List every rank (default: the first 64)"),
                       cl::cat(category));

constexpr int64_t kRanksListed = 64;

/// Under --execute, ranks other than 0 keep quiet about errors that every
/// rank finds alike.
bool quiet = false;

void error(const llvm::Twine &message) {
  if (quiet)
    return;
  // What stdout holds goes first; then the message in one write, so that
  // other ranks' output cannot cut into it.
  llvm::outs().flush();
  llvm::errs() << ("shard-plan: error: " + message + "\n").str();
}

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

/// An element type --execute fills and checks: one the runtime moves (the
/// element-type table's).
struct Dtype {
  shardrt_dtype rt;
  int64_t bytes;
};

std::optional<Dtype> executableDtype(Type type) {
  const ElementTypeInfo *row = lookupElementType(type);
  if (!row || !row->hasRuntime())
    return std::nullopt;
  return Dtype{static_cast<shardrt_dtype>(row->runtimeDtype), row->bytes};
}

/// A small value of an index, (index * 7 + 3) mod 251, exact in every
/// element type.
int64_t smallValue(int64_t index) { return (index % 251 * 7 + 3) % 251; }

uint16_t halfBits(int64_t value, const llvm::fltSemantics &semantics) {
  llvm::APFloat f(static_cast<double>(value));
  bool lost = false;
  f.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
  return static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue());
}

/// Writes the value of global linear index `index` to `out`: the index
/// itself where the type holds it exactly (f32: modulo 2^24, i32: modulo
/// 2^31), else the small value above (minus 125 for i8).
void valueOf(const Dtype &dtype, int64_t index, void *out) {
  switch (dtype.rt) {
  case SHARDRT_F32: {
    float v = static_cast<float>(index % (int64_t(1) << 24));
    std::memcpy(out, &v, 4);
    return;
  }
  case SHARDRT_F64: {
    double v = static_cast<double>(index);
    std::memcpy(out, &v, 8);
    return;
  }
  case SHARDRT_F16: {
    uint16_t v = halfBits(smallValue(index), llvm::APFloat::IEEEhalf());
    std::memcpy(out, &v, 2);
    return;
  }
  case SHARDRT_BF16: {
    uint16_t v = halfBits(smallValue(index), llvm::APFloat::BFloat());
    std::memcpy(out, &v, 2);
    return;
  }
  case SHARDRT_I8: {
    int8_t v = static_cast<int8_t>(smallValue(index) - 125);
    std::memcpy(out, &v, 1);
    return;
  }
  case SHARDRT_U8: {
    uint8_t v = static_cast<uint8_t>(smallValue(index));
    std::memcpy(out, &v, 1);
    return;
  }
  case SHARDRT_I32: {
    int32_t v = static_cast<int32_t>(index % (int64_t(1) << 31));
    std::memcpy(out, &v, 4);
    return;
  }
  case SHARDRT_I64:
    std::memcpy(out, &index, 8);
    return;
  }
}

/// Writes `value` (an integer that the type holds, or +-infinity) as an
/// element of `dtype`.
void writeNumber(const Dtype &dtype, double value, void *out) {
  auto half = [&](const llvm::fltSemantics &semantics) {
    llvm::APFloat f(value);
    bool lost = false;
    f.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
    uint16_t bits = static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue());
    std::memcpy(out, &bits, 2);
  };
  switch (dtype.rt) {
  case SHARDRT_F32: {
    float v = static_cast<float>(value);
    std::memcpy(out, &v, 4);
    return;
  }
  case SHARDRT_F64:
    std::memcpy(out, &value, 8);
    return;
  case SHARDRT_F16:
    return half(llvm::APFloat::IEEEhalf());
  case SHARDRT_BF16:
    return half(llvm::APFloat::BFloat());
  case SHARDRT_I8: {
    int8_t v = static_cast<int8_t>(std::clamp(value, -128.0, 127.0));
    std::memcpy(out, &v, 1);
    return;
  }
  case SHARDRT_U8: {
    uint8_t v = static_cast<uint8_t>(std::clamp(value, 0.0, 255.0));
    std::memcpy(out, &v, 1);
    return;
  }
  case SHARDRT_I32: {
    int32_t v =
        static_cast<int32_t>(std::clamp(value, -2147483648.0, 2147483647.0));
    std::memcpy(out, &v, 4);
    return;
  }
  case SHARDRT_I64: {
    int64_t v = value <= -9.2e18  ? INT64_MIN
                : value >= 9.2e18 ? INT64_MAX
                                  : static_cast<int64_t>(value);
    std::memcpy(out, &v, 8);
    return;
  }
  }
}

bool isFloat(const Dtype &dtype) {
  return dtype.rt == SHARDRT_F32 || dtype.rt == SHARDRT_F64 ||
         dtype.rt == SHARDRT_F16 || dtype.rt == SHARDRT_BF16;
}

/// The value every destination element of global index `index` must hold:
/// valueOf, or, when the source holds partial values reduced with avg, a
/// value whose sums over the copies stay exact: 2^(index mod 8) for floats,
/// index mod 8 for integers.
void expectedValue(const Dtype &dtype,
                   std::optional<layout::Placement::Reduce> reduce,
                   int64_t index, void *out) {
  if (reduce != layout::Placement::Reduce::Avg)
    return valueOf(dtype, index, out);
  writeNumber(dtype,
              isFloat(dtype) ? static_cast<double>(int64_t(1) << (index % 8))
                             : static_cast<double>(index % 8),
              out);
}

/// The value partial copy `partial` holds at global index `index`, so that
/// the reduction of all copies restores expectedValue: copy 0 holds it and
/// the others the identity of the reduction (0, 1, the lowest or the highest
/// value); with avg every copy holds it.
void sourceValue(const Dtype &dtype,
                 std::optional<layout::Placement::Reduce> reduce,
                 int64_t partial, int64_t index, void *out) {
  using Reduce = layout::Placement::Reduce;
  if (!reduce || *reduce == Reduce::Avg || partial == 0)
    return expectedValue(dtype, reduce, index, out);
  double inf = std::numeric_limits<double>::infinity();
  switch (*reduce) {
  case Reduce::Sum:
    return writeNumber(dtype, 0, out);
  case Reduce::Product:
    return writeNumber(dtype, 1, out);
  case Reduce::Max:
    return writeNumber(dtype, -inf, out); // the lowest integer
  case Reduce::Min:
    return writeNumber(dtype, inf, out); // the highest integer
  case Reduce::Avg:
    break;
  }
}

/// An element as text.
std::string valueText(const Dtype &dtype, const void *p) {
  auto half = [&](const llvm::fltSemantics &semantics) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    llvm::APFloat f(semantics, llvm::APInt(16, bits));
    llvm::SmallString<16> text;
    f.toString(text);
    return std::string(text);
  };
  switch (dtype.rt) {
  case SHARDRT_F32: {
    float v;
    std::memcpy(&v, p, 4);
    char text[32];
    std::snprintf(text, sizeof(text), "%.9g", v);
    return text;
  }
  case SHARDRT_F64: {
    double v;
    std::memcpy(&v, p, 8);
    char text[32];
    std::snprintf(text, sizeof(text), "%.17g", v);
    return text;
  }
  case SHARDRT_F16:
    return half(llvm::APFloat::IEEEhalf());
  case SHARDRT_BF16:
    return half(llvm::APFloat::BFloat());
  case SHARDRT_I8:
    return std::to_string(*static_cast<const int8_t *>(p));
  case SHARDRT_U8:
    return std::to_string(*static_cast<const uint8_t *>(p));
  case SHARDRT_I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return std::to_string(v);
  }
  case SHARDRT_I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return std::to_string(v);
  }
  }
  return "?";
}

/// Calls `fn(local, global)` for every element of `box` in row-major order,
/// with its index in the block and its global linear index in `shape`.
template <typename Fn>
void forEachElement(const layout::Box &box, llvm::ArrayRef<int64_t> shape,
                    std::vector<int64_t> &coord, Fn fn) {
  int64_t n = *layout::volume(box.sizes);
  size_t rank = box.rank();
  coord.assign(box.offsets.begin(), box.offsets.end());
  for (int64_t local = 0; local < n; ++local) {
    int64_t global = 0;
    for (size_t d = 0; d < rank; ++d)
      global = global * shape[d] + coord[d];
    fn(local, global);
    for (size_t d = rank; d-- > 0;) {
      if (++coord[d] < box.offsets[d] + box.sizes[d])
        break;
      coord[d] = box.offsets[d];
    }
  }
}

/// Rows [owner, offsets, sizes] of the runtime's block table.
std::vector<int64_t> tableRows(const layout::BlockTable &table) {
  std::vector<int64_t> rows;
  for (size_t b = 0; b < table.size(); ++b) {
    rows.push_back(table.owners[b]);
    rows.insert(rows.end(), table.boxes[b].offsets.begin(),
                table.boxes[b].offsets.end());
    rows.insert(rows.end(), table.boxes[b].sizes.begin(),
                table.boxes[b].sizes.end());
  }
  return rows;
}

/// This rank's blocks of `table`, packed row-major one after the other in
/// table order in `data` (allocated here); `view` shows the first one (or
/// no data when the rank owns none), for the calls that take one view.
struct LocalBlock {
  std::vector<int64_t> blocks, starts;
  std::vector<int64_t> sizes, strides;
  std::vector<char> data;
  shardrt_tensor view{};

  void *packed() { return data.empty() ? nullptr : data.data(); }
};

void makeLocal(const layout::BlockTable &table, int rank, int64_t tensorRank,
               const Dtype &dtype, LocalBlock &block) {
  block.blocks = table.blocksOf(rank);
  int64_t total = 0;
  for (int64_t b : block.blocks) {
    block.starts.push_back(total);
    total += table.volumes[b];
  }
  block.data.assign(total * dtype.bytes, 0);
  block.sizes.assign(tensorRank, 0);
  block.strides.assign(tensorRank, 1);
  if (!block.blocks.empty()) {
    block.sizes = table.boxes[block.blocks[0]].sizes;
    for (int64_t d = tensorRank - 1; d > 0; --d)
      block.strides[d - 1] = block.strides[d] * block.sizes[d];
  }
  block.view.data = block.packed();
  block.view.dtype = dtype.rt;
  block.view.device = SHARDRT_DEVICE_CPU;
  block.view.rank = tensorRank;
  block.view.sizes = block.sizes.data();
  block.view.strides = block.strides.data();
}

/// The partial indices of a layout's rows (all 0 without Partial values).
std::vector<int64_t> partialRows(const planning::PlanLayout &layout) {
  return layout.hasPartial() ? layout.partial
                             : std::vector<int64_t>(layout.table.size(), 0);
}

/// The reduction of a layout's Partial placements, if any.
std::optional<layout::Placement::Reduce>
reduceOf(const planning::PlanLayout &layout) {
  bool mixed = false;
  return layout.isMesh ? layout::partialReduce(layout.placements, mixed)
                       : std::nullopt;
}

/// Runs one SPMD collective of the planned program on this rank: the
/// runtime call -shard-lower-to-runtime makes for it (runtimeCallOf), from
/// `in` (this rank's input) to `out` (allocated here). Returns false after
/// adding the runtime's message to `report`.
bool runCall(const RuntimeCall &call, LocalBlock &in, LocalBlock &out, int rank,
             const Dtype &dtype, std::string &report) {
  using Fn = RuntimeCall::Function;
  const int64_t tensorRank = call.tableColumns() / 2;
  const int64_t cols = call.tableColumns();
  auto rows = [&](const std::vector<int64_t> &table) {
    return static_cast<int64_t>(table.size()) / cols;
  };
  if (call.function == Fn::AllGather) {
    // Every rank receives the whole tensor.
    layout::BlockTable whole;
    llvm::ArrayRef<int64_t> shape = call.from.getShape();
    whole.boxes.push_back({std::vector<int64_t>(tensorRank, 0), shape.vec()});
    whole.owners.push_back(rank);
    whole.volumes.push_back(*layout::volume(shape.vec()));
    makeLocal(whole, rank, tensorRank, dtype, out);
  } else {
    makeLocal(layout::blockTableOf(call.to.getDeviceBlocks()), rank, tensorRank,
              dtype, out);
  }
  // Whatever the call does not write keeps a value that no element has: all
  // ones (NaN, -1, 255), or -128 for i8.
  std::fill(out.data.begin(), out.data.end(),
            static_cast<char>(dtype.rt == SHARDRT_I8 ? 0x80 : 0xFF));
  int status = SHARDRT_SUCCESS;
  switch (call.function) {
  case Fn::AllGather:
    status = shardrt_all_gather(&in.view, &out.view, call.fromTable.data(),
                                rows(call.fromTable));
    break;
  case Fn::Scatter:
    status = shardrt_scatter(&in.view, &out.view, call.toTable.data(),
                             rows(call.toTable), call.root);
    break;
  case Fn::Redistribute:
    status =
        call.packed
            ? shardrt_redistribute_packed(
                  in.packed(), out.packed(), dtype.rt, call.device, tensorRank,
                  call.fromTable.data(), rows(call.fromTable),
                  call.toTable.data(), rows(call.toTable))
            : shardrt_redistribute(&in.view, &out.view, call.fromTable.data(),
                                   rows(call.fromTable), call.toTable.data(),
                                   rows(call.toTable));
    break;
  case Fn::RedistributeReduce:
    status = call.packed
                 ? shardrt_redistribute_reduce_packed(
                       in.packed(), out.packed(), dtype.rt, call.device,
                       tensorRank, call.fromTable.data(), rows(call.fromTable),
                       call.partial.data(), call.toTable.data(),
                       rows(call.toTable), call.reduce)
                 : shardrt_redistribute_reduce(
                       &in.view, &out.view, call.fromTable.data(),
                       rows(call.fromTable), call.partial.data(),
                       call.toTable.data(), rows(call.toTable), call.reduce);
    break;
  case Fn::GroupCollective:
    status = shardrt_group_collective(
        call.kind, &in.view, &out.view, call.fromTable.data(),
        rows(call.fromTable), call.toTable.data(), rows(call.toTable),
        call.groups.data(), static_cast<int64_t>(call.groups.size() / 3),
        call.root, call.reduce);
    break;
  }
  if (status == SHARDRT_SUCCESS)
    return true;
  report += "rank " + std::to_string(rank) +
            ": ERROR: " + shardrt_last_error() + "\n";
  return false;
}

/// Runs the planned program (-shard-plan-redistribute's output) on this
/// rank, collective by collective, and checks its
/// destination block. Returns whether this rank is fine; `report` gets its
/// lines ("rank R: OK, ...").
bool executeOnRank(ModuleOp program, ShardedTensorType from,
                   ShardedTensorType to, const planning::Plan &plan, int rank,
                   const Dtype &dtype, std::string &report) {
  planning::PlanLayout src = planning::planLayoutOf(from);
  llvm::ArrayRef<int64_t> shape = from.getShape();
  int64_t tensorRank = from.getRank();
  std::optional<layout::Placement::Reduce> reduce = reduceOf(src);
  auto in = std::make_unique<LocalBlock>();
  makeLocal(src.table, rank, tensorRank, dtype, *in);
  std::vector<int64_t> coord;
  const std::vector<int64_t> partials = partialRows(src);
  for (size_t i = 0; i < in->blocks.size(); ++i) {
    const int64_t b = in->blocks[i];
    char *base = in->data.data() + in->starts[i] * dtype.bytes;
    forEachElement(src.table.boxes[b], shape, coord,
                   [&](int64_t local, int64_t global) {
                     sourceValue(dtype, reduce, partials[b], global,
                                 base + local * dtype.bytes);
                   });
  }

  // The planned program, op by op: each collective as the runtime call the
  // compiler's lowering makes for it; casts keep the block.
  int64_t received = 0;
  for (const planning::PlanStep &step : plan.steps)
    received += step.trafficOf(rank).received * dtype.bytes;
  llvm::DenseMap<Value, std::shared_ptr<LocalBlock>> blocks;
  func::FuncOp fn = *program.getOps<func::FuncOp>().begin();
  blocks[fn.getArgument(0)] = std::shared_ptr<LocalBlock>(std::move(in));
  std::shared_ptr<LocalBlock> result;
  for (Operation &op : fn.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      result = blocks.lookup(ret.getOperand(0));
      break;
    }
    if (auto cast = dyn_cast<tensor::CastOp>(op)) {
      blocks[cast.getResult()] = blocks.lookup(cast.getSource());
      continue;
    }
    FailureOr<RuntimeCall> call = runtimeCallOf(&op);
    if (failed(call)) {
      report += "rank " + std::to_string(rank) + ": ERROR: cannot run '" +
                op.getName().getStringRef().str() + "'\n";
      return false;
    }
    std::shared_ptr<LocalBlock> input = blocks.lookup(call->input);
    auto out = std::make_shared<LocalBlock>();
    if (!input || !runCall(*call, *input, *out, rank, dtype, report))
      return false;
    blocks[op.getResult(0)] = out;
  }
  if (!result) {
    report += "rank " + std::to_string(rank) +
              ": ERROR: the planned program returns no block\n";
    return false;
  }
  // Every destination element against the formula, not the source buffer.
  int64_t checked = 0, wrong = 0;
  std::vector<std::string> mismatches;
  std::vector<char> expected(dtype.bytes);
  layout::BlockTable dst = layout::blockTableOf(to.getDeviceBlocks());
  const std::vector<int64_t> mine = dst.blocksOf(rank);
  int64_t start = 0;
  for (int64_t d : mine) {
    const char *base = result->data.data() + start * dtype.bytes;
    start += dst.volumes[d];
    if (dst.boxes[d].empty())
      continue;
    forEachElement(
        dst.boxes[d], shape, coord, [&](int64_t local, int64_t global) {
          ++checked;
          expectedValue(dtype, reduce, global, expected.data());
          const char *got = base + local * dtype.bytes;
          if (std::memcmp(got, expected.data(), dtype.bytes) == 0)
            return;
          if (++wrong <= 3)
            mismatches.push_back("at " + layout::formatList(coord) + ": got " +
                                 valueText(dtype, got) + ", expected " +
                                 valueText(dtype, expected.data()));
        });
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (wrong == 0) {
    os << "rank " << rank << ": OK, " << checked
       << (checked == 1 ? " element checked" : " elements checked")
       << " (received " << received << " bytes)\n";
  } else {
    os << "rank " << rank << ": MISMATCH " << mismatches[0] << " (" << wrong
       << " of " << checked << " elements wrong)\n";
    for (size_t i = 1; i < mismatches.size(); ++i)
      os << "rank " << rank << ":   also " << mismatches[i] << "\n";
  }
  report += text;
  return wrong == 0;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// Prints diagnostics located at a whole file (line 0) as "FILE: error:
/// message", as shard-translate does, and those about the options (at no
/// location) as the tool's errors; others go to the source manager's
/// handler, which shows the line.
LogicalResult printWholeFileDiagnostic(Diagnostic &diag) {
  // About the options, not a file: "shard-plan: error: --alpha-us: ...".
  if (isa<UnknownLoc>(diag.getLocation())) {
    error(diag.str());
    return success();
  }
  auto loc = dyn_cast<FileLineColLoc>(diag.getLocation());
  if (!loc || loc.getLine() != 0)
    return failure();
  auto print = [&](const Diagnostic &d) {
    const char *severity =
        d.getSeverity() == DiagnosticSeverity::Note      ? "note"
        : d.getSeverity() == DiagnosticSeverity::Warning ? "warning"
        : d.getSeverity() == DiagnosticSeverity::Remark  ? "remark"
                                                         : "error";
    llvm::errs() << loc.getFilename().getValue() << ": " << severity << ": "
                 << d.str() << "\n";
  };
  print(diag);
  for (const Diagnostic &note : diag.getNotes())
    print(note);
  return success();
}

/// Reads a layout file into the source manager and imports it.
FailureOr<ShardedTensorType> readLayout(const std::string &path,
                                        llvm::SourceMgr &sourceMgr,
                                        MLIRContext *context) {
  std::string problem;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &problem);
  if (!file) {
    error(problem);
    return failure();
  }
  llvm::StringRef text = file->getBuffer();
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  return importShardedMetadata(text, path, context);
}

/// What the driver computed before any execution.
struct Planned {
  ShardedTensorType from, to;
  planning::Plan plan;
  /// The planned program: -shard-plan-redistribute's output, before any
  /// lowering (--execute runs its collectives).
  OwningOpRef<ModuleOp> program;
};

/// Imports, checks, plans, writes the outputs and (when `print`) prints the
/// plan. Returns failure after printing why.
FailureOr<Planned> plan(MLIRContext *context, int64_t worldSize, bool print,
                        bool writeFiles) {
  context->loadDialect<ShardDialect, func::FuncDialect>();
  // The op is the tool's own, not the user's: the message says enough.
  context->printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler sourceHandler(sourceMgr, context);
  ScopedDiagnosticHandler wholeFile(context, printWholeFileDiagnostic);
  ScopedDiagnosticHandler silence(context,
                                  [](Diagnostic &) { return success(quiet); });

  FailureOr<ShardedTensorType> from = readLayout(fromFile, sourceMgr, context);
  if (failed(from))
    return failure();
  FailureOr<ShardedTensorType> to = readLayout(toFile, sourceMgr, context);
  if (failed(to))
    return failure();
  if (from->getShape() != to->getShape() ||
      from->getElementType() != to->getElementType()) {
    error("the layouts are of different tensors: " + fromFile + " is " +
          planning::tensorText(*from) + " but " + toFile + " is " +
          planning::tensorText(*to) +
          "; a redistribution keeps the shape and the dtype");
    return failure();
  }
  // What --execute cannot run is said before anything is planned or printed.
  if (execute && !executableDtype(from->getElementType())) {
    error("--execute supports the element types the runtime moves (" +
          runtimeElementTypesText() + "), not " +
          typeText(from->getElementType()));
    return failure();
  }
  // The ranks the plan covers: the world, holding every rank named.
  int64_t largest = -1;
  for (ShardedTensorType type : {*from, *to})
    for (const layout::Block &b : type.getDeviceBlocks())
      largest = std::max(largest, b.placement.rank);
  if (worldSize > 0 && largest >= worldSize) {
    if (!execute) {
      error("--world-size " + layout::checkWorldSize(worldSize, largest));
      return failure();
    }
    // Under --execute the runtime refuses the layouts on every rank, with
    // its message; the plan covers the ranks they name.
    worldSize = 0;
  }
  const int64_t ranks = std::max(worldSize, largest + 1);

  // The cost model and the plans, checked as the pass checks them.
  planning::PlanningOptions planning;
  planning.link = linkOpt;
  if (alphaUs.getNumOccurrences())
    planning.alphaUs = alphaUs;
  if (betaGBps.getNumOccurrences())
    planning.betaGBps = betaGBps;
  planning.topologyFile = topologyFile;
  planning.plans = plansOpt;
  planning.worldSize = worldSize;
  std::unique_ptr<planning::ShardPlanner> planner =
      planning::ShardPlanner::create(planning, [&] {
        return emitError(UnknownLoc::get(context)) << "--";
      });
  if (!planner)
    return failure();

  // func.func @redistribute(%a: !A) -> !B {
  //   %b = shard.redistribute %a : !A -> !B
  //   return %b : !B
  // }
  Location loc = FileLineColLoc::get(context, fromFile, 1, 1);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
  auto fn = func::FuncOp::create(
      builder, loc, "redistribute",
      builder.getFunctionType(TypeRange{*from}, TypeRange{*to}));
  builder.setInsertionPointToEnd(fn.addEntryBlock());
  auto redistribute =
      RedistributeOp::create(builder, loc, *to, fn.getArgument(0));
  func::ReturnOp::create(builder, loc, redistribute.getResult());
  if (failed(verify(*module)))
    return failure();
  // A plan moves data between ranks: every block must name one.
  for (auto [type, path] : {std::pair(*from, &fromFile), {*to, &toFile}}) {
    auto diagnose = [&] {
      return emitError(FileLineColLoc::get(context, *path, 0, 0))
             << "cannot plan this layout: ";
    };
    if (failed(verifyPlannable(type, diagnose)))
      return failure();
  }

  // The pass plans with the tool's planner and records its report there:
  // the plan is computed once, for the IR and the words alike.
  ShardPlanRedistributeOptions options;
  options.report = writeFiles ? reportFile.getValue() : "";
  options.link = linkOpt;
  options.alphaUs = alphaUs.getNumOccurrences() ? alphaUs.getValue() : -1.0;
  options.betaGBps = betaGBps.getNumOccurrences() ? betaGBps.getValue() : -1.0;
  options.topologyFile = topologyFile;
  options.worldSize = worldSize;
  options.plans = plansOpt;
  PassManager pm(context);
  pm.addPass(createShardPlanRedistribute(options, *planner));
  if (failed(pm.run(*module)))
    return failure();
  OwningOpRef<ModuleOp> program = module->clone();
  if (lower) {
    // The rest of the pipeline (its planning finds nothing left to plan).
    PassManager lowering(context);
    buildShardToLLVMPipeline(lowering);
    if (failed(lowering.run(*module)))
      return failure();
  }
  const planning::PlanChoice &choice = planner->choose(*from, *to);

  if (writeFiles && !outputFile.empty()) {
    std::string problem;
    std::unique_ptr<llvm::ToolOutputFile> out =
        openOutputFile(outputFile, &problem);
    if (!out) {
      error(problem);
      return failure();
    }
    module->print(out->os());
    out->keep();
  }
  if (print) {
    if (show) {
      planning::printLayouts(llvm::outs(), *from, *to);
      llvm::outs() << "\n";
    }
    planning::WordsOptions words;
    words.ranks = ranks;
    words.ranksListed = allRanks ? ranks : kRanksListed;
    words.costModel =
        planning::costModelText(planning, planner->topology(), "--");
    planning::printPlan(llvm::outs(), *planner, *from, *to, words);
    llvm::outs().flush();
  }
  return Planned{*from, *to, choice.best(), std::move(program)};
}

int runPlanOnly() {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  return failed(plan(&context, worldSizeOpt, /*print=*/true,
                     /*writeFiles=*/true))
             ? 1
             : 0;
}

/// Under mpirun: every rank plans (rank 0 prints and writes the outputs),
/// the ranks agree that all went well, then run the exchange and check.
int runExecute() {
  if (shardrt_init() != SHARDRT_SUCCESS) {
    error(llvm::Twine("--execute: cannot initialize MPI: ") +
          shardrt_last_error());
    return 1;
  }
  int rank = shardrt_rank(), worldSize = shardrt_world_size();
  quiet = rank != 0;
  if (worldSizeOpt != 0 && worldSizeOpt != worldSize) {
    error("--world-size " + std::to_string(worldSizeOpt) + " but the MPI " +
          "world has " + std::to_string(worldSize) + " ranks");
    return 1; // alike on every rank
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  FailureOr<Planned> planned =
      plan(&context, worldSize, /*print=*/rank == 0, /*writeFiles=*/rank == 0);
  std::optional<Dtype> dtype; // checked by plan()
  if (succeeded(planned))
    dtype = executableDtype(planned->from.getElementType());
  // A failure on one rank (writing rank 0's files) stops every rank.
  int ready = succeeded(planned) && dtype ? 1 : 0, allReady = 0;
  MPI_Allreduce(&ready, &allReady, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!allReady)
    return 1;

  std::string report;
  int ok = executeOnRank(*planned->program, planned->from, planned->to,
                         planned->plan, rank, *dtype, report)
               ? 1
               : 0;
  // Rank 0 prints every rank's lines, in rank order, then the verdict: the
  // output of mpirun's ranks would interleave in any order.
  int length = static_cast<int>(report.size());
  std::vector<int> lengths(rank == 0 ? worldSize : 0), starts;
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0,
             MPI_COMM_WORLD);
  std::string all;
  if (rank == 0) {
    int64_t total = 0;
    for (int n : lengths) {
      starts.push_back(static_cast<int>(total));
      total += n;
    }
    all.resize(static_cast<size_t>(total));
  }
  MPI_Gatherv(report.data(), length, MPI_CHAR, all.data(), lengths.data(),
              starts.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  int failedRanks = 0, notOk = 1 - ok;
  MPI_Reduce(&notOk, &failedRanks, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::string ranks =
        std::to_string(worldSize) + (worldSize == 1 ? " rank" : " ranks");
    all += failedRanks == 0
               ? "executed on " + ranks + ": every element checked, all OK\n"
               : "executed on " + ranks + ": FAILED on " +
                     std::to_string(failedRanks) +
                     (failedRanks == 1 ? " rank\n" : " ranks\n");
    llvm::outs() << all;
    llvm::outs().flush();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  // Rank 0 alone carries the verdict out: a rank exiting with an error makes
  // mpirun stop the others, and output still in flight could be lost.
  return rank == 0 && failedRanks != 0 ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Under mpirun the ranks share one output: lines go out whole, at flushes.
  llvm::outs().SetBuffered();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "shard-plan: the plan of a redistribution between two layouts (JSON), "
      "in words, with its cost\n");
  if (worldSizeOpt.getNumOccurrences()) {
    std::string problem = layout::checkWorldSize(worldSizeOpt);
    if (!problem.empty()) {
      error("--world-size " + problem);
      return 1;
    }
  }
  if (lower && outputFile.empty()) {
    error("--lower needs -o");
    return 1;
  }
  return execute ? runExecute() : runPlanOnly();
}
