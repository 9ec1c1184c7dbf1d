//===- PlannerTest.cpp - The choice among candidate plans -----------------===//

#include "shardc/Planning/Planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace shardc::layout;
using namespace shardc::planning;

namespace {

Placement S(int64_t d) { return Placement::shard(d); }
const Placement R = Placement::replicate();
const Placement P = Placement::partial(Placement::Reduce::Sum);

Mesh meshOf(std::vector<int64_t> shape) {
  Mesh m;
  m.shape = std::move(shape);
  return m;
}

PlannerOptions defaults(int64_t elementBytes = 4) {
  PlannerOptions o;
  o.elementBytes = elementBytes;
  return o;
}

int64_t maxReceived(const Plan &plan) {
  int64_t most = 0;
  for (const auto &[r, n] : plan.received())
    most = std::max(most, n);
  return most;
}

// An all_gather in a world far larger than the ranks named: the ranks the
// layout does not name are one entry (`others`), not one each, and the layout
// it leads to lists the ranks the next step needs (a world of 2^31 ranks
// would otherwise take 2^31 entries).
TEST(Planner, AllGatherInAHugeWorldIsSparse) {
  Block a{{{0}, {4}}, {}}, b{{{4}, {4}}, {}};
  a.placement.rank = 0;
  b.placement.rank = kMaxRank;
  PlanLayout src = blockLayout({8}, {a, b});
  PlannerOptions o = defaults();
  o.ranks = kMaxRank + 1;
  PlanStep step = allGatherStep(src, o, &src.table);
  EXPECT_EQ(step.traffic.size(), 2u);
  EXPECT_EQ(step.trafficOf(0).received, 4);
  EXPECT_EQ(step.trafficOf(kMaxRank).received, 4);
  EXPECT_EQ(step.trafficOf(7).received, 8);
  EXPECT_EQ(step.otherRanks, kMaxRank - 1);
  EXPECT_EQ(step.to.table.size(), 2u);
  EXPECT_EQ(step.to.omittedReplicas, kMaxRank - 1);
  // One message from the other owner; an owner sends to every other rank.
  EXPECT_EQ(step.trafficOf(0).receivePeers, 1);
  EXPECT_EQ(step.trafficOf(0).sendPeers, kMaxRank);
  EXPECT_EQ(step.trafficOf(7).receivePeers, 2);
  EXPECT_EQ(step.trafficOf(7).sendPeers, 0);
}

TEST(Planner, WorldSizes) {
  EXPECT_EQ(checkWorldSize(1).error(), "");
  EXPECT_EQ(checkWorldSize(kMaxWorldSize).error(), "");
  EXPECT_EQ(checkWorldSize(4, 3).error(), "");
  EXPECT_NE(checkWorldSize(0).error(), "");
  EXPECT_NE(checkWorldSize(-1).error(), "");
  EXPECT_NE(checkWorldSize(kMaxWorldSize + 1).error(), "");
  EXPECT_EQ(checkWorldSize(1, 3).error(),
            "is 1 but the layouts name rank 3 (a world of 1 rank has ranks 0 "
            "to 0)");
}

TEST(Planner, EqualLayoutsMoveNothing) {
  Mesh m = meshOf({4});
  PlanLayout a = meshLayout({8, 8}, m, {S(0)});
  PlanChoice choice = choosePlan(a, a, defaults());
  ASSERT_EQ(choice.candidates.size(), 1u);
  EXPECT_TRUE(choice.best().steps.empty());
}

TEST(Planner, DirectOnlyHasOneCandidate) {
  Mesh m = meshOf({2, 4});
  PlannerOptions o = defaults();
  o.directOnly = true;
  PlanChoice choice = choosePlan(meshLayout({64, 64}, m, {S(0), S(1)}),
                                 meshLayout({64, 64}, m, {R, R}), o);
  ASSERT_EQ(choice.candidates.size(), 1u);
  EXPECT_EQ(choice.best().name, "direct");
  ASSERT_EQ(choice.best().steps.size(), 1u);
  EXPECT_EQ(choice.best().steps[0].kind, StepKind::Exchange);
}

TEST(Planner, DimChangeIsAllToAllWhenBandwidthDominates) {
  Mesh m = meshOf({4});
  PlanLayout a = meshLayout({1024, 1024}, m, {S(0)});
  PlanLayout b = meshLayout({1024, 1024}, m, {S(1)});
  PlanChoice big = choosePlan(a, b, defaults());
  EXPECT_EQ(big.best().name, "direct");
  // Each rank receives 3/16 of the tensor: the lower bound.
  EXPECT_EQ(maxReceived(big.best()), 1024 * 1024 * 3 / 16);
  // Tiny: the all_gather sends as many messages as the exchange (one from
  // every owner to every rank, as the runtime does) and 4x the bytes; the
  // exchange wins, at the lower bound.
  PlanChoice small = choosePlan(meshLayout({4, 4}, m, {S(0)}),
                                meshLayout({4, 4}, m, {S(1)}), defaults());
  EXPECT_EQ(small.best().name, "direct");
  EXPECT_EQ(maxReceived(small.best()), 3);
  ASSERT_EQ(small.candidates.size(), 2u);
  const Plan &gather = small.candidates[1];
  EXPECT_EQ(gather.name, "all_gather then slice");
  ASSERT_EQ(gather.steps.size(), 2u);
  EXPECT_EQ(gather.steps[0].kind, StepKind::AllGather);
  EXPECT_EQ(gather.steps[1].kind, StepKind::LocalCopy);
  // 3 messages received and 3 sent per rank, 12 elements of 4 bytes each way.
  EXPECT_NEAR(gather.us, 3 * 2.0 + 12 * 4 / 150e3, 1e-9);
}

TEST(Planner, NearTiesGoToLessTraffic) {
  // A 16 MiB gather to rank 0 from S(0) on 4 ranks: all_gather then slice is
  // within the margin of the direct plan but receives 4x the bytes.
  Mesh m = meshOf({4});
  PlanLayout a = meshLayout({2048, 2048}, m, {S(0)});
  Mesh one = meshOf({1});
  PlanLayout b = meshLayout({2048, 2048}, one, {R});
  PlanChoice choice = choosePlan(a, b, defaults());
  EXPECT_EQ(choice.best().name, "direct");
  EXPECT_EQ(maxReceived(choice.best()), 2048 * 2048 * 3 / 4);
  bool sawGather = false;
  for (const Plan &p : choice.candidates)
    sawGather |= p.name == "all_gather then slice";
  EXPECT_TRUE(sawGather);
}

TEST(Planner, AllReduceReceivesTheLowerBound) {
  // P -> R over 8 ranks: the native all_reduce (a bandwidth-optimal
  // reduce-scatter then all-gather, as MPI and NCCL run it) receives
  // 2 * 7/8 of the tensor per rank: the lower bound, in one call. The
  // two-step reduce_scatter + all_gather candidate costs the same and loses
  // the tie.
  Mesh m = meshOf({8});
  PlanLayout p = meshLayout({1024, 512}, m, {P});
  PlanLayout r = meshLayout({1024, 512}, m, {R});
  PlanChoice choice = choosePlan(p, r, defaults());
  const Plan &best = choice.best();
  ASSERT_EQ(best.steps.size(), 1u);
  ASSERT_TRUE(best.steps[0].collective);
  EXPECT_EQ(best.steps[0].collective->kind, CollectiveKind::AllReduce);
  const int64_t n = 1024 * 512;
  EXPECT_EQ(maxReceived(best), 2 * n * 7 / 8);
  // Each rank must receive the others' sum of every element; all ranks
  // together 2 (C - 1) per element (C - 1 to combine the copies, C - 1 to
  // spread the sum): the ring's 2 n 7/8 each.
  TrafficBound bound = trafficLowerBound(p.table, &p.partial, r.table);
  for (int q = 0; q < 8; ++q)
    EXPECT_DOUBLE_EQ(bound.perRank[q], n) << "rank " << q;
  EXPECT_DOUBLE_EQ(bound.total, 8 * (2.0 * n * 7 / 8));
  bool sawTwoSteps = false;
  for (const Plan &plan : choice.candidates)
    if (plan.steps.size() == 2) {
      sawTwoSteps = true;
      EXPECT_EQ(maxReceived(plan), 2 * n * 7 / 8);
      EXPECT_DOUBLE_EQ(plan.us, best.us);
    }
  EXPECT_TRUE(sawTwoSteps);
  // Uneven: 10 elements over 4 ranks in the ring's chunks 3, 3, 2, 2: each
  // receives every chunk but the one it starts the reduce-scatter with (the
  // one before its own) and every chunk but its own in the all-gather: 15,
  // 14, 15, 16 (2 (S - c_p), as it was counted, said 14, 14, 16, 16).
  PlanLayout p10 = meshLayout({10}, meshOf({4}), {P});
  PlanLayout r10 = meshLayout({10}, meshOf({4}), {R});
  PlanChoice unevenChoice = choosePlan(p10, r10, defaults());
  const Plan &uneven = unevenChoice.best();
  ASSERT_EQ(uneven.steps.size(), 1u) << uneven.name;
  ASSERT_TRUE(uneven.steps[0].collective) << uneven.name;
  EXPECT_EQ(uneven.steps[0].trafficOf(0).received, 15);
  EXPECT_EQ(uneven.steps[0].trafficOf(1).received, 14);
  EXPECT_EQ(uneven.steps[0].trafficOf(2).received, 15);
  EXPECT_EQ(uneven.steps[0].trafficOf(3).received, 16);
  // What each sends, the next one receives.
  EXPECT_EQ(uneven.steps[0].trafficOf(0).sent, 14);
  EXPECT_EQ(uneven.steps[0].trafficOf(3).sent, 15);
}

TEST(Planner, PartialLowerBounds) {
  Mesh m = meshOf({4});
  PlanLayout p = meshLayout({8}, m, {P});
  // Reduce-scatter: every rank needs the others' sum of its 2 elements; in
  // all, 3 copies combined per element.
  PlanLayout s = meshLayout({8}, m, {S(0)});
  TrafficBound scatter = trafficLowerBound(p.table, &p.partial, s.table);
  for (auto [q, v] : scatter.perRank)
    EXPECT_DOUBLE_EQ(v, 2) << "rank " << q;
  EXPECT_DOUBLE_EQ(scatter.total, 8 * 3.0);
  // Held without partial values: nothing to receive.
  TrafficBound held = trafficLowerBound(s.table, nullptr, s.table);
  for (auto [q, v] : held.perRank)
    EXPECT_DOUBLE_EQ(v, 0) << "rank " << q;
  EXPECT_DOUBLE_EQ(held.total, 0);
  // A rank holding no copy needs each element once.
  Mesh m5 = meshOf({5});
  PlanLayout r5 = meshLayout({8}, m5, {R});
  TrafficBound bound = trafficLowerBound(p.table, &p.partial, r5.table);
  EXPECT_DOUBLE_EQ(bound.perRank[4], 8);
  // The other four hold a copy: each needs the others' sum once, and they
  // share the reduction, (4 + 4 - 2) / 4 each in all.
  EXPECT_DOUBLE_EQ(bound.perRank[0], 8);
  EXPECT_DOUBLE_EQ(bound.total, 8 + 4 * 8 * 1.5);
}

TEST(Planner, UnevenPartialBoundNeverAboveAPlan) {
  // P(sum) of [5, 4] on 4 ranks to S(0) (rows 2, 2, 1, 0): rank 0 alone
  // needs rows 0-1, but the others may reduce them for it (reduce-scatter
  // along dim 1 first, then all_to_all: 15 + 6 = 21 elements on rank 0).
  // The bound of each rank is never above what some candidate receives
  // there, nor the total and the most on a rank above the least of them.
  Mesh m = meshOf({4});
  PlanLayout p = meshLayout({5, 4}, m, {P});
  PlanLayout s = meshLayout({5, 4}, m, {S(0)});
  TrafficBound bound = trafficLowerBound(p.table, &p.partial, s.table);
  EXPECT_DOUBLE_EQ(bound.perRank[0], 8);
  EXPECT_DOUBLE_EQ(bound.perRank[2], 4);
  EXPECT_DOUBLE_EQ(bound.total, 20 * 3.0);
  PlanChoice choice = choosePlan(p, s, defaults());
  bool beatsOld = false;
  for (const Plan &plan : choice.candidates) {
    const std::map<int, int64_t> received = plan.received();
    int64_t total = 0;
    for (const auto &[q, v] : received) {
      total += v;
      EXPECT_GE(static_cast<long double>(v), bound.perRank[q])
          << plan.name << " rank " << q;
    }
    EXPECT_GE(static_cast<long double>(total), bound.total) << plan.name;
    // The old per-rank figure, 3 per element of rank 0 (24), is beaten.
    auto at0 = received.find(0);
    beatsOld |= at0 != received.end() && at0->second < 24;
  }
  EXPECT_TRUE(beatsOld);
}

TEST(Planner, PerAxisOnATwoLevelTopology) {
  // (S0, S1) -> (R, R) on 2 x 4, axis 0 InfiniBand, axis 1 NVLink: gather
  // along the fast axis first, then one message over the slow one.
  Mesh m = meshOf({2, 4});
  PlannerOptions o = defaults();
  o.topology.axes = {Link::infiniband(), Link::nvlink()};
  PlanChoice choice = choosePlan(meshLayout({256, 256}, m, {S(0), S(1)}),
                                 meshLayout({256, 256}, m, {R, R}), o);
  const Plan &best = choice.best();
  EXPECT_EQ(best.name, "per-axis [1, 0]");
  ASSERT_EQ(best.steps.size(), 2u);
  EXPECT_EQ(best.steps[0].to.placements, (std::vector<Placement>{S(0), R}));
  EXPECT_FALSE(best.steps[0].world);
  EXPECT_EQ(best.steps[0].axes, (std::vector<int64_t>{1}));
  EXPECT_EQ(best.steps[1].axes, (std::vector<int64_t>{0}));
  const double block = 128 * 64 * 4; // bytes of one (S0, S1) block
  double expected = (3 * 2.0 + 3 * block / 150e3) + (5.0 + 4 * block / 25e3);
  EXPECT_NEAR(best.us, expected, 1e-6);
  // At the lower bound: 7/8 of the tensor per rank.
  EXPECT_EQ(maxReceived(best), 256 * 256 * 7 / 8);
}

TEST(Planner, ReplicasTakeTurns) {
  // (S0, R) -> (R, S0) on 4 x 2: the replicas of a row block share its
  // receivers, so that the direct exchange is balanced and at the bound.
  Mesh m = meshOf({4, 2});
  PlanLayout a = meshLayout({2808, 1053}, m, {S(0), R});
  PlanLayout b = meshLayout({2808, 1053}, m, {R, S(0)});
  PlanStep step = exchangeStep(a, b, defaults());
  int64_t most = 0, least = INT64_MAX;
  for (const auto &[r, t] : step.traffic) {
    most = std::max(most, t.sent);
    least = std::min(least, t.sent);
  }
  const int64_t block = 702 * 1053;
  EXPECT_EQ(most, 2 * block);
  EXPECT_EQ(least, block);
  EXPECT_EQ(choosePlan(a, b, defaults()).best().name, "direct");
}

TEST(Planner, CandidatesGrowPolynomially) {
  // Every axis differs on a 6-D mesh: a handful of orders, not 6!.
  Mesh m = meshOf({2, 2, 2, 2, 2, 2});
  PlannerOptions o = defaults();
  o.topology.axes.assign(6, Link::nvlink());
  o.topology.axes[0] = Link::infiniband();
  PlanChoice choice =
      choosePlan(meshLayout({64, 64}, m, {S(0), S(1), S(0), S(1), S(0), S(1)}),
                 meshLayout({64, 64}, m, {R, R, R, R, R, R}), o);
  EXPECT_LE(choice.candidates.size(), 6u);
  for (const Plan &plan : choice.candidates)
    EXPECT_LE(plan.steps.size(), 6u) << plan.name;
}

TEST(Planner, EveryCandidateChainsValidLayouts) {
  // Each step starts where the previous ended, the last at the destination.
  Mesh m = meshOf({2, 3});
  PlannerOptions o = defaults();
  o.topology.axes = {Link::infiniband(), Link::nvlink()};
  PlanLayout src = meshLayout({7, 5}, m, {P, S(1)});
  PlanLayout dst = meshLayout({7, 5}, m, {R, R});
  PlanChoice choice = choosePlan(src, dst, o);
  EXPECT_GE(choice.candidates.size(), 3u);
  for (const Plan &plan : choice.candidates) {
    ASSERT_FALSE(plan.steps.empty()) << plan.name;
    EXPECT_TRUE(plan.steps.back().final) << plan.name;
    EXPECT_EQ(plan.steps.back().to.table.boxes, dst.table.boxes) << plan.name;
    for (size_t i = 0; i + 1 < plan.steps.size(); ++i)
      EXPECT_FALSE(plan.steps[i].final) << plan.name;
    double sum = 0;
    for (const PlanStep &step : plan.steps)
      sum += step.us;
    EXPECT_DOUBLE_EQ(plan.us, sum) << plan.name;
  }
}

} // namespace

