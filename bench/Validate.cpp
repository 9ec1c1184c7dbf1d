//===- Validate.cpp - checkBlocks at 10^4..10^6 blocks --------------------===//
//
// Google Benchmark binary `shardc-bench-validate`: the median time of
// layout::checkBlocks on a grid and on a random guillotine partition of a 2-D
// tensor at 10^5 and 10^6 blocks, on a grid with one block missing, and on
// 10^4 blocks against a port of PyTorch's pairwise check. Memory is counted
// by replacing operator new: the counters give the peak of extra heap bytes
// during one check, per block, and the bytes of the input, per block.
// bench/run.sh builds it, runs it and prints the medians and the ratio.
//
//===----------------------------------------------------------------------===//

#include "PairwisePort.h"
#include "shardc/Layout/Layout.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <malloc.h>
#include <new>
#include <random>
#include <string>

//===----------------------------------------------------------------------===//
// Counting operator new (the benchmark runs on one thread)
//===----------------------------------------------------------------------===//

namespace {
int64_t liveBytes = 0;
int64_t peakBytes = 0;

void *countedAlloc(size_t n) {
  void *p = std::malloc(n ? n : 1);
  if (!p)
    throw std::bad_alloc();
  liveBytes += static_cast<int64_t>(malloc_usable_size(p));
  peakBytes = std::max(peakBytes, liveBytes);
  return p;
}

void countedFree(void *p) {
  if (!p)
    return;
  liveBytes -= static_cast<int64_t>(malloc_usable_size(p));
  std::free(p);
}
} // namespace

void *operator new(size_t n) { return countedAlloc(n); }
void *operator new[](size_t n) { return countedAlloc(n); }
void operator delete(void *p) noexcept { countedFree(p); }
void operator delete[](void *p) noexcept { countedFree(p); }
void operator delete(void *p, size_t) noexcept { countedFree(p); }
void operator delete[](void *p, size_t) noexcept { countedFree(p); }

