// poisson/solution_file.hpp — writes a solved problem so ParaView can show it: a complete
// gsr mesh file (gsr::write_mesh: ids, coordinates, partition) with a /solution group
// holding the nodal fields, and an XDMF sidecar (FILE.xmf) that draws each element as
// N^d linear sub-cells and offers every field as a node attribute.
#pragma once

#include <gsr/mesh.hpp>

#include <mpi.h>

#include <span>
#include <string>
#include <vector>

namespace poisson {

struct NodalField {
  std::string name;                // dataset /solution/<name>
  std::span<const double> values;  // local layout, one value per local node
};

/// Collective over comm. Throws std::runtime_error naming the file on any failure (on
/// every rank).
void write_solution(const std::string& path, const gsr::Mesh& mesh, const std::vector<NodalField>& fields,
                    MPI_Comm comm);

}  // namespace poisson
