// bad_meshes.hpp — a corpus of broken mesh files, one per way a file can be wrong, each
// with the words a good error message must contain. Shared by the loader tests (tests/io)
// and the gsr-check tests (tests/tools, through the make-bad-meshes program).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gsr::testing {

struct BadMesh {
  std::string name;           // file is <directory>/<name>.h5
  std::string object;         // what the message must name: "dataset '/mesh/global_ids'"
  std::string problem;        // and what it must say about it: "missing"
  bool by_partition = false;  // only fails when read by partition (at 2 ranks)
  bool loads = false;         // the loader accepts it; gsr-check must find the problem
};

/// Every case of the corpus.
const std::vector<BadMesh>& bad_meshes();

/// Writes every case's file into `directory` (the "missing" case writes nothing). Serial.
void write_bad_meshes(const std::string& directory);

/// A valid reference mesh of the same shape as the corpus (2-D, order 2, 4 elements).
void write_good_mesh(const std::string& path);

// Files beyond the corpus, each the reference mesh with one change. Serial.

/// Declares 2^40 elements (chunked /mesh/global_ids, no chunk written: a small file), more
/// than any rank can hold; the loader must refuse it from what the file stores, before it
/// allocates anything by the declared size.
inline constexpr unsigned long long huge_elements = 1ULL << 40;
void write_huge_mesh(const std::string& path);

/// Node `node` of element `element` (0-based) gets id `id`.
void write_mesh_with_id(const std::string& path, int element, int node, std::int64_t id);

/// Coordinate `axis` of that node gets `value`.
void write_mesh_with_coordinate(const std::string& path, int element, int node, int axis, double value);

}  // namespace gsr::testing