namespace {

using shardc::layout::Block;
using shardc::layout::Box;
using shardc::layout::CheckResult;

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// A tensor and its blocks, placed on rank i for block i.
struct Input {
  std::vector<int64_t> shape;
  std::vector<Block> blocks;
  /// Heap bytes the blocks take.
  int64_t bytes = 0;
};

enum class Kind { Grid, Guillotine, GridWithHole };

const char *name(Kind kind) {
  switch (kind) {
  case Kind::Grid:
    return "grid";
  case Kind::Guillotine:
    return "guillotine";
  case Kind::GridWithHole:
    return "grid-with-hole";
  }
  return "";
}

/// The rows x cols grid of 4x3 blocks of a [rows*4, cols*3] tensor, row-major.
std::vector<Box> grid(int64_t rows, int64_t cols) {
  std::vector<Box> boxes;
  boxes.reserve(rows * cols);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      boxes.push_back(Box{{r * 4, c * 3}, {4, 3}});
  return boxes;
}

/// A random guillotine partition of `shape` into `n` blocks, listed in random
/// order: cut a random block across its longer dim at a random point, until
/// there are n.
std::vector<Box> guillotine(const std::vector<int64_t> &shape, int64_t n) {
  std::mt19937_64 rng(42);
  std::vector<Box> boxes{Box{{0, 0}, shape}};
  boxes.reserve(n);
  while (static_cast<int64_t>(boxes.size()) < n) {
    Box &b = boxes[rng() % boxes.size()];
    size_t d = b.sizes[0] >= b.sizes[1] ? 0 : 1;
    if (b.sizes[d] < 2)
      continue;
    int64_t cut = 1 + static_cast<int64_t>(rng() % (b.sizes[d] - 1));
    Box upper = b;
    upper.offsets[d] += cut;
    upper.sizes[d] -= cut;
    b.sizes[d] = cut;
    boxes.push_back(std::move(upper));
  }
  std::shuffle(boxes.begin(), boxes.end(), rng);
  return boxes;
}

/// The input of `kind` with about `n` blocks; the last one is kept, so that
/// repetitions do not rebuild it.
const Input &input(Kind kind, int64_t n) {
  static Kind cachedKind;
  static int64_t cachedN = -1;
  static Input cached;
  if (cachedN == n && cachedKind == kind)
    return cached;
  cached = Input();
  int64_t before = liveBytes;
  std::vector<Box> boxes;
  // Grids: as square as the count allows (10^5 is 250 x 400).
  int64_t rows = 1;
  for (int64_t r = 1; r * r <= n; ++r)
    if (n % r == 0)
      rows = r;
  int64_t cols = n / rows;
  switch (kind) {
  case Kind::Grid:
  case Kind::GridWithHole:
    boxes = grid(rows, cols);
    cached.shape = {rows * 4, cols * 3};
    if (kind == Kind::GridWithHole)
      boxes.erase(boxes.begin() + boxes.size() / 2 + cols / 2);
    break;
  case Kind::Guillotine:
    cached.shape = {int64_t(1) << 20, int64_t(1) << 20};
    boxes = guillotine(cached.shape, n);
    break;
  }
  cached.blocks.resize(boxes.size());
  for (size_t i = 0; i < boxes.size(); ++i) {
    cached.blocks[i].box = std::move(boxes[i]);
    cached.blocks[i].placement.rank = static_cast<int64_t>(i);
  }
  boxes = {};
  cached.bytes = liveBytes - before;
  cachedKind = kind;
  cachedN = n;
  return cached;
}

//===----------------------------------------------------------------------===//
// Benchmarks
//===----------------------------------------------------------------------===//

void validate(benchmark::State &state, Kind kind, int64_t n) {
  const Input &in = input(kind, n);
  CheckResult result;
  int64_t extraPeak = 0;
  for (auto _ : state) {
    int64_t base = liveBytes;
    peakBytes = liveBytes;
    result = shardc::layout::checkBlocks(in.shape, in.blocks, 8);
    extraPeak = std::max(extraPeak, peakBytes - base);
    benchmark::DoNotOptimize(result);
  }
  bool expectHole = kind == Kind::GridWithHole;
  if (result.ok() == expectHole ||
      (expectHole && result.problems.size() != 2)) {
    state.SkipWithError("checkBlocks did not give the expected result");
    return;
  }
  double blocks = static_cast<double>(in.blocks.size());
  state.counters["blocks"] = blocks;
  state.counters["peak_B_per_block"] = extraPeak / blocks;
  state.counters["input_B_per_block"] = in.bytes / blocks;
}

void pairwisePort(benchmark::State &state, Kind kind, int64_t n) {
  const Input &in = input(kind, n);
  std::string error;
  for (auto _ : state) {
    error = shardc::bench::pytorchPairwiseCheck(in.shape, in.blocks);
    benchmark::DoNotOptimize(error);
  }
  if (!error.empty())
    state.SkipWithError(error.c_str());
  state.counters["blocks"] = static_cast<double>(in.blocks.size());
}

/// Registers `fn` on the input of `kind` with `n` blocks as
/// "<prefix>/<kind>/<n>", with the median of 5 repetitions.
template <typename Fn>
void add(const char *prefix, Fn fn, Kind kind, int64_t n, bool once) {
  std::string label =
      std::string(prefix) + "/" + name(kind) + "/" + std::to_string(n);
  benchmark::internal::Benchmark *b = benchmark::RegisterBenchmark(
      label.c_str(), [=](benchmark::State &s) { fn(s, kind, n); });
  b->Repetitions(5)->ReportAggregatesOnly(true)->Unit(benchmark::kMillisecond);
  // Big inputs: one check per repetition is long enough to time.
  if (once)
    b->Iterations(1);
}

} // namespace

int main(int argc, char **argv) {
  add("validate", validate, Kind::Grid, 10000, false);
  add("pairwise-port", pairwisePort, Kind::Grid, 10000, true);
  for (int64_t n : {100000, 1000000}) {
    add("validate", validate, Kind::Grid, n, true);
    add("validate", validate, Kind::Guillotine, n, true);
    add("validate", validate, Kind::GridWithHole, n, true);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
