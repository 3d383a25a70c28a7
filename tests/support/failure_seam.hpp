// failure_seam.hpp — a test's way to make this rank fail on purpose at a point of libgsr
// (src/mpi/seam.hpp): linking the gsr_failure_seam library gives the program its own
// gsr::detail::seam::reached, which takes the place of libgsr's empty one.
#pragma once

#include "mpi/seam.hpp"

namespace gsr_test {

using gsr::detail::seam::Point;

/// The n-th time from now (1 = the next) this rank reaches `point`, it throws
/// std::bad_alloc, as a failed allocation would; 0 turns the point off.
void fail_at(Point point, int n);

/// Arms `point` for the n-th time from now and turns it off again when it goes out of scope
/// (whether it fired or not).
class FailAt {
public:
  FailAt(Point point, int n) : point_(point) { fail_at(point, n); }
  ~FailAt() { fail_at(point_, 0); }
  FailAt(const FailAt&) = delete;
  FailAt& operator=(const FailAt&) = delete;

private:
  Point point_;
};

}  // namespace gsr_test
