//===- ShardPlanner.cpp - Plans of the shard dialect's ops ----------------===//

#include "shardc/Planning/ShardPlanner.h"

#include "PartialMoves.h"

#include "shardc/Dialect/ElementTypes.h"

#include "shardc/Layout/Exchange.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>
#include <unordered_map>

using namespace mlir;
using namespace shardc;
using namespace shardc::planning;

namespace {

std::string locationText(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().str() + ":" + std::to_string(file.getLine()) +
            ":" + std::to_string(file.getColumn()));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << loc;
  return text;
}

/// The ranks a summary covers: 0 .. N-1, N being the world size or one more
/// than the largest rank the tables (or `extra`) name.
int64_t ranksOf(int64_t worldSize, const layout::BlockTable &a,
                const layout::BlockTable &b, int64_t extra = -1) {
  int64_t ranks = std::max(worldSize, extra + 1);
  for (const layout::BlockTable *t : {&a, &b})
    for (int owner : t->owners)
      ranks = std::max<int64_t>(ranks, int64_t(owner) + 1);
  return ranks;
}

/// The ranks that hold a block of either table (or are `extra`), sorted: the
/// only ones whose numbers can differ from a rank holding nothing.
std::vector<int> namedRanks(const layout::BlockTable &a,
                            const layout::BlockTable &b, int64_t extra = -1) {
  std::vector<int> ranks;
  ranks.reserve(a.owners.size() + b.owners.size() + 1);
  ranks.insert(ranks.end(), a.owners.begin(), a.owners.end());
  ranks.insert(ranks.end(), b.owners.begin(), b.owners.end());
  if (extra >= 0)
    ranks.push_back(static_cast<int>(extra));
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

/// The elements of each rank's blocks of `table`, in one pass over them.
class OwnVolumes {
public:
  explicit OwnVolumes(const layout::BlockTable &table) {
    for (size_t b = 0; b < table.size(); ++b)
      held[table.owners[b]] += table.volumes[b];
  }
  /// Rank `r`'s (0 if it holds none).
  int64_t operator()(int r) const {
    auto it = held.find(r);
    return it == held.end() ? 0 : it->second;
  }

private:
  std::unordered_map<int, int64_t> held;
};

/// Per-rank listings are written in full up to this many ranks; beyond,
/// as {"rank": bytes} for the ranks named plus "other_ranks".
constexpr int64_t kMaxListedRanks = 4096;

/// int64 byte arithmetic that remembers an overflow instead of wrapping: a
/// summary either has exact counts or says it has none.
struct Checked {
  bool overflow = false;
  int64_t mul(int64_t a, int64_t b) {
    int64_t r = 0;
    overflow |= __builtin_mul_overflow(a, b, &r);
    return r;
  }
  int64_t add(int64_t a, int64_t b) {
    int64_t r = 0;
    overflow |= __builtin_add_overflow(a, b, &r);
    return r;
  }
  /// ceil(v) for a non-negative v. Long doubles (x86: a 64-bit mantissa)
  /// hold every int64 exactly, so a bound of 6e18 bytes is not rounded; one
  /// whose ceiling would pass 2^63 - 1 overflows.
  int64_t ceil(long double v) {
    if (v >= 0 && v < 0x1p63L) {
      long double up = std::ceil(v);
      if (up < 0x1p63L)
        return static_cast<int64_t>(up);
    }
    overflow = true;
    return 0;
  }
  /// ceil(v) for a lower bound v summed from fractions of elements (ranks
  /// sharing a reduction split it: 28/3 bytes each) in long doubles, whose
  /// rounding can leave a whole number a hair above itself (80 + 1e-17:
  /// a bound of 81 bytes beside a plan that received 80). Less a slack of
  /// a trillionth (at most half a byte) first: a lower bound may come out
  /// one byte low that way, never above what a plan achieves.
  int64_t ceilBound(long double v) {
    const long double slack = std::min<long double>(0.5L, v * 1e-12L + 1e-12L);
    return ceil(std::max<long double>(0, v - slack));
  }
};

/// Fills the totals of `s` from its steps and lower bound.
void finish(PlanSummary &s, Checked &c) {
  // Per rank over all steps: the ranks any step names, and the others.
  std::map<int, int64_t> received;
  int64_t other = 0;
  for (const StepSummary &step : s.steps) {
    other = c.add(other, step.other);
    for (const auto &[r, v] : step.received)
      received.emplace(r, 0);
  }
  for (auto &[r, total] : received)
    for (const StepSummary &step : s.steps) {
      auto it = step.received.find(r);
      total = c.add(total, it == step.received.end() ? step.other : it->second);
    }
  int64_t others = s.ranks - static_cast<int64_t>(received.size());
  s.bytesReceivedTotal = c.mul(other, others);
  s.bytesReceivedMaxRank = others > 0 ? other : 0;
  for (auto [r, v] : received) {
    s.bytesReceivedTotal = c.add(s.bytesReceivedTotal, v);
    s.bytesReceivedMaxRank = std::max(s.bytesReceivedMaxRank, v);
  }
  int64_t lbOthers = s.ranks - static_cast<int64_t>(s.lowerBound.size());
  s.lowerBoundTotal = c.mul(s.otherLowerBound, lbOthers);
  s.lowerBoundMaxRank = lbOthers > 0 ? s.otherLowerBound : 0;
  for (auto [r, v] : s.lowerBound) {
    s.lowerBoundTotal = c.add(s.lowerBoundTotal, v);
    s.lowerBoundMaxRank = std::max(s.lowerBoundMaxRank, v);
  }
  s.overflow |= c.overflow;
}

nlohmann::json perRank(const PlanSummary &s,
                       const std::map<int, int64_t> &named, int64_t other) {
  if (s.ranks <= kMaxListedRanks) {
    std::vector<int64_t> list(s.ranks, other);
    for (auto [r, v] : named)
      list[r] = v;
    return list;
  }
  nlohmann::json object = nlohmann::json::object();
  for (auto [r, v] : named)
    object[std::to_string(r)] = v;
  object["other_ranks"] = other;
  return object;
}

/// The report's entry of a summary without overflow.
nlohmann::json entryJson(const PlanSummary &s) {
  nlohmann::json steps = nlohmann::json::array();
  for (const StepSummary &step : s.steps)
    steps.push_back(
        {{"kind", step.kind},
         {"group", step.group},
         {"bytes_per_rank", perRank(s, step.received, step.other)}});
  nlohmann::json entry = {{"location", ""},
                          {"steps", steps},
                          {"bytes_received_total", s.bytesReceivedTotal},
                          {"bytes_received_max_rank", s.bytesReceivedMaxRank},
                          {"lower_bound_total", s.lowerBoundTotal},
                          {"lower_bound_max_rank", s.lowerBoundMaxRank},
                          {"modelled_time_us", s.modelledUs}};
  if (!s.partialCopies.empty())
    entry["partial_copies"] = s.partialCopies;
  if (!s.plan.empty()) {
    entry["plan"] = s.plan;
    nlohmann::json candidates = nlohmann::json::array();
    for (const CandidateSummary &c : s.candidates)
      candidates.push_back(
          {{"plan", c.name},
           {"steps", c.steps},
           {"bytes_received_total", c.bytesReceivedTotal
                                        ? nlohmann::json(*c.bytesReceivedTotal)
                                        : nlohmann::json("more than 2^63 - 1")},
           {"modelled_time_us", c.modelledUs}});
    entry["candidates"] = candidates;
  }
  return entry;
}

/// "ranks [0, 1, 2]", or for a group of more than 16 ranks "ranks [0, 1,
/// ..., 4095] (4096)" with the first two and the last.
std::string ranksGroupText(const std::vector<int64_t> &ranks) {
  if (ranks.size() <= 16)
    return "ranks " + layout::formatList(ranks);
  return "ranks [" + std::to_string(ranks[0]) + ", " +
         std::to_string(ranks[1]) + ", ..., " + std::to_string(ranks.back()) +
         "] (" + std::to_string(ranks.size()) + ")";
}

/// The summary's form of a planner step.
StepSummary stepSummary(const PlanStep &step, int64_t eb, int64_t other,
                        Checked &c) {
  StepSummary s;
  s.kind = stepKindName(step.kind);
  if (step.collective) {
    // A named collective names its group.
    const layout::Collective &c = *step.collective;
    s.kind = layout::collectiveName(c.kind);
    s.group = c.axes.empty() ? ranksGroupText(c.ranks)
                             : "mesh axes " + layout::formatList(c.axes);
  } else if (!step.world) {
    s.group = "mesh axes [";
    for (size_t i = 0; i < step.axes.size(); ++i)
      s.group += (i ? ", " : "") + std::to_string(step.axes[i]);
    s.group += "]";
  }
  for (const auto &[r, t] : step.traffic)
    s.received[r] = c.mul(t.received, eb);
  s.other = other;
  return s;
}

/// Whether every block of `type` names its rank: summaries count bytes per
/// rank, and the pass diagnoses other layouts before it plans anything.
bool namesRanks(ShardedTensorType type) {
  return llvm::all_of(type.getDeviceBlocks(), [](const layout::Block &b) {
    return b.placement.hasRank();
  });
}

} // namespace

