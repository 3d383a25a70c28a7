// tools/progress.hpp — the one-line progress bar the command-line tools draw on stderr
// (gsr-mesh while writing, gsr-check between its steps).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gsr::tools {

/// Whether this process's stderr is a terminal. Under mpiexec it usually is not (MPICH
/// forwards the ranks' output through pipes), whatever the launcher's stderr is.
bool stderr_is_terminal();

/// Draws "[#####     ]  50%  5 / 10 UNIT  WHAT" on stderr whenever the percentage or the
/// step's name changes. On a terminal the line is redrawn in place; anywhere else (a pipe,
/// a log) each change is a line of its own, so logs stay readable. Draws nothing when
/// constructed disabled.
class ProgressBar {
public:
  ProgressBar(bool enabled, std::string unit);

  /// `done` of `total` units; `what` names the current step (may be empty).
  void operator()(std::int64_t done, std::int64_t total, std::string_view what = {});

  /// Ends a line left open by an unfinished redraw in place, so what is printed next (an
  /// error) starts on a line of its own.
  void end_line();

private:
  bool enabled_;
  bool terminal_;
  std::string unit_;
  bool line_open_ = false;
  int last_percent_ = -1;
  std::string last_what_;
};

}  // namespace gsr::tools
