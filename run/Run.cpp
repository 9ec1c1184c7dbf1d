//===- Run.cpp - Run a sharded program on MPI ranks and check it ----------===//
//
// Inputs, runs and checks; what runs is compiled by Compile.cpp.
//===----------------------------------------------------------------------===//

#include "shardc/Run/Run.h"
#include "Compile.h"
#include "Progress.h"
#include "RankZero.h"

#include "shardc/Dialect/Shard.h"
#include "shardc/Layout/Collectives.h"
#include "shardc/Passes/Passes.h"
#include "shardc/Planning/ShardPlanner.h"
#include "shardc/Rules/LoopSharding.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/RuntimeOpVerification.h"
#include "mlir/Dialect/Tensor/Transforms/RuntimeOpVerification.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <mpi.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <map>
#include <memory>

using namespace mlir;
using namespace shardc;
using namespace shardc::run;
using namespace shardc::run::detail;

namespace {

/// Bytes of one element as a buffer holds it (i1: one byte).
int64_t storedBytes(Type type) {
  if (type.isInteger(1))
    return 1;
  return elementBytes(type);
}

/// Writes the small integer `value` as an element of `type` (exact: every
/// float type holds integers up to 2^8 exactly).
void writeElement(char *at, Type type, int64_t value) {
  if (auto floatType = dyn_cast<FloatType>(type)) {
    llvm::APFloat f(floatType.getFloatSemantics());
    bool lost = false;
    (void)f.convertFromAPInt(llvm::APInt(64, value, /*isSigned=*/true), true,
                             llvm::APFloat::rmNearestTiesToEven);
    (void)lost;
    llvm::APInt bits = f.bitcastToAPInt();
    std::memcpy(at, bits.getRawData(), storedBytes(type));
    return;
  }
  if (type.isInteger(1)) {
    *at = static_cast<char>(value & 1);
    return;
  }
  llvm::APInt bits(type.getIntOrFloatBitWidth(), value, /*isSigned=*/true);
  std::memcpy(at, bits.getRawData(), storedBytes(type));
}

/// An element of `type` as a double (integers exactly up to 2^53).
double readElement(const char *at, Type type) {
  unsigned width = type.isInteger(1) ? 8 : type.getIntOrFloatBitWidth();
  uint64_t raw = 0;
  std::memcpy(&raw, at, storedBytes(type));
  llvm::APInt bits(width, raw);
  if (auto floatType = dyn_cast<FloatType>(type))
    return llvm::APFloat(floatType.getFloatSemantics(), bits).convertToDouble();
  if (type.isInteger(1))
    return static_cast<double>(raw & 1);
  if (type.isUnsignedInteger())
    return static_cast<double>(bits.getZExtValue());
  return static_cast<double>(bits.getSExtValue());
}

/// The bits of an integer (or index) element type.
unsigned integerWidth(Type type) {
  return isa<IndexType>(type) ? 64 : type.getIntOrFloatBitWidth();
}

/// An integer element's bits (its width's low bits of what is stored),
/// compared exactly: a double holds no more than 53 of an i64's. None for
/// a float element.
std::optional<uint64_t> integerBits(const char *at, Type type) {
  if (isa<FloatType>(type))
    return std::nullopt;
  const unsigned width = integerWidth(type);
  uint64_t raw = 0;
  std::memcpy(&raw, at, storedBytes(type));
  return width >= 64 ? raw : raw & ((uint64_t(1) << width) - 1);
}

/// `bits` of an integer element of `type` as its value: sign-extended for
/// a signless or signed integer, as it is for an unsigned one (for the
/// messages, and for comparing a Partial(max/min) result's copies).
int64_t integerValue(uint64_t bits, Type type) {
  const unsigned width = integerWidth(type);
  if (width >= 64 || type.isUnsignedInteger() || type.isInteger(1))
    return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t(1) << (width - 1);
  return static_cast<int64_t>((bits ^ sign) - sign);
}

std::string formatIndex(ArrayRef<int64_t> index) {
  std::string text = "[";
  for (size_t i = 0; i < index.size(); ++i)
    text += (i ? ", " : "") + std::to_string(index[i]);
  return text + "]";
}

/// A dense row-major tensor and its memref descriptor (allocated pointer,
/// aligned pointer, offset, sizes, strides), as the C interface takes it.
struct Buffer {
  Type elementType;
  std::vector<int64_t> shape;
  std::vector<char> data;
  std::vector<int64_t> descriptor;
  /// The copy the program reads instead of `data`, in the runtime's memory
  /// (CUDA managed memory for layouts on the GPU), once placed.
  std::shared_ptr<char> placed;

  /// Copies the data into the runtime's memory, where the program reads it.
  void place(const RuntimeSymbols &memory) {
    char *p = static_cast<char *>(memory.alloc(data.size()));
    std::memcpy(p, data.data(), data.size());
    placed = std::shared_ptr<char>(p, memory.free);
    descriptor[0] = descriptor[1] = reinterpret_cast<int64_t>(p);
  }

  Buffer(Type elementType, std::vector<int64_t> shape)
      : elementType(elementType), shape(std::move(shape)) {
    int64_t n = 1;
    for (int64_t s : this->shape)
      n *= s;
    data.assign(std::max<int64_t>(n, 1) * storedBytes(elementType), 0);
    auto pointer = reinterpret_cast<int64_t>(data.data());
    descriptor = {pointer, pointer, 0};
    descriptor.insert(descriptor.end(), this->shape.begin(), this->shape.end());
    std::vector<int64_t> strides(this->shape.size(), 1);
    for (int64_t d = static_cast<int64_t>(this->shape.size()) - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * this->shape[d + 1];
    descriptor.insert(descriptor.end(), strides.begin(), strides.end());
  }
};

/// A result as the callee returned it: a view of a descriptor.
struct View {
  Type elementType;
  const int64_t *descriptor;
  int64_t rank;