PlanLayout planning::planLayoutOf(ShardedTensorType type) {
  std::vector<int64_t> shape = type.getLayoutShape();
  if (auto p = dyn_cast<PlacementsSpecAttr>(type.getSpec()))
    return meshLayout(shape, p.getMesh().getMesh(),
                      {p.getPlacements().begin(), p.getPlacements().end()});
  return blockLayout(shape, type.getDeviceBlocks());
}

ShardedTensorType planning::stepType(const PlanStep &step,
                                     ShardedTensorType from,
                                     ShardedTensorType to) {
  if (step.final)
    return to;
  MLIRContext *ctx = from.getContext();
  MeshAttr mesh;
  if (auto p = dyn_cast<PlacementsSpecAttr>(from.getSpec()))
    if (layout::sameMesh(p.getMesh().getMesh(), step.to.mesh))
      mesh = p.getMesh();
  if (!mesh)
    mesh = MeshAttr::get(ctx, step.to.mesh.shape, step.to.mesh.devices, {},
                         from.getBlocks().front().placement.kind);
  auto spec = PlacementsSpecAttr::get(ctx, mesh, step.to.placements);
  // A step through a layout that cuts a dynamic dim would move elements
  // the nominal extent names, not the run-time ones.
  if (!from.hasStaticShape() &&
      failed(ShardedTensorType::verify(
          [&] { return mlir::emitError(UnknownLoc::get(ctx)); }, from.getDims(),
          from.getElementType(), spec)))
    llvm::report_fatal_error("shardc: a plan step cuts a dynamic dim (a "
                             "planner bug)");
  return ShardedTensorType::get(ctx, from.getDims(), from.getElementType(),
                                spec);
}

