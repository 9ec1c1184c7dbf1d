//===- Cost.h - The alpha-beta cost model -----------------------*- C++ -*-===//
//
// A message of b bytes over a link costs alpha + b / beta. Plain C++, used by
// the planner's report (and, as plans gain alternatives, by its choices).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LAYOUT_COST_H
#define SHARDC_LAYOUT_COST_H

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardc {
namespace layout {

/// One class of link: latency per message and bandwidth per rank.
struct Link {
  double alphaUs = 0;
  double betaGBps = 0;

  /// NVLink-class (within a node): 2 us, 150 GB/s per rank and direction.
  static Link nvlink() { return {2.0, 150.0}; }
  /// InfiniBand-class (across nodes, 200 Gb/s per rank): 5 us, 25 GB/s.
  static Link infiniband() { return {5.0, 25.0}; }

  /// The slower of two links in each respect: the larger latency and the
  /// smaller bandwidth.
  static Link worst(const Link &a, const Link &b) {
    return {std::max(a.alphaUs, b.alphaUs), std::min(a.betaGBps, b.betaGBps)};
  }

  /// The time of `messages` messages carrying `bytes` in all, in us.
  double timeUs(int64_t messages, int64_t bytes) const {
    return alphaUs * static_cast<double>(messages) +
           static_cast<double>(bytes) / (betaGBps * 1e3);
  }
};

/// Links per mesh axis, and one for collectives over the whole world.
struct Topology {
  Link world = Link::nvlink();
  std::vector<Link> axes;

  /// The slowest of `world` and every axis: what a collective over the whole
  /// world, crossing every axis, is bounded by.
  Link slowest() const;
};

/// Parses a topology file: {"world": {"alpha_us": A, "beta_gbps": B},
/// "axes": [{"alpha_us": ..., "beta_gbps": ...}, ...]}; "world" may also be
/// "nvlink" or "infiniband". Returns nullopt with `error` naming the field.
std::optional<Topology> parseTopology(const std::string &json,
                                      std::string &error);

} // namespace layout
} // namespace shardc

#endif // SHARDC_LAYOUT_COST_H