// A tensor's dynamic dims (PlannerOptions::wholeDims): no plan passes
// through a layout that cuts one, though without the option the planner
// considers such chains (a partial sum reduce-scattered along its largest
// dim first, or scattered along it on a mesh of more than two ranks).
TEST(Planner, WholeDimsAreNeverCut) {
  for (const std::vector<int64_t> &meshShape :
       std::vector<std::vector<int64_t>>{{4}, {8}, {2, 4}, {4, 2}}) {
    Mesh m = meshOf(meshShape);
    std::vector<Placement> partial(meshShape.size(), P),
        replicated(meshShape.size(), R);
    PlanLayout src = meshLayout({64, 3}, m, partial);
    PlanLayout dst = meshLayout({64, 3}, m, replicated);
    auto cutsDim0 = [](const PlanChoice &choice) {
      for (const Plan &plan : choice.candidates)
        for (const PlanStep &step : plan.steps)
          for (const Placement &p : step.to.placements)
            if (p.cuts() && p.dim == 0)
              return true;
      return false;
    };
    PlannerOptions o = defaults();
    EXPECT_TRUE(cutsDim0(choosePlan(src, dst, o)))
        << "mesh of " << meshShape.size() << " axes: the test cannot fail";
    o.wholeDims = {0};
    PlanChoice whole = choosePlan(src, dst, o);
    EXPECT_FALSE(cutsDim0(whole));
    EXPECT_FALSE(whole.candidates.empty());
  }
}

