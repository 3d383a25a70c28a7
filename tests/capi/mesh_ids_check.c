/* A loaded mesh's ids go straight to gs_setup: compiled with -Wall -Wextra -pedantic
 * -Werror, this fails to build if gsr_mesh.ids and gs_setup's ids ever differ in type
 * (int64_t is long here, slong is long long: "incompatible pointer types"). */
#include <gsr/mesh.h>

struct gs_data *setup_from_mesh(const gsr_mesh *mesh, const struct comm *c);

struct gs_data *setup_from_mesh(const gsr_mesh *mesh, const struct comm *c) {
  return gs_setup(mesh->ids, (uint)mesh->n, c, 0, gs_auto, 0);
}
