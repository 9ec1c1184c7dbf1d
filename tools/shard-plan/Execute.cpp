//===- Execute.cpp - shard-plan --execute: run a planned program, check it
//-===//
//
// Each rank fills its block of the source layout with values derived from
// the elements' global indices, runs the planned program collective by
// collective as the runtime call the compiler's lowering makes for it
// (runtimeCallOf), and checks every element of its destination block
// against the formula.
//
//===----------------------------------------------------------------------===//

#include "Execute.h"

#include "shardc/Dialect/ElementTypes.h"
#include "shardc/Layout/Exchange.h"
#include "shardc/Passes/RuntimeCalls.h"
#include "shardc/Planning/ShardPlanner.h"
#include "shardc/Run/Run.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

using namespace mlir;
using namespace shardc;

std::optional<Dtype> shardc::executableDtype(Type type) {
  const ElementTypeInfo *row = lookupElementType(type);
  if (!row || !row->hasRuntime())
    return std::nullopt;
  return Dtype{static_cast<shardrt_dtype>(row->runtimeDtype), row->bytes};
}

namespace {

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

/// Whether CUDA layouts run on this rank's GPU: the runtime has its NCCL
/// backend and sees a GPU (shard-run's rule). Otherwise they run as the CPU
/// devices of the same ranks, on host buffers.
bool cudaOnGpu() { return shardrt_cuda_devices() > 0; }

/// Bytes in host memory, or, for a call on the GPU, in the runtime's CUDA
/// managed memory (_mlir_memref_to_llvm_alloc: what compiled programs
/// allocate with).
class Bytes {
public:
  Bytes() = default;
  Bytes(const Bytes &) = delete;
  Bytes &operator=(const Bytes &) = delete;
  ~Bytes() { release(); }

  void assign(size_t n, char value, bool onDevice) {
    release();
    size_ = n;
    if (n == 0)
      return;
    device_ = onDevice;
    bytes_ = static_cast<char *>(onDevice ? _mlir_memref_to_llvm_alloc(n)
                                          : std::malloc(n));
    std::memset(bytes_, value, n);
  }
  char *data() { return bytes_; }
  const char *data() const { return bytes_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  char *begin() { return bytes_; }
  char *end() { return bytes_ + size_; }

private:
  void release() {
    if (bytes_)
      device_ ? _mlir_memref_to_llvm_free(bytes_) : std::free(bytes_);
    bytes_ = nullptr;
    size_ = 0;
  }
  char *bytes_ = nullptr;
  size_t size_ = 0;
  bool device_ = false;
};

/// This rank's blocks of `table`, packed row-major one after the other in
/// table order in `data` (allocated here); `view` shows the first one (or
/// no data when the rank owns none), for the calls that take one view.
struct LocalBlock {
  std::vector<int64_t> blocks, starts;
  std::vector<int64_t> sizes, strides;
  Bytes data;
  shardrt_tensor view{};

