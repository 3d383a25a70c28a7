/* gsr/mesh.h — loading a gsr mesh file (HDF5, docs/mesh-format.md) from C.
 *
 * Each rank of `comm` reads only its own elements, in parallel, and gets their global
 * node ids (ready for gs_setup) and, if the file has them, their node coordinates:
 *
 *   gsr_mesh mesh;
 *   if (gsr_mesh_load("box.h5", MPI_COMM_WORLD, GSR_MESH_BLOCKS, 1, &mesh) == GSR_SUCCESS) {
 *     struct gs_data *h = gs_setup(mesh.ids, (uint)mesh.n, &c, 0, gs_auto, 0);
 *     ...
 *     gsr_mesh_free(&mesh);
 *   }
 *
 * Layout of the arrays, for the k-th local element (k < local_elements), its node
 * a < nodes_per_element (x fastest, then y, then z) and coordinate c < dim:
 *   ids        [k * nodes_per_element + a]
 *   coordinates[(k * nodes_per_element + a) * dim + c]
 *   elements   [k]   the element's 0-based index in the file (ascending)
 *
 * Distribution: GSR_MESH_BLOCKS gives rank r the r-th of P contiguous, balanced blocks
 * of elements; GSR_MESH_PARTITION gives each rank the elements the file's /mesh/partition
 * dataset assigns to it (an error if the file has none, or made it for another rank count).
 *
 * Errors follow the error mode of gs.h: by default a failure prints "gsr: gsr_mesh_load:
 * <message>" and aborts the job; after gsr_set_error_mode(GSR_ERRORS_RETURN) it returns
 * the code (GSR_ERR_IO for a missing, unreadable or malformed file, GSR_ERR_INVALID_ARGUMENT
 * for a bad argument), leaves *mesh empty, and gsr_last_error_message() names the file and
 * the HDF5 object at fault. gsr_mesh_load is collective: every rank returns the same code.
 */
#ifndef GSR_MESH_H
#define GSR_MESH_H

#include <gsr/gs.h> /* the error codes (GSR_SUCCESS, GSR_ERR_IO, ...) and error mode */

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { GSR_MESH_BLOCKS = 0, GSR_MESH_PARTITION = 1 };

typedef struct gsr_mesh {
  int dim;                 /* 2 or 3 */
  int order;               /* polynomial order N >= 1 */
  int nodes_per_element;   /* (N+1)^dim */
  int has_coordinates;     /* 1 if `coordinates` is filled */
  int64_t global_elements; /* E, elements in the file */
  int64_t local_elements;  /* elements on this rank (may be 0) */
  int64_t n;               /* local_elements * nodes_per_element: the length of ids */
  int64_t *elements;       /* [local_elements], or NULL when empty */
  slong *ids;              /* [n], or NULL when empty: gs.h's id type, as gs_setup takes */
  double *coordinates;     /* [n * dim], or NULL */
} gsr_mesh;

/* Collective over comm. distribution: GSR_MESH_BLOCKS or GSR_MESH_PARTITION.
 * with_coordinates: nonzero to read /mesh/coordinates when the file has it. */
int gsr_mesh_load(const char *path, MPI_Comm comm, int distribution, int with_coordinates, gsr_mesh *mesh);

/* The same, for Fortran callers: comm is a Fortran communicator handle (MPI_Comm_c2f). */
int gsr_mesh_load_f(const char *path, MPI_Fint comm, int distribution, int with_coordinates, gsr_mesh *mesh);

/* Frees the arrays of a loaded mesh and zeroes it. Safe on a zeroed or already freed mesh. */
void gsr_mesh_free(gsr_mesh *mesh);

#ifdef __cplusplus
}
#endif
#endif /* GSR_MESH_H */
