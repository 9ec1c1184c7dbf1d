//===- CostModel.h - The cost model's options, declared once ----*- C++ -*-===//
//
// The cost model is one value, PlanningOptions (ShardPlanner.h), and its
// options are declared here once: a name, a help text and how a text sets
// the value. Every pass that plans, the shard-to-llvm pipeline, shard-run,
// shard-plan and the Python module take these options from this table and
// parse them with its functions, so an option added here is an option of
// all of them (docs/planner.md, "The cost model").
//
// Text is checked here for its form (a link class, a number); the values'
// ranges are checked by ShardPlanner::create, the one place every user of
// the model goes through.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PLANNING_COSTMODEL_H
#define SHARDC_PLANNING_COSTMODEL_H

#include "shardc/Planning/ShardPlanner.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <memory>
#include <string>
#include <vector>

namespace shardc {
namespace planning {

/// One option of the cost model.
struct CostModelOption {
  /// As a pass option and a tool flag ("alpha-us"); Python's keyword has
  /// '_' for '-' ("alpha_us").
  const char *name;
  const char *help;
  /// Sets the option in `model` from `text`; an empty text restores its
  /// default. Returns what is wrong with the text, or "".
  std::string (*set)(PlanningOptions &model, llvm::StringRef text);
  /// The option's text in `model` (set reads it back to the same value), or
  /// "" where the option has its default.
  std::string (*get)(const PlanningOptions &model);
};

/// Every option of the cost model, in the order help lists them.
llvm::ArrayRef<CostModelOption> costModelOptions();

/// Sets the option named `name` (a pass option's name, or Python's with '_')
/// from `text`. Returns what is wrong ("alpha-us: 'x' is not a number",
/// "no cost model option 'x' (link, ...)"), or "".
std::string setCostModelOption(PlanningOptions &model, llvm::StringRef name,
                               llvm::StringRef text);

/// The options of `model` that differ from their defaults, as a pass takes
/// them: "link=infiniband alpha-us=3" ("" for the default model).
std::string costModelOptionsText(const PlanningOptions &model);

/// The command-line parser of one cost model option (a tool's flag, a pass
/// or pipeline option): refuses, where the command line is parsed, a text
/// the option's `set` refuses.
class CostModelOptionParser : public llvm::cl::parser<std::string> {
public:
  using llvm::cl::parser<std::string>::parser;
  /// The option parsed; set right after the flag is made.
  const CostModelOption *option = nullptr;

  bool parse(llvm::cl::Option &flag, llvm::StringRef name, llvm::StringRef text,
             std::string &value);
  llvm::StringRef getValueName() const override { return "value"; }
};

/// A flag per cost model option on one owner (a tool's command line, a
/// pass, a pipeline's options). `Flag` is the owner's option type holding
/// a std::string parsed by CostModelOptionParser: llvm::cl::opt,
/// mlir::Pass::Option or mlir::detail::PassOptions::Option.
template <typename Flag> class CostModelFlags {
public:
  /// `make(option)` declares one flag, named and described as `option`, on
  /// the owner.
  explicit CostModelFlags(
      llvm::function_ref<std::unique_ptr<Flag>(const CostModelOption &)> make) {
    for (const CostModelOption &option : costModelOptions()) {
      flags.push_back(make(option));
      flags.back()->getParser().option = &option;
    }
  }
  CostModelFlags(const CostModelFlags &) = delete;
  CostModelFlags &operator=(const CostModelFlags &) = delete;

  /// The cost model the flags give: each option's default where its flag
  /// is not given. Returns what is wrong with a flag's text (a program can
  /// assign one the command line would have refused), or "".
  std::string read(PlanningOptions &model) const {
    model = PlanningOptions();
    for (const std::unique_ptr<Flag> &flag : flags) {
      const CostModelOption &option = *flag->getParser().option;
      std::string problem = option.set(model, flag->getValue());
      if (!problem.empty())
        return std::string(option.name) + ": " + problem;
    }
    return "";
  }

  /// Gives every flag its value in `model`.
  void assign(const PlanningOptions &model) {
    for (std::unique_ptr<Flag> &flag : flags)
      *flag = flag->getParser().option->get(model);
  }

private:
  std::vector<std::unique_ptr<Flag>> flags;
};

} // namespace planning
} // namespace shardc

#endif // SHARDC_PLANNING_COSTMODEL_H
