// Bad arguments to gsr::transfer on one rank (the last) are an error on every rank: that
// rank gets the entry's own error, the others E-TRANSFER-REMOTE naming it; nothing hangs,
// and the next transfer works. The codes and key words come from docs/errors.md
// (tests/errors/catalogue.hpp), so the page and the library cannot drift apart.
#include <gsr/transfer.hpp>

#include "catalogue.hpp"
#include "world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace {

using gsr::TransferMethod;

struct Fixture {
  std::vector<double> records = {1.5, 2.5, 3.5};
  std::vector<int> destinations = {0, 0, 0};
  std::vector<double> received;
  std::function<void*(std::size_t)> make_room = [this](std::size_t n) -> void* {
    received.resize(n);
    return received.data();
  };
};

/// Every rank calls `good` except the last, which calls `bad`; the last rank must get entry
/// `id`, the others E-TRANSFER-REMOTE naming the last rank. Then one good transfer, all ranks.
void expect_everywhere(const std::string& id, const std::function<void()>& bad, const std::function<void()>& good) {
  const int me = gsr_test::world_rank(), ranks = gsr_test::world_size();
  if (me == ranks - 1) {
    gsr_errors::expect_entry(id, bad, id);
  } else {
    const std::string message = gsr_errors::expect_entry("E-TRANSFER-REMOTE", good, id + " elsewhere");
    EXPECT_NE(message.find("rank " + std::to_string(ranks - 1) + " failed: "), std::string::npos) << message;
  }
  // The communicator is still usable: a good transfer goes through on every rank.
  std::vector<int> value = {me};
  std::vector<int> to = {(me + 1) % ranks};
  const auto after = gsr::transfer(value, to, MPI_COMM_WORLD);
  ASSERT_EQ(after.records.size(), 1u);
  EXPECT_EQ(after.records[0], (me + ranks - 1) % ranks);
}

void good_call(Fixture& f) {
  gsr::transfer_bytes(f.records.data(), f.records.size(), sizeof(double), f.destinations, MPI_COMM_WORLD, f.make_room);
}

TEST(TransferErrors, DestinationOutOfRange) {
  const int ranks = gsr_test::world_size();
  for (int wrong : {-1, ranks, ranks + 1000}) {
    Fixture f;
    f.destinations[1] = wrong;
    Fixture g;
    expect_everywhere(
        "E-TRANSFER-DEST", [&] { good_call(f); }, [&] { good_call(g); });
  }
}

TEST(TransferErrors, RecordSizeZeroWithRecords) {
  Fixture f, g;
  expect_everywhere(
      "E-TRANSFER-RECORD-SIZE",
      [&] { gsr::transfer_bytes(f.records.data(), 3, 0, f.destinations, MPI_COMM_WORLD, f.make_room); },
      [&] { good_call(g); });
}

TEST(TransferErrors, LengthsDiffer) {
  Fixture f, g;
  f.destinations.pop_back();
  expect_everywhere(
      "E-TRANSFER-LENGTHS", [&] { gsr::transfer(std::span<const double>(f.records), f.destinations, MPI_COMM_WORLD); },
      [&] { good_call(g); });
}

TEST(TransferErrors, NullPointers) {
  {
    Fixture f, g;
    expect_everywhere(
        "E-TRANSFER-NULL",
        [&] { gsr::transfer_bytes(nullptr, 3, sizeof(double), f.destinations, MPI_COMM_WORLD, f.make_room); },
        [&] { good_call(g); });
  }
  {
    Fixture f, g;
    expect_everywhere(
        "E-TRANSFER-NULL",
        [&] {
          gsr::transfer_bytes(f.records.data(), 3, sizeof(double),
                              std::span<const int>(static_cast<const int*>(nullptr), 3), MPI_COMM_WORLD, f.make_room);
        },
        [&] { good_call(g); });
  }
  {
    Fixture f, g;
    expect_everywhere(
        "E-TRANSFER-NULL",
        [&] { gsr::transfer_bytes(f.records.data(), 3, sizeof(double), f.destinations, MPI_COMM_WORLD, {}); },
        [&] { good_call(g); });
  }
}

TEST(TransferErrors, UnknownMethodCode) {
  Fixture f, g;
  expect_everywhere(
      "E-TRANSFER-METHOD-CODE",
      [&] {
        gsr::transfer_bytes(f.records.data(), 3, sizeof(double), f.destinations, MPI_COMM_WORLD, f.make_room,
                            static_cast<TransferMethod>(9));
      },
      [&] { good_call(g); });
}

TEST(TransferErrors, SizesBeyondMemory) {
  // A record size whose enveloped stride overflows (the crystal router's), and a count times
  // a size that does not fit: refused before anything is sent or copied.
  const std::size_t huge_record = std::numeric_limits<std::size_t>::max() - 7;
  Fixture f, g;
  expect_everywhere(
      "E-TRANSFER-TOO-LARGE",
      [&] {
        gsr::transfer_bytes(f.records.data(), 0, huge_record, std::span<const int>(), MPI_COMM_WORLD, f.make_room,
                            TransferMethod::crystal_router);
      },
      [&] { good_call(g); });
  Fixture h, k;
  expect_everywhere(
      "E-TRANSFER-TOO-LARGE",
      [&] {
        gsr::transfer_bytes(h.records.data(), 2, std::size_t{1} << 63, std::span<const int>(h.destinations).first(2),
                            MPI_COMM_WORLD, h.make_room, TransferMethod::direct);
      },
      [&] { good_call(k); });
}

TEST(TransferErrors, NoRoomForWhatArrived) {
  // Every rank sends one record to rank 0, which gives no room for them: rank 0 fails after
  // the exchange, and the others learn of it (E-TRANSFER-REMOTE).
  const int me = gsr_test::world_rank();
  std::vector<double> one = {0.5};
  std::vector<int> to_zero = {0};
  std::vector<double> received;
  auto call = [&](bool room) {
    return gsr::transfer_bytes(one.data(), 1, sizeof(double), to_zero, MPI_COMM_WORLD, [&](std::size_t n) -> void* {
      received.resize(n);
      return room ? received.data() : nullptr;
    });
  };
  if (me == 0) {
    gsr_errors::expect_entry(
        "E-TRANSFER-NO-ROOM", [&] { call(false); }, "rank 0");
  } else {
    const std::string message = gsr_errors::expect_entry(
        "E-TRANSFER-REMOTE", [&] { call(true); }, "rank 0's");
    EXPECT_NE(message.find("rank 0 failed: gsr: transfer: make_room returned NULL"), std::string::npos) << message;
  }
}

}  // namespace
