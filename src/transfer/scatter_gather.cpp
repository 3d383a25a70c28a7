// transfer/scatter_gather.cpp — gsr::scatter_bytes and gsr::gather_bytes: the argument
// checks every rank agrees on, then the binomial tree of scatter_gather.hpp, one bundle
// (a sizes header followed by the blocks) per message.
#include "transfer/scatter_gather.hpp"

#include <gsr/scatter_gather.hpp>

#include "mpi/checked.hpp"
#include "mpi/comm.hpp"
#include "mpi/messages.hpp"
#include "mpi/seam.hpp"
#include "mpi/threads.hpp"
#include "mpi/watch.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <utility>

namespace gsr::detail {

int tree_rounds(int ranks) noexcept {
  int rounds = 0;
  while (rounds < 31 && (1 << rounds) < ranks) ++rounds;
  return rounds;
}

std::vector<TreeStep> scatter_steps(int relative, int ranks) {
  seam::reached(seam::Point::scatter_steps);
  std::vector<TreeStep> steps;
  const int rounds = tree_rounds(ranks);
  for (int round = 0; round < rounds; ++round) {
    const int half = 1 << (rounds - 1 - round);
    const int position = relative % (2 * half);
    if (position == half)
      steps.push_back(TreeStep{round, relative - half, true, relative, std::min(relative + half, ranks)});
    else if (position == 0 && relative + half < ranks)
      steps.push_back(TreeStep{round, relative + half, false, relative + half, std::min(relative + 2 * half, ranks)});
  }
  return steps;
}

}  // namespace gsr::detail

namespace gsr {
namespace {

using detail::TreeStep;

// Every message of one call travels on the call's own duplicate communicator, so one tag
// serves; MPI keeps one sender's messages in order.
constexpr int tree_tag = 1;
constexpr std::size_t size_bytes = sizeof(std::int64_t);  // one header entry

/// The most bytes one object can have (the largest ptrdiff_t): every size gsr computes stays
/// within it, so it is exact in size_t, in int64 and as an MPI count.
constexpr std::size_t most_bytes = static_cast<std::size_t>(std::numeric_limits<std::ptrdiff_t>::max());

/// Throws "gsr: <what>: <text>", the form of every gsr message (`what`: "scatter" or "gather").
[[noreturn]] void fail(ErrorCode code, const std::string& what, const std::string& text) {
  throw Error(code, "gsr: " + what + ": " + text);
}

/// The checks that need nothing but this rank's arguments, shared by scatter and gather.
void check_root_and_size(const char* what, int root, int ranks, std::size_t value_bytes) {
  if (root < 0 || root >= ranks)
    fail(ErrorCode::invalid_argument, what,
         "root " + std::to_string(root) + " is not a rank of the communicator (ranks 0.." + std::to_string(ranks - 1) +
             ")");
  if (value_bytes == 0) fail(ErrorCode::invalid_argument, what, "the value size (value_bytes) is 0");
  if (value_bytes > most_bytes)
    fail(ErrorCode::invalid_argument, what,
         "the value size (value_bytes) " + std::to_string(value_bytes) + " is more bytes than memory can hold");
}

/// An empty `make_room` (C: a NULL output pointer) is checked on every rank, also where a
/// gather would not call it, so that the same call is wrong everywhere or nowhere.
void check_room(const char* what, const std::function<void*(std::size_t)>& make_room) {
  if (!make_room)
    fail(ErrorCode::invalid_argument, what,
         "no storage for the result (make_room is empty; C: an output pointer is NULL)");
}

/// Collective, after every rank passed its own checks: every rank throws `mismatch` if the
/// ranks passed different roots or value sizes (each rank sees the same maxima, so all fail
/// together and nothing more needs to be said).
void agree_on_root(MPI_Comm comm, const char* what, int root, std::size_t value_bytes, double timeout) {
  std::int64_t mine[4] = {root, -static_cast<std::int64_t>(root), static_cast<std::int64_t>(value_bytes),
                          -static_cast<std::int64_t>(value_bytes)};
  std::int64_t most[4] = {mine[0], mine[1], mine[2], mine[3]};
  detail::allreduce_max_polled(most, comm, timeout);  // polled: a rank that gave up on the step before never comes
  if (most[0] != -most[1])
    fail(ErrorCode::mismatch, what,
         "the ranks disagree about the root: this rank passed " + std::to_string(root) +
             ", the ranks passed roots from " + std::to_string(-most[1]) + " to " + std::to_string(most[0]));
  if (most[2] != -most[3])
    fail(ErrorCode::mismatch, what,
         "the ranks disagree about the value size: this rank passed " + std::to_string(value_bytes) +
             " bytes, the ranks passed sizes from " + std::to_string(-most[3]) + " to " + std::to_string(most[2]));
}

std::size_t bytes_of(std::int64_t count, std::size_t value_bytes) {
  return static_cast<std::size_t>(count) * value_bytes;
}

/// Whether `count` values of `value_bytes` bytes can be held in memory.
bool fits(std::size_t count, std::size_t value_bytes) { return count <= most_bytes / value_bytes; }

/// The blocks a rank holds during a call: those of the relative ranks [first, first +
/// counts.size()), block i starting at data[i] (counts in values).
struct Holding {
  int first = 0;
  std::vector<std::int64_t> counts;
  std::vector<const std::byte*> data;
};

/// Bundles with at most this much payload travel as one MPI message, header and blocks
/// copied together. Larger ones send the header alone, then the blocks straight from where
/// they lie, one message per contiguous run, so no large block is copied on its way through
/// the tree. Copying 16 KiB costs about what one more message start-up does.
constexpr std::size_t pack_limit = 16 * 1024;

/// Storage for what arrives; not zeroed, since the message overwrites it. Shared, so that
/// sends forwarding it can hold it (mpi/watch.hpp).
using Storage = std::shared_ptr<std::byte[]>;

/// The caller's storage for `count` values, from make_room. Should it give NULL for a
/// non-empty result, or throw, the values still have to be received (the sender is waiting
/// for them), so they land in `scratch`, and once the call's messages are done check()
/// reports E-SG-NO-ROOM or rethrows what make_room threw.
struct Room {
  std::byte* at = nullptr;
  Storage scratch;
  std::size_t lost = 0;  // values received with nowhere to go
  std::exception_ptr thrown;