// A planner's memo of layouts and steps gives the plans made without it: on
// every pair of 24 layouts of an uneven tensor on a 2x3 mesh (Partial and
// strided ones included), for two element sizes and two worlds, with one
// memo shared by all of them (so steps are taken from it across pairs,
// element sizes and worlds), every candidate's name, steps (kind, layout
// reached, traffic per rank, collective, axes) and time are the same.
TEST(Planner, StepMemoGivesThePlansMadeWithoutIt) {
  Mesh m = meshOf({2, 3});
  const Placement St = Placement::strided(0, 2);
  std::vector<std::vector<Placement>> placements;
  for (const Placement &a : {R, S(0), S(1), P})
    for (const Placement &b : {R, S(0), S(1), P, St})
      placements.push_back({a, b});
  placements.push_back({St, S(1)});
  placements.push_back({S(1), S(1)});
  placements.push_back({S(0), S(0)});
  placements.push_back({P, P});
  StepMemo memo;
  size_t compared = 0;
  // Two plans alike, step by step.
  auto same = [&](const Plan &x, const Plan &y) {
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.us, y.us);
    ASSERT_EQ(x.steps.size(), y.steps.size());
    for (size_t s = 0; s < x.steps.size(); ++s) {
      const PlanStep &p = x.steps[s], &q = y.steps[s];
      EXPECT_EQ(p.kind, q.kind);
      EXPECT_EQ(p.final, q.final);
      EXPECT_EQ(p.to.table.owners, q.to.table.owners);
      EXPECT_TRUE(p.to.table.boxes == q.to.table.boxes);
      EXPECT_EQ(p.to.partial, q.to.partial);
      EXPECT_EQ(p.to.placements, q.to.placements);
      EXPECT_EQ(p.us, q.us);
      EXPECT_EQ(p.axes, q.axes);
      EXPECT_EQ(p.world, q.world);
      EXPECT_EQ(p.collective.has_value(), q.collective.has_value());
      if (p.collective && q.collective) {
        EXPECT_EQ(p.collective->kind, q.collective->kind);
        EXPECT_EQ(p.collective->axes, q.collective->axes);
        EXPECT_EQ(p.collective->dim, q.collective->dim);
      }
      ASSERT_EQ(p.traffic.size(), q.traffic.size());
      for (auto [r, t] : p.traffic) {
        RankTraffic u = q.trafficOf(r);
        EXPECT_EQ(t.received, u.received);
        EXPECT_EQ(t.sent, u.sent);
        EXPECT_EQ(t.receivePeers, u.receivePeers);
        EXPECT_EQ(t.sendPeers, u.sendPeers);
      }
      ++compared;
    }
  };
  for (int64_t eb : {4, 2})
    for (int64_t ranks : {0, 9})
      for (const std::vector<Placement> &a : placements)
        for (const std::vector<Placement> &b : placements) {
          if (b[0].kind == Placement::Kind::Partial ||
              b[1].kind == Placement::Kind::Partial)
            continue;
          PlannerOptions o = defaults(eb);
          o.ranks = ranks;
          PlanLayout src = meshLayout({10, 7}, m, a);
          PlanLayout dst = meshLayout({10, 7}, m, b);
          PlanChoice fresh = choosePlan(src, dst, o);
          PlanChoice memoized = choosePlan(src, dst, o, &memo);
          ASSERT_EQ(fresh.candidates.size(), memoized.candidates.size());
          EXPECT_EQ(fresh.chosen, memoized.chosen);
          for (size_t c = 0; c < fresh.candidates.size(); ++c)
            same(fresh.candidates[c], memoized.candidates[c]);
          // What a search weighs (choosePlanCost) is the chosen plan's
          // time and elements, with the memo or without.
          for (StepMemo *with : {&memo, static_cast<StepMemo *>(nullptr)}) {
            PlanCost weighed = choosePlanCost(src, dst, o, with);
            EXPECT_EQ(weighed.us, fresh.best().us);
            EXPECT_EQ(weighed.received, fresh.best().receivedTotal());
          }
        }
  // Steps were compared, and the memo served many of them.
  EXPECT_GT(compared, 5000u);
  EXPECT_GT(memo.steps(), 100u);
  EXPECT_LT(memo.steps(), compared / 2);
}

