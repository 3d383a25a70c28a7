// Serial checks of gsr-poisson's element numerics against closed-form facts: GLL points
// and weights known in closed form, exact quadrature and differentiation of polynomials,
// and the local Laplacian's defining properties on straight and curved elements.
#include "conjugate_gradients.hpp"
#include "element_operator.hpp"
#include "gll.hpp"
#include "random.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace {

using poisson::ElementOperator;
using poisson::GllRule;
using poisson::make_gll_rule;

TEST(Gll, MatchesTabulatedRules) {
  const GllRule r2 = make_gll_rule(2);
  EXPECT_NEAR(r2.points[1], 0.0, 1e-15);
  EXPECT_NEAR(r2.weights[0], 1.0 / 3, 1e-15);
  EXPECT_NEAR(r2.weights[1], 4.0 / 3, 1e-15);

  const GllRule r3 = make_gll_rule(3);
  EXPECT_NEAR(r3.points[1], -1 / std::sqrt(5.0), 1e-15);
  EXPECT_NEAR(r3.points[2], 1 / std::sqrt(5.0), 1e-15);
  EXPECT_NEAR(r3.weights[0], 1.0 / 6, 1e-15);
  EXPECT_NEAR(r3.weights[1], 5.0 / 6, 1e-15);

  const GllRule r4 = make_gll_rule(4);
  EXPECT_NEAR(r4.points[1], -std::sqrt(3.0 / 7), 1e-15);
  EXPECT_NEAR(r4.weights[0], 1.0 / 10, 1e-15);
  EXPECT_NEAR(r4.weights[1], 49.0 / 90, 1e-15);
  EXPECT_NEAR(r4.weights[2], 32.0 / 45, 1e-15);
}

TEST(Gll, RejectsOrderZero) { EXPECT_THROW(make_gll_rule(0), std::invalid_argument); }

class GllOrder : public ::testing::TestWithParam<int> {};

TEST_P(GllOrder, PointsAscendSymmetricallyFromMinusOneToOne) {
  const int n = GetParam();
  const GllRule rule = make_gll_rule(n);
  ASSERT_EQ(rule.points.size(), n + 1);
  EXPECT_EQ(rule.points[0], -1.0);
  EXPECT_EQ(rule.points[n], 1.0);
  for (int i = 0; i < n; ++i) EXPECT_LT(rule.points[i], rule.points[i + 1]);
  for (int i = 0; i <= n; ++i) {
    EXPECT_NEAR(rule.points[i], -rule.points[n - i], 1e-14);
    EXPECT_NEAR(rule.weights[i], rule.weights[n - i], 1e-14);
  }
}

TEST_P(GllOrder, IntegratesPolynomialsUpToDegree2NMinus1) {
  const int n = GetParam();
  const GllRule rule = make_gll_rule(n);
  for (int k = 0; k <= 2 * n - 1; ++k) {
    double sum = 0;
    for (int i = 0; i <= n; ++i) sum += rule.weights[i] * std::pow(rule.points[i], k);
    const double exact = k % 2 ? 0.0 : 2.0 / (k + 1);
    EXPECT_NEAR(sum, exact, 1e-13) << "x^" << k;
  }
}