  void ask(const std::function<void*(std::size_t)>& make_room, std::size_t count, std::size_t value_bytes) {
    try {
      at = static_cast<std::byte*>(make_room(count));
    } catch (...) {
      thrown = std::current_exception();
      at = nullptr;
    }
    if (at == nullptr && count > 0) {
      scratch.reset(new std::byte[count * value_bytes]);
      at = scratch.get();
      lost = count;
    }
  }

  /// Throws E-SG-NO-ROOM (or make_room's own exception) if make_room failed the caller;
  /// call it after the call's messages are done.
  void check(const char* what, std::size_t value_bytes) const {
    if (thrown) std::rethrow_exception(thrown);
    if (lost > 0)
      throw Error(ErrorCode::invalid_argument, std::string("gsr: ") + what + ": make_room returned NULL for " +
                                                   std::to_string(lost) + " values of " + std::to_string(value_bytes) +
                                                   " bytes");
  }
};

/// Posts the bundle of the relative ranks [first, end) to `dest`: their counts (which stay
/// in `held` until the sends complete), then their blocks. Returns its payload bytes and
/// adds the MPI messages it took to `messages`.
std::size_t post_bundle(const Holding& held, int first, int end, std::size_t value_bytes, int dest,
                        const detail::Watch& watch, detail::PendingSends& sends, std::size_t& messages) {
  const MPI_Comm comm = watch.comm();
  const std::size_t chunk = watch.chunk_bytes();
  const auto begin = static_cast<std::size_t>(first - held.first);
  const auto stop = static_cast<std::size_t>(end - held.first);
  const std::size_t header = (stop - begin) * size_bytes;
  std::size_t payload = 0;
  for (std::size_t i = begin; i < stop; ++i) payload += bytes_of(held.counts[i], value_bytes);

  std::vector<MPI_Request>& requests = sends.requests;
  if (payload <= pack_limit) {
    const auto packed = std::make_shared<std::vector<std::byte>>(header + payload);
    sends.hold(packed);
    std::vector<std::byte>& bundle = *packed;
    std::memcpy(bundle.data(), held.counts.data() + begin, header);
    std::byte* at = bundle.data() + header;
    for (std::size_t i = begin; i < stop; ++i) {
      const std::size_t bytes = bytes_of(held.counts[i], value_bytes);
      if (bytes > 0) std::memcpy(at, held.data[i], bytes);
      at += bytes;
    }
    detail::post_send(bundle.data(), bundle.size(), dest, tree_tag, comm, requests, chunk);
    ++messages;
    return payload;
  }
  const auto counts =
      std::make_shared<std::vector<std::int64_t>>(held.counts.begin() + begin, held.counts.begin() + stop);
  sends.hold(counts);
  detail::post_send(counts->data(), header, dest, tree_tag, comm, requests, chunk);
  ++messages;
  for (std::size_t i = begin; i < stop;) {
    const std::byte* run = held.data[i];
    std::size_t bytes = 0;
    do {
      bytes += bytes_of(held.counts[i], value_bytes);
      ++i;
    } while (i < stop && held.data[i] == run + bytes);
    if (bytes == 0) continue;
    detail::post_send(run, bytes, dest, tree_tag, comm, requests, chunk);
    ++messages;
  }
  return payload;
}

/// The first message of a bundle, received: the header (its counts appended to the
/// caller's), and the blocks too if the sender packed them.
struct Arrival {
  Storage first;
  std::size_t header = 0, payload = 0;
  bool packed = false;
  const std::byte* packed_blocks() const { return first.get() + header; }
};

Arrival receive_header(detail::Watch& watch, int source, std::size_t blocks, std::size_t value_bytes,
                       std::vector<std::int64_t>& counts, std::size_t& messages, const char* what) {
  detail::ProbedMessage message = watch.probe(source, tree_tag);
  Arrival arrival{Storage(new std::byte[message.bytes]), blocks * size_bytes, 0, false};
  detail::receive(message, arrival.first.get());
  ++messages;
  const auto malformed = [&](const std::string& why) {
    fail(ErrorCode::internal, what,
         "the bundle of " + std::to_string(blocks) + " blocks from rank " + std::to_string(source) +
             " is malformed: " + why);
  };
  if (message.bytes < arrival.header) malformed("its first message is shorter than its header");
  const std::size_t start = counts.size();
  counts.resize(start + blocks);
  std::memcpy(counts.data() + start, arrival.first.get(), arrival.header);
  for (std::size_t i = start; i < counts.size(); ++i) {
    if (counts[i] < 0 || !fits(static_cast<std::size_t>(counts[i]), value_bytes)) malformed("a count is out of range");
    if (bytes_of(counts[i], value_bytes) > most_bytes - arrival.payload) malformed("its counts add up past memory");
    arrival.payload += bytes_of(counts[i], value_bytes);
  }
  arrival.packed = message.bytes > arrival.header;
  if (arrival.packed && message.bytes - arrival.header != arrival.payload)
    malformed("its counts do not add up to its length");
  return arrival;
}

/// The blocks of a bundle that was not packed: `payload` bytes in one or more messages.
void receive_blocks(detail::Watch& watch, int source, std::size_t payload, std::byte* into, std::size_t& messages,
                    const char* what) {
  for (std::size_t received = 0; received < payload;) {
    detail::ProbedMessage run = watch.probe(source, tree_tag);
    if (run.bytes == 0 || run.bytes > payload - received)
      fail(ErrorCode::internal, what,
           "the blocks from rank " + std::to_string(source) + " do not add up to the counts in their header");
    detail::receive(run, into + received);
    received += run.bytes;
    ++messages;
  }
}

/// Receives a whole bundle of `blocks` ranks' blocks from `source`: appends their counts to
/// `counts` and writes their blocks, back to back, to the storage `place(payload bytes)`
/// returns. Returns the payload bytes.
std::size_t receive_bundle(detail::Watch& watch, int source, std::size_t blocks, std::size_t value_bytes,
                           std::vector<std::int64_t>& counts, const std::function<std::byte*(std::size_t)>& place,
                           std::size_t& messages, const char* what) {
  const Arrival arrival = receive_header(watch, source, blocks, value_bytes, counts, messages, what);
  std::byte* into = place(arrival.payload);
  if (arrival.packed)
    std::memcpy(into, arrival.packed_blocks(), arrival.payload);
  else
    receive_blocks(watch, source, arrival.payload, into, messages, what);
  return arrival.payload;
}

/// Counts one bundle in `stats`.
void record(TreeStats& stats, int round, int peer, bool sent, std::size_t blocks, std::size_t payload) {
  const TreeMessage m{round, peer, sent, blocks, payload, blocks * size_bytes};
  if (sent) {
    ++stats.messages_sent;
    stats.bytes_sent += m.payload_bytes;
    stats.header_bytes_sent += m.header_bytes;
  } else {
    ++stats.messages_received;
    stats.bytes_received += m.payload_bytes;
    stats.header_bytes_received += m.header_bytes;
  }
  stats.messages.push_back(m);
  ++stats.rounds;  // a rank sends or receives at most once per round
}

int absolute(int relative, int root, int ranks) { return (relative + root) % ranks; }

/// `comm`, once it is known not to be MPI_COMM_NULL (E-SG-COMM-NULL otherwise).
MPI_Comm usable(MPI_Comm comm, const char* what) {
  detail::require_communicator(comm, what);
  return comm;
}

/// What scatter and gather share before their first message, on the caller's communicator
/// `user` (so that a rank that never comes costs the others GSR_TIMEOUT, not a hang): every
/// rank's arguments checked and agreed on (the root and value size, room for the result,
/// the options and GSR_TIMEOUT, and `own_checks`, the call's own), then the root and value size compared
/// across ranks. Then the call's own duplicate of `user`, and this rank's place in the tree,
/// relative to the root. The messages run under a watch (mpi/watch.hpp, run_watched), and
/// so does everything after the duplicate that can fail on one rank (taking the duplicate
/// over, the tree's steps: `steps` in the watched body): the others hear of it at once.
struct TreeCall {
  MPI_Comm user = MPI_COMM_NULL;
  detail::OwnedComm own;
  std::exception_ptr own_failure;  // taking `own` over failed on this rank (run_watched reports it)
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, ranks = 1, relative = 0;
  detail::MessageSettings settings;

