//===- Describe.cpp - Layouts and plans for people ------------------------===//

#include "shardc/Planning/Describe.h"

#include <cstring>

#include "shardc/Layout/Exchange.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdio>

using namespace mlir;
using namespace shardc;
using namespace shardc::planning;

namespace {

/// Peers named one by one in a rank's line; beyond, a summary.
constexpr size_t kPeersListed = 8;

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// "ranks [0, 1, 2]" when every device names a rank, else the devices.
/// Entries listed at most before a list is cut short (a layout of 10^6
/// blocks or a mesh of 16k devices is described in a line, not megabytes).
constexpr size_t kMaxListed = 16;

/// "ranks [0, 1, 2, 3]" or "devices [\"rank:0/cuda:0\", ...]"; a longer
/// list as its first kMaxListed entries and a count: "ranks [0, 1, ..., 15,
/// ... 999984 more: 1000000 in all]".
std::string devicesText(const std::vector<layout::Device> &devices) {
  const bool ranked =
      llvm::all_of(devices, [](auto &d) { return d.hasRank(); });
  const size_t shown =
      devices.size() <= kMaxListed + 1 ? devices.size() : kMaxListed;
  std::string text = ranked ? "ranks [" : "devices [";
  for (size_t i = 0; i < shown; ++i)
    text += (i ? ", " : "") +
            (ranked ? std::to_string(devices[i].rank)
                    : "\"" + layout::formatDevice(devices[i]) + "\"");
  if (shown < devices.size())
    text += ", ... " + std::to_string(devices.size() - shown) +
            " more: " + std::to_string(devices.size()) + " in all";
  return text + "]";
}

/// "2", "0.5", "1e+06": the shortest of printf's %g.
std::string numberText(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

/// "48 B from rank 2" or "96 B: 48 B from rank 1, 48 B from rank 3".
std::string transfersText(const std::vector<layout::Transfer> &transfers,
                          int64_t elementSize, const char *preposition) {
  // Bytes per peer, in peer order (a sorted vector: a rank may have
  // thousands of peers).
  std::vector<std::pair<int, int64_t>> perPeer;
  perPeer.reserve(transfers.size());
  int64_t total = 0;
  for (const layout::Transfer &t : transfers) {
    int64_t bytes = *layout::volume(t.box.sizes) * elementSize;
    perPeer.emplace_back(t.peer, bytes);
    total += bytes;
  }
  std::sort(perPeer.begin(), perPeer.end());
  size_t merged = 0;
  for (size_t i = 0; i < perPeer.size(); ++i) {
    if (merged > 0 && perPeer[merged - 1].first == perPeer[i].first)
      perPeer[merged - 1].second += perPeer[i].second;
    else
      perPeer[merged++] = perPeer[i];
  }
  perPeer.resize(merged);
  if (perPeer.size() > kPeersListed) {
    // Many peers: how many, and what each moves.
    auto [least, most] = std::minmax_element(
        perPeer.begin(), perPeer.end(),
        [](auto &a, auto &b) { return a.second < b.second; });
    std::string each = least->second == most->second
                           ? bytesText(least->second) + " each"
                           : bytesText(least->second) + " to " +
                                 bytesText(most->second) + " each";
    return bytesText(total) + " " + preposition + " " +
           std::to_string(perPeer.size()) + " ranks (" + each + ")";
  }
  std::string text;
  for (auto [peer, bytes] : perPeer)
    text += (text.empty() ? "" : ", ") + bytesText(bytes) + " " + preposition +
            " rank " + std::to_string(peer);
  if (perPeer.size() == 1)
    return text;
  return bytesText(total) + ": " + text;
}

/// One rank's part of an exchange in words.
std::string rankText(const layout::RedistributionPlan &plan,
                     int64_t elementSize) {
  std::vector<std::string> parts;
  if (!plan.receives.empty())
    parts.push_back("receives " +
                    transfersText(plan.receives, elementSize, "from"));
  if (!plan.sends.empty())
    parts.push_back("sends " + transfersText(plan.sends, elementSize, "to"));
  if (!plan.copies.empty())
    parts.push_back("copies " + bytesText(plan.copiedElements() * elementSize) +
                    " locally");
  if (parts.empty())
    return "nothing to do";
  std::string text;
  for (const std::string &p : parts)
    text += (text.empty() ? "" : "; ") + p;
  return text;
}

/// The ranks that own a block of a step's source or destination: the
/// others take no part in its exchange.
std::vector<int64_t> namedRanks(const PlanLayout &from, const PlanStep &step) {
  std::vector<int64_t> named(from.table.owners.begin(),
                             from.table.owners.end());
  named.insert(named.end(), step.to.table.owners.begin(),
               step.to.table.owners.end());
  return named;
}

/// One line per rank of 0 .. listed - 1 of those of `named`, `lineOf`
/// saying what it does; the others take no part (nothing to do), each run
/// of them one line ("ranks 2-2147483646: nothing to do"): a layout naming
/// rank 2^31 - 1 lists a few lines, not two billion.
template <typename LineOf>
void listRanks(llvm::raw_ostream &os, int64_t listed,
               std::vector<int64_t> named, LineOf lineOf) {
  std::sort(named.begin(), named.end());
  named.erase(std::unique(named.begin(), named.end()), named.end());
  auto next = std::lower_bound(named.begin(), named.end(), int64_t(0));
  for (int64_t r = 0; r < listed;) {
    if (next != named.end() && *next == r) {
      os << "    rank " << r << ": " << lineOf(r) << "\n";
      ++next;
      ++r;
      continue;
    }
    const int64_t last =
        (next == named.end() ? listed : std::min(listed, *next)) - 1;
    os << "    " << (last == r ? "rank " : "ranks ") << r;
    if (last != r)
      os << "-" << last;
    os << ": nothing to do\n";
    r = last + 1;
  }
}

/// What a named collective does, in words: its row's, filled in.
std::string collectiveWords(const layout::Collective &c) {
  std::string text = layout::collectiveTraits(c.kind).words;
  const std::pair<const char *, std::string> fields[] = {
      {"{dim}", std::to_string(c.dim)},
      {"{concat}", std::to_string(c.concatDim)},
      {"{root}", std::to_string(c.root)},
      {"{reduce}", c.reduce ? layout::reduceName(*c.reduce) : ""}};
  for (const auto &[field, value] : fields)
    for (size_t at = text.find(field); at != std::string::npos;
         at = text.find(field, at + value.size()))
      text.replace(at, std::strlen(field), value);
  return text;
}

/// "the world" or "mesh axes [0, 1]", from a summary step's group.
std::string groupText(const std::string &group) {
  return group == "world" ? "the world" : group;
}

} // namespace

std::string planning::tensorText(ShardedTensorType type) {
  return typeText(type.getElementType()) + formatDims(type.getDims());
}

std::string planning::describeLayout(ShardedTensorType type) {
  Attribute spec = type.getSpec();
  if (auto p = dyn_cast<PlacementsSpecAttr>(spec)) {
    std::string text = "(";
    llvm::ArrayRef<layout::Placement> placements = p.getPlacements();
    for (size_t i = 0; i < placements.size(); ++i)
      text += (i ? ", " : "") + layout::formatPlacement(placements[i]);
    layout::Mesh mesh = p.getMesh().getMesh();
    text += ") on mesh " + layout::formatList(mesh.shape);
    bool identity = true;
    for (size_t i = 0; i < mesh.devices.size(); ++i)
      identity &= mesh.devices[i] == static_cast<int64_t>(i);
    if (!identity) {
      std::vector<layout::Device> devices(mesh.devices.size());
      for (size_t i = 0; i < mesh.devices.size(); ++i)
        devices[i].rank = mesh.devices[i];
      text += " of " + devicesText(devices);
    }
    return text;
  }
  if (auto c = dyn_cast<ChunkSpecAttr>(spec)) {
    std::vector<layout::Device> devices;
    for (DeviceAttr d : c.getPlacements())
      devices.push_back(d.getDevice());
    int64_t dim =
        layout::normalizeDim(c.getDim(), type.getRank()).value_or(c.getDim());
    return "chunks of dim " + std::to_string(dim) + " on " +
           devicesText(devices);
  }
  if (auto d = dyn_cast<DevicePlacementSpecAttr>(spec))
    return "the whole tensor on " +
           layout::formatDevice(d.getDevice().getDevice());
  std::vector<layout::Device> devices;
  for (const layout::Block &b : type.getBlocks())
    devices.push_back(b.placement);
  return std::to_string(devices.size()) +
         (devices.size() == 1 ? " block on " : " blocks on ") +
         devicesText(devices);
}

std::string planning::bytesText(int64_t bytes) {
  if (bytes < 10 * 1024)
    return std::to_string(bytes) + " B";
  const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  return llvm::formatv("{0:F1} {1}", value, units[unit]).str();
}

std::string planning::timeText(double us) {
  if (us < 1e3)
    return llvm::formatv("{0:F1} us", us).str();
  if (us < 1e6)
    return llvm::formatv("{0:F2} ms", us / 1e3).str();
  return llvm::formatv("{0:F2} s", us / 1e6).str();
}

std::string planning::costModelText(const PlanningOptions &options,
                                    const Topology &topology,
                                    llvm::StringRef optionPrefix) {
  std::string text;
  if (!options.topologyFile.empty())
    text = "topology " + options.topologyFile +
           (topology.axes.empty() ? "" : ", a link per mesh axis; slowest");
  else
    text = linkClassName(options.link);
  if (options.alphaUs)
    text += " with " + optionPrefix.str() + "alpha-us";
  if (options.betaGBps)
    text += (options.alphaUs ? " and " : " with ") + optionPrefix.str() +
            "beta-gbps";
  return text;
}

void planning::printPlan(llvm::raw_ostream &os, ShardPlanner &planner,
                         ShardedTensorType from, ShardedTensorType to,
                         const WordsOptions &options) {
  os << "redistribute " << tensorText(from) << ": " << describeLayout(from)
     << " -> " << describeLayout(to) << "\n";
  const PlanChoice &choice = planner.choose(from, to);
  const PlanSummary &summary = planner.cost(from, to);
  const int64_t ranks = options.ranks;
  int64_t eb = elementBytes(from.getElementType());
  const Plan &plan = choice.best();
  if (summary.steps.empty()) {
    // Layouts of an empty tensor all hold nothing, and different specs can
    // name the same blocks: say which.
    if (from == to)
      os << "plan: nothing moves (the layouts are the same)\n";
    else if (!summary.partialCopies.empty())
      os << "plan: nothing moves between ranks\n";
    else if (layout::volume(from.getLayoutShape()).value_or(1) == 0)
      os << "plan: nothing moves (the tensor has no elements)\n";
    else
      os << "plan: nothing moves (every rank already holds its blocks)\n";
  } else {
    os << "plan: " << plan.name << ", " << plan.steps.size()
       << (plan.steps.size() == 1 ? " step" : " steps");
    if (choice.candidates.size() > 1)
      os << " (the cheapest of " << choice.candidates.size() << " candidates)";
    os << "\n";
    PlanLayout src = planLayoutOf(from);
    const PlanLayout *at = &src;
    for (size_t i = 0; i < plan.steps.size(); ++i) {
      const PlanStep &step = plan.steps[i];
      // A collective names its groups' sizes; an exchange the ranks it covers.
      auto plural = [](int64_t n, const char *one) {
        return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
      };
      std::string size = plural(ranks, "rank");
      if (step.collective && !step.collective->axes.empty() && at->isMesh) {
        int64_t members = 1;
        for (int64_t a : step.collective->axes)
          members *= at->mesh.shape[a];
        const int64_t groups = at->mesh.size().value_or(members) / members;
        size = plural(groups, "group") + " of " + plural(members, "rank");
      } else if (step.collective && !step.collective->ranks.empty()) {
        size =
            plural(static_cast<int64_t>(step.collective->ranks.size()), "rank");
      }
      std::string over = groupText(summary.steps[i].group) + " (" + size + ")";
      bool perRank = true;
      if (step.collective) {
        os << "  " << layout::collectiveName(step.collective->kind) << " over "
           << over << ": " << collectiveWords(*step.collective);
      } else {
        switch (step.kind) {
        case StepKind::Exchange:
          os << "  exchange over " << over
             << ": each rank receives what it lacks, once";
          break;
        case StepKind::ReduceExchange: {
          bool mixed = false;
          os << "  reduce_exchange over " << over
             << ": each rank receives one copy of every partial value it lacks "
                "and reduces ("
             << layout::reduceName(
                    *layout::partialReduce(at->placements, mixed))
             << ")";
          break;
        }
        case StepKind::AllGather:
          os << "  all_gather over " << over
             << ": every rank receives the blocks it lacks";
          perRank = false;
          break;
        case StepKind::LocalCopy:
          os << "  local copy: each rank takes its block from what it holds; "
                "nothing moves between ranks";
          perRank = false;
          break;
        }
      }
      if (!step.final)
        os << ", to "
           << describeLayout(stepType(step, from, reachedBy(from, to)));
      os << "\n";
      if (perRank && step.collective &&
          step.collective->kind == layout::CollectiveKind::AllReduce) {
        // The native all_reduce: a reduce-scatter then an all-gather within
        // each group, whatever pairs MPI or NCCL choose for it.
        int64_t listed = std::min(ranks, options.ranksListed);
        std::vector<int64_t> named = namedRanks(*at, step);
        for (const auto &[r, t] : step.traffic)
          named.push_back(r);
        listRanks(os, listed, std::move(named), [&](int64_t r) {
          layout::RankTraffic t = step.trafficOf(static_cast<int>(r));
          return "receives " + bytesText(t.received * eb) + ", sends " +
                 bytesText(t.sent * eb) +
                 " (reduce-scatter then all-gather in its group)";
        });
        if (listed < ranks)
          os << "    ... " << (ranks - listed)
             << " more ranks (--all-ranks lists them)\n";
      } else if (perRank) {
        int64_t listed = std::min(ranks, options.ranksListed);
        layout::ExchangePlanner exchange(
            at->table, at->hasPartial() ? &at->partial : nullptr,
            step.to.table);
        listRanks(os, listed, namedRanks(*at, step), [&](int64_t r) {
          return rankText(exchange.plan(static_cast<int>(r)), eb);
        });
        if (listed < ranks)
          os << "    ... " << (ranks - listed)
             << " more ranks (--all-ranks lists them)\n";
      }
      at = &step.to;
    }
  }
  if (!summary.partialCopies.empty())
    os << "  " << summary.partialCopies << "\n"
       << "(to a Partial destination the lower bound is 0: its copies may "
          "hold any parts that reduce to the value)\n";
  os << "bytes received: total " << bytesText(summary.bytesReceivedTotal)
     << ", max per rank " << bytesText(summary.bytesReceivedMaxRank)
     << "; lower bound: total " << bytesText(summary.lowerBoundTotal)
     << ", max " << bytesText(summary.lowerBoundMaxRank);
  if (summary.atLowerBound())
    os << " (at the bound)\n";
  else if (summary.bytesReceivedTotal > summary.lowerBoundTotal)
    os << " ("
       << bytesText(summary.bytesReceivedTotal - summary.lowerBoundTotal)
       << " above the bound)\n";
  else
    os << "\n";
  Link link = planner.topology().slowest();
  os << "modelled time: " << timeText(summary.modelledUs) << " ("
     << options.costModel << ": alpha " << numberText(link.alphaUs)
     << " us, beta " << numberText(link.betaGBps) << " GB/s)\n";
  if (choice.candidates.size() > 1) {
    os << "candidates:\n";
    for (size_t i = 0; i < choice.candidates.size(); ++i) {
      const CandidateSummary &c = summary.candidates[i];
      os << (i == choice.chosen ? "  * " : "    ") << c.name << ": " << c.steps
         << (c.steps == 1 ? " step, " : " steps, ")
         << (c.bytesReceivedTotal ? bytesText(*c.bytesReceivedTotal)
                                  : std::string("more bytes than int64 counts"))
         << " received, " << timeText(c.modelledUs) << "\n";
    }
  }
}

//===----------------------------------------------------------------------===//
// Drawing
//===----------------------------------------------------------------------===//

namespace {

/// Cells drawn per dim at most, and the most work (blocks times cells) a
/// drawing may take.
constexpr size_t kMaxCuts = 24;
constexpr int64_t kMaxDrawWork = 50'000'000;
/// A cell's label longer than this is replaced by the count of its ranks.
constexpr size_t kMaxLabel = 11;

/// "[0, 4)".
std::string rangeText(int64_t begin, int64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

std::string pad(std::string text, size_t width) {
  if (text.size() < width)
    text.append(width - text.size(), ' ');
  return text;
}

} // namespace

std::string planning::ranksLabel(const std::vector<int> &ranks) {
  std::string text;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
      ++j;
    text += (text.empty() ? "" : ",") + std::to_string(ranks[i]);
    if (j > i)
      text += (j == i + 1 ? "," : "-") + std::to_string(ranks[j]);
    i = j + 1;
  }
  if (text.size() > kMaxLabel)
    text = std::to_string(ranks.size()) + " ranks";
  return text;
}

std::vector<std::string> planning::drawLayout(ShardedTensorType type) {
  std::vector<std::string> lines;
  int64_t rank = type.getRank();
  if (rank > 2) {
    lines.push_back("(a tensor of " + std::to_string(rank) +
                    " dims: only 1-D and 2-D tensors are drawn)");
    return lines;
  }
  PlanLayout layout = planLayoutOf(type);
  const layout::BlockTable &table = layout.table;
  // The cuts of each dim drawn: 0, every block edge, the size. A 0-D tensor
  // and a 1-D tensor draw as one row.
  std::vector<int64_t> shape = type.getLayoutShape();
  while (shape.size() < 2)
    shape.insert(shape.begin(), 1);
  std::vector<std::vector<int64_t>> cuts(2);
  for (int d = 0; d < 2; ++d) {
    cuts[d] = {0, shape[d]};
    int64_t tensorDim = d - (2 - rank);
    if (tensorDim >= 0)
      for (const layout::Box &box : table.boxes)
        if (!box.empty()) {
          cuts[d].push_back(box.offsets[tensorDim]);
          cuts[d].push_back(box.offsets[tensorDim] + box.sizes[tensorDim]);
        }
    std::sort(cuts[d].begin(), cuts[d].end());
    cuts[d].erase(std::unique(cuts[d].begin(), cuts[d].end()), cuts[d].end());
  }
  size_t rows = cuts[0].size() - 1, cols = cuts[1].size() - 1;
  if (shape[0] == 0 || shape[1] == 0) {
    lines.push_back("(the tensor has no elements)");
    return lines;
  }
  if (rows > kMaxCuts || cols > kMaxCuts ||
      static_cast<int64_t>(table.boxes.size()) *
              static_cast<int64_t>(rows * cols) >
          kMaxDrawWork) {
    lines.push_back("(" + std::to_string(rows) + " x " + std::to_string(cols) +
                    " cells: too many to draw; at most " +
                    std::to_string(kMaxCuts) + " per dim)");
    return lines;
  }
  // The ranks holding each cell, and whether any holds partial values.
  std::vector<std::vector<int>> holders(rows * cols);
  bool partial = layout.hasPartial();
  for (size_t b = 0; b < table.boxes.size(); ++b) {
    const layout::Box &box = table.boxes[b];
    if (box.empty())
      continue;
    auto span = [&](int d) {
      int64_t tensorDim = d - (2 - rank);
      int64_t begin = tensorDim >= 0 ? box.offsets[tensorDim] : 0;
      int64_t end = tensorDim >= 0 ? begin + box.sizes[tensorDim] : 1;
      auto first = std::lower_bound(cuts[d].begin(), cuts[d].end(), begin);
      auto last = std::lower_bound(cuts[d].begin(), cuts[d].end(), end);
      return std::make_pair(first - cuts[d].begin(), last - cuts[d].begin());
    };
    auto [r0, r1] = span(0);
    auto [c0, c1] = span(1);
    for (auto r = r0; r < r1; ++r)
      for (auto c = c0; c < c1; ++c)
        holders[r * cols + c].push_back(table.owners[b]);
  }
  std::vector<std::string> labels(rows * cols);
  size_t width = 1;
  for (size_t i = 0; i < labels.size(); ++i) {
    std::vector<int> &ranks = holders[i];
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    labels[i] = ranks.empty() ? "-" : ranksLabel(ranks);
    if (partial && !ranks.empty())
      labels[i] += "*";
    width = std::max(width, labels[i].size());
  }
  std::vector<std::string> rowLabels(rows), colLabels(cols);
  size_t rowWidth = 0;
  if (rank == 2)
    for (size_t r = 0; r < rows; ++r) {
      rowLabels[r] = rangeText(cuts[0][r], cuts[0][r + 1]);
      rowWidth = std::max(rowWidth, rowLabels[r].size() + 1);
    }
  for (size_t c = 0; c < cols; ++c) {
    colLabels[c] = rank == 0 ? "" : rangeText(cuts[1][c], cuts[1][c + 1]);
    width = std::max(width, colLabels[c].size());
  }
  std::string header = std::string(rowWidth, ' '), rule = header;
  for (size_t c = 0; c < cols; ++c) {
    header += "  " + pad(colLabels[c], width + 1);
    rule += "+" + std::string(width + 2, '-');
  }
  rule += "+";
  while (!header.empty() && header.back() == ' ')
    header.pop_back();
  if (rank > 0)
    lines.push_back(header);
  lines.push_back(rule);
  for (size_t r = 0; r < rows; ++r) {
    std::string line = pad(rowLabels[r], rowWidth);
    for (size_t c = 0; c < cols; ++c)
      line += "| " + pad(labels[r * cols + c], width + 1);
    lines.push_back(line + "|");
    lines.push_back(rule);
  }
  if (partial)
    lines.push_back("* partial values, reduced across the ranks listed");
  return lines;
}

void planning::printLayouts(llvm::raw_ostream &os, ShardedTensorType from,
                            ShardedTensorType to) {
  std::vector<std::string> left = drawLayout(from), right = drawLayout(to);
  left.insert(left.begin(), "from: " + describeLayout(from));
  right.insert(right.begin(), "to: " + describeLayout(to));
  size_t width = 0;
  for (const std::string &line : left)
    width = std::max(width, line.size());
  for (size_t i = 0; i < std::max(left.size(), right.size()); ++i) {
    std::string line = i < left.size() ? left[i] : "";
    if (i < right.size())
      line = pad(line, width + 4) + right[i];
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    os << line << "\n";
  }
}
