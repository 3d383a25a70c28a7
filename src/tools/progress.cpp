// tools/progress.cpp — the progress bar of the command-line tools.
#include "tools/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace gsr::tools {

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

ProgressBar::ProgressBar(bool enabled, std::string unit)
    : enabled_(enabled), terminal_(stderr_is_terminal()), unit_(std::move(unit)) {}

void ProgressBar::operator()(std::int64_t done, std::int64_t total, std::string_view what) {
  if (!enabled_ || total <= 0) return;
  const int percent = static_cast<int>(100 * done / total);
  if (percent == last_percent_ && what == last_what_) return;
  last_percent_ = percent;
  last_what_ = what;
  constexpr int width = 40;
  const int filled = percent * width / 100;
  // On a terminal: back to the line's start, and clear what a longer step name left.
  std::fputs(terminal_ ? "\r\033[K" : "", stderr);
  std::fprintf(stderr, "[%.*s%*s] %3d%%  %lld / %lld %s", filled, "########################################",
               width - filled, "", percent, static_cast<long long>(done), static_cast<long long>(total), unit_.c_str());
  if (!what.empty()) std::fprintf(stderr, "  %.*s", static_cast<int>(what.size()), what.data());
  line_open_ = terminal_ && done != total;
  if (!line_open_) std::fputc('\n', stderr);
  std::fflush(stderr);
}

void ProgressBar::end_line() {
  if (!line_open_) return;
  std::fputc('\n', stderr);
  std::fflush(stderr);
  line_open_ = false;
}

}  // namespace gsr::tools
