// capi.hpp — what the tests of the C interface (gs.h) share: the C domain code of a C++
// type, the concrete method codes with the names gsr_method_name reports, and a fixture
// that holds a struct comm on MPI_COMM_WORLD in GSR_ERRORS_RETURN mode.
#pragma once

#include <gsr/gs.h>
#include <gsr/types.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace gsr_test {

template <class T>
gs_dom dom_of() {
  if constexpr (std::is_same_v<T, double>)
    return gs_double;
  else if constexpr (std::is_same_v<T, float>)
    return gs_float;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return gs_sint;
  else
    return gs_slong;
}

struct MethodCase {
  gs_method code;
  const char* name;  // what gsr_method_name must report; nullptr for gs_auto (any of them)
};

/// Every method of the registry (gsr::registered_methods()), by the code gs_setup takes: a
/// Method's code is its gs_method code.
inline std::vector<MethodCase> concrete_method_cases() {
  std::vector<MethodCase> cases;
  for (const gsr::Method m : gsr::registered_methods())
    cases.push_back({static_cast<gs_method>(m), gsr::to_string(m).data()});  // names are literals
  return cases;
}

inline std::string method_case_name(const ::testing::TestParamInfo<MethodCase>& info) {
  return info.param.name ? info.param.name : "auto";
}

/// A fixture (Base: ::testing::Test or a TestWithParam) with `comm` on MPI_COMM_WORLD and
/// the error mode set to return, no error pending; afterwards the handle `h` (if any) is
/// freed and the default abort mode is back.
template <class Base = ::testing::Test>
class CapiTest : public Base {
protected:
  void SetUp() override {
    comm_init(&comm, MPI_COMM_WORLD);
    gsr_set_error_mode(GSR_ERRORS_RETURN);
    gsr_clear_error();
  }
  void TearDown() override {
    if (h != nullptr) gs_free(h);
    gsr_set_error_mode(GSR_ERRORS_ABORT);
    comm_free(&comm);
  }

  /// Sets up `h` with `method` on ids 1 and 2 (on every rank) and 10 + rank (its own).
  void set_up_shared_ids(gs_method method) {
    ids = {1, 2, 10 + static_cast<slong>(comm.id)};
    h = gs_setup(ids.data(), static_cast<uint>(ids.size()), &comm, 0, method, 0);
    ASSERT_NE(h, nullptr) << gsr_last_error_message();
  }

  struct comm comm;
  std::vector<slong> ids;
  struct gs_data* h = nullptr;
};

}  // namespace gsr_test
