//===- Traffic.cpp - Every rank's traffic and the lower bound -------------===//
//
// exchangeTraffic, exchangeTrafficByBox and trafficLowerBound: what the
// per-rank plans of an exchange add up to, computed for all ranks at once,
// in time near linear in the blocks and their overlaps.
//
//===----------------------------------------------------------------------===//

#include "SourceGroups.h"
#include "TrafficPairByPair.h"

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>

namespace shardc {
namespace layout {

using detail::BoxEqual;
using detail::BoxHash;
using detail::BoxIndex;
using detail::groupIndex;
using detail::RankMap;
using detail::SourceGroups;

namespace {

template <typename Fn>
void forEachMeeting(const SourceGroups &sources, const BoxIndex &index,
                    const BlockTable &dst, Fn fn) {
  for (size_t b = 0; b < dst.size(); ++b) {
    const int q = dst.owners[b];
    index.candidates(dst.boxes[b], [&](size_t g) {
      std::optional<Box> shared =
          intersect(dst.boxes[b], *sources.groups[g].box);
      if (shared)
        fn(b, q, g, *shared);
    });
  }
}

/// The blocks of tables with at most one block per rank on either side (every
/// mesh layout), grouped by box on both sides: what the traffic and the
/// lower bound of an exchange are computed from, in time linear in the
/// blocks and the (destination box, source box) pairs that meet, not in the
/// pairs of ranks that exchange data (a gather to every rank has N^2 of them
/// but N meeting boxes).
struct BoxGroups {
  /// Destination blocks with the same non-empty box.
  struct DstGroup {
    const Box *box = nullptr;
    /// Its blocks, in table order.
    std::vector<int64_t> blocks;
    /// The source groups it meets, and the elements it shares with each.
    std::vector<std::pair<size_t, int64_t>> meets;
  };
  const SourceGroups &sources;
  const BlockTable &src, &dst;
  std::vector<DstGroup> groups;
  /// Per rank: its source block and its destination block (-1: none).
  RankMap srcBlockOf, dstBlockOf;
  /// Per destination block: its group (-1: empty).
  std::vector<int64_t> groupOf;
  /// Per source block: its group and class (empty blocks: none).
  std::vector<std::pair<size_t, size_t>> classOfBlock;

  BoxGroups(const SourceGroups &sources, const BoxIndex &index,
            const BlockTable &src, const BlockTable &dst)
      : sources(sources), src(src), dst(dst) {
    for (size_t b = 0; b < src.size(); ++b)
      srcBlockOf.add(src.owners[b], static_cast<int64_t>(b));
    srcBlockOf.seal();
    classOfBlock.assign(src.size(), {SIZE_MAX, SIZE_MAX});
    for (size_t g = 0; g < sources.groups.size(); ++g)
      for (size_t c = 0; c < sources.groups[g].classes.size(); ++c)
        for (int64_t b : sources.groups[g].classes[c].blocks)
          classOfBlock[b] = {g, c};
    std::unordered_map<const Box *, size_t, BoxHash, BoxEqual> groupOfBox;
    groupOfBox.reserve(dst.size());
    groupOf.assign(dst.size(), -1);
    for (size_t b = 0; b < dst.size(); ++b) {
      dstBlockOf.add(dst.owners[b], static_cast<int64_t>(b));
      if (dst.boxes[b].empty())
        continue;
      auto [it, inserted] = groupOfBox.emplace(&dst.boxes[b], groups.size());
      if (inserted) {
        groups.emplace_back();
        groups.back().box = &dst.boxes[b];
      }
      groups[it->second].blocks.push_back(static_cast<int64_t>(b));
      groupOf[b] = static_cast<int64_t>(it->second);
    }
    dstBlockOf.seal();
    if (sources.groups.empty())
      return;
    for (DstGroup &d : groups) {
      index.candidates(*d.box, [&](size_t g) {
        int64_t v =
            intersectionVolume(*d.box, *sources.groups[g].box).value_or(0);
        if (v > 0)
          d.meets.push_back({g, v});
      });
      // In the index's order (by start): what is added up from them does
      // not depend on it.
    }
  }

  /// Whether both tables have at most one block per rank.
  static bool applies(const BlockTable &src, const BlockTable &dst) {
    for (const BlockTable *t : {&src, &dst}) {
      std::vector<int> owners = t->owners;
      std::sort(owners.begin(), owners.end());
      if (std::adjacent_find(owners.begin(), owners.end()) != owners.end())
        return false;
    }
    return true;
  }