  int64_t size(int64_t d) const { return descriptor[3 + d]; }
  const char *at(ArrayRef<int64_t> index) const {
    int64_t linear = descriptor[2];
    for (int64_t d = 0; d < rank; ++d)
      linear += index[d] * descriptor[3 + rank + d];
    return reinterpret_cast<const char *>(descriptor[1]) +
           linear * storedBytes(elementType);
  }
};

/// Calls every index of `shape` in row-major order.
void forEachIndex(ArrayRef<int64_t> shape,
                  llvm::function_ref<void(ArrayRef<int64_t>)> fn) {
  for (int64_t s : shape)
    if (s == 0)
      return;
  SmallVector<int64_t> index(shape.size(), 0);
  while (true) {
    fn(index);
    int64_t d = static_cast<int64_t>(shape.size()) - 1;
    for (; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// A 64-bit mix of `x` (splitmix64's finalizer): neighbouring inputs give
/// unrelated outputs.
uint64_t mixBits(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The deterministic value of element `linear` of argument `arg`: a small
/// integer in [-6, 6], exact in every dtype.
int64_t inputValue(int64_t arg, int64_t linear) {
  return (linear * 7 + arg * 5) % 13 - 6;
}

/// Argument `arg`'s whole tensor of type `tensor`, every element
/// inputValue(arg, its row-major index); an integer or index element within
/// `intRange` where one is given (spread over it alike).
Buffer globalInput(RankedTensorType tensor, int64_t arg,
                   const std::optional<std::array<int64_t, 2>> &intRange) {
  Buffer global(tensor.getElementType(), tensor.getShape().vec());
  int64_t linear = 0;
  const int64_t bytes = storedBytes(tensor.getElementType());
  const bool ranged =
      intRange && isa<IntegerType, IndexType>(tensor.getElementType());
  const uint64_t span =
      ranged ? static_cast<uint64_t>((*intRange)[1] - (*intRange)[0]) + 1 : 0;
  // In a range, consecutive elements take consecutive values (every value
  // of it where there are as many elements, whatever its span: a stride of
  // 7 took one value where the span was a multiple of 7).
  forEachIndex(tensor.getShape(), [&](ArrayRef<int64_t>) {
    const int64_t value =
        ranged ? (*intRange)[0] +
                     static_cast<int64_t>((static_cast<uint64_t>(linear) +
                                           static_cast<uint64_t>(arg) * 5) %
                                          span)
               : inputValue(arg, linear);
    writeElement(global.data.data() + linear * bytes, tensor.getElementType(),
                 value);
    ++linear;
  });
  return global;
}

/// Views of the results an entry of type `type` returned: their
/// descriptors, one after the other in `descriptors`.
std::vector<View> resultViews(FunctionType type,
                              const std::vector<int64_t> &descriptors) {
  std::vector<View> views;
  int64_t offset = 0;
  for (Type t : type.getResults()) {
    auto tensor = cast<RankedTensorType>(t);
    const int64_t r = tensor.getRank();
    views.push_back({tensor.getElementType(), descriptors.data() + offset, r});
    offset += 3 + 2 * r;
  }
  return views;
}

/// Bytes of a buffer of `sizes` elements of `element`, or nullopt when
/// int64 cannot count them.
std::optional<int64_t> bufferBytes(const std::vector<int64_t> &sizes,
                                   Type element) {
  std::optional<int64_t> n = layout::volume(sizes);
  int64_t bytes = 0;
  if (!n || __builtin_mul_overflow(*n, storedBytes(element), &bytes))
    return std::nullopt;
  return bytes;
}

/// The blocks of global type `type` this rank owns, in table order; the
/// whole tensor of `whole` when there is no global type (a function that is
/// not partitioned).
std::vector<layout::Box> blocksOf(ShardedTensorType type,
                                  RankedTensorType whole, int rank) {
  if (!type)
    return {layout::Box{std::vector<int64_t>(whole.getRank(), 0),
                        whole.getShape().vec()}};
  std::vector<layout::Box> mine;
  for (const layout::Block &block : type.getDeviceBlocks())
    if (block.placement.rank == rank)
      mine.push_back(block.box);
  return mine;
}

/// Where strided shards cut `type` (its several blocks are the rows of an
/// N-D local tensor): this rank's local shape; nullopt for other layouts.
std::optional<std::vector<int64_t>> rowsShapeOf(ShardedTensorType type,
                                                int rank) {
  if (!type || !typeFacts(type).rowsPacked)
    return std::nullopt;
  auto shapes = stridedLocalShapes(type);
  for (const auto &[owner, shape] : *shapes)
    if (owner == rank)
      return shape;
  return std::nullopt;
}

std::vector<Buffer> shareResults(FunctionType type,
                                 const std::vector<int64_t> &descriptors,
                                 int rank) {
  std::vector<View> views;
  if (rank == 0)
    views = resultViews(type, descriptors);
  std::vector<Buffer> shared;
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    auto tensor = cast<RankedTensorType>(t);
    std::vector<int64_t> sizes(tensor.getRank(), 0);
    if (rank == 0)
      for (int64_t d = 0; d < tensor.getRank(); ++d)
        sizes[d] = views[i].size(d);
    broadcastRaw(sizes.data(),
                 static_cast<long long>(sizes.size() * sizeof(int64_t)));
    Buffer &b = shared.emplace_back(tensor.getElementType(), sizes);
    if (rank == 0) {
      const int64_t bytes = storedBytes(tensor.getElementType());
      char *to = b.data.data();
      forEachIndex(sizes, [&](ArrayRef<int64_t> index) {
        std::memcpy(to, views[i].at(index), bytes);
        to += bytes;
      });
    }
    broadcastRaw(b.data.data(), static_cast<long long>(b.data.size()));
  }
  return shared;
}

/// descriptors land in `results` (one after the other).
LogicalResult call(Compiled &compiled, const std::string &entry,
                   std::vector<Buffer> &args, std::vector<int64_t> &results,
                   Location loc) {
  FunctionType type = compiled.type;
  int64_t fields = 0;
  for (Type t : type.getResults())
    fields += 3 + 2 * cast<RankedTensorType>(t).getRank();
  results.assign(std::max<int64_t>(fields, 1), 0);
  void *resultPointer = results.data();
  std::vector<void *> argPointers;
  for (Buffer &b : args)
    argPointers.push_back(b.descriptor.data());
  SmallVector<void *> packed;
  if (type.getNumResults() > 0)
    packed.push_back(&resultPointer);
  for (void *&p : argPointers)
    packed.push_back(&p);
  if (llvm::Error error =
          compiled.engine->invokePacked(("_mlir_ciface_" + entry), packed)) {
    std::string text = llvm::toString(std::move(error));
    // The JIT names the entry's wrappers it could not make; what it did
    // not find (on stderr, "Symbols not found") is a function the program
    // declares without a body.
    if (llvm::StringRef(text).contains("Failed to materialize symbols") &&
        !compiled.declared.empty()) {
      std::string names;
      for (const std::string &name : compiled.declared)
        names += (names.empty() ? "@" : ", @") + name;
      return emitError(loc)
             << "shard-run: calling @" << entry
             << " failed: a function the program declares without a body ("
             << (compiled.declared.size() > 1 ? "one of " : "") << names
             << ") is defined by neither the C library nor MLIR's runner "
                "utilities (the JIT names it above, \"Symbols not found\"); "
                "give it a body in the program";
    }
    return emitError(loc) << "shard-run: calling @" << entry
                          << " failed: " << text;
  }
  return success();
}

/// The first number in the file at `path`, or nullopt (absent, "max").
std::optional<int64_t> readNumber(const char *path) {
  std::ifstream in(path);
  long long value = 0;
  if (!(in >> value))
    return std::nullopt;
  return value;
}

/// Bytes of a tensor of `type` (shape times element bytes), or nullopt when
/// int64 cannot count them.
std::optional<int64_t> tensorBytes(RankedTensorType type) {
  return bufferBytes(type.getShape().vec(), type.getElementType());
}

/// `a + b`, or nullopt on overflow (of either).
std::optional<int64_t> addBytes(std::optional<int64_t> a,
                                std::optional<int64_t> b) {
  int64_t sum = 0;
  if (!a || !b || __builtin_add_overflow(*a, *b, &sum))
    return std::nullopt;
  return sum;
}

/// How far the program as written rounds each f32, f16 or bf16 result: the
/// largest difference over the whole result between `wholeResults` (its
/// results) and the same program in f64 on the same inputs; 0 for other
/// results.
/// Nullopt where the f64 program cannot be made or run (then nothing is
/// said: the caller keeps its first tolerance).
/// The float types whose rounding roundingOfWritten measures.
bool roundedElement(Type type) {
  return type.isF32() || type.isF16() || type.isBF16();
}

std::optional<std::vector<double>>
roundingOfWritten(ModuleOp module, const RunOptions &options, FunctionType type,
                  const std::vector<int64_t> &wholeResults) {
  ScopedDiagnosticHandler quiet(module.getContext(),
                                [](Diagnostic &) { return success(); });
  FailureOr<Compiled> wide =
      compile(module, options, /*partitioned=*/false, "", /*widen=*/true);
  if (failed(wide))
    return std::nullopt;
  // (Dynamic dims at --dynamic-size, as the programs compared ran.)
  std::vector<Buffer> inputs;
  for (auto [i, t] : llvm::enumerate(
           concreteType(wide->type, options.dynamicSize).getInputs()))
    inputs.push_back(
        globalInput(cast<RankedTensorType>(t), i, options.intRange));
  std::vector<int64_t> exact;
  if (failed(call(*wide, options.entry, inputs, exact, module.getLoc())))
    return std::nullopt;
  std::vector<double> errors(type.getNumResults(), 0);
  std::vector<View> written = resultViews(type, wholeResults);
  std::vector<View> reference = resultViews(wide->type, exact);
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    auto tensor = cast<RankedTensorType>(t);
    if (!roundedElement(tensor.getElementType()))
      continue;
    forEachIndex(tensor.getShape(), [&](ArrayRef<int64_t> index) {
      double a = readElement(written[i].at(index), written[i].elementType);
      double b = readElement(reference[i].at(index), reference[i].elementType);
      if (std::isfinite(a) && std::isfinite(b))
        errors[i] = std::max(errors[i], std::abs(a - b));
    });
  }
  return errors;
}

/// A Partial result's copies reduced: floats as doubles (`values`),
/// integers exactly, wrapping in their width as the program's arithmetic
/// does (`bits`).
struct ReducedCopies {
  std::vector<double> values;
  std::vector<uint64_t> bits;
};

/// `mine` (each element's bits, row-major) reduced with the same of every
/// other member of `comm` by `reduce`, in `type`'s width: sums and
/// products wrap, max and min compare signed (unsigned for ui types), avg
/// divides the wrapped sum (truncating toward zero), as the runtime does.
std::vector<uint64_t> reducedIntegers(const std::vector<uint64_t> &mine,
                                      layout::Placement::Reduce reduce,
                                      Type type, MPI_Comm comm) {
  int members = 1;
  MPI_Comm_size(comm, &members);
  const size_t n = mine.size();
  std::vector<uint64_t> all(n * static_cast<size_t>(members));
  MPI_Allgather(mine.data(), static_cast<int>(n), MPI_UINT64_T, all.data(),
                static_cast<int>(n), MPI_UINT64_T, comm);
  const unsigned width = integerWidth(type);
  const uint64_t mask = width >= 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  const bool isUnsigned = type.isUnsignedInteger() || type.isInteger(1);
  using Reduce = layout::Placement::Reduce;
  std::vector<uint64_t> out(n);
  for (size_t e = 0; e < n; ++e) {
    uint64_t acc = all[e];
    for (int m = 1; m < members; ++m) {
      const uint64_t x = all[static_cast<size_t>(m) * n + e];
      const int64_t sa = integerValue(acc, type), sx = integerValue(x, type);
      const bool xAbove = isUnsigned ? x > acc : sx > sa;
      switch (reduce) {
      case Reduce::Product:
        acc = (acc * x) & mask;
        break;
      case Reduce::Max:
        acc = xAbove ? x : acc;
        break;
      case Reduce::Min:
        acc = (isUnsigned ? x < acc : sx < sa) ? x : acc;
        break;
      default: // Sum, Avg
        acc = (acc + x) & mask;
        break;
      }
    }
    if (reduce == Reduce::Avg)
      acc =
          isUnsigned
              ? acc / static_cast<uint64_t>(members)
              : static_cast<uint64_t>(integerValue(acc, type) / members) & mask;
    out[e] = acc;
  }
  return out;
}

/// This rank's copy of a Partial result reduced with the copies of the
/// other ranks of its group (those at the same position on every mesh
/// axis but the Partial ones), in the row-major order of its block: the
/// value the copies stand for. A collective: every rank of the world calls
/// it alike, in the same order; empty where this rank holds no copy.
ReducedCopies reducedCopies(PlacementsSpecAttr spec, const View &got,
                            RankedTensorType local, int rank) {
  const layout::Mesh &mesh = spec.getMesh().getMesh();
  std::vector<layout::Placement> placements(spec.getPlacements().begin(),
                                            spec.getPlacements().end());
  bool mixed = false;
  const layout::Placement::Reduce reduce =
      *layout::partialReduce(placements, mixed);
  // The group: the ranks along the Partial axes with this rank (the
  // layout library's groups of a collective over those axes).
  std::vector<int64_t> partialAxes;
  for (size_t a = 0; a < placements.size(); ++a)
    if (placements[a].kind == layout::Placement::Kind::Partial)
      partialAxes.push_back(static_cast<int64_t>(a));
  int color = MPI_UNDEFINED;
  const std::vector<std::vector<int64_t>> groups =
      layout::meshGroups(mesh, partialAxes);
  for (size_t group = 0; group < groups.size(); ++group)
    if (llvm::is_contained(groups[group], rank))
      color = static_cast<int>(group);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &comm);
  if (comm == MPI_COMM_NULL)
    return {};
  llvm::scope_exit releaseComm([&] { MPI_Comm_free(&comm); });
  SmallVector<int64_t> sizes;
  for (int64_t d = 0; d < got.rank; ++d)
    sizes.push_back(got.size(d));
  const Type element = local.getElementType();
  if (!isa<FloatType>(element)) {
    std::vector<uint64_t> bits;
    forEachIndex(sizes, [&](ArrayRef<int64_t> index) {
      bits.push_back(*integerBits(got.at(index), element));
    });
    return {{}, reducedIntegers(bits, reduce, element, comm)};
  }
  std::vector<double> values;
  forEachIndex(sizes, [&](ArrayRef<int64_t> index) {
    values.push_back(readElement(got.at(index), element));
  });
  std::vector<double> reduced(values.size());
  MPI_Op op = reduce == layout::Placement::Reduce::Product ? MPI_PROD
              : reduce == layout::Placement::Reduce::Max   ? MPI_MAX
              : reduce == layout::Placement::Reduce::Min   ? MPI_MIN
                                                           : MPI_SUM;
  MPI_Allreduce(values.data(), reduced.data(), static_cast<int>(values.size()),
                MPI_DOUBLE, op, comm);
  if (reduce == layout::Placement::Reduce::Avg) {
    int members = 1;
    MPI_Comm_size(comm, &members);
    for (double &v : reduced)
      v /= members;
  }
  return {std::move(reduced), {}};
}

} // namespace

int64_t shardc::run::memoryLimitBytes() {
  int64_t limit = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) *
                  static_cast<int64_t>(sysconf(_SC_PAGESIZE));
  if (limit <= 0)
    limit = INT64_MAX;
  // What the process maps already: pages of its address space and of its
  // data (/proc/self/statm: size, resident, shared, text, lib, data).
  int64_t mapped = 0, data = 0;
  {
    std::ifstream statm("/proc/self/statm");
    long long size = 0, resident = 0, shared = 0, text = 0, lib = 0, d = 0;
    if (statm >> size >> resident >> shared >> text >> lib >> d) {
      mapped = size * sysconf(_SC_PAGESIZE);
      data = d * sysconf(_SC_PAGESIZE);
    }
  }
  auto lower = [&](int resource, int64_t used) {
    struct rlimit r;
    if (getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
      limit = std::min(
          limit, std::max<int64_t>(0, static_cast<int64_t>(r.rlim_cur) - used));
  };
  lower(RLIMIT_AS, mapped);
  lower(RLIMIT_DATA, data);
  // cgroup v2: this process's group (the unified hierarchy's root when the
  // group is not visible).
  if (std::optional<int64_t> max = readNumber("/sys/fs/cgroup/memory.max"))
    limit = std::min(
        limit,
        std::max<int64_t>(
            0, *max - readNumber("/sys/fs/cgroup/memory.current").value_or(0)));
  return limit;
}

namespace {

/// What runProgram works on, from step to step.
struct RunState {
  ModuleOp module;
  const RunOptions &options;
  func::FuncOp entry;
  Location loc;
  int rank, world;
  FunctionType type;
  RunOutcome outcome;
  /// Every argument whole, and this rank's blocks of each.
  std::vector<Buffer> whole, local;
  FailureOr<Compiled> partitioned = failure();
};

/// The extents of the results' dynamic dims in this run, read from the
/// result blocks (--dynamic-size stands for them until the program has
/// run): a dim whole in every block has this rank's block's extent; a dim a
/// layout cuts has the blocks' sizes summed across the ranks (each chunk
/// counted once), and every rank's block must be its torch.chunk of that.
/// The run's type and the results' layouts take them. Every rank calls it.
LogicalResult takeResultExtents(RunState &st,
                                const std::vector<int64_t> &localResults) {
  FunctionType entryType = st.entry.getFunctionType();
  std::vector<View> views = resultViews(st.partitioned->type, localResults);
  SmallVector<Type> results(st.type.getResults());
  bool ok = true;
  for (auto [i, t] : llvm::enumerate(entryType.getResults())) {
    auto tensor = cast<RankedTensorType>(t);
    ShardedTensorType &global = st.partitioned->resultGlobal[i];
    if (tensor.hasStaticShape() || !global || severalPerRank(global) ||
        views[i].rank != tensor.getRank())
      continue;
    // (`global` has the dims --dynamic-size gave; the cuts are the
    // program's, on its dynamic dims.)
    std::vector<DimCut> cuts = dynamicDimCuts(
        ShardedTensorType::get(global.getContext(), tensor.getShape(),
                               global.getElementType(), global.getSpec()));
    SmallVector<int64_t> dims(tensor.getShape());
    for (int64_t d = 0; d < tensor.getRank(); ++d) {
      if (!tensor.isDynamicDim(d))
        continue;
      dims[d] = views[i].size(d);
      if (!cuts[d].cuts())
        continue;
      // Summed over the world; each chunk is held by as many ranks as the
      // mesh has positions per chunk.
      int64_t held = views[i].size(d), sum = 0;
      MPI_Allreduce(&held, &sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
      int64_t chunks = 1;
      for (int64_t c : cuts[d].counts)
        chunks *= c;
      const int64_t positions = *cast<PlacementsSpecAttr>(global.getSpec())
                                     .getMesh()
                                     .getMesh()
                                     .size();
      dims[d] = sum / (positions / chunks);
    }
    ShardedTensorType taken = ShardedTensorType::get(
        global.getContext(), dims, global.getElementType(), global.getSpec());
    // Every block as torch.chunk cuts the extents taken.
    for (const layout::Box &box : blocksOf(taken, tensor, st.rank))
      for (int64_t d = 0; d < tensor.getRank(); ++d)
        if (cuts[d].cuts() && box.sizes[d] != views[i].size(d) && ok) {
          ok = false;
          st.entry.emitError()
              << "shard-run: rank " << st.rank << "'s block of result #" << i
              << " has " << views[i].size(d) << " elements in dynamic dim " << d
              << ", but its layout's chunk of the " << dims[d]
              << " the ranks' blocks hold is " << box.sizes[d];
        }
    results[i] = RankedTensorType::get(dims, tensor.getElementType());
    global = taken;
  }
  st.type =
      FunctionType::get(st.type.getContext(), st.type.getInputs(), results);
  // Every rank stops where one does (the others would wait in the check).
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (ok && !all)
    return st.entry.emitError()
           << "shard-run: rank " << st.rank
           << " stops: another rank's result blocks are not its layout's "
              "chunks (see its message)";
  return success(ok);
}

/// The extents takeResultExtents read from this rank's blocks against the
/// program as written's results.
LogicalResult checkResultExtents(RunState &st,
                                 const std::vector<int64_t> &wholeResults) {
  FunctionType entryType = st.entry.getFunctionType();
  std::vector<View> views = resultViews(entryType, wholeResults);
  for (auto [i, t] : llvm::enumerate(entryType.getResults())) {
    auto tensor = cast<RankedTensorType>(t);
    auto taken = cast<RankedTensorType>(st.type.getResult(i));
    for (int64_t d = 0; d < tensor.getRank(); ++d)
      if (tensor.isDynamicDim(d) && views[i].size(d) != taken.getDimSize(d))
        return st.entry.emitError()
               << "shard-run: result #" << i << " has " << taken.getDimSize(d)
               << " elements in dynamic dim " << d
               << ", but the program as written returns " << views[i].size(d);
  }
  return success();
}

/// Real buffers: refused on every rank alike when this rank's memory
/// cannot hold them.
LogicalResult checkMemory(RunState &st) {
  auto &[module, options, entry, loc, rank, world, type, outcome, whole, local,
         partitioned] = st;
  // Real buffers: refused on every rank alike when this rank's memory
  // cannot hold them (before, f32[1e11] ended in "LLVM ERROR: out of
  // memory" and a stack dump, and f32[6e8] under a 6 GB limit in a
  // segfault of the JIT-compiled code, whose allocations are unchecked).
  // Counted: every argument's whole tensor (each rank fills it) and this
  // rank's block of it, each result's block, and with --check every
  // result whole and the largest tensor the program as written makes.
  std::optional<int64_t> needed = 0;
  auto localBytes = [&](ShardedTensorType g,
                        RankedTensorType t) -> std::optional<int64_t> {
    std::optional<int64_t> sum = 0;
    for (const layout::Box &box : blocksOf(g, t, rank))
      sum = addBytes(sum, bufferBytes(box.sizes, t.getElementType()));
    return sum;
  };
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    auto tensor = cast<RankedTensorType>(t);
    needed = addBytes(needed, tensorBytes(tensor));
    needed = addBytes(needed, localBytes(partitioned->argGlobal[i], tensor));
  }
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    auto tensor = cast<RankedTensorType>(t);
    needed = addBytes(needed, localBytes(partitioned->resultGlobal[i], tensor));
    if (options.check)
      needed = addBytes(needed, tensorBytes(tensor));
  }
  if (options.check) {
    std::optional<int64_t> largest = 0;
    module.walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        if (auto tensor = dyn_cast<RankedTensorType>(t))
          if (tensor.hasStaticShape() && largest) {
            std::optional<int64_t> bytes = tensorBytes(tensor);
            largest = bytes ? std::optional<int64_t>(std::max(*largest, *bytes))
                            : std::nullopt;
          }
    });
    needed = addBytes(needed, largest);
  }
  const int64_t memory = memoryLimitBytes();
  if (!needed || *needed > memory)
    return emitError(loc)
           << "shard-run: rank " << rank << " needs "
           << (needed ? std::to_string(*needed) + " bytes"
                      : std::string("more bytes than int64 counts"))
           << " of buffers at least (every argument whole and this rank's "
              "blocks of the arguments and results"
           << (options.check ? ", the results whole and the largest "
                               "tensor of the program as written"
                             : "")
           << "), more than it may allocate (" << memory
           << " bytes: physical memory, ulimit and cgroup limits)";

