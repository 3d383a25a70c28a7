// The alpha-beta model of tune/cost_model.hpp: predictions worked out by hand, the machine
// file (docs/scaling.md) read or refused with the entry E-SETUP-GSR-MACHINE of
// docs/errors.md, a bad machine file (the option GSR_MACHINE supplies) failing setup on every
// rank, and the rule by which a
// calibrated model lets auto choose without timing (model_choice), and auto's table of
// methods per call size (tabulated_entry_bytes, size_row, choose_by_size), worked by hand.
#include "tune/auto_select.hpp"
#include "tune/cost_model.hpp"

#include "catalogue.hpp"

#include <gsr/handle.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
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
  // and it posts two collectives (one alpha each); allreduce posts one, and a second for
  // rows wider than 8 bytes.
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::neighbor, stages, 8, 3, 1000), expected + 2e-6 + 1e-9 * 48 + 2e-6);
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::allreduce, stages, 8, 3, 1000), expected + 2e-6);
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::allreduce, stages, 8, 1, 1000),
                   m.predict(gsr::Method::pairwise, stages, 8, 1, 1000) + 1e-6);
  // A rank without neighbours (one stage of no messages) still takes part in two
  // collectives; with no id shared anywhere (no stages) there are none.
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::neighbor, {gsr::StageStats{0, 0}}, 8, 1, 0), 2e-6);
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::neighbor, {}, 8, 1, 0), 0.0);
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::pairwise, {}, 8, 1, 0), 0.0);
}

TEST(CostModel, CacheCurveAndCallCostByHand) {
  CostModel m;
  m.alpha = 1e-6;
  m.beta = 1e-9;
  m.local_seconds_per_value = 1e-9;
  // g = 1 up to 1 MB, 2 at 4 MB, 3 from 16 MB: linear in log W between the points.
  m.local_curve = {{1e6, 1.0}, {4e6, 2.0}, {16e6, 3.0}};
  EXPECT_DOUBLE_EQ(m.cache_factor(1e3), 1.0);
  EXPECT_DOUBLE_EQ(m.cache_factor(2e6), 1.5);  // half way from 1 MB to 4 MB in log W
  EXPECT_DOUBLE_EQ(m.cache_factor(8e6), 2.5);
  EXPECT_DOUBLE_EQ(m.cache_factor(1e9), 3.0);
  EXPECT_DOUBLE_EQ(CostModel{}.cache_factor(1e9), 1.0);
  // Curves per k: k = 2 lies half way between k = 1's and k = 3's, k = 5 takes k = 3's.
  CostModel per_k;
  per_k.local_curve = {{1e6, 1.0, 1}, {4e6, 2.0, 1}, {1e6, 1.0, 3}, {4e6, 4.0, 3}};
  EXPECT_DOUBLE_EQ(per_k.cache_factor(2e6, 1), 1.5);
  EXPECT_DOUBLE_EQ(per_k.cache_factor(2e6, 3), 2.5);
  EXPECT_DOUBLE_EQ(per_k.cache_factor(2e6, 2), 2.0);
  EXPECT_DOUBLE_EQ(per_k.cache_factor(2e6, 5), 2.5);
  // A rank alone on its node uses its own curve when there is one.
  per_k.local_curve_alone = {{1e6, 1.0, 1}, {4e6, 1.2, 1}};
  EXPECT_DOUBLE_EQ(per_k.cache_factor(4e6, 1), 2.0);
  per_k.alone_on_node = true;
  EXPECT_DOUBLE_EQ(per_k.cache_factor(4e6, 1), 1.2);
  EXPECT_DOUBLE_EQ(per_k.cache_factor(4e6, 3), 1.2);  // its only k
  // 100000 doubles, k = 1: W = 100000 x (8 + 4) = 1.2 MB; 1e6 entries, k = 3: W = 28 MB.
  EXPECT_DOUBLE_EQ(m.local_seconds(8, 1, 100000), 100000 * 1e-9 * (1.0 + 0.5 * std::log(1.2) / std::log(2.0)));
  EXPECT_DOUBLE_EQ(m.local_seconds(8, 3, 1000000), 1e6 * 3e-9 * 3.0);
  // A method's fixed cost per call counts when the call exchanges anything (allreduce's
  // collective always does), never for a rank with nothing to send.
  m.local_curve.clear();
  m.call_seconds.assign(4, 0.0);
  m.call_seconds[static_cast<std::size_t>(gsr::Method::pairwise)] = 5e-7;
  m.call_seconds[static_cast<std::size_t>(gsr::Method::allreduce)] = 7e-7;
  const std::vector<gsr::StageStats> one = {{1, 10}};
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::pairwise, one, 8, 1, 0), 1e-6 + 1e-9 * (80 + 16) + 5e-7);
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::pairwise, {{0, 0}}, 8, 1, 0), 0.0);
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::allreduce, {{0, 4}}, 8, 1, 0), 1e-6 + 1e-9 * 32 + 7e-7);
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::crystal_router, one, 8, 1, 0), 1e-6 + 1e-9 * (80 + 16));
  // gs_many's separate arrays: k passes of one component each (here g = 1 throughout).
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::crystal_router, {}, 8, 3, 1000, 0, true), 3 * m.local_seconds(8, 1, 1000));
  // Each shared group costs c_shared per component on top of the messages.
  m.shared_seconds_per_value = 3e-9;
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::crystal_router, one, 8, 2, 0, 50), 1e-6 + 1e-9 * (160 + 16) + 50 * 2 * 3e-9);
  // Allreduce pays c_reduce per byte of its vector in every round (here 2 rounds of 4
  // slots), and a second collective (one alpha more) for rows wider than 8 bytes.
  m.shared_seconds_per_value = 0;
  m.allreduce_seconds_per_byte = 5e-10;
  const std::vector<gsr::StageStats> rounds = {{2, 8}};
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::allreduce, rounds, 8, 1, 0),
                   2e-6 + 1e-9 * (64 + 32) + 5e-10 * 64 + 1e-6 + 7e-7);
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::allreduce, rounds, 8, 3, 0),
                   2e-6 + 1e-9 * (192 + 32) + 5e-10 * 192 + 2e-6 + 7e-7);
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::allreduce, rounds, 4, 2, 0),  // two floats: 8 bytes, one collective
                   2e-6 + 1e-9 * (64 + 32) + 5e-10 * 64 + 1e-6 + 7e-7);
  // ... and the other methods never do.
  EXPECT_DOUBLE_EQ(m.predict(gsr::Method::pairwise, one, 8, 1, 0), 1e-6 + 1e-9 * (80 + 16) + 5e-7);
}

