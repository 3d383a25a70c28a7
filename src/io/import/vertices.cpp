// io/import/vertices.cpp — which corners of the mesh are one vertex (vertices.hpp).
//
// Three steps, each collective:
//   1. Base ids. The file's ids when it has them. Otherwise corners are matched by
//      coordinates: space is cut into cells of side >= 4 R (R: the largest matching distance
//      of the mesh), each cell owned by a rank (a hash of its index); every corner goes to
//      the owner of its own ("home") cell and of the neighbour cells it lies within R of, so
//      the home cell of a corner sees every corner that may match it. There each corner's
//      cluster is decided: itself and the corners close to it (vertices.hpp says when), which
//      must all be close to each other (else the corners cannot be told apart: an error).
//      That check on every cluster makes "close" an equivalence, so every corner of a
//      cluster, wherever decided, gets the same id: its smallest element * corners + corner,
//      plus 1. The ids depend on the input only.
//   2. Periodic pairs. .re2 "P" records: each record goes to the rank of its partner
//      element with its face's corners (coordinates and base ids); that rank checks that the
//      partner's record points back and pairs the corners by translation, as genmap's
//      find_connctd_pairs does. Gmsh's $Periodic node pairs are on every rank already.
//   3. The pairs join ids: the pairs are gathered on every rank (allgatherv_polled; the
//      list is as long as the periodic boundary, not the mesh) and every rank runs the same
//      union-find, an id's class taking its smallest id.
#include "io/import/vertices.hpp"

#include <gsr/error.hpp>
#include <gsr/mesh.hpp>
#include <gsr/transfer.hpp>

