// io/import/re2.hpp — Nek5000's binary mesh file (.re2, versions #v001 to #v004, as
// core/reader_re2.f reads them), and genmap's vertex files (.ma2, .co2) beside it.
#pragma once

#include "io/import/element_block.hpp"

#include <mpi.h>

#include <string>

namespace gsr::io::import {

struct Re2Options {
  /// A .ma2 or .co2 file giving the corners' vertex ids (genmap's or gencon's output).
  /// Empty: use CASE.co2 or CASE.ma2 beside CASE.re2 if one exists (co2 first), else none.
  std::string vertex_file;
  /// Do not look for a vertex file beside the .re2 (corners are then matched by coordinates).
  bool ignore_vertex_file = false;
};

/// Collective over comm: every rank reads its block of elements (block_range) by byte
/// offset, with their curves and boundary records (all fields), and their vertex ids from the
/// vertex file when there is one. Throws Error(io) on every rank, naming the file and, where
/// it applies, the element, for a truncated or corrupt file, an unknown version, counts that
/// overflow, or a vertex file that does not fit the mesh.
ElementBlock read_re2(const std::string& path, MPI_Comm comm, const Re2Options& options = {});

/// The vertex file that read_re2 would use for `path` ("" for none).
std::string vertex_file_for(const std::string& path, const Re2Options& options);

}  // namespace gsr::io::import
