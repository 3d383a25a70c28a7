// threads_test.cpp — gsr under MPI_THREAD_MULTIPLE (docs/threads.md): four threads of every
// rank at once, each with a handle of its own on a communicator of its own, each method,
// blocking and non-blocking calls, a record transfer and a scatter; every result bit for bit
// against the serial reference (reference.hpp), which is what serial use gives. Then what
// the contract refuses: a handle another thread is inside, a request waited for on a thread
// that did not start it, a mesh file while another thread is in HDF5 (E-THREAD-HANDLE-BUSY,
// E-THREAD-OTHER-THREAD, E-THREAD-MESH-IO).
//
// Every rank builds each thread's global problem from fixed seeds, so the expectations need
// no communication. At P > 2 oversubscribed MPICH polls, so each thread makes a few dozen
// calls.
#include <gsr/handle.hpp>
#if GSR_TEST_MESH_FILES
#include <gsr/mesh.hpp>
#endif
#include <gsr/scatter_gather.hpp>
#include <gsr/transfer.hpp>

#include "catalogue.hpp"
#include "random.hpp"
#include "reference.hpp"
#include "reference_random.hpp"
#include "world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern "C" int gsr_test_thread_level() { return MPI_THREAD_MULTIPLE; }

namespace {

using gsr::Op;
using gsr::Transpose;
using gsr_test::PerRank;
using gsr_test::world_rank;
using gsr_test::world_size;

constexpr int thread_count = 4;
constexpr std::uint64_t base_seed = 0x7412ead5ULL;

/// One communicator per thread, made on the main thread in the same order on every rank
/// (creating communicators is collective on MPI_COMM_WORLD, which the threads share).
struct ThreadComms {
  std::vector<MPI_Comm> comms;
  explicit ThreadComms(int n) : comms(static_cast<std::size_t>(n), MPI_COMM_NULL) {
    for (MPI_Comm& c : comms) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  }
  ~ThreadComms() {
    for (MPI_Comm& c : comms) MPI_Comm_free(&c);
  }
};

/// What one thread found wrong, read by the main thread after the join.
struct Findings {
  std::ostringstream text;
  int failures = 0;
  void fail(const std::string& what) {
    if (++failures <= 8) text << what << "\n";
  }
};

template <class T>
void compare(const std::vector<T>& want, const std::vector<T>& got, const std::string& what, Findings& out) {
  if (want.size() != got.size()) return out.fail(what + ": sizes differ");
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!gsr_test::same_bits(want[i], got[i])) {
      std::ostringstream s;
      s << what << ": entry " << i << " is " << got[i] << ", the reference " << want[i];
      return out.fail(s.str());
    }
}

/// One gather-scatter call checked: `values` is every rank's input; this rank applies it
/// (blocking, or started and then waited for by the caller through `requests`).
template <class T>
struct Checked {
  std::vector<T> want, got;
  std::string what;
};

template <class T>
Checked<T> prepare(const PerRank<std::int64_t>& ids, std::size_t k, Op op, Transpose t, std::uint64_t seed,
                   const std::string& what) {
  PerRank<T> values = gsr_test::random_values<T>(ids, k, op, seed);
  Checked<T> c;
  c.got = values[static_cast<std::size_t>(world_rank())];
  gsr_test::apply(ids, values, k, op, t);
  c.want = values[static_cast<std::size_t>(world_rank())];
  c.what = what;
  return c;
}