#include "io/h5.hpp"
#include "mpi/checked.hpp"
#include "mpi/polled.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gsr::io::import {
namespace {

/// A number as messages show it: "0.1", not std::to_string's "0.100000".
std::string number_text(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

double timeout() { return detail::timeout_or_default({}); }

[[noreturn]] void fail(const ElementBlock& block, const std::string& what) {
  throw Error(ErrorCode::io, "gsr: file '" + block.source + "': " + what);
}

std::string corner_name(std::int64_t key, int cpe) {
  return "corner " + std::to_string(key % cpe) + " of element " + std::to_string(key / cpe + 1);
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

template <std::size_t N>
int owner_of(const std::array<std::int64_t, N>& key, int ranks) {
  std::uint64_t h = 0;
  for (std::int64_t k : key) h = mix(h ^ static_cast<std::uint64_t>(k));
  return static_cast<int>(h % static_cast<std::uint64_t>(ranks));
}

/// Geometry of the local block: corner coordinates and each element's shortest edge.
struct Corners {
  int dim = 0, cpe = 0;
  std::vector<std::array<double, 3>> x;  // count * cpe
  std::vector<double> shortest;          // count
};

/// `checked`: corners are to be matched by coordinates, so every coordinate must be finite
/// and no edge of length 0.
Corners corners_of(const ElementBlock& block, bool checked) {
  Corners out;
  out.dim = block.dim;
  out.cpe = corners_per_element(block.dim);
  const int g = block.geometry;
  const std::int64_t per_element = block.dim == 3 ? g * g * g : g * g;
  out.x.resize(static_cast<std::size_t>(block.count * out.cpe));
  out.shortest.resize(static_cast<std::size_t>(block.count));
  for (std::int64_t k = 0; k < block.count; ++k) {
    for (int c = 0; c < out.cpe; ++c) {
      const std::int64_t point =
          (c & 1) * (g - 1) + g * (((c >> 1) & 1) * (g - 1)) + g * g * (((c >> 2) & 1) * (g - 1));
      const double* p = &block.points[static_cast<std::size_t>((k * per_element + point) * 3)];
      for (int d = 0; d < 3; ++d) {
        if (checked && !std::isfinite(p[d])) {
          fail(block, corner_name((block.first + k) * out.cpe + c, out.cpe) +
                          " has a coordinate that is not a finite number: corners too close to tell apart");
        }
      }
      out.x[static_cast<std::size_t>(k * out.cpe + c)] = {p[0], p[1], p[2]};
    }
    double shortest = std::numeric_limits<double>::infinity();
    for (int c = 0; c < out.cpe; ++c) {
      for (int d = 0; d < block.dim; ++d) {
        if ((c >> d) & 1) continue;
        const auto& a = out.x[static_cast<std::size_t>(k * out.cpe + c)];
        const auto& b = out.x[static_cast<std::size_t>(k * out.cpe + (c | (1 << d)))];
        const double length = std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
        if (checked && !(length > 0)) {
          fail(block, "element " + std::to_string(block.first + k + 1) + ": corners " + std::to_string(c) + " and " +
                          std::to_string(c | (1 << d)) +
                          " coincide (an edge of length 0): corners too close to tell apart");
        }
        shortest = std::min(shortest, length);
      }
    }
    out.shortest[static_cast<std::size_t>(k)] = shortest;
  }
  return out;
}

// ---- 1. corners matched by coordinates ---------------------------------------------------------

struct CornerRecord {
  double x[3];
  double radius;         // tolerance * the shortest edge of the corner's element
  std::int64_t key;      // global element * corners + corner
  std::int64_t cell[3];  // the cell this copy is sent to
  std::int32_t home;     // 1: that cell is the corner's own
  std::int32_t pad = 0;
};

struct IdRecord {
  std::int64_t key;
  std::int64_t id;
};

double distance2(const CornerRecord& a, const CornerRecord& b) {
  const double dx = a.x[0] - b.x[0], dy = a.x[1] - b.x[1], dz = a.x[2] - b.x[2];
  return dx * dx + dy * dy + dz * dz;
}

/// Two corners are one vertex when closer than the smaller of their radii. Symmetric, and
/// computed alike on every rank.
bool close(const CornerRecord& a, const CornerRecord& b) {
  const double r = std::min(a.radius, b.radius);
  return distance2(a, b) < r * r;
}

/// The ids of the block's corners; `bug` says which corner got none (never, but reported
/// by the next collective step rather than by one more of its own).
std::vector<std::int64_t> match_by_coordinates(const ElementBlock& block, const Corners& corners, MPI_Comm comm,
                                               double tolerance, int ranks, std::string& bug) {
  const int cpe = corners.cpe;
  const std::size_t n = corners.x.size();
  // Bounding box and the largest matching distance, over all ranks.
  std::array<double, 7> bounds{};
  bounds.fill(-std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < n; ++i) {
    for (int d = 0; d < 3; ++d) {
      bounds[d] = std::max(bounds[d], -corners.x[i][d]);
      bounds[3 + d] = std::max(bounds[3 + d], corners.x[i][d]);
    }
  }
  for (double h : corners.shortest) bounds[6] = std::max(bounds[6], tolerance * h);
  detail::allreduce_polled(bounds.data(), 7, MPI_DOUBLE, MPI_MAX, comm, timeout());
  std::vector<std::int64_t> ids(n, 0);
  if (!(bounds[6] > 0)) return ids;             // no corners anywhere
  const double reach = bounds[6] * (1 + 1e-9);  // a little more than any matching distance
  double extent = 0;
  for (int d = 0; d < 3; ++d) extent = std::max(extent, bounds[3 + d] + bounds[d]);
  // Cells of side 4 R, no finer than 2^-40 of the mesh (so that their indices stay small): a
  // corner lies within R of a side of its cell with probability 1/2 per axis, so it goes to
  // 1.5^dim cells on average (with side 2 R it would go to 2^dim). The cells start half a side
  // below the mesh, so that the corners of a lattice whose spacing the side divides sit in the
  // middle of their cells, not on their sides.
  const double side = std::max(4 * reach, std::ldexp(extent, -40));
  for (int d = 0; d < 3; ++d) bounds[d] += side / 2;
  std::array<std::int64_t, 3> last{};
  for (int d = 0; d < 3; ++d) last[d] = static_cast<std::int64_t>(std::floor((bounds[3 + d] + bounds[d]) / side));

  std::vector<CornerRecord> out;
  std::vector<int> destinations;
  out.reserve(n * 2);
  for (std::size_t i = 0; i < n; ++i) {
    CornerRecord r{};
    std::array<std::int64_t, 3> home{}, lo{}, hi{};
    for (int d = 0; d < 3; ++d) {
      r.x[d] = corners.x[i][d];
      const double shifted = r.x[d] + bounds[d];  // x - min
      home[d] = static_cast<std::int64_t>(std::floor(shifted / side));
      lo[d] = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::floor((r.x[d] - reach + bounds[d]) / side)));
      hi[d] = std::min(last[d], static_cast<std::int64_t>(std::floor((r.x[d] + reach + bounds[d]) / side)));
      lo[d] = std::min(lo[d], home[d]);
      hi[d] = std::max(hi[d], home[d]);
    }
    r.radius = tolerance * corners.shortest[i / cpe];
    r.key = block.first * cpe + static_cast<std::int64_t>(i);
    for (std::int64_t a = lo[0]; a <= hi[0]; ++a) {
      for (std::int64_t b = lo[1]; b <= hi[1]; ++b) {
        for (std::int64_t c = lo[2]; c <= hi[2]; ++c) {
          r.cell[0] = a, r.cell[1] = b, r.cell[2] = c;
          r.home = (a == home[0] && b == home[1] && c == home[2]) ? 1 : 0;
          out.push_back(r);
          destinations.push_back(owner_of(std::array<std::int64_t, 3>{a, b, c}, ranks));
        }
      }
    }
  }
  auto got = gsr::transfer(out, destinations, comm);
  out = {};  // their memory back now, not at the function's end
  destinations = {};

  // Each cell's corners sorted by x, so that a corner's neighbours are a window.
  std::vector<CornerRecord>& cells = got.records;
  std::vector<std::size_t> order(cells.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const CornerRecord &p = cells[a], &q = cells[b];
    for (int d = 0; d < 3; ++d) {
      if (p.cell[d] != q.cell[d]) return p.cell[d] < q.cell[d];
    }
    if (p.x[0] != q.x[0]) return p.x[0] < q.x[0];
    return p.key < q.key;
  });
  std::vector<IdRecord> replies;
  std::vector<int> reply_to;
  std::string problem;
  std::vector<std::size_t> cluster;
  for (std::size_t begin = 0; begin < order.size();) {
    std::size_t end = begin + 1;
    const auto same_cell = [&](std::size_t a, std::size_t b) {
      return std::equal(cells[a].cell, cells[a].cell + 3, cells[b].cell);
    };
    while (end < order.size() && same_cell(order[begin], order[end])) ++end;
    for (std::size_t i = begin; i < end; ++i) {
      const CornerRecord& a = cells[order[i]];
      if (!a.home) continue;
      cluster.assign(1, order[i]);
      // Corners close to a are within its own radius along x: a small element's corner looks
      // no further than it must, even in a cell of large elements' size.
      const double window = a.radius * (1 + 1e-9);
      for (std::size_t j = i; j-- > begin && cells[order[j]].x[0] > a.x[0] - window;) {
        if (close(a, cells[order[j]])) cluster.push_back(order[j]);
      }
      for (std::size_t j = i + 1; j < end && cells[order[j]].x[0] < a.x[0] + window; ++j) {
        if (close(a, cells[order[j]])) cluster.push_back(order[j]);
      }
      std::int64_t smallest = a.key;
      for (std::size_t p = 0; p < cluster.size() && problem.empty(); ++p) {
        const CornerRecord& b = cells[cluster[p]];
        smallest = std::min(smallest, b.key);
        for (std::size_t q = p + 1; q < cluster.size(); ++q) {
          const CornerRecord& c = cells[cluster[q]];
          if (b.key / cpe == c.key / cpe) {
            problem = "element " + std::to_string(b.key / cpe + 1) + ": corners " + std::to_string(b.key % cpe) +
                      " and " + std::to_string(c.key % cpe) +
                      " would be one vertex (closer than the matching tolerance " + number_text(tolerance) +
                      " x the shortest edge): corners too close to tell apart";
            break;
          }
          if (p > 0 && !close(b, c)) {
            problem = "corners too close to tell apart at tolerance " + number_text(tolerance) + ": " +
                      corner_name(a.key, cpe) + " lies within tolerance of " + corner_name(b.key, cpe) + " and of " +
                      corner_name(c.key, cpe) + ", which are not within tolerance of each other";
            break;
          }
        }
      }
      replies.push_back({a.key, smallest + 1});
      reply_to.push_back(got.sources[order[i]]);
    }
    begin = end;
  }
  agreed(comm, [&] {
    if (!problem.empty()) fail(block, problem);
  });
  auto answers = gsr::transfer(replies, reply_to, comm);
  for (const IdRecord& r : answers.records) ids[static_cast<std::size_t>(r.key - block.first * cpe)] = r.id;
  for (std::size_t i = 0; i < n && bug.empty(); ++i) {
    if (ids[i] <= 0) {
      bug = "gsr: corner matching left " + corner_name(block.first * cpe + static_cast<std::int64_t>(i), cpe) +
            " without a vertex (a bug)";
    }
  }
  return ids;
}

