//===- ShardPlannerTest.cpp - Planning the dialect's types, and drawing ---===//
//
// What a pass asks the planning library without building IR: the cost of
// moving a value between two layouts; the options checked in one place; a
// layout drawn as a grid of ranks.
//
//===----------------------------------------------------------------------===//

#include "shardc/Planning/ShardPlanner.h"
#include "shardc/Planning/Describe.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir;
using namespace shardc;
using namespace shardc::planning;

namespace {

class ShardPlannerTest : public ::testing::Test {
protected:
  ShardPlannerTest() { context.loadDialect<ShardDialect>(); }

  ShardedTensorType type(const std::string &text) {
    auto t = dyn_cast_or_null<ShardedTensorType>(parseType(text, &context));
    EXPECT_TRUE(t) << text;
    return t;
  }

  /// A planner for `options`, and the diagnostic text when there is none.
  std::unique_ptr<ShardPlanner> create(const PlanningOptions &options,
                                       std::string &message) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      message = d.str();
      return success();
    });
    return ShardPlanner::create(options, [&] {
      return emitError(UnknownLoc::get(&context)) << "test: ";
    });
  }

  std::string join(const std::vector<std::string> &lines) {
    std::string text;
    for (const std::string &l : lines)
      text += l + "\n";
    return text;
  }

  MLIRContext context;
};

const char *kMesh4 = "#shard.mesh<shape = [4]>";
const char *kMesh22 = "#shard.mesh<shape = [2, 2]>";

std::string meshType(const char *mesh, const char *placements,
                     const char *tensor = "8x6xf32") {
  return std::string("!shard.tensor<") + tensor +
         ", #shard.placements<mesh = " + mesh + ", placements = [" +
         placements + "]>>";
}

// The question a propagation pass asks: what does moving this value from A
// to B cost? S(0) -> R of f32[8, 6] on 4 ranks: each rank lacks 3 of 4 row
// blocks, 144 of 192 bytes, and the plan receives exactly that.
TEST_F(ShardPlannerTest, CostOfAMoveWithoutIR) {
  std::string message;
  std::unique_ptr<ShardPlanner> planner = create({}, message);
  ASSERT_TRUE(planner) << message;
  ShardedTensorType s0 = type(meshType(kMesh4, "S(0)"));
  ShardedTensorType r = type(meshType(kMesh4, "R"));
  const PlanSummary &cost = planner->cost(s0, r);
  EXPECT_FALSE(cost.overflow);
  EXPECT_EQ(cost.ranks, 4);
  EXPECT_EQ(cost.bytesReceivedTotal, 4 * 144);
  EXPECT_EQ(cost.bytesReceivedMaxRank, 144);
  EXPECT_TRUE(cost.atLowerBound());
  // One all_gather over the mesh axis.
  ASSERT_EQ(cost.steps.size(), 1u);
  EXPECT_EQ(cost.steps[0].kind, "all_gather");
  EXPECT_EQ(cost.steps[0].group, "mesh axes [0]");
  EXPECT_GT(cost.modelledUs, 0);
  EXPECT_TRUE(std::isfinite(cost.modelledUs));
  // Asked again: the same summary, not a second plan.
  EXPECT_EQ(&planner->cost(s0, r), &cost);

  // Nothing to move costs nothing.
  const PlanSummary &none = planner->cost(s0, s0);
  EXPECT_TRUE(none.steps.empty());
  EXPECT_EQ(none.bytesReceivedTotal, 0);
  EXPECT_EQ(none.modelledUs, 0);

  // R -> S(0) is a local slice: no bytes, and cheaper than the gather.
  const PlanSummary &slice = planner->cost(r, s0);
  EXPECT_EQ(slice.bytesReceivedTotal, 0);
  EXPECT_LT(slice.modelledUs, cost.modelledUs);
}

