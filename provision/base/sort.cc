#include "provision/base/sort.h"

#include <algorithm>

namespace rp {

void sort_indices(std::vector<size_t>& order, const std::function<bool(size_t, size_t)>& less) {
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (less(a, b)) return true;
    if (less(b, a)) return false;
    return a < b;
  });
}

}  // namespace rp