// ---- 2. periodic faces from .re2 "P" records -----------------------------------------------

/// The corners of `face` in cyclic order around it (2 in 2-D).
std::vector<int> face_cycle(int dim, int face) {
  const int axis = face / 2, side = face % 2;
  std::vector<int> free;
  for (int d = 0; d < dim; ++d) {
    if (d != axis) free.push_back(d);
  }
  const int base = side << axis;
  if (dim == 2) return {base, base | (1 << free[0])};
  const int a = 1 << free[0], b = 1 << free[1];
  return {base, base | a, base | a | b, base | b};
}

struct FaceCorners {
  std::int64_t element, other_element;
  std::int32_t face, other_face;
  double x[4][3];
  std::int64_t id[4];
  double size;  // the face's shortest edge
};

struct PeriodicRecord {
  std::int64_t element;
  int face;
  std::int64_t other_element;
  int other_face;
};

std::string pair_name(const PeriodicRecord& r) {
  return "element " + std::to_string(r.element + 1) + " " + face_name(r.face) + " and element " +
         std::to_string(r.other_element + 1) + " " + face_name(r.other_face);
}

/// Pairs the corners of two periodic faces by translation (genmap's find_connctd_pairs: each
/// face's centroid subtracted, the cyclic correspondences of both orientations tried); the
/// best one must bring every corner within tolerance x the smaller face's shortest edge.
/// Returns the partner position of each of `mine`'s corners, or the best distance found.
bool pair_corners(const FaceCorners& mine, const FaceCorners& theirs, int n, double tolerance, std::vector<int>& map,
                  double& best) {
  double ca[3] = {0, 0, 0}, cb[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    for (int d = 0; d < 3; ++d) ca[d] += mine.x[i][d] / n, cb[d] += theirs.x[i][d] / n;
  }
  best = std::numeric_limits<double>::infinity();
  for (int orientation : {1, -1}) {
    for (int shift = 0; shift < n; ++shift) {
      double worst = 0;
      for (int i = 0; i < n; ++i) {
        const int j = ((shift + orientation * i) % n + n) % n;
        double d2 = 0;
        for (int d = 0; d < 3; ++d) {
          const double e = (mine.x[i][d] - ca[d]) - (theirs.x[j][d] - cb[d]);
          d2 += e * e;
        }
        worst = std::max(worst, std::sqrt(d2));
      }
      if (worst < best) {
        best = worst;
        map.resize(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) map[static_cast<std::size_t>(i)] = ((shift + orientation * i) % n + n) % n;
      }
    }
  }
  return best < tolerance * std::min(mine.size, theirs.size);
}

