// io/import/numbering.cpp — global ids of the GLL nodes from the elements' corner vertex ids.
//
// The mesh's entities are its vertices, edges and faces, each known by a key made of vertex
// ids: a vertex by its id, an edge by its two ends sorted, a face by its four corners sorted
// (in 2-D the edges are the faces). Every rank lists the distinct keys of its elements, each
// with its smallest occurrence (element * 16 + slot, the slot being the corner, edge or face
// of the element), and sends each key to the rank a hash of it names (its owner). The owner
// sees every rank that holds the key and picks its introducer: the rank with the smallest
// occurrence. The numbering is "first touch": element after element, each element numbers
// the entities it introduces (its vertices by corner, then its edges, then its faces), then
// its interior; so an element's first id is the sum of the node counts of the elements
// before it, found by a local sum and an exscan over the ranks, and no id depends on the rank
// count. The introducer then sends each entity's first id to the other ranks that hold it
// (the owner told it which). Nodes inside an edge are counted from the end with the smaller
// vertex id; nodes inside a face in a frame its vertex ids fix (origin at the corner with the
// smallest id, first axis toward the smaller of that corner's two neighbours), so that every
// element holding the edge or face gives its nodes the same ids whatever its orientation.
// Checked on the way (each an Error(io) on every rank, docs/errors.md "Numbering"): a corner
// vertex repeated within an element (while listing the keys), a face of three elements and
// a face two elements hold as different quadrilaterals (the vertex across from the smallest
// differs; where both holders are on one rank while listing, else at the owner).
//
// Messages: one transfer of the distinct keys to their owners, one of the owners' answers,
// one of the introduced entities' ids; collectives: two agreements (the arguments and the
// local checks; the owners' checks), an exscan and an allreduce, besides the transfers'.
// Memory: O(local elements) per rank (the keys a rank owns are, for a hash, about as many as
// it sends); on a 47 x 47 x 45 box at N = 7 on 2 ranks, about 80 MB per rank besides the
// 204 MB of ids, and a tenth of the time of a gs setup on the ids.
#include "io/import/numbering.hpp"

#include "config/config.hpp"
#include "io/import/element_block.hpp"
#include "mpi/checked.hpp"
#include "mpi/polled.hpp"

#include <gsr/error.hpp>
#include <gsr/mesh.hpp>
#include <gsr/transfer.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace gsr::io::import {
namespace {

// An occurrence of an entity: the element (0-based, global) times 16 plus the slot (corner
// 0-7, edge 0-11 or face 0-5 of the element). Ordering occurrences orders by element first.
constexpr int slot_bits = 4;
constexpr std::int64_t occurrence(std::int64_t element, int slot) { return (element << slot_bits) | slot; }
constexpr std::int64_t element_of(std::int64_t occ) { return occ >> slot_bits; }
constexpr int slot_of(std::int64_t occ) { return static_cast<int>(occ & ((1 << slot_bits) - 1)); }

enum Type : std::int32_t { vertex = 0, edge = 1, face = 2 };

/// One distinct key of a rank, as sent to its owner.
struct KeyRecord {
  std::int64_t key[4] = {0, 0, 0, 0};  // vertex: (v, 0, 0, 0); edge: (a, b, 0, 0) sorted; face: sorted
  std::int64_t first = -1;             // the sender's smallest occurrence
  std::int64_t second = -1;            // its second (of a face; -1: none)
  std::int64_t index = 0;              // the key's position in the sender's list
  std::int64_t opposite = 0;           // a face's: the corner diagonally across from its smallest
  std::int32_t count = 0;              // occurrences on the sender
  std::int32_t type = vertex;
};

/// An owner's answer to one holder of a key.
struct Answer {
  enum Kind : std::int32_t { introduce = 0, neighbor = 1, forward = 2 };
  std::int64_t index = 0;  // the key's position in the receiver's list
  std::int64_t other = 0;  // neighbor: the face's other occurrence; forward: index on `rank`
  std::int32_t kind = introduce;
  std::int32_t rank = 0;  // forward: the rank that holds the key too
};

/// An introduced entity's first id, for another holder of it.
struct FirstId {
  std::int64_t index = 0;  // the key's position in the receiver's list
  std::int64_t id = 0;
};

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

int owner_of(const KeyRecord& r, int ranks) {
  std::uint64_t h = mix(static_cast<std::uint64_t>(r.type) + 0x9e3779b97f4a7c15ULL);
  for (std::int64_t k : r.key) h = mix(h ^ static_cast<std::uint64_t>(k));
  return static_cast<int>(h % static_cast<std::uint64_t>(ranks));
}

template <int K>
struct Occurrence {
  std::array<std::int64_t, K> key;
  std::int64_t occ;
  std::int64_t opposite = 0;  // a face's: the corner diagonally across from its smallest
  // Plain loops: std::array's comparisons went through memcmp, 15 % of the step.
  bool same_key(const Occurrence& o) const {
    for (int k = 0; k < K; ++k) {
      if (key[k] != o.key[k]) return false;
    }
    return true;
  }
  bool operator<(const Occurrence& o) const {
    for (int k = 0; k < K; ++k) {
      if (key[k] != o.key[k]) return key[k] < o.key[k];
    }
    return occ < o.occ;
  }
};

std::string file_prefix(const std::string& source) { return "gsr: file '" + source + "': "; }

std::string face_name(const std::int64_t (&key)[4], int dim) {
  std::string s = dim == 3 ? "the face with vertices " : "the edge with vertices ";
  const int n = dim == 3 ? 4 : 2;
  for (int k = 0; k < n; ++k) s += (k ? " " : "") + std::to_string(key[k]);
  return s;
}

[[noreturn]] void throw_shared_face(const std::string& source, int dim, const std::int64_t (&key)[4],
                                    std::vector<std::int64_t> elements) {
  std::sort(elements.begin(), elements.end());
  std::string list;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == elements.size() ? " and " : ", ") + std::to_string(elements[i] + 1);
  }
  throw Error(ErrorCode::io, file_prefix(source) + "element " + std::to_string(elements[0] + 1) + ": " +
                                 face_name(key, dim) + " is shared by elements " + list +
                                 (dim == 3 ? " (a face belongs to at most two elements)"
                                           : " (in 2-D an edge belongs to at most two elements)"));
}