  /// The source group and class rank `r` holds (SIZE_MAX: none).
  std::pair<size_t, size_t> classOf(int r) const {
    std::optional<int64_t> b = srcBlockOf.find(r);
    return b ? classOfBlock[*b] : std::make_pair(SIZE_MAX, SIZE_MAX);
  }
};

/// The ranks that own blocks of either table as a range (its first rank and
/// its size) when it is dense (every mesh's: fewer than 4 ranks per block,
/// and 64, beyond the blocks'), for per-rank arrays indexed in place.
std::optional<std::pair<int64_t, int64_t>> denseRanks(const BlockTable &src,
                                                      const BlockTable &dst) {
  int64_t low = INT64_MAX, high = INT64_MIN;
  for (const BlockTable *t : {&src, &dst})
    for (int r : t->owners) {
      low = std::min<int64_t>(low, r);
      high = std::max<int64_t>(high, r);
    }
  const int64_t blocks = static_cast<int64_t>(src.size() + dst.size());
  if (low > high || high - low >= 4 * blocks + 64)
    return std::nullopt;
  return std::make_pair(low, high - low + 1);
}

/// The coordinates of the ranks a MeshAxesCrossed is asked about, a row
/// per rank (its coordinates along the axes, then 1 on the mesh, 0 off it),
/// and what the messages between them cross.
class CrossingRows {
public:
  CrossingRows(MeshAxesCrossed *axes, const BlockTable &src,
               const BlockTable &dst)
      : axes(axes), width(axes ? axes->axes + 1 : 0) {
    if (!axes)
      return;
    axes->crossed.assign(axes->axes, false);
    // The ranks of a dense range (every mesh's) find their rows in place.
    if (auto range = denseRanks(src, dst)) {
      first = range->first;
      dense.assign(range->second, SIZE_MAX);
    }
  }

  /// Whether there is nothing more to learn.
  bool settled() const { return !axes || axes->settled(); }

  /// Where rank `r`'s row starts.
  size_t rowOf(int r) {
    const int64_t at = static_cast<int64_t>(r) - first;
    if (!dense.empty() && at >= 0 && at < static_cast<int64_t>(dense.size())) {
      if (dense[at] == SIZE_MAX)
        dense[at] = added(r);
      return dense[at];
    }
    auto [it, inserted] = row.try_emplace(r, 0);
    if (inserted)
      it->second = added(r);
    return it->second;
  }
  int64_t at(size_t row, size_t column) const { return rows[row + column]; }
  size_t onMeshColumn() const { return width - 1; }

  /// A message between the ranks of rows `a` and `b`.
  void message(size_t a, size_t b) {
    if (settled())
      return;
    if (!at(a, onMeshColumn()) || !at(b, onMeshColumn())) {
      axes->offMesh = true;
      return;
    }
    for (size_t d = 0; d + 1 < width; ++d)
      if (at(a, d) != at(b, d))
        axes->crossed[d] = true;
  }

  /// Messages between the rank of row `sender` and ranks of which, per
  /// column, `same` says whether they all have one value and `value` is
  /// the value of one of them (never the sender's when they differ).
  void messages(size_t sender, const std::vector<bool> &same,
                const std::vector<int64_t> &value) {
    if (settled())
      return;
    const size_t on = onMeshColumn();
    if (!at(sender, on) || !same[on] || !value[on]) {
      axes->offMesh = true;
      return;
    }
    for (size_t d = 0; d < on; ++d)
      if (!same[d] || value[d] != at(sender, d))
        axes->crossed[d] = true;
  }

  MeshAxesCrossed *const axes;

private:
  /// A row for rank `r`, where it starts.
  size_t added(int r) {
    const size_t at = rows.size();
    rows.resize(at + width, 0);
    rows[at + width - 1] = axes->coordinates(r, &rows[at]) ? 1 : 0;
    return at;
  }

  const size_t width;
  int64_t first = 0;
  std::vector<size_t> dense;
  std::unordered_map<int, size_t> row;
  std::vector<int64_t> rows;
};

/// Every rank's traffic, added up as it is found: in place for the ranks of
/// a dense range (every mesh's), by hash otherwise.
class TrafficSums {
public:
  TrafficSums(const BlockTable &src, const BlockTable &dst) {
    if (auto range = denseRanks(src, dst)) {
      first = range->first;
      dense.resize(range->second);
      listed.assign(range->second, false);
    }
  }