/// The P records of the block, checked and one per face (rank-local; throws).
std::vector<PeriodicRecord> periodic_records(const ElementBlock& block) {
  const int nf = faces_per_element(block.dim);
  std::vector<PeriodicRecord> records;
  for (const FaceRecord& f : block.faces) {
    if (f.kind[0] != 'P' || f.kind[1] != '\0') continue;
    PeriodicRecord r{f.element, f.face, f.other_element, f.other_face};
    if (r.element < block.first || r.element >= block.first + block.count) {
      throw Error(ErrorCode::internal, "gsr: file '" + block.source + "': a P record of element " +
                                           std::to_string(r.element + 1) + " on a rank without it (a bug)");
    }
    if (r.face < 0 || r.face >= nf || r.other_face < 0 || r.other_face >= nf || r.other_element < 0 ||
        r.other_element >= block.elements) {
      fail(block, "element " + std::to_string(r.element + 1) + " " + face_name(r.face) +
                      ": its P record names element " + std::to_string(r.other_element + 1) + " " +
                      face_name(r.other_face) + ", which the mesh (" + std::to_string(block.elements) +
                      " elements) does not have: P records must be reciprocal");
    }
    if (r.element == r.other_element && r.face == r.other_face) {
      fail(block, "element " + std::to_string(r.element + 1) + " " + face_name(r.face) +
                      ": its P record names the face itself: P records must pair two faces, each naming the other");
    }
    records.push_back(r);
  }
  std::sort(records.begin(), records.end(), [](const PeriodicRecord& a, const PeriodicRecord& b) {
    return std::tie(a.element, a.face, a.other_element, a.other_face) <
           std::tie(b.element, b.face, b.other_element, b.other_face);
  });
  records.erase(std::unique(records.begin(), records.end(),
                            [](const PeriodicRecord& a, const PeriodicRecord& b) {
                              return a.element == b.element && a.face == b.face && a.other_element == b.other_element &&
                                     a.other_face == b.other_face;
                            }),
                records.end());
  for (std::size_t i = 1; i < records.size(); ++i) {
    if (records[i].element == records[i - 1].element && records[i].face == records[i - 1].face) {
      fail(block, "element " + std::to_string(records[i].element + 1) + " " + face_name(records[i].face) +
                      " has two P records, one naming element " + std::to_string(records[i - 1].other_element + 1) +
                      " " + face_name(records[i - 1].other_face) + ", the other element " +
                      std::to_string(records[i].other_element + 1) + " " + face_name(records[i].other_face) +
                      ": P records must be reciprocal");
    }
  }
  return records;
}

