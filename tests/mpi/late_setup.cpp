// A rank that comes late to a setup, or never comes, must cost the others GSR_TIMEOUT, not
// a hang, on every setup path (docs/errors.md, E-SETUP-TIMEOUT). Run at P = 2, rank 1 (or
// rank 0) the odd one out, with GSR_TIMEOUT=1; prints "late_setup: PASS" when every rank
// got the error it should; a hang is caught by ctest's TIMEOUT.
//   c-late:         rank 1 calls C gs_setup 2 s after rank 0. Rank 0 gives up in the first
//                   step; rank 1 completes that step (rank 0's half was posted) and must give
//                   up in the next instead of waiting there for ever.
//   cxx-late:       the same through gsr::Handle.
//   differing:      per-rank timeouts, 2 s on rank 0 and 1 s on rank 1; rank 0 comes 1.5 s
//                   late: rank 1 gives up first, rank 0 after the first step.
//   fortran-skip:   rank 1 skips gslib's Fortran gs_setup (gs_setup_): rank 0's own check
//                   agreement gives up.
//   fortran-late:   rank 1 calls gs_setup_ 2 s late: it passes the agreement (rank 0's half
//                   was posted) and must give up in comm_init's duplicate.
//   comm-init-skip: rank 1 skips comm_init: rank 0's duplicate gives up.
#include <gsr/gs.h>
#include <gsr/handle.hpp>

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern "C" void gs_setup_(sint* handle, const slong* id, const sint* n, const MPI_Fint* comm, const sint* np);

namespace {

int rank = 0;
bool passed = true;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  std::printf("late_setup: FAIL on rank %d: %s\n", rank, what.c_str());
  std::fflush(stdout);
  passed = false;
}

void pause(double seconds) { std::this_thread::sleep_for(std::chrono::duration<double>(seconds)); }

// The C interface's last error is a timeout, and its message says so.
void expect_c_timeout(const char* where) {
  const std::string message = gsr_last_error_message();
  expect(gsr_last_error() == GSR_ERR_TIMEOUT,
         std::string(where) + ": error " + std::to_string(gsr_last_error()) + " (\"" + message + "\"), not a timeout");
  expect(message.find("(GSR_TIMEOUT = ") != std::string::npos, std::string(where) + ": message \"" + message + "\"");
}

void expect_cxx_timeout(const std::vector<std::int64_t>& ids, MPI_Comm comm, const gsr::SetupOptions& options) {
  try {
    gsr::Handle handle(ids, comm, options);
    expect(false, "gsr::Handle was set up although a rank gave up");
  } catch (const gsr::Error& e) {
    expect(e.code() == gsr::ErrorCode::timeout, std::string("gsr::Handle: not a timeout: ") + e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int ranks = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::string mode = argc > 1 ? argv[1] : "";
  gsr_set_error_mode(GSR_ERRORS_RETURN);
  // The program's own duplicate: abandoned collectives stay there, not on MPI_COMM_WORLD.
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const std::vector<std::int64_t> ids{1, 2 + rank};
  expect(ranks == 2, "run at P = 2");

  if (mode == "c-late" || mode == "fortran-late") {
    if (mode == "c-late") {
      struct comm c;
      comm_init(&c, comm);  // both ranks at once: comm_init itself is not the subject here
      expect(gsr_last_error() == GSR_SUCCESS, "comm_init");
      if (rank == 1) pause(2.0);
      const slong id[2] = {ids[0], ids[1]};
      struct gs_data* h = gs_setup(id, 2, &c, 0, gs_auto, 0);
      expect(h == nullptr, "gs_setup returned a handle although a rank gave up");
      expect_c_timeout("gs_setup");
    } else {
      const slong id[2] = {ids[0], ids[1]};
      const sint n = 2, np = 2;
      const MPI_Fint fcomm = MPI_Comm_c2f(comm);
      sint handle = -7;
      if (rank == 1) pause(2.0);
      gs_setup_(&handle, id, &n, &fcomm, &np);
      expect_c_timeout("gs_setup_");
    }
  } else if (mode == "cxx-late") {
    if (rank == 1) pause(2.0);
    expect_cxx_timeout(ids, comm, {});
  } else if (mode == "differing") {
    gsr::SetupOptions options;
    options.messages.timeout = rank == 0 ? 2.0 : 1.0;
    if (rank == 0) pause(1.5);
    expect_cxx_timeout(ids, comm, options);
  } else if (mode == "fortran-skip") {
    if (rank == 0) {
      const slong id[2] = {ids[0], ids[1]};
      const sint n = 2, np = 2;
      const MPI_Fint fcomm = MPI_Comm_c2f(comm);
      sint handle = -7;
      gs_setup_(&handle, id, &n, &fcomm, &np);
      expect_c_timeout("gs_setup_");
    }
  } else if (mode == "comm-init-skip") {
    if (rank == 0) {
      struct comm c;
      c.c = MPI_COMM_WORLD;  // whatever was there: a failed comm_init must not leave it
      comm_init(&c, comm);
      expect_c_timeout("comm_init");
      expect(c.c == MPI_COMM_NULL, "comm_init failed but left a communicator in the struct");
    }
  } else {
    expect(false, "unknown mode '" + mode + "'");
  }

  // Every rank's verdict, on a communicator no abandoned collective is pending on.
  int all_passed = passed ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all_passed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) std::printf("late_setup: %s\n", all_passed ? "PASS" : "FAIL");
  std::fflush(stdout);
  MPI_Finalize();
  return all_passed ? 0 : 1;
}
