// capi/mesh.cpp — the C loader of include/gsr/mesh.h: validates, forwards to
// gsr::read_mesh, and hands the arrays over in malloc'd memory that gsr_mesh_free releases.
// Errors go through the C shim's guard, so they follow gsr_set_error_mode like gs.h.
#include <gsr/mesh.h>
#include <gsr/mesh.hpp>

#include "capi/errors.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

namespace {

// Out may differ from T only in name (ids: std::int64_t in C++, slong = long long in C).
template <class Out = void, class T>
auto* copy_out(const std::vector<T>& values) {
  using Target = std::conditional_t<std::is_void_v<Out>, T, Out>;
  static_assert(sizeof(Target) == sizeof(T) && std::is_integral_v<Target> == std::is_integral_v<T>);
  Target* out = nullptr;
  if (values.empty()) return out;
  out = static_cast<Target*>(std::malloc(values.size() * sizeof(T)));
  if (!out) throw std::bad_alloc();
  std::memcpy(out, values.data(), values.size() * sizeof(T));
  return out;
}

int load(const char* function, const char* path, MPI_Comm comm, int distribution, int with_coordinates,
         gsr_mesh* mesh) {
  const bool ok = gsr::capi::guarded(function, comm, [&] {
    if (!mesh) throw gsr::Error(gsr::ErrorCode::invalid_argument, "mesh is NULL");
    *mesh = gsr_mesh{};
    if (!path) throw gsr::Error(gsr::ErrorCode::invalid_argument, "path is NULL");
    if (comm == MPI_COMM_NULL) throw gsr::Error(gsr::ErrorCode::invalid_argument, "comm is MPI_COMM_NULL");
    if (distribution != GSR_MESH_BLOCKS && distribution != GSR_MESH_PARTITION)
      throw gsr::Error(gsr::ErrorCode::invalid_argument,
                       "distribution " + std::to_string(distribution) +
                           " is neither GSR_MESH_BLOCKS (0) nor GSR_MESH_PARTITION (1)");
    gsr::ReadOptions options;
    options.distribution =
        distribution == GSR_MESH_PARTITION ? gsr::Distribution::partition : gsr::Distribution::blocks;
    options.coordinates = with_coordinates != 0;
    const gsr::Mesh loaded = gsr::read_mesh(path, comm, options);

    gsr_mesh out{};
    out.dim = loaded.dim();
    out.order = loaded.order();
    out.nodes_per_element = loaded.nodes_per_element();
    out.has_coordinates = loaded.has_coordinates() ? 1 : 0;
    out.global_elements = loaded.info.elements;
    out.local_elements = static_cast<int64_t>(loaded.local_elements());
    out.n = static_cast<int64_t>(loaded.ids.size());
    try {
      out.elements = copy_out(loaded.elements);
      out.ids = copy_out<slong>(loaded.ids);
      out.coordinates = copy_out(loaded.coordinates);
    } catch (...) {
      gsr_mesh_free(&out);
      throw;
    }
    *mesh = out;
  });
  return ok ? GSR_SUCCESS : gsr_last_error();
}

}  // namespace

extern "C" {

int gsr_mesh_load(const char* path, MPI_Comm comm, int distribution, int with_coordinates, gsr_mesh* mesh) {
  return load("gsr_mesh_load", path, comm, distribution, with_coordinates, mesh);
}

int gsr_mesh_load_f(const char* path, MPI_Fint comm, int distribution, int with_coordinates, gsr_mesh* mesh) {
  return load("gsr_mesh_load_f", path, MPI_Comm_f2c(comm), distribution, with_coordinates, mesh);
}

void gsr_mesh_free(gsr_mesh* mesh) {
  if (!mesh) return;
  std::free(mesh->elements);
  std::free(mesh->ids);
  std::free(mesh->coordinates);
  *mesh = gsr_mesh{};
}

}  // extern "C"
