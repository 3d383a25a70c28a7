// io/import/geometry.cpp — coordinates of the GLL nodes of the imported elements, as
// Nek5000's core/genxyz.f builds them (see geometry.hpp).
#include "io/import/geometry.hpp"

#include <gsr/error.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstddef>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

namespace gsr::io::import {
namespace {

/// The GLL points of order N on [-1, 1]: the end points exactly -1 and 1, the others the
/// roots of P'_N, exactly symmetric (0 exactly in the middle for even N).
std::vector<double> gll_reference(int order) {
  if (order < 1)
    throw Error(ErrorCode::invalid_argument, "gll_points: order must be at least 1, not " + std::to_string(order));
  // Newton's method on the Legendre recurrence, started from the Chebyshev-Gauss-Lobatto
  // points, converges in a few steps.
  const int n = order;
  std::vector<double> x(static_cast<std::size_t>(n) + 1);
  for (int i = 0; i <= n; ++i) {
    double xi = -std::cos(std::numbers::pi * i / n);
    for (int iteration = 0; iteration < 100 && i > 0 && i < n; ++iteration) {
      // P_{n}, P_{n-1} at xi; then P'_n and P''_n from the Legendre ODE.
      double p_prev = 1, p = xi;
      for (int k = 2; k <= n; ++k) {
        const double p_next = ((2 * k - 1) * xi * p - (k - 1) * p_prev) / k;
        p_prev = p;
        p = p_next;
      }
      const double dp = n * (p_prev - xi * p) / (1 - xi * xi);
      const double d2p = (2 * xi * dp - n * (n + 1) * p) / (1 - xi * xi);
      const double step = dp / d2p;
      xi -= step;
      if (std::abs(step) < 1e-16) break;
    }
    x[static_cast<std::size_t>(i)] = xi;
  }
  x.front() = -1;
  x.back() = 1;
  for (int i = 0; i <= n / 2; ++i) {  // exact symmetry, and 0 exactly in the middle
    const double mean = (x[static_cast<std::size_t>(n - i)] - x[static_cast<std::size_t>(i)]) / 2;
    x[static_cast<std::size_t>(i)] = -mean;
    x[static_cast<std::size_t>(n - i)] = mean;
  }
  return x;
}

constexpr int kXyz = 3;  // points and work arrays hold x, y, z per point

int power(int base, int exponent) {
  int p = 1;
  for (int i = 0; i < exponent; ++i) p *= base;
  return p;
}

/// Edge e of a dim-D element (element_block.hpp): the axis it runs along and where it sits on
/// the other axes (0: low side, 1: high side; the entry of `axis` itself is 0).
struct EdgeShape {
  int axis = 0;
  std::array<int, 3> at{};
};

EdgeShape edge_shape(int dim, int e) {
  EdgeShape shape;
  if (dim == 2) {
    shape.axis = e / 2;
    shape.at[static_cast<std::size_t>(1 - shape.axis)] = e % 2;
    return shape;
  }
  shape.axis = e / 4;
  int slot = 0;
  for (int b = 0; b < 3; ++b) {
    if (b == shape.axis) continue;
    shape.at[static_cast<std::size_t>(b)] = slot == 0 ? (e % 4) & 1 : (e % 4) >> 1;
    ++slot;
  }
  return shape;
}

/// Index of point (a, b, c) of a lexicographic grid with g points per axis.
std::size_t grid_index(int g, int a, int b, int c) { return static_cast<std::size_t>(a + g * (b + g * c)); }

/// One axis of a tensor-product interpolation: out = w applied along `axis` of `in`, whose
/// shape (points per axis, x fastest) is `shape`; w holds n rows of shape[axis] weights.
/// Returns the shape of out.
std::array<int, 3> contract(const std::vector<double>& in, std::array<int, 3> shape, int axis,
                            const std::vector<double>& w, int n, std::vector<double>& out) {
  std::array<int, 3> out_shape = shape;
  out_shape[static_cast<std::size_t>(axis)] = n;
  out.assign(static_cast<std::size_t>(out_shape[0] * out_shape[1] * out_shape[2] * kXyz), 0.0);
  const int g = shape[static_cast<std::size_t>(axis)];
  const std::array<int, 3> in_stride{1, shape[0], shape[0] * shape[1]};
  const std::array<int, 3> out_stride{1, out_shape[0], out_shape[0] * out_shape[1]};
  for (int k = 0; k < out_shape[2]; ++k)
    for (int j = 0; j < out_shape[1]; ++j)
      for (int i = 0; i < out_shape[0]; ++i) {
        const std::array<int, 3> at{i, j, k};
        int base = 0;
        for (int d = 0; d < 3; ++d)
          if (d != axis) base += at[static_cast<std::size_t>(d)] * in_stride[static_cast<std::size_t>(d)];
        const int row = at[static_cast<std::size_t>(axis)];
        const std::size_t o =
            static_cast<std::size_t>(i * out_stride[0] + j * out_stride[1] + k * out_stride[2]) * kXyz;
        for (int p = 0; p < g; ++p) {
          const double weight = w[static_cast<std::size_t>(row * g + p)];
          const std::size_t source =
              static_cast<std::size_t>(base + p * in_stride[static_cast<std::size_t>(axis)]) * kXyz;
          for (int x = 0; x < kXyz; ++x)
            out[o + static_cast<std::size_t>(x)] += weight * in[source + static_cast<std::size_t>(x)];
        }
      }
  return out_shape;
}

/// Weights of the Lagrange polynomials through g = 2 nodes (-1, 1) or g = 3 nodes
/// (-1, 0, 1) at each of the points z, row by row (Nek5000's fd_weights_full on zlin and zquad).
std::vector<double> lagrange_weights(int g, const std::vector<double>& z) {
  std::vector<double> w;
  w.reserve(z.size() * static_cast<std::size_t>(g));
  for (const double x : z) {
    if (g == 2) {
      w.push_back((1 - x) / 2);
      w.push_back((1 + x) / 2);
    } else {
      w.push_back(x * (x - 1) / 2);
      w.push_back((1 - x) * (1 + x));
      w.push_back(x * (x + 1) / 2);
    }
  }
  return w;
}

/// The map of the element (g^dim points, x y z each) at the n^dim nodes of the points z.
void map_to_nodes(int dim, int g, const std::vector<double>& points, const std::vector<double>& w, int n,
                  std::vector<double>& out, std::vector<double>& work) {
  std::array<int, 3> shape{g, g, dim == 3 ? g : 1};
  std::vector<double> current = points;
  for (int axis = 0; axis < dim; ++axis) {
    shape = contract(current, shape, axis, w, n, work);
    current.swap(work);
  }
  out.swap(current);
}

/// Nek5000's gh_face_extend with gh_type 2 on a 3^dim point set (core/navier5.f): the
/// (bi/tri)linear interpolant of the corners, plus each edge's departure from it blended
/// linearly into the faces and the interior (vertex and edge Gordon-Hall).
void gordon_hall_edges(int dim, std::vector<double>& q) {
  constexpr int n = 3;
  const int nz = dim == 3 ? n : 1;
  const double zg[n] = {-1, 0, 1};
  // h(end, i): the linear blend of node i towards end 0 (low) or 1 (high).
  auto h = [&](int end, int i) { return end == 0 ? 0.5 * (1 - zg[i]) : 0.5 * (1 + zg[i]); };
  std::vector<double> v(q.size(), 0.0);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        for (int c = 0; c < (dim == 3 ? 8 : 4); ++c) {
          const int ci = c & 1, cj = (c >> 1) & 1, ck = (c >> 2) & 1;
          const double weight = h(ci, i) * h(cj, j) * (dim == 3 ? h(ck, k) : 1.0);
          const std::size_t corner = grid_index(n, 2 * ci, 2 * cj, 2 * ck);
          for (int x = 0; x < kXyz; ++x)
            v[grid_index(n, i, j, k) * kXyz + static_cast<std::size_t>(x)] +=
                weight * q[corner * kXyz + static_cast<std::size_t>(x)];
        }
  std::vector<double> e(q.size(), 0.0);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const std::array<int, 3> at{i, j, k};
        const std::size_t node = grid_index(n, i, j, k) * kXyz;
        for (int axis = 0; axis < dim; ++axis) {
          // The edges along `axis`: every choice of ends on the other axes.
          for (int ends = 0; ends < (dim == 3 ? 4 : 2); ++ends) {
            std::array<int, 3> on = at;
            double weight = 1;
            int slot = 0;
            for (int b = 0; b < dim; ++b) {
              if (b == axis) continue;
              const int end = (ends >> slot) & 1;
              weight *= h(end, at[static_cast<std::size_t>(b)]);
              on[static_cast<std::size_t>(b)] = 2 * end;
              ++slot;
            }
            const std::size_t edge_node = grid_index(n, on[0], on[1], on[2]) * kXyz;
            for (int x = 0; x < kXyz; ++x)
              e[node + static_cast<std::size_t>(x)] +=
                  weight * (q[edge_node + static_cast<std::size_t>(x)] - v[edge_node + static_cast<std::size_t>(x)]);
          }
        }
      }
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = v[i] + e[i];
}

/// A circular arc on an edge in the x-y plane (Nek5000's arcsrf), in our edge direction:
/// from the edge's low corner p1 to its high corner p2, with signed radius R. The centre lies
/// |R| cos(dtheta) to the left of the chord (viewed from +z) when R > 0, to the right when
/// R < 0; the arc runs through p1 and p2 the short way round, so R > 0 bulges it to the right.
struct Arc {
  double radius = 0;
  double centre[2] = {0, 0};
  double theta0 = 0;  // angle of the chord's midpoint seen from the centre
  double dtheta = 0;  // half the arc's angle
  double p1[2] = {0, 0}, p2[2] = {0, 0};

