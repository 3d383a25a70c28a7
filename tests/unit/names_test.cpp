// The vocabulary of gsr/types.hpp: method registry names (what GSR_METHOD and the tests use),
// op names, domain sizes and the type-to-domain map.
#include <gsr/types.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>

namespace {

using gsr::Domain;
using gsr::Method;
using gsr::Op;

TEST(Names, MethodNames) {
  EXPECT_EQ(gsr::to_string(Method::automatic), "auto");
  EXPECT_EQ(gsr::to_string(Method::pairwise), "pairwise");
  EXPECT_EQ(gsr::to_string(Method::crystal_router), "crystal_router");
  EXPECT_EQ(gsr::to_string(Method::allreduce), "allreduce");
  EXPECT_EQ(gsr::to_string(Method::neighbor), "neighbor");
}

TEST(Names, MethodFromStringRoundTrips) {
  for (Method m : {Method::automatic, Method::pairwise, Method::crystal_router, Method::allreduce, Method::neighbor}) {
    const auto parsed = gsr::method_from_string(gsr::to_string(m));
    ASSERT_TRUE(parsed.has_value()) << gsr::to_string(m);
    EXPECT_EQ(*parsed, m);
  }
  EXPECT_EQ(gsr::method_from_string("crystal_router"), Method::crystal_router);
}

TEST(Names, UnknownMethodNames) {
  for (const char* name : {"", "crystal-router", "PAIRWISE", "pairwise ", "all_reduce", "automatic", "cr"})
    EXPECT_FALSE(gsr::method_from_string(name).has_value()) << "\"" << name << "\"";
}

TEST(Names, ConcreteMethodsAreTheRegistryWithoutAuto) {
  std::set<Method> seen;
  for (Method m : gsr::registered_methods()) {
    EXPECT_NE(m, Method::automatic);
    EXPECT_TRUE(seen.insert(m).second) << "duplicate " << gsr::to_string(m);
  }
  EXPECT_EQ(seen, (std::set<Method>{Method::pairwise, Method::crystal_router, Method::allreduce, Method::neighbor}));
}

TEST(Names, OpNames) {
  EXPECT_EQ(gsr::to_string(Op::add), "add");
  EXPECT_EQ(gsr::to_string(Op::mul), "mul");
  EXPECT_EQ(gsr::to_string(Op::min), "min");
  EXPECT_EQ(gsr::to_string(Op::max), "max");
  EXPECT_EQ(gsr::to_string(Op::bpr), "bpr");
}

TEST(Names, DomainNamesAreDistinct) {
  std::set<std::string> names;
  for (Domain d : {Domain::float64, Domain::float32, Domain::int32, Domain::int64}) {
    const std::string name(gsr::to_string(d));
    EXPECT_FALSE(name.empty());
    EXPECT_TRUE(names.insert(name).second) << name;
  }
}

TEST(Names, UnknownEnumValuesHaveAName) {
  // Out-of-range codes (as a C caller could pass) must not crash and must not pose as a real one.
  const std::string op(gsr::to_string(static_cast<Op>(42)));
  EXPECT_FALSE(op.empty());
  for (Op o : {Op::add, Op::mul, Op::min, Op::max, Op::bpr}) EXPECT_NE(op, gsr::to_string(o));
  const std::string method(gsr::to_string(static_cast<Method>(42)));
  EXPECT_FALSE(gsr::method_from_string(method).has_value());
}

TEST(Domains, Sizes) {
  EXPECT_EQ(gsr::size_of(Domain::float64), 8u);
  EXPECT_EQ(gsr::size_of(Domain::float32), 4u);
  EXPECT_EQ(gsr::size_of(Domain::int32), 4u);
  EXPECT_EQ(gsr::size_of(Domain::int64), 8u);
}

TEST(Domains, DomainOfType) {
  static_assert(gsr::domain_of<double>() == Domain::float64);
  static_assert(gsr::domain_of<const float>() == Domain::float32);
  static_assert(gsr::domain_of<std::int32_t>() == Domain::int32);
  static_assert(gsr::domain_of<std::int64_t>() == Domain::int64);
  EXPECT_EQ(gsr::domain_of<double>(), Domain::float64);
  EXPECT_EQ(gsr::domain_of<std::int64_t>(), Domain::int64);
}

}  // namespace
