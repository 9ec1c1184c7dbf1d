//===- GroupsTest.cpp - Splitting the world into groups of ranks ---------===//

#include "Groups.h"

#include <gtest/gtest.h>

using namespace shardc;
using namespace shardc::rt;

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
