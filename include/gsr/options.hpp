// gsr/options.hpp — how a collective call's messages travel and how long it waits for other
// ranks: shared by handles (SetupOptions::messages), record transfer, scatter and gather.
// A setting left unset comes from its environment variable, else its default; the table of
// every variable is in docs/configuration.md.
#pragma once

#include <cstddef>
#include <optional>

namespace gsr {

struct MessageOptions {
  /// GSR_TIMEOUT: seconds a call waits for another rank before it fails with
  /// ErrorCode::timeout (0: no limit; default 300). Every rank should pass the same.
  std::optional<double> timeout;
  /// Messages of at least this many bytes travel in chunks this long, the path a message
  /// over 2 GiB takes where MPI has no large counts (0: only there). For tests of that path;
  /// every rank must pass the same.
  std::size_t chunk_bytes = 0;
};

}  // namespace gsr