TEST(CostModel, ReadsAMachineFile) {
  const std::string path = write_machine("good.json", R"({"format": "gsr-machine", "version": 1, "alpha_seconds": 5e-7,
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
  EXPECT_TRUE(m.local_curve.empty());  // optional: g = 1, no fixed cost per call
  EXPECT_TRUE(m.call_seconds.empty());

  const std::string full = write_machine("full.json", R"({"format": "gsr-machine", "version": 1, "alpha_seconds": 5e-7,
                      "beta_seconds_per_byte": 2e-10, "local_seconds_per_value": 3e-10,
                      "local_curve": [{"bytes": 3e6, "factor": 1}, {"bytes": 5e7, "factor": 2.5}],
                      "local_curve_alone": [{"bytes": 3e6, "factor": 1, "k": 3}, {"bytes": 1e6, "factor": 0.8, "k": 1}],
                      "shared_seconds_per_value": 4e-9, "allreduce_seconds_per_byte": 3e-11,
                      "call_seconds": {"pairwise": 2e-7, "neighbor": 6e-7, "allreduce": 0}})");
  const CostModel f = gsr::detail::read_machine_file(full);
  ASSERT_EQ(f.local_curve.size(), 2u);
  ASSERT_EQ(f.local_curve_alone.size(), 2u);
  EXPECT_EQ(f.local_curve_alone[0].k, 3u);
  EXPECT_EQ(f.local_curve_alone[1].k, 1u);  // each k ascends on its own
  EXPECT_DOUBLE_EQ(f.shared_seconds_per_value, 4e-9);
  EXPECT_DOUBLE_EQ(f.allreduce_seconds_per_byte, 3e-11);
  EXPECT_DOUBLE_EQ(m.allreduce_seconds_per_byte, 0.0);  // optional: not modelled
  EXPECT_DOUBLE_EQ(f.local_curve[1].bytes, 5e7);
  EXPECT_DOUBLE_EQ(f.local_curve[1].factor, 2.5);
  ASSERT_GT(f.call_seconds.size(), static_cast<std::size_t>(gsr::Method::neighbor));
  EXPECT_DOUBLE_EQ(f.call_seconds[static_cast<std::size_t>(gsr::Method::pairwise)], 2e-7);
  EXPECT_DOUBLE_EQ(f.call_seconds[static_cast<std::size_t>(gsr::Method::neighbor)], 6e-7);
  EXPECT_DOUBLE_EQ(f.call_seconds[static_cast<std::size_t>(gsr::Method::crystal_router)], 0.0);
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
      {"curve.json", R"({"format": "gsr-machine", "alpha_seconds": 1e-6, "beta_seconds_per_byte": 1e-9,
                         "local_curve": {"bytes": 1}})",
       "\"local_curve\" is not an array"},
      {"curveorder.json", R"({"format": "gsr-machine", "alpha_seconds": 1e-6, "beta_seconds_per_byte": 1e-9,
                              "local_curve": [{"bytes": 4e6, "factor": 1}, {"bytes": 1e6, "factor": 2}]})",
       "\"local_curve\" is not in ascending \"bytes\" for k = 0"},
      {"curvek.json", R"({"format": "gsr-machine", "alpha_seconds": 1e-6, "beta_seconds_per_byte": 1e-9,
                          "local_curve_alone": [{"bytes": 4e6, "factor": 1, "k": 0}]})",
       "\"local_curve_alone\" has the point's \"k\" 0, not a whole number of components >= 1"},
      {"curvefactor.json", R"({"format": "gsr-machine", "alpha_seconds": 1e-6, "beta_seconds_per_byte": 1e-9,
                               "local_curve": [{"bytes": 4e6, "factor": 0}]})",
       "\"factor\" is 0, not a number > 0"},
      {"callname.json", R"({"format": "gsr-machine", "alpha_seconds": 1e-6, "beta_seconds_per_byte": 1e-9,
                            "call_seconds": {"fastest": 1e-7}})",
       "\"call_seconds\" names no method \"fastest\""},
      {"callneg.json", R"({"format": "gsr-machine", "alpha_seconds": 1e-6, "beta_seconds_per_byte": 1e-9,
                           "call_seconds": {"pairwise": -1e-7}})",
       "\"call_seconds\" of pairwise is -1e-07, not a number of seconds >= 0"},
  };
  for (const auto& c : cases) {
    const std::string path = write_machine(c.name, c.text);
    const std::string message = gsr_errors::expect_entry(
        "E-SETUP-GSR-MACHINE", [&] { gsr::detail::read_machine_file(path); }, c.name);
    EXPECT_NE(message.find(c.what), std::string::npos) << message;
  }
  const std::string message = gsr_errors::expect_entry(
      "E-SETUP-GSR-MACHINE", [] { gsr::detail::read_machine_file("/nonexistent/machine.json"); }, "missing");
  EXPECT_NE(message.find("cannot be opened"), std::string::npos) << message;
}

