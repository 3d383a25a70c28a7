// geometry_test.cpp — the GLL nodes of imported elements (io/import/geometry.hpp) against
// formulas worked out independently and against Nek5000's own routines (nek_reference/
// geometry): the GLL points, affine and quadratic maps, Nek5000's curved sides ('m'
// midpoints, 'C' arcs), and the Jacobian check (E-IMPORT-INVERTED-ELEMENT,
// E-IMPORT-DEGENERATE-ELEMENT, E-IMPORT-ARC-RADIUS).
#include "io/import/geometry.hpp"

#include <gsr/error.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using gsr::io::import::Curve;
using gsr::io::import::ElementBlock;
using gsr::io::import::Geometry;
using gsr::io::import::gll_points;
using gsr::io::import::node_coordinates;
using Point = std::array<double, 3>;

constexpr double pi = 3.14159265358979323846;

/// A block of elements (geometry^dim points each, lexicographic) of a file "mesh.re2",
/// its first element `first` (0-based) of the input.
ElementBlock block_of(int dim, int geometry, const std::vector<Point>& points, std::int64_t first = 0) {
  ElementBlock block;
  block.source = "mesh.re2";
  block.dim = dim;
  block.geometry = geometry;
  int per = 1;
  for (int d = 0; d < dim; ++d) per *= geometry;
  block.count = static_cast<std::int64_t>(points.size()) / per;
  block.first = first;
  block.elements = block.fluid_elements = first + block.count;
  for (const Point& p : points) block.points.insert(block.points.end(), p.begin(), p.end());
  return block;
}

/// The corners of the element x = f(r, s, t) for (r, s, t) in [0, 1]^dim, lexicographic.
template <class Map>
std::vector<Point> corners_of(int dim, Map f) {
  std::vector<Point> corners;
  for (int c = 0; c < (dim == 3 ? 8 : 4); ++c) corners.push_back(f(c & 1, (c >> 1) & 1, (c >> 2) & 1));
  return corners;
}

/// Node (a, b, c) of local element k of order n (n + 1 nodes per axis), as x, y, z (z = 0 in 2-D).
Point node(const Geometry& g, int dim, int n, std::int64_t k, int a, int b, int c = 0) {
  const int m = n + 1;
  const std::size_t per = static_cast<std::size_t>(dim == 3 ? m * m * m : m * m) * static_cast<std::size_t>(dim);
  const std::size_t at = static_cast<std::size_t>(k) * per + static_cast<std::size_t>((a + m * (b + m * c)) * dim);
  return {g.coordinates.at(at), g.coordinates.at(at + 1), dim == 3 ? g.coordinates.at(at + 2) : 0.0};
}

/// Every node of element k against f at the GLL points, to tol.
template <class Map>
void expect_nodes(const Geometry& g, int dim, int n, std::int64_t k, Map f, double tol) {
  const std::vector<double> p = gll_points(n);
  for (int c = 0; c <= (dim == 3 ? n : 0); ++c)
    for (int b = 0; b <= n; ++b)
      for (int a = 0; a <= n; ++a) {
        const Point got = node(g, dim, n, k, a, b, c), want = f(p[a], p[b], dim == 3 ? p[c] : 0.0);
        for (int x = 0; x < dim; ++x)
          ASSERT_NEAR(got[x], want[x], tol)
              << "element " << k << " node (" << a << ", " << b << ", " << c << ") x" << x;
      }
}

Curve curve(std::int64_t element, int edge, char type, std::array<double, 5> params) {
  Curve c;
  c.element = element;
  c.edge = edge;
  c.type = type;
  c.params = params;
  return c;
}

