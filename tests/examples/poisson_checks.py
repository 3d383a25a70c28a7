#!/usr/bin/env python3
"""Checks of the gsr-poisson example, run by ctest (tests/examples/CMakeLists.txt).

Each check generates its meshes with gsr-mesh, runs the solver through mpiexec with --json,
and judges the numbers against what the mathematics says, never against the solver's own
earlier output:

  convergence  spectral convergence: for each order the error must fall by a fixed factor
               per two orders, and stay under an absolute bound at the highest order;
  agreement    the same solution, node by node (read back from the solution files with
               h5dump), at several rank counts, with every gs method and both ways of
               weighting inner products;
  errors       bad input fails cleanly with a message naming the problem;
  imported     a mesh made elsewhere (a .msh or .re2 in meshes/), imported with gsr-mesh
               import at a low and a higher order and solved with its boundary faces'
               inhomogeneous Dirichlet values: the error must fall by a factor and end under
               a bound (both derived in docs/examples.md), and the node counts must be what
               the mesh's entity counts give.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message, flush=True)


def run(command, expect_success=True, timeout=120):
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if expect_success and result.returncode != 0:
        print(" ".join(command))
        print(result.stdout)
        print(result.stderr)
        raise SystemExit("command failed with status %d" % result.returncode)
    return result


class Tools:
    def __init__(self, args):
        self.args = args
        os.makedirs(args.workdir, exist_ok=True)

    def path(self, name):
        return os.path.join(self.args.workdir, name)

    def mesh(self, name, dim, elements, order, deform=False, extra=()):
        path = self.path(name)
        command = [self.args.gsr_mesh, "box", "--dim", str(dim), "--elements", elements,
                   "--order", str(order), "-o", path] + list(extra)
        if deform:
            command.append("--deform")
        run(command)
        return path

    def solve(self, mesh, ranks=1, options=(), expect_success=True):
        command = [self.args.mpiexec, "-n", str(ranks), self.args.solver, mesh, "--json"] + list(options)
        result = run(command, expect_success=expect_success)
        if not expect_success:
            return result
        report = json.loads(result.stdout)
        if not report["converged"]:
            fail("%s at P=%d %s: CG did not converge" % (mesh, ranks, " ".join(options)))
        return report

    def nodal_values(self, h5_file, dataset):
        """The values of an [E, nodes] dataset in file order, via h5dump."""
        result = run([self.args.h5dump, "-d", dataset, "-y", "-w", "0", "-m", "%.17g", h5_file])
        body = result.stdout[result.stdout.index("DATA {") + len("DATA {"):]
        body = body[:body.index("}")]
        return [float(v) for v in re.split(r"[,\s]+", body.strip()) if v]


def check_convergence(tools, args):
    orders = list(range(args.first_order, args.last_order + 1))
    errors = {}
    print("order  iterations  max_error")
    for order in orders:
        mesh = tools.mesh("conv_%dd_n%d.h5" % (args.dim, order), args.dim, args.elements, order, args.deform)
        report = tools.solve(mesh, 1, ["--tol", "1e-13", "--max-iter", "5000", "--no-output"])
        errors[order] = report["max_error"]
        print("%5d  %10d  %.3e" % (order, report["iterations"], report["max_error"]), flush=True)
    for order in orders:
        if order + 2 in errors and not errors[order + 2] < errors[order] * args.max_ratio:
            fail("error at N=%d (%.3e) is not below %g x the error at N=%d (%.3e)"
                 % (order + 2, errors[order + 2], args.max_ratio, order, errors[order]))
    last = orders[-1]
    if not errors[last] < args.bound:
        fail("error at N=%d is %.3e, above the bound %g" % (last, errors[last], args.bound))


def check_agreement(tools, args):
    mesh = tools.mesh("agree.h5", args.dim, args.elements, args.first_order, args.deform)
    # A box of NX x NY [x NZ] elements of order N has prod(N NX + 1) distinct nodes, of
    # which prod(N NX - 1) are off the walls.
    per_axis = [args.first_order * int(e) for e in args.elements.split(",")]
    expected_nodes, interior_nodes = 1, 1
    for count in per_axis:
        expected_nodes *= count + 1
        interior_nodes *= count - 1
    methods = run([args.solver, "--list-methods"]).stdout.split()
    if not methods:
        fail("gsr-poisson --list-methods printed nothing")
    ranks = [int(p) for p in args.ranks.split(",")]
    reference = None
    for p in ranks:
        for method in (methods if p > 1 else ["pairwise"]):
            for dot in ("multiplicity", "owner"):
                output = tools.path("agree_np%d_%s_%s.h5" % (p, method, dot))
                report = tools.solve(mesh, p, ["--tol", "1e-12", "--method", method, "--dot", dot, "-o", output])
                u = tools.nodal_values(output, "/solution/u")
                label = "P=%d %s %s" % (p, method, dot)
                if report["global_nodes"] != expected_nodes:
                    fail("%s: %d global nodes counted, the box has %d" % (label, report["global_nodes"], expected_nodes))
                if report["dirichlet_nodes"] != expected_nodes - interior_nodes:
                    fail("%s: %d wall nodes found, the box has %d"
                         % (label, report["dirichlet_nodes"], expected_nodes - interior_nodes))
                if report["method"] != method:
                    fail("%s: the report names method %s" % (label, report["method"]))
                if report["ranks"] != p:
                    fail("%s: the report names %s ranks" % (label, report["ranks"]))
                if reference is None:
                    reference = (label, u, report)
                    continue
                difference = max(abs(a - b) for a, b in zip(u, reference[1]))
                # Both solves stop at relative residual 1e-12; with the condition number
                # of this small system (< 1e4) the solutions agree to well within 1e-7.
                if len(u) != len(reference[1]) or difference > 1e-7:
                    fail("%s: solution differs from %s by %.3e" % (label, reference[0], difference))
                if abs(report["max_error"] - reference[2]["max_error"]) > 1e-7:
                    fail("%s: max error %.6e differs from %s's %.6e"
                         % (label, report["max_error"], reference[0], reference[2]["max_error"]))
                print("%-40s iterations %3d  max_error %.3e  |u - u_ref| %.1e"
                      % (label, report["iterations"], report["max_error"], difference), flush=True)


def check_errors(tools, args):
    missing = tools.solve(tools.path("no_such_mesh.h5"), 1, [], expect_success=False)
    if missing.returncode == 0 or "no_such_mesh.h5" not in missing.stderr:
        fail("a missing mesh file: status %d, stderr %r" % (missing.returncode, missing.stderr))
    print("missing mesh file: status %d, %s" % (missing.returncode, missing.stderr.strip().splitlines()[0]))

    bare = tools.mesh("bare.h5", 2, "2,2", 2, extra=["--no-coordinates"])
    result = tools.solve(bare, 2, [], expect_success=False)
    if result.returncode == 0 or "coordinates" not in result.stderr:
        fail("a mesh without coordinates: status %d, stderr %r" % (result.returncode, result.stderr))
    print("mesh without coordinates: status %d, %s" % (result.returncode, result.stderr.strip()))

    good = tools.mesh("good.h5", 2, "2,2", 3)
    result = tools.solve(good, 1, ["--method", "carrier_pigeon"], expect_success=False)
    if result.returncode != 2 or "carrier_pigeon" not in result.stdout + result.stderr:
        fail("an unknown method: status %d, output %r" % (result.returncode, result.stdout + result.stderr))
    print("unknown method: status %d" % result.returncode)

    result = tools.solve(good, 1, ["--max-iter", "2", "--no-output"], expect_success=False)
    if result.returncode != 3 or json.loads(result.stdout)["converged"]:
        fail("an iteration limit too small to converge must exit with status 3 (got %d)" % result.returncode)
    print("iteration limit reached: status %d" % result.returncode)

    # Output paths (issue 42; E-TOOL-OUTPUT-CLASH, E-TOOL-OUTPUT-UNWRITABLE): refused with
    # status 2 before the mesh is read, naming -o and the path; the mesh read is never written
    # over, by the solution or by its XDMF sidecar (gsr-poisson used to replace it).
    twin = tools.path("twin.xmf")  # the same mesh under a name a sidecar could have
    shutil.copyfile(good, twin)
    if os.path.exists(tools.path("twin.h5")):  # from an earlier run in this work folder
        os.remove(tools.path("twin.h5"))
    os.makedirs(tools.path("folder.h5"), exist_ok=True)
    before = {path: open(path, "rb").read() for path in (good, twin)}
    for options, ranks, words in [
            (["-o", good], 2, ["-o '%s' is the same file as the mesh" % good, "nothing was run"]),
            (["-o", os.path.join(args.workdir, ".", "good.h5")], 1, ["is the same file as the mesh"]),
            (["-o", tools.path("folder.h5")], 2, ["-o '%s' is a folder, not a file" % tools.path("folder.h5")]),
            (["-o", tools.path("no/such/x.h5")], 1, ["its folder '%s' does not exist" % tools.path("no/such")])]:
        result = tools.solve(good, ranks, options, expect_success=False)
        if result.returncode != 2 or not all(w in result.stderr for w in words) or result.stdout:
            fail("output %s: status %d, stderr %r, stdout %r" % (options, result.returncode, result.stderr, result.stdout))
        print("output %s: status %d, %s" % (" ".join(options), result.returncode, result.stderr.strip()))
    result = tools.solve(twin, 1, ["-o", tools.path("twin.h5")], expect_success=False)
    if result.returncode != 2 or "its XDMF sidecar '%s' is the same file as the mesh" % twin not in result.stderr:
        fail("a sidecar over the mesh: status %d, stderr %r" % (result.returncode, result.stderr))
    print("sidecar over the mesh: status %d, %s" % (result.returncode, result.stderr.strip()))
    for path, data in before.items():
        if open(path, "rb").read() != data:
            fail("%s was written over" % path)
    if os.path.exists(tools.path("twin.h5")):
        fail("a refused run wrote %s" % tools.path("twin.h5"))

    # Periodic in x: u = sin(2 pi x / Lx) sin(pi y / Ly); still spectrally accurate.
    periodic = tools.mesh("periodic.h5", 2, "3,2", 8, extra=["--periodic", "x"])
    report = tools.solve(periodic, 2, ["--tol", "1e-12", "--no-output"])
    if "2 pi" not in report["exact"] or not report["max_error"] < 1e-6:
        fail("periodic mesh: exact %r, max error %.3e" % (report["exact"], report["max_error"]))
    print("periodic in x: u = %s, %d iterations, max error %.3e"
          % (report["exact"], report["iterations"], report["max_error"]))


def polynomial_count(counts, order):
    """Nodes of order `order` on entities counted by dimension: sum_j counts[j] (N - 1)^j."""
    return sum(c * (order - 1) ** j for j, c in enumerate(counts))


def check_imported(tools, args):
    orders = [int(n) for n in args.orders.split(",")]
    options = ["--tol", "1e-13", "--max-iter", "5000", "--no-output"]
    if args.dirichlet_tags:
        options += ["--dirichlet", args.dirichlet_tags]
    errors = {}
    print("order  nodes  dirichlet  iterations  max_error")
    for order in orders:
        mesh = tools.path("imported_n%d.h5" % order)
        run([args.mpiexec, "-n", str(args.import_ranks), args.gsr_mesh, "import", args.source, "--order", str(order),
             "-o", mesh])
        report = tools.solve(mesh, args.import_ranks, options)
        errors[order] = report["max_error"]
        print("%5d  %5d  %9d  %10d  %.3e" % (order, report["global_nodes"], report["dirichlet_nodes"],
                                             report["iterations"], report["max_error"]), flush=True)
        if report["boundary"] != "tagged faces":
            fail("N=%d: the solver used the %s, not the file's boundary faces" % (order, report["boundary"]))
        for name, counts in (("global_nodes", args.global_counts), ("dirichlet_nodes", args.dirichlet_counts)):
            if counts:
                expected = polynomial_count([int(c) for c in counts.split(",")], order)
                if report[name] != expected:
                    fail("N=%d: %s is %d, the mesh's entities give %d" % (order, name, report[name], expected))
        for name, expected in (("dirichlet_faces", args.dirichlet_faces), ("neumann_faces", args.neumann_faces)):
            if expected is not None and report[name] != expected:
                fail("N=%d: %s is %d, the mesh has %d" % (order, name, report[name], expected))
    # Tags that choose nothing, on every rank alike (status 1, the tag named), and tags for a
    # mesh whose boundary is its box's walls.
    result = tools.solve(tools.path("imported_n%d.h5" % orders[0]), args.import_ranks,
                         ["--dirichlet", "987654", "--no-output"], expect_success=False)
    if result.returncode != 1 or "Dirichlet tag 987654" not in result.stderr or result.stdout:
        fail("--dirichlet 987654: status %d, stderr %r" % (result.returncode, result.stderr))
    box = tools.mesh("box_for_tags.h5", 2, "2,2", 2)
    result = tools.solve(box, 1, ["--dirichlet", "1", "--no-output"], expect_success=False)
    if result.returncode != 1 or "has no /mesh/boundary" not in result.stderr:
        fail("--dirichlet on a box: status %d, stderr %r" % (result.returncode, result.stderr))
    low, high = orders[0], orders[-1]
    if not errors[high] * args.min_drop < errors[low]:
        fail("the error falls from %.3e (N=%d) to %.3e (N=%d), by less than %g x"
             % (errors[low], low, errors[high], high, args.min_drop))
    if not errors[high] < args.bound:
        fail("error at N=%d is %.3e, above the bound %g" % (high, errors[high], args.bound))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("check", choices=["convergence", "agreement", "errors", "imported"])
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--solver", required=True)
    parser.add_argument("--gsr-mesh", required=True)
    parser.add_argument("--h5dump", default="h5dump")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--dim", type=int, default=2)
    parser.add_argument("--elements", default="2,2")
    parser.add_argument("--deform", action="store_true")
    parser.add_argument("--first-order", type=int, default=2)
    parser.add_argument("--last-order", type=int, default=8)
    parser.add_argument("--max-ratio", type=float, default=0.1,
                        help="error(N+2) must be below this times error(N)")
    parser.add_argument("--bound", type=float, default=1e-6, help="max error allowed at the last order")
    parser.add_argument("--ranks", default="1,2,3")
    parser.add_argument("--source", help="imported: the .msh or .re2 to import")
    parser.add_argument("--orders", default="2,6", help="imported: the orders, lowest first, highest last")
    parser.add_argument("--import-ranks", type=int, default=2, help="imported: ranks of the import and the solve")
    parser.add_argument("--dirichlet-tags", default="", help="imported: gsr-poisson's --dirichlet")
    parser.add_argument("--min-drop", type=float, default=100, help="imported: error(low) / error(high) at least")
    parser.add_argument("--global-counts", default="",
                        help="imported: vertices,edges[,faces[,elements]] of the mesh: the global node count")
    parser.add_argument("--dirichlet-counts", default="",
                        help="imported: vertices,edges[,faces] of the Dirichlet boundary: its node count")
    parser.add_argument("--dirichlet-faces", type=int, help="imported: faces with Dirichlet values")
    parser.add_argument("--neumann-faces", type=int, help="imported: tagged faces with the natural condition")
    args = parser.parse_args()

    tools = Tools(args)
    # Run everything from the work folder, so that a default output (gsr-poisson writes
    # <mesh>_solution.h5 into the current directory unless told otherwise) lands there too.
    os.chdir(args.workdir)
    {"convergence": check_convergence, "agreement": check_agreement, "errors": check_errors,
     "imported": check_imported}[args.check](tools, args)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