  /// The point at parameter z in [-1, 1] (z = -1: p1) minus the chord's point there.
  std::array<double, 2> departure(double z) const {
    const double angle = theta0 + (radius < 0 ? -z : z) * dtheta;
    return {centre[0] + std::abs(radius) * std::cos(angle) - ((1 - z) / 2 * p1[0] + (1 + z) / 2 * p2[0]),
            centre[1] + std::abs(radius) * std::sin(angle) - ((1 - z) / 2 * p1[1] + (1 + z) / 2 * p2[1])};
  }
  /// d/du of departure at u = (1 + z) / 2 for z = -1 or 1 (the edge's corners).
  std::array<double, 2> slope(double z) const {
    const double angle = theta0 + (radius < 0 ? -z : z) * dtheta;
    return {2 * radius * dtheta * -std::sin(angle) - (p2[0] - p1[0]),
            2 * radius * dtheta * std::cos(angle) - (p2[1] - p1[1])};
  }
};

/// x as printf's %g would (6 significant digits, no trailing zeros).
std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

std::string element_prefix(const ElementBlock& block, std::int64_t k) {
  return "gsr: file '" + block.source + "': element " + std::to_string(block.first + k + 1) + ": ";
}

std::string corner_position(int dim, int c) {
  std::string s = dim == 3 ? "(r, s, t) = (" : "(r, s) = (";
  for (int d = 0; d < dim; ++d) s += std::to_string((c >> d) & 1) + (d + 1 < dim ? ", " : ")");
  return s;
}

/// Arc of curve side `edge` of local element k, from the corners of its map; throws when
/// the radius cannot span the edge (as arcsrf aborts).
Arc make_arc(const ElementBlock& block, std::int64_t k, const Curve& curve, const double* p1, const double* p2) {
  Arc arc;
  arc.radius = curve.params[0];
  for (int x = 0; x < 2; ++x) arc.p1[x] = p1[x], arc.p2[x] = p2[x];
  const double gap = std::hypot(p1[0] - p2[0], p1[1] - p2[1]);
  if (!(std::abs(2 * arc.radius) > gap * 1.00001))
    throw Error(ErrorCode::io, element_prefix(block, k) + "curved side 'C' on edge " + std::to_string(curve.edge) +
                                   ": radius " + number(arc.radius) + " is too small for the edge's length " +
                                   number(gap) + " (|2 R| must exceed it)");
  const double xs = p2[1] - p1[1], ys = p1[0] - p2[0];  // the chord's right-hand normal
  const double xys = std::hypot(xs, ys);
  arc.dtheta = std::abs(std::asin(0.5 * gap / arc.radius));
  const double mid[2] = {(p1[0] + p2[0]) / 2, (p1[1] + p2[1]) / 2};
  arc.centre[0] = mid[0] - xs / xys * arc.radius * std::cos(arc.dtheta);
  arc.centre[1] = mid[1] - ys / xys * arc.radius * std::cos(arc.dtheta);
  arc.theta0 = std::atan2(mid[1] - arc.centre[1], mid[0] - arc.centre[0]);
  return arc;
}

}  // namespace

