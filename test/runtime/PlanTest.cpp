//===- PlanTest.cpp - Block tables and redistribution plans ---------------===//
//
// The table checks' messages, and plans of random redistributions (chunk
// specs, grids, replicas, empty blocks, 0-D to 3-D) in worlds of 1 to 8
// ranks: what one rank sends another is what that one receives, in the same
// order; every destination element arrives exactly once, from a rank that
// holds it; and shardrt_redistribute_counts agrees with an element-by-element
// count. Reductions of partial sources likewise: every destination element
// gets exactly one contribution per partial index, combined in ascending
// partial index, and with one partial index per box the plan is that of the
// redistribution.
//
//===----------------------------------------------------------------------===//

#include "Layouts.h"
#include "TestSupport.h"
#include "shardc/Layout/Exchange.h"
#include "shardrt.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

using namespace shardrt_test;
using shardc::layout::BlockTable;
using shardc::layout::Box;
using shardc::layout::Combined;
using shardc::layout::Contribution;
using shardc::layout::planRedistribution;
using shardc::layout::planReduction;
using shardc::layout::readBlockTable;
using shardc::layout::readRedistributionTables;
using shardc::layout::RedistributionPlan;
using shardc::layout::Transfer;

namespace {

#define EXPECT_CONTAINS(haystack, needle)                                      \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos)             \
      << "message: " << (haystack)

/// Reads `table` (rank-`rank` rows) and returns the problem ("" if none).
std::string problemOf(const std::vector<int64_t> &table, int64_t rows,
                      int64_t rank, int64_t world,
                      const std::vector<int64_t> *shape = nullptr,
                      const std::string &what = "") {
  shardc::layout::Result<BlockTable> t = readBlockTable(
      table.empty() ? nullptr : table.data(), rows, rank, world, shape, what);
  EXPECT_EQ(t.ok(), t.error().empty()) << t.error();
  return t.error();
}

TEST(BlockTable, Problems) {
  EXPECT_EQ(problemOf({}, -1, 1, 4), "the block table has -1 rows");
  EXPECT_EQ(problemOf({}, 2, 1, 4, nullptr, "source "),
            "the source block table is NULL but has 2 rows");
  EXPECT_EQ(problemOf({4, 0, 3}, 1, 1, 4, nullptr, "destination "),
            "destination block 0 is placed on rank 4 but the world has 4 "
            "ranks");
  EXPECT_EQ(problemOf({-1, 0, 3}, 1, 1, 0),
            "block 0 is placed on rank -1, which is not an MPI rank (0 to "
            "2147483647)");
  EXPECT_EQ(problemOf({0, 0, 3, 1, 0, -3}, 2, 1, 0),
            "block 1 (offsets [0], sizes [-3]) has a negative offset or size");
  EXPECT_EQ(problemOf({0, INT64_MAX, 1}, 1, 1, 0),
            "block 0 (offsets [9223372036854775807], sizes [1]) ends beyond "
            "what int64 counts");
  EXPECT_EQ(problemOf({0, 0, 0, 1LL << 32, 1LL << 32}, 1, 2, 0),
            "block 0 (offsets [0, 0], sizes [4294967296, 4294967296]) holds "
            "more elements than int64 counts");
  const std::vector<int64_t> shape{6};
  EXPECT_EQ(problemOf({0, 4, 3}, 1, 1, 1, &shape),
            "block 0 (offsets [4], sizes [3]) does not fit in the global "
            "tensor [6]");
  EXPECT_EQ(problemOf({2, 0, 3, 1, 3, 3, 2, 3, 0}, 3, 1, 4, nullptr, "source "),
            "rank 2 owns source blocks 0 and 2; this call supports at "
            "most one block per rank");
  EXPECT_EQ(problemOf({2, 0, 3, 1, 3, 3}, 2, 1, 4), "");
}

TEST(BlockTable, ExtentsMustMatch) {
  // [6, 10] by rows, [6, 9] by columns.
  const std::vector<int64_t> src{0, 0, 0, 3, 10, 1, 3, 0, 3, 10};
  const std::vector<int64_t> dst{0, 0, 0, 6, 5, 1, 0, 5, 6, 4};
  auto tables = readRedistributionTables(src.data(), 2, dst.data(), 2, 2, 2);
  EXPECT_FALSE(tables);
  EXPECT_EQ(tables.error(), "the source blocks span [6, 10] but the "
                            "destination blocks span [6, 9]; both tables "
                            "must lay out the same global tensor");
  // Empty blocks do not count; a table of empty blocks spans zeros.
  const std::vector<int64_t> withEmpty{0, 0, 0, 6, 10, 1, 8, 0, 0, 10};
  tables = readRedistributionTables(src.data(), 2, withEmpty.data(), 2, 2, 2);
  EXPECT_TRUE(tables) << tables.error();
  const std::vector<int64_t> empty{0, 0, 0, 0, 4};
  tables = readRedistributionTables(empty.data(), 1, empty.data(), 1, 2, 1);
  ASSERT_TRUE(tables) << tables.error();
  EXPECT_EQ(tables->src.extent(2), (std::vector<int64_t>{0, 0}));
}

/// Whether `box` holds the element at `index`.
bool holds(const Box &box, const std::vector<int64_t> &index) {
  if (box.empty())
    return false;
  for (size_t d = 0; d < index.size(); ++d) {
    if (index[d] < box.offsets[d] || index[d] >= box.offsets[d] + box.sizes[d])
      return false;
  }
  return true;
}

/// Calls `fn(index)` for every element of `box` (global indices).
template <typename Fn> void forEachElement(const Box &box, Fn &&fn) {
  forEachIndex(box.sizes, [&](const std::vector<int64_t> &i) {
    std::vector<int64_t> at(i);
    for (size_t d = 0; d < at.size(); ++d)
      at[d] += box.offsets[d];
    fn(at);
  });
}

BlockTable tableFor(const std::vector<Block> &blocks, int64_t rank, int world,
                    bool severalPerRank = false) {
  const std::vector<int64_t> rows = tableOf(blocks);
  shardc::layout::Result<BlockTable> table = readBlockTable(
      rows.data(), blocks.size(), rank, world, nullptr, "", severalPerRank);
  EXPECT_TRUE(table) << table.error();
  return table ? *table : BlockTable();
}

/// A random layout of `shape` over some of the `world` ranks: a chunk spec
/// or a grid, possibly with replicas.
std::vector<Block> randomLayout(std::mt19937 &rng,
                                const std::vector<int64_t> &shape, int world) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  std::vector<int> ranks(world);
  std::iota(ranks.begin(), ranks.end(), 0);
  std::shuffle(ranks.begin(), ranks.end(), rng);
  const int rank = static_cast<int>(shape.size());
  if (rank > 0 && pick(0, 2) == 0) {
    ranks.resize(pick(1, world));
    return chunkLayout(shape, pick(0, rank - 1), ranks);
  }
  std::vector<int64_t> parts(rank, 1);
  int64_t cells = 1;
  for (int d = 0; d < rank; ++d) {
    parts[d] = pick(1, 3);
    if (cells * parts[d] > world)
      parts[d] = 1;
    cells *= parts[d];
  }
  const int replicas = pick(1, static_cast<int>(world / cells));
  return gridLayout(shape, parts, ranks, replicas);
}