/// The gather-scatter part of one thread's work, on its own handle.
void gather_scatter_work(int thread, MPI_Comm comm, Findings& out) {
  const int rank = world_rank(), ranks = world_size();
  const std::uint64_t seed = base_seed + 1000 * static_cast<std::uint64_t>(thread);
  const gsr_test::IdSet set = gsr_test::make_ids("thread " + std::to_string(thread), seed, ranks, -1);
  const std::vector<std::int64_t>& mine = set.ids[static_cast<std::size_t>(rank)];
  gsr::SetupOptions options;
  options.method = gsr::registered_methods()[thread % gsr::registered_methods().size()];
  gsr::Handle h(mine, comm, options);
  const std::string name =
      "thread " + std::to_string(thread) + " (" + std::string(gsr::to_string(options.method)) + ")";

  std::uint64_t call = 0;
  for (int round = 0; round < 4; ++round) {
    for (Op op : {Op::add, Op::min, Op::max, Op::mul}) {
      auto c = prepare<double>(set.ids, 1, op, Transpose::no, seed + ++call,
                               name + " double " + std::string(gsr::to_string(op)));
      h.apply(std::span(c.got), op);
      compare(c.want, c.got, c.what, out);
    }
    // Two calls in flight at once, waited for in the other order.
    auto a = prepare<std::int64_t>(set.ids, 1, Op::add, Transpose::no, seed + ++call, name + " igs long add");
    auto b = prepare<double>(set.ids, 2, Op::min, Transpose::yes, seed + ++call, name + " igs_vec double min^T");
    gsr::Request ra = h.start(std::span(a.got), Op::add);
    gsr::Request rb = h.start_vec(std::span(b.got), 2, Op::min, Transpose::yes);
    rb.wait();
    ra.wait();
    compare(a.want, a.got, a.what, out);
    compare(b.want, b.got, b.what, out);
    auto v = prepare<std::int32_t>(set.ids, 3, Op::max, Transpose::no, seed + ++call, name + " gs_vec int max");
    h.apply_vec(std::span(v.got), 3, Op::max);
    compare(v.want, v.got, v.what, out);
  }
}

/// A record transfer and a scatter on the thread's communicator, against what was sent.
void transfer_work(int thread, MPI_Comm comm, Findings& out) {
  const int rank = world_rank(), ranks = world_size();
  struct Record {
    std::int32_t source, thread, index, pad;
  };
  std::vector<Record> records;
  std::vector<int> destinations;
  for (int i = 0; i < 3 + thread; ++i) {
    records.push_back(Record{rank, thread, i, 0});
    destinations.push_back((rank + i) % ranks);
  }
  const gsr::TransferMethod method = gsr::concrete_transfer_methods[thread % std::size(gsr::concrete_transfer_methods)];
  const gsr::Received<Record> got = gsr::transfer(records, destinations, comm, method);
  // From source s come the records i with (s + i) % P == rank, in order.
  std::vector<Record> want;
  for (int s = 0; s < ranks; ++s)
    for (int i = 0; i < 3 + thread; ++i)
      if ((s + i) % ranks == rank) want.push_back(Record{s, thread, i, 0});
  bool same = got.records.size() == want.size();
  for (std::size_t i = 0; same && i < want.size(); ++i)
    same = got.records[i].source == want[i].source && got.records[i].thread == want[i].thread &&
           got.records[i].index == want[i].index && got.sources[i] == want[i].source;
  if (!same)
    out.fail("thread " + std::to_string(thread) + ": transfer (" + std::string(gsr::to_string(method)) +
             ") delivered " + std::to_string(got.records.size()) + " records, not the " + std::to_string(want.size()) +
             " sent here");

  const int root = thread % ranks;
  std::vector<std::size_t> counts(static_cast<std::size_t>(ranks));
  std::vector<std::int64_t> blocks;
  for (int r = 0; r < ranks; ++r) {
    counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>(r + thread + 1);
    for (int j = 0; j <= r + thread; ++j) blocks.push_back(1000 * r + 10 * thread + j);
  }
  const gsr::Scattered<std::int64_t> block = gsr::scatter(blocks, counts, root, comm);
  std::vector<std::int64_t> expected;
  for (int j = 0; j <= rank + thread; ++j) expected.push_back(1000 * rank + 10 * thread + j);
  if (block.block != expected) out.fail("thread " + std::to_string(thread) + ": scatter gave a wrong block");
}

