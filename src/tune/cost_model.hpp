// tune/cost_model.hpp — the alpha-beta cost of a message (docs/methods.md): T = alpha + beta * bytes,
// summed over the messages a rank sends per call, stage by stage. It is a screening tool for
// auto (skip candidates that cannot win) and the vocabulary of its verbose report, not a
// substitute for measuring.
#pragma once

#include <gsr/handle.hpp>

#include <cstddef>
#include <vector>

namespace gsr::detail {

struct CostModel {
  // Defaults for one shared-memory or fast-network node: a few microseconds per message
  // start-up and about 1 GB/s per stream once contention is counted. Only ratios between
  // candidates matter to auto, and the measurement has the last word.
  double alpha = 2e-6;  // seconds per message
  double beta = 1e-9;   // seconds per byte

  /// Predicted seconds per call for `stages` carrying values of `value_bytes` each.
  double predict(const std::vector<StageStats>& stages, std::size_t value_bytes) const {
    double seconds = 0;
    for (const StageStats& s : stages)
      seconds += alpha * static_cast<double>(s.messages) + beta * static_cast<double>(s.values * value_bytes);
    return seconds;
  }
};

}  // namespace gsr::detail
