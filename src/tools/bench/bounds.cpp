// tools/bench/bounds.cpp — the stream, wire, round and touch bounds of gsr-bench.
#include "tools/bench/bounds.hpp"

#include <algorithm>

namespace gsr::tools::bench {
namespace {

constexpr int wire_tag = 1, round_tag = 2;
constexpr std::size_t header_bytes = 16;  // gsr's MessageHeader, on every message

/// 1 and 0, read through volatile so the compiler cannot fold the update away.
volatile double one = 1.0, zero = 0.0;

}  // namespace

std::size_t wire_message_bytes(std::size_t values, std::size_t k) { return header_bytes + values * k * sizeof(double); }

void stream_pass(std::span<double> values) {
  double* const u = values.data();
  const double a = one, b = zero;
  for (std::size_t i = 0; i < values.size(); ++i) u[i] = u[i] * a + b;
  // The stores must happen: tell the compiler the array escapes.
  asm volatile("" : : "r"(u) : "memory");
}

StreamBound::StreamBound(std::size_t length) : u_(length, 0.5) {}

CacheLines count_lines(std::span<const unsigned char> active, std::size_t k, bool separate) {
  const std::size_t n = active.size(), value = sizeof(double);
  CacheLines lines;
  if (n == 0 || k == 0) return lines;
  lines.spanned = (n * k * value + cache_line_bytes - 1) / cache_line_bytes;
  // Entries go up through u, array after array, so each line is met in order: a line
  // shared by two entries (or by the end of one array and the start of the next) counts once.
  const std::size_t arrays = separate ? k : 1, width = separate ? value : k * value;
  std::size_t next = 0;  // the first line not yet counted
  for (std::size_t a = 0; a < arrays; ++a)
    for (std::size_t i = 0; i < n; ++i) {
      if (!active[i]) continue;
      const std::size_t begin = a * n * value + i * width, first = begin / cache_line_bytes,
                        last = (begin + width - 1) / cache_line_bytes;
      lines.touched += last + 1 - std::max(first, next);
      next = last + 1;
    }
  return lines;
}

double touch_share(const CacheLines& lines, std::size_t plan_bytes, std::size_t n, std::size_t k) {
  if (n == 0 || k == 0) return 0;
  const double moved = 2.0 * cache_line_bytes * static_cast<double>(lines.touched) + static_cast<double>(plan_bytes);
  return moved / (2.0 * sizeof(double) * static_cast<double>(n * k));
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
