// tools/bench/report.hpp — gsr-bench's records, one per measurement, and the run's
// metadata; their outputs: the table on the terminal, JSON and CSV. The schema is in
// docs/performance.md: later measurements add kinds of record, never new formats.
#pragma once

#include "tools/bench/problem.hpp"

#include <nlohmann/json.hpp>

#include <mpi.h>

#include <string>
#include <string_view>
#include <vector>

namespace gsr::tools::bench {

using Record = nlohmann::ordered_json;

/// A record of `kind` ("call", "bound", "overlap", "setup", "memory") with the problem's fields.
Record make_record(std::string_view kind, const Problem& problem);

/// Date (UTC), machine (host, CPU model from /proc/cpuinfo, CPUs), MPI library and gsr
/// versions, the command line and the problem.
nlohmann::ordered_json run_metadata(const Problem& problem, int argc, char** argv);

/// {"format": "gsr-bench", "version": 1, "run": metadata, "records": [...]}
nlohmann::ordered_json bench_document(const nlohmann::ordered_json& metadata, const std::vector<Record>& records);

/// CSV with one header line and a row per record; the columns are every field a record
/// can have, in the schema's order, empty where a record has none.
std::string csv_text(const std::vector<Record>& records);

/// The terminal table: bounds (the touch bound per contender, k and layout), then every
/// call kind against every contender (time, ratio to stream + wire and overhead; the same
/// against touch + wire), the overlap probes, then setup and memory.
std::string table_text(const nlohmann::ordered_json& metadata, const std::vector<Record>& records);

/// Writes text to path; throws gsr::Error(io) naming the file if it cannot.
void write_file(const std::string& path, const std::string& text);

}  // namespace gsr::tools::bench
