// The error catalogue (docs/errors.md), entry by entry: each test provokes the errors it
// names, and checks on every rank the code and key words the catalogue gives, which rank
// gets which entry, and what became of the caller's data (argument errors: untouched;
// errors found during a call: only the groups a rank holds alone are done). Run at P = 2
// and 3 (tests/errors/CMakeLists.txt).
#include "catalogue.hpp"

#include <gsr/gs.h>
#include <gsr/handle.hpp>
#include <gsr/mesh.h>
#include <gsr/mesh.hpp>

#include "bad_meshes.hpp"
#include "io/files.hpp"
#include "scratch_dir.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace {

using gsr::Domain;
using gsr::Op;
using gsr::Transpose;
using gsr_errors::expect_c_entry;
using gsr_errors::expect_entry;

int rank() { return gsr_errors::world_rank_of(); }
int ranks() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}
int last() { return ranks() - 1; }

/// Ids 1 and 2 are held by every rank; 10 + rank twice, so each rank has a group of its own.
std::vector<std::int64_t> my_ids() { return {1, 2, 10 + rank(), 10 + rank()}; }
std::vector<double> my_values() { return {1.0 + rank(), 2.0 * (rank() + 1), 3.0, 4.0}; }
/// The same ids as the C interface's slong (whichever 64-bit type that is).
std::vector<slong> my_c_ids() {
  const std::vector<std::int64_t> ids = my_ids();
  return {ids.begin(), ids.end()};
}

gsr::SetupOptions pairwise() {
  gsr::SetupOptions o;
  o.method = gsr::Method::pairwise;
  return o;
}

/// The sum gs gives on my_values (by the rule: a group's entries all get the group's sum).
std::vector<double> summed() {
  double first = 0, second = 0;
  for (int q = 0; q < ranks(); ++q) {
    first += 1.0 + q;
    second += 2.0 * (q + 1);
  }
  return {first, second, 7.0, 7.0};
}

/// After an error found during the exchange: the rank's own group holds its result
/// (`own`), the shared entries their input.
void expect_local_groups_done(const std::vector<double>& v, double own, const std::string& what) {
  const std::vector<double> input = my_values();
  EXPECT_EQ(v[0], input[0]) << what << ": a shared entry was written on rank " << rank();
  EXPECT_EQ(v[1], input[1]) << what << ": a shared entry was written on rank " << rank();
  EXPECT_EQ(v[2], own) << what << ": the rank's own group is not done on rank " << rank();
  EXPECT_EQ(v[3], own) << what << ": the rank's own group is not done on rank " << rank();
}

void expect_still_works(gsr::Handle& h) {
  std::vector<double> v = my_values();
  h.apply(std::span<double>(v), Op::add);
  EXPECT_EQ(v, summed()) << "the handle no longer works after an error";
}

/// Sets an environment variable for the scope (every rank that constructs it).
class ScopedEnv {
public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }

private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// ---- arguments of a call ----------------------------------------------------------------

// Every rank passes the same bad argument: each gets the entry, the data stay as they were.
TEST(CatalogueArguments, EveryRankPassesTheSameBadArgument) {
  gsr::Handle h(my_ids(), MPI_COMM_WORLD, pairwise());
  std::vector<double> v = my_values();
  const std::vector<double> input = my_values();
  expect_entry(
      "E-ARG-DOM", [&] { h.apply_vec(v.data(), v.size(), 1, static_cast<Domain>(9), Op::add, Transpose::no); },
      "domain code 9");
  expect_entry(
      "E-ARG-OP", [&] { h.apply(std::span<double>(v), static_cast<Op>(17)); }, "op code 17");
  expect_entry(
      "E-ARG-BPR", [&] { h.apply(std::span<double>(v), Op::bpr); }, "bpr on double");
  expect_entry(
      "E-ARG-TRANSPOSE", [&] { h.apply(std::span<double>(v), Op::add, static_cast<Transpose>(2)); }, "transpose 2");
  expect_entry(
      "E-ARG-K-ZERO", [&] { h.apply_vec(v.data(), 0, 0, Domain::float64, Op::add, Transpose::no); }, "k = 0");
  const std::size_t huge_k = std::size_t(1) << 32;
  expect_entry(
      "E-ARG-K-TOO-LARGE",
      [&] { h.apply_vec(v.data(), h.size() * huge_k, huge_k, Domain::float64, Op::add, Transpose::no); }, "k = 2^32");
  expect_entry(
      "E-ARG-NULL-DATA",
      [&] { h.apply_vec(static_cast<void*>(nullptr), v.size(), 1, Domain::float64, Op::add, Transpose::no); },
      "NULL data");
  expect_entry(
      "E-ARG-NULL-LIST",
      [&] { h.apply_many(static_cast<void* const*>(nullptr), 2, Domain::float64, Op::add, Transpose::no); },
      "NULL pointer list");
  std::vector<double> w = my_values();
  double* arrays[2] = {w.data(), nullptr};
  expect_entry(
      "E-ARG-NULL-ARRAY", [&] { h.apply_many(std::span<double* const>(arrays, 2), Op::add); }, "second array NULL");
  expect_entry(
      "E-ARG-LENGTH", [&] { h.apply(std::span<double>(v.data(), v.size() - 1), Op::add); }, "length n - 1");
  EXPECT_EQ(v, input) << "a rejected call changed the data";
  EXPECT_EQ(w, input) << "a rejected many call changed its first array";
  expect_still_works(h);
}

