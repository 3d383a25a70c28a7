// gsr/scatter_gather.hpp — personalized one-to-all scatter and all-to-one gather of blocks
// of any size, along a spanning binomial tree with combining (docs/transfer.md, "Scatter
// and gather"): ceil(log2 P) rounds, and every block leaves the root (or reaches it) once.
//
//   // scatter: the root holds one block per rank, back to back in rank order
//   std::vector<double> all = ...;                     // only read on the root
//   std::vector<std::size_t> counts = ...;             // counts[r]: values for rank r (root only)
//   auto mine = gsr::scatter(std::span<const double>(all), counts, /*root=*/0, comm);
//   // mine.block: this rank's values (the root gets its own block too)
//
//   // gather: the reverse; every rank sends its block, the root learns the sizes
//   auto got = gsr::gather(std::span<const double>(mine.block), /*root=*/0, comm);
//   // on the root: got.blocks (in rank order) and got.counts; elsewhere both are empty
//
// Sizes. Only the root knows the counts of a scatter; every bundle a rank forwards starts
// with the counts of the blocks in it, so each rank learns exactly the sizes of its own
// subtree. A gather's bundles carry the same header upwards, so the root needs no counts.
// Blocks may be empty; sizes have no limit but memory (messages over 2^31 bytes are fine).
//
// Collective over `comm`: every rank calls with the same root and the same value type.
// gsr duplicates `comm` for the call, so the caller's messages are never touched. A bad
// argument on any rank (a root that is not a rank, counts that do not fit the data, a
// negative count) or ranks that disagree about the root or the value size is an error on
// every rank (gsr::Error), and nothing is sent then.
#pragma once

#include <gsr/error.hpp>
#include <gsr/options.hpp>

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

namespace gsr {

/// One message (a bundle: the sizes of its blocks, then the blocks) of a scatter or gather,
/// seen from one rank.
struct TreeMessage {
  int round = 0;                  // the step of the tree, 0 .. ceil(log2 P) - 1
  int peer = -1;                  // the other end (a rank of the communicator)
  bool sent = false;              // sent by this rank (true) or received (false)
  std::size_t blocks = 0;         // how many ranks' blocks the bundle held
  std::size_t payload_bytes = 0;  // the blocks themselves
  std::size_t header_bytes = 0;   // their sizes: 8 bytes per block
};

/// What one rank did during one scatter or gather. Words are counted in bytes of payload
/// (the blocks); the sizes header is counted apart so the payload matches the alpha-beta
/// model's m(P-1) exactly.
struct TreeStats {
  int tree_rounds = 0;  // ceil(log2 P): the rounds of the whole operation
  int rounds = 0;       // the rounds in which this rank sent or received
  std::size_t messages_sent = 0, messages_received = 0;
  std::size_t bytes_sent = 0, bytes_received = 0;                // payload
  std::size_t header_bytes_sent = 0, header_bytes_received = 0;  // sizes headers
  // MPI messages behind the bundles: a bundle of more than 16 KiB of blocks sends its header
  // alone and its blocks from where they lie, one message per contiguous run
  std::size_t mpi_messages_sent = 0, mpi_messages_received = 0;
  std::vector<TreeMessage> messages;  // in the order they happened
};

// ---- byte-level core (what the C interface calls) -----------------------------------------------

struct ScatterResult {
  std::size_t count = 0;  // values this rank received
  TreeStats stats;
};

/// Marks a scatter's data whose length the caller cannot tell (the C interface).
inline constexpr std::size_t unknown_length = std::numeric_limits<std::size_t>::max();

/// Scatter of values of `value_bytes` bytes each. On the root, `counts` holds one count per
/// rank (>= 0) and `data` the blocks back to back in rank order: `data_length` values,
/// which the counts must add up to (unless it is unknown_length); elsewhere all three are
/// ignored. This rank's block is written to the storage `make_room(count)` returns
/// (count * value_bytes bytes; called once, also when count is 0). Collective over `comm`;
/// `options` unset: the environment's (gsr/options.hpp).
ScatterResult scatter_bytes(const void* data, std::size_t data_length, std::span<const std::int64_t> counts,
                            std::size_t value_bytes, int root, MPI_Comm comm,
                            const std::function<void*(std::size_t count)>& make_room,
                            const MessageOptions& options = {});

struct GatherResult {
  std::vector<std::size_t> counts;  // on the root: values received from each rank; else empty
  TreeStats stats;
};

/// Gather of `count` values (>= 0) of `value_bytes` bytes each at `data` from every rank.
/// On the root the blocks are written back to back in rank order to the storage
/// `make_room(total)` returns (called once, also when total is 0); it is not called
/// elsewhere. Collective over `comm`; `options` as for scatter_bytes.
GatherResult gather_bytes(const void* data, std::int64_t count, std::size_t value_bytes, int root, MPI_Comm comm,
                          const std::function<void*(std::size_t total)>& make_room, const MessageOptions& options = {});

// ---- typed front end ------------------------------------------------------------------------------

template <class T>
struct Scattered {
  std::vector<T> block;  // this rank's block
  TreeStats stats;
};

template <class T>
struct Gathered {
  std::vector<T> blocks;             // on the root: every rank's block, in rank order
  std::vector<std::size_t> counts;   // on the root: counts[r] values came from rank r
  std::vector<std::size_t> offsets;  // on the root: rank r's block starts at blocks[offsets[r]]
  TreeStats stats;
};

namespace detail {
/// The counts as the byte core takes them; one too large for int64 (it cannot match any
/// data) saturates, and the core reports that the counts do not add up.
inline std::vector<std::int64_t> signed_counts(std::span<const std::size_t> counts) {
  std::vector<std::int64_t> wide(counts.size());
  constexpr auto largest = static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max());
  for (std::size_t i = 0; i < counts.size(); ++i)
    wide[i] = static_cast<std::int64_t>(counts[i] < largest ? counts[i] : largest);
  return wide;
}
}  // namespace detail

