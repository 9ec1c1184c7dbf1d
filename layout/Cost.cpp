//===- Cost.cpp - The alpha-beta cost model -------------------------------===//

#include "shardc/Layout/Cost.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace shardc {
namespace layout {

Link Topology::slowest() const {
  Link link = world;
  for (const Link &a : axes)
    link = Link::worst(link, a);
  return link;
}

namespace {

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
  Link link;
  for (const char *key : {"alpha_us", "beta_gbps"}) {
    auto it = j.find(key);
    if (it == j.end()) {
      error = field + ": missing field '" + key + "'";
      return std::nullopt;
    }
    if (!it->is_number() || it->get<double>() < 0 ||
        (std::string(key) == "beta_gbps" && it->get<double>() <= 0)) {
      error = field + "." + key + ": expected a " +
              (std::string(key) == "beta_gbps" ? "positive" : "non-negative") +
              " number, got " + it->dump();
      return std::nullopt;
    }
    (std::string(key) == "alpha_us" ? link.alphaUs : link.betaGBps) =
        it->get<double>();
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

} // namespace layout
} // namespace shardc
