// model/simulate.cpp — see simulate.hpp. Each routing mirrors the code that builds its real
// plan (src/exchange/*.cpp), over row classes instead of rows; a method's registry entry
// (exchange/registry.hpp, MethodTerms) says which routing it takes and what it adds.
#include "model/simulate.hpp"

#include "exchange/protocol.hpp"
#include "exchange/registry.hpp"
#include "transfer/schedule.hpp"

#include <algorithm>
#include <iterator>
#include <map>

namespace gsr::model {

namespace {

constexpr std::uint64_t value_bytes = 8, header_bytes = 16;
constexpr std::uint64_t descriptor_word = 8;  // the crystal router's setup descriptors are int64

/// Values this rank shares with each other rank (ascending rank): pairwise's messages.
std::map<int, std::uint64_t> shared_per_neighbor(const VirtualRank& vr, int me) {
  std::map<int, std::uint64_t> per;
  for (const RowClass& c : vr.classes)
    for (int h : c.holders)
      if (h != me) per[h] += c.count;
  return per;
}

/// A method of Routing::peers: pairwise, and neighbor with its announcements.
RankPlan peers_plan(const VirtualRank& vr, int me, std::uint64_t announcement_bytes) {
  RankPlan plan;
  std::uint64_t values = 0;
  for (const auto& [rank, count] : shared_per_neighbor(vr, me)) {
    plan.messages.push_back(MessageStats{0, rank, true, count});
    plan.messages.push_back(MessageStats{0, rank, false, count});
    values += count;
  }
  const std::uint64_t nn = plan.messages.size() / 2;
  plan.stages = {StageStats{nn, values}};
  plan.neighbors = static_cast<int>(nn);
  plan.messages_per_call = nn;
  plan.values_per_call = values;
  plan.call_bytes = value_bytes * values + header_bytes * nn + announcement_bytes * nn;
  return plan;
}

/// A class of rows travelling through the crystal router: `count` rows still owed to
/// `dests`. Where a row goes, and what it costs, depends on its destinations only, so rows
/// of different sources with the same destinations are merged (merge_classes): a rank then
/// holds at most one class per destination set, which keeps 10^5 ranks cheap.
struct Travelling {
  std::vector<int> dests;
  std::uint64_t count = 0;
};

void merge_classes(std::vector<Travelling>& held) {
  std::sort(held.begin(), held.end(), [](const Travelling& a, const Travelling& b) { return a.dests < b.dests; });
  std::size_t out = 0;
  for (std::size_t i = 0; i < held.size(); ++i) {
    if (out > 0 && held[out - 1].dests == held[i].dests)
      held[out - 1].count += held[i].count;
    else if (out != i)
      held[out++] = std::move(held[i]);
    else
      ++out;
  }
  held.resize(out);
}

MethodPlans router_plans(const Sharing& sharing) {
  const int P = sharing.ranks;
  MethodPlans out;
  out.rank.resize(static_cast<std::size_t>(P));
  std::vector<std::vector<detail::RouterStageShape>> shapes(static_cast<std::size_t>(P));
  std::vector<std::vector<Travelling>> held(static_cast<std::size_t>(P));
  std::size_t depth = 0;
  for (int r = 0; r < P; ++r) {
    shapes[r] = detail::router_stage_shapes(r, P);
    depth = std::max(depth, shapes[r].size());
    for (const RowClass& c : sharing.rank[r].classes) {
      Travelling t{{}, c.count};
      for (int h : c.holders)
        if (h != r) t.dests.push_back(h);
      if (!t.dests.empty()) held[r].push_back(std::move(t));
    }
  }
  std::vector<std::vector<Travelling>> inbox(static_cast<std::size_t>(P));
  std::vector<std::uint64_t> sent(static_cast<std::size_t>(P));
  for (std::size_t d = 0; d < depth; ++d) {
    for (int r = 0; r < P; ++r) {
      if (d >= shapes[r].size()) continue;
      const detail::RouterStageShape& shape = shapes[r][d];
      const bool lower = r < shape.mid;
      std::uint64_t rows = 0, words = 0;
      // Most classes go or stay whole; only a class with destinations on both sides is
      // split, so the common cases move it without allocating.
      std::vector<Travelling>& mine = held[r];
      std::size_t kept = 0;
      for (std::size_t i = 0; i < mine.size(); ++i) {
        Travelling& t = mine[i];
        const auto goes = [&](int dest) { return (dest < shape.mid) != lower; };
        const auto going = static_cast<std::uint64_t>(std::count_if(t.dests.begin(), t.dests.end(), goes));
        if (going > 0) {
          rows += t.count;
          words += t.count * (2 + 2 * going);
          if (going == t.dests.size()) {
            inbox[shape.send_to].push_back(std::move(t));
            continue;
          }
          Travelling go{{}, t.count};
          go.dests.reserve(going);
          std::copy_if(t.dests.begin(), t.dests.end(), std::back_inserter(go.dests), goes);
          std::erase_if(t.dests, goes);
          inbox[shape.send_to].push_back(std::move(go));
        }
        if (kept != i) mine[kept] = std::move(t);
        ++kept;
      }
      mine.resize(kept);
      sent[r] = rows;
      RankPlan& plan = out.rank[r];
      plan.stages.push_back(StageStats{1, rows});
      plan.messages.push_back(MessageStats{static_cast<int>(d), shape.send_to, true, rows});
      plan.setup_messages += 1;
      plan.setup_bytes += words * descriptor_word;
    }
    for (int r = 0; r < P; ++r) {
      if (d >= shapes[r].size()) continue;
      for (int source : shapes[r][d].sources)
        out.rank[r].messages.push_back(MessageStats{static_cast<int>(d), source, false, sent[source]});
      for (Travelling& t : inbox[r]) {
        std::erase(t.dests, r);
        if (!t.dests.empty()) held[r].push_back(std::move(t));
      }
      inbox[r].clear();
      merge_classes(held[r]);
    }
  }
  for (int r = 0; r < P; ++r) {
    RankPlan& plan = out.rank[r];
    std::vector<int> partners;
    for (const detail::RouterStageShape& s : shapes[r]) {
      partners.push_back(s.send_to);
      partners.insert(partners.end(), s.sources.begin(), s.sources.end());
    }
    std::sort(partners.begin(), partners.end());
    plan.neighbors = static_cast<int>(std::unique(partners.begin(), partners.end()) - partners.begin());
    for (const StageStats& s : plan.stages) {
      plan.messages_per_call += s.messages;
      plan.values_per_call += s.values;
    }
    plan.call_bytes = value_bytes * plan.values_per_call + header_bytes * plan.messages_per_call;
  }
  return out;
}

MethodPlans dense_plans(const Sharing& sharing) {
  constexpr std::uint64_t header_words = 4;
  const int P = sharing.ranks;
  const auto rounds = static_cast<std::uint64_t>(ceil_log2(P));
  MethodPlans out;
  out.allreduce_slots = sharing.holder_pairs;
  out.rank.resize(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r) {
    RankPlan& plan = out.rank[r];
    plan.neighbors = static_cast<int>(rounds);
    if (sharing.holder_pairs > 0) plan.stages = {StageStats{rounds, rounds * (sharing.holder_pairs + header_words)}};
    for (const StageStats& s : plan.stages) {
      plan.messages_per_call += s.messages;
      plan.values_per_call += s.values;
    }
    plan.call_bytes = value_bytes * plan.values_per_call + header_bytes * plan.messages_per_call;
    // Setup: a leader (lowest holder) sends each other holder the first slots of the groups
    // it leads and shares with it, one 8-byte word per group.
    std::map<int, std::uint64_t> slots_to;
    for (const RowClass& c : sharing.rank[r].classes)
      if (c.holders.front() == r)
        for (std::size_t j = 1; j < c.holders.size(); ++j) slots_to[c.holders[j]] += c.count;
    plan.setup_messages = slots_to.size();
    for (const auto& [rank, words] : slots_to) plan.setup_bytes += 8 * words;
  }
  return out;
}

// Memory (simulate.hpp): what every method keeps, then its own part. Sizes as the code
// allocates them: 8-byte offsets and 4-byte slot and row per source of the fold map
// (CombineMap), 4-byte ranks and indices, 8 bytes per value, 16 per message header.
void add_memory(const detail::MethodTerms& terms, const VirtualRank& vr, std::uint64_t allreduce_slots,
                RankPlan& plan) {
  const std::uint64_t groups = vr.shared_groups;
  std::uint64_t holders = 0;  // every holder's partial, this rank's included, per group
  for (const RowClass& c : vr.classes) holders += c.count * c.holders.size();
  plan.plan_bytes = groups == 0 ? 0 : 8 * (groups + 1) + 8 * holders;
  plan.buffer_bytes = 2 * value_bytes * groups;  // partials and results
  if (terms.routing == detail::Routing::dense) {
    plan.plan_bytes += 8 * groups;  // the slot this rank writes, per group
    if (allreduce_slots > 0) plan.buffer_bytes += 32 + value_bytes * allreduce_slots;
    return;
  }
  std::uint64_t sources = 0;
  for (const MessageStats& m : plan.messages) {
    const std::uint64_t bytes = header_bytes + value_bytes * m.values;
    // a receive posted before its message arrives has room for the longest head any peer
    // may send (exchange/protocol.hpp)
    const bool posted = terms.posts_receives_early && !m.sent;
    plan.buffer_bytes += posted ? std::max<std::uint64_t>(bytes, gsr::detail::usual_message_head_bytes) : bytes;
    if (!m.sent) ++sources;
  }
  if (terms.routing == detail::Routing::router) {
    // per stage: its record (four arrays and its partners, about 160 bytes with the array's
    // spare room), its sources (4 bytes) and their row counts (8); per row sent: segment and
    // row (4 + 4)
    plan.plan_bytes += 160 * plan.stages.size() + 12 * sources;
    for (const StageStats& st : plan.stages) plan.plan_bytes += 8 * st.values;
  } else {
    // the neighbours (4 bytes each), and the groups each one shares (an offset each, 4 bytes per group)
    const auto nn = static_cast<std::uint64_t>(plan.neighbors);
    plan.plan_bytes += 4 * nn + 4 * (nn + 1) + 4 * plan.values_per_call;
  }
}

}  // namespace

int ceil_log2(int p) {
  int rounds = 0;
  while ((1 << rounds) < p) ++rounds;
  return rounds;
}

MethodPlans simulate(Method method, const Sharing& sharing) {
  const detail::MethodTerms& terms = detail::method_entry(method).terms;
  MethodPlans out;
  switch (terms.routing) {
    case detail::Routing::router:
      out = router_plans(sharing);
      break;
    case detail::Routing::dense:
      out = dense_plans(sharing);
      break;
    case detail::Routing::peers:
      for (int r = 0; r < sharing.ranks; ++r) {
        out.rank.push_back(peers_plan(sharing.rank[r], r, terms.announcement_bytes));
        if (terms.idle_without_sharing && sharing.holder_pairs == 0) out.rank.back().stages.clear();
      }
      break;
  }
  out.method = method;
  for (int r = 0; r < sharing.ranks; ++r) add_memory(terms, sharing.rank[r], out.allreduce_slots, out.rank[r]);
  return out;
}

}  // namespace gsr::model
