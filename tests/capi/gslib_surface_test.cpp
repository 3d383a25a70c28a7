// The parts of gslib's gather-scatter surface beyond the calls themselves: the handle
// pointer points at the handle's struct comm (codes read gsh->comm.c), pw_data_nmsg /
// pw_data_size give gslib's pairwise receive counts under every method, gs_hf2c maps a
// handle of gslib's Fortran entry points to its struct gs_data *, the gslib_-prefixed names
// are the same calls, and setup prints one summary line on rank 0 (none with GSR_QUIET=1).
#include "capi.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" {
// What a gslib build with Nek5000's prefixes declares (gslib's gs.h, GSLIB_PREFIX=gslib_).
struct gs_data* gslib_gs_setup(const slong* id, uint n, const struct comm* comm, int unique, gs_method method,
                               int verbose);
void gslib_gs(void* u, gs_dom dom, gs_op op, unsigned transpose, struct gs_data* gsh, buffer* buf);
void gslib_gs_free(struct gs_data* gsh);
void gslib_pw_data_nmsg(struct gs_data* gsh, int* n);
struct gs_data* gslib_gs_hf2c(const sint gsh);
// gslib's Fortran entry points, as gfortran calls them (libgsr_fortran).
void fgslib_gs_setup_(sint* handle, const slong* id, const sint* n, const MPI_Fint* comm, const sint* np);
void fgslib_gs_free_(const sint* handle);
void fgslib_gs_op_(const sint* handle, void* u, const sint* dom, const sint* op, const sint* transpose);
}

namespace {

using GslibSurface = gsr_test::CapiTest<>;

// gslib's Fortran codes (fortran/gsr.f90): dom 1 double, op 1 sum.
const sint fortran_double = 1, fortran_add = 1, no_transpose = 0;

// Ids on a ring of ranks: id 1 on every rank, id 100 + r shared with the next rank, and
// 1000 + r on this rank alone; the ids at `flag` negated.
std::vector<slong> ring_ids(uint rank, uint np, bool flag_shared_with_next) {
  const slong next = 100 + static_cast<slong>(rank);
  const slong previous = 100 + static_cast<slong>((rank + np - 1) % np);
  return {1, flag_shared_with_next ? -next : next, previous, 1000 + static_cast<slong>(rank)};
}

// What gslib's pairwise method receives on `rank` for ring_ids, derived by hand: from every
// other rank id 1; from the next rank also 100 + rank (it holds it as its previous,
// unflagged); from the previous rank also 100 + previous unless that rank flags it. At
// P = 2 both neighbours are the other rank; at P = 1 nothing is shared.
std::vector<int> expected_sizes(uint rank, uint np, bool flag_shared_with_next) {
  std::vector<int> sizes;
  for (uint p = 0; p < np; ++p) {
    if (p == rank) continue;
    int count = 1;
    if (p == (rank + 1) % np) ++count;
    if (p == (rank + np - 1) % np && !flag_shared_with_next) ++count;
    sizes.push_back(count);
  }
  return sizes;
}

TEST_F(GslibSurface, PairwiseStatisticsUnderEveryMethod) {
  for (const bool flagged : {false, true}) {
    for (const gs_method method : {gs_pairwise, gs_crystal_router, gs_all_reduce, gs_auto, gs_neighbor}) {
      ids = ring_ids(comm.id, comm.np, flagged);
      h = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm, 0, method, 0);
      ASSERT_NE(h, nullptr) << gsr_last_error_message();
      int nmsg = -1;
      pw_data_nmsg(h, &nmsg);
      const std::vector<int> want = expected_sizes(comm.id, comm.np, flagged);
      ASSERT_EQ(nmsg, static_cast<int>(want.size())) << "method " << method << ", flagged " << flagged;
      std::vector<int> sizes(want.size() + 1, -7);
      pw_data_size(h, sizes.data());
      EXPECT_EQ(sizes.back(), -7) << "pw_data_size wrote more than pw_data_nmsg counts";
      sizes.pop_back();
      EXPECT_EQ(sizes, want) << "method " << method << ", flagged " << flagged;
      gs_free(h);
      h = nullptr;
    }
  }
}

