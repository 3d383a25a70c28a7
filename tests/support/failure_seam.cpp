// failure_seam.cpp — see failure_seam.hpp. The strong definition of libgsr's weak
// gsr::detail::seam::reached (src/mpi/seam.cpp), for test programs only.
#include "failure_seam.hpp"

#include <array>
#include <atomic>
#include <new>

namespace {

constexpr std::size_t points = static_cast<std::size_t>(gsr::detail::seam::Point::chunk) + 1;

/// Per point: how many more times it may be reached before it fails (0: never).
std::array<std::atomic<int>, points> until_failure{};

}  // namespace

namespace gsr_test {

void fail_at(Point point, int n) { until_failure[static_cast<std::size_t>(point)].store(n); }

}  // namespace gsr_test

namespace gsr::detail::seam {

void reached(Point point) {
  std::atomic<int>& left = until_failure[static_cast<std::size_t>(point)];
  int now = left.load();
  while (now > 0 && !left.compare_exchange_weak(now, now - 1)) {
  }
  if (now == 1) throw std::bad_alloc();
}

}  // namespace gsr::detail::seam
