// exchange/registry.cpp — the method registry and the checks shared by every method.
#include "exchange/exchange.hpp"
#include "exchange/allreduce.hpp"
#include "exchange/crystal_router.hpp"
#include "exchange/pairwise.hpp"

#include <utility>

namespace gsr::detail {

std::uint64_t CallInfo::signature() const noexcept {
  return (static_cast<std::uint64_t>(dom) << 56) | (static_cast<std::uint64_t>(op) << 48) |
         (static_cast<std::uint64_t>(transpose) << 40) | (static_cast<std::uint64_t>(many) << 32) |
         static_cast<std::uint64_t>(k & 0xffffffffu);
}

std::string CallInfo::describe() const {
  return "dom=" + std::string(to_string(dom)) + " op=" + std::string(to_string(op)) +
         " transpose=" + std::to_string(static_cast<int>(transpose)) + " k=" + std::to_string(k) +
         " layout=" + (many ? "many" : "vec");
}

namespace {
CallInfo decode(std::uint64_t s) {
  CallInfo c;
  c.dom = static_cast<Domain>(s >> 56);
  c.op = static_cast<Op>((s >> 48) & 0xff);
  c.transpose = static_cast<Transpose>((s >> 40) & 0xff);
  c.many = ((s >> 32) & 0xff) != 0;
  c.k = s & 0xffffffffu;
  return c;
}
}  // namespace

void HeaderCheck::check(const MessageHeader& h, const CallInfo& mine, int peer) {
  if (code_ != ErrorCode::ok) return;
  if (h.failed == 2) {  // a multi-stage method passing on a problem it received
    code_ = ErrorCode::remote;
    message_ = "gsr: rank " + std::to_string(peer) +
               " received a failed or disagreeing message earlier in this call; no values were exchanged";
  } else if (h.failed) {
    code_ = ErrorCode::remote;
    message_ = "gsr: rank " + std::to_string(peer) +
               " rejected its arguments for this call (see its error); no values were exchanged";
  } else if (h.signature != mine.signature()) {
    code_ = ErrorCode::mismatch;
    message_ = "gsr: ranks disagree about the call: rank " + std::to_string(peer) + " called with " +
               decode(h.signature).describe() + ", this rank with " + mine.describe();
  }
}

void HeaderCheck::check_size(std::size_t got, std::size_t expected, const CallInfo& mine, int peer) {
  if (code_ != ErrorCode::ok || got == expected) return;
  code_ = ErrorCode::mismatch;
  message_ = "gsr: ranks disagree about the call: rank " + std::to_string(peer) + " sent " +
             std::to_string(got) + " bytes where this rank's call (" + mine.describe() + ") expects " +
             std::to_string(expected);
}

void HeaderCheck::check_status(int mpi_error, const CallInfo& mine, int peer) {
  if (code_ != ErrorCode::ok || mpi_error == MPI_SUCCESS) return;
  if (mpi_error == MPI_ERR_TRUNCATE) {
    code_ = ErrorCode::mismatch;
    message_ = "gsr: ranks disagree about the call: rank " + std::to_string(peer) +
               " sent more data than this rank's call (" + mine.describe() + ") expects";
    return;
  }
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(mpi_error, text, &length);
  code_ = ErrorCode::mpi;
  message_ = "gsr: message from rank " + std::to_string(peer) + " failed: " + text;
}

void HeaderCheck::fail(ErrorCode code, std::string message) {
  if (code_ != ErrorCode::ok) return;
  code_ = code;
  message_ = std::move(message);
}

int wait_all(std::vector<MPI_Request>& requests, std::vector<MPI_Status>& statuses) {
  statuses.resize(requests.size());
  if (requests.empty()) return MPI_SUCCESS;
  MPI_Errhandler world_handler;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &world_handler);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (auto& status : statuses) status.MPI_ERROR = MPI_SUCCESS;
  int rc = MPI_Waitall(static_cast<int>(requests.size()), requests.data(), statuses.data());
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, world_handler);
  MPI_Errhandler_free(&world_handler);
  if (rc == MPI_ERR_IN_STATUS) {
    for (const auto& status : statuses)
      if (status.MPI_ERROR != MPI_SUCCESS && status.MPI_ERROR != MPI_ERR_PENDING) return status.MPI_ERROR;
  }
  return rc;
}

void HeaderCheck::throw_if_failed() const {
  if (code_ != ErrorCode::ok) throw Error(code_, message_);
}

bool method_available(Method m) noexcept {
  return m == Method::pairwise || m == Method::crystal_router || m == Method::allreduce;
}

std::unique_ptr<Exchange> make_exchange(Method m, const Plan& plan, MPI_Comm comm) {
  switch (m) {
    case Method::pairwise: return std::make_unique<PairwiseExchange>(plan, comm);
    case Method::crystal_router: return std::make_unique<CrystalRouterExchange>(plan, comm);
    case Method::allreduce: {
      auto exchange = std::make_unique<AllreduceExchange>(plan, comm);
      if (!exchange->usable())
        throw Error(ErrorCode::invalid_argument,
                    "gsr: allreduce would need " + std::to_string(exchange->dense_slots()) +
                        " dense slots, more than it can address; use pairwise or crystal_router");
      return exchange;
    }
    default: break;
  }
  throw Error(ErrorCode::invalid_argument,
              "gsr: method '" + std::string(to_string(m)) + "' is not available");
}

}  // namespace gsr::detail