// What a search weighs (choosePlanCost, which stops costing a chain once
// its steps so far are slower than every plan the choice may still make)
// is the chosen plan's time and elements, on meshes of one to three axes,
// uneven shapes, every pair of a set of layouts (Partial and strided
// ones), element sizes and links from latency-bound to bandwidth-bound:
// among them, pairs where a chain is dropped part-way and pairs where the
// choice is a near tie slower than the fastest (so the test fails if
// chains are dropped against the fastest alone).
TEST(Planner, CostOfTheChosenPlanAloneIsItsCost) {
  const Placement St = Placement::strided(0, 2);
  size_t pairs = 0, dropped = 0, nearTies = 0;
  for (const std::vector<int64_t> &meshShape :
       std::vector<std::vector<int64_t>>{{3}, {2, 3}, {4, 2}, {2, 2, 2}}) {
    const Mesh m = meshOf(meshShape);
    const size_t axes = meshShape.size();
    std::vector<std::vector<Placement>> placements;
    const std::vector<Placement> kinds{R, S(0), S(1), P, St};
    // Every combination on one and two axes; on three, each axis set alike
    // but one.
    if (axes == 1) {
      for (const Placement &a : kinds)
        placements.push_back({a});
    } else if (axes == 2) {
      for (const Placement &a : kinds)
        for (const Placement &b : kinds)
          placements.push_back({a, b});
    } else {
      for (const Placement &a : kinds)
        for (const Placement &b : kinds)
          placements.push_back({a, b, a});
    }
    for (const std::vector<int64_t> &shape :
         std::vector<std::vector<int64_t>>{{10, 7}, {64, 3}})
      for (const Link &link :
           {Link{0.01, 150.0}, Link::nvlink(), Link{200.0, 1000.0}}) {
        // One memo per planner (its topology is the planner's).
        StepMemo memo;
        for (int64_t eb : {4, 1})
          for (const std::vector<Placement> &a : placements)
            for (const std::vector<Placement> &b : placements) {
              if (std::any_of(b.begin(), b.end(), [](const Placement &p) {
                    return p.kind == Placement::Kind::Partial;
                  }))
                continue;
              if (!checkPlacements(m, a, shape) ||
                  !checkPlacements(m, b, shape))
                continue;
              PlannerOptions o = defaults(eb);
              o.topology.world = link;
              PlanLayout src = meshLayout(shape, m, a);
              PlanLayout dst = meshLayout(shape, m, b);
              PlanChoice all = choosePlan(src, dst, o);
              for (StepMemo *with : {&memo, static_cast<StepMemo *>(nullptr)}) {
                PlanCost weighed = choosePlanCost(src, dst, o, with);
                ASSERT_EQ(weighed.us, all.best().us);
                ASSERT_EQ(weighed.received, all.best().receivedTotal());
              }
              ++pairs;
              // What the test covers: a candidate slower than the near
              // ties of those before it (dropped, if a chain), and a
              // choice slower than the fastest.
              double fastest = all.candidates[0].us;
              for (size_t c = 1; c < all.candidates.size(); ++c) {
                if (all.candidates[c].steps.size() > 1 &&
                    all.candidates[c].steps[0].us >
                        fastest * (1 + kNearTie) + 1e-9) {
                  ++dropped;
                  break;
                }
                fastest = std::min(fastest, all.candidates[c].us);
              }
              double least = all.candidates[0].us;
              for (const Plan &plan : all.candidates)
                least = std::min(least, plan.us);
              nearTies += all.best().us > least;
            }
      }
  }
  EXPECT_GT(pairs, 2000u);
  EXPECT_GT(dropped, 0u) << "no chain dropped part-way: the test cannot fail";
  EXPECT_GT(nearTies, 0u) << "no near tie chosen: the test cannot fail";
}