struct ShardPlanner::Impl {
  Impl(Topology topology, int64_t worldSize, bool directOnly)
      : topology(std::move(topology)), worldSize(worldSize),
        directOnly(directOnly) {}

  Topology topology;
  int64_t worldSize;
  bool directOnly;
  nlohmann::json ops = nlohmann::json::array();
  /// Choices and summaries by (source, destination) type and root.
  std::map<std::pair<const void *, const void *>, PlanChoice> choices;
  std::map<std::tuple<const void *, const void *, int64_t>, PlanSummary>
      summaries;
  /// modelledCost's answers by (source, destination) type.
  std::map<std::pair<const void *, const void *>, ModelledMove> moves;
  std::map<const PlanSummary *, nlohmann::json> jsonOf;
  llvm::DenseMap<Type, RankedTensorType> localTypes;
  /// The report's total: each op's bytes times the times it runs, per rank
  /// (while every op lists its ranks) and over all ranks; the ops whose
  /// count of runs is not known, which the total leaves out.
  struct Total {
    std::vector<int64_t> perRank;
    bool perRankListed = true;
    int64_t bytes = 0;
    bool overflow = false;
    int64_t unknownOps = 0;
    std::string firstUnknown;
    /// Collectives written in the program, whose bytes are not counted.
    int64_t uncounted = 0;
    std::string firstUncounted;
    /// Whether an op moves a tensor with dynamic dims (counted as
    /// kNominalDynamicExtent each).
    bool dynamic = false;
  } total;

  PlannerOptions options(Type elementType, int64_t ranks) const {
    PlannerOptions o;
    o.topology = topology;
    o.elementBytes = elementBytes(elementType);
    o.ranks = ranks;
    o.directOnly = directOnly;
    return o;
  }

  /// The layouts and steps the candidate chains pass through, made once.
  StepMemo memo;

  /// Each type's layout as the planner reads it, made once (a search asks
  /// for the moves between every pair of a type's layouts).
  std::map<const void *, PlanLayout> layouts;
  const PlanLayout &layoutOf(ShardedTensorType type) {
    auto [at, fresh] = layouts.try_emplace(type.getAsOpaquePointer());
    if (fresh)
      at->second = planLayoutOf(type);
    return at->second;
  }

  /// The choice between two types, made once, with every candidate.
  const PlanChoice &choose(ShardedTensorType from, ShardedTensorType to) {
    auto key =
        std::make_pair(from.getAsOpaquePointer(), to.getAsOpaquePointer());
    auto it = choices.find(key);
    if (it != choices.end())
      return it->second;
    return choices.emplace(key, makeChoice(from, to)).first->second;
  }
  /// The options a move from `from` (layout `src`) to `dst` is planned
  /// under: the ranks either names, the dims of run-time size.
  PlannerOptions optionsFor(ShardedTensorType from, const PlanLayout &src,
                            const PlanLayout &dst) const {
    PlannerOptions o = options(from.getElementType(),
                               ranksOf(worldSize, src.table, dst.table));
    for (int64_t d = 0; d < from.getRank(); ++d)
      if (from.isDynamicDim(d))
        o.dynamicDims.push_back(d);
    return o;
  }
  PlanChoice makeChoice(ShardedTensorType from, ShardedTensorType to) {
    const PlanLayout &src = layoutOf(from), &dst = layoutOf(to);
    return choosePlan(src, dst, optionsFor(from, src, dst), &memo);
  }

  template <typename Fn>
  const PlanSummary &cached(Type a, Type b, int64_t root, Fn compute) {
    auto key =
        std::make_tuple(a.getAsOpaquePointer(), b.getAsOpaquePointer(), root);
    auto it = summaries.find(key);
    if (it == summaries.end())
      it = summaries.emplace(key, compute()).first;
    return it->second;
  }

