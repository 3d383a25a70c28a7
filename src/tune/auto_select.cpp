// tune/auto_select.cpp — see auto_select.hpp.
#include "tune/auto_select.hpp"

#include "core/mpi_util.hpp"

#include <cstdio>
#include <limits>

namespace gsr::detail {

double time_exchange(Exchange& exchange, const Plan& plan, int warmup, int repetitions) {
  Workspace ws;
  ws.info = CallInfo{Domain::float64, Op::add, Transpose::no, 1, false};
  ws.kernels = find_kernels(Domain::float64, Op::add);
  ws.partials.resize(plan.shared_groups * sizeof(double));
  ws.kernels->fill_identity(ws.partials.data(), plan.shared_groups);
  double start = 0;
  for (int i = 0; i < warmup + repetitions; ++i) {
    if (i == warmup) start = MPI_Wtime();
    exchange.start(ws);
    exchange.finish(ws);
  }
  return repetitions > 0 ? (MPI_Wtime() - start) / repetitions : 0.0;
}

AutoChoice choose_method(const Plan& plan, MPI_Comm comm) {
  const double begin = MPI_Wtime();
  AutoChoice choice;
  double best = std::numeric_limits<double>::infinity();
  for (Method m : concrete_methods) {
    MethodTiming timing{m, -1.0, 0.0, ""};
    if (!method_available(m)) {
      timing.note = "not available in this build";
      choice.timings.push_back(timing);
      continue;
    }
    auto candidate = make_exchange(m, plan, comm);
    const double mine = time_exchange(*candidate, plan, 2, 10);
    GSR_MPI_CHECK(MPI_Allreduce(&mine, &timing.seconds_per_call, 1, MPI_DOUBLE, MPI_MAX, comm));
    choice.timings.push_back(timing);
    // Strictly faster wins; ties keep the earlier method in registry order.
    if (timing.seconds_per_call < best) {
      best = timing.seconds_per_call;
      choice.exchange = std::move(candidate);
    }
  }
  char text[160];
  std::snprintf(text, sizeof text, "auto: fastest measured, %.3g us per call (max over ranks)", best * 1e6);
  choice.reason = text;
  choice.seconds = MPI_Wtime() - begin;
  return choice;
}

}  // namespace gsr::detail
