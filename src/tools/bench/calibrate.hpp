// tools/bench/calibrate.hpp — gsr-bench --calibrate: measures this machine's alpha-beta
// model (docs/scaling.md, "Calibration") and writes it as a machine file that gsr reads
// through GSR_MACHINE.
//   - latency and bandwidth: ping-pong between rank 0 and one partner (round trip / 2) and
//     streaming (a window of back-to-back messages, then a one-byte acknowledgement) over
//     sizes from 0 to 1 MiB; alpha is the least-squares intercept of the ping-pong times,
//     beta the least-squares slope of the streamed ones (relative errors weighted alike).
//     Where the ranks span nodes, the partner is on another node (inter-node) and a rank of
//     rank 0's node is measured too (intra-node); the model takes the inter-node fit.
//   - the local pass: a handle over this rank's share of the box with ids no other rank
//     holds, so a gs call is its local work alone, timed per value; and the stream bound of
//     the speed measurements (bounds.hpp) on as many values, for comparison.
#pragma once

#include "tools/bench/problem.hpp"
#include "tools/bench/report.hpp"
#include "tools/bench/timing.hpp"

#include <mpi.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace gsr::tools::bench {

struct Calibration {
  nlohmann::ordered_json machine;  // the machine file's content (format "gsr-machine")
  std::vector<Record> records;     // kind "calibration": one per probe and size
};

/// Collective; needs at least 2 ranks (throws gsr::Error(invalid_argument) otherwise).
Calibration calibrate(const Problem& problem, const Rounds& rounds, MPI_Comm comm);

/// The terminal summary of a calibration.
std::string calibration_table(const nlohmann::ordered_json& metadata, const Calibration& calibration);

}  // namespace gsr::tools::bench