/// Two elements hold a face by the same four vertices but not as the same quadrilateral: the
/// vertex diagonally across from the smallest differs (the faces' nodes have no common frame).
[[noreturn]] void throw_twisted_face(const std::string& source, const std::int64_t (&key)[4], std::int64_t a,
                                     std::int64_t opposite_a, std::int64_t b, std::int64_t opposite_b) {
  if (b < a) {
    std::swap(a, b);
    std::swap(opposite_a, opposite_b);
  }
  throw Error(ErrorCode::io, file_prefix(source) + "element " + std::to_string(a + 1) + ": " + face_name(key, 3) +
                                 " is a face of elements " + std::to_string(a + 1) + " and " + std::to_string(b + 1) +
                                 " with its corners in another order (vertex " + std::to_string(key[0]) +
                                 " is across from " + std::to_string(opposite_a) + " in element " +
                                 std::to_string(a + 1) + ", from " + std::to_string(opposite_b) + " in element " +
                                 std::to_string(b + 1) + "): the elements do not match there");
}

/// The distinct keys of `occ` (sorted here), appended to `keys` as records of `type`; slot_key
/// gets, per local element and slot, the key's position in `keys`.
template <int K>
void collect(std::vector<Occurrence<K>>& occ, Type type, int slots, std::int64_t first, std::vector<KeyRecord>& keys,
             std::vector<std::int64_t>& slot_key, bool shared_by_two, const std::string& source, int dim) {
  std::sort(occ.begin(), occ.end());
  slot_key.assign(occ.size(), 0);
  for (std::size_t i = 0; i < occ.size();) {
    std::size_t j = i + 1;
    while (j < occ.size() && occ[j].same_key(occ[i])) ++j;
    KeyRecord r;
    for (int k = 0; k < K; ++k) r.key[k] = occ[i].key[k];
    r.first = occ[i].occ;
    r.second = j - i > 1 ? occ[i + 1].occ : -1;
    r.index = static_cast<std::int64_t>(keys.size());
    r.count = static_cast<std::int32_t>(std::min<std::size_t>(j - i, 1 << 30));
    r.type = type;
    r.opposite = occ[i].opposite;
    if (shared_by_two && j - i > 2) {
      throw_shared_face(source, dim, r.key,
                        {element_of(occ[i].occ), element_of(occ[i + 1].occ), element_of(occ[i + 2].occ)});
    }
    if (j - i == 2 && occ[i].opposite != occ[i + 1].opposite) {
      throw_twisted_face(source, r.key, element_of(occ[i].occ), occ[i].opposite, element_of(occ[i + 1].occ),
                         occ[i + 1].opposite);
    }
    for (std::size_t m = i; m < j; ++m) {
      slot_key[static_cast<std::size_t>((element_of(occ[m].occ) - first) * slots + slot_of(occ[m].occ))] = r.index;
    }
    keys.push_back(r);
    i = j;
  }
}

