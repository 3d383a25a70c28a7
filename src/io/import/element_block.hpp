// io/import/element_block.hpp — what the mesh readers (Nek5000 .re2, Gmsh .msh) hand to the
// rest of the import: one rank's block of the input's elements, in the input's order, with
// their corners, geometry, curved sides, boundary records and groups, before any numbering.
//
// Conventions every stage of the import shares (docs/mesh-import.md):
//   - Elements are 0-based and in input order; rank r of P holds the block
//     gsr::block_range(elements, r, P) = [first, first + count).
//   - Corners are lexicographic, 0-based: corner c sits at the reference position
//     (c & 1, (c >> 1) & 1, (c >> 2) & 1), so corners 0, 1, 2, 4 are Nek5000's (prenek)
//     corners 1, 2, 4, 5 (prenek to lexicographic: 1,2,3,4,5,6,7,8 -> 0,1,3,2,4,5,7,6). Gmsh's
//     quad/hex corner order is prenek's.
//   - Faces are 0-based: face f lies on axis f / 2 (r, s, t) at side f % 2 (0: low, 1: high),
//     i.e. r-, r+, s-, s+, t-, t+ (prenek faces 1..6 are our 2, 1, 3, 0, 4, 5).
//   - Edges are 0-based: 3-D edges 0-3 run along r at (s, t) = (0,0), (1,0), (0,1), (1,1);
//     4-7 along s at (r, t) likewise; 8-11 along t at (r, s). 2-D edges 0-1 run along r at
//     s = 0, 1 and 2-3 along s at r = 0, 1 (in 2-D an edge is a face: edge e is face
//     {2, 3, 0, 1}[e]). An edge runs from its lower corner to its higher one.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gsr::io::import {

inline constexpr int corners_per_element(int dim) { return dim == 3 ? 8 : 4; }

/// A face as messages name it: "face r+ (Nek5000 face 2)", our name and Nek5000's (prenek)
/// number.
inline std::string face_name(int face) {
  static constexpr const char* names[] = {"r-", "r+", "s-", "s+", "t-", "t+"};
  static constexpr int prenek[] = {4, 2, 1, 3, 5, 6};
  if (face < 0 || face > 5) return "face " + std::to_string(face) + " (not a face)";
  return std::string("face ") + names[face] + " (Nek5000 face " + std::to_string(prenek[face]) + ")";
}
inline constexpr int faces_per_element(int dim) { return 2 * dim; }
inline constexpr int edges_per_element(int dim) { return dim == 3 ? 12 : 4; }

/// One boundary-condition record: a .re2 BC record (any field) or a Gmsh boundary element
/// (a face of a volume element carrying a physical tag).
struct FaceRecord {
  std::int64_t element = 0;         // 0-based, global
  int face = 0;                     // 0 .. 2*dim-1, our numbering
  int field = 0;                    // 0-based BC section of a .re2 (0: velocity); 0 for Gmsh
  std::array<char, 4> kind{};       // Nek5000's cbc without trailing blanks ("P", "E", "W", "v",
                                    // "MSH", "EXO", ...), NUL-padded; "" for Gmsh
  std::int64_t tag = 0;             // boundary id: Gmsh's physical tag; a .re2's bc(5) (the id
                                    // gmsh2nek and exo2nek store there), 0 when it has none
  std::int64_t other_element = -1;  // "P" (and "E" when given): connected element, 0-based
  int other_face = -1;              // ... and its face, our numbering
  std::array<double, 5> params{};   // bc(1..5) as read (for P: as decoded, not raw bits)
};

/// A curved side of a .re2 element (its curve section).
///
/// params are the record's curve(1..5) as read, but for 'C' (circular arc, core/genxyz.f
/// arcsrf): params[0] is the signed radius R with respect to our edge direction, from its
/// lower corner a to its higher corner b: the arc's centre lies at (a + b) / 2 - n R cos(dt),
/// n = (b.y - a.y, a.x - b.x) / |b - a|, sin(dt) = |b - a| / (2 |R|). Nek5000 gives R for the
/// prenek direction of the edge (corner k to k + 1 around the bottom or top face); where that
/// runs from our higher corner to our lower one (prenek edges 3, 4, 7, 8; 2-D: 3, 4) the
/// reader negates R, so that the formula above holds for every edge with our a and b (a
/// convex side of a counter-clockwise element then has R > 0 on prenek edges 1, 2, 5, 6 and
/// R < 0 on prenek edges 3, 4, 7, 8). For 's' and 'e' (face curves) edge is our face number.
struct Curve {
  std::int64_t element = 0;  // 0-based, global
  int edge = 0;              // our edge numbering (a face index for 's'/'e' face curves)
  char type = ' ';           // 'm' midpoint, 'C' circular arc, 's' sphere, ...
  std::array<double, 5> params{};
};

/// One rank's block of the input mesh.
struct ElementBlock {
  std::string source;               // the input file, for messages
  std::string format;               // what the reader found, e.g. "Nek5000 .re2 #v003, little-endian"
  std::string vertex_source;        // where `vertices` came from ("ethier.ma2", "node tags"), "" if none
  int dim = 0;                      // 2 or 3
  std::int64_t elements = 0;        // in the whole input (Nek5000's nelgt)
  std::int64_t fluid_elements = 0;  // .re2: nelgv (elements [0, nelgv) are fluid); = elements otherwise
  std::int64_t first = 0;           // this rank's elements are [first, first + count)
  std::int64_t count = 0;

  /// Geometry points per axis: 2 (corners only) or 3 (the quadratic nodes of quad9/hex27,
  /// or of quad8/hex20 completed by the reader). points holds, element after element,
  /// geometry^dim points in lexicographic order (point (a, b, c) at a + g b + g^2 c), each
  /// as x, y, z (z = 0 in 2-D).
  int geometry = 2;
  std::vector<double> points;

  /// Corner vertex ids from the file, count * corners, lexicographic: Gmsh node tags, or a
  /// .re2's .co2/.ma2 ids. Empty when the input has none (a .re2 alone): the import then
  /// matches corners by coordinates. Ids are positive; equal ids mean one vertex.
  std::vector<std::int64_t> vertices;

  /// Per element: the .re2 group, or the Gmsh physical volume tag (0 when none).
  std::vector<std::int64_t> groups;

  /// The records of this rank's elements (boundary conditions of every field).
  std::vector<FaceRecord> faces;
  int fields = 0;  // .re2: BC sections present (or the header's count); Gmsh: 1

  /// Curved sides of this rank's elements.
  std::vector<Curve> curves;

  /// Gmsh $Periodic node pairs (node, its master node), on every rank (the whole list).
  std::vector<std::array<std::int64_t, 2>> periodic_nodes;

  /// Physical names (Gmsh $PhysicalNames: dimension, tag, name), on every rank.
  struct Name {
    int dim = 0;
    std::int64_t tag = 0;
    std::string name;
  };
  std::vector<Name> names;
};

}  // namespace gsr::io::import
