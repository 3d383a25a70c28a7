// tools/bench/timing.cpp — interleaved rounds, the slowest rank, the median.
#include "tools/bench/timing.hpp"

#include <algorithm>

namespace gsr::tools::bench {

double max_over_ranks(double value, MPI_Comm comm) {
  double global = 0;
  MPI_Allreduce(&value, &global, 1, MPI_DOUBLE, MPI_MAX, comm);
  return global;
}

std::int64_t max_over_ranks(std::size_t count, MPI_Comm comm) {
  long long local = static_cast<long long>(count), global = 0;
  MPI_Allreduce(&local, &global, 1, MPI_LONG_LONG, MPI_MAX, comm);
  return global;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle), values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  return (upper + *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle))) / 2;
}

std::vector<double> time_rounds(const std::vector<std::vector<Probe>>& groups, const Rounds& rounds, MPI_Comm comm) {
  std::vector<const Probe*> probes;  // flat, group after group
  std::vector<std::size_t> first;    // index of each group's first probe
  for (const std::vector<Probe>& group : groups) {
    first.push_back(probes.size());
    for (const Probe& probe : group) probes.push_back(&probe);
  }
  // seconds[round * probes + p]: this rank's seconds per call of probe p in that round.
  const std::size_t count = probes.size(), repeats = static_cast<std::size_t>(rounds.repeats);
  std::vector<double> seconds(count * repeats);
  for (std::size_t round = 0; round < repeats; ++round)
    for (std::size_t g = 0; g < groups.size(); ++g)
      for (std::size_t i = 0; i < groups[g].size(); ++i) {
        const std::size_t p = first[g] + (i + round) % groups[g].size();  // who goes first rotates
        (*probes[p])();     // untimed: the batch starts from this probe's own state
        MPI_Barrier(comm);  // every rank starts the batch together
        const double begin = MPI_Wtime();
        for (int call = 0; call < rounds.calls; ++call) (*probes[p])();
        seconds[round * count + p] = (MPI_Wtime() - begin) / rounds.calls;
      }

  // One collective for the whole run: the slowest rank of each batch.
  MPI_Allreduce(MPI_IN_PLACE, seconds.data(), static_cast<int>(seconds.size()), MPI_DOUBLE, MPI_MAX, comm);
  std::vector<double> medians(count);
  for (std::size_t p = 0; p < count; ++p) {
    std::vector<double> series(repeats);
    for (std::size_t round = 0; round < repeats; ++round) series[round] = seconds[round * count + p];
    medians[p] = median(std::move(series));
  }
  return medians;
}

}  // namespace gsr::tools::bench