/// The id pairs the P records join (from the rank of the partner element, each pair of
/// faces once) and how many face pairs start here. `bug`: an earlier step's, thrown here.
void join_periodic_faces(const ElementBlock& block, const Corners& corners, const std::vector<std::int64_t>& ids,
                         const std::vector<PeriodicRecord>& records, MPI_Comm comm, double tolerance, int ranks,
                         const std::string& bug, std::vector<std::array<std::int64_t, 2>>& pairs,
                         std::int64_t& face_pairs) {
  const int dim = block.dim, cpe = corners.cpe, nv = dim == 3 ? 4 : 2;
  const auto face_of = [&](const PeriodicRecord& r) {
    FaceCorners fc{};
    fc.element = r.element, fc.face = r.face, fc.other_element = r.other_element, fc.other_face = r.other_face;
    const std::vector<int> cycle = face_cycle(dim, r.face);
    const std::int64_t k = r.element - block.first;
    for (int i = 0; i < nv; ++i) {
      const std::size_t c = static_cast<std::size_t>(k * cpe + cycle[static_cast<std::size_t>(i)]);
      for (int d = 0; d < 3; ++d) fc.x[i][d] = corners.x[c][d];
      fc.id[i] = ids[c];
    }
    fc.size = std::numeric_limits<double>::infinity();
    for (int i = 0; i < (nv == 2 ? 1 : nv); ++i) {
      const auto &a = fc.x[i], &b = fc.x[(i + 1) % nv];
      fc.size = std::min(fc.size, std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]));
    }
    return fc;
  };
  std::vector<FaceCorners> out;
  std::vector<int> destinations;
  face_pairs = 0;
  for (const PeriodicRecord& r : records) {
    out.push_back(face_of(r));
    destinations.push_back(block_owner(r.other_element, block.elements, ranks));
    if (std::tie(r.element, r.face) < std::tie(r.other_element, r.other_face)) ++face_pairs;
  }
  auto got = gsr::transfer(out, destinations, comm);
  agreed(comm, [&] {
    if (!bug.empty()) throw Error(ErrorCode::internal, bug);
    std::vector<int> map;
    for (const FaceCorners& theirs : got.records) {
      const PeriodicRecord asked{theirs.element, theirs.face, theirs.other_element, theirs.other_face};
      const auto it =
          std::lower_bound(records.begin(), records.end(), asked, [](const PeriodicRecord& a, const PeriodicRecord& b) {
            return std::tie(a.element, a.face) < std::tie(b.other_element, b.other_face);
          });
      if (it == records.end() || it->element != asked.other_element || it->face != asked.other_face) {
        fail(block, "the P record of element " + std::to_string(asked.element + 1) + " " + face_name(asked.face) +
                        " names element " + std::to_string(asked.other_element + 1) + " " +
                        face_name(asked.other_face) + ", which has no P record: P records must be reciprocal");
      }
      if (it->other_element != asked.element || it->other_face != asked.face) {
        fail(block, "the P record of element " + std::to_string(asked.element + 1) + " " + face_name(asked.face) +
                        " names element " + std::to_string(asked.other_element + 1) + " " +
                        face_name(asked.other_face) + ", whose P record names element " +
                        std::to_string(it->other_element + 1) + " " + face_name(it->other_face) +
                        ": P records must be reciprocal");
      }
      const FaceCorners mine = face_of(*it);
      double best = 0;
      if (!pair_corners(mine, theirs, nv, tolerance, map, best)) {
        fail(block, "periodic faces " + pair_name(*it) +
                        " (P records) do not match: no translation brings the corners of one onto the other's "
                        "within the tolerance " +
                        number_text(tolerance) + " x the shortest edge (best: " + number_text(best) +
                        " away); rotational periodicity in a .re2 is not supported");
      }
      if (std::tie(it->element, it->face) < std::tie(it->other_element, it->other_face)) {
        for (int i = 0; i < nv; ++i) pairs.push_back({mine.id[i], theirs.id[map[static_cast<std::size_t>(i)]]});
      }
    }
  });
}

