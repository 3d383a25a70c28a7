// random.hpp — the test suite's one random number generator. Every random problem a test
// builds (ids, values, vectors) comes from a Random made with an explicit seed, so a failure
// reproduces run after run and on every rank. The engine is std::mt19937_64, whose stream
// the C++ standard fixes; the draws below use only its raw output (no std:: distribution,
// whose results differ between standard libraries), so the same seed gives the same
// numbers with every compiler.
#pragma once

#include <cstdint>
#include <random>

namespace gsr_test {

class Random {
public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  /// 64 random bits.
  std::uint64_t bits() { return engine_(); }
  /// A whole number in [0, n), n > 0.
  std::uint64_t below(std::uint64_t n) { return engine_() % n; }
  /// True with probability percent / 100.
  bool percent(unsigned percent) { return below(100) < percent; }
  /// A double in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// A double in [low, high).
  double uniform(double low, double high) { return low + (high - low) * unit(); }

private:
  std::mt19937_64 engine_;
};

}  // namespace gsr_test