  return success();
}

/// Rank 0 writes the partitioned program's report (`reportPath`, each
/// rank's own) where asked.
LogicalResult writeReport(RunState &st, StringRef reportPath) {
  auto &[module, options, entry, loc, rank, world, type, outcome, whole, local,
         partitioned] = st;
  std::string reportText;
  if (auto buffer = llvm::MemoryBuffer::getFile(reportPath))
    reportText = (*buffer)->getBuffer().str();
  if (rank == 0 && !options.reportFile.empty()) {
    std::ofstream out(options.reportFile);
    out << (reportText.empty() ? std::string("{\"ops\": []}\n") : reportText);
    if (!out)
      return emitError(loc) << "shard-run: cannot write the report to '"
                            << options.reportFile << "'";
  }

  return success();
}

/// Fills `whole` and `local`: the global inputs, and this rank's blocks of
/// them (a Partial argument as its copies).
LogicalResult fillInputs(RunState &st) {
  auto &[module, options, entry, loc, rank, world, type, outcome, whole, local,
         partitioned] = st;
  // The global inputs, and this rank's blocks of them.
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    auto tensor = cast<RankedTensorType>(t);
    Buffer global = globalInput(tensor, i, options.intRange);
    const int64_t bytes = storedBytes(tensor.getElementType());
    ShardedTensorType g = partitioned->argGlobal[i];
    std::vector<layout::Box> boxes = blocksOf(g, tensor, rank);
    // A Partial argument: the value is the reduction of the copies, each
    // copy a part of it that the other copies alone do not give (a plan
    // that reads one copy, or reduces them the wrong way, is wrong): sum,
    // copy j > 0 holds r (a small integer, 1 to 3 either sign, drawn per
    // element and copy) and copy 0 the value less the others; product, the
    // others hold -1 or 1 and copy 0 the value times theirs; max (min),
    // the others hold the value less (plus) |r|; avg, the others hold the
    // value plus r and copy 0 less their sum. Exact in every dtype. Where
    // that is not possible (unsigned max, min or avg, where the value less
    // r wraps; past 16 copies; a layout of blocks), as before: sum and
    // product the identity past copy 0, the others every copy the value.
    // Every block of the rank.
    auto copiesOf = [&](Buffer &buffer) -> LogicalResult {
      auto spec = g ? dyn_cast<PlacementsSpecAttr>(g.getSpec()) : nullptr;
      if (!spec || !spec.hasPartial())
        return success();
      bool mixed = false;
      std::vector<layout::Placement> placements(spec.getPlacements().begin(),
                                                spec.getPlacements().end());
      std::optional<layout::Placement::Reduce> reduce =
          layout::partialReduce(placements, mixed);
      if (mixed)
        return entry.emitError()
               << "shard-run: argument #" << i << " is " << g
               << "; Partial axes that reduce differently cannot be fed";
      using Reduce = layout::Placement::Reduce;
      const Type element = tensor.getElementType();
      const int64_t n = static_cast<int64_t>(buffer.data.size()) /
                        std::max<int64_t>(bytes, 1);
      // This rank's copy and the group's copies.
      const layout::Mesh &mesh = spec.getMesh().getMesh();
      const std::vector<int64_t> copyOf =
          layout::meshPartialIndices(mesh, placements);
      int64_t members = 1, copy = -1;
      for (size_t a = 0; a < placements.size(); ++a)
        if (placements[a].kind == layout::Placement::Kind::Partial)
          members *= mesh.shape[a];
      for (size_t d = 0; d < copyOf.size(); ++d)
        if (mesh.deviceAt(static_cast<int64_t>(d)) == rank)
          copy = copyOf[d];
      const bool ordered = *reduce == Reduce::Max || *reduce == Reduce::Min ||
                           *reduce == Reduce::Avg;
      const bool split =
          copy >= 0 && members > 1 && members <= 16 &&
          !(ordered && (element.isUnsignedInteger() || element.isInteger(1)));
      if (split) {
        // The part copy j holds of element k (j > 0): 1 to 3, either sign.
        auto part = [&](int64_t k, int64_t j) {
          const uint64_t h = mixBits(static_cast<uint64_t>(k) * 131 +
                                     static_cast<uint64_t>(j) +
                                     mixBits(static_cast<uint64_t>(i) + 7));
          const int64_t magnitude = static_cast<int64_t>(h % 3) + 1;
          return (h >> 8) & 1 ? magnitude : -magnitude;
        };
        // Within the element type's range (max, min: else the value).
        const unsigned width =
            isa<FloatType>(element) ? 0 : integerWidth(element);
        auto fits = [&](int64_t v) {
          if (width == 0 || width >= 64)
            return true;
          const int64_t top = (int64_t(1) << (width - 1)) - 1;
          return v >= -top - 1 && v <= top;
        };
        for (int64_t k = 0; k < n; ++k) {
          char *at = buffer.data.data() + k * bytes;
          std::optional<uint64_t> bits = integerBits(at, element);
          const int64_t v =
              bits ? integerValue(*bits, element)
                   : static_cast<int64_t>(readElement(at, element));
          int64_t mine = v;
          int64_t others = 0, sign = 1;
          for (int64_t j = 1; j < members; ++j) {
            others += part(k, j);
            sign *= part(k, j) > 0 ? 1 : -1;
          }
          switch (*reduce) {
          case Reduce::Sum:
            mine = copy == 0 ? v - others : part(k, copy);
            break;
          case Reduce::Product:
            mine = copy == 0 ? v * sign : (part(k, copy) > 0 ? 1 : -1);
            break;
          case Reduce::Max:
          case Reduce::Min: {
            const int64_t r = part(k, std::max<int64_t>(copy, 1));
            const int64_t moved =
                *reduce == Reduce::Max ? v - std::abs(r) : v + std::abs(r);
            mine = copy == 0 || !fits(moved) ? v : moved;
            break;
          }
          case Reduce::Avg:
            mine = copy == 0 ? v - others : v + part(k, copy);
            break;
          }
          if (bits) {
            // (Its width's bits: a part past the range wraps, as the
            // reduction does.)
            const uint64_t b = static_cast<uint64_t>(mine);
            std::memcpy(at, &b, storedBytes(element));
          } else {
            writeElement(at, element, mine);
          }
        }
        return success();
      }
      const bool first = planning::holdsFirstCopy(g, rank);
      if (!first && (*reduce == layout::Placement::Reduce::Sum ||
                     *reduce == layout::Placement::Reduce::Product)) {
        int64_t identity = *reduce == layout::Placement::Reduce::Sum ? 0 : 1;
        for (int64_t k = 0; k < n; ++k)
          writeElement(buffer.data.data() + k * bytes, tensor.getElementType(),
                       identity);
      }
      return success();
    };
    if (g && severalPerRank(g)) {
      // Several blocks: the packed 1-D view, each block row-major, one
      // after the other in table order (getLocalType).
      int64_t total = 0;
      for (const layout::Box &box : boxes)
        total += *layout::volume(box.sizes);
      // Strided shards: the same elements, as the rank's N-D rows.
      std::optional<std::vector<int64_t>> rows = rowsShapeOf(g, rank);
      Buffer packed(tensor.getElementType(),
                    rows ? *rows : std::vector<int64_t>{total});
      View view{tensor.getElementType(), global.descriptor.data(),
                tensor.getRank()};
      int64_t k = 0;
      for (const layout::Box &box : boxes)
        forEachIndex(box.sizes, [&](ArrayRef<int64_t> index) {
          SmallVector<int64_t> at(index.begin(), index.end());
          for (int64_t d = 0; d < tensor.getRank(); ++d)
            at[d] += box.offsets[d];
          std::memcpy(packed.data.data() + k * bytes, view.at(at), bytes);
          ++k;
        });
      if (failed(copiesOf(packed)))
        return failure();
      whole.push_back(std::move(global));
      local.push_back(std::move(packed));
      continue;
    }
    std::optional<layout::Box> box =
        boxes.empty() ? std::nullopt
                      : std::optional<layout::Box>(boxes.front());
    std::vector<int64_t> shape =
        box ? box->sizes : std::vector<int64_t>(tensor.getRank(), 0);
    if (!box && g)
      for (int64_t d = 0; d < tensor.getRank(); ++d)
        if (!getLocalType(g).isDynamicDim(d))
          shape[d] = getLocalType(g).getDimSize(d);
    Buffer block(tensor.getElementType(), shape);
    if (box) {
      View view{tensor.getElementType(), global.descriptor.data(),
                tensor.getRank()};
      int64_t k = 0;
      forEachIndex(shape, [&](ArrayRef<int64_t> index) {
        SmallVector<int64_t> at(index.begin(), index.end());
        for (int64_t d = 0; d < tensor.getRank(); ++d)
          at[d] += box->offsets[d];
        std::memcpy(block.data.data() + k * bytes, view.at(at), bytes);
        ++k;
      });
    }
    if (failed(copiesOf(block)))
      return failure();
    whole.push_back(std::move(global));
    local.push_back(std::move(block));
  }
  return success();
}