/// The message of the gsr::Error(io) that f throws ("" and a failure if none).
template <class F>
std::string io_error(F f) {
  try {
    f();
  } catch (const gsr::Error& e) {
    EXPECT_EQ(e.code(), gsr::ErrorCode::io) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

/// P_n(x) by the three-term recurrence.
double legendre(int n, double x) {
  double p0 = 1, p1 = x;
  if (n == 0) return p0;
  for (int k = 2; k <= n; ++k) {
    const double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
    p0 = p1;
    p1 = p2;
  }
  return p1;
}

TEST(GllPoints, KnownValues) {
  EXPECT_EQ(gll_points(1), (std::vector<double>{0, 1}));
  EXPECT_EQ(gll_points(2), (std::vector<double>{0, 0.5, 1}));
  const std::vector<double> four = gll_points(4);  // on [-1, 1]: 0, +-1, +-sqrt(3/7)
  ASSERT_EQ(four.size(), 5u);
  EXPECT_EQ(four[0], 0.0);
  EXPECT_NEAR(four[1], (1 - std::sqrt(3.0 / 7.0)) / 2, 1e-15);
  EXPECT_EQ(four[2], 0.5);
  EXPECT_NEAR(four[3], (1 + std::sqrt(3.0 / 7.0)) / 2, 1e-15);
  EXPECT_EQ(four[4], 1.0);
  // N = 3: +-1/sqrt(5) on [-1, 1].
  const std::vector<double> three = gll_points(3);
  EXPECT_NEAR(three[1], (1 - 1 / std::sqrt(5.0)) / 2, 1e-15);
  EXPECT_NEAR(three[2], (1 + 1 / std::sqrt(5.0)) / 2, 1e-15);
}

TEST(GllPoints, AreTheRootsOfTheLegendreDerivativeAndIntegrateExactly) {
  for (const int n : {5, 7, 12, 20}) {
    const std::vector<double> p = gll_points(n);
    ASSERT_EQ(p.size(), static_cast<std::size_t>(n) + 1);
    EXPECT_EQ(p.front(), 0.0);
    EXPECT_EQ(p.back(), 1.0);
    for (std::size_t i = 1; i < p.size(); ++i) EXPECT_LT(p[i - 1], p[i]);
    for (std::size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(p[i] + p[p.size() - 1 - i], 1.0, 2e-16);
    // Interior points: P'_n(x) = n (P_{n-1}(x) - x P_n(x)) / (1 - x^2) vanishes at x = 2p - 1.
    for (std::size_t i = 1; i + 1 < p.size(); ++i) {
      const double x = 2 * p[i] - 1;
      EXPECT_NEAR(n * (legendre(n - 1, x) - x * legendre(n, x)) / (1 - x * x), 0.0, 1e-12 * n * n) << n << " " << i;
    }
    // Gauss-Lobatto quadrature with the weights 2 / (n (n+1) P_n(x)^2) integrates x^(2n-2)
    // over [-1, 1] exactly (degree <= 2n-1).
    double integral = 0;
    for (const double pi : p) {
      const double x = 2 * pi - 1;
      integral += 2.0 / (n * (n + 1) * legendre(n, x) * legendre(n, x)) * std::pow(x, 2 * n - 2);
    }
    EXPECT_NEAR(integral, 2.0 / (2 * n - 1), 1e-13) << n;
  }
}

TEST(GllPoints, OrderBelowOneIsRefused) { EXPECT_THROW(gll_points(0), gsr::Error); }

// An affine map: a 3-D one with a positive determinant (2.783), and a 2-D one.
Point affine3(double r, double s, double t) {
  return {10 + 2 * r + 0.3 * s + 0.1 * t, -3 + 0.2 * r + 1.5 * s - 0.4 * t, 7 + 0.1 * r + 0.2 * s + 0.9 * t};
}
Point affine2(double r, double s, double) { return {1 + 3 * r - 0.5 * s, 2 + 0.7 * r + 2 * s, 0}; }

TEST(NodeCoordinates, AffineElementsAreReproduced) {
  const std::vector<Point> hex = corners_of(3, affine3);
  const Geometry g3 = node_coordinates(block_of(3, 2, hex), 5);
  ASSERT_EQ(g3.coordinates.size(), 6u * 6 * 6 * 3);
  expect_nodes(g3, 3, 5, 0, affine3, 1e-13);
  EXPECT_EQ(g3.mirrored, 0);
  EXPECT_TRUE(g3.warnings.empty());

  // Two 2-D elements, the second shifted by (5, 0); order 3.
  std::vector<Point> quads = corners_of(2, affine2);
  for (const Point& p : corners_of(2, affine2)) quads.push_back({p[0] + 5, p[1], 0});
  const Geometry g2 = node_coordinates(block_of(2, 2, quads), 3);
  ASSERT_EQ(g2.coordinates.size(), 2u * 4 * 4 * 2);
  expect_nodes(g2, 2, 3, 0, affine2, 1e-14);
  auto shifted = [](double r, double s, double t) {
    Point p = affine2(r, s, t);
    p[0] += 5;
    return p;
  };
  expect_nodes(g2, 2, 3, 1, shifted, 1e-14);

  // Order 1: the nodes are the corners.
  const Geometry g1 = node_coordinates(block_of(3, 2, hex), 1);
  expect_nodes(g1, 3, 1, 0, affine3, 1e-14);
}

TEST(NodeCoordinates, MirroredElementsAreAccepted) {
  // x -> -x: left-handed, the Jacobian negative at every corner.
  auto mirrored = [](double r, double s, double t) {
    Point p = affine3(r, s, t);
    p[0] = -p[0];
    return p;
  };
  const Geometry g = node_coordinates(block_of(3, 2, corners_of(3, mirrored)), 4);
  EXPECT_EQ(g.mirrored, 1);
  expect_nodes(g, 3, 4, 0, mirrored, 1e-13);
  auto mirrored2 = [](double r, double s, double t) {
    Point p = affine2(r, s, t);
    p[1] = -p[1];
    return p;
  };
  EXPECT_EQ(node_coordinates(block_of(2, 2, corners_of(2, mirrored2)), 2).mirrored, 1);
}

// A map quadratic in each of r, s, t (so its 27 points determine it), near the identity.
Point quadratic3(double r, double s, double t) {
  return {r + 0.1 * s * s + 0.05 * r * t + 0.02 * r * r * s * s * t * t, s + 0.08 * r * r - 0.03 * s * t,
          t + 0.06 * r * s + 0.04 * t * t - 0.05 * r * r * t};
}

TEST(NodeCoordinates, QuadraticNodesGiveTheQuadraticMap) {
  std::vector<Point> hex27;
  for (int c = 0; c < 3; ++c)
    for (int b = 0; b < 3; ++b)
      for (int a = 0; a < 3; ++a) hex27.push_back(quadratic3(a / 2.0, b / 2.0, c / 2.0));
  for (const int n : {2, 6}) {
    const Geometry g = node_coordinates(block_of(3, 3, hex27), n);
    expect_nodes(g, 3, n, 0, quadratic3, 1e-13);
  }
  // 2-D: quad9.
  auto quadratic2 = [](double r, double s, double) {
    return Point{r + 0.1 * s * s - 0.05 * r * r * s, s + 0.07 * r * r * s * s, 0};
  };
  std::vector<Point> quad9;
  for (int b = 0; b < 3; ++b)
    for (int a = 0; a < 3; ++a) quad9.push_back(quadratic2(a / 2.0, b / 2.0, 0));
  expect_nodes(node_coordinates(block_of(2, 3, quad9), 5), 2, 5, 0, quadratic2, 1e-13);
}

TEST(NodeCoordinates, MidpointCurveFollowsTheCircleAndLeavesTheOppositeEdgeStraight) {
  // A sector of the annulus 1 < |x| < 2 between the angles 0 and a: r radial, s along the
  // angle; edge 3 (along s at r = 1) is the outer arc, given by its midpoint.
  const double a = pi / 4;
  const Point c0{1, 0, 0}, c1{2, 0, 0}, c2{std::cos(a), std::sin(a), 0}, c3{2 * std::cos(a), 2 * std::sin(a), 0};
  const Point mid{2 * std::cos(a / 2), 2 * std::sin(a / 2), 0};
  ElementBlock block = block_of(2, 2, {c0, c1, c2, c3}, 4);
  block.curves.push_back(curve(4, 3, 'm', {mid[0], mid[1], 0, 0, 0}));
  const int n = 6;
  const Geometry g = node_coordinates(block, n);
  EXPECT_TRUE(g.warnings.empty());
  // Nek5000's xyzquad: bilinear, plus the midpoint's departure d from the chord, quadratic
  // (4 s (1 - s)) along the edge and linear (r) across the element.
  const Point d{mid[0] - (c1[0] + c3[0]) / 2, mid[1] - (c1[1] + c3[1]) / 2, 0};
  auto expected = [&](double r, double s, double) {
    Point p{};
    for (int x = 0; x < 2; ++x)
      p[x] = (1 - r) * (1 - s) * c0[x] + r * (1 - s) * c1[x] + (1 - r) * s * c2[x] + r * s * c3[x] +
             r * 4 * s * (1 - s) * d[x];
    return p;
  };
  expect_nodes(g, 2, n, 0, expected, 1e-13);
  // On the curved edge: within the quadratic interpolant's error of the circle of radius 2
  // (|f'''| / 6 max |u (u - 1/2) (u - 1)| for f(u) = 2 (cos a u, sin a u)). The opposite
  // edge: exactly straight.
  const double bound = 2 * a * a * a / 6 * (std::sqrt(3.0) / 36);
  const std::vector<double> p = gll_points(n);
  for (int j = 0; j <= n; ++j) {
    const Point outer = node(g, 2, n, 0, n, j);
    EXPECT_NEAR(std::hypot(outer[0], outer[1]), 2.0, bound) << j;
    if (j > 0 && j < n) EXPECT_GT(std::hypot(outer[0], outer[1]), 2 * std::cos(a / 2) + 0.1) << "bulges out";
    const Point inner = node(g, 2, n, 0, 0, j);
    EXPECT_NEAR(inner[0], c0[0] + p[j] * (c2[0] - c0[0]), 1e-15);
    EXPECT_NEAR(inner[1], c0[1] + p[j] * (c2[1] - c0[1]), 1e-15);
  }
}

TEST(NodeCoordinates, MidpointCurveIn3DBlendsIntoFacesAndInterior) {
  // Unit cube, edge 5 (along s at r = 1, t = 0) given a displaced midpoint.
  auto cube = [](double r, double s, double t) { return Point{r, s, t}; };
  ElementBlock block = block_of(3, 2, corners_of(3, cube));
  const Point d{0.2, 0.05, -0.1};
  block.curves.push_back(curve(0, 5, 'm', {1 + d[0], 0.5 + d[1], d[2], 0, 0}));
  const int n = 5;
  auto expected = [&](double r, double s, double t) {
    const double blend = r * (1 - t) * 4 * s * (1 - s);
    return Point{r + blend * d[0], s + blend * d[1], t + blend * d[2]};
  };
  expect_nodes(node_coordinates(block, n), 3, n, 0, expected, 1e-13);
  // A second one, edge 8 (along t at r = 0, s = 0): the edges' departures add up.
  const Point d8{-0.1, -0.15, 0.05};
  block.curves.push_back(curve(0, 8, 'm', {d8[0], d8[1], 0.5 + d8[2], 0, 0}));
  auto expected2 = [&](double r, double s, double t) {
    const double blend = r * (1 - t) * 4 * s * (1 - s), blend8 = (1 - r) * (1 - s) * 4 * t * (1 - t);
    return Point{r + blend * d[0] + blend8 * d8[0], s + blend * d[1] + blend8 * d8[1],
                 t + blend * d[2] + blend8 * d8[2]};
  };
  expect_nodes(node_coordinates(block, n), 3, n, 0, expected2, 1e-13);
  // At order 1 the nodes are the corners (Nek5000 builds 'm' sides only for lx1 > 2).
  expect_nodes(node_coordinates(block, 1), 3, 1, 0, cube, 1e-15);
}

/// The angle of p seen from (cx, cy).
double angle(const Point& p, double cx, double cy) { return std::atan2(p[1] - cy, p[0] - cx); }

TEST(NodeCoordinates, ArcEdgesLieOnTheirCircle) {
  // Unit square. Edge 0 (s = 0, from (0,0) to (1,0)) with R = 1: the centre lies on the left
  // of the edge's direction, at (1/2, sqrt(3)/2); the arc bulges out (y < 0).
  auto square = [](double r, double s, double) { return Point{r, s, 0}; };
  const double cy = std::sqrt(0.75);
  ElementBlock block = block_of(2, 2, corners_of(2, square));
  block.curves.push_back(curve(0, 0, 'C', {5, 0, 0, 0, 0}));  // replaced by the next (one curve per side)
  block.curves.push_back(curve(0, 0, 'C', {1, 0, 0, 0, 0}));
  const int n = 7;
  const Geometry g = node_coordinates(block, n);
  EXPECT_TRUE(g.warnings.empty());
  const std::vector<double> p = gll_points(n);
  const double start = angle({0, 0, 0}, 0.5, cy), end = angle({1, 0, 0}, 0.5, cy);
  for (int i = 0; i <= n; ++i) {
    const Point e = node(g, 2, n, 0, i, 0);
    EXPECT_NEAR(std::hypot(e[0] - 0.5, e[1] - cy), 1.0, 1e-12) << i;
    // At the GLL points of the angle (arcsrf: theta0 + r dtheta).
    EXPECT_NEAR(angle(e, 0.5, cy), start + p[i] * (end - start), 1e-12) << i;
    if (i > 0 && i < n) EXPECT_LT(e[1], 0.0);
    // The opposite edge is untouched; in between, the departure from the chord fades
    // linearly in s.
    const Point top = node(g, 2, n, 0, i, n);
    EXPECT_NEAR(top[0], p[i], 1e-15);
    EXPECT_NEAR(top[1], 1.0, 1e-15);
    for (int j = 0; j <= n; ++j) {
      const Point inside = node(g, 2, n, 0, i, j);
      EXPECT_NEAR(inside[0], p[i] + (1 - p[j]) * (e[0] - p[i]), 1e-14);
      EXPECT_NEAR(inside[1], p[j] + (1 - p[j]) * e[1], 1e-14);
    }
  }

  // Edge 1 (s = 1, from (0,1) to (1,1)) with R = -1: the centre on the right, at
  // (1/2, 1 - sqrt(3)/2); the arc bulges out (y > 1). (Nek5000 runs this edge the other way,
  // from its corner 3 to 4, with radius +1: the .re2 reader negates it.)
  ElementBlock top = block_of(2, 2, corners_of(2, square));
  top.curves.push_back(curve(0, 1, 'C', {-1, 0, 0, 0, 0}));
  const Geometry gt = node_coordinates(top, n);
  for (int i = 0; i <= n; ++i) {
    const Point e = node(gt, 2, n, 0, i, n);
    EXPECT_NEAR(std::hypot(e[0] - 0.5, e[1] - (1 - cy)), 1.0, 1e-12) << i;
    if (i > 0 && i < n) EXPECT_GT(e[1], 1.0);
  }
}

TEST(NodeCoordinates, ArcEdgesIn3DAreBlendedAlongT) {
  // Unit cube, edge 2 (along r at s = 0, t = 1), R = 2: on the circle of radius 2 about
  // (1/2, sqrt(15)/2) in the plane z = 1; edge 0 (t = 0) stays straight.
  auto cube = [](double r, double s, double t) { return Point{r, s, t}; };
  ElementBlock block = block_of(3, 2, corners_of(3, cube));
  block.curves.push_back(curve(0, 2, 'C', {2, 0, 0, 0, 0}));
  const int n = 4;
  const Geometry g = node_coordinates(block, n);
  const std::vector<double> p = gll_points(n);
  const double cy = std::sqrt(15.0) / 2;
  for (int i = 0; i <= n; ++i) {
    const Point e = node(g, 3, n, 0, i, 0, n);
    EXPECT_NEAR(std::hypot(e[0] - 0.5, e[1] - cy), 2.0, 1e-12) << i;
    EXPECT_NEAR(e[2], 1.0, 1e-15);
    const Point straight = node(g, 3, n, 0, i, 0, 0);
    EXPECT_NEAR(straight[0], p[i], 1e-15);
    EXPECT_NEAR(straight[1], 0.0, 1e-15);
    const Point middle = node(g, 3, n, 0, i, 0, n / 2);  // t = 1/2: half the departure
    EXPECT_NEAR(middle[1], e[1] / 2, 1e-14);
  }
}

TEST(NodeCoordinates, ArcTooSmallForItsEdgeIsAnError) {
  // E-IMPORT-ARC-RADIUS: |2 R| must exceed the edge's length (arcsrf aborts otherwise).
  auto square = [](double r, double s, double) { return Point{r, s, 0}; };
  ElementBlock block = block_of(2, 2, corners_of(2, square), 6);
  block.curves.push_back(curve(6, 2, 'C', {0.4, 0, 0, 0, 0}));
  const std::string what = io_error([&] { node_coordinates(block, 3); });
  EXPECT_NE(what.find("file 'mesh.re2'"), std::string::npos) << what;
  EXPECT_NE(what.find("element 7:"), std::string::npos) << what;
  EXPECT_NE(what.find("curved side 'C' on edge 2: radius 0.4 is too small for the edge's length 1 ("),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("too small for the edge's length"), std::string::npos) << what;
}

TEST(NodeCoordinates, InvertedElementsAreErrors) {
  // E-IMPORT-INVERTED-ELEMENT. 2-D: the second element's corners 2 and 3 swapped (a bow
  // tie): the Jacobian is +1 at corners 0 and 1 and -1 at corners 2 and 3.
  auto square = [](double r, double s, double) { return Point{r, s, 0}; };
  std::vector<Point> quads = corners_of(2, square);
  quads.insert(quads.end(), {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}});
  const std::string what = io_error([&] { node_coordinates(block_of(2, 2, quads, 10), 2); });
  EXPECT_NE(what.find("file 'mesh.re2': element 12: inverted element"), std::string::npos) << what;
  EXPECT_NE(what.find("positive at corners 0 1 and negative at corners 2 3"), std::string::npos) << what;
  // 3-D: corner 7 pushed through to (0.2, 0.2, 0.2): the Jacobian there is -1.4.
  std::vector<Point> hex = corners_of(3, [](double r, double s, double t) { return Point{r, s, t}; });
  hex[7] = {0.2, 0.2, 0.2};
  const std::string what3 = io_error([&] { node_coordinates(block_of(3, 2, hex), 3); });
  EXPECT_NE(what3.find("element 1: inverted element"), std::string::npos) << what3;
  EXPECT_NE(what3.find("negative at corners 7;"), std::string::npos) << what3;
  // A midpoint pulled back past the quarter of its edge (x < 1/4) turns the quadratic map
  // back on itself at corner 0 (its tangent 4 m - c1 - 3 c0 = (-2.2, 0.4): Jacobian -2.2;
  // at corner 1, 4.2; at corners 2 and 3, 1). The Jacobian is checked at the corners only:
  // a midpoint pulled across the element, (0.5, 1.5), would pass.
  ElementBlock block = block_of(2, 2, corners_of(2, square));
  block.curves.push_back(curve(0, 0, 'm', {-0.3, 0.1, 0, 0, 0}));
  const std::string quadratic = io_error([&] { node_coordinates(block, 4); });
  // An arc does too: a parallelogram leaning right (corners (0,0), (1,0), (0.5,1), (1.5,1))
  // with edge 0 bulged up by R = -0.52 (half angle asin(0.5 / 0.52) = 74 degrees): at
  // corner 0 the arc's tangent is along (cos 74, sin 74), left of the side edge (0.5, 1):
  // Jacobian 0.276 - 0.961 * 0.5 < 0; at corner 1, 0.276 + 0.961 * 0.5 > 0.
  ElementBlock leaning = block_of(2, 2, {{0, 0, 0}, {1, 0, 0}, {0.5, 1, 0}, {1.5, 1, 0}});
  EXPECT_EQ(node_coordinates(leaning, 4).mirrored, 0);  // straight, it is fine
  leaning.curves.push_back(curve(0, 0, 'C', {-0.52, 0, 0, 0, 0}));
  const std::string arc = io_error([&] { node_coordinates(leaning, 4); });
  EXPECT_NE(arc.find("inverted element (the Jacobian is positive at corners 1 2 3 and negative at corners 0;"),
            std::string::npos)
      << arc;
  EXPECT_NE(quadratic.find("inverted element (the Jacobian is positive at corners 1 2 3 and negative at corners 0;"),
            std::string::npos)
      << quadratic;
}

TEST(NodeCoordinates, DegenerateElementsAreErrors) {
  // E-IMPORT-DEGENERATE-ELEMENT. 2-D: corner 3 on corner 1, so the edge along s at r = 1
  // has length zero.
  const std::string what = io_error([&] {
    node_coordinates(block_of(2, 2, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 0, 0}}), 2);
  });
  EXPECT_NE(what.find("file 'mesh.re2': element 1: degenerate element (zero Jacobian at corner 1, (r, s) = (1, 0))"),
            std::string::npos)
      << what;
  // 3-D: a flat hex (every z = 0).
  auto flat = [](double r, double s, double) { return Point{r, s, 0}; };
  const std::string what3 = io_error([&] { node_coordinates(block_of(3, 2, corners_of(3, flat)), 2); });
  EXPECT_NE(what3.find("degenerate element (zero Jacobian at corner 0, (r, s, t) = (0, 0, 0))"), std::string::npos)
      << what3;
}

