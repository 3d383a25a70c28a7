// Copy consistency with hand-derived values, for every method, blocking and non-blocking.
// Three ranks hold one id with the values 1e16, 1 and -1e16 in every assignment. Folded in
// ascending rank order ((a + b) + c), the sum is 1 exactly when the 1 comes last and 0
// otherwise (1e16 + 1 rounds back to 1e16, in double and in float alike); any other order
// gives 1 somewhere else. min over +0.0 and -0.0 keeps the first holder's zero (no zero is
// less than the other), so its sign shows the order too. At P = 5 the holders are ranks 0,
// 2 and 4, and ranks 1 and 3 exchange an id of their own, so rows cross the crystal
// router's odd splits on their way.
#include "methods_support.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace {

using gsr::Op;
using methods_test::world_rank;
using methods_test::world_size;

constexpr std::int64_t shared_id = 77;

/// Position of this rank among the holders of shared_id, or -1.
int holder_position() {
  const int rank = world_rank();
  if (world_size() == 3) return rank;
  return rank % 2 == 0 && rank <= 4 ? rank / 2 : -1;
}

std::vector<std::int64_t> my_ids() {
  const int rank = world_rank();
  if (holder_position() >= 0) return {500 + rank, shared_id, 600 + rank};
  return {900, 700 + rank};  // ranks 1 and 3 at P = 5 share id 900
}

class CopyConsistencyByHand : public ::testing::TestWithParam<gsr::Method> {
protected:
  void SetUp() override { ASSERT_TRUE(world_size() == 3 || world_size() == 5) << "written for P = 3 or 5"; }
};

template <class T>
void run(gsr::Handle& h, const std::array<double, 3>& by_holder, bool nonblocking, const std::string& label) {
  const int pos = holder_position();
  std::vector<T> sum(my_ids().size(), T(1)), zeros(my_ids().size(), T(0));
  if (pos >= 0) {
    sum[1] = static_cast<T>(by_holder[static_cast<std::size_t>(pos)]);
    zeros[1] = std::signbit(by_holder[static_cast<std::size_t>(pos)]) ? T(-0.0) : T(0.0);
  }
  if (nonblocking) {
    gsr::Request a = h.start(std::span<T>(sum), Op::add);
    gsr::Request b = h.start(std::span<T>(zeros), Op::min);
    b.wait();
    a.wait();
  } else {
    h.apply(std::span<T>(sum), Op::add);
    h.apply(std::span<T>(zeros), Op::min);
  }
  if (pos < 0) {
    EXPECT_EQ(sum[0], T(2)) << label;  // id 900: ranks 1 and 3 hold 1 each
    EXPECT_EQ(sum[1], T(1)) << label;  // held by this rank alone: untouched
    return;
  }
  const T want = by_holder[2] == 1.0 ? T(1) : T(0);
  EXPECT_TRUE(gsr_test::same_bits(sum[1], want))
      << label << ": holder " << pos << " got " << sum[1] << ", expected " << want;
  EXPECT_EQ(sum[0], T(1)) << label;
  EXPECT_EQ(std::signbit(zeros[1]), std::signbit(by_holder[0])) << label << ": min of signed zeros, holder " << pos;
}

TEST_P(CopyConsistencyByHand, EveryAssignmentBlockingAndNonBlocking) {
  gsr::Handle h(my_ids(), MPI_COMM_WORLD, methods_test::with_method(GetParam()));
  std::array<double, 3> values = {-1e16, 1.0, 1e16};
  do {
    // The zeros' signs follow the big values' signs; the 1 gets +0.
    const std::string label = std::string(gsr::to_string(GetParam())) + " P=" + std::to_string(world_size()) +
                              " holders get (" + methods_test::show(values[0]) + ", " + methods_test::show(values[1]) +
                              ", " + methods_test::show(values[2]) + ")";
    run<double>(h, values, false, label + " double");
    run<double>(h, values, true, label + " double start/wait");
    run<float>(h, values, false, label + " float");
    run<float>(h, values, true, label + " float start/wait");
  } while (std::next_permutation(values.begin(), values.end()));
}

INSTANTIATE_TEST_SUITE_P(Methods, CopyConsistencyByHand, ::testing::ValuesIn(gsr::registered_methods()),
                         methods_test::method_name);

}  // namespace