/// Checks the plans of every rank for a redistribution from `src` to `dst`.
void checkPlans(const std::vector<int64_t> &shape,
                const std::vector<Block> &src, const std::vector<Block> &dst,
                int world) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  const BlockTable srcTable = tableFor(src, rank, world);
  const BlockTable dstTable = tableFor(dst, rank, world);
  std::vector<RedistributionPlan> plans;
  for (int r = 0; r < world; ++r)
    plans.push_back(planRedistribution(srcTable, dstTable, r));

  for (int p = 0; p < world; ++p) {
    for (int q = 0; q < world; ++q) {
      // What p sends q is what q receives from p, in the same order.
      std::vector<Box> sent, received;
      for (const Transfer &t : plans[p].sends) {
        EXPECT_NE(t.peer, p);
        if (t.peer == q)
          sent.push_back(t.box);
      }
      for (const Transfer &t : plans[q].receives) {
        if (t.peer == p)
          received.push_back(t.box);
      }
      EXPECT_EQ(sent, received) << "from rank " << p << " to rank " << q;
    }
  }

  const std::vector<int64_t> srcRows = tableOf(src), dstRows = tableOf(dst);
  for (int q = 0; q < world; ++q) {
    const RedistributionPlan &plan = plans[q];
    const int mine = blockOf(src, q);
    // Sorted by peer.
    for (size_t i = 1; i < plan.sends.size(); ++i)
      EXPECT_LE(plan.sends[i - 1].peer, plan.sends[i].peer);
    for (size_t i = 1; i < plan.receives.size(); ++i)
      EXPECT_LE(plan.receives[i - 1].peer, plan.receives[i].peer);
    // Senders hold what they send; copies come from this rank's block.
    for (const Transfer &t : plan.receives) {
      const int from = blockOf(src, t.peer);
      ASSERT_GE(from, 0);
      forEachElement(t.box, [&](const std::vector<int64_t> &i) {
        EXPECT_TRUE(holds(src[from].box, i));
      });
    }
    for (const Box &box : plan.copies) {
      ASSERT_GE(mine, 0);
      forEachElement(box, [&](const std::vector<int64_t> &i) {
        EXPECT_TRUE(holds(src[mine].box, i));
      });
    }

    // Every destination element arrives exactly once; counted element by
    // element, the numbers shardrt_redistribute_counts reports.
    int64_t received = 0, copied = 0;
    const int d = blockOf(dst, q);
    if (d >= 0) {
      forEachElement(dst[d].box, [&](const std::vector<int64_t> &i) {
        int arrivals = 0;
        for (const Transfer &t : plan.receives)
          arrivals += holds(t.box, i);
        for (const Box &box : plan.copies)
          arrivals += holds(box, i);
        EXPECT_EQ(arrivals, 1) << "rank " << q << " element " << formatIndex(i);
        if (mine >= 0 && holds(src[mine].box, i))
          ++copied;
        else if (std::any_of(src.begin(), src.end(),
                             [&](const Block &b) { return holds(b.box, i); }))
          ++received;
      });
    }
    int64_t gotReceived = -1, gotCopied = -1;
    ASSERT_EQ(shardrt_redistribute_counts(srcRows.data(), src.size(),
                                          dstRows.data(), dst.size(), rank, q,
                                          &gotReceived, &gotCopied),
              SHARDRT_SUCCESS)
        << shardrt_last_error();
    EXPECT_EQ(gotReceived, received) << "rank " << q;
    EXPECT_EQ(gotCopied, copied) << "rank " << q;
    EXPECT_EQ(plan.receivedElements(), received);
    EXPECT_EQ(plan.copiedElements(), copied);
  }
}

