// The one GoogleTest main for gsr's tests. Every rank runs every test; each rank records
// its own failures, rank 0 prints them all as "[rank r/P] file:line: message" after the
// run, and the process exits non-zero on every rank if any rank failed. Only rank 0 keeps
// GoogleTest's default printer so the output is readable.
#include "world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

class RankFailureCollector : public testing::EmptyTestEventListener {
public:
  // The name is taken here: inside OnTestPartResult GoogleTest holds the lock that
  // current_test_info() needs.
  void OnTestStart(const testing::TestInfo& info) override {
    current_ = std::string(info.test_suite_name()) + "." + info.name();
  }
  void OnTestEnd(const testing::TestInfo&) override { current_ = "(global)"; }

  void OnTestPartResult(const testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::string line = current_ + " ";
    line += result.file_name() ? result.file_name() : "?";
    line += ":" + std::to_string(result.line_number()) + ": " + result.message();
    failures_ += line + "\n";
  }
  const std::string& failures() const { return failures_; }

private:
  std::string current_ = "(global)";
  std::string failures_;
};

}  // namespace

// A test program that needs a thread level defines this (tests/threads); the others get
// plain MPI_Init.
extern "C" int gsr_test_thread_level() __attribute__((weak));

int main(int argc, char** argv) {
  if (gsr_test_thread_level) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, gsr_test_thread_level(), &provided);
    if (provided < gsr_test_thread_level()) {
      std::fprintf(stderr, "this MPI gives thread level %d, below the %d the test needs\n", provided,
                   gsr_test_thread_level());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  } else {
    MPI_Init(&argc, &argv);
  }
  const int rank = gsr_test::world_rank(), size = gsr_test::world_size();

  testing::InitGoogleTest(&argc, argv);
  auto& listeners = testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) delete listeners.Release(listeners.default_result_printer());
  auto* collector = new RankFailureCollector;
  listeners.Append(collector);

  const int local_status = RUN_ALL_TESTS();
  const std::string& mine = collector->failures();

  // Gather every rank's failure text on rank 0.
  int my_length = static_cast<int>(mine.size());
  std::vector<int> lengths(rank == 0 ? size : 0);
  MPI_Gather(&my_length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets;
  std::string all;
  if (rank == 0) {
    offsets.resize(size, 0);
    for (int r = 1; r < size; ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
    all.resize(static_cast<std::size_t>(offsets[size - 1] + lengths[size - 1]));
  }
  MPI_Gatherv(mine.data(), my_length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);

  int any_failed = 0;
  int failed_here = (local_status != 0 || !mine.empty()) ? 1 : 0;
  MPI_Allreduce(&failed_here, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      std::size_t begin = static_cast<std::size_t>(offsets[r]);
      std::size_t end = begin + static_cast<std::size_t>(lengths[r]);
      while (begin < end) {
        std::size_t nl = all.find('\n', begin);
        if (nl == std::string::npos || nl > end) nl = end;
        std::printf("[rank %d/%d] %s\n", r, size, all.substr(begin, nl - begin).c_str());
        begin = nl + 1;
      }
    }
    std::printf("%s on %d rank%s\n", any_failed ? "FAILED" : "PASSED", size, size == 1 ? "" : "s");
    std::fflush(stdout);
  }
  MPI_Finalize();
  return any_failed ? 1 : 0;
}