  /// A redistribution: the steps of the plan chosen, the lower bound and
  /// the candidates.
  PlanSummary exchange(ShardedTensorType from, ShardedTensorType to) {
    PlanSummary s;
    Checked c;
    int64_t eb = elementBytes(to.getElementType());
    const PlanChoice &choice = choose(from, to);
    const PlanLayout &src = layoutOf(from), &dst = layoutOf(to);
    s.ranks = ranksOf(worldSize, src.table, dst.table);
    int64_t total = c.mul(*layout::volume(src.shape), eb);
    if (from == to) {
      finish(s, c);
      return s;
    }
    const Plan &plan = choice.best();
    const std::vector<int> named = namedRanks(src.table, dst.table);
    for (const PlanStep &step : plan.steps) {
      StepSummary step_ = stepSummary(
          step, eb, step.kind == StepKind::AllGather ? total : 0, c);
      // A rank the layouts name that the step's traffic leaves out
      // receives what every other rank does (the whole tensor, where an
      // all_gather's owners send it to every rank that holds nothing).
      for (int r : named)
        step_.received.emplace(r, step_.other);
      s.steps.push_back(std::move(step_));
    }
    s.modelledUs = plan.us;
    // Per rank what it must receive; in all, what the ranks must receive
    // together (rounded up: ranks sharing a reduction split it in fractions
    // of an element), and the rank receiving most at least its share of it.
    const layout::TrafficBound bound = layout::trafficLowerBound(
        src.table, src.hasPartial() ? &src.partial : nullptr, dst.table);
    for (auto [r, elements] : bound.perRank)
      s.lowerBound[r] = c.ceilBound(elements * static_cast<long double>(eb));
    const long double exactTotal = bound.total * static_cast<long double>(eb);
    for (int r : namedRanks(src.table, dst.table))
      s.lowerBound.emplace(r, 0);
    if (choice.candidates.size() > 1) {
      s.plan = plan.name;
      for (const Plan &p : choice.candidates) {
        std::optional<int64_t> elements = p.receivedTotal();
        Checked own;
        std::optional<int64_t> bytes = own.mul(elements.value_or(0), eb);
        if (!elements || own.overflow)
          bytes.reset();
        s.candidates.push_back({p.name, p.steps.size(), bytes, p.us});
      }
    }
    finish(s, c);
    s.lowerBoundTotal = std::max(s.lowerBoundTotal, c.ceilBound(exactTotal));
    if (s.ranks > 0)
      s.lowerBoundMaxRank =
          std::max(s.lowerBoundMaxRank,
                   c.ceilBound(exactTotal / static_cast<long double>(s.ranks)));
    return s;
  }

  /// all_gather: each rank receives every distinct block but its own.
  PlanSummary allGather(ShardedTensorType type) {
    PlanSummary s;
    Checked c;
    int64_t eb = elementBytes(type.getElementType());
    const PlanLayout &src = layoutOf(type);
    layout::BlockTable primary = layout::blockTableOf(type.getBlocks());
    s.ranks = ranksOf(worldSize, primary, src.table);
    int64_t total = c.mul(*layout::volume(src.shape), eb);
    // Without copies an all_gather; with replicas the exchange to the whole
    // tensor on every rank (spmd.exchange ... to world).
    PlannerOptions o = options(type.getElementType(), s.ranks);
    // The layout it leads to matters only to the exchange.
    PlanStep step =
        allGatherStep(src, o, src.hasCopies() ? nullptr : &src.table);
    if (src.hasCopies()) {
      step = exchangeStep(src, step.to, o);
      // The ranks of the world beyond the layout's also receive the whole
      // tensor: one message per distinct block, whose holders take turns
      // serving them.
      std::set<int> inStep;
      for (const auto &[r, t] : step.traffic)
        inStep.insert(r);
      for (int r : src.table.owners)
        inStep.insert(r);
      const int64_t outside = s.ranks - static_cast<int64_t>(inStep.size());
      if (outside > 0) {
        const auto boxes = src.distinctBoxes();
        const Link link = topology.slowest();
        step.us =
            std::max(step.us, link.timeUs(static_cast<int64_t>(boxes.size()),
                                          static_cast<double>(total)));
        for (const auto &[box, holders] : boxes) {
          const int64_t served = (outside + holders - 1) / holders;
          const double bytes =
              static_cast<double>(layout::volume(box->sizes).value_or(0)) *
              static_cast<double>(eb);
          step.us = std::max(
              step.us,
              link.timeUs(served, static_cast<double>(served) * bytes));
        }
      }
    }
    StepSummary gather = stepSummary(step, eb, total, c);
    gather.kind = src.hasCopies() ? "exchange" : "all_gather";
    gather.group = "world";
    const OwnVolumes own(src.table);
    for (int r : namedRanks(primary, src.table))
      gather.received[r] = total - c.mul(own(r), eb);
    s.lowerBound = gather.received;
    s.otherLowerBound = total;
    s.steps.push_back(std::move(gather));
    s.modelledUs = step.us;
    finish(s, c);
    return s;
  }

