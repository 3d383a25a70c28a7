// tools/bench/bounds.cpp — the stream, wire and round bounds of gsr-bench.
#include "tools/bench/bounds.hpp"

namespace gsr::tools::bench {
namespace {

constexpr int wire_tag = 1, round_tag = 2;
constexpr std::size_t header_bytes = 16;  // gsr's MessageHeader, on every message

/// 1 and 0, read through volatile so the compiler cannot fold the update away.
volatile double one = 1.0, zero = 0.0;

}  // namespace

std::size_t wire_message_bytes(std::size_t values, std::size_t k) { return header_bytes + values * k * sizeof(double); }

StreamBound::StreamBound(std::size_t length) : u_(length, 0.5), a_(one), b_(zero) {}

void StreamBound::operator()() {
  double* const u = u_.data();
  const double a = a_, b = b_;
  for (std::size_t i = 0; i < u_.size(); ++i) u[i] = u[i] * a + b;
  // The stores must happen: tell the compiler the array escapes.
  asm volatile("" : : "r"(u) : "memory");
}

WireBound::WireBound(std::span<const MessageStats> messages, std::size_t k, MPI_Comm comm) {
  std::size_t sent = 0, received = 0;
  for (const MessageStats& m : messages) (m.sent ? sent : received) += wire_message_bytes(m.values, k);
  send_.resize(sent);
  recv_.resize(received);
  std::size_t send_at = 0, recv_at = 0;
  for (const bool sending : {false, true})
    for (const MessageStats& m : messages) {
      if (m.sent != sending) continue;
      const std::size_t bytes = wire_message_bytes(m.values, k);
      MPI_Request& request = requests_.emplace_back();
      if (sending) {
        MPI_Send_init(send_.data() + send_at, static_cast<int>(bytes), MPI_BYTE, m.peer, wire_tag, comm, &request);
        send_at += bytes;
        ++messages_sent_;
      } else {
        MPI_Recv_init(recv_.data() + recv_at, static_cast<int>(bytes), MPI_BYTE, m.peer, wire_tag, comm, &request);
        recv_at += bytes;
      }
    }
  bytes_sent_ = sent;
}

WireBound::~WireBound() {
  for (MPI_Request& request : requests_) MPI_Request_free(&request);
}

void WireBound::operator()() {
  if (requests_.empty()) return;  // Open MPI rejects MPI_Startall's null array even with count 0
  MPI_Startall(static_cast<int>(requests_.size()), requests_.data());
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

RoundBound::RoundBound(std::span<const MessageStats> messages, MPI_Comm comm) : comm_(comm) {
  for (const MessageStats& m : messages) (m.sent ? to_ : from_).push_back(m.peer);
  out_.assign(to_.size(), 1.0);
  in_.assign(from_.size(), 0.0);
  requests_.resize(to_.size() + from_.size());
}

void RoundBound::operator()() {
  std::size_t r = 0;
  for (std::size_t j = 0; j < from_.size(); ++j)
    MPI_Irecv(&in_[j], 1, MPI_DOUBLE, from_[j], round_tag, comm_, &requests_[r++]);
  for (std::size_t j = 0; j < to_.size(); ++j)
    MPI_Isend(&out_[j], 1, MPI_DOUBLE, to_[j], round_tag, comm_, &requests_[r++]);
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

}  // namespace gsr::tools::bench
