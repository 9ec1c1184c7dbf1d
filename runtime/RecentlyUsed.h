//===- RecentlyUsed.h - A small cache of recently used values ---*- C++ -*-===//

#ifndef SHARDRT_RECENTLYUSED_H
#define SHARDRT_RECENTLYUSED_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace shardc {
namespace rt {

/// The `capacity` most recently used values by key, found by a linear
/// search (a handful of entries, compared word for word) that first tries
/// the entry found after the last one found the previous time, then the
/// last one found: a loop that repeats one call or cycles through several
/// finds each with one comparison, not one per entry before it.
template <typename Key, typename Value> class RecentlyUsed {
public:
  explicit RecentlyUsed(size_t capacity) : capacity(capacity) {}

  /// The value of `key`, now the most recently used, or null.
  Value *find(const Key &key) {
    return findIf([&](const Key &k) { return k == key; });
  }
  /// The value of a key for which `same(key)` holds, now the most recently
  /// used, or null.
  template <typename Same> Value *findIf(Same &&same) {
    if (last < entries.size()) {
      for (size_t guess : {entries[last].next, last}) {
        if (guess < entries.size() && same(entries[guess].key))
          return &use(guess);
      }
    }
    for (size_t i = 0; i < entries.size(); ++i) {
      if (same(entries[i].key))
        return &use(i);
    }
    return nullptr;
  }
  /// Adds `value` for `key`, first passing the least recently used value to
  /// `evict` when full.
  template <typename Evict> void insert(Key key, Value value, Evict &&evict) {
    if (entries.size() >= capacity) {
      auto oldest = std::min_element(
          entries.begin(), entries.end(),
          [](const Entry &a, const Entry &b) { return a.lastUse < b.lastUse; });
      evict(oldest->value);
      entries.erase(oldest);
      // Indices moved: forget the guesses.
      for (Entry &e : entries)
        e.next = kNone;
      last = kNone;
    }
    entries.push_back({std::move(key), std::move(value), 0, kNone});
    use(entries.size() - 1);
  }
  /// Passes the value of every key for which `drop(key)` holds to `evict`
  /// and forgets them.
  template <typename Drop, typename Evict>
  void eraseIf(Drop &&drop, Evict &&evict) {
    for (auto it = entries.begin(); it != entries.end();) {
      if (!drop(it->key)) {
        ++it;
        continue;
      }
      evict(it->value);
      it = entries.erase(it);
    }
    // Indices moved: forget the guesses.
    for (Entry &e : entries)
      e.next = kNone;
    last = kNone;
  }
  /// Passes every value to `evict` and forgets them.
  template <typename Evict> void clear(Evict &&evict) {
    for (Entry &e : entries)
      evict(e.value);
    entries.clear();
    last = kNone;
  }

private:
  static constexpr size_t kNone = ~size_t(0);
  struct Entry {
    Key key;
    Value value;
    uint64_t lastUse;
    /// The entry found right after this one, the last time.
    size_t next;
  };
  Value &use(size_t i) {
    if (last < entries.size())
      entries[last].next = i;
    last = i;
    entries[i].lastUse = ++clock;
    return entries[i].value;
  }
  size_t capacity;
  std::vector<Entry> entries;
  uint64_t clock = 0;
  size_t last = kNone;
};

} // namespace rt
} // namespace shardc

#endif // SHARDRT_RECENTLYUSED_H
