//===- TrafficPairByPair.h - Small tables' traffic, block by block -*- C++
//-*-===//
//
// Private to the layout library: exchangeTrafficByBox's way for tables of
// at most kMostBlocksPairByPair blocks each (TrafficWay::PairByPair).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LAYOUT_TRAFFICPAIRBYPAIR_H
#define SHARDC_LAYOUT_TRAFFICPAIRBYPAIR_H

#include "shardc/Layout/Exchange.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace shardc {
namespace layout {
namespace detail {

/// exchangeTrafficByBox's way for small tables (TrafficWay::PairByPair):
/// the source blocks grouped by box by comparing them, then every
/// destination block against every group, the copies of a class serving
/// its receivers in turn (in destination table order, those holding a copy
/// of it left out) as exchangeTraffic's do. nullopt where a rank owns two
/// blocks of one table.
std::optional<RankTrafficTable>
trafficPairByPair(const BlockTable &src, const std::vector<int64_t> *partial,
                  const BlockTable &dst, MeshAxesCrossed *axes);

} // namespace detail
} // namespace layout
} // namespace shardc

#endif // SHARDC_LAYOUT_TRAFFICPAIRBYPAIR_H
