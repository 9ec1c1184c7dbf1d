//===- Cost.h - The alpha-beta cost model -----------------------*- C++ -*-===//
//
// A message of b bytes over a link costs alpha + b / beta, with a link per
// mesh axis. Plain C++: the planner weighs its candidates with it and the
// report states their times.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PLANNING_COST_H
#define SHARDC_PLANNING_COST_H

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardc {
namespace planning {

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

  /// The time of `messages` messages carrying `bytes` in all, in us. Bytes
  /// are a double: a count of elements times their size may not fit int64.
  double timeUs(int64_t messages, double bytes) const {
    return alphaUs * static_cast<double>(messages) + bytes / (betaGBps * 1e3);
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

/// The link classes a pass or a tool names: Link::nvlink(),
/// Link::infiniband().
enum class LinkClass { NVLink, InfiniBand };
/// "nvlink", "infiniband".
const char *linkClassName(LinkClass link);

/// The largest latency (us) and the bandwidth range (GB/s) the model takes:
/// within them every modelled time of up to 2^63 bytes and 2^63 messages is
/// a finite number.
constexpr double kMaxAlphaUs = 1e12;
constexpr double kMinBetaGBps = 1e-12;
constexpr double kMaxBetaGBps = 1e12;

/// The cost model as a pass or a tool takes it: a link class, optional
/// overrides of its latency and bandwidth, an optional topology file. Every
/// user of the model builds it through topologyFrom, so that the pass and
/// the tools accept and reject the same values.
struct CostOptions {
  /// Ignored with a topology.
  LinkClass link = LinkClass::NVLink;
  std::optional<double> alphaUs, betaGBps;
  /// The topology file's text (none: no topology file; an empty text is a
  /// file that is empty, and refused), and its name for messages.
  std::optional<std::string> topologyJson;
  std::string topologyName;
};

/// The topology `options` describe, with the overrides applied to its world
/// link. Returns nullopt with `error` naming the option ("alpha-us: ...")
/// for a bad topology file, or a latency or bandwidth that is not a finite
/// number in range (NaN, inf, negative, zero bandwidth).
std::optional<Topology> topologyFrom(const CostOptions &options,
                                     std::string &error);

/// Parses a topology file: {"world": {"alpha_us": A, "beta_gbps": B},
/// "axes": [{"alpha_us": ..., "beta_gbps": ...}, ...]}; "world" may also be
/// "nvlink" or "infiniband". Returns nullopt with `error` naming the field;
/// a text that names neither, or another field, is refused.
std::optional<Topology> parseTopology(const std::string &json,
                                      std::string &error);

} // namespace planning
} // namespace shardc

#endif // SHARDC_PLANNING_COST_H
