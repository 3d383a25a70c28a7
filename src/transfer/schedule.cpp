// transfer/schedule.cpp — see schedule.hpp.
#include "transfer/schedule.hpp"

#include <utility>

namespace gsr::detail {

std::vector<RouterStageShape> router_stage_shapes(int rank, int ranks) {
  std::vector<RouterStageShape> shapes;
  int lo = 0, hi = ranks;
  while (hi - lo > 1) {
    const int n = hi - lo, lower = (n + 1) / 2, upper = n - lower, mid = lo + lower;
    RouterStageShape s;
    s.mid = mid;
    if (rank < mid) {
      const int i = rank - lo;
      if (i < upper) {
        s.send_to = mid + i;
        s.sources.push_back(mid + i);
      } else {
        s.send_to = hi - 1;  // the odd one out: its share goes to the last upper rank
      }
      hi = mid;
    } else {
      const int j = rank - mid;
      s.send_to = lo + j;
      s.sources.push_back(lo + j);
      if (lower > upper && rank == hi - 1) s.sources.push_back(mid - 1);
      lo = mid;
    }
    shapes.push_back(std::move(s));
  }
  return shapes;
}

}  // namespace gsr::detail
