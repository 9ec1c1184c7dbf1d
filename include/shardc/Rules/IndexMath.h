//===- IndexMath.h - Index arithmetic that folds constants ------*- C++ -*-===//
//
// For the rules' partition hooks: offsets and sizes as OpFoldResults (this
// rank's, constants where every rank has the same), combined into new ones
// with arith ops only where some input is a value.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RULES_INDEXMATH_H
#define SHARDC_RULES_INDEXMATH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

#include <algorithm>
#include <utility>

namespace shardc {

/// The steps k in [0, count) of a strided run of elements at
/// offset + k * stride that fall in [lo, hi): [first, end), first == end
/// when none do. (What a rank's block holds of a slice, or needs of a
/// tensor placed into the result.)
inline std::pair<int64_t, int64_t> stepsWithin(int64_t offset, int64_t stride,
                                               int64_t count, int64_t lo,
                                               int64_t hi) {
  auto firstFrom = [&](int64_t x) -> int64_t {
    if (x <= offset)
      return 0;
    return std::min(count, (x - offset - 1) / stride + 1);
  };
  const int64_t first = firstFrom(lo);
  return {first, std::max(first, firstFrom(hi))};
}

/// Index arithmetic on OpFoldResults at a builder, folded to constants where
/// every input is one (the common case: a dim no rank cuts).
class IndexMath {
public:
  IndexMath(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::OpFoldResult c(int64_t v) { return b.getIndexAttr(v); }

  mlir::OpFoldResult add(mlir::OpFoldResult x, mlir::OpFoldResult y) {
    return fold<mlir::arith::AddIOp>(
        x, y, [](int64_t a, int64_t c) { return a + c; });
  }
  mlir::OpFoldResult sub(mlir::OpFoldResult x, mlir::OpFoldResult y) {
    return fold<mlir::arith::SubIOp>(
        x, y, [](int64_t a, int64_t c) { return a - c; });
  }
  mlir::OpFoldResult mul(mlir::OpFoldResult x, int64_t y) {
    if (y == 1)
      return x;
    return fold<mlir::arith::MulIOp>(
        x, c(y), [](int64_t a, int64_t c) { return a * c; });
  }
  /// ceil(x / y) for y > 0, x of any sign.
  mlir::OpFoldResult ceilDiv(mlir::OpFoldResult x, int64_t y) {
    if (y == 1)
      return x;
    return fold<mlir::arith::CeilDivSIOp>(x, c(y), [](int64_t a, int64_t d) {
      return a >= 0 ? (a + d - 1) / d : -((-a) / d);
    });
  }
  mlir::OpFoldResult max(mlir::OpFoldResult x, mlir::OpFoldResult y) {
    return fold<mlir::arith::MaxSIOp>(
        x, y, [](int64_t a, int64_t c) { return std::max(a, c); });
  }
  mlir::OpFoldResult min(mlir::OpFoldResult x, mlir::OpFoldResult y) {
    return fold<mlir::arith::MinSIOp>(
        x, y, [](int64_t a, int64_t c) { return std::min(a, c); });
  }
  /// x clamped to [lo, hi].
  mlir::OpFoldResult clamp(mlir::OpFoldResult x, mlir::OpFoldResult lo,
                           mlir::OpFoldResult hi) {
    return min(max(x, lo), hi);
  }

private:
  mlir::Value value(mlir::OpFoldResult x) {
    if (auto v = llvm::dyn_cast<mlir::Value>(x))
      return v;
    return mlir::arith::ConstantIndexOp::create(
        b, loc,
        llvm::cast<mlir::IntegerAttr>(llvm::cast<mlir::Attribute>(x)).getInt());
  }
  template <typename OpT, typename F>
  mlir::OpFoldResult fold(mlir::OpFoldResult x, mlir::OpFoldResult y, F f) {
    std::optional<int64_t> cx = mlir::getConstantIntValue(x);
    std::optional<int64_t> cy = mlir::getConstantIntValue(y);
    if (cx && cy)
      return c(f(*cx, *cy));
    return OpT::create(b, loc, value(x), value(y)).getResult();
  }

  mlir::OpBuilder &b;
  mlir::Location loc;
};

} // namespace shardc

#endif // SHARDC_RULES_INDEXMATH_H
