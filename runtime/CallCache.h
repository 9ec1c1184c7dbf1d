//===- CallCache.h - Checked calls kept by their arguments ------*- C++ -*-===//
//
// A repeated call (a training step) skips reading its tables, planning and
// building messages: checked calls are kept by every argument but the data
// pointers, and a repeat is recognized word by word without writing its key.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDRT_CALLCACHE_H
#define SHARDRT_CALLCACHE_H

#include "RecentlyUsed.h"
#include "Runtime.h"

#include <memory>
#include <vector>

namespace shardc {
namespace rt {

/// The largest tensor rank a cached call's key holds.
constexpr int64_t kMaxKeyTensorRank = 64;

/// Checked calls, by their arguments but the data pointers: a call repeated
/// with the same tables, views and dtype (a training step) skips reading the
/// tables, planning and building messages. Only calls that passed the local
/// checks are kept; the least recently used of 16 goes first.
using CallCache =
    RecentlyUsed<std::vector<int64_t>, std::unique_ptr<Collective>>;

inline CallCache &callCache() {
  static CallCache *cache = new CallCache(16);
  return *cache;
}

/// The words of a cached call's key, written.
struct KeyWords {
  std::vector<int64_t> words;
  void put(int64_t v) { words.push_back(v); }
  void put(const int64_t *values, int64_t n) {
    words.insert(words.end(), values, values + n);
  }
};

/// Compares the words of a call's key with a cached call's, as they come:
/// a repeat is recognized without writing its key.
struct KeyMatch {
  const int64_t *at;
  const int64_t *end;
  bool same = true;
  explicit KeyMatch(const std::vector<int64_t> &words)
      : at(words.data()), end(words.data() + words.size()) {}
  void put(int64_t v) {
    if (same && at != end && *at == v)
      ++at;
    else
      same = false;
  }
  void put(const int64_t *values, int64_t n) {
    if (same && end - at >= n && std::equal(values, values + n, at))
      at += n;
    else
      same = false;
  }
  bool matched() const { return same && at == end; }
};

/// The cache key of a call: every argument but the data pointers (whether
/// each is NULL counts), given word by word to `Sink` (KeyWords or
/// KeyMatch). Gives up (`ok` false) on arguments the checks would reject
/// before reading them, so that it never reads more than they do.
template <typename Sink> struct CallKey {
  Sink sink;
  bool ok = true;

  void value(int64_t v) { sink.put(v); }
  void tensor(const shardrt_tensor *t) {
    value(t ? 1 : 0);
    if (!t)
      return;
    if (t->rank < 0 || t->rank > kMaxKeyTensorRank ||
        (t->rank > 0 && (!t->sizes || !t->strides))) {
      ok = false;
      return;
    }
    value(t->dtype);
    value(t->device);
    value(t->rank);
    value(t->data ? 1 : 0);
    sink.put(t->sizes, t->rank);
    sink.put(t->strides, t->rank);
  }
  /// A table of `rows` rows of `width` values (NULL allowed when empty).
  void table(const int64_t *values, int64_t rows, int64_t width) {
    value(rows);
    if (rows == 0)
      return;
    if (!values || rows < 0 || rows > (int64_t(1) << 24) || width < 1 ||
        width > 1 + 2 * kMaxKeyTensorRank) {
      ok = false;
      return;
    }
    sink.put(values, rows * width);
  }
};

} // namespace rt
} // namespace shardc

#endif // SHARDRT_CALLCACHE_H