/// Everything before the partitioned program runs, which may fail on some
/// ranks only: compiled, checked, inputs made.
LogicalResult prepare(RunState &st) {
  auto &[module, options, entry, loc, rank, world, type, outcome, whole, local,
         partitioned] = st;
  // Each rank's own report file, read back for its bytes.
  SmallString<128> reportPath;
  std::error_code noReport = llvm::sys::fs::createTemporaryFile(
      "shard-run-report", "json", reportPath);
  llvm::scope_exit removeReport([&] {
    if (!noReport)
      llvm::sys::fs::remove(reportPath);
  });
  // Compiled on every rank all the same: rank 0 propagates for all.
  partitioned = compile(module, options, /*partitioned=*/true,
                        noReport ? "" : reportPath.str().str());
  if (noReport)
    return emitError(loc) << "shard-run: cannot create a temporary file: "
                          << noReport.message();
  if (failed(partitioned))
    return failure();
  outcome.cudaOnHost = partitioned->cudaOnHost;
  outcome.cudaOnDevice = partitioned->onDevice;
  // A tensor with dynamic dims: this rank must hold a block of it (the
  // program asserts so at its entry; said here without a crash report).
  FunctionType entryType = entry.getFunctionType();
  for (auto [t, g] : llvm::zip_equal(
           llvm::concat<const Type>(entryType.getInputs(),
                                    entryType.getResults()),
           llvm::concat<ShardedTensorType>(partitioned->argGlobal,
                                           partitioned->resultGlobal))) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!g || !tensor || tensor.hasStaticShape())
      continue;
    std::vector<int64_t> holders = holdingRanks(g);
    if (!llvm::is_contained(holders, int64_t(rank)))
      return emitError(loc)
             << "shard-run: rank " << rank << " holds no block of " << tensor
             << " (" << g.getSpec()
             << "), a tensor with dynamic dims, whose extents only the ranks "
                "holding a block know; run the program on exactly ranks "
             << layout::formatList(holders);
  }
  if (partitioned->largestRank >= world)
    return emitError(loc) << "shard-run: the program's layouts name rank "
                          << partitioned->largestRank << ", but it runs on "
                          << world << (world == 1 ? " rank" : " ranks")
                          << "; run it on at least "
                          << partitioned->largestRank + 1;
  if (failed(checkMemory(st)) || failed(writeReport(st, reportPath)))
    return failure();
  return fillInputs(st);
}

