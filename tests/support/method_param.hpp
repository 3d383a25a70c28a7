// method_param.hpp — for tests that run once per exchange method (TEST_P over
// gsr::registered_methods()): the name each instance gets and the setup options that ask for
// the method.
#pragma once

#include <gsr/handle.hpp>

#include <gtest/gtest.h>

#include <string>

namespace gsr_test {

inline std::string method_name(const ::testing::TestParamInfo<gsr::Method>& info) {
  return std::string(gsr::to_string(info.param));
}

inline gsr::SetupOptions with_method(gsr::Method m) {
  gsr::SetupOptions o;
  o.method = m;
  return o;
}

}  // namespace gsr_test
