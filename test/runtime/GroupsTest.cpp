//===- GroupsTest.cpp - Which reductions are all-reduces within groups ----===//

#include "Groups.h"

#include <gtest/gtest.h>

using namespace shardc;
using namespace shardc::rt;

namespace {

/// A table of 1-D blocks: (owner, offset, size) rows.
layout::BlockTable table(const std::vector<int64_t> &rows) {
  layout::Result<layout::BlockTable> t = layout::readBlockTable(
      rows.data(), static_cast<int64_t>(rows.size() / 3), 1, 0, nullptr, "");
  EXPECT_TRUE(t) << t.error();
  return t ? *t : layout::BlockTable();
}

TEST(Groups, PartialToReplicateOverTheWorldIsOneAllReduce) {
  auto src = table({0, 0, 8, 1, 0, 8, 2, 0, 8, 3, 0, 8});
  auto colors = groupedAllReduce(src, {0, 1, 2, 3}, src, 4);
  ASSERT_TRUE(colors);
  EXPECT_EQ(*colors, (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(describeGroup(splitKey(*colors, {0, 1, 2, 3}), 2), "world");
}

TEST(Groups, PartialOnOneMeshAxisIsAnAllReducePerGroup) {
  // Mesh 2x2 (S(0), P) -> (S(0), R): ranks 0, 1 hold [0, 4), ranks 2, 3
  // hold [4, 8).
  auto src = table({0, 0, 4, 1, 0, 4, 2, 4, 4, 3, 4, 4});
  auto colors = groupedAllReduce(src, {0, 1, 0, 1}, src, 4);
  ASSERT_TRUE(colors);
  EXPECT_EQ(*colors, (std::vector<int>{0, 0, 2, 2}));
  EXPECT_EQ(describeGroup(splitKey(*colors, {0, 1, 2, 3}), 3),
            "group of ranks [2, 3]");
  // A rank outside every group (rank 4 holds nothing).
  colors = groupedAllReduce(src, {0, 1, 0, 1}, src, 5);
  ASSERT_TRUE(colors);
  EXPECT_EQ(colors->back(), -1);
}

TEST(Groups, ReplicasScattersAndMovesAreNot) {
  auto src = table({0, 0, 8, 1, 0, 8});
  // Two copies of one partial index: replicas, not partial values.
  EXPECT_FALSE(groupedAllReduce(src, {0, 0}, src, 2));
  // Partial -> shard (a reduce-scatter): the boxes differ.
  EXPECT_FALSE(groupedAllReduce(src, {0, 1}, table({0, 0, 4, 1, 4, 4}), 2));
  // A rank that holds a destination block but no source block.
  EXPECT_FALSE(
      groupedAllReduce(table({0, 0, 8}), {0}, table({0, 0, 8, 1, 0, 8}), 2));
  // Wrong number of partial indices.
  EXPECT_FALSE(groupedAllReduce(src, {0}, src, 2));
}

} // namespace

// A split's key: groups numbered by first appearance, members by key (ties
// by rank), so that splits alike share a communicator; described in the
// group's order.
TEST(Groups, SplitsAlikeHaveOneKey) {
  const std::vector<int> key = splitKey({5, 5, -1, 5}, {2, 0, 0, 1});
  EXPECT_EQ(key, (std::vector<int>{0, 2, 0, 0, -1, -1, 0, 1}));
  EXPECT_EQ(splitKey({9, 9, -1, 9}, {7, 1, 4, 3}), key);
  EXPECT_NE(splitKey({5, 5, -1, 5}, {0, 1, 0, 2}), key);
  EXPECT_EQ(describeGroup(key, 0), "group of ranks [1, 3, 0]");
  EXPECT_EQ(describeGroup(key, 2), "no group");
  EXPECT_EQ(splitKey({3, 3}, {1, 1}), (std::vector<int>{0, 0, 0, 1}));
  EXPECT_EQ(describeGroup(splitKey({3, 3}, {1, 1}), 1), "world");
  EXPECT_EQ(describeGroup(splitKey({0, 0}, {1, 0}), 1),
            "group of ranks [1, 0]");
}
