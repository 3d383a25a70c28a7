// transfer/scatter_gather.hpp — the spanning binomial tree behind gsr::scatter and
// gsr::gather (include/gsr/scatter_gather.hpp), as a pure function of a rank's position.
//
// Ranks are relabelled relative to the root, v = (rank - root) mod P, so the root is 0.
// With d = ceil(log2 P) rounds, round t (t = 0 .. d-1) uses the bit h = 2^(d-1-t): a rank v
// that is a multiple of 2h holds the blocks of [v, min(v + 2h, P)) and hands the upper part
// [v + h, min(v + 2h, P)) to v + h, if that rank exists. So rank v != 0 hears from its
// parent v - lowbit(v) once, in the round of its lowest set bit, and then feeds its children
// v + h for every smaller h. A gather runs the same steps backwards with the direction of
// every message reversed. P need not be a power of two: a missing child is simply skipped,
// and each bundle covers only ranks that exist.
#pragma once

#include <vector>

namespace gsr::detail {

/// ceil(log2 ranks) (0 for one rank).
int tree_rounds(int ranks) noexcept;

/// One message of the scatter tree at one rank, in relative labels.
struct TreeStep {
  int round = 0;             // 0 .. tree_rounds - 1
  int partner = 0;           // relative rank at the other end
  bool from_parent = false;  // scatter: received from the parent (else sent to a child)
  int first = 0, end = 0;    // the relative ranks [first, end) whose blocks travel
};

/// The scatter steps of relative rank `relative` among `ranks`, in round order: at most one
/// receive (first, unless relative is the root) followed by the sends to its children.
std::vector<TreeStep> scatter_steps(int relative, int ranks);

}  // namespace gsr::detail