/// A Partial result's copies stand for their reduction: reduced over each
/// group once (a collective, on every rank alike), by result.
FailureOr<std::map<size_t, ReducedCopies>>
reduceResultCopies(RunState &st, std::vector<int64_t> &localResults) {
  auto &[module, options, entry, loc, rank, world, type, outcome, whole, local,
         partitioned] = st;
  // A Partial result's copies stand for their reduction: reduced over each
  // group once (a collective, on every rank alike), then compared.
  std::map<size_t, ReducedCopies> reduced;
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    ShardedTensorType g = partitioned->resultGlobal[i];
    auto spec = g ? dyn_cast<PlacementsSpecAttr>(g.getSpec()) : nullptr;
    if (!spec || !spec.hasPartial())
      continue;
    bool mixed = false;
    layout::partialReduce(
        {spec.getPlacements().begin(), spec.getPlacements().end()}, mixed);
    if (mixed || severalPerRank(g))
      return entry.emitError()
             << "shard-run: result #" << i << " is " << g
             << "; its Partial values cannot be compared element by element "
                "(they reduce two ways, or a rank holds several blocks)";
    std::vector<View> gots = resultViews(partitioned->type, localResults);
    reduced[i] = reducedCopies(
        spec, gots[i], cast<RankedTensorType>(partitioned->type.getResult(i)),
        rank);
  }

  return reduced;
}

