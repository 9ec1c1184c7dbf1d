//===- CostModel.cpp - The cost model's options, declared once ------------===//

#include "shardc/Planning/CostModel.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cstdio>
#include <limits>

using namespace shardc;
using namespace shardc::planning;
using llvm::StringRef;

namespace {

/// A double's text that reads back to the same double.
std::string numberText(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

/// Reads a number ("3", "2.5e-3"; "nan" and "inf" too: ShardPlanner::create
/// refuses them with the range each option takes).
std::string readNumber(StringRef text, double &value) {
  StringRef trimmed = text.trim();
  if (!trimmed.getAsDouble(value, /*AllowInexact=*/true))
    return "";
  // What numberText writes for values that are not finite.
  std::string lower = trimmed.lower();
  bool negative = StringRef(lower).consume_front("-");
  StringRef rest = StringRef(lower).drop_front(negative ? 1 : 0);
  rest.consume_front("+");
  if (rest == "nan") {
    value = std::numeric_limits<double>::quiet_NaN();
    return "";
  }
  if (rest == "inf" || rest == "infinity") {
    value = negative ? -std::numeric_limits<double>::infinity()
                     : std::numeric_limits<double>::infinity();
    return "";
  }
  return "'" + text.str() + "' is not a number";
}

/// An override of the link's latency or bandwidth: a number ("": the
/// link's own).
std::string setOverride(std::optional<double> &value, StringRef text) {
  value.reset();
  if (text.empty())
    return "";
  double number;
  if (std::string problem = readNumber(text, number); !problem.empty())
    return problem;
  value = number;
  return "";
}

std::string overrideText(const std::optional<double> &value) {
  return value ? numberText(*value) : "";
}

const CostModelOption kOptions[] = {
    {"link",
     "The link class of the cost model: nvlink (2 us, 150 GB/s per rank; the "
     "default) or infiniband (5 us, 25 GB/s per rank)",
     [](PlanningOptions &m, StringRef text) -> std::string {
       if (text.empty() || text == "nvlink")
         m.link = LinkClass::NVLink;
       else if (text == "infiniband")
         m.link = LinkClass::InfiniBand;
       else
         return "'" + text.str() +
                "' is not a link class: nvlink or infiniband";
       return "";
     },
     [](const PlanningOptions &m) -> std::string {
       return m.link == LinkClass::NVLink ? "" : linkClassName(m.link);
     }},
    {"alpha-us",
     "Latency per message in microseconds, finite, 0 to 1e12 (default: the "
     "link's)",
     [](PlanningOptions &m, StringRef text) {
       return setOverride(m.alphaUs, text);
     },
     [](const PlanningOptions &m) { return overrideText(m.alphaUs); }},
    {"beta-gbps",
     "Bandwidth per rank in GB/s, finite, 1e-12 to 1e12 (default: the "
     "link's)",
     [](PlanningOptions &m, StringRef text) {
       return setOverride(m.betaGBps, text);
     },
     [](const PlanningOptions &m) { return overrideText(m.betaGBps); }},
    {"topology",
     "A JSON topology file: {\"world\": link, \"axes\": [link, ...]} "
     "(docs/planner.md); it replaces the link class",
     [](PlanningOptions &m, StringRef text) -> std::string {
       m.topologyFile = text.str();
       return "";
     },
     [](const PlanningOptions &m) { return m.topologyFile; }},
    {"plans",
     "Which plans a redistribution may get: cheapest (the cheapest of the "
     "candidate plans; the default) or direct (one exchange per "
     "redistribution)",
     [](PlanningOptions &m, StringRef text) -> std::string {
       if (text.empty() || text == "cheapest")
         m.plans = PlanSet::Cheapest;
       else if (text == "direct")
         m.plans = PlanSet::Direct;
       else
         return "'" + text.str() + "' is not a plan set: cheapest or direct";
       return "";
     },
     [](const PlanningOptions &m) -> std::string {
       return m.plans == PlanSet::Direct ? "direct" : "";
     }},
    {"world-size",
     "The ranks the program runs on: 1 to 2^31 - 1, holding every rank the "
     "layouts name (0, the default: the ranks the layouts name). Ranks no "
     "layout names still receive an all_gather's whole tensor, which plans "
     "and the report count",
     [](PlanningOptions &m, StringRef text) -> std::string {
       m.worldSize = 0;
       if (!text.empty() && text.trim().getAsInteger(10, m.worldSize))
         return "'" + text.str() + "' is not an integer";
       return "";
     },
     [](const PlanningOptions &m) -> std::string {
       return m.worldSize == 0 ? "" : std::to_string(m.worldSize);
     }},
    {"peak-gflops",
     "The compute rate an op's work is costed at in GFLOP/s, finite and >= "
     "0 (0: compute is free; default 60000): -shard-propagate's search "
     "weighs it against the moves",
     [](PlanningOptions &m, StringRef text) -> std::string {
       m.peakGflops = PlanningOptions().peakGflops;
       if (text.empty())
         return "";
       return readNumber(text, m.peakGflops);
     },
     [](const PlanningOptions &m) -> std::string {
       return m.peakGflops == PlanningOptions().peakGflops
                  ? ""
                  : numberText(m.peakGflops);
     }},
};

/// The option named `name`, with '_' read as '-'; null if none.
const CostModelOption *findOption(StringRef name) {
  std::string dashed = name.str();
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  for (const CostModelOption &option : kOptions)
    if (dashed == option.name)
      return &option;
  return nullptr;
}

} // namespace

llvm::ArrayRef<CostModelOption> planning::costModelOptions() {
  return kOptions;
}

std::string planning::setCostModelOption(PlanningOptions &model, StringRef name,
                                         StringRef text) {
  const CostModelOption *option = findOption(name);
  if (!option) {
    std::string names;
    for (const CostModelOption &o : kOptions)
      names += (names.empty() ? "" : ", ") + std::string(o.name);
    return "no cost model option '" + name.str() + "' (" + names + ")";
  }
  std::string problem = option->set(model, text);
  return problem.empty() ? "" : std::string(option->name) + ": " + problem;
}

std::string planning::costModelOptionsText(const PlanningOptions &model) {
  std::string text;
  for (const CostModelOption &option : kOptions) {
    std::string value = option.get(model);
    if (value.empty())
      continue;
    // A pass option's text ends at a space unless braced.
    if (value.find_first_of(" {}") != std::string::npos)
      value = "{" + value + "}";
    text += (text.empty() ? "" : " ") + std::string(option.name) + "=" + value;
  }
  return text;
}

bool CostModelOptionParser::parse(llvm::cl::Option &flag, StringRef name,
                                  StringRef text, std::string &value) {
  if (option) {
    PlanningOptions scratch;
    if (std::string problem = option->set(scratch, text); !problem.empty())
      return flag.error(problem);
  }
  value = text.str();
  return false;
}