  /// The scatter's order of this rank's steps.
  std::vector<TreeStep> steps() const { return detail::scatter_steps(relative, ranks); }

  template <class Checks>
  TreeCall(const char* what, MPI_Comm user_comm, int root, std::size_t value_bytes,
           const std::function<void*(std::size_t)>& make_room, const MessageOptions& options, Checks&& own_checks)
      : user(usable(user_comm, what)), rank(detail::comm_rank(user)), ranks(detail::comm_size(user)) {
    detail::collectively(user, detail::timeout_or_default(options), [&] {
      check_root_and_size(what, root, ranks, value_bytes);
      check_room(what, make_room);
      own_checks(rank, ranks);
      settings = detail::resolve(options);
    });
    agree_on_root(user, what, root, value_bytes, settings.timeout);
    own = detail::OwnedComm::duplicate(user, settings.timeout, own_failure);
    comm = own.get();
    relative = (rank - root + ranks) % ranks;
  }
};

}  // namespace

ScatterResult scatter_bytes(const void* data, std::size_t data_length, std::span<const std::int64_t> counts,
                            std::size_t value_bytes, int root, MPI_Comm comm,
                            const std::function<void*(std::size_t count)>& make_room, const MessageOptions& options) {
  constexpr const char* what = "scatter";
  const detail::ThreadEntry entry(nullptr);
  TreeCall call(what, comm, root, value_bytes, make_room, options, [&](int rank, int ranks) {
    if (rank != root) return;
    if (counts.size() != static_cast<std::size_t>(ranks))
      fail(ErrorCode::invalid_argument, what,
           "the root passed " + std::to_string(counts.size()) + " counts for " + std::to_string(ranks) + " ranks");
    std::size_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      if (counts[r] < 0)
        fail(ErrorCode::invalid_argument, what,
             "counts[" + std::to_string(r) + "] = " + std::to_string(counts[r]) + " is negative");
      const auto count = static_cast<std::size_t>(counts[r]);
      if (count > std::numeric_limits<std::size_t>::max() - total || !fits(total + count, value_bytes))
        fail(ErrorCode::invalid_argument, what, "the counts add up to more bytes than memory can hold");
      total += count;
    }
    if (data_length != unknown_length && total != data_length)
      fail(ErrorCode::invalid_argument, what,
           "the counts add up to " + std::to_string(total) + " values but the root's data holds " +
               std::to_string(data_length));
    if (total > 0 && data == nullptr)
      fail(ErrorCode::invalid_argument, what,
           "the root's data is NULL but the counts add up to " + std::to_string(total) + " values");
  });
  const int rank = call.rank, ranks = call.ranks;
  ScatterResult result;
  result.stats.tree_rounds = detail::tree_rounds(ranks);
  detail::run_watched(call.user, call.own, call.own_failure, call.settings, what, [&](detail::Watch& watch) {
    const std::vector<TreeStep> steps = call.steps();
    // What this rank holds: on the root every block of the caller's data (relative rank u is
    // rank root + u); elsewhere, once it arrives, the bundle from the parent, whose blocks go
    // straight to the caller's storage when they are this rank's alone (a leaf).
    Holding held;
    Storage from_parent;
    Room room;  // this rank's block
    bool delivered = false;
    if (rank == root) {
      std::vector<std::size_t> offset(static_cast<std::size_t>(ranks) + 1, 0);
      for (int r = 0; r < ranks; ++r) offset[r + 1] = offset[r] + bytes_of(counts[r], value_bytes);
      held.counts.resize(static_cast<std::size_t>(ranks));
      held.data.resize(static_cast<std::size_t>(ranks));
      for (int u = 0; u < ranks; ++u) {
        const int r = absolute(u, root, ranks);
        held.counts[u] = counts[r];
        held.data[u] = static_cast<const std::byte*>(data) + offset[r];
      }
    }

    detail::PendingSends sends;
    for (const TreeStep& step : steps) {
      const int peer = absolute(step.partner, root, ranks);
      const auto blocks = static_cast<std::size_t>(step.end - step.first);
      if (step.from_parent) {
        held.first = step.first;
        const std::size_t payload = receive_bundle(
            watch, peer, blocks, value_bytes, held.counts,
            [&](std::size_t bytes) -> std::byte* {
              if (blocks == 1) {
                delivered = true;
                result.count = static_cast<std::size_t>(held.counts[0]);
                room.ask(make_room, result.count, value_bytes);
                return room.at;
              }
              from_parent.reset(new std::byte[bytes]);
              sends.hold(from_parent);  // forwarded to the children below
              return from_parent.get();
            },
            result.stats.mpi_messages_received, what);
        const std::byte* at = delivered ? nullptr : from_parent.get();
        for (std::int64_t count : held.counts) {
          held.data.push_back(at);
          if (at) at += bytes_of(count, value_bytes);
        }
        record(result.stats, step.round, peer, false, blocks, payload);
      } else {
        const std::size_t payload =
            post_bundle(held, step.first, step.end, value_bytes, peer, watch, sends, result.stats.mpi_messages_sent);
        record(result.stats, step.round, peer, true, blocks, payload);
      }
    }

    // This rank's own block is the first it holds; copied while the sends travel.
    if (!delivered) {
      result.count = static_cast<std::size_t>(held.counts.at(0));
      room.ask(make_room, result.count, value_bytes);
      if (result.count > 0) std::memcpy(room.at, held.data[0], bytes_of(held.counts[0], value_bytes));
    }
    watch.complete(sends, "gsr::scatter send");
    room.check(what, value_bytes);
  });
  return result;
}