/// Every element of this rank's result blocks, compared under `tolerances`
/// (one per result); counts into the outcome when `record`, and returns how
/// many elements differ.
FailureOr<int64_t>
compareResults(RunState &st, const std::vector<double> &tolerances, bool record,
               std::vector<int64_t> &localResults,
               std::vector<int64_t> &wholeResults,
               const std::map<size_t, ReducedCopies> &reduced) {
  auto &[module, options, entry, loc, rank, world, type, outcome, whole, local,
         partitioned] = st;
  int64_t differ = 0;
  std::vector<View> gots = resultViews(partitioned->type, localResults);
  std::vector<View> wants = resultViews(type, wholeResults);
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    auto tensor = cast<RankedTensorType>(t);
    const int64_t r = tensor.getRank();
    const View &got = gots[i], &want = wants[i];
    ShardedTensorType g = partitioned->resultGlobal[i];
    auto copies = reduced.find(i);
    std::vector<layout::Box> boxes = blocksOf(g, tensor, rank);
    if (boxes.empty())
      continue;
    // Several blocks: one after the other, row-major, in the packed 1-D
    // view.
    const bool packed = g && severalPerRank(g);
    // Strided shards: the rows of an N-D local tensor, row-major.
    const std::optional<std::vector<int64_t>> rows = rowsShapeOf(g, rank);
    int64_t held = 0;
    for (const layout::Box &box : boxes)
      held += *layout::volume(box.sizes);
    for (int64_t d = 0; rows && d < r; ++d)
      if (got.size(d) != (*rows)[d])
        return entry.emitError()
               << "shard-run: rank " << rank << "'s rows of result #" << i
               << " number " << got.size(d) << " in dim " << d
               << ", its layout says " << (*rows)[d];
    auto rowsIndex = [&](int64_t linear) {
      SmallVector<int64_t> index(r, 0);
      for (int64_t d = r; d-- > 0;) {
        index[d] = linear % (*rows)[d];
        linear /= (*rows)[d];
      }
      return index;
    };
    if (packed && !rows && got.size(0) != held)
      return entry.emitError()
             << "shard-run: rank " << rank << "'s blocks of result #" << i
             << " hold " << got.size(0) << " elements, its layout says "
             << held;
    for (int64_t d = 0; !packed && d < r; ++d)
      if (got.size(d) != boxes.front().sizes[d])
        return entry.emitError()
               << "shard-run: rank " << rank << "'s block of result #" << i
               << " has size " << got.size(d) << " in dim " << d
               << ", its layout says " << boxes.front().sizes[d];
    const double tolerance = tolerances[i];
    int64_t k = 0;
    for (const layout::Box &box : boxes)
      forEachIndex(box.sizes, [&](ArrayRef<int64_t> index) {
        SmallVector<int64_t> at(index.begin(), index.end());
        for (int64_t d = 0; d < r; ++d)
          at[d] += box.offsets[d];
        const int64_t linear = k++;
        const Type element = tensor.getElementType();
        const char *gotAt = rows     ? got.at(rowsIndex(linear))
                            : packed ? got.at({linear})
                                     : got.at(index);
        // Integers bit for bit (an i64 past 2^53 is no double).
        std::optional<uint64_t> wantBits = integerBits(want.at(at), element);
        std::optional<uint64_t> gotBits =
            !wantBits ? std::nullopt
            : copies != reduced.end()
                ? std::optional<uint64_t>(copies->second.bits[linear])
                : integerBits(gotAt, element);
        double a = 0, b = 0;
        bool same;
        if (wantBits) {
          same = *gotBits == *wantBits;
        } else {
          a = copies != reduced.end() ? copies->second.values[linear]
                                      : readElement(gotAt, element);
          b = readElement(want.at(at), element);
          same = a == b || (std::isnan(a) && std::isnan(b)) ||
                 std::abs(a - b) <= tolerance;
        }
        if (record)
          ++outcome.elementsChecked;
        if (same)
          return;
        ++differ;
        if (!record)
          return;
        if (outcome.mismatches++ == 0) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << "result #" << i << " element " << formatIndex(at)
             << ": partitioned ";
          if (!wantBits)
            os << a << ", unpartitioned " << b;
          else if (element.isUnsignedInteger())
            os << static_cast<uint64_t>(integerValue(*gotBits, element))
               << ", unpartitioned "
               << static_cast<uint64_t>(integerValue(*wantBits, element));
          else
            os << integerValue(*gotBits, element) << ", unpartitioned "
               << integerValue(*wantBits, element);
          outcome.firstMismatch = text;
        }
        outcome.matches = false;
      });
  }
  return differ;
}

} // namespace

