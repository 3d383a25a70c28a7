// Ranks that disagree about a transfer's record size or method (P >= 2): every rank gets the
// same mismatch error, nothing is sent, and the next transfer works. Codes and key words come
// from docs/errors.md (tests/errors/catalogue.hpp).
#include <gsr/transfer.hpp>

#include "catalogue.hpp"
#include "world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using gsr::TransferMethod;

void expect_next_transfer_works() {
  const int me = gsr_test::world_rank(), ranks = gsr_test::world_size();
  std::vector<int> value = {me};
  std::vector<int> to = {(me + 1) % ranks};
  const auto after = gsr::transfer(value, to, MPI_COMM_WORLD);
  ASSERT_EQ(after.records.size(), 1u);
  EXPECT_EQ(after.records[0], (me + ranks - 1) % ranks);
}

TEST(TransferMismatch, RecordSizeDiffersAcrossRanks) {
  // Rank 0 sends 8-byte records, the others 16-byte ones (the same bytes, read in pairs).
  const int me = gsr_test::world_rank();
  std::vector<std::int64_t> words = {1, 2, 3, 4};
  std::vector<int> to(me == 0 ? 4 : 2, 0);
  std::vector<std::int64_t> received;
  const std::size_t size = me == 0 ? 8 : 16;
  const std::string message = gsr_errors::expect_entry(
      "E-TRANSFER-DISAGREE-SIZE",
      [&] {
        gsr::transfer_bytes(words.data(), to.size(), size, to, MPI_COMM_WORLD, [&](std::size_t n) -> void* {
          received.resize(n * size / 8);
          return received.data();
        });
      },
      "rank 0 passes 8 bytes");
  EXPECT_NE(message.find("some pass 8 bytes, others 16"), std::string::npos) << message;
  expect_next_transfer_works();
}

TEST(TransferMismatch, MethodDiffersAcrossRanks) {
  const int me = gsr_test::world_rank();
  std::vector<int> value = {me};
  std::vector<int> to = {0};
  const TransferMethod method = me == 0 ? TransferMethod::direct : TransferMethod::two_round;
  const std::string message = gsr_errors::expect_entry(
      "E-TRANSFER-DISAGREE-METHOD", [&] { gsr::transfer(value, to, MPI_COMM_WORLD, method); },
      "rank 0 asks for direct");
  EXPECT_NE(message.find("some ask for direct, others for two_round"), std::string::npos) << message;
  expect_next_transfer_works();
}

TEST(TransferMismatch, TupleLayoutDiffersAcrossRanks) {
  // The Fortran crystal router's tuples: rank 0 sends three integers per tuple, the others
  // one integer and one long, 12 bytes either way. The sizes agree; the columns would not.
  const int me = gsr_test::world_rank();
  std::vector<std::int32_t> words = {0, 1, 2, 3, 4, 5};
  std::vector<int> to = {0, 0};
  std::vector<std::int32_t> received;
  const gsr::TupleLayout layout = me == 0 ? gsr::TupleLayout{3, 0, 0} : gsr::TupleLayout{1, 1, 0};
  const std::string message = gsr_errors::expect_entry(
      "E-TRANSFER-DISAGREE-LAYOUT",
      [&] {
        gsr::transfer_tuples(
            words.data(), to.size(), 12, to, MPI_COMM_WORLD,
            [&](std::size_t n) -> void* {
              received.resize(3 * n);
              return received.data();
            },
            layout);
      },
      "rank 0 passes (3, 0, 0)");
  EXPECT_NE(message.find("integers per tuple from 1 to 3, longs from 0 to 1, reals from 0 to 0"), std::string::npos)
      << message;
  expect_next_transfer_works();
}

}  // namespace