TEST_F(GslibSurface, HandlePointsAtItsComm) {
  set_up_shared_ids(gs_pairwise);
  const auto* view = reinterpret_cast<const struct comm*>(h);
  EXPECT_EQ(view->id, comm.id);
  EXPECT_EQ(view->np, comm.np);
  int same = MPI_UNEQUAL;
  MPI_Comm_compare(view->c, MPI_COMM_WORLD, &same);
  EXPECT_EQ(same, MPI_CONGRUENT) << "gsh->comm.c is the handle's duplicate of the caller's communicator";
  // A collective on it works (HYPRE's preconditioner in Nek5000 uses it so).
  int sum = 0, one = 1;
  EXPECT_EQ(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, view->c), MPI_SUCCESS);
  EXPECT_EQ(sum, static_cast<int>(comm.np));
}

TEST_F(GslibSurface, PrefixedNamesAreTheSameCalls) {
  ids = {1, 2, 10 + static_cast<slong>(comm.id)};
  h = gslib_gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm, 0, gs_crystal_router, 0);
  ASSERT_NE(h, nullptr) << gsr_last_error_message();
  std::vector<double> u = {1.0, 2.0, 3.0};
  gslib_gs(u.data(), gs_double, gs_add, 0, h, nullptr);
  EXPECT_EQ(u, (std::vector<double>{1.0 * comm.np, 2.0 * comm.np, 3.0}));
  int nmsg = -1;
  gslib_pw_data_nmsg(h, &nmsg);
  EXPECT_EQ(nmsg, static_cast<int>(comm.np) - 1);
  gslib_gs_free(h);
  h = nullptr;
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
}

TEST_F(GslibSurface, FortranHandleToC) {
  ids = {1, 2, 10 + static_cast<slong>(comm.id)};
  const sint n = 3, np = static_cast<sint>(comm.np);
  const MPI_Fint fcomm = MPI_Comm_c2f(MPI_COMM_WORLD);
  sint first = -1, second = -1;
  fgslib_gs_setup_(&first, ids.data(), &n, &fcomm, &np);
  fgslib_gs_setup_(&second, ids.data(), &n, &fcomm, &np);
  ASSERT_GE(first, 0);
  ASSERT_EQ(second, first + 1);
  struct gs_data* const c_first = gs_hf2c(first);
  struct gs_data* const c_second = gslib_gs_hf2c(second);
  ASSERT_NE(c_first, nullptr) << gsr_last_error_message();
  ASSERT_NE(c_second, nullptr);
  EXPECT_NE(c_first, c_second);
  std::vector<double> u = {1.0, 2.0, 3.0};
  gs(u.data(), gs_double, gs_max, 0, c_second, nullptr);
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
  EXPECT_EQ(u, (std::vector<double>{1.0, 2.0, 3.0}));
  fgslib_gs_free_(&first);
  EXPECT_EQ(gs_hf2c(first), nullptr) << "a freed Fortran handle maps to no handle";
  EXPECT_EQ(gsr_last_error(), GSR_ERR_STATE);
  gsr_clear_error();
  fgslib_gs_free_(&second);
}