/// Each result's first tolerance: a float result's elements within 1e-5
/// (f16, bf16: 1e-2) of its largest finite magnitude (at least 1); an
/// integer result's exactly (0).
static std::vector<double>
magnitudeTolerances(FunctionType type,
                    const std::vector<int64_t> &wholeResults) {
  std::vector<double> tolerances(type.getNumResults(), 0);
  std::vector<View> wants = resultViews(type, wholeResults);
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    auto tensor = cast<RankedTensorType>(t);
    const View &want = wants[i];
    auto floatType = dyn_cast<FloatType>(tensor.getElementType());
    if (!floatType)
      continue;
    double largest = 1;
    forEachIndex(tensor.getShape(), [&](ArrayRef<int64_t> index) {
      double v = std::abs(readElement(want.at(index), floatType));
      if (std::isfinite(v))
        largest = std::max(largest, v);
    });
    double epsilon = floatType.getFPMantissaWidth() >= 24 ? 1e-5 : 1e-2;
    tolerances[i] = epsilon * largest;
  }
  return tolerances;
}

std::optional<std::array<int64_t, 2>>
shardc::run::parseIntRange(llvm::StringRef text) {
  auto [lo, hi] = text.split(':');
  int64_t l = 0, h = 0;
  if (lo.trim().getAsInteger(10, l) || hi.trim().getAsInteger(10, h) ||
      !validIntRange({l, h}))
    return std::nullopt;
  return std::array<int64_t, 2>{l, h};
}

bool shardc::run::validIntRange(const std::array<int64_t, 2> &range) {
  return range[0] <= range[1] && range[0] >= -(int64_t(1) << 31) &&
         range[1] < (int64_t(1) << 31);
}

/// The nested module (`path`, names of nested modules) of `module` where
/// there is one, else null.
static ModuleOp nestedModule(ModuleOp module, ArrayRef<StringRef> path) {
  for (StringRef name : path) {
    ModuleOp inner;
    for (ModuleOp candidate : module.getOps<ModuleOp>())
      if (candidate.getSymName() == name)
        inner = candidate;
    if (!inner)
      return nullptr;
    module = inner;
  }
  return module;
}

/// A linalg op of `func` that reads its init where the init is a
/// tensor.empty (an accumulation into it: upstream's tests write such
/// programs) reads undefined memory: its result is undefined, in the
/// program as written and partitioned alike, and --check compares
/// undefined values (a sweep saw a false MISMATCH one run in six). Said
/// once per op.
static void warnUndefinedInits(func::FuncOp func) {
  func.walk(
      [](linalg::LinalgOp op) {
        for (OpOperand &init : op.getDpsInitsMutable())
          if (init.get().getDefiningOp<tensor::EmptyOp>() &&
              op.payloadUsesValueFromOperand(&init)) {
            op->emitWarning()
                << "reads its init #" << init.getOperandNumber()
                << ", a tensor.empty, whose contents are undefined: the "
                   "result is undefined as written, and --check compares "
                   "undefined values; fill it first (linalg.fill)";
            return;
          }
      });
}

/// The qualified name (outer::inner::f) of a function @`name` with a body
/// in a nested module of `module`, empty where none has one.
static std::string nestedEntryName(ModuleOp module, StringRef name) {
  for (ModuleOp inner : module.getOps<ModuleOp>()) {
    if (!inner.getSymName())
      continue;
    if (auto f = inner.lookupSymbol<func::FuncOp>(name); f && !f.isExternal())
      return (*inner.getSymName() + "::" + name).str();
    if (std::string deeper = nestedEntryName(inner, name); !deeper.empty())
      return (*inner.getSymName() + "::" + deeper).str();
  }
  return "";
}