TEST(Threads, HandlesOfTheirOwnGiveTheSerialResults) {
  ThreadComms comms(thread_count);
  std::vector<Findings> findings(thread_count);
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t)
    threads.emplace_back([&, t] {
      try {
        gather_scatter_work(t, comms.comms[static_cast<std::size_t>(t)], findings[static_cast<std::size_t>(t)]);
        transfer_work(t, comms.comms[static_cast<std::size_t>(t)], findings[static_cast<std::size_t>(t)]);
      } catch (const std::exception& e) {
        findings[static_cast<std::size_t>(t)].fail("thread " + std::to_string(t) + " threw: " + e.what());
      }
    });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < thread_count; ++t)
    EXPECT_EQ(findings[static_cast<std::size_t>(t)].failures, 0) << findings[static_cast<std::size_t>(t)].text.str();
}

// Rank 0's thread A is inside a call of the handle, waiting for rank 1, which comes late on
// purpose; meanwhile rank 0's thread B calls the same handle and is refused, and A's call
// completes as if B had never tried.
TEST(Threads, AHandleInUseByAnotherThreadIsRefused) {
  const int rank = world_rank(), ranks = world_size();
  if (ranks < 2) GTEST_SKIP() << "needs a rank to wait for";
  std::vector<std::int64_t> ids{1, 2, 3};
  gsr::SetupOptions options;
  options.method = gsr::Method::pairwise;
  gsr::Handle h(ids, MPI_COMM_WORLD, options);
  std::vector<double> u{1, 2, 3}, other{1, 2, 3};
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    std::atomic<bool> entering{false};
    std::thread a([&] {
      entering = true;
      h.apply(std::span(u), Op::add);
    });
    while (!entering) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    gsr_errors::expect_entry(
        "E-THREAD-HANDLE-BUSY", [&] { h.apply(std::span(other), Op::add); }, "second thread");
    a.join();
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    h.apply(std::span(u), Op::add);
  }
  for (double& x : u) x /= ranks;
  EXPECT_EQ(u, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(other, (std::vector<double>{1, 2, 3})) << "a refused call must not touch its data";
}

// A request is waited for on the thread that started it: another thread's wait is refused
// and leaves it in flight, as is another thread's call of the handle meanwhile (it would be
// numbered after the call in flight, which only the first thread advances); the starting
// thread then completes the request, and no rank saw the refused call.
TEST(Threads, ARequestIsWaitedForOnItsOwnThread) {
  const int rank = world_rank(), ranks = world_size();
  if (ranks < 2) GTEST_SKIP() << "needs a rank to wait for";
  std::vector<std::int64_t> ids{5, 6};
  gsr::Handle h(ids, MPI_COMM_WORLD);
  std::vector<double> u{1, 2};
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    gsr::Request request = h.start(std::span(u), Op::add);  // rank 1 starts late: not complete yet
    std::vector<double> v{1, 2};
    std::thread other([&] {
      gsr_errors::expect_entry(
          "E-THREAD-OTHER-THREAD", [&] { request.wait(); }, "wait on another thread");
      gsr_errors::expect_entry(
          "E-THREAD-OTHER-THREAD", [&] { h.apply(std::span(v), Op::add); },
          "call while another thread's request is in flight");
    });
    other.join();
    EXPECT_TRUE(request.pending());
    request.wait();
    EXPECT_EQ(v, (std::vector<double>{1, 2}));
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    h.apply(std::span(u), Op::add);
  }
  EXPECT_EQ(u, (std::vector<double>{1.0 * ranks, 2.0 * ranks}));
}

