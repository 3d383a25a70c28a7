// tune/cost_model.hpp — the alpha-beta cost of a call (docs/scaling.md, "The model"):
//
//   T = n (c_entry + c_value k) g(W)  +  G k c_shared
//       + sum over stages ( alpha m_s + beta (8 v_s k + 16 m_s) )  +  c_call(method)
//       [ + c_reduce 8 k sum_s v_s   for allreduce ]
//
// for a rank with n entries, k components of 8-byte values, and per stage s m_s messages
// carrying v_s values of one component, each with gsr's 16-byte header. A method's own
// terms come from its registry entry (exchange/registry.hpp, MethodTerms): an
// announcement per neighbour (the neighbour method's 24 bytes), one alpha per non-blocking
// collective it posts (neighbor two, allreduce one, two for rows wider than 8 bytes), and
// c_reduce for a dense method.
// g(W) >= 1 is the local pass's slow-down once its working set W = n (value bytes x k + 4)
// outgrows the caches; c_shared the cost per shared group (G of them) and component of what
// the exchange adds to the local pass (gather, packing, combining the holders' partials,
// scatter); c_reduce allreduce's cost per byte of its dense vector and round beyond the
// wire (filling and reading the vector, the MPI library's reduction); c_call the method's
// own fixed cost per call that exchanges anything (probes, header checks, the progress
// engine); all measured by calibration. The
// local term is the same for every method, so it never changes which wins; it makes the
// prediction comparable with a measured time. Defaults are a guess for one node; a machine
// file written by `gsr-bench --calibrate` (GSR_MACHINE=file) replaces them with measured
// values, and only then does auto trust the model to decide alone (auto_select.hpp).
#pragma once

#include "config/config.hpp"

#include <gsr/handle.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace gsr::detail {

struct CostModel {
  double alpha = 2e-6;                      // seconds per message
  double beta = 1e-9;                       // seconds per byte
  double local_seconds_per_entry = 0.0;     // the local pass: per entry (the index structure) ...
  double local_seconds_per_value = 0.0;     // ... and per component of each entry (0, 0: not modelled)
  double shared_seconds_per_value = 0.0;    // per shared group and component (0: not modelled)
  double allreduce_seconds_per_byte = 0.0;  // allreduce, per byte of its vector and round (0: not modelled)
  /// g(W): the local pass's factor at working sets of `bytes`, measured with `k` components
  /// interleaved (0: any k). Per k, linear in log W between points (ascending in bytes), the
  /// end points' factors beyond them; a k between measured ones takes the factors of its
  /// neighbours linearly in k, a k beyond them the nearest one's; empty: 1 everywhere.
  struct CachePoint {
    double bytes = 0, factor = 1;
    std::size_t k = 0;
  };
  std::vector<CachePoint> local_curve;
  /// g(W) for a rank alone on its node, which has the node's memory bandwidth to itself
  /// (local_curve is measured with every rank busy); used when alone_on_node is set.
  std::vector<CachePoint> local_curve_alone;
  bool alone_on_node = false;
  /// c_call per method (indexed by the Method code; missing or 0: not modelled).
  std::vector<double> call_seconds;
  std::string source = "defaults";  // "defaults", or the machine file it came from
  bool calibrated = false;          // read from a machine file

  static constexpr double header_bytes = 16;  // every message of a call

  /// Predicted seconds per call of `method` with these `stages`, values of `value_bytes`,
  /// `k` components, `entries` local entries and `shared_groups` shared groups.
  /// `separate_arrays`: gs_many's k arrays, which the local pass walks one at a time (k
  /// passes of one component, each at g of the call's whole working set, k = 1) instead of
  /// k interleaved components. Throws Error(invalid_argument) for a code the registry does
  /// not know (automatic included).
  double predict(Method method, const std::vector<StageStats>& stages, std::size_t value_bytes, std::size_t k = 1,
                 std::size_t entries = 0, std::size_t shared_groups = 0, bool separate_arrays = false) const;
  /// The local pass alone: n (c_entry + c_value k) g(W).
  double local_seconds(std::size_t value_bytes, std::size_t k, std::size_t entries) const;
  /// g(W) at a working set of `bytes` with k components.
  double cache_factor(double bytes, std::size_t k = 1) const;
};

/// The model of the machine file `file` names (SetupOptions::machine_file or GSR_MACHINE,
/// config/config.hpp; read once per file name and kept), or the defaults when it names
/// none. Throws Error(invalid_argument) naming the file and what is wrong with it:
/// unreadable, not JSON, not a gsr-machine file, or a value missing, not a number or <= 0.
CostModel machine_model(const NamedText& file);

/// Reads a machine file (docs/scaling.md, "Calibration"); errors as above, naming the file
/// as `named_by` does: "GSR_MACHINE" (GSR_MACHINE='m.json'), "machine_file"
/// (machine_file='m.json') or a command-line option such as "--machine" (--machine 'm.json'). Every member is checked
/// for its JSON type; the message says which one is wrong.
CostModel read_machine_file(const std::string& path, const std::string& named_by = "GSR_MACHINE");

}  // namespace gsr::detail
