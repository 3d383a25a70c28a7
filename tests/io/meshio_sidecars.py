#!/usr/bin/python3
"""meshio_sidecars.py — meshio (Debian's python3-meshio) opens the XDMF sidecar of every
shipped mesh and of two freshly generated boxes, and sees the mesh the .h5 file holds:
points shaped (nodes, 3) with the file's coordinates (z = 0 in 2-D), the global ids per
point, E N^dim linear quadrilaterals or hexahedra, each over nodes of one element, and the
rank field per cell when the file has a partition. The expected figures come from h5py
reading /mesh directly, and the element counts also from the commands that made the files.

  meshio_sidecars.py --gsr-mesh PATH --meshes DIR --work DIR
"""
import argparse
import pathlib
import subprocess
import sys

try:
    import h5py
    import meshio
    import numpy as np
except ImportError as missing:
    sys.exit(f"meshio_sidecars: cannot import {missing.name}: install Debian's python3-meshio and "
             f"python3-h5py for /usr/bin/python3 (scripts/install-deps.sh does)")

# Element counts of the shipped meshes, from meshes/README.md (not from the files).
SHIPPED_ELEMENTS = {"two_element": 2, "box2d": 12, "box3d_periodic_z": 12, "demo_box2d": 64}
# The boxes generated here: (gsr-mesh arguments, elements).
FRESH_BOXES = {
    "fresh2d": (["box", "--dim", "2", "--elements", "5,3", "--order", "3", "--deform", "--partition", "2"], 15),
    "fresh3d": (["box", "--dim", "3", "--elements", "3,2,4", "--order", "2", "--periodic", "y"], 24),
}


def check(h5_path, elements):
    """The problems meshio shows with the sidecar of `h5_path`, as a list of strings."""
    xmf_path = h5_path.with_suffix(".xmf")
    if not xmf_path.exists():
        return [f"no sidecar {xmf_path.name} next to {h5_path.name}"]
    with h5py.File(h5_path, "r") as f:
        dim = int(f["/mesh"].attrs["dim"])
        order = int(f["/mesh"].attrs["order"])
        ids = f["/mesh/global_ids"][()]
        coordinates = f["/mesh/coordinates"][()]
        partition = f["/mesh/partition"][()] if "/mesh/partition" in f else None
    problems = []
    if ids.shape[0] != elements:
        problems.append(f"/mesh/global_ids has {ids.shape[0]} rows, expected {elements} elements")
    nodes = (order + 1) ** dim
    points = elements * nodes
    cells = elements * order ** dim
    cell_type = "quad" if dim == 2 else "hexahedron"

    try:
        # meshio's XDMF reader itself: meshio.read would print the error and exit.
        mesh = meshio.xdmf.read(str(xmf_path))
    except Exception as error:  # whatever meshio raises is the finding
        return problems + [f"meshio cannot read it: {type(error).__name__}: {error}"]

    if mesh.points.shape != (points, 3):
        problems.append(f"points have shape {mesh.points.shape}, expected ({points}, 3)")
    else:
        if not np.array_equal(mesh.points[:, :dim], coordinates.reshape(points, dim)):
            problems.append("points differ from /mesh/coordinates")
        if dim == 2 and np.any(mesh.points[:, 2] != 0):
            problems.append("2-D points have a non-zero z")
    blocks = [(block.type, len(block.data)) for block in mesh.cells]
    if blocks != [(cell_type, cells)]:
        problems.append(f"cell blocks {blocks}, expected [('{cell_type}', {cells})]")
    else:
        connectivity = mesh.cells[0].data
        element_of_corner = connectivity // nodes
        if connectivity.min() < 0 or connectivity.max() >= points:
            problems.append("a cell refers to a node outside the points")
        elif np.any(element_of_corner != element_of_corner[:, :1]):
            problems.append("a cell spans nodes of two elements")
        elif np.any(element_of_corner[:, 0] != np.arange(cells) // order ** dim):
            problems.append(f"cells are not the {order ** dim} sub-cells of each element in order")
    global_id = mesh.point_data.get("global_id")
    if global_id is None or not np.array_equal(global_id, ids.reshape(points)):
        problems.append("point field global_id missing or differs from /mesh/global_ids")
    rank = mesh.cell_data.get("rank")
    if partition is None:
        if rank is not None:
            problems.append("a rank field although the file has no partition")
    elif rank is None or not np.array_equal(rank[0], np.repeat(partition, order ** dim)):
        problems.append("cell field rank missing or differs from /mesh/partition")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gsr-mesh", required=True)
    parser.add_argument("--meshes", required=True, type=pathlib.Path)
    parser.add_argument("--work", required=True, type=pathlib.Path)
    args = parser.parse_args()

    files = {}
    shipped = sorted(args.meshes.glob("*.h5"))
    if not shipped:
        sys.exit(f"meshio_sidecars: no .h5 files in {args.meshes}")
    for path in shipped:
        if path.stem not in SHIPPED_ELEMENTS:
            sys.exit(f"meshio_sidecars: {path.name} is shipped but has no known element count here")
        files[path] = SHIPPED_ELEMENTS[path.stem]
    args.work.mkdir(parents=True, exist_ok=True)
    for name, (arguments, elements) in FRESH_BOXES.items():
        path = args.work / f"{name}.h5"
        subprocess.run([args.gsr_mesh, *arguments, "-o", str(path)], check=True, stdout=subprocess.DEVNULL)
        files[path] = elements

    failed = 0
    for path, elements in files.items():
        problems = check(path, elements)
        print(f"{path.name}: {'ok' if not problems else 'FAILED'}")
        for problem in problems:
            print(f"  {problem}")
        failed += bool(problems)
    print(f"meshio {meshio.__version__}: {len(files) - failed} of {len(files)} sidecars read as expected")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
