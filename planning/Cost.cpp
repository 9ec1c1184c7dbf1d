//===- Cost.cpp - The alpha-beta cost model -------------------------------===//

#include "shardc/Planning/Cost.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace shardc {
namespace planning {

Link Topology::slowest() const {
  Link link = world;
  for (const Link &a : axes)
    link = Link::worst(link, a);
  return link;
}

namespace {

/// Whether a latency or a bandwidth is usable; else `error` says why.
bool checkAlpha(double us, const std::string &field, std::string &error) {
  if (std::isfinite(us) && us >= 0 && us <= kMaxAlphaUs)
    return true;
  std::ostringstream os;
  os << field << ": expected a latency in us from 0 to " << kMaxAlphaUs
     << ", got " << us;
  error = os.str();
  return false;
}

bool checkBeta(double gbps, const std::string &field, std::string &error) {
  if (std::isfinite(gbps) && gbps >= kMinBetaGBps && gbps <= kMaxBetaGBps)
    return true;
  std::ostringstream os;
  os << field << ": expected a bandwidth in GB/s from " << kMinBetaGBps
     << " to " << kMaxBetaGBps << ", got " << gbps;
  error = os.str();
  return false;
}

/// Reads a link: a preset name or {"alpha_us", "beta_gbps"}.
std::optional<Link> parseLink(const nlohmann::json &j, const std::string &field,
                              std::string &error) {
  if (j.is_string()) {
    if (j == "nvlink")
      return Link::nvlink();
    if (j == "infiniband")
      return Link::infiniband();
    error = field + ": expected \"nvlink\", \"infiniband\" or an object, got " +
            j.dump();
    return std::nullopt;
  }
  if (!j.is_object()) {
    error = field + ": expected an object, got " + j.dump();
    return std::nullopt;
  }
  // A misspelt field (alpha_ns, latency) is refused, as at the top.
  for (const auto &[key, value] : j.items())
    if (key != "alpha_us" && key != "beta_gbps") {
      error = field + ": unknown field '" + key +
              "' (a link has 'alpha_us' and 'beta_gbps')";
      return std::nullopt;
    }
  Link link;
  for (const char *key : {"alpha_us", "beta_gbps"}) {
    auto it = j.find(key);
    if (it == j.end()) {
      error = field + ": missing field '" + key + "'";
      return std::nullopt;
    }
    const bool alpha = std::string(key) == "alpha_us";
    const std::string name = field + "." + key;
    if (!it->is_number()) {
      error = name + ": expected a number, got " + it->dump();
      return std::nullopt;
    }
    double value = it->get<double>();
    if (alpha ? !checkAlpha(value, name, error)
              : !checkBeta(value, name, error))
      return std::nullopt;
    (alpha ? link.alphaUs : link.betaGBps) = value;
  }
  return link;
}

} // namespace

std::optional<Topology> parseTopology(const std::string &text,
                                      std::string &error) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/
                                           false);
  if (j.is_discarded()) {
    error = "not valid JSON";
    return std::nullopt;
  }
  if (!j.is_object()) {
    error = "expected an object with 'world' and 'axes'";
    return std::nullopt;
  }
  for (const auto &[key, value] : j.items())
    if (key != "world" && key != "axes") {
      error = "unknown field '" + key + "' (a topology has 'world' and 'axes')";
      return std::nullopt;
    }
  if (j.empty()) {
    error = "names no link: give 'world', 'axes' or both";
    return std::nullopt;
  }
  Topology topology;
  if (auto it = j.find("world"); it != j.end()) {
    std::optional<Link> link = parseLink(*it, "world", error);
    if (!link)
      return std::nullopt;
    topology.world = *link;
  }
  if (auto it = j.find("axes"); it != j.end()) {
    if (!it->is_array()) {
      error = "axes: expected an array, got " + it->dump();
      return std::nullopt;
    }
    for (size_t a = 0; a < it->size(); ++a) {
      std::optional<Link> link =
          parseLink((*it)[a], "axes[" + std::to_string(a) + "]", error);
      if (!link)
        return std::nullopt;
      topology.axes.push_back(*link);
    }
  }
  return topology;
}

const char *linkClassName(LinkClass link) {
  return link == LinkClass::InfiniBand ? "infiniband" : "nvlink";
}

std::optional<Topology> topologyFrom(const CostOptions &options,
                                     std::string &error) {
  Topology topology;
  if (options.topologyJson) {
    std::optional<Topology> parsed =
        parseTopology(*options.topologyJson, error);
    if (!parsed) {
      error = "topology file '" + options.topologyName + "': " + error;
      return std::nullopt;
    }
    topology = *parsed;
  } else if (options.link == LinkClass::InfiniBand) {
    topology.world = Link::infiniband();
  }
  if (options.alphaUs) {
    if (!checkAlpha(*options.alphaUs, "alpha-us", error))
      return std::nullopt;
    topology.world.alphaUs = *options.alphaUs;
  }
  if (options.betaGBps) {
    if (!checkBeta(*options.betaGBps, "beta-gbps", error))
      return std::nullopt;
    topology.world.betaGBps = *options.betaGBps;
  }
  return topology;
}

} // namespace planning
} // namespace shardc