TEST(RedistributionPlan, RandomLayoutsFitTogether) {
  std::mt19937 rng(20240601);
  for (int trial = 0; trial < 400; ++trial) {
    const int world = 1 + trial % 8;
    std::vector<int64_t> shape(trial % 4);
    for (int64_t &n : shape)
      n = std::uniform_int_distribution<int>(trial % 13 == 0 ? 0 : 1, 6)(rng);
    const std::vector<Block> src = randomLayout(rng, shape, world);
    const std::vector<Block> dst = randomLayout(rng, shape, world);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": world " +
                 std::to_string(world) + ", shape " + formatIndex(shape));
    checkPlans(shape, src, dst, world);
    if (HasFailure())
      return;
  }
}

TEST(RedistributionPlan, SeveralBlocksPerRankFitTogether) {
  // Grids of random cuts dealt to 3 ranks at random: every rank holds
  // several blocks of each table (a checkpoint reshard).
  std::mt19937 rng(7);
  const int world = 3;
  for (int round = 0; round < 40; ++round) {
    const std::vector<int64_t> shape{
        std::uniform_int_distribution<int64_t>(1, 9)(rng),
        std::uniform_int_distribution<int64_t>(1, 9)(rng)};
    auto deal = [&](std::vector<Block> blocks) {
      for (Block &b : blocks)
        b.placement.rank =
            std::uniform_int_distribution<int>(0, world - 1)(rng);
      return blocks;
    };
    std::vector<int> zeros(100, 0);
    auto parts = [&] {
      return std::uniform_int_distribution<int64_t>(1, 4)(rng);
    };
    const std::vector<Block> src =
        deal(gridLayout(shape, {parts(), parts()}, zeros));
    const std::vector<Block> dst =
        deal(gridLayout(shape, {parts(), parts()}, zeros));
    const BlockTable s = tableFor(src, 2, world, true),
                     d = tableFor(dst, 2, world, true);
    std::vector<RedistributionPlan> plans;
    for (int r = 0; r < world; ++r)
      plans.push_back(planRedistribution(s, d, r));
    for (int p = 0; p < world; ++p) {
      for (int q = 0; q < world; ++q) {
        std::vector<Transfer> sent, received;
        for (const Transfer &t : plans[p].sends)
          if (t.peer == q)
            sent.push_back(Transfer{p, t.box, t.srcBlock, t.dstBlock});
        for (const Transfer &t : plans[q].receives)
          if (t.peer == p)
            received.push_back(t);
        ASSERT_EQ(sent.size(), received.size());
        for (size_t i = 0; i < sent.size(); ++i) {
          EXPECT_EQ(sent[i], received[i]);
          EXPECT_EQ(sent[i].srcBlock, received[i].srcBlock);
          EXPECT_EQ(sent[i].dstBlock, received[i].dstBlock);
          EXPECT_EQ(src[sent[i].srcBlock].placement.rank, p);
          EXPECT_EQ(dst[sent[i].dstBlock].placement.rank, q);
          forEachElement(sent[i].box, [&](const std::vector<int64_t> &e) {
            EXPECT_TRUE(holds(src[sent[i].srcBlock].box, e));
            EXPECT_TRUE(holds(dst[sent[i].dstBlock].box, e));
          });
        }
      }
    }
    for (int q = 0; q < world; ++q) {
      const RedistributionPlan &plan = plans[q];
      ASSERT_EQ(plan.copies.size(), plan.copyBlocks.size());
      for (size_t b = 0; b < dst.size(); ++b) {
        if (dst[b].placement.rank != q)
          continue;
        forEachElement(dst[b].box, [&](const std::vector<int64_t> &e) {
          int arrivals = 0;
          for (const Transfer &t : plan.receives)
            arrivals +=
                t.dstBlock == static_cast<int64_t>(b) && holds(t.box, e);
          for (size_t i = 0; i < plan.copies.size(); ++i) {
            if (plan.copyBlocks[i].second != static_cast<int64_t>(b) ||
                !holds(plan.copies[i], e))
              continue;
            ++arrivals;
            EXPECT_EQ(src[plan.copyBlocks[i].first].placement.rank, q);
            EXPECT_TRUE(holds(src[plan.copyBlocks[i].first].box, e));
          }
          EXPECT_EQ(arrivals, 1) << "round " << round << ", rank " << q;
        });
      }
    }
  }
}