class CatalogueCApi : public ::testing::Test {
protected:
  void SetUp() override {
    comm_init(&comm, MPI_COMM_WORLD);
    gsr_set_error_mode(GSR_ERRORS_RETURN);
    gsr_clear_error();
    h = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm, 0, gs_pairwise, 0);
    ASSERT_NE(h, nullptr) << gsr_last_error_message();
  }
  void TearDown() override {
    if (h) gs_free(h);
    gsr_set_error_mode(GSR_ERRORS_ABORT);
    comm_free(&comm);
  }
  struct comm comm;
  std::vector<slong> ids = my_c_ids();
  gs_data* h = nullptr;
};

// Every rank passes n = UINT_MAX with a short array of long long ids: refused by its count
// before a single id is read or copied.
TEST_F(CatalogueCApi, TooManyIdsThroughTheCInterface) {
  EXPECT_EQ(gs_setup(ids.data(), UINT_MAX, &comm, 0, gs_auto, 0), nullptr);
  expect_c_entry("E-SETUP-TOO-MANY-IDS", "gs_setup", "gs_setup n = UINT_MAX");
}

TEST_F(CatalogueCApi, ArgumentsThroughTheCInterface) {
  std::vector<double> v = my_values();
  const std::vector<double> input = v;
  gs(v.data(), static_cast<gs_dom>(7), gs_add, 0, h, nullptr);
  expect_c_entry("E-ARG-DOM", "gs", "gs dom 7");
  void* arrays[2] = {v.data(), nullptr};
  gs_many(arrays, 1, gs_double, static_cast<gs_op>(9), 0, h, nullptr);
  expect_c_entry("E-ARG-OP", "gs_many", "gs_many op 9");
  gs(v.data(), gs_double, gs_bpr, 0, h, nullptr);
  expect_c_entry("E-ARG-BPR", "gs", "gs bpr double");
  gs_vec(v.data(), 0, gs_double, gs_add, 0, h, nullptr);
  expect_c_entry("E-ARG-K-ZERO", "gs_vec", "gs_vec k = 0");
  gs(nullptr, gs_double, gs_add, 0, h, nullptr);
  expect_c_entry("E-ARG-NULL-DATA", "gs", "gs u = NULL");
  gs_many(nullptr, 2, gs_double, gs_add, 0, h, nullptr);
  expect_c_entry("E-ARG-NULL-LIST", "gs_many", "gs_many u = NULL");
  gs_many(arrays, 2, gs_double, gs_add, 0, h, nullptr);
  expect_c_entry("E-ARG-NULL-ARRAY", "gs_many", "gs_many u[1] = NULL");
  // Every rank passes NULL, so no rank waits for this call.
  igs(v.data(), gs_double, gs_add, 0, h, nullptr, nullptr);
  expect_c_entry("E-ARG-NULL-REQUEST", "igs", "igs request pointer NULL");
  EXPECT_EQ(v, input) << "a rejected call changed the data";
  gs(v.data(), gs_double, gs_add, 0, h, nullptr);
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
  EXPECT_EQ(v, summed());
}