// Edges: 3-D edge e runs along axis e / 4 and sits at bits (e & 1, (e >> 1) & 1) of the other
// two axes (in increasing order); 2-D edge e along axis e / 2 at bit e & 1 of the other.
struct EdgeShape {
  int axis;
  int low;  // the corner it starts from (its bit on `axis` is 0)
};

EdgeShape edge_shape(int dim, int e) {
  if (dim == 2) {
    const int axis = e / 2;
    return {axis, (e & 1) << (1 - axis)};
  }
  const int axis = e / 4;
  const int o1 = axis == 0 ? 1 : 0, o2 = axis == 2 ? 1 : 2;
  return {axis, ((e & 1) << o1) | (((e >> 1) & 1) << o2)};
}

// In 2-D an edge is a face: edge e is face {2, 3, 0, 1}[e] and face f is edge {2, 3, 0, 1}[f].
constexpr int face_edge_2d[4] = {2, 3, 0, 1};

}  // namespace

/// Two elements with the same set of corner vertices: a duplicated element, or a periodic
/// direction only two elements across, where each element's neighbour across the period has
/// its very vertices and distinct edges and faces would share keys. Each element's sorted
/// corners go to an owner rank by hash; an owner that finds two alike makes every rank throw.
void check_distinct_elements(std::span<const std::int64_t> corners, int dim, std::int64_t first,
                             const std::string& source, MPI_Comm comm, double timeout) {
  struct ElementKey {
    std::int64_t ids[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::int64_t element = 0;
  };
  const int nc = corners_per_element(dim), ranks = detail::comm_size(comm);
  const std::size_t count = corners.size() / static_cast<std::size_t>(nc);
  std::vector<ElementKey> keys(count);
  std::vector<int> owners(count);
  for (std::size_t e = 0; e < count; ++e) {
    ElementKey& k = keys[e];
    std::copy_n(corners.data() + e * static_cast<std::size_t>(nc), nc, k.ids);
    std::sort(k.ids, k.ids + nc);
    k.element = first + static_cast<std::int64_t>(e);
    std::uint64_t h = 0x51ed270b27a1f3d5ULL;
    for (int c = 0; c < nc; ++c) h = mix(h ^ static_cast<std::uint64_t>(k.ids[c]));
    owners[e] = static_cast<int>(h % static_cast<std::uint64_t>(ranks));
  }
  Received<ElementKey> got = transfer(keys, owners, comm);
  // The first pair in element order over all ranks, so that the message does not depend on P.
  long long pair[2] = {std::numeric_limits<long long>::max(), std::numeric_limits<long long>::max()};
  detail::collectively(
      comm, timeout,
      [&] {
        std::vector<ElementKey>& all = got.records;
        const auto less = [nc](const ElementKey& a, const ElementKey& b) {
          for (int c = 0; c < nc; ++c)
            if (a.ids[c] != b.ids[c]) return a.ids[c] < b.ids[c];
          return a.element < b.element;
        };
        std::sort(all.begin(), all.end(), less);
        for (std::size_t i = 1; i < all.size(); ++i) {
          if (!std::equal(all[i].ids, all[i].ids + nc, all[i - 1].ids)) continue;
          const long long a = all[i - 1].element, b = all[i].element;  // a < b: sorted by element
          if (a < pair[0] || (a == pair[0] && b < pair[1])) pair[0] = a, pair[1] = b;
        }
      },
      detail::Report::same_everywhere);
  long long smallest = pair[0];
  detail::allreduce_polled(&smallest, 1, MPI_LONG_LONG, MPI_MIN, comm, timeout);
  if (smallest == std::numeric_limits<long long>::max()) return;
  if (pair[0] != smallest) pair[1] = std::numeric_limits<long long>::max();
  detail::allreduce_polled(&pair[1], 1, MPI_LONG_LONG, MPI_MIN, comm, timeout);
  throw Error(ErrorCode::io, file_prefix(source) + "elements " + std::to_string(smallest + 1) + " and " +
                                 std::to_string(pair[1] + 1) +
                                 " have the same vertices: a duplicated element, or a periodic direction only two "
                                 "elements across (it needs at least three)");
}

Numbering number_nodes(std::span<const std::int64_t> corners, int dim, int order, std::int64_t first,
                       std::int64_t elements, const std::string& source, MPI_Comm comm) {
  detail::require_communicator(comm, "number_nodes");
  const double timeout = detail::timeout_or_default({});
  const int rank = detail::comm_rank(comm), ranks = detail::comm_size(comm);

  const int N = order;
  const int nc = corners_per_element(dim), ne = edges_per_element(dim), nf = faces_per_element(dim);
  const Type face_type = dim == 3 ? face : edge;  // the entities two elements share
  std::int64_t count = 0;                         // local elements
  std::size_t ucount = 0;

  // ---- the distinct keys of this rank's elements ----------------------------------------------
  std::vector<KeyRecord> keys;
  std::vector<std::int64_t> vertex_key, edge_key, face_key;  // per local element and slot
  detail::collectively(
      comm, timeout,
      [&] {
        if (dim != 2 && dim != 3) {
          throw Error(ErrorCode::invalid_argument,
                      file_prefix(source) + "numbering: dimension " + std::to_string(dim) + " is not 2 or 3");
        }
        if (order < 1 || order > 64) {
          throw Error(ErrorCode::invalid_argument,
                      file_prefix(source) + "order " + std::to_string(order) + " is outside 1..64");
        }
        if (corners.size() % static_cast<std::size_t>(nc) != 0) {
          throw Error(ErrorCode::invalid_argument,
                      file_prefix(source) + "numbering: " + std::to_string(corners.size()) +
                          " corner ids are not a whole number of elements of " + std::to_string(nc) + " corners");
        }
        count = static_cast<std::int64_t>(corners.size() / static_cast<std::size_t>(nc));
        const auto range = block_range(elements, rank, ranks);
        if (elements < 0 || first != range[0] || first + count != range[1]) {
          throw Error(ErrorCode::invalid_argument,
                      file_prefix(source) + "numbering: rank " + std::to_string(rank) + " holds elements [" +
                          std::to_string(first) + ", " + std::to_string(first + count) + ") of " +
                          std::to_string(elements) + ", not its block [" + std::to_string(range[0]) + ", " +
                          std::to_string(range[1]) + ")");
        }
        ucount = static_cast<std::size_t>(count);
        for (std::size_t e = 0; e < ucount; ++e) {
          const std::int64_t* c = corners.data() + e * nc;
          for (int a = 0; a < nc; ++a) {
            for (int b = a + 1; b < nc; ++b) {
              if (c[a] == c[b]) {
                throw Error(ErrorCode::io, file_prefix(source) + "element " +
                                               std::to_string(first + static_cast<std::int64_t>(e) + 1) + ": vertex " +
                                               std::to_string(c[a]) +
                                               " is at two of its corners (a degenerate element)");
              }
            }
          }
        }
      },
      detail::Report::same_everywhere);
  check_distinct_elements(corners, dim, first, source, comm, timeout);
  detail::collectively(
      comm, timeout,
      [&] {
        keys.reserve(ucount * static_cast<std::size_t>(dim == 3 ? 8 : 3));
        {
          std::vector<Occurrence<1>> occ(ucount * nc);
          for (std::size_t e = 0; e < ucount; ++e) {
            for (int a = 0; a < nc; ++a) {
              occ[e * nc + a] = {{corners[e * nc + a]}, occurrence(first + static_cast<std::int64_t>(e), a)};
            }
          }
          collect(occ, vertex, nc, first, keys, vertex_key, false, source, dim);
        }
        {
          std::vector<Occurrence<2>> occ(ucount * ne);
          for (std::size_t e = 0; e < ucount; ++e) {
            for (int j = 0; j < ne; ++j) {
              const EdgeShape s = edge_shape(dim, j);
              std::int64_t a = corners[e * nc + s.low], b = corners[e * nc + (s.low | (1 << s.axis))];
              if (a > b) std::swap(a, b);
              occ[e * ne + j] = {{a, b}, occurrence(first + static_cast<std::int64_t>(e), j)};
            }
          }
          collect(occ, edge, ne, first, keys, edge_key, dim == 2, source, dim);
        }
        if (dim == 3) {
          std::vector<Occurrence<4>> occ(ucount * nf);
          for (std::size_t e = 0; e < ucount; ++e) {
            for (int f = 0; f < nf; ++f) {
              const int axis = f / 2, side = f % 2;
              const int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
              std::array<std::int64_t, 4> k;
              for (int q = 0; q < 4; ++q) {
                k[q] = corners[e * nc + ((side << axis) | ((q & 1) << u) | (((q >> 1) & 1) << v))];
              }
              // k holds the corners (0,0), (1,0), (0,1), (1,1) of the face: q and q ^ 3 are opposite.
              const int smallest = static_cast<int>(std::min_element(k.begin(), k.end()) - k.begin());
              const std::int64_t opposite = k[static_cast<std::size_t>(smallest ^ 3)];
              std::sort(k.begin(), k.end());
              occ[e * nf + f] = {k, occurrence(first + static_cast<std::int64_t>(e), f), opposite};
            }
          }
          collect(occ, face, nf, first, keys, face_key, true, source, dim);
        }
      },
      detail::Report::same_everywhere);

  // ---- the owners: introducers, neighbours across ranks, counts ----------------------------------
  std::vector<Answer> answers;
  std::vector<int> answer_to;
  std::int64_t counts[4] = {0, 0, 0, 0};  // vertices, edges, faces (3-D), nodes (below)
  {
    std::vector<int> owners(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) owners[i] = owner_of(keys[i], ranks);
    Received<KeyRecord> got = transfer(keys, owners, comm);
    detail::collectively(
        comm, timeout,
        [&] {
          const auto& rec = got.records;
          // Sorted by value (not through indices, whose every comparison missed the cache).
          struct Item {
            std::int64_t key[4];
            std::int32_t type;
            std::uint32_t pos;
          };
          std::vector<Item> items(rec.size());
          for (std::size_t i = 0; i < rec.size(); ++i) {
            items[i] = {{rec[i].key[0], rec[i].key[1], rec[i].key[2], rec[i].key[3]},
                        rec[i].type,
                        static_cast<std::uint32_t>(i)};
          }
          std::sort(items.begin(), items.end(), [](const Item& x, const Item& y) {
            if (x.type != y.type) return x.type < y.type;
            for (int k = 0; k < 4; ++k) {
              if (x.key[k] != y.key[k]) return x.key[k] < y.key[k];
            }
            return x.pos < y.pos;
          });
          std::vector<std::uint32_t> by_key(rec.size());
          for (std::size_t i = 0; i < rec.size(); ++i) by_key[i] = items[i].pos;
          auto same = [&](std::size_t a, std::size_t b) {
            const Item &x = items[a], &y = items[b];
            return x.type == y.type && x.key[0] == y.key[0] && x.key[1] == y.key[1] && x.key[2] == y.key[2] &&
                   x.key[3] == y.key[3];
          };
          answers.reserve(rec.size() + rec.size() / 4);
          answer_to.reserve(rec.size() + rec.size() / 4);
          for (std::size_t i = 0; i < by_key.size();) {
            std::size_t j = i + 1;
            while (j < by_key.size() && same(i, j)) ++j;
            const KeyRecord& head = rec[by_key[i]];
            ++counts[head.type];
            std::size_t intro = i;
            std::int64_t total = 0;
            for (std::size_t m = i; m < j; ++m) {
              total += rec[by_key[m]].count;
              if (rec[by_key[m]].first < rec[by_key[intro]].first) intro = m;
            }
            if (head.type == face_type && total > 2) {
              std::vector<std::int64_t> holders;
              for (std::size_t m = i; m < j; ++m) {
                holders.push_back(element_of(rec[by_key[m]].first));
                if (rec[by_key[m]].second >= 0) holders.push_back(element_of(rec[by_key[m]].second));
              }
              throw_shared_face(source, dim, head.key, holders);
            }
            const std::uint32_t in = by_key[intro];
            answers.push_back({rec[in].index, 0, Answer::introduce, 0});
            answer_to.push_back(got.sources[in]);
            for (std::size_t m = i; m < j; ++m) {
              if (m == intro) continue;
              const std::uint32_t o = by_key[m];
              answers.push_back({rec[in].index, rec[o].index, Answer::forward, got.sources[o]});
              answer_to.push_back(got.sources[in]);
            }
            if (head.type == face_type && j - i == 2) {  // one occurrence on each of two ranks
              const std::uint32_t a = by_key[i], b = by_key[i + 1];
              if (dim == 3 && rec[a].opposite != rec[b].opposite) {
                throw_twisted_face(source, head.key, element_of(rec[a].first), rec[a].opposite,
                                   element_of(rec[b].first), rec[b].opposite);
              }
              answers.push_back({rec[a].index, rec[b].first, Answer::neighbor, 0});
              answer_to.push_back(got.sources[a]);
              answers.push_back({rec[b].index, rec[a].first, Answer::neighbor, 0});
              answer_to.push_back(got.sources[b]);
            }
            i = j;
          }
        },
        detail::Report::same_everywhere);
  }

  Numbering out;
  out.neighbor_element.assign(ucount * nf, -1);
  out.neighbor_face.assign(ucount * nf, -1);
  auto face_of_slot = [&](int slot) { return dim == 3 ? slot : face_edge_2d[slot]; };
  auto set_neighbor = [&](std::int64_t mine, std::int64_t other) {
    const auto at = static_cast<std::size_t>((element_of(mine) - first) * nf + face_of_slot(slot_of(mine)));
    out.neighbor_element[at] = element_of(other);
    out.neighbor_face[at] = face_of_slot(slot_of(other));
  };
  for (const KeyRecord& r : keys) {
    if (r.type == face_type && r.second >= 0) {
      set_neighbor(r.first, r.second);
      set_neighbor(r.second, r.first);
    }
  }

  // ---- what each element introduces, its first id, and the entities' first ids ------------------
  std::vector<std::int64_t> entity_id(keys.size(), 0);
  std::vector<std::uint8_t> introduced(keys.size(), 0);
  std::vector<FirstId> forwards;
  std::vector<int> forward_to;
  {
    Received<Answer> got = transfer(answers, answer_to, comm);
    answers = {};
    answer_to = {};
    for (const Answer& a : got.records) {
      const auto i = static_cast<std::size_t>(a.index);
      if (a.kind == Answer::introduce) {
        introduced[i] = 1;
      } else if (a.kind == Answer::neighbor) {
        set_neighbor(keys[i].first, a.other);
      }
    }
    // Per local element, which of its corners, edges and faces it introduces (bit per slot).
    std::vector<std::uint16_t> masks(ucount * 3, 0);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (!introduced[i]) continue;
      const auto e = static_cast<std::size_t>(element_of(keys[i].first) - first);
      masks[e * 3 + keys[i].type] |= static_cast<std::uint16_t>(1u << slot_of(keys[i].first));
    }
    const std::int64_t n1 = N - 1;
    const std::int64_t interior = dim == 3 ? n1 * n1 * n1 : n1 * n1;
    std::vector<std::int64_t> element_base(ucount + 1, 0);
    for (std::size_t e = 0; e < ucount; ++e) {
      const std::int64_t nodes = std::popcount(masks[e * 3]) + n1 * std::popcount(masks[e * 3 + 1]) +
                                 n1 * n1 * std::popcount(masks[e * 3 + 2]) + interior;
      element_base[e + 1] = element_base[e] + nodes;
    }
    std::int64_t local_total = element_base[ucount], before = 0;
    detail::exscan_polled(&local_total, &before, 1, MPI_INT64_T, MPI_SUM, comm, timeout);
    if (rank == 0) before = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (!introduced[i]) continue;
      const auto e = static_cast<std::size_t>(element_of(keys[i].first) - first);
      const unsigned below = (1u << slot_of(keys[i].first)) - 1u;
      std::int64_t id = before + element_base[e] + 1;
      switch (keys[i].type) {
        case vertex:
          id += std::popcount(masks[e * 3] & below);
          break;
        case edge:
          id += std::popcount(masks[e * 3]) + n1 * std::popcount(masks[e * 3 + 1] & below);
          break;
        default:
          id += std::popcount(masks[e * 3]) + n1 * std::popcount(masks[e * 3 + 1]) +
                n1 * n1 * std::popcount(masks[e * 3 + 2] & below);
      }
      entity_id[i] = id;
    }
    for (const Answer& a : got.records) {
      if (a.kind == Answer::forward) {
        forwards.push_back({a.other, entity_id[static_cast<std::size_t>(a.index)]});
        forward_to.push_back(a.rank);
      }
    }
    counts[3] = local_total;
    detail::allreduce_polled(counts, 4, MPI_INT64_T, MPI_SUM, comm, timeout);

    // The element interiors' first ids (kept in element_base).
    for (std::size_t e = 0; e < ucount; ++e) {
      element_base[e] += before + 1 + std::popcount(masks[e * 3]) + n1 * std::popcount(masks[e * 3 + 1]) +
                         n1 * n1 * std::popcount(masks[e * 3 + 2]);
    }

    Received<FirstId> ids = transfer(forwards, forward_to, comm);
    for (const FirstId& f : ids.records) entity_id[static_cast<std::size_t>(f.index)] = f.id;
    forwards = {};
    forward_to = {};

    // ---- every node's id, element after element ------------------------------------------------
    const std::int64_t np = N + 1;
    const std::int64_t stride[3] = {1, np, np * np};
    const std::int64_t nodes = dim == 3 ? np * np * np : np * np;
    out.ids.assign(ucount * static_cast<std::size_t>(nodes), 0);
    for (std::size_t e = 0; e < ucount; ++e) {
      std::int64_t* id = out.ids.data() + e * static_cast<std::size_t>(nodes);
      const std::int64_t* c = corners.data() + e * nc;
      auto corner_node = [&](int corner) {
        std::int64_t at = 0;
        for (int k = 0; k < dim; ++k) at += ((corner >> k) & 1) * N * stride[k];
        return at;
      };
      for (int a = 0; a < nc; ++a) id[corner_node(a)] = entity_id[static_cast<std::size_t>(vertex_key[e * nc + a])];
      for (int j = 0; j < ne; ++j) {
        const EdgeShape s = edge_shape(dim, j);
        const int high = s.low | (1 << s.axis);
        const std::int64_t base = entity_id[static_cast<std::size_t>(edge_key[e * ne + j])];
        const std::int64_t at = corner_node(s.low), step = stride[s.axis];
        if (c[s.low] < c[high]) {
          for (std::int64_t m = 1; m < N; ++m) id[at + m * step] = base + m - 1;
        } else {
          for (std::int64_t m = 1; m < N; ++m) id[at + m * step] = base + N - 1 - m;
        }
      }
      if (dim == 3) {
        for (int f = 0; f < nf; ++f) {
          const int axis = f / 2, side = f % 2;
          const int u = axis == 0 ? 1 : 0, v = axis == 2 ? 1 : 2;
          std::int64_t q[2][2];
          for (int i = 0; i < 2; ++i) {
            for (int j = 0; j < 2; ++j) q[i][j] = c[(side << axis) | (i << u) | (j << v)];
          }
          int i0 = 0, j0 = 0;
          for (int i = 0; i < 2; ++i) {
            for (int j = 0; j < 2; ++j) {
              if (q[i][j] < q[i0][j0]) i0 = i, j0 = j;
            }
          }
          const bool u_first = q[1 - i0][j0] < q[i0][1 - j0];
          const std::int64_t base = entity_id[static_cast<std::size_t>(face_key[e * nf + f])];
          // The face node (i, j) (i along u, j along v) is (p, q) in the face's frame, with
          // p = i or N - i (as the origin's i0 says), and p, q swapped unless u is first.
          const std::int64_t pi = u_first ? 1 : n1, pj = u_first ? n1 : 1;  // id steps per frame index
          const std::int64_t at = side * N * stride[axis];
          for (std::int64_t j = 1; j < N; ++j) {
            const std::int64_t jv = j0 ? N - j : j;
            for (std::int64_t i = 1; i < N; ++i) {
              const std::int64_t iu = i0 ? N - i : i;
              id[at + i * stride[u] + j * stride[v]] = base + (iu - 1) * pi + (jv - 1) * pj;
            }
          }
        }
      }
      std::int64_t next = element_base[e];
      if (dim == 3) {
        for (std::int64_t z = 1; z < N; ++z) {
          for (std::int64_t y = 1; y < N; ++y) {
            for (std::int64_t x = 1; x < N; ++x) id[x + y * np + z * np * np] = next++;
          }
        }
      } else {
        for (std::int64_t y = 1; y < N; ++y) {
          for (std::int64_t x = 1; x < N; ++x) id[x + y * np] = next++;
        }
      }
    }
  }

  out.vertices = counts[0];
  out.edges = counts[1];
  out.faces = dim == 3 ? counts[2] : 0;
  out.elements = elements;
  out.total = counts[3];
  return out;
}

}  // namespace gsr::io::import