TEST(RedistributionPlan, ChunkToChunkIsAllToAll) {
  // [6, 10] by rows over 4 ranks to by columns in reverse order: every rank
  // sends every other one the shared part of its rows.
  const std::vector<int64_t> shape{6, 10};
  const auto src = chunkLayout(shape, 0, {0, 1, 2, 3});
  const auto dst = chunkLayout(shape, 1, {3, 2, 1, 0});
  checkPlans(shape, src, dst, 4);
  const RedistributionPlan plan =
      planRedistribution(tableFor(src, 2, 4), tableFor(dst, 2, 4), 1);
  // Rank 1 holds rows [2, 4); it keeps columns [6, 9) (chunk 2, its
  // destination block) and sends columns [0, 3), [3, 6), [9, 10).
  ASSERT_EQ(plan.copies.size(), 1u);
  EXPECT_EQ(plan.copies[0], (Box{{2, 6}, {2, 3}}));
  ASSERT_EQ(plan.sends.size(), 3u);
  EXPECT_EQ(plan.sends[0].peer, 0);
  EXPECT_EQ(plan.sends[0].box, (Box{{2, 9}, {2, 1}}));
  EXPECT_EQ(plan.sends[1].peer, 2);
  EXPECT_EQ(plan.sends[1].box, (Box{{2, 3}, {2, 3}}));
  EXPECT_EQ(plan.sends[2].peer, 3);
  EXPECT_EQ(plan.sends[2].box, (Box{{2, 0}, {2, 3}}));
  // Rows [0, 2) and [4, 6) of its columns; chunk 3 of the rows is empty.
  EXPECT_EQ(plan.receives.size(), 2u);
}

TEST(RedistributionPlan, ReplicasSpreadTheSends) {
  // The whole [6] on ranks 5, 1, 3 (in that table order), chunked over
  // ranks 0..5: the ranks that hold no replica (0, 2, 4) are served by the
  // replicas in turn; the others copy.
  const std::vector<int64_t> shape{6};
  const auto src = gridLayout(shape, {1}, {5, 1, 3}, 3);
  const auto dst = chunkLayout(shape, 0, {0, 1, 2, 3, 4, 5});
  checkPlans(shape, src, dst, 6);
  const BlockTable s = tableFor(src, 1, 6), d = tableFor(dst, 1, 6);
  const int expected[] = {5, -1, 1, -1, 3, -1};
  for (int q = 0; q < 6; ++q) {
    const RedistributionPlan plan = planRedistribution(s, d, q);
    if (expected[q] < 0) {
      EXPECT_TRUE(plan.receives.empty()) << "rank " << q;
      EXPECT_EQ(plan.copies.size(), 1u) << "rank " << q;
      continue;
    }
    ASSERT_EQ(plan.receives.size(), 1u) << "rank " << q;
    EXPECT_EQ(plan.receives[0].peer, expected[q]) << "rank " << q;
    EXPECT_EQ(plan.receives[0].box, (Box{{q}, {1}}));
  }
}