  /// One spmd.exchange from `from` to `to`, as emitted (no other plan).
  PlanSummary exchangeOnly(ShardedTensorType from, ShardedTensorType to) {
    PlanSummary s;
    Checked c;
    int64_t eb = elementBytes(to.getElementType());
    const PlanLayout &src = layoutOf(from), &dst = layoutOf(to);
    s.ranks = ranksOf(worldSize, src.table, dst.table);
    PlanStep step =
        exchangeStep(src, dst, options(from.getElementType(), s.ranks));
    StepSummary summary = stepSummary(step, eb, 0, c);
    for (int r : namedRanks(src.table, dst.table))
      summary.received.emplace(r, 0);
    s.steps.push_back(std::move(summary));
    s.modelledUs = step.us;
    finish(s, c);
    return s;
  }

  /// The summary of an op emitted as several steps: each step's as it is
  /// emitted, one after the other, against `bound`, the op's own lower
  /// bound (what each rank lacks of the op's result).
  PlanSummary ofSteps(const std::vector<OpStep> &steps,
                      const PlanSummary &bound) {
    PlanSummary s;
    Checked c;
    s.ranks = bound.ranks;
    for (const OpStep &step : steps) {
      PlanSummary part;
      switch (step.kind) {
      case OpStep::Kind::WorldAllGather:
      case OpStep::Kind::ExchangeToWorld:
        part = allGather(step.from);
        break;
      case OpStep::Kind::Scatter:
        part = scatter(step.to, step.root);
        break;
      case OpStep::Kind::Collective:
      case OpStep::Kind::Exchange:
        part = exchangeOnly(step.from, step.to);
        break;
      }
      s.ranks = std::max(s.ranks, part.ranks);
      s.overflow |= part.overflow;
      s.modelledUs += part.modelledUs;
      for (StepSummary &p : part.steps)
        s.steps.push_back(std::move(p));
    }
    s.lowerBound = bound.lowerBound;
    s.otherLowerBound = bound.otherLowerBound;
    finish(s, c);
    // The op's totals, which may exceed the per-rank bounds' (a reduction's
    // share of all ranks).
    s.lowerBoundTotal = std::max(s.lowerBoundTotal, bound.lowerBoundTotal);
    s.lowerBoundMaxRank =
        std::max(s.lowerBoundMaxRank, bound.lowerBoundMaxRank);
    return s;
  }

  /// distribute: the root sends each owner its block.
  PlanSummary scatter(ShardedTensorType type, int64_t root) {
    PlanSummary s;
    Checked c;
    int64_t eb = elementBytes(type.getElementType());
    layout::BlockTable device = layout::blockTableOf(type.getDeviceBlocks());
    s.ranks = ranksOf(worldSize, device, device, root);
    Link link = topology.slowest();
    int64_t sent = 0, messages = 0;
    StepSummary step;
    step.kind = "scatter";
    const OwnVolumes own(device);
    for (int r : namedRanks(device, device, root)) {
      int64_t bytes = r == root ? 0 : c.mul(own(r), eb);
      step.received[r] = s.lowerBound[r] = bytes;
      sent = c.add(sent, bytes);
      messages += bytes > 0;
    }
    s.steps.push_back(std::move(step));
    s.modelledUs = link.timeUs(messages, static_cast<double>(sent));
    finish(s, c);
    return s;
  }
};

std::unique_ptr<llvm::MemoryBuffer>
planning::openRegularInputFile(llvm::StringRef path, std::string *error) {
  llvm::sys::fs::file_status status;
  if (path != "-" && !llvm::sys::fs::status(path, status) &&
      !llvm::sys::fs::is_regular_file(status)) {
    *error = "cannot read '" + path.str() + "': not a regular file";
    return nullptr;
  }
  return openInputFile(path, error);
}

std::unique_ptr<ShardPlanner>
ShardPlanner::create(const PlanningOptions &options,
                     llvm::function_ref<InFlightDiagnostic()> emitError) {
  CostOptions cost;
  cost.link = options.link;
  cost.alphaUs = options.alphaUs;
  cost.betaGBps = options.betaGBps;
  if (!options.topologyFile.empty()) {
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> file =
        openRegularInputFile(options.topologyFile, &error);
    if (!file) {
      emitError() << "topology: " << error;
      return nullptr;
    }
    cost.topologyJson = file->getBuffer().str();
    cost.topologyName = options.topologyFile;
  }
  std::string error;
  std::optional<Topology> topology = topologyFrom(cost, error);
  if (!topology) {
    emitError() << error;
    return nullptr;
  }
  if (!std::isfinite(options.peakGflops) || options.peakGflops < 0) {
    char text[40];
    std::snprintf(text, sizeof text, "%g", options.peakGflops);
    emitError() << "peak-gflops must be finite and >= 0 (0: compute is "
                   "free); got "
                << text;
    return nullptr;
  }
  if (options.worldSize != 0) {
    layout::Result<void> problem = layout::checkWorldSize(options.worldSize);
    if (!problem.ok()) {
      emitError() << "world-size " << problem.error();
      return nullptr;
    }
  }
  return std::make_unique<ShardPlanner>(std::move(*topology), options.worldSize,
                                        options.plans == PlanSet::Direct);
}

