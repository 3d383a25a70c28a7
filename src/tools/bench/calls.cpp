// tools/bench/calls.cpp — the contenders and the call kinds of gsr-bench.
#include "tools/bench/calls.hpp"

#include <array>

namespace gsr::tools::bench {

std::vector<Contender> build_contenders(std::span<const std::int64_t> ids, MPI_Comm comm) {
  std::vector<Contender> contenders;
  for (const Method method : registered_methods()) {
    SetupOptions options;
    options.method = method;
    contenders.push_back(Contender{std::string(to_string(method)), Handle(ids, comm, options)});
  }
  contenders.push_back(Contender{"auto", Handle(ids, comm)});
  return contenders;
}

std::string_view to_string(Mode mode) noexcept { return mode == Mode::blocking ? "blocking" : "nonblocking"; }

std::string CallKind::label() const {
  return std::string(call) + " k=" + std::to_string(k) + " " + std::string(to_string(mode));
}

std::vector<CallKind> call_kinds() {
  std::vector<CallKind> kinds;
  for (const Mode mode : {Mode::blocking, Mode::nonblocking})
    for (const CallKind kind :
         {CallKind{"gs", 1}, CallKind{"gs_vec", max_k}, CallKind{"gs_many", 1}, CallKind{"gs_many", max_k}})
      kinds.push_back(CallKind{kind.call, kind.k, mode});
  return kinds;
}

void run_call(Handle& handle, const CallKind& kind, void* u, Domain domain, Op op, Transpose t) {
  const std::size_t n = handle.size(), k = kind.k;
  const bool blocking = kind.mode == Mode::blocking;
  if (kind.call != "gs_many") {
    if (blocking)
      handle.apply_vec(u, n * k, k, domain, op, t);
    else
      handle.start_vec(u, n * k, k, domain, op, t).wait();
    return;
  }
  std::array<void*, max_k> arrays{};
  for (std::size_t c = 0; c < k; ++c) arrays[c] = static_cast<std::byte*>(u) + c * n * size_of(domain);
  if (blocking)
    handle.apply_many(arrays.data(), k, domain, op, t);
  else
    handle.start_many(arrays.data(), k, domain, op, t).wait();
}

}  // namespace gsr::tools::bench