// ---- 3. joining ids --------------------------------------------------------------------------

class Classes {
public:
  std::int64_t find(std::int64_t id) {
    auto it = parent_.find(id);
    if (it == parent_.end()) return id;
    std::int64_t root = id;
    while (true) {
      const auto p = parent_.find(root);
      if (p == parent_.end() || p->second == root) break;
      root = p->second;
    }
    while (id != root) {  // path compression
      auto& p = parent_[id];
      const std::int64_t next = p;
      p = root;
      id = next;
    }
    return root;
  }
  void join(std::int64_t a, std::int64_t b) {
    a = find(a), b = find(b);
    if (a == b) return;
    if (b < a) std::swap(a, b);
    parent_[a] = a;
    parent_[b] = a;  // the smallest id of a class is its root
  }
  bool touched(std::int64_t id) const { return parent_.count(id) != 0; }
  bool empty() const { return parent_.empty(); }

private:
  std::unordered_map<std::int64_t, std::int64_t> parent_;
};

/// Gmsh: the number of pairs of volume faces that $Periodic joins. Faces (corner id sets)
/// touched by a periodic pair go to a rank by their joined corner set; there, each set's
/// faces of distinct original corner sets count as images of one another (faces shared by
/// two elements have one corner set and count once).
std::int64_t gmsh_face_pairs(const ElementBlock& block, const std::vector<std::int64_t>& base,
                             const std::vector<std::int64_t>& joined, const Classes& classes, MPI_Comm comm,
                             int ranks) {
  struct FaceKey {
    std::array<std::int64_t, 4> joined;
    std::array<std::int64_t, 4> base;
  };
  const int dim = block.dim, cpe = corners_per_element(dim), nv = dim == 3 ? 4 : 2;
  std::vector<FaceKey> out;
  std::vector<int> destinations;
  for (std::int64_t k = 0; k < block.count; ++k) {
    for (int f = 0; f < faces_per_element(dim); ++f) {
      FaceKey key{};
      bool touched = false;
      const std::vector<int> cycle = face_cycle(dim, f);
      for (int i = 0; i < nv; ++i) {
        const std::size_t c = static_cast<std::size_t>(k * cpe + cycle[static_cast<std::size_t>(i)]);
        key.joined[i] = joined[c];
        key.base[i] = base[c];
        touched = touched || classes.touched(base[c]);
      }
      if (!touched) continue;
      std::sort(key.joined.begin(), key.joined.begin() + nv);
      std::sort(key.base.begin(), key.base.begin() + nv);
      out.push_back(key);
      destinations.push_back(owner_of(key.joined, ranks));
    }
  }
  auto got = gsr::transfer(out, destinations, comm);
  auto& keys = got.records;
  std::sort(keys.begin(), keys.end(),
            [](const FaceKey& a, const FaceKey& b) { return std::tie(a.joined, a.base) < std::tie(b.joined, b.base); });
  std::int64_t pairs = 0;
  for (std::size_t i = 1; i < keys.size(); ++i) {
    if (keys[i].joined == keys[i - 1].joined && keys[i].base != keys[i - 1].base) ++pairs;
  }
  return pairs;
}

}  // namespace

