// The same misuse gives the same error whatever the exchange method (docs/errors.md,
// "Errors found during a call"): for each scenario every rank gets the same code and the
// same message from every method — pairwise, crystal_router, allreduce and neighbor — (up
// to the handle's number), as the catalogue describes it, naming the rank the catalogue
// says. Every rank holds ids 1 and 2, so every method hears from every rank. Run at P = 2
// and 3.
#include "catalogue.hpp"

#include <gsr/handle.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <functional>
#include <regex>
#include <string>
#include <vector>

namespace {

using gsr::Domain;
using gsr::Op;
using gsr::Transpose;

int rank() { return gsr_errors::world_rank_of(); }
int ranks() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

std::vector<std::int64_t> my_ids() { return {1, 2, 10 + rank()}; }

struct Outcome {
  int code = 0;  // 0: the call completed
  std::string message;
};

/// Runs `call` on a handle of `method`; the message with "handle #N" made "handle #*".
Outcome run(gsr::Method method, const std::function<void(gsr::Handle&)>& call) {
  gsr::SetupOptions options;
  options.method = method;
  gsr::Handle h(my_ids(), MPI_COMM_WORLD, options);
  Outcome out;
  try {
    call(h);
  } catch (const gsr::Error& e) {
    out.code = static_cast<int>(e.code());
    out.message = std::regex_replace(e.what(), std::regex("handle #[0-9]+"), "handle #*");
  }
  return out;
}

/// One misuse: what each rank does, and which entry each rank must get with which rank
/// named in its message ("" for an argument error, reported by the rank itself).
struct Scenario {
  std::string name;
  std::function<void(gsr::Handle&)> call;
  std::function<std::string()> entry;       // the entry this rank gets
  std::function<std::string()> named_rank;  // "rank R " that its message must contain, or ""
};

void expect_uniform(const Scenario& s) {
  SCOPED_TRACE(s.name);
  std::vector<Outcome> outcomes;
  for (gsr::Method method : gsr::registered_methods()) {
    outcomes.push_back(run(method, s.call));
    const std::string what = s.name + " with " + std::string(gsr::to_string(method));
    gsr_errors::expect_matches(s.entry(), outcomes.back().code, outcomes.back().message, what);
    if (!s.named_rank().empty())
      EXPECT_NE(outcomes.back().message.find(s.named_rank()), std::string::npos)
          << what << " on rank " << rank() << ": \"" << outcomes.back().message << "\" does not name "
          << s.named_rank();
  }
  for (std::size_t m = 1; m < outcomes.size(); ++m) {
    EXPECT_EQ(outcomes[m].code, outcomes[0].code)
        << s.name << " on rank " << rank() << ": " << gsr::to_string(gsr::registered_methods()[m]) << " vs "
        << gsr::to_string(gsr::registered_methods()[0]);
    EXPECT_EQ(outcomes[m].message, outcomes[0].message)
        << s.name << " on rank " << rank() << ": " << gsr::to_string(gsr::registered_methods()[m]) << " vs "
        << gsr::to_string(gsr::registered_methods()[0]);
  }
}

std::string rank_text(int r) { return "rank " + std::to_string(r) + " "; }

/// The ranks in `bad` pass bpr on doubles, the others add: E-ARG-BPR on the bad ranks,
/// E-CALL-REMOTE-ARGS naming the lowest bad rank on the others.
Scenario rejected_by(std::vector<int> bad) {
  auto is_bad = [bad] { return std::find(bad.begin(), bad.end(), rank()) != bad.end(); };
  std::string name = "bpr on rank(s)";
  for (int r : bad) name += " " + std::to_string(r);
  return {name,
          [is_bad](gsr::Handle& h) {
            std::vector<double> v = {1.0, 2.0, 3.0};
            h.apply(std::span<double>(v), is_bad() ? Op::bpr : Op::add);
          },
          [is_bad] { return std::string(is_bad() ? "E-ARG-BPR" : "E-CALL-REMOTE-ARGS"); },
          [is_bad, bad] { return is_bad() ? std::string() : rank_text(bad.front()); }};
}

/// Rank `odd` makes another call (`odd_call`) than the others (`call`): E-CALL-MISMATCH
/// everywhere, the odd rank naming the lowest other rank, the others naming it.
Scenario disagreeing(const std::string& name, int odd, std::function<void(gsr::Handle&)> odd_call,
                     std::function<void(gsr::Handle&)> call) {
  return {name + " on rank " + std::to_string(odd), [=](gsr::Handle& h) { rank() == odd ? odd_call(h) : call(h); },
          [] { return std::string("E-CALL-MISMATCH"); },
          [odd] { return rank_text(rank() == odd ? (odd == 0 ? 1 : 0) : odd); }};
}

void add_doubles(gsr::Handle& h, Op op) {
  std::vector<double> v = {1.0, 2.0, 3.0};
  h.apply(std::span<double>(v), op);
}

TEST(UniformMessages, AnotherRankRejectsItsArguments) {
  expect_uniform(rejected_by({ranks() - 1}));
  expect_uniform(rejected_by({0}));
  if (ranks() >= 3) expect_uniform(rejected_by({1, 2}));
}

TEST(UniformMessages, AnUnknownDomainCodeIsRejectedAlike) {
  Scenario s{"dom 9 on rank 0",
             [](gsr::Handle& h) {
               std::vector<double> v = {1.0, 2.0, 3.0};
               h.apply_vec(v.data(), v.size(), 1, rank() == 0 ? static_cast<Domain>(9) : Domain::float64, Op::add,
                           Transpose::no);
             },
             [] { return std::string(rank() == 0 ? "E-ARG-DOM" : "E-CALL-REMOTE-ARGS"); },
             [] { return rank() == 0 ? std::string() : rank_text(0); }};
  expect_uniform(s);
}

TEST(UniformMessages, RanksCallWithAnotherOp) {
  for (int odd : {ranks() - 1, 0})
    expect_uniform(disagreeing(
        "op max", odd, [](gsr::Handle& h) { add_doubles(h, Op::max); },
        [](gsr::Handle& h) { add_doubles(h, Op::add); }));
}

TEST(UniformMessages, RanksCallWithAnotherDomainOrK) {
  const int middle = ranks() / 2;
  expect_uniform(disagreeing(
      "float", middle,
      [](gsr::Handle& h) {
        std::vector<float> f = {1.0f, 2.0f, 3.0f};
        h.apply(std::span<float>(f), Op::add);
      },
      [](gsr::Handle& h) { add_doubles(h, Op::add); }));
  expect_uniform(disagreeing(
      "k = 2", 0,
      [](gsr::Handle& h) {
        std::vector<double> v(6, 1.0);
        h.apply_vec(std::span<double>(v), 2, Op::add);
      },
      [](gsr::Handle& h) {
        std::vector<double> v(9, 1.0);
        h.apply_vec(std::span<double>(v), 3, Op::add);
      }));
}

}  // namespace