TEST(RedistributionPlan, DestinationHoldsAReplica) {
  // (Shard(0), Replicate()) on a mesh [2, 2] to a grid 2x2 whose cell (i, j)
  // is on mesh rank (i, j): every rank cuts its own rows.
  const std::vector<int64_t> shape{5, 7};
  const auto src = gridLayout(shape, {2, 1}, {0, 1, 2, 3}, 2);
  const auto dst = gridLayout(shape, {2, 2}, {0, 1, 2, 3});
  checkPlans(shape, src, dst, 4);
  const BlockTable s = tableFor(src, 2, 4), d = tableFor(dst, 2, 4);
  for (int q = 0; q < 4; ++q) {
    const RedistributionPlan plan = planRedistribution(s, d, q);
    EXPECT_TRUE(plan.sends.empty());
    EXPECT_TRUE(plan.receives.empty());
    ASSERT_EQ(plan.copies.size(), 1u);
    EXPECT_EQ(plan.copies[0], dst[q].box);
  }
}

/// The partial index of the block `rank` owns in `src`.
int64_t partialOf(const std::vector<Block> &src,
                  const std::vector<int64_t> &partial, int rank) {
  const int b = blockOf(src, rank);
  return b >= 0 ? partial[b] : -1;
}

/// Checks the plans of every rank for a reduction from `src` (with its
/// partial indices) to `dst`.
void checkReductionPlans(const std::vector<int64_t> &shape,
                         const std::vector<Block> &src,
                         const std::vector<int64_t> &partial,
                         const std::vector<Block> &dst, int world) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  const BlockTable srcTable = tableFor(src, rank, world);
  const BlockTable dstTable = tableFor(dst, rank, world);
  std::vector<RedistributionPlan> plans;
  for (int r = 0; r < world; ++r)
    plans.push_back(planReduction(srcTable, partial, dstTable, r));

  for (int p = 0; p < world; ++p) {
    for (int q = 0; q < world; ++q) {
      std::vector<Box> sent, received;
      for (const Transfer &t : plans[p].sends) {
        EXPECT_NE(t.peer, p);
        if (t.peer == q)
          sent.push_back(t.box);
      }
      for (const Transfer &t : plans[q].receives) {
        if (t.peer == p)
          received.push_back(t.box);
      }
      EXPECT_EQ(sent, received) << "from rank " << p << " to rank " << q;
    }
  }

  const std::vector<int64_t> srcRows = tableOf(src), dstRows = tableOf(dst);
  for (int q = 0; q < world; ++q) {
    const RedistributionPlan &plan = plans[q];
    for (size_t i = 1; i < plan.receives.size(); ++i)
      EXPECT_LE(plan.receives[i - 1].peer, plan.receives[i].peer);
    // The contributions in combining order (all copied when none reduces).
    std::vector<Contribution> order = plan.order;
    if (order.empty()) {
      for (size_t i = 0; i < plan.copies.size(); ++i)
        order.push_back(Contribution{false, i, false});
      for (size_t i = 0; i < plan.receives.size(); ++i)
        order.push_back(Contribution{true, i, false});
    } else {
      EXPECT_EQ(order.size(), plan.copies.size() + plan.receives.size());
      EXPECT_FALSE(plan.combined.empty());
    }
    int64_t received = 0, copied = 0;
    const int d = blockOf(dst, q);
    if (d < 0) {
      EXPECT_TRUE(order.empty()) << "rank " << q;
      continue;
    }
    forEachElement(dst[d].box, [&](const std::vector<int64_t> &i) {
      // The partial indices of the source blocks that hold the element.
      std::vector<int64_t> expected;
      for (size_t b = 0; b < src.size(); ++b) {
        if (holds(src[b].box, i))
          expected.push_back(partial[b]);
      }
      std::sort(expected.begin(), expected.end());
      expected.erase(std::unique(expected.begin(), expected.end()),
                     expected.end());
      // The partial indices of its contributions, in combining order: every
      // index once, ascending, only the first copied.
      std::vector<int64_t> got;
      bool first = true;
      for (const Contribution &step : order) {
        const Box &box = step.received ? plan.receives[step.index].box
                                       : plan.copies[step.index];
        if (!holds(box, i))
          continue;
        const int from = step.received ? plan.receives[step.index].peer : q;
        const int b = blockOf(src, from);
        ASSERT_GE(b, 0);
        EXPECT_TRUE(holds(src[b].box, i)) << "rank " << from;
        got.push_back(partial[b]);
        EXPECT_EQ(step.reduce, !first)
            << "rank " << q << " element " << formatIndex(i);
        first = false;
        if (step.received)
          ++received;
        else
          ++copied;
      }
      EXPECT_EQ(got, expected) << "rank " << q << " element " << formatIndex(i);
      int64_t count = 1;
      for (const Combined &combined : plan.combined) {
        EXPECT_GT(combined.count, 1);
        if (holds(combined.box, i))
          count = combined.count;
      }
      EXPECT_EQ(count, std::max<int64_t>(expected.size(), 1))
          << "rank " << q << " element " << formatIndex(i);
    });
    int64_t gotReceived = -1, gotCopied = -1;
    ASSERT_EQ(shardrt_redistribute_reduce_counts(
                  srcRows.data(), src.size(), partial.data(), dstRows.data(),
                  dst.size(), rank, q, &gotReceived, &gotCopied),
              SHARDRT_SUCCESS)
        << shardrt_last_error();
    EXPECT_EQ(gotReceived, received) << "rank " << q;
    EXPECT_EQ(gotCopied, copied) << "rank " << q;
  }
}