TEST(NodeCoordinates, CurvesNotBuiltAreWarnedAndLeftStraight) {
  auto cube = [](double r, double s, double t) { return Point{r, s, t}; };
  ElementBlock block = block_of(3, 2, corners_of(3, cube), 16);
  block.curves.push_back(curve(16, 2, 's', {0, 0, 0, 5, 0}));  // a sphere face: not built
  block.curves.push_back(curve(16, 9, 'C', {3, 0, 0, 0, 0}));  // an arc along t: not built
  const Geometry g = node_coordinates(block, 3);
  ASSERT_EQ(g.warnings.size(), 2u);
  EXPECT_NE(g.warnings[0].find("element 17"), std::string::npos) << g.warnings[0];
  EXPECT_NE(g.warnings[0].find("type 's'"), std::string::npos) << g.warnings[0];
  EXPECT_NE(g.warnings[1].find("element 17"), std::string::npos) << g.warnings[1];
  EXPECT_NE(g.warnings[1].find("type 'C'"), std::string::npos) << g.warnings[1];
  expect_nodes(g, 3, 3, 0, cube, 1e-15);
}

/// The values of a reference file of Nek5000's routines (tests/import/nek_reference/geometry).
std::vector<double> reference(const std::string& name) {
  const std::string path = std::string(GSR_NEK_GEOMETRY_REFERENCE) + "/" + name;
  std::FILE* file = std::fopen(path.c_str(), "r");
  EXPECT_NE(file, nullptr) << path;
  std::vector<double> values;
  if (!file) return values;
  double v = 0;
  while (std::fscanf(file, "%lf", &v) == 1) values.push_back(v);
  std::fclose(file);
  return values;
}

