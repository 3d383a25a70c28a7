#!/usr/bin/env python3
"""Spectral convergence of gsr-poisson on imported meshes: imports meshes/disk.msh and
meshes/ethier.re2 with gsr-mesh import for N = 2..10, solves on each with the boundary
faces' inhomogeneous Dirichlet values (and once with the disk's lower half Neumann), and
draws max error against N on a log scale into docs/import_convergence.png (the numbers,
with the node counts and CG iterations, into docs/import_convergence.csv).

    scripts/import_convergence_plot.py [--build build] [--out docs]

Standard library only: the PNG is drawn by scripts/convergence_plot.py's raster.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # scripts/lib/output_paths.py: no __pycache__ in the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from convergence_plot import draw  # noqa: E402
from output_paths import refuse_folder, refuse_outputs  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = [  # label, (source mesh, gsr-poisson options), colour
    ("disk.msh (2-D)", ("disk.msh", []), (31, 119, 180)),
    ("disk, half Neumann", ("disk.msh", ["--dirichlet", "1"]), (44, 160, 44)),
    ("ethier.re2 (3-D)", ("ethier.re2", []), (214, 39, 40)),
]
ORDERS = list(range(2, 11))


def measure(build, workdir):
    solver = os.path.join(build, "examples", "poisson", "gsr-poisson")
    importer = os.path.join(build, "src", "tools", "gsr-mesh")
    results = {}
    for label, (source, options), _ in CASES:
        for order in ORDERS:
            mesh = os.path.join(workdir, "mesh.h5")
            subprocess.run([importer, "import", os.path.join(REPO, "meshes", source), "--order", str(order), "-o", mesh],
                           check=True, capture_output=True)
            out = subprocess.run([solver, mesh, "--json", "--tol", "1e-14", "--max-iter", "5000", "--no-output"] +
                                 options, check=True, capture_output=True, text=True).stdout
            report = json.loads(out)
            results[(label, order)] = (report["max_error"], report["iterations"], report["global_nodes"])
            print("%-20s N=%2d  nodes %6d  iterations %4d  max error %.3e"
                  % (label, order, report["global_nodes"], report["iterations"], report["max_error"]), flush=True)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(REPO, "build"))
    parser.add_argument("--out", default=os.path.join(REPO, "docs"))
    args = parser.parse_args()
    refuse_folder("import_convergence_plot", "--out", args.out, must_exist=True)
    names = ("import_convergence.csv", "import_convergence.png")
    refuse_outputs("import_convergence_plot", [("--out", os.path.join(args.out, name)) for name in names])
    with tempfile.TemporaryDirectory() as workdir:
        results = measure(args.build, workdir)
    with open(os.path.join(args.out, names[0]), "w") as f:
        f.write("case,order,global_nodes,iterations,max_error\n")
        for label, _, _ in CASES:
            for n in ORDERS:
                error, iterations, nodes = results[(label, n)]
                f.write("%s,%d,%d,%d,%.6e\n" % (label, n, nodes, iterations, error))
    draw(results, os.path.join(args.out, names[1]), CASES, ORDERS,
         "gsr-poisson on imported meshes: max error against N")
    print("wrote %s and %s" % tuple(os.path.join(args.out, name) for name in reversed(names)))


if __name__ == "__main__":
    main()