// What a search weighs (modelledCost) is cost()'s time, bytes and overflow
// by the same candidates and rule, whether cost() chose the plan before (its
// choice read) or not (weighed afresh, no plan copied): every pair of
// layouts of an uneven f32[7, 5] on a 2x2 mesh, Partial and strided ones
// among them, and of an f32[2, 4] on a mesh of 4 (two ranks holding nothing
// of a row cut).
TEST_F(ShardPlannerTest, ModelledCostIsCostsTimeAndBytes) {
  std::string message;
  std::unique_ptr<ShardPlanner> reported = create({}, message);
  std::unique_ptr<ShardPlanner> weighedFirst = create({}, message);
  ASSERT_TRUE(reported && weighedFirst) << message;
  const std::vector<std::string> placements = {
      "R, R",         "S(0), R",     "R, S(0)",     "S(0), S(1)",
      "S(1), S(0)",   "S(0), S(0)",  "P(sum), R",   "R, P(sum)",
      "S(1), P(max)", "_S(0, 2), R", "P(sum), S(1)"};
  ScopedDiagnosticHandler quiet(&context,
                                [](Diagnostic &) { return success(); });
  auto emit = [&] { return emitError(UnknownLoc::get(&context)); };
  // A layout the type refuses is left out (parsed quietly).
  auto parsed = [&](const char *mesh, const std::string &p, const char *shape) {
    return dyn_cast_or_null<ShardedTensorType>(
        parseType(meshType(mesh, p.c_str(), shape), &context));
  };
  int compared = 0;
  auto compare = [&](ShardedTensorType from, ShardedTensorType to,
                     const std::string &what) {
    if (failed(verifyPlannable(from, emit)) ||
        failed(verifyPlannable(to, emit)) || failed(decideMove(from, to, emit)))
      return;
    const ModelledMove fresh = weighedFirst->modelledCost(from, to);
    const PlanSummary &full = reported->cost(from, to);
    const ModelledMove &known = reported->modelledCost(from, to);
    for (const ModelledMove *weighed : {&fresh, &known}) {
      EXPECT_EQ(weighed->us, full.modelledUs) << what;
      EXPECT_EQ(weighed->bytesReceived, full.bytesReceivedTotal) << what;
      EXPECT_EQ(weighed->overflow, full.overflow) << what;
    }
    ++compared;
  };
  for (const std::string &a : placements)
    for (const std::string &b : placements) {
      ShardedTensorType from = parsed(kMesh22, a, "7x5xf32"),
                        to = parsed(kMesh22, b, "7x5xf32");
      if (from && to)
        compare(from, to, a + " -> " + b);
    }
  // Most pairs plan (a Partial destination through its whole form).
  EXPECT_GT(compared, 80);
  for (const char *a : {"S(0)", "S(1)", "R"})
    for (const char *b : {"S(0)", "S(1)", "R"})
      if (ShardedTensorType from = parsed(kMesh4, a, "2x4xf32"),
          to = parsed(kMesh4, b, "2x4xf32");
          from && to)
        compare(from, to, std::string(a) + " -> " + b + " on 4");
  EXPECT_GT(compared, 88);
}

// A layout choice weighs several moves: the transposition S(0) -> S(1) on a
// 2x2 mesh's axes costs more than keeping the layout, and a slower link
// makes every move slower but not cheaper in bytes.
TEST_F(ShardPlannerTest, CostsFollowTheLink) {
  std::string message;
  PlanningOptions ib;
  ib.link = LinkClass::InfiniBand;
  std::unique_ptr<ShardPlanner> fast = create({}, message),
                                slow = create(ib, message);
  ASSERT_TRUE(fast && slow) << message;
  ShardedTensorType a = type(meshType(kMesh22, "S(0), S(1)"));
  ShardedTensorType b = type(meshType(kMesh22, "S(1), S(0)"));
  const PlanSummary &f = fast->cost(a, b), &s = slow->cost(a, b);
  EXPECT_EQ(f.bytesReceivedTotal, s.bytesReceivedTotal);
  EXPECT_GT(f.bytesReceivedTotal, 0);
  EXPECT_LT(f.modelledUs, s.modelledUs);
  EXPECT_TRUE(f.atLowerBound());
}

// One place checks the options, for the pass, the tool and any other user.
TEST_F(ShardPlannerTest, OptionsAreCheckedInOnePlace) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    PlanningOptions options;
    const char *says;
  };
  std::vector<Case> cases(7);
  cases[0].options.alphaUs = nan;
  cases[0].says = "alpha-us";
  cases[1].options.alphaUs = inf;
  cases[1].says = "alpha-us";
  cases[2].options.betaGBps = -5;
  cases[2].says = "beta-gbps";
  cases[3].options.betaGBps = 0;
  cases[3].says = "beta-gbps";
  cases[4].options.worldSize = int64_t(1) << 31;
  cases[4].says = "world-size";
  cases[5].options.worldSize = -3;
  cases[5].says = "world-size";
  cases[6].options.topologyFile = "/nonexistent/topology.json";
  cases[6].says = "topology: cannot open input file";
  for (const Case &c : cases) {
    std::string message;
    EXPECT_FALSE(create(c.options, message)) << c.says;
    EXPECT_NE(message.find("test: "), std::string::npos) << message;
    EXPECT_NE(message.find(c.says), std::string::npos) << message;
  }
  std::string message;
  PlanningOptions fine;
  fine.alphaUs = 0;
  fine.betaGBps = 1e-12;
  fine.worldSize = (int64_t(1) << 31) - 1;
  EXPECT_TRUE(create(fine, message)) << message;
}

TEST_F(ShardPlannerTest, DirectPlansHaveOneCandidate) {
  std::string message;
  PlanningOptions direct;
  direct.plans = PlanSet::Direct;
  std::unique_ptr<ShardPlanner> planner = create(direct, message);
  ASSERT_TRUE(planner) << message;
  ShardedTensorType a = type(meshType(kMesh22, "S(0), S(1)"));
  ShardedTensorType b = type(meshType(kMesh22, "S(1), S(0)"));
  EXPECT_EQ(planner->choose(a, b).candidates.size(), 1u);
  EXPECT_TRUE(planner->cost(a, b).candidates.empty());
}