ShardPlanner::ShardPlanner(Topology topology, int64_t worldSize,
                           bool directOnly)
    : impl(std::make_unique<Impl>(std::move(topology), worldSize, directOnly)) {
}

ShardPlanner::~ShardPlanner() = default;

const Topology &ShardPlanner::topology() const { return impl->topology; }

int64_t ShardPlanner::worldSize() const { return impl->worldSize; }

size_t ShardPlanner::cachedEntries() const {
  return impl->choices.size() + impl->summaries.size() + impl->moves.size() +
         impl->localTypes.size() + impl->layouts.size();
}

RankedTensorType ShardPlanner::localType(ShardedTensorType type) {
  RankedTensorType &local = impl->localTypes[type];
  if (!local)
    local = getLocalType(type);
  return local;
}

const PlanChoice &ShardPlanner::choose(ShardedTensorType from,
                                       ShardedTensorType to) {
  return impl->choose(from, reachedBy(from, to));
}

const PlanSummary &ShardPlanner::cost(ShardedTensorType from,
                                      ShardedTensorType to) {
  return impl->cached(from, to, -1, [&] {
    const ShardedTensorType reached = reachedBy(from, to);
    PlanSummary s = impl->exchange(from, reached);
    if (reached != to) {
      s.partialCopies = partialCopiesText(to);
      // The bound of the move to `reached` is none of the move to `to`:
      // partial copies may hold any parts that reduce to the value (S(0) to
      // P(sum) needs nothing moved: each rank its rows, 0 elsewhere). 0 is
      // a bound; a tighter one is not computed.
      for (auto &[rank, bytes] : s.lowerBound)
        bytes = 0;
      s.otherLowerBound = 0;
      s.lowerBoundTotal = s.lowerBoundMaxRank = 0;
    }
    return s;
  });
}

const ModelledMove &ShardPlanner::modelledCost(ShardedTensorType from,
                                               ShardedTensorType to) {
  auto [at, fresh] = impl->moves.try_emplace(
      std::make_pair(from.getAsOpaquePointer(), to.getAsOpaquePointer()));
  ModelledMove &move = at->second;
  if (!fresh)
    return move;
  // The plan of cost()'s move (to where the steps end), as cost() counts
  // it: a tensor whose bytes pass int64 has no count.
  const ShardedTensorType reached = reachedBy(from, to);
  Checked c;
  const int64_t eb = elementBytes(reached.getElementType());
  const PlanLayout &src = impl->layoutOf(from), &dst = impl->layoutOf(reached);
  c.mul(*layout::volume(src.shape), eb);
  if (from != reached) {
    PlanCost cost;
    auto made = impl->choices.find(std::make_pair(
        from.getAsOpaquePointer(), reached.getAsOpaquePointer()));
    if (made != impl->choices.end()) {
      cost.us = made->second.best().us;
      cost.received = made->second.best().receivedTotal();
    } else {
      cost = choosePlanCost(src, dst, impl->optionsFor(from, src, dst),
                            &impl->memo);
    }
    move.us = cost.us;
    if (cost.received)
      move.bytesReceived = c.mul(*cost.received, eb);
    else
      c.overflow = true;
  }
  move.overflow = c.overflow;
  return move;
}

/// The steps of moving `from` to `to` under the plan chosen.
static std::vector<OpStep> plannedSteps(ShardPlanner &planner,
                                        ShardedTensorType from,
                                        ShardedTensorType to) {
  std::vector<OpStep> steps;
  if (from == to)
    return steps;
  const ShardedTensorType reached = reachedBy(from, to);
  ShardedTensorType at = from;
  for (const PlanStep &step : planner.choose(from, to).best().steps) {
    ShardedTensorType next = stepType(step, from, reached);
    OpStep s;
    s.from = at;
    if (step.kind == StepKind::AllGather) {
      s.kind = OpStep::Kind::WorldAllGather;
    } else {
      s.to = next;
      s.collective = step.collective;
      s.kind =
          step.collective ? OpStep::Kind::Collective : OpStep::Kind::Exchange;
    }
    steps.push_back(std::move(s));
    at = next;
  }
  if (reached != to) {
    // The partial copies, made where the steps leave the value whole
    // (decideMove; the callers checked the pair).
    OpStep partial;
    partial.kind = OpStep::Kind::MakePartial;
    partial.from = reached;
    partial.to = to;
    partial.identityPastFirstCopy = identityPastFirstCopyOf(to);
    steps.push_back(std::move(partial));
  }
  return steps;
}

/// Whether `steps` move `from` to `to` at every extent of the dynamic dims
/// their layouts cut. The plan is chosen on blocks at the nominal extent,
/// where layouts unlike at run time may agree (S(0) on both axes of a 2x2
/// mesh and S(0) on a flat 4-way one: 16 rows each way at 64; 2, 1, 1, 1
/// against 2, 2, 1, 0 at 5). Each step is right at every extent (its tables
/// get the run-time extents; making partial copies is local) only where it
/// starts from the very layout the previous one ends in and the last ends
/// in `to` itself.
static bool holdsAtEveryExtent(const std::vector<OpStep> &steps,
                               ShardedTensorType from, ShardedTensorType to) {
  if (!cutsDynamicDim(from) && !cutsDynamicDim(to))
    return true;
  ShardedTensorType at = from;
  for (const OpStep &step : steps) {
    if (!step.to || step.from != at)
      return false;
    at = step.to;
  }
  return at == to;
}

