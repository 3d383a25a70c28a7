/* gsr_io_fortran.c — the C side of the Fortran module `gsr_io` (fortran/gsr_io.f90): mesh
 * loading (gsr/mesh.h) recorded under the Fortran call's name in the C layer's one error
 * record (capi/shim.h), as every call of the module `gsr` is. In libgsr_io_fortran, so
 * that libgsr_fortran does not need libgsr_io and HDF5. */
#include "gsr/mesh.h"
#include "capi/shim.h"

int gsr_f_mesh_load(const char *path, int fcomm, int distribution, int with_coordinates, gsr_mesh *mesh);

int gsr_f_mesh_load(const char *path, int fcomm, int distribution, int with_coordinates, gsr_mesh *mesh) {
  gsr_shim_enter("gsr_mesh_load");
  const int code = gsr_mesh_load_f(path, (MPI_Fint)fcomm, distribution, with_coordinates, mesh);
  gsr_shim_leave();
  return code;
}
