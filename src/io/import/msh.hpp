// io/import/msh.hpp — Gmsh's mesh file (.msh), versions 2.2 and 4.1, ASCII and binary:
// quadrilaterals (quad4, quad8, quad9) in 2-D and hexahedra (hex8, hex20, hex27) in 3-D.
#pragma once

#include "io/import/element_block.hpp"

#include <mpi.h>

#include <string>

namespace gsr::io::import {

/// Collective over comm: returns this rank's block of the volume elements (the
/// highest-dimensional elements, in file order), their corner node tags as vertex ids, their
/// geometry (geometry = 3 for second-order elements), their physical volume tags as groups,
/// the faces that lower-dimensional elements with a physical tag cover as FaceRecords, the
/// $Periodic node pairs and $PhysicalNames. Throws Error(io) on every rank, naming the file
/// and the element, for a truncated or corrupt file, an unknown version, element types it
/// cannot import (counted by type), or a file with no volume elements.
ElementBlock read_msh(const std::string& path, MPI_Comm comm);

}  // namespace gsr::io::import