TEST(CostModel, BadMachineFileFailsSetupEverywhere) {
  // Every rank reads the file in setup's first, agreed step: all fail alike, none waits.
  // (SetupOptions::machine_file is the setting GSR_MACHINE supplies when it is unset.)
  gsr::SetupOptions bad;
  bad.machine_file = write_machine("setup_bad.json", R"({"format": "gsr-machine"})");
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::vector<std::int64_t> ids = {1, 2, 3 + rank};
  const std::string message = gsr_errors::expect_entry(
      "E-SETUP-GSR-MACHINE", [&] { gsr::Handle h(ids, MPI_COMM_WORLD, bad); }, "auto setup");
  EXPECT_NE(message.find("machine_file='" + bad.machine_file + "'"), std::string::npos) << message;
  // An explicit method does not read it.
  gsr::SetupOptions pairwise = bad;
  pairwise.method = gsr::Method::pairwise;
  EXPECT_NO_THROW(gsr::Handle(ids, MPI_COMM_WORLD, pairwise));
  // A good one lets auto set up.
  gsr::SetupOptions good;
  good.machine_file = write_machine(
      "setup_good.json", R"({"format": "gsr-machine", "alpha_seconds": 1e-6, "beta_seconds_per_byte": 1e-9})");
  EXPECT_NO_THROW(gsr::Handle(ids, MPI_COMM_WORLD, good));
}

TEST(CostModel, CalibratedModelDecidesOnlyByTwoOrMore) {
  using gsr::detail::model_choice;
  EXPECT_EQ(model_choice({1.0, 2.5, 3.0}), 0);
  EXPECT_EQ(model_choice({4.0, 2.0}), 1);         // exactly 2x: decided
  EXPECT_EQ(model_choice({1.0, 1.9, 5.0}), -1);   // a close second: time them
  EXPECT_EQ(model_choice({-1.0, 5.0, 2.0}), 2);   // negative: not a candidate
  EXPECT_EQ(model_choice({-1.0, 3.0, -1.0}), 1);  // a lone candidate
  EXPECT_EQ(model_choice({-1.0, -1.0}), -1);
  EXPECT_EQ(model_choice({}), -1);
}

