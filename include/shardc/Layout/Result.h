//===- Result.h - How the layout library reports failure --------*- C++ -*-===//
//
// The layout library has no MLIR (the runtime links it alone), so it cannot
// emit diagnostics. Every function of it that can fail on its input returns
// a Result: the value, or one sentence that names the input and says what is
// wrong ("block 3 is placed on rank 5 but the world has 4 ranks"). Callers
// above it turn the sentence into a diagnostic (FailureOr / LogicalResult
// and emitError in the dialect, passes and tools) or into the runtime's
// error text. Lookups whose absence is no error (parseReduce, volume on
// overflow, normalizeDim, inferChunkSpec) return std::optional. checkBlocks
// is no failure but a report of every problem of a block list (CheckResult),
// as PyTorch's metadata validation lists them.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LAYOUT_RESULT_H
#define SHARDC_LAYOUT_RESULT_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace shardc {
namespace layout {

/// What went wrong; converts to a failed Result of any type.
struct Failure {
  std::string message;
};

/// A value of type T, or a Failure.
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : value(std::move(value)) {}
  Result(Failure failure) : message(std::move(failure.message)) {
    assert(!message.empty() && "a failure says what failed");
  }

  bool ok() const { return value.has_value(); }
  explicit operator bool() const { return ok(); }
  /// The sentence of a failure ("" when it holds a value).
  const std::string &error() const { return message; }

  const T &operator*() const & { return *value; }
  T &operator*() & { return *value; }
  T &&operator*() && { return std::move(*value); }
  const T *operator->() const { return &*value; }
  T *operator->() { return &*value; }

private:
  std::optional<T> value;
  std::string message;
};

/// A check: success, or a Failure.
template <> class [[nodiscard]] Result<void> {
public:
  Result() = default;
  Result(Failure failure) : message(std::move(failure.message)) {
    assert(!message.empty() && "a failure says what failed");
  }

  bool ok() const { return message.empty(); }
  explicit operator bool() const { return ok(); }
  const std::string &error() const { return message; }

private:
  std::string message;
};

} // namespace layout
} // namespace shardc

#endif // SHARDC_LAYOUT_RESULT_H