// Against Nek5000's own routines (make_reference.sh runs them on the same elements). The
// corners are given in prenek's order and the sides in prenek's numbering there; here in
// ours (element_block.hpp): corners 1,2,3,4,5,6,7,8 -> 0,1,3,2,4,5,7,6; 3-D edges
// 1..12 -> 0,5,1,4, 2,7,3,6, 8,9,11,10; 2-D 'C' sides 3 and 4 run the other way, their radius negated.
TEST(NekReference, MidpointSidesAsXyzquad) {
  const std::vector<double> nek = reference("m_hex.txt");
  const double xc[8] = {0.0, 1.1, 1.2, -0.1, 0.05, 1.0, 1.3, 0.0};
  const double yc[8] = {0.0, 0.1, 1.0, 0.9, 0.0, -0.1, 1.1, 1.0};
  const double zc[8] = {0.0, 0.1, -0.05, 0.0, 1.0, 1.1, 0.9, 1.05};
  const int prenek[8] = {0, 1, 3, 2, 4, 5, 7, 6};  // our corner c is prenek's corner prenek[c] + 1
  std::vector<Point> corners;
  for (const int p : prenek) corners.push_back({xc[p], yc[p], zc[p]});
  ElementBlock block = block_of(3, 2, corners);
  block.curves.push_back(curve(0, 5, 'm', {1.3, 0.5, 0.05, 0, 0}));    // prenek side 2
  block.curves.push_back(curve(0, 8, 'm', {-0.1, -0.1, 0.45, 0, 0}));  // side 9
  block.curves.push_back(curve(0, 3, 'm', {0.7, 1.2, 1.0, 0, 0}));     // side 7
  block.curves.push_back(curve(0, 11, 'm', {1.35, 1.0, 0.4, 0, 0}));   // side 11
  const Geometry g = node_coordinates(block, 5);
  ASSERT_EQ(nek.size(), g.coordinates.size());
  for (std::size_t i = 0; i < nek.size(); ++i) ASSERT_NEAR(g.coordinates[i], nek[i], 1e-14) << "value " << i;
}

TEST(NekReference, ArcSidesAsArcsrf) {
  const std::vector<double> nek = reference("c_quad.txt");
  // prenek corners (0,0), (2,0.2), (2.1,1.5), (-0.1,1.3); radii: side 1 1.3, side 3 1.4,
  // side 4 -2.
  ElementBlock block = block_of(2, 2, {{0, 0, 0}, {2, 0.2, 0}, {-0.1, 1.3, 0}, {2.1, 1.5, 0}});
  block.curves.push_back(curve(0, 0, 'C', {1.3, 0, 0, 0, 0}));   // side 1: edge 0, same way
  block.curves.push_back(curve(0, 1, 'C', {-1.4, 0, 0, 0, 0}));  // side 3: edge 1, other way
  block.curves.push_back(curve(0, 2, 'C', {2.0, 0, 0, 0, 0}));   // side 4: edge 2, other way
  const Geometry g = node_coordinates(block, 7);
  ASSERT_EQ(nek.size(), g.coordinates.size());
  for (std::size_t i = 0; i < nek.size(); ++i) ASSERT_NEAR(g.coordinates[i], nek[i], 1e-14) << "value " << i;
}

}  // namespace