// C code frees the struct behind a Fortran handle (gs_free(gs_hf2c(g))): the handle then
// maps to no struct (a stale pointer, once the freed struct's memory is reused, would name
// another live handle), the Fortran gs_free releases it once, and a successful gs_hf2c
// clears the error record as every C call does (docs/c-api.md). E-F-HANDLE-FREED-FROM-C.
TEST_F(GslibSurface, FortranHandleFreedFromC) {
  ids = {1, 2, 10 + static_cast<slong>(comm.id)};
  const sint n = 3, np = static_cast<sint>(comm.np);
  const MPI_Fint fcomm = MPI_Comm_c2f(MPI_COMM_WORLD);
  sint freed = -1, kept = -1;
  fgslib_gs_setup_(&freed, ids.data(), &n, &fcomm, &np);
  fgslib_gs_setup_(&kept, ids.data(), &n, &fcomm, &np);
  ASSERT_GE(freed, 0);
  ASSERT_GE(kept, 0);

  EXPECT_EQ(gs_hf2c(-7), nullptr);
  EXPECT_EQ(gsr_last_error(), GSR_ERR_STATE);
  struct gs_data* const c_kept = gs_hf2c(kept);
  ASSERT_NE(c_kept, nullptr);
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << "a successful gs_hf2c clears the error: " << gsr_last_error_message();

  gs_free(gs_hf2c(freed));
  ASSERT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
  EXPECT_EQ(gs_hf2c(freed), nullptr) << "the struct behind the handle was freed";
  EXPECT_EQ(gsr_last_error(), GSR_ERR_STATE);
  EXPECT_NE(std::string(gsr_last_error_message()).find("was freed from C"), std::string::npos)
      << gsr_last_error_message();
  std::vector<double> u = {1.0, 2.0, 3.0};
  fgslib_gs_op_(&freed, u.data(), &fortran_double, &fortran_add, &no_transpose);
  EXPECT_EQ(gsr_last_error(), GSR_ERR_STATE);
  EXPECT_NE(std::string(gsr_last_error_message()).find("was freed from C"), std::string::npos)
      << gsr_last_error_message();

  fgslib_gs_free_(&freed);
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << "the handle's number is released: " << gsr_last_error_message();
  fgslib_gs_free_(&freed);
  EXPECT_EQ(gsr_last_error(), GSR_ERR_STATE) << "released once only";
  EXPECT_NE(std::string(gsr_last_error_message()).find("has been freed"), std::string::npos)
      << gsr_last_error_message();
  gsr_clear_error();

  // The other handle is untouched.
  EXPECT_EQ(gs_hf2c(kept), c_kept);
  fgslib_gs_op_(&kept, u.data(), &fortran_double, &fortran_add, &no_transpose);
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
  EXPECT_EQ(u, (std::vector<double>{1.0 * comm.np, 2.0 * comm.np, 3.0}));
  fgslib_gs_free_(&kept);
  EXPECT_EQ(gsr_last_error(), GSR_SUCCESS) << gsr_last_error_message();
}

// Runs `setup` with stdout sent to a file; returns what it printed.
template <class Setup>
std::string printed_by(Setup&& setup) {
  std::fflush(stdout);
  char path[] = "/tmp/gsr_summary_XXXXXX";
  const int file = mkstemp(path);
  const int saved = dup(STDOUT_FILENO);
  dup2(file, STDOUT_FILENO);
  setup();
  std::fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  close(file);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  return text.str();
}

TEST_F(GslibSurface, SetupSummaryLine) {
  ids = {1, 2, 10 + static_cast<slong>(comm.id)};
  const std::string line =
      printed_by([&] { h = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm, 0, gs_pairwise, 1); });
  ASSERT_NE(h, nullptr) << gsr_last_error_message();
  gs_free(h);
  h = nullptr;
  const std::string full =
      printed_by([&] { h = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm, 0, gs_pairwise, 2); });
  if (comm.id != 0) {
    EXPECT_EQ(line, "") << "only rank 0 prints";
    EXPECT_EQ(full, "");
    return;
  }
  const std::string shared = comm.np > 1 ? "2 ids shared" : "0 ids shared";
  const std::string want = "gsr gs_setup: " + shared + " on " + std::to_string(comm.np) + " rank" +
                           (comm.np == 1 ? "" : "s") + ", method pairwise (requested)\n";
  EXPECT_EQ(line, want);
  EXPECT_NE(full.find("gsr: gather-scatter handle on"), std::string::npos) << full;
  EXPECT_NE(full.find("shared ids (all ranks)"), std::string::npos) << full;
}

// GSR_QUIET=1 silences the line; it is the C caller's only way to. The variable is set
// before the program starts, by the test capi_gslib_surface_quiet, which runs this case alone.
TEST_F(GslibSurface, QuietVariableSilencesTheSummary) {
  const char* quiet = std::getenv("GSR_QUIET");
  if (!quiet || std::string(quiet) != "1") GTEST_SKIP() << "run by capi_gslib_surface_quiet, with GSR_QUIET=1";
  ids = {1, 2, 10 + static_cast<slong>(comm.id)};
  const std::string line =
      printed_by([&] { h = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm, 0, gs_pairwise, 1); });
  ASSERT_NE(h, nullptr) << gsr_last_error_message();
  EXPECT_EQ(line, "") << "GSR_QUIET=1 silences the summary";
}

}  // namespace