Vertices match_vertices(const ElementBlock& block, MPI_Comm comm, const MatchOptions& options) {
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  const double tolerance = options.tolerance;
  const int cpe = corners_per_element(block.dim);
  Corners corners;
  std::vector<PeriodicRecord> records;
  // Whether the file gives vertex ids is the same answer on every rank: a rank
  // that holds no element (more ranks than elements) has no ids of its own.
  int have_ids = block.vertices.empty() ? 0 : 1;
  detail::allreduce_polled(&have_ids, 1, MPI_INT, MPI_MAX, comm, timeout());
  agreed(comm, [&] {
    if (!(tolerance > 0 && tolerance < 1)) {
      throw Error(ErrorCode::invalid_argument,
                  "gsr: corner matching tolerance " + number_text(tolerance) + ": must be in (0, 1)");
    }
    const std::int64_t g = block.geometry, per_element = block.dim == 3 ? g * g * g : g * g;
    if ((block.dim != 2 && block.dim != 3) || (g != 2 && g != 3) || block.count < 0 ||
        block.points.size() != static_cast<std::size_t>(block.count * per_element * 3) ||
        (!block.vertices.empty() && block.vertices.size() != static_cast<std::size_t>(block.count * cpe))) {
      throw Error(ErrorCode::internal, "gsr: file '" + block.source + "': the element block is malformed (a bug)");
    }
    if (!block.periodic_nodes.empty() && have_ids == 0) {
      throw Error(ErrorCode::internal,
                  "gsr: file '" + block.source + "': periodic node pairs without the nodes' ids (a bug)");
    }
    corners = corners_of(block, have_ids == 0);
    records = periodic_records(block);
  });

  Vertices result;
  std::string bug;
  result.ids = have_ids == 0 ? match_by_coordinates(block, corners, comm, tolerance, ranks, bug) : block.vertices;

  std::vector<std::array<std::int64_t, 2>> pairs;
  std::int64_t counts[2] = {0, 0};  // P face pairs, local; any P records at all
  join_periodic_faces(block, corners, result.ids, records, comm, tolerance, ranks, bug, pairs, counts[0]);

  // The P pairs, on every rank (as many as the periodic boundary's corners).
  const int mine = static_cast<int>(pairs.size() * 2);
  std::vector<int> sizes(static_cast<std::size_t>(ranks), 0), offsets(static_cast<std::size_t>(ranks), 0);
  {
    const std::vector<std::byte> all = detail::allgather_polled(&mine, sizeof(int), comm, timeout());
    for (int r = 0; r < ranks; ++r)
      std::memcpy(&sizes[static_cast<std::size_t>(r)], &all[r * sizeof(int)], sizeof(int));
  }
  std::exclusive_scan(sizes.begin(), sizes.end(), offsets.begin(), 0);
  std::vector<std::int64_t> all_pairs(static_cast<std::size_t>(offsets.back() + sizes.back()));
  detail::allgatherv_polled(pairs.data(), mine, MPI_INT64_T, all_pairs.data(), sizes.data(), offsets.data(), comm,
                            timeout());
  Classes classes;
  for (std::size_t i = 0; i + 1 < all_pairs.size(); i += 2) classes.join(all_pairs[i], all_pairs[i + 1]);
  // Gmsh's $Periodic pairs: the same list on every rank already.
  for (const auto& p : block.periodic_nodes) classes.join(p[0], p[1]);

  std::vector<std::int64_t> base;
  if (!block.periodic_nodes.empty()) base = result.ids;
  for (std::int64_t& id : result.ids) id = classes.find(id);
  counts[1] = block.periodic_nodes.empty()
                  ? 0
                  : gmsh_face_pairs(block, base, result.ids, classes, comm, ranks);  // same choice on every rank
  detail::allreduce_polled(counts, 2, MPI_INT64_T, MPI_SUM, comm, timeout());
  result.periodic_face_pairs = counts[0] + counts[1];
  return result;
}

}  // namespace gsr::io::import