/// A random grid of `shape` over some of the `world` ranks whose cells have
/// several blocks (replicas or partial values) when the world allows.
std::vector<Block> randomPartialLayout(std::mt19937 &rng,
                                       const std::vector<int64_t> &shape,
                                       int world) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  std::vector<int> ranks(world);
  std::iota(ranks.begin(), ranks.end(), 0);
  std::shuffle(ranks.begin(), ranks.end(), rng);
  std::vector<int64_t> parts(shape.size(), 1);
  int64_t cells = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    parts[d] = pick(1, 2);
    if (cells * parts[d] * 2 > world)
      parts[d] = 1;
    cells *= parts[d];
  }
  const int most = static_cast<int>(world / cells);
  return gridLayout(shape, parts, ranks, pick(std::min(2, most), most));
}

/// Gives each block of `src` a partial index: blocks of one box draw from
/// `classes` values (not consecutive), so that a box has 1 to `classes`
/// partial indices, each held by one or more replicas.
std::vector<int64_t> randomPartial(std::mt19937 &rng,
                                   const std::vector<Block> &src, int classes) {
  std::vector<int64_t> partial;
  for (size_t b = 0; b < src.size(); ++b)
    partial.push_back(
        3 * std::uniform_int_distribution<int>(0, classes - 1)(rng) + 1);
  return partial;
}

TEST(ReductionPlan, RandomLayoutsFitTogether) {
  std::mt19937 rng(20240917);
  // Trials in which some rank reduces, and in which some rank combines its
  // own partial value with received ones.
  int reducing = 0, mixing = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int world = 1 + trial % 8;
    std::vector<int64_t> shape(trial % 4);
    for (int64_t &n : shape)
      n = std::uniform_int_distribution<int>(trial % 13 == 0 ? 0 : 1, 5)(rng);
    const std::vector<Block> src = trial % 4 == 3
                                       ? randomLayout(rng, shape, world)
                                       : randomPartialLayout(rng, shape, world);
    const std::vector<Block> dst = randomLayout(rng, shape, world);
    const int classes = 1 + trial % 4;
    const std::vector<int64_t> partial = randomPartial(rng, src, classes);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": world " +
                 std::to_string(world) + ", shape " + formatIndex(shape) +
                 ", " + std::to_string(classes) + " classes");
    checkReductionPlans(shape, src, partial, dst, world);
    // With one partial index the plan is the redistribution's.
    const int64_t rank = static_cast<int64_t>(shape.size());
    const BlockTable s = tableFor(src, rank, world);
    const BlockTable d = tableFor(dst, rank, world);
    const std::vector<int64_t> zeros(src.size(), 0);
    bool reduces = false, mixes = false;
    for (int r = 0; r < world; ++r) {
      const RedistributionPlan plan = planReduction(s, partial, d, r);
      reduces |= plan.reduces();
      mixes |= plan.reduces() && !plan.copies.empty();
      const RedistributionPlan a = planReduction(s, zeros, d, r);
      const RedistributionPlan b = planRedistribution(s, d, r);
      EXPECT_EQ(a.sends, b.sends);
      EXPECT_EQ(a.receives, b.receives);
      EXPECT_EQ(a.copies, b.copies);
      EXPECT_TRUE(a.order.empty());
      EXPECT_TRUE(a.combined.empty());
      EXPECT_TRUE(b.order.empty());
    }
    reducing += reduces;
    mixing += mixes;
    if (HasFailure())
      return;
  }
  EXPECT_GT(reducing, 100);
  EXPECT_GT(mixing, 50);
}