TEST_F(ShardPlannerTest, LayoutsInWords) {
  EXPECT_EQ(describeLayout(type(meshType(kMesh22, "S(0), R"))),
            "(S(0), R) on mesh [2, 2]");
  EXPECT_EQ(describeLayout(type(
                "!shard.tensor<6x10xf32, #shard.chunk<dim = -1, placements = "
                "[\"rank:0\", \"rank:1\"]>>")),
            "chunks of dim 1 on ranks [0, 1]");
  EXPECT_EQ(tensorText(type(meshType(kMesh4, "R"))), "f32[8, 6]");
  EXPECT_EQ(bytesText(10239), "10239 B");
  EXPECT_EQ(bytesText(10240), "10.0 KiB");
  EXPECT_EQ(bytesText(std::numeric_limits<int64_t>::max()), "8.0 EiB");
  EXPECT_EQ(timeText(2.5), "2.5 us");
  EXPECT_EQ(timeText(2.5e6), "2.50 s");
}

// A 2-D mesh layout drawn: a cell per block, labelled with its ranks; the
// replicated axis shows as two ranks per cell.
TEST_F(ShardPlannerTest, DrawsA2DLayout) {
  EXPECT_EQ(join(drawLayout(type(meshType(kMesh22, "S(0), S(1)")))),
            "         [0, 3)   [3, 6)\n"
            "       +--------+--------+\n"
            "[0, 4) | 0      | 1      |\n"
            "       +--------+--------+\n"
            "[4, 8) | 2      | 3      |\n"
            "       +--------+--------+\n");
}

TEST_F(ShardPlannerTest, DrawsReplicasAndPartialValues) {
  std::string replicated = join(drawLayout(type(meshType(kMesh22, "S(0), R"))));
  EXPECT_NE(replicated.find("| 0,1 "), std::string::npos) << replicated;
  EXPECT_NE(replicated.find("| 2,3 "), std::string::npos) << replicated;
  std::string partial = join(drawLayout(type(meshType(kMesh4, "P(sum)"))));
  EXPECT_NE(partial.find("0-3*"), std::string::npos) << partial;
  EXPECT_NE(partial.find("partial values"), std::string::npos) << partial;
}

TEST_F(ShardPlannerTest, DrawsUnevenAnd1DLayouts) {
  // torch.chunk of 10 over 4: 3, 3, 3, 1.
  std::string chunks = join(drawLayout(
      type("!shard.tensor<10xf32, #shard.chunk<dim = 0, placements = "
           "[\"rank:0\", \"rank:1\", \"rank:2\", \"rank:3\"]>>")));
  EXPECT_NE(chunks.find("[0, 3)"), std::string::npos) << chunks;
  EXPECT_NE(chunks.find("[9, 10)"), std::string::npos) << chunks;
  EXPECT_NE(chunks.find("| 3 "), std::string::npos) << chunks;
  // 5 over 4: 2, 2, 1 and an empty chunk on rank 3, which holds nothing.
  std::string empty = join(
      drawLayout(type("!shard.tensor<5xf32, #shard.chunk<dim = 0, placements = "
                      "[\"rank:0\", \"rank:1\", \"rank:2\", \"rank:3\"]>>")));
  EXPECT_EQ(empty.find("| 3 "), std::string::npos) << empty;
}

TEST_F(ShardPlannerTest, SaysWhatItCannotDraw) {
  std::string cube =
      join(drawLayout(type(meshType(kMesh4, "S(0)", "4x4x4xf32"))));
  EXPECT_NE(cube.find("only 1-D and 2-D tensors are drawn"), std::string::npos)
      << cube;
  std::string many = join(drawLayout(
      type(meshType("#shard.mesh<shape = [64]>", "S(0)", "128xf32"))));
  EXPECT_NE(many.find("64 cells: too many to draw"), std::string::npos) << many;
  std::string none =
      join(drawLayout(type(meshType(kMesh4, "S(0)", "0x3xf32"))));
  EXPECT_NE(none.find("no elements"), std::string::npos) << none;
}

TEST_F(ShardPlannerTest, DrawsSourceAndDestinationSideBySide) {
  std::string text;
  llvm::raw_string_ostream os(text);
  printLayouts(os, type(meshType(kMesh4, "S(0)", "4x2xf32")),
               type(meshType(kMesh4, "S(1)", "4x2xf32")));
  std::string first = text.substr(0, text.find('\n'));
  EXPECT_EQ(first.find("from: (S(0)) on mesh [4]"), 0u) << text;
  EXPECT_NE(first.find("to: (S(1)) on mesh [4]"), std::string::npos) << text;
}

} // namespace