/// One exchange from `from` to `to`: box intersections of the tables at
/// run time, right at every extent.
static OpStep oneExchange(ShardedTensorType from, ShardedTensorType to) {
  OpStep exchange;
  exchange.kind = OpStep::Kind::Exchange;
  exchange.from = from;
  exchange.to = to;
  return exchange;
}

/// plannedSteps, or, where they do not hold at every extent, one exchange.
static std::vector<OpStep>
planSteps(ShardPlanner &planner, ShardedTensorType from, ShardedTensorType to) {
  std::vector<OpStep> steps = plannedSteps(planner, from, to);
  if (holdsAtEveryExtent(steps, from, to))
    return steps;
  return {oneExchange(from, to)};
}

std::vector<OpStep> ShardPlanner::stepsOf(Operation *op) {
  if (auto r = dyn_cast<RedistributeOp>(op))
    return planSteps(*this, r.getSource().getType(), r.getType());
  if (auto g = dyn_cast<GatherOp>(op))
    return planSteps(*this, g.getSource().getType(),
                     wholeOnRank(g.getSource().getType(), g.getDstRank()));
  if (auto g = dyn_cast<AllGatherOp>(op)) {
    ShardedTensorType type = g.getSource().getType();
    OpStep gather;
    gather.kind = OpStep::Kind::WorldAllGather;
    gather.from = type;
    if (!severalPerRank(type)) {
      // With replicas an all_gather would send a replica's holder its own
      // block again: the exchange to the whole tensor on every rank.
      if (planLayoutOf(type).hasCopies())
        gather.kind = OpStep::Kind::ExchangeToWorld;
      return {gather};
    }
    // Several blocks per rank: gathered on the first owner, then sent to
    // every rank of the world (an all_gather of that one block).
    OpStep onRank;
    onRank.from = type;
    onRank.to =
        wholeOnRank(type, type.getDeviceBlocks().front().placement.rank);
    gather.from = onRank.to;
    return {onRank, gather};
  }
  if (auto d = dyn_cast<DistributeOp>(op)) {
    OpStep step;
    step.to = d.getType();
    step.root = d.getSrcRank();
    step.kind = OpStep::Kind::Scatter;
    if (severalPerRank(d.getType())) {
      // Several blocks per rank: the exchange from the whole tensor on the
      // source rank (whose value every rank passes; only its data is read).
      step.kind = OpStep::Kind::Exchange;
      step.from = wholeOnRank(d.getType(), d.getSrcRank());
    }
    return {step};
  }
  return {};
}

const PlanSummary *ShardPlanner::summarize(Operation *op) {
  for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
    if (auto sharded = dyn_cast<ShardedTensorType>(t);
        sharded && !namesRanks(sharded))
      return nullptr;
  if (auto r = dyn_cast<RedistributeOp>(op)) {
    ShardedTensorType from = r.getSource().getType(), to = r.getType();
    if (holdsAtEveryExtent(plannedSteps(*this, from, to), from, to))
      return &cost(from, to);
    // Moved by one exchange instead (planSteps): reported so.
    const PlanSummary &planned = cost(from, to);
    return &impl->cached(from, to, -2, [&] {
      PlanSummary s =
          impl->ofSteps(std::vector<OpStep>{oneExchange(from, to)}, planned);
      // An exchange runs, whatever it moves at the nominal extent (where
      // the layouts may hold the same blocks: a "local_copy" of 0 bytes).
      for (StepSummary &step : s.steps)
        if (step.kind == "local_copy")
          step.kind = "exchange";
      return s;
    });
  }
  // An op emitted as several steps (several blocks per rank) is reported
  // as those steps: one derivation, stepsOf, for the IR and the report.
  if (auto g = dyn_cast<AllGatherOp>(op))
    return &impl->cached(g.getSource().getType(), Type(), -1, [&] {
      PlanSummary own = impl->allGather(g.getSource().getType());
      std::vector<OpStep> steps = stepsOf(op);
      return steps.size() == 1 ? own : impl->ofSteps(steps, own);
    });
  // An all_reduce of partial values: the sum of a cut dynamic dim's extent
  // the partition makes (DynamicExtents.cpp), or one written in the
  // program; the runtime counts either.
  if (auto r = dyn_cast<SpmdAllReduceOp>(op);
      r && namesRanks(r.getFrom()) && namesRanks(r.getTo()))
    return &cost(r.getFrom(), r.getTo());
  if (auto gather = dyn_cast<GatherOp>(op))
    return &cost(
        gather.getSource().getType(),
        wholeOnRank(gather.getSource().getType(), gather.getDstRank()));
  if (auto d = dyn_cast<DistributeOp>(op))
    return &impl->cached(d.getType(), Type(), d.getSrcRank(), [&] {
      PlanSummary own = impl->scatter(d.getType(), d.getSrcRank());
      std::vector<OpStep> steps = stepsOf(op);
      return steps.size() == 1 && steps.front().kind == OpStep::Kind::Scatter
                 ? own
                 : impl->ofSteps(steps, own);
    });
  return nullptr;
}

