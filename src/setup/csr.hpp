// setup/csr.hpp — compressed rows, the shape of every per-group list gsr keeps (holders
// of a shared id, entries of a group).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace gsr::detail {

/// Row r is items[offsets[r] .. offsets[r+1]).
template <class T, class Offset = std::size_t>
struct Csr {
  std::vector<Offset> offsets{0};
  std::vector<T> items;
  std::size_t rows() const noexcept { return offsets.size() - 1; }
  std::span<const T> row(std::size_t r) const noexcept {
    return {items.data() + offsets[r], offsets[r + 1] - offsets[r]};
  }
  std::size_t bytes() const noexcept { return offsets.capacity() * sizeof(Offset) + items.capacity() * sizeof(T); }
};

}  // namespace gsr::detail
