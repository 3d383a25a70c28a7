// mpi/keeper.cpp — see keeper.hpp.
#include "mpi/keeper.hpp"

#include <mutex>
#include <vector>

namespace gsr::detail {

void keep_until_exit(std::shared_ptr<void> remains) {
  static std::mutex lock;
  static std::vector<std::shared_ptr<void>> kept;
  const std::lock_guard<std::mutex> guard(lock);
  kept.push_back(std::move(remains));
}

}  // namespace gsr::detail
