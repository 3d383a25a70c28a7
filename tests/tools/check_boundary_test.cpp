// check_boundary_test.cpp — gsr-check on meshes with the boundary additions of imported
// meshes (/mesh/boundary, boundary_kinds, groups, names): faces counted per field and tag,
// shared faces found from the ids, open faces and periodic faces without an image flagged,
// interfaces (tagged and shared faces) accepted, and periodic copies that no axis period
// covers reported as not compared instead of as a coordinate problem. Every mesh is a 2 x 2 x 1
// box of order 2 written with gsr::write_mesh at P ranks; the expected counts follow from its
// construction (comments below), not from the checker.
#include "world.hpp"
#include "../io/scratch_dir.hpp"

#include "tools/check.hpp"

#include <gsr/mesh.hpp>

#include <gtest/gtest.h>

#include <array>
#include <string>

namespace {

using gsr::testing::ScratchDir;
using gsr_test::world_rank;
using gsr_test::world_size;
using nlohmann::json;

// Elements e = ex + 2 ey (ex, ey in 0..1, one layer in z), each a unit cube of order 2, so
// the lattice of nodes is 5 x 5 x 3 (4 x 5 x 3 distinct ids when x is periodic: layer 4 wraps
// onto layer 0). Faces s = 0..5 are r-, r+, s-, s+, t-, t+ (x-, x+, y-, y+, z-, z+).
constexpr int order = 2, n1 = order + 1, faces = 6, fields = 2;
constexpr std::int64_t elements = 4;

enum class XFaces { tagged, periodic_marked, periodic_unmarked };

struct Box {
  XFaces x_faces = XFaces::tagged;
  bool axis_period = false;  // the `periods` attribute covers x (period 2)
  bool boundary = true;      // write the additions at all
  // Changes of single faces, applied last: (element, field, face, value).
  std::vector<std::array<std::int64_t, 4>> overrides;
};

/// An outer face of the box gets tag s + 1; faces between two elements -1; x faces when x is
/// periodic -2 (marked) or -1 (unmarked).
std::int64_t tag_of(const Box& box, std::int64_t e, int s) {
  const std::int64_t ex = e % 2, ey = e / 2;
  const bool outer = s >= 4 || (s == 0 && ex == 0) || (s == 1 && ex == 1) || (s == 2 && ey == 0) || (s == 3 && ey == 1);
  if (!outer) return -1;
  if (s < 2 && box.x_faces == XFaces::periodic_marked) return -2;
  if (s < 2 && box.x_faces == XFaces::periodic_unmarked) return -1;
  return s + 1;
}

std::array<char, 4> kind_of(std::int64_t tag) {
  if (tag == 1) return {'v', 0, 0, 0};
  if (tag == 6) return {'S', 'Y', 'M', 0};
  if (tag == -1) return {'E', 0, 0, 0};
  if (tag == -2) return {'P', 0, 0, 0};
  return {'W', 0, 0, 0};
}

gsr::Mesh box_mesh(const Box& box) {
  const bool periodic = box.x_faces != XFaces::tagged;
  const std::int64_t lx = periodic ? 4 : 5, ly = 5;
  gsr::Mesh mesh;
  mesh.info.dim = 3;
  mesh.info.order = order;
  mesh.info.has_coordinates = true;
  if (box.axis_period) mesh.info.periods = {2, 0, 0};
  if (box.boundary) {
    mesh.info.boundary_fields = fields;
    mesh.info.has_boundary_kinds = true;
    mesh.info.has_groups = true;
    mesh.info.names = {{2, 1, "inlet"}, {2, 6, "top"}, {3, 1, "left"}};
  }
  const auto [first, last] = gsr::block_range(elements, world_rank(), world_size());
  for (std::int64_t e = first; e < last; ++e) {
    const std::int64_t ex = e % 2, ey = e / 2;
    mesh.elements.push_back(e);
    for (int c = 0; c < n1; ++c)
      for (int b = 0; b < n1; ++b)
        for (int a = 0; a < n1; ++a) {
          const std::int64_t gx = ex * order + a, gy = ey * order + b, gz = c;
          mesh.ids.push_back(1 + gx % lx + lx * gy + lx * ly * gz);
          for (const std::int64_t g : {gx, gy, gz}) mesh.coordinates.push_back(static_cast<double>(g) / order);
        }
    if (!box.boundary) continue;
    for (int f = 0; f < fields; ++f)
      for (int s = 0; s < faces; ++s) {
        std::int64_t tag = tag_of(box, e, s);
        for (const auto& [oe, of, os, value] : box.overrides)
          if (oe == e && of == f && os == s) tag = value;
        mesh.boundary.push_back(tag);
        mesh.boundary_kinds.push_back(kind_of(tag));
      }
    mesh.groups.push_back(e < 2 ? 1 : 2);
  }
  return mesh;
}

json check(const Box& box, const std::string& name) {
  ScratchDir dir("check-boundary");
  const std::string path = dir.file(name + ".h5");
  gsr::write_mesh(path, box_mesh(box), MPI_COMM_WORLD);
  gsr::tools::CheckOptions options;
  options.path = path;
  options.compare_methods = false;
  options.method = gsr::Method::pairwise;  // no timing of the methods: keeps the test short
  return gsr::tools::check_mesh(options, MPI_COMM_WORLD);
}

bool mentions(const json& problems, const std::string& text) {
  for (const json& problem : problems)
    if (problem.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// Every outer face tagged: x- (tag 1) and x+ (2) on 2 elements each, y- (3) and y+ (4) on 2,
// z- (5) and z+ (6) on all 4; the 4 faces between two elements (2 across x, 2 across y) are
// shared, 8 element faces, untagged. Field 2 tags the two faces between elements 0 and 1 with
// 7 (an interface: tagged and shared, legal) and leaves element 0's z- face without a
// condition: open in field 2, which is counted but not a problem (only field 1's are).
TEST(CheckBoundary, EveryOuterFaceTagged) {
  Box box;
  box.overrides = {{0, 1, 1, 7}, {1, 1, 0, 7}, {0, 1, 4, -1}};
  const json report = check(box, "tagged");
  EXPECT_TRUE(report.at("consistent").get<bool>()) << report.at("problems").dump();
  const json& fields_json = report.at("boundary").at("fields");
  ASSERT_EQ(fields_json.size(), 2u);
  const json& one = fields_json[0];
  EXPECT_EQ(one.at("field"), 1);
  EXPECT_EQ(one.at("faces"), 24);
  EXPECT_EQ(one.at("shared"), 8);
  EXPECT_EQ(one.at("periodic"), 0);
  EXPECT_EQ(one.at("tagged_and_shared"), 0);
  EXPECT_EQ(one.at("no_condition"), 8);
  EXPECT_EQ(one.at("open"), 0);
  const json expected_tags = json::parse(R"({
    "1": {"faces": 2, "name": "inlet", "kinds": {"v": 2}},
    "2": {"faces": 2, "kinds": {"W": 2}},
    "3": {"faces": 2, "kinds": {"W": 2}},
    "4": {"faces": 2, "kinds": {"W": 2}},
    "5": {"faces": 4, "kinds": {"W": 4}},
    "6": {"faces": 4, "name": "top", "kinds": {"SYM": 4}}})");
  EXPECT_EQ(one.at("tags"), expected_tags);
  const json& two = fields_json[1];
  EXPECT_EQ(two.at("field"), 2);
  EXPECT_EQ(two.at("shared"), 8);
  EXPECT_EQ(two.at("tagged_and_shared"), 2);
  EXPECT_EQ(two.at("no_condition"), 7);
  EXPECT_EQ(two.at("open"), 1);
  EXPECT_EQ(two.at("tags").at("7"), json::parse(R"({"faces": 2, "kinds": {"W": 2}})"));
  EXPECT_EQ(two.at("tags").at("5").at("faces"), 3);
  EXPECT_EQ(report.at("groups"), json::parse(R"({"1": {"elements": 2, "name": "left"}, "2": {"elements": 2}})"));
  // Without x periodicity nothing lies on a -2 face: nothing is left uncompared.
  EXPECT_EQ(report.at("coordinates").at("periodic_not_compared"), 0);
  EXPECT_EQ(report.at("ids").at("distinct"), 75);
  const std::string summary = gsr::tools::summarize(report);
  EXPECT_NE(summary.find("field 1: 24 faces, 8 shared with another element (0 of them tagged), 0 periodic, 0 open"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("tag 1 (inlet): 2 faces; v 2"), std::string::npos) << summary;
  EXPECT_NE(summary.find("1 (left): 2 elements; 2: 2 elements;"), std::string::npos) << summary;
}

// Element 3's z+ face (face 5, t+) in field 1 loses its tag: an outer face nobody shares
// and without a condition.
TEST(CheckBoundary, AnOpenFaceIsAProblemNamingIt) {
  Box box;
  box.overrides = {{3, 0, 5, -1}};
  const json report = check(box, "open");
  EXPECT_FALSE(report.at("consistent").get<bool>());
  const json& one = report.at("boundary").at("fields")[0];
  EXPECT_EQ(one.at("open"), 1);
  EXPECT_EQ(one.at("tags").at("6").at("faces"), 3);
  ASSERT_EQ(report.at("problems").size(), 1u) << report.at("problems").dump();
  EXPECT_TRUE(mentions(report.at("problems"), "1 open faces")) << report.at("problems").dump();
  EXPECT_TRUE(mentions(report.at("problems"), ": element 3 face t+")) << report.at("problems").dump();
  // The same tag missing in field 2 only is no problem.
  Box other;
  other.overrides = {{3, 1, 5, -1}};
  const json report2 = check(other, "open-field2");
  EXPECT_TRUE(report2.at("consistent").get<bool>()) << report2.at("problems").dump();
  EXPECT_EQ(report2.at("boundary").at("fields")[1].at("open"), 1);
}

// A face marked periodic whose image is missing: element 0's x- face in a box that is not
// periodic.
TEST(CheckBoundary, APeriodicFaceWithoutImageIsAProblem) {
  Box box;
  box.overrides = {{0, 0, 0, -2}};
  const json report = check(box, "lonely");
  EXPECT_FALSE(report.at("consistent").get<bool>());
  EXPECT_EQ(report.at("boundary").at("fields")[0].at("periodic_unshared"), 1);
  EXPECT_TRUE(mentions(report.at("problems"),
                       "1 faces marked periodic (-2) that no other element shares: element 0 "
                       "face r- (field 1)"))
      << report.at("problems").dump();
}

// x periodic without a `periods` attribute: the ids of lattice layer x = 0 (5 x 3 = 15 ids,
// 1 + 4 gy + 20 gz, the smallest 1, 5, 9, 13, 17) have copies at x = 0 and x = 2. Their
// entries all lie on x faces; marked -2 they are not compared, and the report is consistent.
// All 8 x faces and the 2 y interfaces (4 faces) are shared; the 4 outer x faces periodic.
TEST(CheckBoundary, PeriodicCopiesWithoutAxisPeriodAreNotCompared) {
  Box box;
  box.x_faces = XFaces::periodic_marked;
  const json report = check(box, "periodic");
  EXPECT_TRUE(report.at("consistent").get<bool>()) << report.at("problems").dump();
  const json& coordinates = report.at("coordinates");
  EXPECT_EQ(coordinates.at("groups_over_tolerance"), 0);
  EXPECT_EQ(coordinates.at("periodic_not_compared"), 15);
  EXPECT_EQ(coordinates.at("periodic_not_compared_first_ids"), json::parse("[1, 5, 9, 13, 17]"));
  EXPECT_EQ(coordinates.at("worst_spread"), 0.0);
  const json& one = report.at("boundary").at("fields")[0];
  EXPECT_EQ(one.at("shared"), 12);
  EXPECT_EQ(one.at("periodic"), 4);
  EXPECT_EQ(one.at("periodic_unshared"), 0);
  EXPECT_EQ(one.at("open"), 0);
  EXPECT_FALSE(one.at("tags").contains("1"));
  EXPECT_EQ(report.at("ids").at("distinct"), 60);
  EXPECT_NE(gsr::tools::summarize(report).find(
                "15 groups not compared (periodic images without an axis period): ids 1 5 9 13 17 ..."),
            std::string::npos);

  // The same copies on faces not marked periodic are a coordinate problem, as without
  // /mesh/boundary.
  box.x_faces = XFaces::periodic_unmarked;
  const json unmarked = check(box, "unmarked");
  EXPECT_FALSE(unmarked.at("consistent").get<bool>());
  EXPECT_EQ(unmarked.at("coordinates").at("groups_over_tolerance"), 15);
  EXPECT_EQ(unmarked.at("coordinates").at("periodic_not_compared"), 0);
  EXPECT_TRUE(mentions(unmarked.at("problems"), "15 groups have copies whose coordinates differ"))
      << unmarked.at("problems").dump();

  // With the period given, the marked copies are compared modulo it, and agree.
  box.x_faces = XFaces::periodic_marked;
  box.axis_period = true;
  const json with_period = check(box, "with-period");
  EXPECT_TRUE(with_period.at("consistent").get<bool>()) << with_period.at("problems").dump();
  EXPECT_EQ(with_period.at("coordinates").at("periodic_not_compared"), 0);
  EXPECT_EQ(with_period.at("coordinates").at("groups_over_tolerance"), 0);
}

// 2-D, where a face is an edge: two order-2 elements side by side along x (lattice 5 x 3, ids
// 1 + gx + 5 gy), one field, no kinds, no groups. Outer faces get tag 9 except element 1's
// top (face 3, s+), left without a condition: 5 tagged faces, 2 shared (the faces between the
// elements), 1 open.
TEST(CheckBoundary, TwoDimensionalOpenFace) {
  ScratchDir dir("check-boundary-2d");
  const std::string path = dir.file("2d.h5");
  gsr::Mesh mesh;
  mesh.info.dim = 2;
  mesh.info.order = order;
  mesh.info.boundary_fields = 1;
  const auto [first, last] = gsr::block_range(2, world_rank(), world_size());
  for (std::int64_t e = first; e < last; ++e) {
    mesh.elements.push_back(e);
    for (int b = 0; b < n1; ++b)
      for (int a = 0; a < n1; ++a) mesh.ids.push_back(1 + e * order + a + 5 * b);
    for (int s = 0; s < 4; ++s) {
      const bool shared = (e == 0 && s == 1) || (e == 1 && s == 0);
      mesh.boundary.push_back(shared || (e == 1 && s == 3) ? -1 : 9);
    }
  }
  gsr::write_mesh(path, mesh, MPI_COMM_WORLD);
  gsr::tools::CheckOptions options;
  options.path = path;
  options.compare_methods = false;
  options.method = gsr::Method::pairwise;
  const json report = gsr::tools::check_mesh(options, MPI_COMM_WORLD);
  const json& one = report.at("boundary").at("fields")[0];
  EXPECT_EQ(one.at("faces"), 8);
  EXPECT_EQ(one.at("shared"), 2);
  EXPECT_EQ(one.at("open"), 1);
  EXPECT_EQ(one.at("no_condition"), 3);
  EXPECT_EQ(one.at("tags"), json::parse(R"({"9": {"faces": 5}})"));
  EXPECT_FALSE(report.contains("groups"));
  EXPECT_FALSE(report.at("consistent").get<bool>());
  EXPECT_TRUE(mentions(report.at("problems"), "1 open faces")) << report.at("problems").dump();
  EXPECT_TRUE(mentions(report.at("problems"), ": element 1 face s+")) << report.at("problems").dump();
}

// Without the additions the report has none of their members.
TEST(CheckBoundary, PlainMeshReportUnchanged) {
  Box box;
  box.boundary = false;
  const json report = check(box, "plain");
  EXPECT_TRUE(report.at("consistent").get<bool>());
  EXPECT_FALSE(report.contains("boundary"));
  EXPECT_FALSE(report.contains("groups"));
  EXPECT_FALSE(report.at("coordinates").contains("periodic_not_compared"));
  EXPECT_EQ(gsr::tools::summarize(report).find("  faces  "), std::string::npos);
}

}  // namespace
