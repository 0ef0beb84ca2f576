// One sort for every order the program makes. Each std::sort with its own element type or
// comparator is another copy of libc++'s introsort in the release binary (1.5 to 4 KB
// each; eight of them were 27 KB of it): here the indices are sorted once, by a
// comparison given at run time, and the elements moved into that order. Stable: equal
// elements keep their order.
#pragma once

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

namespace rp {

// `order` (indices) sorted by `less` on the elements they index; ties keep index order.
void sort_indices(std::vector<size_t>& order, const std::function<bool(size_t, size_t)>& less);

template <typename T, typename Less>
void sort_by(std::vector<T>& v, Less less) {
  std::vector<size_t> order(v.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  sort_indices(order, [&](size_t a, size_t b) { return less(v[a], v[b]); });
  std::vector<T> sorted;
  sorted.reserve(v.size());
  for (size_t i : order) sorted.push_back(std::move(v[i]));
  v = std::move(sorted);
}

template <typename T>
void sort_by(std::vector<T>& v) {
  sort_by(v, [](const T& a, const T& b) { return a < b; });
}

}  // namespace rp