LogicalResult ShardPlanner::add(Operation *op, std::optional<int64_t> timesRun,
                                llvm::StringRef why) {
  const PlanSummary *s = summarize(op);
  if (!s)
    return success();
  if (s->overflow)
    return op->emitError()
           << "cannot report the plan of this op: its byte counts (bytes "
              "received by all ranks, or the lower bound) exceed 2^63 - 1";
  // The entry's JSON is built once; ops that repeat it differ in location.
  auto [it, inserted] = impl->jsonOf.try_emplace(s);
  if (inserted)
    it->second = entryJson(*s);
  impl->ops.push_back(it->second);
  nlohmann::json &entry = impl->ops.back();
  entry["location"] = locationText(op->getLoc());
  // (The search prices the moves of its decisions, not the extents' sums
  // a cut dynamic dim needs.)
  if (op->hasAttr(kExtentSumAttr))
    entry["dynamic_extent"] = true;
  Impl::Total &total = impl->total;
  // A dynamic dim's extent is known at run time only: the bytes count it
  // as the layout arithmetic does, and say so.
  bool dynamic = false;
  auto sawType = [&](Type t) {
    if (auto sharded = dyn_cast<ShardedTensorType>(t))
      dynamic |= !sharded.hasStaticShape();
  };
  for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
    sawType(t);
  op->getAttrDictionary().walk([&](ShardedTensorType t) { sawType(t); });
  if (dynamic) {
    entry["dynamic_dims_counted_as"] = kNominalDynamicExtent;
    total.dynamic = true;
  }
  if (!timesRun) {
    entry["times_run"] = nullptr;
    entry["times_run_unknown"] = why.str();
    if (total.unknownOps++ == 0)
      total.firstUnknown = locationText(op->getLoc()) + ": " + why.str();
    return success();
  }
  entry["times_run"] = *timesRun;
  // Each rank's bytes of every step, times the runs (the runtime counts
  // every run: shardrt_bytes_received).
  auto accumulate = [&](int64_t &into, int64_t bytes) {
    int64_t times = 0;
    total.overflow |= llvm::MulOverflow(bytes, *timesRun, times) ||
                      llvm::AddOverflow(into, times, into);
  };
  accumulate(total.bytes, s->bytesReceivedTotal);
  if (s->ranks > kMaxListedRanks) {
    total.perRankListed = false;
    return success();
  }
  if (total.perRank.size() < static_cast<size_t>(s->ranks))
    total.perRank.resize(s->ranks, 0);
  for (const StepSummary &step : s->steps)
    for (int64_t r = 0; r < s->ranks; ++r) {
      auto named = step.received.find(static_cast<int>(r));
      accumulate(total.perRank[r],
                 named == step.received.end() ? step.other : named->second);
    }
  return success();
}

void ShardPlanner::noteRanks(int64_t ranks) {
  Impl::Total &total = impl->total;
  if (ranks > kMaxListedRanks) {
    total.perRankListed = false;
    return;
  }
  if (total.perRank.size() < static_cast<size_t>(ranks))
    total.perRank.resize(ranks, 0);
}

void ShardPlanner::addUncounted(Operation *op, llvm::StringRef why) {
  Impl::Total &total = impl->total;
  if (total.uncounted++ == 0)
    total.firstUncounted = locationText(op->getLoc()) + ": " + why.str();
}

std::string ShardPlanner::json() const {
  const Impl::Total &t = impl->total;
  // Bytes of a tensor with dims of run-time size are counted at their
  // nominal extent: a figure of the model, not one any run is known to
  // move (shard-run --dynamic-size 5 received 96 B where 1,536 B were
  // counted and said known).
  nlohmann::json total = {
      {"known", t.unknownOps == 0 && t.uncounted == 0 && !t.dynamic}};
  if (t.dynamic)
    total["dynamic_dims_counted_as"] = kNominalDynamicExtent;
  if (t.overflow) {
    total["bytes_received_total"] = "more than 2^63 - 1";
  } else {
    total["bytes_received_total"] = t.bytes;
    if (t.perRankListed)
      total["bytes_per_rank"] = t.perRank;
  }
  if (t.uncounted > 0)
    total["uncounted"] =
        std::to_string(t.uncounted) +
        " collective(s) not counted; the first: " + t.firstUncounted;
  if (t.unknownOps > 0)
    total["unknown"] = std::to_string(t.unknownOps) +
                       " op(s) left out, whose runs are not known "
                       "statically; the first: " +
                       t.firstUnknown;
  return nlohmann::json{{"ops", impl->ops}, {"total", total}}.dump(2) + "\n";
}
