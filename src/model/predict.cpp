// model/predict.cpp — see predict.hpp.
#include "model/predict.hpp"

#include "exchange/registry.hpp"

#include <algorithm>

namespace gsr::model {

namespace {

// With the announcements, a message of their own to each neighbour, if the method sends any.
std::uint64_t messages_sent(Method method, const RankPlan& plan) {
  const bool announces = detail::method_entry(method).terms.announcement_bytes > 0;
  return plan.messages_per_call + (announces ? static_cast<std::uint64_t>(plan.neighbors) : 0);
}

}  // namespace

double predict_seconds(Method method, const RankPlan& plan, const detail::CostModel& model) {
  return model.predict(method, plan.stages, sizeof(double));
}

MethodSummary summarize(const MethodPlans& plans, const detail::CostModel& model) {
  MethodSummary s;
  s.method = plans.method;
  s.allreduce_slots = plans.allreduce_slots;
  double neighbors = 0;
  for (std::size_t r = 0; r < plans.rank.size(); ++r) {
    const RankPlan& plan = plans.rank[r];
    const double t = predict_seconds(plans.method, plan, model);
    if (r == 0 || t > s.seconds) {
      s.seconds = t;
      s.slowest_rank = static_cast<int>(r);
    }
    s.messages_max = std::max(s.messages_max, messages_sent(plans.method, plan));
    s.bytes_max = std::max(s.bytes_max, plan.call_bytes);
    s.values_max = std::max(s.values_max, plan.values_per_call);
    s.neighbors_max = std::max(s.neighbors_max, plan.neighbors);
    neighbors += plan.neighbors;
    s.stages = std::max(s.stages, plan.stages.size());
    if (s.stage_values_max.size() < plan.stages.size()) s.stage_values_max.resize(plan.stages.size(), 0);
    for (std::size_t d = 0; d < plan.stages.size(); ++d)
      s.stage_values_max[d] = std::max<std::uint64_t>(s.stage_values_max[d], plan.stages[d].values);
    s.setup_messages_max = std::max(s.setup_messages_max, plan.setup_messages);
    s.setup_bytes_max = std::max(s.setup_bytes_max, plan.setup_bytes);
    s.memory_bytes_max = std::max(s.memory_bytes_max, plan.plan_bytes + plan.buffer_bytes);
  }
  if (!plans.rank.empty()) s.neighbors_avg = neighbors / static_cast<double>(plans.rank.size());
  return s;
}

}  // namespace gsr::model