/// DTensor's meshes: a [G] mesh of partial sums to replicated (all_reduce)
/// and chunked (reduce_scatter), and (S(0), P) on 2x2 to (S(0), R).
TEST(ReductionPlan, AllReduceAndReduceScatter) {
  const std::vector<int64_t> shape{4, 8};
  const std::vector<int> ranks{0, 1, 2, 3};
  // P on [4]: every rank holds the whole tensor, partial index = rank.
  const auto whole = gridLayout(shape, {1, 1}, ranks, 4);
  const std::vector<int64_t> byRank{0, 1, 2, 3};
  const auto replicated = gridLayout(shape, {1, 1}, ranks, 4);
  checkReductionPlans(shape, whole, byRank, replicated, 4);
  const BlockTable s = tableFor(whole, 2, 4), r = tableFor(replicated, 2, 4);
  for (int q = 0; q < 4; ++q) {
    const RedistributionPlan plan = planReduction(s, byRank, r, q);
    // Receives the whole tensor from the three others, copies its own, and
    // combines them in partial (= rank) order.
    EXPECT_EQ(plan.receives.size(), 3u);
    EXPECT_EQ(plan.sends.size(), 3u);
    ASSERT_EQ(plan.copies.size(), 1u);
    ASSERT_EQ(plan.order.size(), 4u);
    for (int c = 0; c < 4; ++c) {
      EXPECT_EQ(plan.order[c].received, c != q) << "rank " << q;
      EXPECT_EQ(plan.order[c].reduce, c > 0);
    }
    ASSERT_EQ(plan.combined.size(), 1u);
    EXPECT_EQ(plan.combined[0], (Combined{Box{{0, 0}, {4, 8}}, 4}));
  }
  // reduce_scatter along dim 1: rank q receives its columns from the others.
  const auto columns = chunkLayout(shape, 1, ranks);
  checkReductionPlans(shape, whole, byRank, columns, 4);
  const BlockTable c = tableFor(columns, 2, 4);
  for (int q = 0; q < 4; ++q) {
    const RedistributionPlan plan = planReduction(s, byRank, c, q);
    EXPECT_EQ(plan.receivedElements(), 3 * 4 * 2);
    EXPECT_EQ(plan.copiedElements(), 4 * 2);
    EXPECT_EQ(plan.sentElements(), 3 * 4 * 2);
  }
  // (S(0), P) on a 2x2 mesh [0, 1; 2, 3] to (S(0), R): ranks 0 and 1 sum
  // rows [0, 2) with each other, ranks 2 and 3 rows [2, 4).
  const auto rows = gridLayout(shape, {2, 1}, ranks, 2);
  const std::vector<int64_t> byColumn{0, 1, 0, 1};
  checkReductionPlans(shape, rows, byColumn, rows, 4);
  const BlockTable t = tableFor(rows, 2, 4);
  for (int q = 0; q < 4; ++q) {
    const RedistributionPlan plan = planReduction(t, byColumn, t, q);
    ASSERT_EQ(plan.receives.size(), 1u);
    EXPECT_EQ(plan.receives[0].peer, q ^ 1);
    ASSERT_EQ(plan.sends.size(), 1u);
    EXPECT_EQ(plan.sends[0].peer, q ^ 1);
  }
}