namespace {

/// The gather's root: the children's headers first (nearest child first, as they finish),
/// so that the caller's storage can be asked for once with the total; then the blocks of
/// each bundle that was not packed are received straight into their place in rank order
/// (through a copy only when a bundle's ranks wrap around from P-1 to 0).
void gather_at_root(const Holding& own, const std::vector<TreeStep>& steps, std::size_t value_bytes, int root,
                    int ranks, detail::Watch& watch, const std::function<void*(std::size_t)>& make_room,
                    GatherResult& result, const char* what) {
  std::vector<std::int64_t> relative_counts = own.counts;  // relative rank 0 first
  std::vector<Arrival> arrivals;
  for (const TreeStep& step : steps) {
    const int peer = absolute(step.partner, root, ranks);
    const auto blocks = static_cast<std::size_t>(step.end - step.first);
    arrivals.push_back(
        receive_header(watch, peer, blocks, value_bytes, relative_counts, result.stats.mpi_messages_received, what));
    record(result.stats, result.stats.tree_rounds - 1 - step.round, peer, false, blocks, arrivals.back().payload);
  }

  result.counts.resize(static_cast<std::size_t>(ranks));
  std::vector<std::size_t> offset(static_cast<std::size_t>(ranks) + 1, 0);  // bytes, by rank
  for (int r = 0; r < ranks; ++r) {
    result.counts[r] = static_cast<std::size_t>(relative_counts[(r - root + ranks) % ranks]);
    // Each count fits on its own (receive_header); their sum must too.
    if (result.counts[r] * value_bytes > most_bytes - offset[r])
      fail(ErrorCode::invalid_argument, what, "the ranks' counts add up to more bytes than memory can hold");
    offset[r + 1] = offset[r] + result.counts[r] * value_bytes;
  }
  Room room;
  room.ask(make_room, offset[ranks] / value_bytes, value_bytes);
  std::byte* const out = room.at;
  const auto place_of = [&](int u) { return out + offset[absolute(u, root, ranks)]; };

  for (std::size_t i = 0; i < steps.size(); ++i) {
    const TreeStep& step = steps[i];
    const Arrival& arrival = arrivals[i];
    const bool wraps = root + step.first < ranks && root + step.end > ranks;
    Storage staging;
    const std::byte* from = arrival.packed_blocks();
    if (!arrival.packed) {
      const int peer = absolute(step.partner, root, ranks);
      if (!wraps) {
        receive_blocks(watch, peer, arrival.payload, place_of(step.first), result.stats.mpi_messages_received, what);
        continue;
      }
      staging.reset(new std::byte[arrival.payload]);
      receive_blocks(watch, peer, arrival.payload, staging.get(), result.stats.mpi_messages_received, what);
      from = staging.get();
    }
    for (int u = step.first; u < step.end; ++u) {
      const std::size_t bytes = bytes_of(relative_counts[static_cast<std::size_t>(u)], value_bytes);
      if (bytes > 0) std::memcpy(place_of(u), from, bytes);
      from += bytes;
    }
  }
  // The root's own block last: the children's senders are not kept waiting for this copy.
  if (own.counts[0] > 0) std::memcpy(place_of(0), own.data[0], bytes_of(own.counts[0], value_bytes));
  room.check(what, value_bytes);
}

}  // namespace