  RankTraffic &of(int r) {
    if (!dense.empty()) {
      listed[r - first] = true;
      return dense[r - first];
    }
    auto [it, inserted] = slot.try_emplace(r, sparse.size());
    if (inserted)
      sparse.emplace_back(r, RankTraffic());
    return sparse[it->second].second;
  }

  RankTrafficTable table() {
    for (size_t i = 0; i < dense.size(); ++i)
      if (listed[i])
        sparse.emplace_back(static_cast<int>(first + i), dense[i]);
    return RankTrafficTable(std::move(sparse));
  }

private:
  int64_t first = 0;
  std::vector<RankTraffic> dense;
  std::vector<bool> listed;
  std::unordered_map<int, size_t> slot;
  std::vector<RankTrafficTable::Entry> sparse;
};

/// The receivers of a source group's copies, by position (destination
/// table order): prefix sums and runs of equal coordinates with a stride,
/// for the owners of a class that serve every m-th receiver in turn.
struct Strided {
  /// sums[i]: the elements of positions i, i - m, i - 2m, ...
  std::vector<int64_t> sums;
  /// Per column: runs[c][i] is the first position of the run of positions
  /// i, i - m, ... whose rows have i's value in column c.
  std::vector<std::vector<size_t>> runs;
};

/// exchangeTraffic over BoxGroups; says which mesh axes the messages cross
/// when `axes` is given.
RankTrafficTable trafficByBox(const BoxGroups &boxes, MeshAxesCrossed *axes) {
  const SourceGroups &sources = boxes.sources;
  const BlockTable &dst = boxes.dst;
  CrossingRows rows(axes, boxes.src, dst);
  // What each rank adds, summed per rank at the end.
  TrafficSums traffic(boxes.src, dst);
  // Receivers: per destination box, what every owner receives, less what it
  // holds (a rank holds one source block: one class of one group).
  for (const BoxGroups::DstGroup &d : boxes.groups) {
    if (d.meets.empty())
      continue;
    int64_t total = 0, messages = 0;
    for (auto [g, v] : d.meets) {
      int64_t classes = static_cast<int64_t>(sources.groups[g].classes.size());
      total += v * classes;
      messages += classes;
    }
    for (int64_t b : d.blocks) {
      const int q = dst.owners[b];
      RankTraffic &t = traffic.of(q);
      auto [g, c] = boxes.classOf(q);
      int64_t held =
          g == SIZE_MAX
              ? 0
              : intersectionVolume(*d.box, *sources.groups[g].box).value_or(0);
      t.received += total - held;
      t.copied += held;
      t.receivePeers += messages - (held > 0);
    }
  }
  // Senders of a group with one class of one owner: it serves every block
  // of each destination box it meets, but its own.
  auto single = [&](size_t g) {
    return sources.groups[g].classes.size() == 1 &&
           sources.groups[g].classes[0].owners.size() == 1;
  };
  // Per destination group, once asked: per column of the rows, whether its
  // blocks' owners all have one value, and one of their values.
  std::vector<std::pair<std::vector<bool>, std::vector<int64_t>>> summary(
      boxes.groups.size());
  auto summaryOf = [&](size_t i) -> const auto & {
    auto &[same, value] = summary[i];
    if (!same.empty())
      return summary[i];
    const BoxGroups::DstGroup &d = boxes.groups[i];
    const size_t width = rows.onMeshColumn() + 1;
    same.assign(width, true);
    value.assign(width, 0);
    for (size_t k = 0; k < d.blocks.size(); ++k) {
      const size_t r = rows.rowOf(dst.owners[d.blocks[k]]);
      for (size_t c = 0; c < width; ++c) {
        if (k == 0)
          value[c] = rows.at(r, c);
        else if (rows.at(r, c) != value[c])
          same[c] = false;
      }
    }
    return summary[i];
  };
  // Per single group, once asked: the destination group of its owner's
  // block (-1: none).
  std::vector<int64_t> ownGroup(sources.groups.size(), INT64_MIN);
  for (size_t i = 0; i < boxes.groups.size(); ++i) {
    const BoxGroups::DstGroup &d = boxes.groups[i];
    for (auto [g, v] : d.meets) {
      if (!single(g))
        continue;
      const int s = sources.groups[g].classes[0].owners[0];
      int64_t receivers = static_cast<int64_t>(d.blocks.size());
      if (ownGroup[g] == INT64_MIN) {
        std::optional<int64_t> own = boxes.dstBlockOf.find(s);
        ownGroup[g] = own ? boxes.groupOf[*own] : -1;
      }
      if (ownGroup[g] == static_cast<int64_t>(i))
        --receivers;
      if (receivers == 0)
        continue;
      RankTraffic &t = traffic.of(s);
      t.sent += v * receivers;
      t.sendPeers += receivers;
      if (!rows.settled()) {
        const auto &[same, value] = summaryOf(i);
        rows.messages(rows.rowOf(s), same, value);
      }
    }
  }
  // Per other group: the destination groups it meets and the elements it
  // shares with each.
  std::vector<std::vector<std::pair<size_t, int64_t>>> meetsOf(
      sources.groups.size());
  for (size_t i = 0; i < boxes.groups.size(); ++i)
    for (auto [g, v] : boxes.groups[i].meets)
      if (!single(g))
        meetsOf[g].push_back({i, v});
  // Senders of the other groups: per class, its receivers in destination
  // table order less those holding a copy of it, served in turn by its m
  // owners (the k-th by owner k mod m). When every receiver takes as many
  // elements and the axes crossed are known, that is counted. Otherwise the
  // holders cut the receivers into runs, and a run longer than m is added
  // up per owner with stride m (from sums, and from runs of equal
  // coordinates for the axes crossed), so that a group of C classes costs
  // about C m^2 rather than C times its receivers (the N^2 of reducing N
  // partial copies). A group that meets one destination box has that box's
  // blocks as its receivers: what is built with stride m from them is
  // shared by every such group.
  std::map<std::pair<size_t, int64_t>, Strided> sharedStrided;
  std::map<size_t, std::vector<size_t>> sharedRows;
  std::vector<int64_t> removed, listed, values;
  for (size_t g = 0; g < sources.groups.size(); ++g) {
    if (meetsOf[g].empty())
      continue;
    // The receivers: their blocks in table order and, unless uniform, the
    // elements each takes.
    const bool one = meetsOf[g].size() == 1;
    int64_t length = 0;
    bool uniform = true;
    for (auto [i, v] : meetsOf[g]) {
      length += static_cast<int64_t>(boxes.groups[i].blocks.size());
      uniform &= v == meetsOf[g][0].second;
    }
    const int64_t elements = meetsOf[g][0].second;
    const int64_t *blocks = nullptr;
    values.clear();
    if (one) {
      blocks = boxes.groups[meetsOf[g][0].first].blocks.data();
    } else {
      std::vector<std::pair<int64_t, int64_t>> both;
      both.reserve(length);
      for (auto [i, v] : meetsOf[g])
        for (int64_t b : boxes.groups[i].blocks)
          both.push_back({b, v});
      std::sort(both.begin(), both.end());
      listed.resize(length);
      for (int64_t k = 0; k < length; ++k)
        listed[k] = both[k].first;
      blocks = listed.data();
      if (!uniform) {
        values.resize(length);
        for (int64_t k = 0; k < length; ++k)
          values[k] = both[k].second;
      }
    }
    auto valueAt = [&](int64_t k) { return uniform ? elements : values[k]; };
    std::vector<size_t> ownRows;
    std::vector<size_t> &rowAt =
        one ? sharedRows[meetsOf[g][0].first] : ownRows;
    std::map<int64_t, Strided> ownStrided;
    auto stridedOf = [&](int64_t m) -> const Strided & {
      Strided &st =
          one ? sharedStrided[{meetsOf[g][0].first, m}] : ownStrided[m];
      if (!uniform && st.sums.empty()) {
        st.sums.resize(length);
        for (int64_t i = 0; i < length; ++i)
          st.sums[i] = valueAt(i) + (i >= m ? st.sums[i - m] : 0);
      }
      if (rows.settled() || !st.runs.empty())
        return st;
      if (rowAt.empty())
        for (int64_t k = 0; k < length; ++k)
          rowAt.push_back(rows.rowOf(dst.owners[blocks[k]]));
      st.runs.assign(rows.onMeshColumn() + 1, std::vector<size_t>(length));
      for (size_t c = 0; c < st.runs.size(); ++c)
        for (int64_t i = 0; i < length; ++i)
          st.runs[c][i] =
              i >= m && rows.at(rowAt[i], c) == rows.at(rowAt[i - m], c)
                  ? st.runs[c][i - m]
                  : static_cast<size_t>(i);
      return st;
    };
    const SourceGroups::Group &group = sources.groups[g];
    for (size_t c = 0; c < group.classes.size(); ++c) {
      const detail::Span<int> &owners = group.classes[c].owners;
      const int64_t m = static_cast<int64_t>(owners.size());
      // The positions of the receivers that hold a copy of this class.
      removed.clear();
      for (int o : owners) {
        std::optional<int64_t> b = boxes.dstBlockOf.find(o);
        if (!b)
          continue;
        const int64_t *at = std::lower_bound(blocks, blocks + length, *b);
        if (at != blocks + length && *at == *b)
          removed.push_back(at - blocks);
      }
      std::vector<int64_t> sent(m, 0), peers(m, 0);
      if (uniform && rows.settled()) {
        // Owner j serves the positions j, j + m, ... of the others.
        const int64_t served = length - static_cast<int64_t>(removed.size());
        for (int64_t j = 0; j < m && j < served; ++j) {
          peers[j] = (served - 1 - j) / m + 1;
          sent[j] = peers[j] * elements;
        }
      } else {
        std::sort(removed.begin(), removed.end());
        int64_t shift = 0; // receivers removed before the run
        auto run = [&](int64_t from, int64_t to) {
          if (to - from <= m) {
            for (int64_t i = from; i < to; ++i) {
              const int64_t j = (i - shift) % m;
              sent[j] += valueAt(i);
              ++peers[j];
              if (!rows.settled())
                rows.message(rows.rowOf(dst.owners[blocks[i]]),
                             rows.rowOf(owners[j]));
            }
            return;
          }
          const Strided &st = stridedOf(m);
          std::vector<bool> same(st.runs.size());
          std::vector<int64_t> value(st.runs.size());
          for (int64_t j = 0; j < m; ++j) {
            // The positions i of [from, to) with i - shift = j (mod m).
            const int64_t residue = (j + shift) % m;
            const int64_t first = from + ((residue - from % m) % m + m) % m;
            if (first >= to)
              continue;
            const int64_t last = first + (to - 1 - first) / m * m;
            const int64_t count = (last - first) / m + 1;
            sent[j] +=
                uniform ? count * elements
                        : st.sums[last] - (first >= m ? st.sums[first - m] : 0);
            peers[j] += count;
            if (rows.settled())
              continue;
            for (size_t col = 0; col < st.runs.size(); ++col) {
              same[col] = st.runs[col][last] <= static_cast<size_t>(first);
              value[col] = rows.at(rowAt[last], col);
            }
            rows.messages(rows.rowOf(owners[j]), same, value);
          }
        };
        int64_t from = 0;
        for (int64_t at : removed) {
          run(from, at);
          from = at + 1;
          ++shift;
        }
        run(from, length);
      }
      for (int64_t j = 0; j < m; ++j) {
        if (peers[j] == 0)
          continue;
        RankTraffic &t = traffic.of(owners[j]);
        t.sent += sent[j];
        t.sendPeers += peers[j];
      }
    }
  }
  return traffic.table();
}

} // namespace

bool MeshAxesCrossed::settled() const {
  return offMesh ||
         std::all_of(crossed.begin(), crossed.end(), [](bool c) { return c; });
}

std::optional<RankTrafficTable>
exchangeTrafficByBox(const BlockTable &src, const std::vector<int64_t> *partial,
                     const BlockTable &dst, MeshAxesCrossed *axes,
                     TrafficWay way) {
  const bool small = src.size() <= kMostBlocksPairByPair &&
                     dst.size() <= kMostBlocksPairByPair;
  if (way == TrafficWay::PairByPair || (way == TrafficWay::Fit && small))
    return small ? detail::trafficPairByPair(src, partial, dst, axes)
                 : std::nullopt;
  if (!BoxGroups::applies(src, dst))
    return std::nullopt;
  const SourceGroups sources(src, partial);
  const BoxIndex index = groupIndex(sources);
  const BoxGroups boxes(sources, index, src, dst);
  return trafficByBox(boxes, axes);
}

RankTrafficTable::RankTrafficTable(std::vector<Entry> added)
    : entries(std::move(added)) {
  if (entries.empty())
    return;
  auto [least, most] = std::minmax_element(
      entries.begin(), entries.end(),
      [](const Entry &a, const Entry &b) { return a.first < b.first; });
  const int64_t low = least->first,
                span = int64_t(most->first) - int64_t(least->first) + 1;
  if (span <= 4 * static_cast<int64_t>(entries.size()) + 64) {
    // Ranks in a dense range (every mesh's): summed in place, in rank order.
    std::vector<RankTraffic> sum(span);
    std::vector<bool> listed(span, false);
    for (const Entry &e : entries) {
      sum[e.first - low] += e.second;
      listed[e.first - low] = true;
    }
    entries.clear();
    for (int64_t i = 0; i < span; ++i)
      if (listed[i])
        entries.emplace_back(static_cast<int>(low + i), sum[i]);
    return;
  }
  detail::sortByRank(entries, [](RankTraffic &kept, const RankTraffic &later) {
    kept += later;
  });
}

const RankTraffic *RankTrafficTable::find(int r) const {
  auto it =
      std::lower_bound(entries.begin(), entries.end(), r,
                       [](const Entry &e, int rank) { return e.first < rank; });
  return it != entries.end() && it->first == r ? &it->second : nullptr;
}

RankTrafficTable
exchangeTraffic(const BlockTable &src, const std::vector<int64_t> *partial,
                const BlockTable &dst,
                std::map<std::pair<int, int>, int64_t> *pairs) {
  const SourceGroups sources(src, partial);
  if (sources.groups.empty())
    return {};
  // Flat lists, summed at the end (RankTrafficTable sums a rank's entries;
  // the pieces sorted by receiver and sender): a node per piece in maps was
  // most of what a search's thousands of moves between layouts of several
  // blocks per rank cost.
  std::vector<RankTrafficTable::Entry> traffic;
  // Every (receiver, sender, elements) of a piece.
  struct Piece {
    int receiver, sender;
    int64_t elements;
  };
  std::vector<Piece> pieces;
  const BoxIndex index = groupIndex(sources);
  // Per group and class (class c of group g at first[g] + c): the receivers
  // so far, in destination table order.
  std::vector<size_t> first(sources.groups.size() + 1, 0);
  for (size_t g = 0; g < sources.groups.size(); ++g)
    first[g + 1] = first[g] + sources.groups[g].classes.size();
  std::vector<int64_t> receivers(first.back(), 0);
  for (size_t b = 0; b < dst.size(); ++b) {
    const int q = dst.owners[b];
    index.candidates(dst.boxes[b], [&](size_t g) {
      // Only what they share counts here: no box is built.
      const int64_t elements =
          *intersectionVolume(dst.boxes[b], *sources.groups[g].box);
      if (elements == 0)
        return;
      const std::optional<size_t> mine = sources.classIn(q, g);
      for (size_t c = 0; c < sources.groups[g].classes.size(); ++c) {
        if (mine == c) {
          RankTraffic copied;
          copied.copied = elements;
          traffic.emplace_back(q, copied);
          continue;
        }
        int s = sources.sender(g, c, receivers[first[g] + c]++);
        pieces.push_back({q, s, elements});
      }
    });
  }
  std::sort(pieces.begin(), pieces.end(), [](const Piece &a, const Piece &b) {
    return std::tie(a.receiver, a.sender) < std::tie(b.receiver, b.sender);
  });
  for (size_t i = 0; i < pieces.size();) {
    // One (receiver, sender) pair: its pieces summed, one peer each way.
    const int q = pieces[i].receiver, s = pieces[i].sender;
    int64_t elements = 0;
    for (;
         i < pieces.size() && pieces[i].receiver == q && pieces[i].sender == s;
         ++i)
      elements += pieces[i].elements;
    RankTraffic in, out;
    in.received = elements;
    in.receivePeers = 1;
    out.sent = elements;
    out.sendPeers = 1;
    traffic.emplace_back(q, in);
    traffic.emplace_back(s, out);
    if (pairs)
      pairs->emplace_hint(pairs->end(), std::make_pair(q, s), elements);
  }
  return RankTrafficTable(std::move(traffic));
}

TrafficBound trafficLowerBound(const BlockTable &src,
                               const std::vector<int64_t> *partial,
                               const BlockTable &dst) {
  const SourceGroups sources(src, partial);
  TrafficBound out;
  std::map<int, long double> &bound = out.perRank;
  for (size_t b = 0; b < dst.size(); ++b)
    if (!dst.boxes[b].empty())
      bound[dst.owners[b]] = 0;
  if (sources.groups.empty())
    return out;
  const BoxIndex index = groupIndex(sources);
  if (BoxGroups::applies(src, dst)) {
    // Per destination box: every element of it, less what each owner holds
    // (one source block); where that block is one of several partial copies,
    // the others' sum too (per rank once, in all its share of reducing them).
    const BoxGroups boxes(sources, index, src, dst);
    // Per (source group, destination group): how many owners of a copy of
    // the source box hold a block of the destination group; and the
    // destination groups indexed, to find those that contain a box.
    std::unordered_map<uint64_t, int64_t> holdersIn;
    for (size_t g = 0; g < sources.groups.size(); ++g) {
      if (sources.groups[g].classes.size() < 2)
        continue;
      for (const SourceGroups::Class &c : sources.groups[g].classes)
        for (int h : c.owners)
          if (std::optional<int64_t> hb = boxes.dstBlockOf.find(h))
            if (boxes.groupOf[*hb] >= 0)
              ++holdersIn[SourceGroups::key(
                  static_cast<int>(boxes.groupOf[*hb]), g)];
    }
    const BoxIndex dstIndex(boxes.groups.size(), [&](size_t i) -> const Box & {
      return *boxes.groups[i].box;
    });
    for (const BoxGroups::DstGroup &d : boxes.groups) {
      int64_t total = 0;
      for (auto [g, v] : d.meets)
        total += v;
      // Per source group held here: the ranks holding a copy of it whose
      // destination block contains what it shares with this box.
      std::map<size_t, int64_t> needing;
      for (int64_t b : d.blocks) {
        const int q = dst.owners[b];
        const size_t g = boxes.classOf(q).first;
        const int64_t held =
            g == SIZE_MAX ? 0
                          : intersectionVolume(*d.box, *sources.groups[g].box)
                                .value_or(0);
        long double elements = static_cast<long double>(total - held);
        const SourceGroups::Group &group = sources.groups[held ? g : 0];
        bound[q] += elements;
        out.total += elements;
        if (held > 0 && group.classes.size() > 1) {
          auto [it, inserted] = needing.try_emplace(g, 0);
          if (inserted) {
            const Box shared = *intersect(*d.box, *group.box);
            dstIndex.candidates(shared, [&](size_t other) {
              const Box &box = *boxes.groups[other].box;
              std::optional<Box> theirs = intersect(box, shared);
              if (!theirs || !(*theirs == shared))
                return;
              auto found =
                  holdersIn.find(SourceGroups::key(static_cast<int>(other), g));
              if (found != holdersIn.end())
                it->second += found->second;
            });
            it->second = std::max<int64_t>(it->second, 1);
          }
          const int64_t m = it->second;
          const size_t copies = group.classes.size();
          bound[q] += static_cast<long double>(held);
          out.total += static_cast<long double>(held) *
                       static_cast<long double>(copies + m - 2) /
                       static_cast<long double>(m);
        }
      }
    }
    return out;
  }
  forEachMeeting(
      sources, index, dst, [&](size_t, int q, size_t g, const Box &shared) {
        const long double elements =
            static_cast<long double>(*volume(shared.sizes));
        const SourceGroups::Group &group = sources.groups[g];
        if (!sources.classIn(q, g)) {
          bound[q] += elements; // the reduced value, once
          out.total += elements;
          return;
        }
        const size_t copies = group.classes.size();
        if (copies == 1)
          return;             // held
        bound[q] += elements; // the others' sum, at least
        // The holders of a copy of this group that need the same elements.
        int64_t m = 0;
        for (const SourceGroups::Class &c : group.classes) {
          for (int h : c.owners) {
            for (int64_t hb : dst.blocksOf(h)) {
              std::optional<Box> theirs = intersect(dst.boxes[hb], shared);
              if (theirs && *theirs == shared) {
                ++m;
                break;
              }
            }
          }
        }
        m = std::max<int64_t>(m, 1);
        out.total += elements * static_cast<long double>(copies + m - 2) /
                     static_cast<long double>(m);
      });
  return out;
}

} // namespace layout
} // namespace shardc
