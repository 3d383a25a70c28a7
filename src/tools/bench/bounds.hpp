// tools/bench/bounds.hpp — what a gather-scatter call cannot beat, measured by gsr-bench on
// the same sizes as the calls (docs/performance.md):
//   stream  one in-place pass u[i] = u[i] * a + b over the n * k values of u: every value
//           read and written once, as a call must at least do;
//   wire    exactly the messages of the pairwise plan (Stats::messages: a 16-byte header
//           plus values * k * 8 bytes each) as raw persistent MPI requests, receives
//           started first: no packing, no probing, no headers checked;
//   round   one 1-value Isend/Irecv with each of the same neighbours: the latency floor.
// Each object is one bound; operator() runs it once.
#pragma once

#include <gsr/handle.hpp>

#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

namespace gsr::tools::bench {

class StreamBound {
public:
  explicit StreamBound(std::size_t length);
  void operator()();

private:
  std::vector<double> u_;
  double a_, b_;
};

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