// The memo holds at most kMaxRows rows: on a mesh of 4,096 devices every
// layout and step has thousands, so past the bound it makes them afresh
// (and the plans stay those made without it).
TEST(Planner, StepMemoStaysWithinItsRows) {
  Mesh m = meshOf({64, 64});
  StepMemo memo;
  size_t steps = 0;
  for (int64_t eb = 1; eb <= 24; ++eb)
    for (auto [a, b] : {std::pair{S(0), S(1)}, std::pair{S(1), R}}) {
      PlannerOptions o = defaults(eb);
      PlanLayout src = meshLayout({128, 128}, m, {a, R});
      PlanLayout dst = meshLayout({128, 128}, m, {R, b});
      PlanChoice fresh = choosePlan(src, dst, o);
      PlanChoice memoized = choosePlan(src, dst, o, &memo);
      ASSERT_EQ(fresh.candidates.size(), memoized.candidates.size());
      EXPECT_EQ(fresh.chosen, memoized.chosen);
      for (size_t c = 0; c < fresh.candidates.size(); ++c) {
        EXPECT_EQ(fresh.candidates[c].us, memoized.candidates[c].us);
        EXPECT_EQ(fresh.candidates[c].receivedTotal(),
                  memoized.candidates[c].receivedTotal());
        steps += fresh.candidates[c].steps.size();
      }
      EXPECT_LE(memo.rows(), StepMemo::kMaxRows);
    }
  // More rows were asked for than it holds.
  EXPECT_GT(steps * 2 * 4096, StepMemo::kMaxRows);
  EXPECT_GT(memo.steps(), 0u);
}