TEST(AutoBySize, TabulatedSizesCoverEveryCallSize) {
  using gsr::detail::size_row;
  const std::vector<std::size_t>& sizes = gsr::detail::tabulated_entry_bytes();
  ASSERT_FALSE(sizes.empty());
  EXPECT_EQ(sizes.front(), 4u);  // the smallest value: one float or int
  for (std::size_t i = 1; i < sizes.size(); ++i) EXPECT_LT(sizes[i - 1], sizes[i]);
  // Every multiple of 4 bytes up to 64 has a row of its own (a float with k up to 16, a
  // double with k up to 8).
  for (std::size_t w = 4; w <= 64; w += 4) EXPECT_EQ(sizes[size_row(sizes, w)], w);
  EXPECT_EQ(sizes[size_row(sizes, 100)], 96u);                // between rows: the row below
  EXPECT_EQ(sizes[size_row(sizes, 1u << 30)], sizes.back());  // beyond the table: the last
  EXPECT_EQ(size_row(sizes, 1), 0u);                          // below the table: the first
  EXPECT_EQ(size_row({0, 64}, 63), 0u);
  EXPECT_EQ(size_row({0, 64}, 64), 1u);
}

// Rows are call sizes; two candidates whose costs cross, as the crystal router's (fewer
// messages, more bytes) and pairwise's do: c0 = 20 + 1 w, c1 = 2 + 4 w at w = 1, 4, 16, 64.
const std::vector<std::vector<double>> crossing{{21, 24, 36, 84}, {6, 18, 66, 258}};

TEST(AutoBySize, CalibratedModelDecidesEachSizeByTwoOrMore) {
  using gsr::detail::choose_by_size;
  // Nothing measured: c1 wins by 3.5x at w = 1, c0 by 3.07x at w = 64; in between
  // (1.33x, 1.83x) the model does not separate them and the choice for one double stays.
  EXPECT_EQ(choose_by_size(crossing, {-1, -1}, 0, 1, true), (std::vector<int>{1, 1, 1, 0}));
  // Uncalibrated and nothing measured: the choice everywhere.
  EXPECT_EQ(choose_by_size(crossing, {-1, -1}, 0, 1, false), (std::vector<int>{1, 1, 1, 1}));
}

TEST(AutoBySize, MeasurementsShiftThePredictions) {
  using gsr::detail::choose_by_size;
  // Measured at row 0 exactly as predicted: a rival replaces the choice where it wins by
  // more than size_switch_factor (1.25): 36 * 1.25 < 66 at w = 16 and 84 * 1.25 < 258.
  EXPECT_EQ(choose_by_size(crossing, {21, 6}, 0, 1, false), (std::vector<int>{1, 1, 0, 0}));
  // c0 measured 20 slower than predicted, a per-call cost carried to every size: 56 * 1.25
  // = 70 > 66 at w = 16 (c1 stays), 104 * 1.25 < 258 at w = 64.
  EXPECT_EQ(choose_by_size(crossing, {41, 6}, 0, 1, false), (std::vector<int>{1, 1, 1, 0}));
  // A candidate not measured gets the largest shift of the measured ones: here c1's, 90,
  // so at w = 16 c0's 126 * 1.25 > c1's 156 (without the shift c0 would win, 36 * 1.25).
  EXPECT_EQ(choose_by_size(crossing, {-1, 96}, 0, 1, false), (std::vector<int>{1, 1, 1, 0}));
  // With a calibrated model the model decides first; measurements settle the rest.
  EXPECT_EQ(choose_by_size(crossing, {41, 6}, 0, 1, true), (std::vector<int>{1, 1, 1, 0}));
  EXPECT_EQ(choose_by_size(crossing, {21, 6}, 0, 1, true), (std::vector<int>{1, 1, 0, 0}));
}

TEST(AutoBySize, NonCandidatesAreNeverChosen) {
  using gsr::detail::choose_by_size;
  const std::vector<std::vector<double>> three{crossing[0], {-1, -1, -1, -1}, crossing[1]};
  EXPECT_EQ(choose_by_size(three, {21, -1, 6}, 0, 2, false), (std::vector<int>{2, 2, 0, 0}));
  EXPECT_EQ(choose_by_size(three, {-1, -1, -1}, 0, 2, true), (std::vector<int>{2, 2, 2, 0}));
}

}  // namespace