FailureOr<RunOutcome> shardc::run::runProgram(ModuleOp module,
                                              const RunOptions &options) {
  Location loc = module.getLoc();
  // An entry of a nested module (--entry inner::f): that module is the
  // program, run as if it were the file's (a module is a symbol table of
  // its own: its functions call its functions, and its meshes are its
  // layouts' own).
  // (A function of this module whose own name holds "::", as exporters
  // keep qualified names, is the entry as named.)
  auto entry = module.lookupSymbol<func::FuncOp>(options.entry);
  if (!entry && StringRef(options.entry).contains("::")) {
    SmallVector<StringRef> path;
    StringRef(options.entry).split(path, "::");
    if (llvm::any_of(path, [](StringRef part) { return part.empty(); }))
      return emitError(loc) << "shard-run: --entry " << options.entry
                            << " names an empty module or function; a "
                               "nested module's function is MODULE::FN";
    ModuleOp inner = nestedModule(module, ArrayRef(path).drop_back());
    // The file's own module, where it is named, may lead the path
    // (outer::f, outer::inner::f).
    if (!inner && module.getSymName() && path.front() == *module.getSymName()) {
      RunOptions inOwn = options;
      inOwn.entry = llvm::join(ArrayRef(path).drop_front(), "::");
      return runProgram(module, inOwn);
    }
    if (!inner)
      return emitError(loc)
             << "shard-run: no nested module "
             << StringRef(options.entry).rsplit("::").first
             << " in the program (--entry " << options.entry << ")";
    OwningOpRef<ModuleOp> alone = inner.clone();
    RunOptions inOwn = options;
    inOwn.entry = path.back().str();
    return runProgram(*alone, inOwn);
  }
  if (!entry || entry.isExternal()) {
    InFlightDiagnostic error = emitError(loc)
                               << "shard-run: no function @" << options.entry
                               << " with a body in the program";
    if (std::string nested = nestedEntryName(module, options.entry);
        !nested.empty())
      error << " (a nested module has one: --entry " << nested << ")";
    return error;
  }
  if (options.intRange && !validIntRange(*options.intRange))
    return emitError(loc) << "shard-run: --int-range must be LO:HI with "
                             "-2^31 <= LO <= HI < 2^31, got "
                          << (*options.intRange)[0] << ":"
                          << (*options.intRange)[1];
  if (options.dynamicSize != -1 &&
      (options.dynamicSize < 0 || options.dynamicSize > (int64_t(1) << 40)))
    return emitError(loc) << "shard-run: --dynamic-size must be between 0 "
                             "and 2^40, got "
                          << options.dynamicSize;
  for (Type t : llvm::concat<const Type>(entry.getArgumentTypes(),
                                         entry.getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor)
      return entry.emitError()
             << "shard-run passes and checks ranked tensors only, got " << t;
    if (!tensor.hasStaticShape() && options.dynamicSize < 0)
      return entry.emitError()
             << "shard-run: the entry has a tensor of dynamic shape " << t
             << "; give the size of its dynamic dims with --dynamic-size";
    Type e = tensor.getElementType();
    if (!isa<FloatType>(e) && !isa<IntegerType>(e))
      return entry.emitError()
             << "shard-run passes and checks tensors of integers and floats "
                "only (the entry's arguments and results), got "
             << t
             << (e.isIndex() ? "; cast it inside the entry (arith.index_cast)"
                             : "");
  }
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  if (rank == 0)
    warnUndefinedInits(entry);

  // The JIT emits code for this machine.
  static bool targetReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetReady;
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  linalg::registerRuntimeVerifiableOpInterfaceExternalModels(registry);
  tensor::registerRuntimeVerifiableOpInterfaceExternalModels(registry);
  module.getContext()->appendDialectRegistry(registry);

  loc = entry.getLoc();
  RunState st{module,
              options,
              entry,
              loc,
              rank,
              world,
              concreteType(entry.getFunctionType(), options.dynamicSize)};
  auto &[module_, options_, entry_, loc_, rank_, world_, type, outcome, whole,
         local, partitioned] = st;
  // Everything before the partitioned program runs may fail on some ranks
  // only (a report that cannot be written, a rank holding several blocks):
  // the ranks agree on it first, so that none waits in a collective for a
  // rank that gave up.
  auto phase = [&](const char *doing) {
    return std::make_unique<Progress>(rank == 0, options.progressAfter, doing);
  };
  auto compiling = phase("compiling the partitioned program");
  LogicalResult prepared = prepare(st);
  compiling.reset();
  int ready = succeeded(prepared) ? 1 : 0, allReady = 0;
  MPI_Allreduce(&ready, &allReady, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (failed(prepared))
    return failure();
  if (!allReady)
    return emitError(loc) << "shard-run: rank " << rank
                          << " stops: another rank failed before the "
                             "program ran (see its message)";

  // What this rank receives, counted by the runtime as the calls complete
  // (a loop runs its collectives as often as it iterates).
  const RuntimeSymbols &runtime = RuntimeSymbols::get();
  if (!runtime.bytesReceived)
    return emitError(loc) << "shard-run: the runtime is not linked in "
                             "(shardrt_bytes_received not found)";
  const int64_t receivedBefore = runtime.bytesReceived();
  if (partitioned->onDevice)
    for (Buffer &b : local)
      b.place(runtime);
  std::vector<int64_t> localResults;
  auto running = phase("running the partitioned program");
  if (failed(call(*partitioned, options.entry, local, localResults, loc)))
    return failure();
  running.reset();
  if (failed(takeResultExtents(st, localResults)))
    return failure();
  outcome.bytesReceived = runtime.bytesReceived() - receivedBefore;
  if (!options.check)
    return outcome;

  // The program as written runs on rank 0 alone (every rank compiled and
  // ran it alike: N times the work on the cores they share); every rank
  // gets its results, packed. One that communicates itself (global shard
  // ops: already distributed) runs on every rank, each comparing with its
  // own results (on rank 0 alone it waited in its first collective for
  // ranks waiting for its results: a hang).
  const bool everyRank = writtenCommunicates(module);
  std::vector<int64_t> wholeResults;
  char ranWritten = 1;
  // Alive until its results are copied (compared, where every rank runs
  // it): a result may be the program's own constant, in the JIT-compiled
  // module's memory.
  FailureOr<Compiled> unpartitioned = failure();
  if (rank == 0 || everyRank) {
    auto compilingWhole = phase("compiling the program as written");
    unpartitioned = compile(module, options, /*partitioned=*/false, "");
    compilingWhole.reset();
    auto runningWhole = phase("running the program as written");
    ranWritten = succeeded(unpartitioned) &&
                 succeeded(call(*unpartitioned, options.entry, whole,
                                wholeResults, loc));
  }
  std::vector<Buffer> written;
  if (everyRank) {
    int mine = ranWritten, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all)
      return failure();
  } else {
    broadcastValue(ranWritten);
    if (!ranWritten)
      return failure();
    written = shareResults(entry.getFunctionType(), wholeResults, rank);
    wholeResults.clear();
    for (Buffer &b : written)
      llvm::append_range(wholeResults, b.descriptor);
  }
  if (failed(checkResultExtents(st, wholeResults)))
    return failure();
  auto checking = phase("checking every element");

  int nothingToCorrupt = 0;
  if (options.corruptRank == rank && type.getNumResults() > 0) {
    auto first = cast<RankedTensorType>(partitioned->type.getResult(0));
    View view{first.getElementType(), localResults.data(), first.getRank()};
    // (Corrupted where it is compared: a rank outside the result's mesh
    // holds a buffer of no block.)
    bool empty = blocksOf(partitioned->resultGlobal[0],
                          cast<RankedTensorType>(type.getResult(0)), rank)
                     .empty();
    for (int64_t d = 0; d < first.getRank(); ++d)
      empty |= view.size(d) == 0;
    if (!empty) {
      SmallVector<int64_t> origin(first.getRank(), 0);
      char *at = const_cast<char *>(view.at(origin));
      // (An integer by its bits: an i64 past 2^53 plus 1 as a double is
      // itself.)
      if (std::optional<uint64_t> bits =
              integerBits(at, first.getElementType())) {
        const uint64_t next =
            first.getElementType().isInteger(1) ? (*bits + 1) & 1 : *bits + 1;
        std::memcpy(at, &next, storedBytes(first.getElementType()));
      } else
        writeElement(
            at, first.getElementType(),
            static_cast<int64_t>(readElement(at, first.getElementType())) + 1);
    } else {
      nothingToCorrupt = 1;
    }
  }
  // A self-test that corrupts nothing would pass: said, and every rank
  // fails (together: the others would wait in the check's collectives).
  if (options.corruptRank >= 0) {
    int any = 0;
    MPI_Allreduce(&nothingToCorrupt, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
      if (nothingToCorrupt)
        entry.emitError() << "shard-run: --corrupt-rank=" << rank << ": rank "
                          << rank
                          << " holds no element of result #0 to "
                             "corrupt";
      return failure();
    }
  }

  FailureOr<std::map<size_t, ReducedCopies>> reduced =
      reduceResultCopies(st, localResults);
  if (failed(reduced))
    return failure();
  auto compare = [&](const std::vector<double> &tolerances, bool record) {
    return compareResults(st, tolerances, record, localResults, wholeResults,
                          *reduced);
  };

  // Integers compare exactly. Floats: the sharded program sums in another
  // order, so values differ by rounding. First within 1e-5 (f16, bf16:
  // 1e-2) of the result's largest magnitude (a sum that cancels to near
  // zero keeps the error of its terms); where that finds differences in an
  // f32, f16 or bf16 result, the rounding of the program as written is
  // measured against the same program in f64, and the result is allowed 8
  // times that error (sums past 2^24 differ by more than 1e-5 relative, a
  // bf16 sum of 256 products by 4%, and the sharded one is often the more
  // accurate).
  std::vector<double> tolerances = magnitudeTolerances(type, wholeResults);
  FailureOr<int64_t> strict = compare(tolerances, /*record=*/false);
  if (failed(strict))
    return failure();
  if (*strict > 0 && llvm::any_of(type.getResults(), [](Type t) {
        return roundedElement(cast<RankedTensorType>(t).getElementType());
      })) {
    std::optional<std::vector<double>> errors =
        roundingOfWritten(module, options, type, wholeResults);
    if (errors)
      for (size_t i = 0; i < tolerances.size(); ++i)
        tolerances[i] = std::max(tolerances[i], 8 * (*errors)[i]);
  }
  if (failed(compare(tolerances, /*record=*/true)))
    return failure();
  return outcome;
}