std::vector<double> gll_points(int order) {
  std::vector<double> x = gll_reference(order);
  for (double& xi : x) xi = (1 + xi) / 2;
  return x;
}

Geometry node_coordinates(const ElementBlock& block, int order) {
  const int dim = block.dim;
  const int g = block.geometry;
  if (dim != 2 && dim != 3)
    throw Error(ErrorCode::invalid_argument, "node_coordinates: dim must be 2 or 3, not " + std::to_string(dim));
  if (g != 2 && g != 3)
    throw Error(ErrorCode::invalid_argument,
                "node_coordinates: geometry must be 2 or 3 points per axis, not " + std::to_string(g));
  const std::size_t per_element = static_cast<std::size_t>(power(g, dim)) * kXyz;
  if (block.count < 0 || block.points.size() != static_cast<std::size_t>(block.count) * per_element)
    throw Error(ErrorCode::invalid_argument, "node_coordinates: " + std::to_string(block.points.size()) +
                                                 " point values for " + std::to_string(block.count) + " elements of " +
                                                 std::to_string(per_element));
  const std::vector<double> z = gll_reference(order);  // throws for order < 1
  const int n = order + 1;
  const int nodes = power(n, dim);
  const std::vector<double> linear = lagrange_weights(2, z), quadratic = lagrange_weights(3, z);
  const int corners = corners_per_element(dim), edges = edges_per_element(dim);

  // The curves of each element, in input order (a later curve on the same side wins, as in
  // Nek5000, whose curve array holds one per side).
  std::vector<std::vector<const Curve*>> curves(static_cast<std::size_t>(block.count));
  for (const Curve& curve : block.curves) {
    if (curve.element < block.first || curve.element >= block.first + block.count)
      throw Error(ErrorCode::invalid_argument,
                  "node_coordinates: a curve of element " + std::to_string(curve.element + 1) + " outside this block");
    curves[static_cast<std::size_t>(curve.element - block.first)].push_back(&curve);
  }

  Geometry result;
  result.coordinates.resize(static_cast<std::size_t>(block.count) * static_cast<std::size_t>(nodes * dim));
  std::vector<double> map, mapped, work;
  std::vector<std::pair<int, Arc>> arcs;
  for (std::int64_t k = 0; k < block.count; ++k) {
    const double* points = block.points.data() + static_cast<std::size_t>(k) * per_element;
    // Which sides are built: 'm' midpoints (order > 1: at order 1 the nodes are the corners,
    // as linquad ignores them when lx1 = 2) and 'C' arcs on x-y edges, of a corner-only
    // element, the last given for an edge; anything else is reported and the side left
    // straight.
    std::vector<const Curve*> midpoints, arc_sides;
    const std::vector<const Curve*>& sides = curves[static_cast<std::size_t>(k)];
    unsigned taken = 0;  // edges with an 'm' or 'C' side already, from the last curve back
    std::vector<std::string> skipped;
    for (auto it = sides.rbegin(); it != sides.rend(); ++it) {
      const Curve* curve = *it;
      if (curve->type == ' ' || curve->type == '\0') continue;
      std::string why;
      const bool edge_ok = curve->edge >= 0 && curve->edge < edges;
      if (edge_ok && (curve->type == 'm' || curve->type == 'C')) {
        if (taken & (1u << curve->edge)) continue;
        taken |= 1u << curve->edge;
      }
      if (g != 2 && (curve->type == 'm' || curve->type == 'C'))
        why = "the element has quadratic nodes already";
      else if (curve->type == 'm' && edge_ok)
        midpoints.push_back(curve);
      else if (curve->type == 'C' && edge_ok && (dim == 2 || curve->edge < 8))
        arc_sides.push_back(curve);
      else if (curve->type == 'C' && edge_ok)
        why = "arcs are built on edges in the x-y plane only (edges along t: straight)";
      else if (curve->type == 'm' || curve->type == 'C')
        why = "no such edge";
      else
        why = "this type is not built";
      if (!why.empty())
        skipped.push_back(element_prefix(block, k) + "curved side of type '" + std::string(1, curve->type) +
                          "' on side " + std::to_string(curve->edge) + " not built (" + why +
                          "): the side is taken as straight");
    }
    result.warnings.insert(result.warnings.end(), skipped.rbegin(), skipped.rend());  // in input order

    // The map's points: the input's (g = 3), or for 'm' sides Nek5000's xyzquad: the
    // (tri)linear element at 3^dim points, the given edge midpoints, and Gordon-Hall
    // extension of the edges into the faces and the interior.
    int mg = g;
    map.assign(points, points + per_element);
    if (g == 2 && order > 1 && !midpoints.empty()) {
      mg = 3;
      const std::vector<double> half = lagrange_weights(2, {-1.0, 0.0, 1.0});
      map_to_nodes(dim, 2, std::vector<double>(points, points + per_element), half, 3, map, work);
      for (const Curve* curve : midpoints) {
        const EdgeShape shape = edge_shape(dim, curve->edge);
        std::array<int, 3> at{2 * shape.at[0], 2 * shape.at[1], 2 * shape.at[2]};
        at[static_cast<std::size_t>(shape.axis)] = 1;
        const std::size_t mid = grid_index(3, at[0], at[1], dim == 3 ? at[2] : 0) * kXyz;
        for (int x = 0; x < kXyz; ++x)
          map[mid + static_cast<std::size_t>(x)] = curve->params[static_cast<std::size_t>(x)];
      }
      gordon_hall_edges(dim, map);
    }

    // Arcs, from the corners of the map (arcsrf's xc, yc).
    arcs.clear();
    auto corner_of = [&](int c) {
      return map.data() +
             grid_index(mg, (c & 1) * (mg - 1), ((c >> 1) & 1) * (mg - 1), ((c >> 2) & 1) * (mg - 1)) * kXyz;
    };
    for (const Curve* curve : arc_sides) {
      const EdgeShape shape = edge_shape(dim, curve->edge);
      int low = 0;
      for (int b = 0; b < dim; ++b) low |= shape.at[static_cast<std::size_t>(b)] << b;
      const int high = low | (1 << shape.axis);
      arcs.emplace_back(curve->edge, make_arc(block, k, *curve, corner_of(low), corner_of(high)));
    }

    // The Jacobian at the corners, of the map the nodes come from.
    std::array<int, 8> sign{};
    for (int c = 0; c < corners; ++c) {
      std::array<std::array<double, 3>, 3> a{};
      for (int d = 0; d < dim; ++d) {
        const int side = (c >> d) & 1;
        std::array<int, 3> at{(c & 1) * (mg - 1), ((c >> 1) & 1) * (mg - 1), ((c >> 2) & 1) * (mg - 1)};
        auto point = [&](int p) {
          at[static_cast<std::size_t>(d)] = p;
          return map.data() + grid_index(mg, at[0], at[1], at[2]) * kXyz;
        };
        for (int x = 0; x < dim; ++x) {
          double derivative;
          if (mg == 2) {
            derivative = point(1)[x] - point(0)[x];
          } else if (side == 0) {
            derivative = -3 * point(0)[x] + 4 * point(1)[x] - point(2)[x];
          } else {
            derivative = point(0)[x] - 4 * point(1)[x] + 3 * point(2)[x];
          }
          a[static_cast<std::size_t>(d)][static_cast<std::size_t>(x)] = derivative;
        }
      }
      for (const auto& [edge, arc] : arcs) {  // an arc changes the derivative along it at its ends
        const EdgeShape shape = edge_shape(dim, edge);
        bool on_edge = true;
        for (int b = 0; b < dim; ++b)
          if (b != shape.axis && ((c >> b) & 1) != shape.at[static_cast<std::size_t>(b)]) on_edge = false;
        if (!on_edge) continue;
        const std::array<double, 2> slope = arc.slope(((c >> shape.axis) & 1) ? 1.0 : -1.0);
        a[static_cast<std::size_t>(shape.axis)][0] += slope[0];
        a[static_cast<std::size_t>(shape.axis)][1] += slope[1];
      }
      double jacobian;
      if (dim == 2) {
        jacobian = a[0][0] * a[1][1] - a[0][1] * a[1][0];
      } else {
        jacobian = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
                   a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
                   a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
      }
      double scale = 1;  // |J| is at most the product of the columns' lengths
      for (int d = 0; d < dim; ++d) {
        double length = 0;
        for (int x = 0; x < dim; ++x)
          length += a[static_cast<std::size_t>(d)][static_cast<std::size_t>(x)] *
                    a[static_cast<std::size_t>(d)][static_cast<std::size_t>(x)];
        scale *= std::sqrt(length);
      }
      if (!std::isfinite(jacobian))
        throw Error(ErrorCode::io, element_prefix(block, k) + "degenerate element (Jacobian not a number at corner " +
                                       std::to_string(c) + ", " + corner_position(dim, c) +
                                       ": non-finite coordinates)");
      if (!(std::abs(jacobian) > 1e-12 * scale))
        throw Error(ErrorCode::io, element_prefix(block, k) + "degenerate element (zero Jacobian at corner " +
                                       std::to_string(c) + ", " + corner_position(dim, c) + ")");
      sign[static_cast<std::size_t>(c)] = jacobian > 0 ? 1 : -1;
    }
    const int positive = static_cast<int>(std::count(sign.begin(), sign.begin() + corners, 1));
    if (positive == 0) {
      ++result.mirrored;
    } else if (positive != corners) {
      std::string plus, minus;
      for (int c = 0; c < corners; ++c)
        (sign[static_cast<std::size_t>(c)] > 0 ? plus : minus) += " " + std::to_string(c);
      throw Error(ErrorCode::io,
                  element_prefix(block, k) + "inverted element (the Jacobian is positive at corners" + plus +
                      " and negative at corners" + minus + "; corner c lies at " +
                      (dim == 3 ? "(r, s, t) = (c & 1, c >> 1 & 1, c >> 2)" : "(r, s) = (c & 1, c >> 1)") + ")");
    }

    // The nodes: the map at the GLL points, then the arcs' departures blended linearly
    // across the element (and along t in 3-D), as arcsrf adds them.
    map_to_nodes(dim, mg, map, mg == 2 ? linear : quadratic, n, mapped, work);
    for (const auto& [edge, arc] : arcs) {
      const EdgeShape shape = edge_shape(dim, edge);
      for (int kk = 0; kk < (dim == 3 ? n : 1); ++kk)
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) {
            const std::array<int, 3> at{i, j, kk};
            double blend = 1;
            for (int b = 0; b < dim; ++b) {
              if (b == shape.axis) continue;
              const double zb = z[static_cast<std::size_t>(at[static_cast<std::size_t>(b)])];
              blend *= shape.at[static_cast<std::size_t>(b)] == 0 ? (1 - zb) / 2 : (1 + zb) / 2;
            }
            const std::array<double, 2> d =
                arc.departure(z[static_cast<std::size_t>(at[static_cast<std::size_t>(shape.axis)])]);
            const std::size_t node = grid_index(n, i, j, kk) * kXyz;
            mapped[node] += blend * d[0];
            mapped[node + 1] += blend * d[1];
          }
    }
    double* out = result.coordinates.data() + static_cast<std::size_t>(k) * static_cast<std::size_t>(nodes * dim);
    for (int node = 0; node < nodes; ++node)
      for (int x = 0; x < dim; ++x)
        out[node * dim + x] = mapped[static_cast<std::size_t>(node) * kXyz + static_cast<std::size_t>(x)];
  }
  return result;
}

}  // namespace gsr::io::import