GatherResult gather_bytes(const void* data, std::int64_t count, std::size_t value_bytes, int root, MPI_Comm comm,
                          const std::function<void*(std::size_t total)>& make_room, const MessageOptions& options) {
  constexpr const char* what = "gather";
  const detail::ThreadEntry entry(nullptr);
  TreeCall call(what, comm, root, value_bytes, make_room, options, [&](int, int) {
    if (count < 0) fail(ErrorCode::invalid_argument, what, "count = " + std::to_string(count) + " is negative");
    if (!fits(static_cast<std::size_t>(count), value_bytes))
      fail(ErrorCode::invalid_argument, what,
           "count = " + std::to_string(count) + " values of " + std::to_string(value_bytes) +
               " bytes are more bytes than memory can hold");
    if (count > 0 && data == nullptr)
      fail(ErrorCode::invalid_argument, what, "data is NULL but count is " + std::to_string(count));
  });
  const int rank = call.rank, ranks = call.ranks, relative = call.relative;
  GatherResult result;
  result.stats.tree_rounds = detail::tree_rounds(ranks);
  detail::run_watched(call.user, call.own, call.own_failure, call.settings, what, [&](detail::Watch& watch) {
    std::vector<TreeStep> steps = call.steps();
    std::reverse(steps.begin(), steps.end());
    Holding held;  // this rank's block, then those its children bring
    held.first = relative;
    held.counts.push_back(count);
    held.data.push_back(static_cast<const std::byte*>(data));

    if (rank == root) {
      gather_at_root(held, steps, value_bytes, root, ranks, watch, make_room, result, what);
      return;
    }

    // The scatter's steps backwards: receive from the children, nearest first (each bundle
    // extends the run of relative ranks held), then send everything to the parent.
    std::vector<Storage> from_children;
    detail::PendingSends sends;
    for (const TreeStep& step : steps) {
      const int peer = absolute(step.partner, root, ranks);
      const auto blocks = static_cast<std::size_t>(step.end - step.first);
      const int round = result.stats.tree_rounds - 1 - step.round;
      if (!step.from_parent) {
        const std::size_t before = held.counts.size();
        const std::size_t payload = receive_bundle(
            watch, peer, blocks, value_bytes, held.counts,
            [&](std::size_t bytes) {
              sends.hold(from_children.emplace_back(new std::byte[bytes]));  // forwarded to the parent
              return from_children.back().get();
            },
            result.stats.mpi_messages_received, what);
        const std::byte* at = from_children.back().get();
        for (std::size_t i = before; i < held.counts.size(); ++i) {
          held.data.push_back(at);
          at += bytes_of(held.counts[i], value_bytes);
        }
        record(result.stats, round, peer, false, blocks, payload);
      } else {
        const std::size_t payload =
            post_bundle(held, step.first, step.end, value_bytes, peer, watch, sends, result.stats.mpi_messages_sent);
        record(result.stats, round, peer, true, blocks, payload);
      }
    }
    watch.complete(sends, "gsr::gather send");
  });
  return result;
}

}  // namespace gsr
