// tools/bench/bounds.hpp — what a gather-scatter call cannot beat, measured by gsr-bench on
// the same sizes as the calls (docs/performance.md):
//   stream  one in-place pass u[i] = u[i] * a + b over the n * k values of u: every value
//           read and written once, as a call must at least do;
//   wire    exactly the messages of the pairwise plan (Stats::messages: a 16-byte header
//           plus values * k * 8 bytes each) as raw persistent MPI requests, receives
//           started first: no packing, no probing, no headers checked;
//   round   one 1-value Isend/Irecv with each of the same neighbours: the latency floor;
//   touch   the memory floor of a call: each line of u holding an entry the call reads or
//           writes, read and written once, and the index bytes one call reads
//           (Stats::call_index_bytes) read once, at the stream pass's speed. Not timed:
//           its share of the stream pass's bytes scales the stream bound.
// Each object is one timed bound; operator() runs it once.
#pragma once

#include <gsr/handle.hpp>

#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

namespace gsr::tools::bench {

/// One in-place pass u[i] = u[i] * a + b with a = 1 and b = 0 read through volatile, so the
/// compiler can neither fold the update away nor drop the stores: the stream bound, and the
/// local work of the overlap probes (measure.cpp).
void stream_pass(std::span<double> u);

class StreamBound {
public:
  explicit StreamBound(std::size_t length);
  void operator()() { stream_pass(u_); }

private:
  std::vector<double> u_;
};

inline constexpr std::size_t cache_line_bytes = 64;

/// u's 64-byte lines for the touch bound: those that hold a value of an entry a call reads
/// or writes, and all the lines u spans.
struct CacheLines {
  std::size_t touched = 0, spanned = 0;
};

/// The lines of u, n = active.size() entries of k doubles starting on a line, laid out as
/// run_call lays them: interleaved (u[i * k + c]) or `separate`, k arrays of n back to back.
/// `active[i]`: entry i is read or written by a call.
CacheLines count_lines(std::span<const unsigned char> active, std::size_t k, bool separate);

/// The touch bound's bytes over the stream pass's (which reads and writes all n * k values):
/// (2 * 64 * touched lines + plan_bytes) / (2 * 8 * n * k); 0 when n = 0.
double touch_share(const CacheLines& lines, std::size_t plan_bytes, std::size_t n, std::size_t k);

class WireBound {
public:
  /// `messages`: pairwise's Stats::messages on this rank. Every rank must build the bound
  /// with the same k, on a `comm` that carries no other traffic.
  WireBound(std::span<const MessageStats> messages, std::size_t k, MPI_Comm comm);
  ~WireBound();
  WireBound(const WireBound&) = delete;
  WireBound& operator=(const WireBound&) = delete;
  void operator()();
  std::size_t bytes_sent() const noexcept { return bytes_sent_; }
  std::size_t messages_sent() const noexcept { return messages_sent_; }

private:
  std::vector<std::byte> send_, recv_;
  std::vector<MPI_Request> requests_;  // receives first, then sends
  std::size_t bytes_sent_ = 0, messages_sent_ = 0;
};

class RoundBound {
public:
  RoundBound(std::span<const MessageStats> messages, MPI_Comm comm);
  void operator()();

private:
  std::vector<int> to_, from_;
  std::vector<double> out_, in_;
  std::vector<MPI_Request> requests_;
  MPI_Comm comm_;
};

/// Bytes of one message of the wire bound: gsr's 16-byte header and the values.
std::size_t wire_message_bytes(std::size_t values, std::size_t k);

}  // namespace gsr::tools::bench