  void *packed() { return data.empty() ? nullptr : data.data(); }
};

/// `device`: the layouts' device as the call runs it (CUDA only on a GPU).
void makeLocal(const layout::BlockTable &table, int rank, int64_t tensorRank,
               const Dtype &dtype, LocalBlock &block,
               int32_t device = SHARDRT_DEVICE_CPU) {
  block.blocks = table.blocksOf(rank);
  int64_t total = 0;
  for (int64_t b : block.blocks) {
    block.starts.push_back(total);
    total += table.volumes[b];
  }
  block.data.assign(total * dtype.bytes, 0, device == SHARDRT_DEVICE_CUDA);
  block.sizes.assign(tensorRank, 0);
  block.strides.assign(tensorRank, 1);
  if (!block.blocks.empty()) {
    block.sizes = table.boxes[block.blocks[0]].sizes;
    for (int64_t d = tensorRank - 1; d > 0; --d)
      block.strides[d - 1] = block.strides[d] * block.sizes[d];
  }
  block.view.data = block.packed();
  block.view.dtype = dtype.rt;
  block.view.device = device;
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
partialReduceOf(const planning::PlanLayout &layout) {
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
  const int32_t device = call.device == SHARDRT_DEVICE_CUDA && cudaOnGpu()
                             ? SHARDRT_DEVICE_CUDA
                             : SHARDRT_DEVICE_CPU;
  auto rows = [&](const std::vector<int64_t> &table) {
    return static_cast<int64_t>(table.size()) / cols;
  };
  if (call.function == Fn::AllGather || call.function == Fn::ExchangeToWorld) {
    // Every rank receives the whole tensor.
    layout::BlockTable whole;
    llvm::ArrayRef<int64_t> shape = call.from.getShape();
    whole.boxes.push_back({std::vector<int64_t>(tensorRank, 0), shape.vec()});
    whole.owners.push_back(rank);
    whole.volumes.push_back(*layout::volume(shape.vec()));
    makeLocal(whole, rank, tensorRank, dtype, out, device);
  } else {
    makeLocal(layout::blockTableOf(call.to.getDeviceBlocks()), rank, tensorRank,
              dtype, out, device);
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
  case Fn::ExchangeToWorld:
    status = shardrt_exchange_to_world(
        &in.view, &out.view, call.fromTable.data(), rows(call.fromTable));
    break;
  case Fn::Scatter:
    status = shardrt_scatter(&in.view, &out.view, call.toTable.data(),
                             rows(call.toTable), call.root);
    break;
  case Fn::Redistribute:
    status =
        call.packed
            ? shardrt_redistribute_packed(
                  in.packed(), out.packed(), dtype.rt, device, tensorRank,
                  call.fromTable.data(), rows(call.fromTable),
                  call.toTable.data(), rows(call.toTable))
            : shardrt_redistribute(&in.view, &out.view, call.fromTable.data(),
                                   rows(call.fromTable), call.toTable.data(),
                                   rows(call.toTable));
    break;
  case Fn::RedistributeReduce:
    status = call.packed
                 ? shardrt_redistribute_reduce_packed(
                       in.packed(), out.packed(), dtype.rt, device, tensorRank,
                       call.fromTable.data(), rows(call.fromTable),
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

/// The most bytes any rank holds of `table`'s blocks, or nullopt on
/// overflow.
std::optional<int64_t> mostBytesOnARank(const layout::BlockTable &table,
                                        const Dtype &dtype) {
  llvm::DenseMap<int64_t, int64_t> perRank;
  int64_t most = 0;
  for (size_t b = 0; b < table.owners.size(); ++b) {
    int64_t &held = perRank[table.owners[b]];
    int64_t bytes = 0;
    if (__builtin_mul_overflow(table.volumes[b], int64_t(dtype.bytes),
                               &bytes) ||
        __builtin_add_overflow(held, bytes, &held))
      return std::nullopt;
    most = std::max(most, held);
  }
  return most;
}

/// The buffers of `program` on one rank (its source blocks and every
/// call's result, all kept until the end) at most, alike on every rank, or
/// nullopt on overflow.
std::optional<int64_t> bytesNeeded(func::FuncOp fn, ShardedTensorType from,
                                   const Dtype &dtype) {
  std::optional<int64_t> total =
      mostBytesOnARank(layout::blockTableOf(from.getDeviceBlocks()), dtype);
  if (!total)
    return std::nullopt;
  for (Operation &op : fn.getBody().front()) {
    if (!isSpmdCollective(&op))
      continue;
    FailureOr<RuntimeCall> call = runtimeCallOf(&op);
    if (failed(call))
      continue;
    std::optional<int64_t> out;
    if (call->function == RuntimeCall::Function::AllGather ||
        call->function == RuntimeCall::Function::ExchangeToWorld) {
      std::optional<int64_t> volume =
          layout::volume(call->from.getShape().vec());
      int64_t bytes = 0;
      if (volume &&
          !__builtin_mul_overflow(*volume, int64_t(dtype.bytes), &bytes))
        out = bytes;
    } else {
      out = mostBytesOnARank(layout::blockTableOf(call->to.getDeviceBlocks()),
                             dtype);
    }
    int64_t sum = 0;
    if (!out || __builtin_add_overflow(*total, *out, &sum))
      return std::nullopt;
    total = sum;
  }
  return total;
}

/// Runs the planned program (-shard-plan-redistribute's output) on this
/// rank, collective by collective, and checks its
/// destination block. Returns whether this rank is fine; `report` gets its
/// lines ("rank R: OK, ...").
} // namespace

bool shardc::executeOnRank(ModuleOp program, ShardedTensorType from,
                           ShardedTensorType to, const planning::Plan &plan,
                           int rank, const Dtype &dtype, std::string &report) {
  planning::PlanLayout src = planning::planLayoutOf(from);
  llvm::ArrayRef<int64_t> shape = from.getShape();
  int64_t tensorRank = from.getRank();
  std::optional<layout::Placement::Reduce> reduce = partialReduceOf(src);
  // Real buffers: what no rank's memory holds is refused on every rank
  // alike (from the layouts), before any call.
  func::FuncOp fn = *program.getOps<func::FuncOp>().begin();
  const std::optional<int64_t> needed = bytesNeeded(fn, from, dtype);
  const int64_t memory = run::memoryLimitBytes();
  if (!needed || *needed > memory) {
    report += "rank " + std::to_string(rank) +
              ": ERROR: the planned program's buffers need " +
              (needed ? std::to_string(*needed) + " bytes"
                      : std::string("more bytes than int64 counts")) +
              " on a rank, more than it may allocate (" +
              std::to_string(memory) +
              " bytes); --execute moves real buffers (plan and --report "
              "need none)\n";
    return false;
  }
  // The layouts name one kind of device (mixed ones are refused).
  const bool onGpu =
      cudaOnGpu() && llvm::any_of(from.getBlocks(), [](const layout::Block &b) {
        return b.placement.kind == layout::Device::Kind::CUDA;
      });
  auto in = std::make_unique<LocalBlock>();
  makeLocal(src.table, rank, tensorRank, dtype, *in,
            onGpu ? SHARDRT_DEVICE_CUDA : SHARDRT_DEVICE_CPU);
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
