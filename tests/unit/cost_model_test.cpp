// The alpha-beta model of tune/cost_model.hpp: predictions worked out by hand, the machine
// file (docs/scaling.md) read or refused with the entry E-SETUP-GSR-MACHINE of
// docs/errors.md, a bad GSR_MACHINE failing setup on every rank, and the rule by which a
// calibrated model lets auto choose without timing (model_choice).
#include "tune/auto_select.hpp"
#include "tune/cost_model.hpp"

#include "catalogue.hpp"

#include <gsr/handle.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

using gsr::detail::CostModel;

/// Writes a machine file of this rank's own (ranks run at once and must not share files).
std::string write_machine(const std::string& name, const std::string& text) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::string path = std::string(GSR_TEST_BINARY_DIR) + "/machine_np" + std::to_string(ranks) + "_rank" +
                           std::to_string(rank) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(CostModel, PredictsByHand) {
  CostModel m;
  m.alpha = 1e-6;
  m.beta = 1e-9;
  m.local_seconds_per_entry = 2e-9;
  m.local_seconds_per_value = 1e-9;
  const std::vector<gsr::StageStats> stages = {{2, 100}, {1, 10}};
  // local: 1000 entries, each 2 ns plus 1 ns for each of 3 components; stage 1: 2 messages
  // of 100 x 3 x 8 bytes plus two 16-byte headers; stage 2: 1 message of 10 x 3 x 8 bytes
  // plus its header.
  const double expected = 1000 * (2e-9 + 3e-9) + 2e-6 + 1e-9 * (2400 + 32) + 1e-6 + 1e-9 * (240 + 16);
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::pairwise, stages, 8, 3, 1000), expected);
  // The neighbour method announces first: one 24-byte message more per neighbour (stage 1),
  // and it posts two collectives (one alpha each); allreduce posts one.
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::neighbor, stages, 8, 3, 1000), expected + 2e-6 + 1e-9 * 48 + 2e-6);
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::allreduce, stages, 8, 3, 1000), expected + 1e-6);
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::neighbor, {}, 8, 1, 0), 2e-6);  // no neighbours, still two collectives
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::pairwise, {}, 8, 1, 0), 0.0);
}

TEST(CostModel, ReadsAMachineFile) {
  const std::string path = write_machine(
      "good.json", R"({"format": "gsr-machine", "version": 1, "alpha_seconds": 5e-7,
                      "beta_seconds_per_byte": 2e-10, "local_seconds_per_entry": 4e-10,
                      "local_seconds_per_value": 3e-10, "link": "intra_node"})");
  const CostModel m = gsr::detail::read_machine_file(path);
  EXPECT_DOUBLE_EQ(m.alpha, 5e-7);
  EXPECT_DOUBLE_EQ(m.beta, 2e-10);
  EXPECT_DOUBLE_EQ(m.local_seconds_per_entry, 4e-10);
  EXPECT_DOUBLE_EQ(m.local_seconds_per_value, 3e-10);
  EXPECT_TRUE(m.calibrated);
  EXPECT_EQ(m.source, path);
  EXPECT_FALSE(CostModel{}.calibrated);
}

TEST(CostModel, MachineFileErrors) {
  const struct {
    const char* name;
    const char* text;
    const char* what;
  } cases[] = {
      {"notjson.json", "alpha = 1", "is not JSON"},
      {"format.json", R"({"format": "gsr-bench", "alpha_seconds": 1e-6, "beta_seconds_per_byte": 1e-9})",
       "is not a gsr machine file"},
      {"noalpha.json", R"({"format": "gsr-machine", "beta_seconds_per_byte": 1e-9})", "has no \"alpha_seconds\""},
      {"negative.json", R"({"format": "gsr-machine", "alpha_seconds": 1e-6, "beta_seconds_per_byte": -1})",
       "\"beta_seconds_per_byte\" is -1, not a number of seconds > 0"},
      {"text.json", R"({"format": "gsr-machine", "alpha_seconds": "fast", "beta_seconds_per_byte": 1e-9})",
       "\"alpha_seconds\" is \"fast\""},
  };
  for (const auto& c : cases) {
    const std::string path = write_machine(c.name, c.text);
    const std::string message =
        gsr_errors::expect_entry("E-SETUP-GSR-MACHINE", [&] { gsr::detail::read_machine_file(path); }, c.name);
    EXPECT_NE(message.find(c.what), std::string::npos) << message;
  }
  const std::string message = gsr_errors::expect_entry(
      "E-SETUP-GSR-MACHINE", [] { gsr::detail::read_machine_file("/nonexistent/machine.json"); }, "missing");
  EXPECT_NE(message.find("cannot be opened"), std::string::npos) << message;
}

TEST(CostModel, BadMachineFileFailsSetupEverywhere) {
  // Every rank reads the file in setup's first, agreed step: all fail alike, none waits.
  const std::string path = write_machine("setup_bad.json", R"({"format": "gsr-machine"})");
  setenv("GSR_MACHINE", path.c_str(), 1);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::vector<std::int64_t> ids = {1, 2, 3 + rank};
  gsr_errors::expect_entry("E-SETUP-GSR-MACHINE", [&] { gsr::Handle h(ids, MPI_COMM_WORLD); }, "auto setup");
  // An explicit method does not read it.
  gsr::SetupOptions pairwise;
  pairwise.method = gsr::Method::pairwise;
  EXPECT_NO_THROW(gsr::Handle(ids, MPI_COMM_WORLD, pairwise));
  // A good one lets auto set up.
  const std::string good = write_machine(
      "setup_good.json", R"({"format": "gsr-machine", "alpha_seconds": 1e-6, "beta_seconds_per_byte": 1e-9})");
  setenv("GSR_MACHINE", good.c_str(), 1);
  EXPECT_NO_THROW(gsr::Handle(ids, MPI_COMM_WORLD));
  unsetenv("GSR_MACHINE");
}

TEST(CostModel, CalibratedModelDecidesOnlyByTwoOrMore) {
  using gsr::detail::model_choice;
  EXPECT_EQ(model_choice({1.0, 2.5, 3.0}), 0);
  EXPECT_EQ(model_choice({4.0, 2.0}), 1);             // exactly 2x: decided
  EXPECT_EQ(model_choice({1.0, 1.9, 5.0}), -1);       // a close second: time them
  EXPECT_EQ(model_choice({-1.0, 5.0, 2.0}), 2);       // negative: not a candidate
  EXPECT_EQ(model_choice({-1.0, 3.0, -1.0}), 1);      // a lone candidate
  EXPECT_EQ(model_choice({-1.0, -1.0}), -1);
  EXPECT_EQ(model_choice({}), -1);
}

}  // namespace