/// Sends block r of `blocks` (counts[r] values, blocks back to back in rank order) from the
/// root to rank r. `blocks` and `counts` are read on the root only; there counts.size()
/// must be the number of ranks and the counts must add up to blocks.size().
template <class T>
Scattered<T> scatter(std::span<const T> blocks, std::span<const std::size_t> counts, int root, MPI_Comm comm,
                     const MessageOptions& options = {}) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "gsr::scatter: values must be trivially copyable and default constructible");
  Scattered<T> out;
  const std::vector<std::int64_t> wide = detail::signed_counts(counts);
  ScatterResult result = scatter_bytes(
      blocks.data(), blocks.size(), wide, sizeof(T), root, comm,
      [&out](std::size_t n) -> void* {
        out.block.resize(n);
        return out.block.data();
      },
      options);
  out.stats = std::move(result.stats);
  return out;
}

template <class T>
Scattered<T> scatter(const std::vector<T>& blocks, const std::vector<std::size_t>& counts, int root, MPI_Comm comm,
                     const MessageOptions& options = {}) {
  return scatter(std::span<const T>(blocks), std::span<const std::size_t>(counts), root, comm, options);
}

/// Collects every rank's `block` on the root, in rank order.
template <class T>
Gathered<T> gather(std::span<const T> block, int root, MPI_Comm comm, const MessageOptions& options = {}) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>,
                "gsr::gather: values must be trivially copyable and default constructible");
  Gathered<T> out;
  GatherResult result = gather_bytes(
      block.data(), static_cast<std::int64_t>(block.size()), sizeof(T), root, comm,
      [&out](std::size_t n) -> void* {
        out.blocks.resize(n);
        return out.blocks.data();
      },
      options);
  out.counts = std::move(result.counts);
  out.offsets.resize(out.counts.size());
  std::size_t offset = 0;
  for (std::size_t r = 0; r < out.counts.size(); ++r) {
    out.offsets[r] = offset;
    offset += out.counts[r];
  }
  out.stats = std::move(result.stats);
  return out;
}

template <class T>
Gathered<T> gather(const std::vector<T>& block, int root, MPI_Comm comm, const MessageOptions& options = {}) {
  return gather(std::span<const T>(block), root, comm, options);
}

}  // namespace gsr
