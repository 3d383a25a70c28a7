// model/predict.hpp — the alpha-beta time of a simulated plan, and the summary over all
// virtual ranks that gsr-model prints: per method the slowest rank's predicted seconds per
// call and the busiest rank's messages and bytes. The time is tune/cost_model.hpp's
// prediction from the plan's stages (headers and the neighbour method's announcements
// included) for one double, without the local pass (the same for every method).
#pragma once

#include "model/simulate.hpp"
#include "tune/cost_model.hpp"

#include <cstdint>
#include <vector>

namespace gsr::model {

double predict_seconds(Method method, const RankPlan& plan, const detail::CostModel& model);

struct MethodSummary {
  Method method = Method::pairwise;
  double seconds = 0;  // the slowest rank's prediction
  int slowest_rank = 0;
  std::uint64_t messages_max = 0;  // the most messages any rank sends per call (announcements included)
  std::uint64_t bytes_max = 0;     // the most bytes any rank sends per call
  std::uint64_t values_max = 0;
  int neighbors_max = 0;
  double neighbors_avg = 0;
  std::size_t stages = 0;                       // the most stages of any rank
  std::vector<std::uint64_t> stage_values_max;  // per stage, the most values any rank sends
  std::uint64_t setup_messages_max = 0, setup_bytes_max = 0;
  std::uint64_t memory_bytes_max = 0;  // the most plan_bytes + buffer_bytes of any rank
  std::uint64_t allreduce_slots = 0;
};

MethodSummary summarize(const MethodPlans& plans, const detail::CostModel& model);

}  // namespace gsr::model