TEST_F(CatalogueCApi, HandlesAndRequests) {
  std::vector<double> v = my_values();
  const std::vector<double> input = v;
  gs(v.data(), gs_double, gs_add, 0, nullptr, nullptr);
  expect_c_entry("E-C-NULL-HANDLE", "gs", "NULL handle");
  gs(v.data(), gs_double, gs_add, 0, reinterpret_cast<gs_data*>(std::uintptr_t{8}), nullptr);
  expect_c_entry("E-C-FOREIGN-HANDLE", "gs", "a pointer gs_setup never returned");
  gs_data* freed = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm, 0, gs_pairwise, 0);
  ASSERT_NE(freed, nullptr);
  gs_free(freed);
  gs(v.data(), gs_double, gs_add, 0, freed, nullptr);
  expect_c_entry("E-C-FREED-HANDLE", "gs", "gs after gs_free");
  gs_wait(12345);
  expect_c_entry("E-C-WAIT-UNKNOWN", "gs_wait", "unknown request");
  EXPECT_EQ(v, input) << "a rejected call changed the data";

  int request = -1;
  igs(v.data(), gs_double, gs_add, 0, h, nullptr, &request);
  ASSERT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
  gs_free(h);
  expect_c_entry("E-C-FREE-BUSY", "gs_free", "gs_free with a request in flight");
  gs_wait(request);
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
  EXPECT_EQ(v, summed()) << "the request in flight did not complete after the refused gs_free";
  gs_wait(request);
  expect_c_entry("E-C-WAIT-UNKNOWN", "gs_wait", "a request waited for twice");
}

// The 4,097th request in flight is completed, then refused. No rank shares ids here, so the
// calls need no messages; each rank's two entries form one group of its own.
TEST(CatalogueCLimits, RequestLimit) {
  struct comm c;
  comm_init(&c, MPI_COMM_WORLD);
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  const std::vector<slong> own = {100 + rank(), 100 + rank()};
  gs_data* h = gs_setup(own.data(), 2, &c, 0, gs_pairwise, 0);
  ASSERT_NE(h, nullptr) << gsr_last_error_message();
  constexpr int limit = 4096;
  std::vector<std::array<double, 2>> data(limit + 1, std::array<double, 2>{1.0, 2.0});
  std::vector<int> requests(limit + 1, -1);
  for (int i = 0; i < limit; ++i) igs(data[i].data(), gs_double, gs_add, 0, h, nullptr, &requests[i]);
  ASSERT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
  igs(data[limit].data(), gs_double, gs_add, 0, h, nullptr, &requests[limit]);
  expect_c_entry("E-C-REQUEST-LIMIT", "igs", "request 4097");
  EXPECT_EQ(data[limit][0], 3.0) << "the refused request was not completed";
  EXPECT_EQ(data[limit][1], 3.0) << "the refused request was not completed";
  for (int i = 0; i < limit; ++i) gs_wait(requests[i]);
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
  gs_free(h);
  gsr_set_error_mode(GSR_ERRORS_ABORT);
  comm_free(&c);
}

// ---- errors found during a call -----------------------------------------------------------

// The last rank passes bpr on doubles: it gets E-ARG-BPR with its data untouched; the others
// E-CALL-REMOTE-ARGS naming it, with their own group done and shared entries untouched.
TEST(CatalogueCalls, AnotherRankRejectsItsArguments) {
  gsr::Handle h(my_ids(), MPI_COMM_WORLD, pairwise());
  std::vector<double> v = my_values();
  if (rank() == last()) {
    expect_entry(
        "E-ARG-BPR", [&] { h.apply(std::span<double>(v), Op::bpr); }, "bpr on the last rank");
    EXPECT_EQ(v, my_values()) << "the rejecting rank's data changed";
  } else {
    const std::string message = expect_entry(
        "E-CALL-REMOTE-ARGS", [&] { h.apply(std::span<double>(v), Op::add); }, "add beside bpr");
    EXPECT_NE(message.find("rank " + std::to_string(last()) + " "), std::string::npos) << message;
    expect_local_groups_done(v, 7.0, "E-CALL-REMOTE-ARGS");
  }
  expect_still_works(h);
}

// The last rank calls max, the others add: every rank (all share ids) gets E-CALL-MISMATCH,
// the odd rank naming rank 0, the others the odd rank.
TEST(CatalogueCalls, RanksCallDifferently) {
  gsr::Handle h(my_ids(), MPI_COMM_WORLD, pairwise());
  std::vector<double> v = my_values();
  const bool odd = rank() == last();
  const std::string message = expect_entry(
      "E-CALL-MISMATCH", [&] { h.apply(std::span<double>(v), odd ? Op::max : Op::add); }, "max on the last rank");
  const int named = odd ? 0 : last();
  EXPECT_NE(message.find("rank " + std::to_string(named) + " called with"), std::string::npos) << message;
  expect_local_groups_done(v, odd ? 4.0 : 7.0, "E-CALL-MISMATCH");
  expect_still_works(h);
}