TEST(ReductionPlan, ReplicasWithinAClassSpreadTheSends) {
  // (R, P) on a 2x2 mesh [0, 1; 2, 3]: partial index = mesh column, each
  // held by two replicas (rows of the mesh), to a chunk per rank of [8]:
  // the receivers of a class take its replicas in turn.
  const std::vector<int64_t> shape{8};
  const auto src = gridLayout(shape, {1}, {0, 1, 2, 3}, 4);
  const std::vector<int64_t> partial{0, 1, 0, 1};
  const auto dst = chunkLayout(shape, 0, {0, 1, 2, 3});
  checkReductionPlans(shape, src, partial, dst, 4);
  const BlockTable s = tableFor(src, 1, 4), d = tableFor(dst, 1, 4);
  // Class 0 is {0, 2}, class 1 is {1, 3}: class 1's receivers are ranks 0
  // and 2 (from 1, then 3), class 0's ranks 1 and 3 (from 0, then 2).
  const int expected[] = {1, 0, 3, 2};
  for (int q = 0; q < 4; ++q) {
    const RedistributionPlan plan = planReduction(s, partial, d, q);
    ASSERT_EQ(plan.receives.size(), 1u) << "rank " << q;
    EXPECT_EQ(plan.receives[0].peer, expected[q]) << "rank " << q;
    ASSERT_EQ(plan.copies.size(), 1u);
  }
}

TEST(RedistributionCounts, ReduceErrors) {
  const std::vector<int64_t> table{0, 0, 4, 1, 0, 4};
  const std::vector<int64_t> partial{0, 1}, negative{0, -2};
  int64_t received = 0, copied = 0;
  auto message = [] { return std::string(shardrt_last_error()); };
  EXPECT_EQ(shardrt_redistribute_reduce_counts(table.data(), 2, nullptr,
                                               table.data(), 2, 1, 0, &received,
                                               &copied),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(message(),
                  "shardrt: redistribute_reduce_counts(tensor of rank 1, rank "
                  "0): the partial indices are NULL but the source block "
                  "table has 2 rows");
  EXPECT_EQ(shardrt_redistribute_reduce_counts(table.data(), 2, negative.data(),
                                               table.data(), 2, 1, 0, &received,
                                               &copied),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(message(), "source block 1 has partial index -2; partial "
                             "indices must be >= 0");
  ASSERT_EQ(shardrt_redistribute_reduce_counts(table.data(), 2, partial.data(),
                                               table.data(), 2, 1, 0, &received,
                                               &copied),
            SHARDRT_SUCCESS)
      << message();
  EXPECT_EQ(received, 4);
  EXPECT_EQ(copied, 4);
  // No rows: no partial indices needed.
  ASSERT_EQ(shardrt_redistribute_reduce_counts(nullptr, 0, nullptr, nullptr, 0,
                                               1, 0, &received, &copied),
            SHARDRT_SUCCESS)
      << message();
  EXPECT_EQ(received + copied, 0);
}

TEST(RedistributionCounts, Errors) {
  const std::vector<int64_t> table{0, 0, 4};
  int64_t received = 0, copied = 0;
  auto message = [] { return std::string(shardrt_last_error()); };
  EXPECT_EQ(shardrt_redistribute_counts(table.data(), 1, table.data(), 1, -1, 0,
                                        &received, &copied),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(message(), "shardrt: redistribute_counts(tensor of rank -1, "
                             "rank 0): the tensor's rank is negative");
  EXPECT_EQ(shardrt_redistribute_counts(table.data(), 1, table.data(), 1, 1, -2,
                                        &received, &copied),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(message(), "process_rank is not an MPI rank");
  EXPECT_EQ(shardrt_redistribute_counts(table.data(), 1, table.data(), 1, 1, 0,
                                        nullptr, &copied),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(message(), "received or copied is NULL");
  // Several blocks on one rank: each planned on its own.
  const std::vector<int64_t> halves{0, 0, 2, 0, 2, 2};
  EXPECT_EQ(shardrt_redistribute_counts(table.data(), 1, halves.data(), 2, 1, 0,
                                        &received, &copied),
            SHARDRT_SUCCESS);
  EXPECT_EQ(received, 0);
  EXPECT_EQ(copied, 4);
  // But one rank holds a box once.
  const std::vector<int64_t> twice{0, 0, 4, 0, 0, 4};
  EXPECT_EQ(shardrt_redistribute_counts(table.data(), 1, twice.data(), 2, 1, 0,
                                        &received, &copied),
            SHARDRT_ERROR_INVALID_ARGUMENT);
  EXPECT_CONTAINS(message(), "rank 0 owns destination blocks 0 and 1, both "
                             "(offsets [0], sizes [4]); a rank holds a box "
                             "once");
  // A rank that owns no destination block receives and copies nothing.
  EXPECT_EQ(shardrt_redistribute_counts(table.data(), 1, table.data(), 1, 1, 7,
                                        &received, &copied),
            SHARDRT_SUCCESS);
  EXPECT_EQ(received, 0);
  EXPECT_EQ(copied, 0);
}

} // namespace