TEST_P(GllOrder, DifferentiatesPolynomialsUpToDegreeN) {
  const int n = GetParam();
  const GllRule rule = make_gll_rule(n);
  for (int k = 0; k <= n; ++k) {
    Eigen::VectorXd u(n + 1), du(n + 1);
    for (int i = 0; i <= n; ++i) {
      u[i] = std::pow(rule.points[i], k);
      du[i] = k == 0 ? 0.0 : k * std::pow(rule.points[i], k - 1);
    }
    // Entries of D grow like N^2, so allow rounding that grows with them.
    EXPECT_LT((rule.derivative * u - du).cwiseAbs().maxCoeff(), 1e-13 * (n + 1) * (n + 1)) << "x^" << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Orders, GllOrder, ::testing::Range(1, 13));

// Node coordinates of one element from a map of the reference cube [-1,1]^dim.
template <class Map>
std::vector<double> element_coordinates(int dim, const GllRule& rule, Map map) {
  const int n1 = rule.order + 1;
  const int nodes = dim == 2 ? n1 * n1 : n1 * n1 * n1;
  std::vector<double> xyz(static_cast<std::size_t>(nodes) * dim);
  for (int p = 0; p < nodes; ++p) {
    double r[3] = {0, 0, 0}, x[3] = {0, 0, 0};
    for (int a = 0, rest = p; a < dim; ++a, rest /= n1) r[a] = rule.points[rest % n1];
    map(r, x);
    for (int a = 0; a < dim; ++a) xyz[p * dim + a] = x[a];
  }
  return xyz;
}

// A parallelogram: x = (1.5 (r+1) + 0.5 (s+1), (s+1)): base 3, height 2, area 6
// (|J| = 1.5 times the reference area 4).
void parallelogram(const double* r, double* x) {
  x[0] = 1.5 * (r[0] + 1) + 0.5 * (r[1] + 1);
  x[1] = r[1] + 1;
}

// A curved quadrilateral: straight in r, bent in s; Jacobian stays positive.
void curved_2d(const double* r, double* x) {
  x[0] = r[0] + 0.15 * std::sin(std::numbers::pi * r[1]);
  x[1] = r[1] + 0.1 * r[0] * r[0];
}

void curved_3d(const double* r, double* x) {
  x[0] = r[0] + 0.1 * std::sin(std::numbers::pi * r[1]) * r[2];
  x[1] = r[1] + 0.1 * r[0] * r[0];
  x[2] = 0.5 * r[2] + 0.05 * r[0] * r[1];
}

std::vector<double> stiffness(const ElementOperator& op, const std::vector<double>& u) {
  std::vector<double> out(u.size());
  op.apply_stiffness(u, out);
  return out;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

TEST(ElementOperator, ParallelogramGivesAreaAndGradientEnergy) {
  const GllRule rule = make_gll_rule(4);
  const auto xyz = element_coordinates(2, rule, parallelogram);
  const ElementOperator op(2, rule, 1, xyz);

  double area = 0;
  for (double m : op.mass()) area += m;
  EXPECT_NEAR(area, 6.0, 1e-13);

  // u = 2x - 3y: the energy is the integral of |grad u|^2 = 13 over area 6, and the
  // stiffness annihilates constants.
  std::vector<double> u(op.local_size()), one(op.local_size(), 1.0);
  for (std::size_t p = 0; p < u.size(); ++p) u[p] = 2 * xyz[2 * p] - 3 * xyz[2 * p + 1];
  EXPECT_NEAR(dot(u, stiffness(op, u)), 13.0 * 6.0, 1e-11);
  for (double v : stiffness(op, one)) EXPECT_NEAR(v, 0.0, 1e-12);
}

TEST(ElementOperator, CurvedElementsAreSymmetricAndAnnihilateConstants) {
  for (int dim : {2, 3}) {
    const GllRule rule = make_gll_rule(dim == 2 ? 6 : 4);
    const auto xyz = dim == 2 ? element_coordinates(2, rule, curved_2d) : element_coordinates(3, rule, curved_3d);
    const ElementOperator op(dim, rule, 1, xyz);
    gsr_test::Random random(7);
    std::vector<double> u(op.local_size()), v(op.local_size()), one(op.local_size(), 1.0);
    for (auto& x : u) x = random.uniform(-1, 1);
    for (auto& x : v) x = random.uniform(-1, 1);
    const double uv = dot(v, stiffness(op, u)), vu = dot(u, stiffness(op, v));
    EXPECT_NEAR(uv, vu, 1e-11 * std::abs(uv)) << "dim " << dim;
    EXPECT_GT(dot(u, stiffness(op, u)), 0) << "dim " << dim;
    for (double x : stiffness(op, one)) EXPECT_NEAR(x, 0.0, 1e-11) << "dim " << dim;
  }
}

TEST(ElementOperator, DiagonalMatchesUnitVectorProducts) {
  for (int dim : {2, 3}) {
    const GllRule rule = make_gll_rule(3);
    const auto xyz = dim == 2 ? element_coordinates(2, rule, curved_2d) : element_coordinates(3, rule, curved_3d);
    const ElementOperator op(dim, rule, 1, xyz);
    const std::vector<double> diagonal = op.stiffness_diagonal();
    for (std::size_t p = 0; p < op.local_size(); ++p) {
      std::vector<double> e(op.local_size(), 0.0);
      e[p] = 1;
      EXPECT_NEAR(diagonal[p], stiffness(op, e)[p], 1e-12 * std::abs(diagonal[p])) << "dim " << dim << " node " << p;
    }
  }
}

TEST(ElementOperator, ElementsAreIndependentBlocks) {
  // Two copies of the same curved element side by side in the local vector: applying the
  // operator to (u, 0) leaves the second block zero and the first equal to the single-element result.
  const GllRule rule = make_gll_rule(3);
  auto xyz = element_coordinates(2, rule, curved_2d);
  const ElementOperator single(2, rule, 1, xyz);
  xyz.insert(xyz.end(), xyz.begin(), xyz.end());
  const ElementOperator pair(2, rule, 2, xyz);
  std::vector<double> u(single.local_size());
  for (std::size_t p = 0; p < u.size(); ++p) u[p] = std::cos(static_cast<double>(p));
  std::vector<double> u2 = u;
  u2.resize(2 * u.size(), 0.0);
  const auto one = stiffness(single, u), two = stiffness(pair, u2);
  for (std::size_t p = 0; p < u.size(); ++p) {
    EXPECT_DOUBLE_EQ(two[p], one[p]);
    EXPECT_EQ(two[u.size() + p], 0.0);
  }
}

// A mirrored element (its nodes in left-handed order, det J < 0 everywhere, as imported
// meshes may hold) is the same element as its mirror image: same mass, same stiffness.
TEST(ElementOperator, MirroredElementsEqualTheirImages) {
  for (const int dim : {2, 3}) {
    const GllRule rule = make_gll_rule(4);
    auto shape = [dim](const double* r, double* x) { dim == 2 ? curved_2d(r, x) : curved_3d(r, x); };
    const auto xyz = element_coordinates(dim, rule, shape);
    const auto mirrored = element_coordinates(dim, rule, [&](const double* r, double* x) {
      shape(r, x);
      x[0] = -x[0];
    });
    const ElementOperator op(dim, rule, 1, xyz), image(dim, rule, 1, mirrored);
    std::vector<double> u(op.local_size());
    for (std::size_t p = 0; p < u.size(); ++p) u[p] = std::sin(0.7 * static_cast<double>(p)) + 0.1 * p;
    const auto a = stiffness(op, u), b = stiffness(image, u);
    for (std::size_t p = 0; p < u.size(); ++p) {
      EXPECT_GT(image.mass()[p], 0.0);
      EXPECT_NEAR(image.mass()[p], op.mass()[p], 1e-14);
      EXPECT_NEAR(b[p], a[p], 1e-12 * (1 + std::abs(a[p])));
    }
  }
}

// Divergence theorem with q = x: the boundary integral of x . n is dim times the volume. On
// a 2-D element mapped by polynomials of degree N both sides are integrated exactly by GLL
// quadrature (degree 2N - 1 along each line), curved or mirrored alike; in 3-D to
// quadrature accuracy. Also: the r+ face of the parallelogram is the segment (3,0)-(4,2),
// whose outward area normal is (2, -1).
TEST(ElementOperator, FaceQuadratureSatisfiesTheDivergenceTheorem) {
  for (const int dim : {2, 3}) {
    for (const double mirror : {1.0, -1.0}) {
      const GllRule rule = make_gll_rule(dim == 2 ? 5 : 8);
      const auto xyz = element_coordinates(dim, rule, [&](const double* r, double* x) {
        dim == 2 ? curved_2d(r, x) : curved_3d(r, x);
        x[0] *= mirror;
      });
      const ElementOperator op(dim, rule, 1, xyz);
      double volume = 0, flux = 0;
      for (const double m : op.mass()) volume += m;
      for (int face = 0; face < 2 * dim; ++face) {
        const auto q = op.face_quadrature(0, face, xyz);
        ASSERT_EQ(q.nodes.size(), static_cast<std::size_t>(dim == 2 ? 6 : 81));
        for (std::size_t i = 0; i < q.nodes.size(); ++i)
          for (int c = 0; c < dim; ++c) flux += q.area_normals[i * dim + c] * xyz[q.nodes[i] * dim + c];
      }
      EXPECT_NEAR(flux, dim * volume, (dim == 2 ? 1e-12 : 1e-6) * volume) << dim << "-D, mirror " << mirror;
    }
  }
  const GllRule rule = make_gll_rule(3);
  const auto xyz = element_coordinates(2, rule, parallelogram);
  const auto q = ElementOperator(2, rule, 1, xyz).face_quadrature(0, 1, xyz);
  double normal[2] = {0, 0};
  for (std::size_t i = 0; i < q.nodes.size(); ++i) {
    EXPECT_NEAR(xyz[q.nodes[i] * 2], 3 + 0.5 * xyz[q.nodes[i] * 2 + 1], 1e-14);  // on the r+ face
    for (int c = 0; c < 2; ++c) normal[c] += q.area_normals[i * 2 + c];
  }
  EXPECT_NEAR(normal[0], 2, 1e-13);
  EXPECT_NEAR(normal[1], -1, 1e-13);
}

TEST(ElementOperator, RejectsFoldedAndDegenerateElements) {
  const GllRule rule = make_gll_rule(2);
  const auto folded = element_coordinates(2, rule, [](const double* r, double* x) {
    x[0] = r[0] * r[0];  // dx/dr runs from -2 to 2: the Jacobian changes sign
    x[1] = r[1];
  });
  EXPECT_THROW(ElementOperator(2, rule, 1, folded), std::runtime_error);
  const auto flat = element_coordinates(2, rule, [](const double* r, double* x) {
    x[0] = r[0];
    x[1] = 0;  // no area
  });
  EXPECT_THROW(ElementOperator(2, rule, 1, flat), std::runtime_error);
}

TEST(ConjugateGradients, SolvesASymmetricPositiveDefiniteSystem) {
  // The 1-D Laplacian tridiag(-1, 2, -1) of size 20 with a Jacobi preconditioner; exact
  // arithmetic would need at most 20 steps.
  const std::size_t n = 20;
  poisson::CgOperators ops;
  ops.apply = [n](std::span<const double> in, std::span<double> out) {
    for (std::size_t i = 0; i < n; ++i) out[i] = 2 * in[i] - (i > 0 ? in[i - 1] : 0.0) - (i + 1 < n ? in[i + 1] : 0.0);
  };
  ops.precondition = [](std::span<const double> in, std::span<double> out) {
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = in[i] / 2;
  };
  ops.dot = [](std::span<const double> a, std::span<const double> b) {
    double s = 0;
    for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
  };
  ops.dot2 = [&](auto a, auto b, auto c, auto d) { return std::array<double, 2>{ops.dot(a, b), ops.dot(c, d)}; };

  std::vector<double> expected(n), b(n), x(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    expected[i] = std::sin(0.3 * static_cast<double>(i)) + 0.1 * static_cast<double>(i);
  ops.apply(expected, b);
  const auto result = poisson::conjugate_gradients(ops, b, x, {1e-12, 100});
  EXPECT_TRUE(result.converged);
  EXPECT_LE(result.iterations, 25);
  for (std::size_t i = 0; i < n; ++i) EXPECT_NEAR(x[i], expected[i], 1e-9);

  std::vector<double> y(n, 0.0);
  const auto limited = poisson::conjugate_gradients(ops, b, y, {1e-12, 3});
  EXPECT_FALSE(limited.converged);
  EXPECT_EQ(limited.iterations, 3);
}

}  // namespace