// The thread that started a request exits (joined) with it in flight; a thread started
// after it, which the C library may give the first one's thread-local storage, is another
// thread all the same: its wait and its call of the handle are refused at once
// (E-THREAD-OTHER-THREAD), on every rank alike, rather than spinning until GSR_TIMEOUT on a
// call it cannot advance or starting a call numbered after one no thread will finish. The
// request stays in flight for good (docs/threads.md); destroying it reports the refusal of
// its wait on stderr, and the handle may then be destroyed (the calls given up on at the
// thread's exit keep their buffers). A short timeout makes the old behaviour fail in seconds.
TEST(Threads, ARequestWhoseThreadExitedIsRefusedToANewThread) {
  std::vector<std::int64_t> ids{9, 10};
  gsr::SetupOptions options;
  options.messages.timeout = 2;
  gsr::Handle h(ids, MPI_COMM_WORLD, options);
  std::vector<double> u{1, 2};
  gsr::Request request;
  std::thread starter([&] { request = h.start(std::span(u), Op::add); });
  starter.join();
  std::vector<double> v{1, 2};
  std::thread next([&] {
    gsr_errors::expect_entry(
        "E-THREAD-OTHER-THREAD", [&] { request.wait(); }, "wait from a thread started after the starter exited");
    gsr_errors::expect_entry(
        "E-THREAD-OTHER-THREAD", [&] { h.apply(std::span(v), Op::add); },
        "blocking call from a thread started after the starter exited");
  });
  next.join();
  EXPECT_TRUE(request.pending());
  EXPECT_EQ(v, (std::vector<double>{1, 2})) << "a refused call must not touch its data";
  gsr_errors::expect_entry(
      "E-THREAD-OTHER-THREAD", [&] { h.apply(std::span(v), Op::add); }, "blocking call from the main thread");
  MPI_Barrier(MPI_COMM_WORLD);
}

// A request may outlive its handle (gsr/handle.hpp): its wait then holds the last share of
// the handle's state, which must outlive the wait's hold on the handle's flag (the sanitized
// build catches a write to the freed flag).
TEST(Threads, ARequestMayOutliveItsHandle) {
  const int ranks = world_size();
  std::vector<std::int64_t> ids{7, 8};
  std::vector<double> u{1, 2};
  gsr::Request request;
  {
    gsr::Handle h(ids, MPI_COMM_WORLD);
    request = h.start(std::span(u), Op::add);
  }
  request.wait();
  EXPECT_EQ(u, (std::vector<double>{1.0 * ranks, 2.0 * ranks}));
}

#if GSR_TEST_MESH_FILES
// HDF5 is not thread-safe: while rank 0's thread A is inside write_mesh (waiting for rank 1,
// late on purpose), its thread B's read of another file is refused; A's write completes.
TEST(Threads, MeshFilesAreReadAndWrittenOneAtATime) {
  const int rank = world_rank(), ranks = world_size();
  if (ranks < 2) GTEST_SKIP() << "needs a rank to wait for";
  const std::filesystem::path dir = std::filesystem::path(GSR_TEST_BINARY_DIR) / "threads_mesh";
  const std::string path = (dir / ("mesh_np" + std::to_string(ranks) + ".h5")).string();
  if (rank == 0) std::filesystem::create_directories(dir);
  gsr::Mesh mesh;
  mesh.info.dim = 2;
  mesh.info.order = 1;
  mesh.elements.push_back(rank);
  for (std::int64_t id : {1, 2, 3, 4}) mesh.ids.push_back(2 * rank + id);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    std::atomic<bool> entering{false};
    std::thread a([&] {
      entering = true;
      gsr::write_mesh(path, mesh, MPI_COMM_WORLD);
    });
    while (!entering) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    gsr_errors::expect_entry(
        "E-THREAD-MESH-IO", [&] { gsr::read_mesh_info(path + ".other", MPI_COMM_SELF); }, "second thread");
    a.join();
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    gsr::write_mesh(path, mesh, MPI_COMM_WORLD);
  }
  const gsr::MeshInfo info = gsr::read_mesh_info(path, MPI_COMM_WORLD);
  EXPECT_EQ(info.elements, ranks);
}
#endif  // GSR_TEST_MESH_FILES (a build with HDF5)

}  // namespace
