//===- SharedVector.h - A vector copies share until one is written -*- C++ -*-//
//
// The whole-function search holds, per op and per value, tables that
// thousands of ops of one kind and shape have alike (each matmul's options,
// each value's move costs): copies of one SharedVector read one buffer, and
// a write through a copy that shares it copies it first (copy on write), so
// no copy ever sees another's change.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_PLANNING_SHAREDVECTOR_H
#define SHARDC_PLANNING_SHAREDVECTOR_H

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <vector>

namespace shardc::planning {

/// A vector of T whose copies share one buffer until one of them is
/// written. Every read (operator[], whatever the object's constness) leaves
/// the buffer shared; every write (mutableAt, push_back, assign) makes the
/// buffer this object's own first. A write is named: a non-const
/// operator[] that copied on every access un-shared the tables of a
/// 1,000-op search where it was only read (its memo, keyed by the buffer,
/// then missed for every op: 264 M instructions became 334 M).
template <typename T> class SharedVector {
public:
  using Elements = std::vector<T>;
  SharedVector() = default;
  SharedVector(Elements elements)
      : data(std::make_shared<Elements>(std::move(elements))) {}
  SharedVector(std::initializer_list<T> elements)
      : SharedVector(Elements(elements)) {}

  const Elements &elements() const { return data ? *data : none(); }
  operator const Elements &() const { return elements(); }
  size_t size() const { return elements().size(); }
  bool empty() const { return elements().empty(); }
  const T &operator[](size_t i) const { return elements()[i]; }
  /// Element i, to write: the buffer made this object's own first.
  T &mutableAt(size_t i) { return write()[i]; }
  const T &back() const { return elements().back(); }
  typename Elements::const_iterator begin() const { return elements().begin(); }
  typename Elements::const_iterator end() const { return elements().end(); }
  void push_back(T element) { write().push_back(std::move(element)); }
  void assign(size_t n, const T &element) { write().assign(n, element); }
  void shrink_to_fit() {
    if (data && data.use_count() == 1)
      data->shrink_to_fit();
  }
  /// Whether this and `other` read one buffer (no copy made yet).
  bool sharesWith(const SharedVector &other) const {
    return data && data == other.data;
  }
  /// The buffer read (null: none yet): equal for copies that share it,
  /// and stable while they hold it.
  const void *identity() const { return data.get(); }

private:
  Elements &write() {
    if (!data)
      data = std::make_shared<Elements>();
    else if (data.use_count() > 1)
      data = std::make_shared<Elements>(*data);
    return *data;
  }
  static const Elements &none() {
    static const Elements empty;
    return empty;
  }
  std::shared_ptr<Elements> data;
};

/// Rows of T shared alike (a value's move costs by source and needed
/// layout): `rows[a][b]` reads, and writes copy the whole table first.
template <typename T> using SharedRows = SharedVector<std::vector<T>>;

} // namespace shardc::planning

#endif // SHARDC_PLANNING_SHAREDVECTOR_H