// Every rank but 0 frees the handle at once; rank 0's call learns it from their free
// notices (E-CALL-PEER-FREED), and its handle refuses further calls (E-STATE-GAVE-UP).
TEST(CatalogueCalls, AnotherRankFreedTheHandle) {
  std::vector<double> v = my_values();
  {
    gsr::Handle h(my_ids(), MPI_COMM_WORLD, pairwise());
    if (rank() == 0) {
      const std::string message = expect_entry(
          "E-CALL-PEER-FREED", [&] { h.apply(std::span<double>(v), Op::add); }, "peers freed");
      EXPECT_NE(message.find("after 0 calls"), std::string::npos) << message;
      expect_local_groups_done(v, 7.0, "E-CALL-PEER-FREED");
      std::vector<double> w = my_values();
      expect_entry(
          "E-STATE-GAVE-UP", [&] { h.apply(std::span<double>(w), Op::add); }, "a call after peer freed");
      EXPECT_EQ(w, my_values()) << "a refused call changed the data";
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// A timeout of 1 s: rank 0 starts two calls that no other rank makes. The first it waits for
// times out; the second was given up with it; a third is refused.
TEST(CatalogueCalls, TimeoutAndTheHandleAfterIt) {
  std::vector<double> first = my_values(), second = my_values(), third = my_values();
  {
    gsr::SetupOptions options = pairwise();
    options.messages.timeout = 1;
    gsr::Handle h(my_ids(), MPI_COMM_WORLD, options);
    if (rank() == 0) {
      gsr::Request a = h.start(std::span<double>(first), Op::add);
      gsr::Request b = h.start(std::span<double>(second), Op::add);
      const std::string message = expect_entry(
          "E-CALL-TIMEOUT", [&] { a.wait(); }, "nobody else calls");
      EXPECT_NE(message.find("GSR_TIMEOUT = 1 s"), std::string::npos) << message;
      expect_local_groups_done(first, 7.0, "E-CALL-TIMEOUT");
      expect_entry(
          "E-STATE-GIVEN-UP", [&] { b.wait(); }, "the other request in flight");
      expect_local_groups_done(second, 7.0, "E-STATE-GIVEN-UP");
      expect_entry(
          "E-STATE-GAVE-UP", [&] { h.apply(std::span<double>(third), Op::add); }, "a call after a timeout");
      EXPECT_EQ(third, my_values()) << "a refused call changed the data";
    }
    MPI_Barrier(MPI_COMM_WORLD);  // the others keep the handle until rank 0 gave up
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// ---- handles and requests -----------------------------------------------------------------

TEST(CatalogueState, MovedFromHandleAndRequests) {
  gsr::Handle h(my_ids(), MPI_COMM_WORLD, pairwise());
  gsr::Handle moved = std::move(h);
  std::vector<double> v = my_values();
  expect_entry(
      "E-STATE-MOVED", [&] { h.apply(std::span<double>(v), Op::add); }, "apply on a moved-from handle");
  EXPECT_EQ(v, my_values());
  gsr::Request request = moved.start(std::span<double>(v), Op::add);
  request.wait();
  EXPECT_EQ(v, summed());
  expect_entry(
      "E-STATE-NOT-PENDING", [&] { request.wait(); }, "a second wait");
  gsr::Request never;
  expect_entry(
      "E-STATE-NOT-PENDING", [&] { never.wait(); }, "wait on a default request");
}

// 8,191 requests in flight, then one more. No rank shares ids, so nothing travels.
TEST(CatalogueState, TooManyRequestsInFlight) {
  gsr::Handle h(std::vector<std::int64_t>{100 + rank(), 100 + rank()}, MPI_COMM_WORLD, pairwise());
  constexpr std::size_t limit = 8191;  // CallTags::span - 1
  std::vector<std::array<double, 2>> data(limit + 1, std::array<double, 2>{1.0, 2.0});
  std::vector<gsr::Request> requests;
  requests.reserve(limit);
  for (std::size_t i = 0; i < limit; ++i) requests.push_back(h.start(std::span<double>(data[i]), Op::add));
  expect_entry(
      "E-STATE-TOO-MANY-REQUESTS", [&] { (void)h.start(std::span<double>(data[limit]), Op::add); }, "request 8192");
  EXPECT_EQ(data[limit][0], 1.0) << "the refused call changed its data";
  EXPECT_EQ(data[limit][1], 2.0) << "the refused call changed its data";
  for (gsr::Request& r : requests) r.wait();
  EXPECT_EQ(data[0][0], 3.0);
}

// ---- setup --------------------------------------------------------------------------------

TEST(CatalogueSetup, CommunicatorArguments) {
  const std::vector<std::int64_t> ids = my_ids();
  expect_entry(
      "E-SETUP-COMM-NULL", [&] { gsr::Handle h(ids, MPI_COMM_NULL); }, "setup on MPI_COMM_NULL");
  std::vector<std::int64_t> unique_ids = my_ids();
  expect_entry(
      "E-SETUP-COMM-NULL", [&] { gsr::make_unique(unique_ids, MPI_COMM_NULL); }, "make_unique on NULL");
  EXPECT_EQ(unique_ids, my_ids());

  gsr_set_error_mode(GSR_ERRORS_RETURN);
  struct comm c;
  comm_init(&c, MPI_COMM_NULL);
  expect_c_entry("E-SETUP-COMM-NULL", "comm_init", "comm_init on MPI_COMM_NULL");
  comm_init(nullptr, MPI_COMM_WORLD);
  expect_c_entry("E-C-NULL-COMM-STRUCT", "comm_init", "comm_init(NULL)");
  std::vector<slong> c_ids = my_c_ids();
  EXPECT_EQ(gs_setup(c_ids.data(), static_cast<uint>(c_ids.size()), nullptr, 0, gs_pairwise, 0), nullptr);
  expect_c_entry("E-C-NULL-COMM-STRUCT", "gs_setup", "gs_setup(comm = NULL)");
  gs_unique(c_ids.data(), static_cast<uint>(c_ids.size()), nullptr);
  expect_c_entry("E-C-NULL-COMM-STRUCT", "gs_unique", "gs_unique(comm = NULL)");
  EXPECT_EQ(c_ids, my_c_ids());
  gsr_set_error_mode(GSR_ERRORS_ABORT);
}

// One rank's bad ids fail setup (and make_unique) on every rank: E-SETUP-REMOTE elsewhere.
TEST(CatalogueSetup, OneRanksIdsFailEveryRank) {
  const std::vector<std::int64_t> ids = my_ids();
  const bool odd = rank() == last();
  auto expect_remote_elsewhere = [&](const std::string& id, auto&& call, const std::string& what) {
    if (odd) {
      expect_entry(id, call, what);
    } else {
      const std::string message = expect_entry("E-SETUP-REMOTE", call, what + " on another rank");
      EXPECT_NE(message.find("rank " + std::to_string(last()) + " failed: "), std::string::npos) << message;
      EXPECT_NE(message.find(gsr_errors::entry(id).key_words.front()), std::string::npos)
          << "E-SETUP-REMOTE does not quote " << id << ": " << message;
    }
  };
  expect_remote_elsewhere(
      "E-SETUP-NULL-IDS",
      [&] { gsr::Handle h(std::span<const std::int64_t>(odd ? nullptr : ids.data(), ids.size()), MPI_COMM_WORLD); },
      "setup with NULL ids");
  std::vector<std::int64_t> unique_ids = my_ids();
  expect_remote_elsewhere(
      "E-SETUP-NULL-IDS",
      [&] {
        gsr::make_unique(std::span<std::int64_t>(odd ? nullptr : unique_ids.data(), unique_ids.size()), MPI_COMM_WORLD);
      },
      "make_unique with NULL ids");
  EXPECT_EQ(unique_ids, my_ids()) << "a failed make_unique changed the ids";
  std::vector<std::int64_t> with_min = my_ids();
  if (odd) with_min[1] = std::numeric_limits<std::int64_t>::min();
  const std::vector<std::int64_t> with_min_input = with_min;
  expect_remote_elsewhere(
      "E-SETUP-ID-MIN", [&] { gsr::make_unique(with_min, MPI_COMM_WORLD); }, "id -2^63");
  EXPECT_EQ(with_min, with_min_input) << "a failed make_unique changed the ids";
  {
    const ScopedEnv method("GSR_METHOD", odd ? "fastest" : "");
    expect_remote_elsewhere(
        "E-SETUP-GSR-METHOD", [&] { gsr::Handle h(ids, MPI_COMM_WORLD); }, "GSR_METHOD=fastest");
  }
  {
    const ScopedEnv method("GSR_METHOD", odd ? "pairwise,crystal_router:64,allreduce:32" : "");
    expect_remote_elsewhere(
        "E-SETUP-GSR-METHOD-TABLE", [&] { gsr::Handle h(ids, MPI_COMM_WORLD); }, "GSR_METHOD with sizes not ascending");
  }

  // n = 2^32 - 1 is refused before a single id is read (the span is longer than the array).
  const std::size_t n = odd ? std::numeric_limits<std::uint32_t>::max() : ids.size();
  expect_remote_elsewhere(
      "E-SETUP-TOO-MANY-IDS", [&] { gsr::Handle h(std::span<const std::int64_t>(ids.data(), n), MPI_COMM_WORLD); },
      "n = 2^32 - 1");
}

TEST(CatalogueSetup, OptionsAndEnvironment) {
  const std::vector<std::int64_t> ids = my_ids();
  gsr::SetupOptions bad;
  bad.method = static_cast<gsr::Method>(9);
  expect_entry(
      "E-SETUP-METHOD-CODE", [&] { gsr::Handle h(ids, MPI_COMM_WORLD, bad); }, "method code 9");
  {
    const ScopedEnv timeout("GSR_TIMEOUT", "soon");
    expect_entry(
        "E-SETUP-GSR-TIMEOUT", [&] { gsr::Handle h(ids, MPI_COMM_WORLD); }, "GSR_TIMEOUT=soon");
  }
  {
    const ScopedEnv prefetch("GSR_PREFETCH_FROM_BYTES", "lots");
    expect_entry(
        "E-SETUP-GSR-PREFETCH", [&] { gsr::Handle h(ids, MPI_COMM_WORLD); }, "GSR_PREFETCH_FROM_BYTES=lots");
  }
  {
    const ScopedEnv prefetch("GSR_PREFETCH_FROM_BYTES", "-1");
    expect_entry(
        "E-SETUP-GSR-PREFETCH", [&] { gsr::Handle h(ids, MPI_COMM_WORLD); }, "GSR_PREFETCH_FROM_BYTES=-1");
  }
  {
    const ScopedEnv quiet("GSR_QUIET", "yes");
    expect_entry(
        "E-SETUP-GSR-QUIET", [&] { gsr::Handle h(ids, MPI_COMM_WORLD); }, "GSR_QUIET=yes");
  }
  const bool odd = rank() == last();
  gsr::SetupOptions method = pairwise();
  if (odd) method.method = gsr::Method::allreduce;
  expect_entry(
      "E-SETUP-DISAGREE-METHOD", [&] { gsr::Handle h(ids, MPI_COMM_WORLD, method); }, "allreduce on the last rank");
  gsr::SetupOptions unique = pairwise();
  unique.unique = odd;
  expect_entry(
      "E-SETUP-DISAGREE-UNIQUE", [&] { gsr::Handle h(ids, MPI_COMM_WORLD, unique); }, "unique on the last rank");
}

// ---- MPI and internal errors --------------------------------------------------------------

// A communicator that has been freed: MPICH refuses it, gsr reports E-MPI (MPI_COMM_WORLD's
// and MPI_COMM_SELF's handlers return errors here, else MPICH would abort first). Using a
// freed handle is erroneous in MPI and only implementations that check handles can say so:
// Open MPI's handles are pointers, and it reads the freed memory (a crash, not an error).
TEST(CatalogueMpi, FreedCommunicator) {
#ifndef MPICH_VERSION
  GTEST_SKIP() << "this MPI does not check communicator handles; a freed one is undefined behaviour";
#endif
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const std::vector<std::int64_t> ids = my_ids();
  MPI_Comm gone = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_SELF, &gone);
  const MPI_Comm stale = gone;
  MPI_Comm_free(&gone);
  expect_entry(
      "E-MPI", [&] { gsr::Handle h(ids, stale); }, "setup on a freed communicator");
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  struct comm c;
  comm_init(&c, stale);
  expect_c_entry("E-MPI", "comm_init", "comm_init on a freed communicator");
  gsr_set_error_mode(GSR_ERRORS_ABORT);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

// E-INTERNAL cannot be provoked by any input (tests/transfer/one_rank_failures_test.cpp makes
// it on purpose); its code is the same in the catalogue, C++ and C.
TEST(CatalogueMpi, InternalErrorCode) {
  EXPECT_EQ(gsr_errors::code_value(gsr_errors::entry("E-INTERNAL").code), GSR_ERR_INTERNAL);
  EXPECT_EQ(static_cast<int>(gsr::ErrorCode::internal), GSR_ERR_INTERNAL);
  EXPECT_EQ(static_cast<int>(gsr::ErrorCode::timeout), GSR_ERR_TIMEOUT);
}

// ---- mesh files ---------------------------------------------------------------------------

TEST(CatalogueMesh, CLoaderArguments) {
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  gsr_mesh mesh;
  mesh.n = 42;
  EXPECT_EQ(gsr_mesh_load(nullptr, MPI_COMM_WORLD, GSR_MESH_BLOCKS, 1, &mesh), GSR_ERR_INVALID_ARGUMENT);
  expect_c_entry("E-MESH-ARG-NULL", "gsr_mesh_load", "path NULL");
  EXPECT_EQ(mesh.n, 0) << "the mesh struct is not cleared";
  EXPECT_EQ(mesh.ids, nullptr);
  gsr_mesh_load("x.h5", MPI_COMM_WORLD, GSR_MESH_BLOCKS, 1, nullptr);
  expect_c_entry("E-MESH-ARG-NULL", "gsr_mesh_load", "mesh NULL");
  gsr_mesh_load("x.h5", MPI_COMM_NULL, GSR_MESH_BLOCKS, 1, &mesh);
  expect_c_entry("E-MESH-ARG-COMM", "gsr_mesh_load", "MPI_COMM_NULL");
  gsr_mesh_load("x.h5", MPI_COMM_WORLD, 7, 1, &mesh);
  expect_c_entry("E-MESH-ARG-DISTRIBUTION", "gsr_mesh_load", "distribution 7");
  gsr_set_error_mode(GSR_ERRORS_ABORT);
}

class CatalogueFiles : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    dir_ = new gsr::testing::ScratchDir("gsr-error-catalogue");
    if (rank() == 0) {
      gsr::testing::write_bad_meshes(dir_->path());
      gsr::testing::write_huge_mesh(dir_->file("huge.h5"));
      gsr::testing::write_good_mesh(dir_->file("good.h5"));
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  /// Reads `name` (.h5 in the scratch folder), which must fail as entry `id` on every rank
  /// with the same message, naming the file.
  static void expect_read_fails(const std::string& id, const std::string& name, bool by_partition = false) {
    const std::string path = dir_->file(name + ".h5");
    gsr::ReadOptions options;
    if (by_partition) options.distribution = gsr::Distribution::partition;
    const std::string message = expect_entry(
        id, [&] { (void)gsr::read_mesh(path, MPI_COMM_WORLD, options); }, name);
    EXPECT_NE(message.find("file '" + path + "'"), std::string::npos) << id << ": " << message;
    expect_same_on_every_rank(id, message);
  }
  static void expect_same_on_every_rank(const std::string& id, const std::string& message) {
    std::vector<char> rank0(message.begin(), message.end());
    int length = static_cast<int>(rank0.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    rank0.resize(static_cast<std::size_t>(length));
    MPI_Bcast(rank0.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
    EXPECT_EQ(message, std::string(rank0.begin(), rank0.end())) << id << ": rank " << rank() << " differs from rank 0";
  }
  static gsr::testing::ScratchDir* dir_;
};

gsr::testing::ScratchDir* CatalogueFiles::dir_ = nullptr;

TEST_F(CatalogueFiles, ReadingBadFiles) {
  expect_read_fails("E-IO-OPEN", "missing");
  expect_read_fails("E-IO-NOT-HDF5", "not_hdf5");
  expect_read_fails("E-IO-NOT-HDF5", "empty");
  expect_read_fails("E-IO-DAMAGED", "truncated");
  expect_read_fails("E-IO-NOT-GSR", "wrong_format");
  expect_read_fails("E-IO-VERSION", "version_2");
  expect_read_fails("E-IO-ATTRIBUTE", "dim_4");
  expect_read_fails("E-IO-ATTRIBUTE", "no_version");
  expect_read_fails("E-IO-OBJECT", "no_global_ids");
  expect_read_fails("E-IO-OBJECT", "no_mesh_group");
  expect_read_fails("E-IO-OBJECT", "global_ids_float");
  expect_read_fails("E-IO-PARTITION", "partition_out_of_range", true);
  expect_read_fails("E-IO-DAMAGED", "huge");  // declares 2^40 elements, stores none
}

TEST_F(CatalogueFiles, RanksReadingDifferentFiles) {
  const std::string path = dir_->file(rank() == 0 ? "good.h5" : "other.h5");
  const std::string message = expect_entry(
      "E-IO-DISAGREE", [&] { (void)gsr::read_mesh(path, MPI_COMM_WORLD); }, "different paths");
  EXPECT_NE(message.find(path), std::string::npos) << message;
}

gsr::MeshLayout small_layout() {
  gsr::MeshLayout layout;
  layout.dim = 2;
  layout.order = 2;  // 9 nodes per element
  layout.elements = 2;
  return layout;
}

std::vector<std::int64_t> element_ids(std::int64_t elements) {
  std::vector<std::int64_t> ids(static_cast<std::size_t>(elements) * 9);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int64_t>(i) + 1;
  return ids;
}

// The one-process writer, on every rank with a file of its own.
TEST_F(CatalogueFiles, WritingWithMeshWriter) {
  const std::string mine = dir_->file("written_" + std::to_string(rank()));
  expect_entry(
      "E-IO-WRITE-CREATE", [&] { gsr::MeshWriter w(mine + "/no/such/dir/x.h5", small_layout()); }, "a missing folder");
  gsr::MeshLayout bad_dim = small_layout();
  bad_dim.dim = 4;
  expect_entry(
      "E-IO-WRITE-LAYOUT", [&] { gsr::MeshWriter w(mine + "_dim.h5", bad_dim); }, "dim 4");
  EXPECT_FALSE(std::filesystem::exists(mine + "_dim.h5")) << "a refused layout created the file";
  gsr::MeshLayout no_ranks = small_layout();
  no_ranks.partition = true;
  expect_entry(
      "E-IO-WRITE-PARTITION-RANKS", [&] { gsr::MeshWriter w(mine + "_ranks.h5", no_ranks); },
      "partition without ranks");

  const std::vector<std::int64_t> ids = element_ids(2);
  {
    gsr::MeshWriter w(mine + "_slab.h5", small_layout());
    expect_entry(
        "E-IO-WRITE-SLAB", [&] { w.write(std::span<const std::int64_t>(ids.data(), 5)); }, "5 ids");
    expect_entry(
        "E-IO-WRITE-SLAB", [&] { w.write(element_ids(3)); }, "3 elements of 2");
    w.write(std::span<const std::int64_t>(ids.data(), 9));  // still usable: element 0
    expect_entry(
        "E-IO-WRITE-INCOMPLETE", [&] { w.close(); }, "1 of 2 elements");
  }
  EXPECT_FALSE(std::filesystem::exists(mine + "_slab.h5")) << "an incomplete file appeared at its name";
  {
    gsr::MeshWriter w(mine + "_closed.h5", small_layout());
    w.write(ids);
    w.close();
    expect_entry(
        "E-IO-WRITE-CLOSED", [&] { w.write(ids); }, "write after close");
  }
  gsr::MeshLayout with_coordinates = small_layout();
  with_coordinates.coordinates = true;
  const std::vector<double> coordinates(ids.size() * 2, 0.5);
  {
    // A folder where the sidecar's temporary file would go: it cannot be written.
    const std::string path = mine + "_sidecar.h5";
    std::filesystem::create_directories(gsr::io::temporary_name(gsr::xdmf_path(path)));
    gsr::MeshWriter w(path, with_coordinates);
    w.write(ids, coordinates);
    expect_entry(
        "E-IO-XDMF", [&] { w.close(); }, "the sidecar's temporary is a folder");
    EXPECT_TRUE(std::filesystem::exists(path)) << "the mesh file itself is complete";
  }
  {
    // A folder at the sidecar's own name: the finished sidecar cannot be put in place.
    const std::string path = mine + "_taken.h5";
    std::filesystem::create_directories(gsr::xdmf_path(path) + "/in_the_way");
    gsr::MeshWriter w(path, with_coordinates);
    w.write(ids, coordinates);
    expect_entry(
        "E-IO-PUBLISH", [&] { w.close(); }, "the sidecar's name is a folder");
    EXPECT_TRUE(std::filesystem::is_directory(gsr::xdmf_path(path) + "/in_the_way")) << "what was there was lost";
  }
}

// The collective writer: one rank's bad part fails every rank alike.
TEST_F(CatalogueFiles, WritingCollectively) {
  const bool odd = rank() == last();
  gsr::Mesh mesh;
  mesh.info.dim = 2;
  mesh.info.order = 2;
  mesh.elements = {rank()};
  mesh.ids = element_ids(1);
  if (odd) mesh.ids.pop_back();
  const std::string path = dir_->file("collective.h5");
  const std::string message = expect_entry(
      "E-IO-WRITE-MESH", [&] { gsr::write_mesh(path, mesh, MPI_COMM_WORLD); }, "8 ids on the last rank");
  expect_same_on_every_rank("E-IO-WRITE-MESH", message);
  mesh.ids = element_ids(1);
  if (odd) mesh.info.order = 3;
  expect_entry(
      "E-IO-WRITE-DISAGREE", [&] { gsr::write_mesh(path, mesh, MPI_COMM_WORLD); }, "order 3 on the last rank");
}

}  // namespace
