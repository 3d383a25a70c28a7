#!/usr/bin/python3
"""import_cases.py - the whole import as a user runs it: `gsr-mesh import` under mpiexec, the
files it writes read back with h5py (a separate process, so the serial h5py never meets gsr's
parallel HDF5), and checked against what the inputs say independently of gsr's code.

  import_cases.py boxes     --gsr-mesh B --mpiexec "mpiexec -n" --work DIR
      The same boxes written as .re2 (re2_writer.py) and as .msh (msh_writer.py), every
      element re-oriented and the vertex ids shuffled: two nodes share an id exactly when they
      are one point (positions modulo the period on periodic axes); the .re2 and the .msh give
      the same groupings; ids are 1..M with M = V + (N-1) E + (N-1)^2 F + (N-1)^3 K counted
      from the box's shape; the files are identical at P = 1, 2, 3; the periods are recorded.
  import_cases.py nek       --gsr-mesh B --mpiexec ... --work DIR --meshes DIR --reference DIR
      Nek5000's own numbering (nek_reference/*.ids, made by Nek5000's set_vert) and its node
      coordinates (*.xyz, made by its genxyz) against the import of the same .re2, with and
      without genmap's .ma2: identical groupings, coordinates equal to rounding.
  import_cases.py pipe      --gsr-mesh B --gsr-check C --mpiexec ... --work DIR --meshes DIR
      Nek5000's bcid_test/3D/pipe.msh (binary Gmsh 2.2, hex27) and conj_ht.re2 (fluid and
      solid, three BC fields) import and pass gsr-check.
  import_cases.py refusals  --gsr-mesh B --mpiexec ... --work DIR
      Bad inputs and options: exit code 1, a message naming the problem, no output file;
      one file per error of the import (bad_inputs.py), the message naming the file, the
      element and the key words docs/errors.md catalogues for the error.
  import_cases.py hostile   --gsr-mesh B --gsr-check C --mpiexec ... --work DIR
      What a user may throw at it: more ranks than elements (P = 3 on 2 elements), quad8 and
      hex20 from paths with spaces, a face in two physical groups (MSH 2.2), a tilted surface
      mesh (refused), Nek5000's conj_ht (--meshes; fluid and solid elements, three BC
      fields); each output through gsr-check.
Exit code 0 when every check holds; the failures are listed otherwise.
"""
import argparse
import gzip
import os
import re
import shlex
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

try:
    import h5py
except ImportError:
    sys.exit("import_cases.py: needs h5py for /usr/bin/python3 (Debian: apt-get install python3-h5py)")

import bad_inputs  # noqa: E402
import msh_writer  # noqa: E402
import re2_writer  # noqa: E402

FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)
    return condition


def run_import(args, ranks, source, output, order, *extra, env=None):
    command = shlex.split(args.mpiexec) + [str(ranks), args.gsr_mesh, "import", source, "-o", output,
                                           "--order", str(order), *extra]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    return result


def imported(args, ranks, source, output, order, *extra):
    """Imports and reads back: ids [E, nodes], coordinates [E, nodes, dim], the /mesh attributes."""
    result = run_import(args, ranks, source, output, order, *extra)
    if not check(result.returncode == 0, f"import of {source} at P = {ranks} failed: {result.stderr.strip()}"):
        return None
    with h5py.File(output, "r") as f:
        mesh = f["mesh"]
        out = {"ids": mesh["global_ids"][...], "xyz": mesh["coordinates"][...],
               "periods": np.array(mesh.attrs.get("periods", [])), "stdout": result.stdout}
        if "boundary" in mesh:
            out["boundary"] = mesh["boundary"][...]
    return out


def same_partition(a, b):
    """Whether the labels a and b (same shape) group the positions alike: a bijection between them."""
    a, b = np.asarray(a).ravel(), np.asarray(b).ravel()
    pairs = np.unique(np.stack([a, b], axis=1), axis=0)
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))


def position_keys(xyz, periods, scale):
    """One key per node: its position rounded to 1e-7 of the mesh size, wrapped by the periods."""
    dim = xyz.shape[-1]
    p = xyz.reshape(-1, dim).copy()
    for d in range(dim):
        if d < len(periods) and periods[d] > 0:
            p[:, d] = np.mod(p[:, d] + 1e-9 * scale, periods[d]) - 1e-9 * scale
    return np.round(p / (1e-7 * scale)).astype(np.int64)


def position_labels(xyz, periods, scale):
    _, labels = np.unique(position_keys(xyz, periods, scale), axis=0, return_inverse=True)
    return labels.ravel()


def expected_ids(n, order, periodic):
    """V + (N-1) E + (N-1)^2 F + (N-1)^3 K for a box of n elements per axis, counted from its
    lattice: along a periodic axis the last layer of vertices is the first."""
    dim = len(n)
    points = [n[d] if d in periodic else n[d] + 1 for d in range(dim)]  # vertex layers
    cells = list(n)
    total = 0
    # An entity of the box spans a subset S of the axes: cells along S, vertex layers across.
    for mask in range(1 << dim):
        count = 1
        for d in range(dim):
            count *= cells[d] if mask >> d & 1 else points[d]
        total += count * (order - 1) ** bin(mask).count("1")
    return total


def box_cases(args):
    work = args.work
    order = 3
    cases = [((4, 3), ()), ((3, 3, 2), ()), ((3, 2, 3), (0, 2))]
    for n, periodic in cases:
        dim = len(n)
        name = "box%dd%s" % (dim, "_p" + "".join("xyz"[a] for a in periodic) if periodic else "")
        re2 = os.path.join(work, name + ".re2")
        msh = os.path.join(work, name + ".msh")
        mesh = re2_writer.box(n, periodic=periodic, reorient="all", shuffle=True, seed=7)
        re2_writer.write_re2(re2, mesh, version="#v002")
        box = msh_writer.Box(dim, n, order=2, reorient=True, shuffle=True, seed=7, periodic=periodic)
        msh_writer.write_msh(msh, box, version="4.1", binary=True)
        results = {}
        for source in (re2, msh):
            for ranks in (1, 2, 3):
                out = imported(args, ranks, source, os.path.join(work, "%s_%s_p%d.h5" % (name, source[-3:], ranks)),
                               order)
                if out is None:
                    continue
                results[(source, ranks)] = out
        for source in (re2, msh):
            if (source, 1) not in results:
                continue
            one = results[(source, 1)]
            ids, xyz = one["ids"], one["xyz"]
            m = expected_ids(n, order, periodic)
            check(ids.min() == 1 and ids.max() == m and len(np.unique(ids)) == m,
                  f"{source}: ids {ids.min()}..{ids.max()}, {len(np.unique(ids))} distinct; the box has {m} points")
            periods = np.zeros(dim)
            for a in periodic:
                periods[a] = 1.0
            check(np.allclose(np.pad(one["periods"], (0, dim - len(one["periods"]))), periods),
                  f"{source}: periods {one['periods']}, expected {periods}")
            # Faces on the box's sides, counted from its shape: those of periodic sides are
            # shared with their images (-2, also where the .msh tags them), the others tagged.
            sides = {a: 2 * int(np.prod([n[b] for b in range(dim) if b != a])) for a in range(dim)}
            boundary = one["boundary"][:, 0, :]
            check(int((boundary == -2).sum()) == sum(sides[a] for a in periodic),
                  f"{source}: {int((boundary == -2).sum())} faces marked periodic (-2), the box's periodic sides "
                  f"have {sum(sides[a] for a in periodic)}")
            check(int((boundary >= 0).sum()) == sum(sides[a] for a in range(dim) if a not in periodic),
                  f"{source}: {int((boundary >= 0).sum())} tagged faces, its other sides have "
                  f"{sum(sides[a] for a in range(dim) if a not in periodic)}")
            labels = position_labels(xyz, periods, 1.0)
            check(same_partition(ids, labels), f"{source}: ids do not group the nodes as their positions do")
            for ranks in (2, 3):
                other = results.get((source, ranks))
                if other is not None:
                    check(np.array_equal(other["ids"], ids) and np.array_equal(other["xyz"], xyz),
                          f"{source}: the file at P = {ranks} differs from the one at P = 1")
        if (re2, 1) in results and (msh, 1) in results:
            # The same box from both formats: map every position to its id class in each.
            a, b = results[(re2, 1)], results[(msh, 1)]
            periods = [1.0 if d in periodic else 0.0 for d in range(dim)]
            ids_at_a = {tuple(k): i for k, i in zip(position_keys(a["xyz"], periods, 1.0), a["ids"].ravel())}
            ids_at_b = {tuple(k): i for k, i in zip(position_keys(b["xyz"], periods, 1.0), b["ids"].ravel())}
            check(set(ids_at_a) == set(ids_at_b), f"{name}: the .re2 and the .msh have different node positions")
            common = sorted(set(ids_at_a) & set(ids_at_b))
            check(same_partition([ids_at_a[p] for p in common], [ids_at_b[p] for p in common]),
                  f"{name}: the .re2 and the .msh group the positions differently")
        print(f"{name}: checked", flush=True)


def read_reference(path):
    opener = gzip.open if path.endswith(".gz") else open
    rows = []
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            rows.append([float(v) for v in line.split()])
    return np.array(rows)


NEK_CASES = [  # case, .re2 in the tarball (None: shipped in nek_reference)
    ("ethier", "ethier/ethier.re2"),
    ("lpm_one", "lpm_one/uniform.re2"),
    ("double_shear", "double_shear/double_shear.re2"),
    ("lowMach_test", "lowMach_test/lowMach_test.re2"),
    ("pbox", None),
]


def nek_cases(args):
    for case, source in NEK_CASES:
        re2 = os.path.join(args.reference, case + ".re2") if source is None else \
            os.path.join(args.meshes, "Nek5000", "short_tests", source)
        ids_file = os.path.join(args.reference, case + ".ids")
        xyz_file = next(p for p in (os.path.join(args.reference, case + ".xyz"),
                                    os.path.join(args.reference, case + ".xyz.gz")) if os.path.exists(p))
        nek_ids = read_reference(ids_file).astype(np.int64)
        nek_xyz = read_reference(xyz_file)
        lx1 = round(nek_ids.shape[1] ** (1 / (3 if nek_ids.shape[1] in (8, 27, 64, 125, 216) else 2)))
        order = lx1 - 1
        ma2 = os.path.join(args.reference, case + ".ma2")
        for label, extra in (("with its .ma2", ("--vertex-file", ma2)), ("without a .ma2", ("--no-vertex-file",))):
            out = imported(args, 2, re2, os.path.join(args.work, f"{case}_{len(extra)}.h5"), order, *extra)
            if out is None:
                continue
            ids = out["ids"]
            check(ids.shape == nek_ids.shape, f"{case} {label}: ids of shape {ids.shape}, Nek5000's {nek_ids.shape}")
            if ids.shape != nek_ids.shape:
                continue
            check(same_partition(ids, nek_ids), f"{case} {label}: the ids group the nodes unlike Nek5000's")
            xyz = out["xyz"].reshape(ids.shape[0], -1)
            dim = out["xyz"].shape[-1]
            ref = nek_xyz.reshape(ids.shape[0], ids.shape[1], -1)[:, :, :dim].reshape(ids.shape[0], -1)
            scale = max(1.0, float(np.abs(ref).max()))
            difference = float(np.abs(xyz - ref).max())
            check(difference <= 1e-9 * scale, f"{case} {label}: coordinates differ from Nek5000's by {difference:g}")
            print(f"{case} {label}: checked (coordinates within {difference:.2g})", flush=True)


def pipe_case(args):
    pipe = os.path.join(args.meshes, "Nek5000", "short_tests", "bcid_test", "3D", "pipe.msh")
    output = os.path.join(args.work, "pipe.h5")
    out = imported(args, 2, pipe, output, 2)
    if out is None:
        return
    check(out["ids"].shape == (960, 27), f"pipe.msh: ids of shape {out['ids'].shape}, expected 960 elements of 27")
    tags, counts = np.unique(out["boundary"][out["boundary"] >= 0], return_counts=True)
    found = dict(zip(tags.tolist(), counts.tolist()))
    check(found == {1: 48, 2: 48, 3: 320}, f"pipe.msh: boundary faces by tag {found}, the file has 48, 48 and 320")
    gsr_check(args, output)
    print("pipe.msh: checked", flush=True)
    # conj_ht: conjugate heat transfer, 32 fluid of 64 elements and three BC fields, the
    # third (a passive scalar) on the fluid elements alone: the faces it leaves without a
    # record on the solid are not internal faces.
    conj = os.path.join(args.meshes, "Nek5000", "short_tests", "conj_ht", "conj_ht.re2")
    output = os.path.join(args.work, "conj_ht.h5")
    out = imported(args, 2, conj, output, 3)
    if out is None:
        return
    check(out["boundary"].shape == (64, 3, 4), f"conj_ht: boundary of shape {out['boundary'].shape}, expected (64, 3, 4)")
    # Field 1 (velocity) has no records on the solid elements 33..64.
    check((out["boundary"][32:, 0, :] < 0).all(), "conj_ht: velocity boundary tags on solid elements")
    gsr_check(args, output)
    print("conj_ht.re2: checked", flush=True)


def gsr_check(args, path):
    command = shlex.split(args.mpiexec) + ["2", args.gsr_check, path]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    check(result.returncode == 0, f"gsr-check {path}: exit {result.returncode}: {result.stdout}{result.stderr}")


def refusals(args):
    work = args.work
    good = os.path.join(work, "good.re2")
    re2_writer.write_re2(good, re2_writer.box((2, 2)))
    with open(good, "rb") as f:
        data = f.read()
    truncated = os.path.join(work, "truncated.re2")
    with open(truncated, "wb") as f:
        f.write(data[: len(data) - 50])
    cases = [
        ("the output is the input", good, good, 2, (), "is the same file as"),
        ("an unknown extension", good.replace(".re2", ".txt"), os.path.join(work, "x.h5"), 2, (), "from its extension"),
        ("a truncated file", truncated, os.path.join(work, "truncated.h5"), 2, (), truncated),
        ("a missing file", os.path.join(work, "missing.re2"), os.path.join(work, "missing.h5"), 2, (), "missing.re2"),
        ("order 0", good, os.path.join(work, "order0.h5"), 0, (), "--order"),
        ("order 65", good, os.path.join(work, "order65.h5"), 65, (), "--order"),
    ]
    with open(good.replace(".re2", ".txt"), "wb") as f:
        f.write(data)
    for what, source, output, order, extra, words in cases:
        result = run_import(args, 2, source, output, order, *extra)
        text = result.stdout + result.stderr
        check(result.returncode != 0, f"{what}: exit code 0")
        check(words in text, f"{what}: the message does not say '{words}': {text.strip()}")
        if output != source:
            check(not os.path.exists(output), f"{what}: {output} was written")
        print(f"refused {what}", flush=True)
    with open(good, "rb") as f:
        check(f.read() == data, "the input was changed by the refused import over it")
    bad_files(args)


def catalogue_key_words(doc):
    """{identifier: [key words]} of docs/errors.md's entries (their `Key words:` field)."""
    words, current = {}, None
    with open(doc) as f:
        for line in f:
            if line.startswith("### "):
                current = line[4:].strip()
            elif current and line.startswith("- **Key words:**"):
                words[current] = re.findall(r"`([^`]+)`", line)
    return words


def bad_files(args):
    """Every error of issue 43's item 7 with a file that triggers it (bad_inputs.py), through
    gsr-mesh import at P = 2: exit code 1 on both ranks, the message names the file, the element where it
    applies and the catalogued identifier's key words, and nothing is left in the output's
    folder (the file, its temporary, its XDMF sidecar)."""
    key_words = catalogue_key_words(args.errors_doc)
    folder = os.path.join(args.work, "bad")
    for case in bad_inputs.cases(folder):
        out_folder = os.path.join(args.work, "bad_out")
        os.makedirs(out_folder, exist_ok=True)
        output = os.path.join(out_folder, "out.h5")
        # Each rank's exit code, printed by a shell around it: every rank must fail with 1.
        wrapper = '"$0" "$@"; code=$?; echo "rank exit code $code"; exit $code'
        command = shlex.split(args.mpiexec) + ["2", "/bin/sh", "-c", wrapper, args.gsr_mesh, "import", case.path,
                                               "-o", output, "--order", "3", *case.extra]
        result = subprocess.run(command, capture_output=True, text=True, timeout=300, env=SHORT_TIMEOUT)
        text = result.stdout + result.stderr
        codes = re.findall(r"rank exit code (\d+)", result.stdout)
        # MPICH's mpiexec lets every rank end and print its code; Open MPI's ends the others
        # as soon as one rank exits with an error (build-openmpi.sh), so there only the ranks
        # that ended first print theirs. Every code printed must be 1: both under MPICH, at
        # least one under Open MPI.
        every_rank = len(codes) == 2 or ("openmpi" in args.mpiexec and len(codes) == 1)
        check(result.returncode == 1 and codes and every_rank and all(code == "1" for code in codes),
              f"{case.what}: exit code {result.returncode}, ranks' {codes}, not 1: {text.strip()[-400:]}")
        words = ["'%s'" % case.path] + key_words.get(case.identifier, []) + case.words
        check(case.identifier in key_words, f"{case.what}: {case.identifier} is not in {args.errors_doc}")
        if case.element is not None:
            words.append("element %d" % case.element)
        for w in words:
            check(w in text, f"{case.what}: the message does not say '{w}': {text.strip()[-400:]}")
        left = os.listdir(out_folder)
        check(not left, f"{case.what}: left behind in the output's folder: {left}")
        for name in left:
            os.remove(os.path.join(out_folder, name))
        print(f"refused {case.what} ({case.identifier})", flush=True)


def run_check(args, ranks, mesh_file):
    command = shlex.split(args.mpiexec) + [str(ranks), args.gsr_check, mesh_file]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=SHORT_TIMEOUT)


# A rank that waits for another that skipped a collective step fails within seconds.
SHORT_TIMEOUT = dict(os.environ, GSR_TIMEOUT="10")


def hostile(args):
    """What a user may throw at the import that the other cases do not: more ranks than
    elements, paths with spaces, a surface mesh in 3-D space, serendipity elements, periodic
    Gmsh meshes, several BC fields; each import then through gsr-check."""
    work = args.work
    # More ranks than elements (a rank with no element): the import, with the ids from the
    # file (Gmsh node tags, a .ma2) or by coordinates, then gsr-check on as many ranks.
    two_msh = os.path.join(work, "two.msh")
    msh_writer.write_msh(two_msh, msh_writer.Box(3, (2, 1, 1), order=1), "4.1", False)
    two = re2_writer.box((2, 1))
    two_re2 = os.path.join(work, "two.re2")
    re2_writer.write_re2(two_re2, two)
    re2_writer.write_vertices(os.path.join(work, "two.ma2"), two)
    for source, extra, n in ((two_msh, (), (2, 1, 1)), (two_re2, (), (2, 1))):
        output = os.path.join(work, os.path.basename(source) + "%d.h5" % len(extra))
        result = run_import(args, 3, source, output, 2, *extra, env=SHORT_TIMEOUT)
        if not check(result.returncode == 0, f"{source} {extra} at P = 3 (2 elements): exit {result.returncode}: "
                                             f"{result.stderr.strip()[-300:]}"):
            continue
        with h5py.File(output, "r") as f:
            ids = f["mesh"]["global_ids"][...]
        m = expected_ids(n, 2, ())
        check(len(np.unique(ids)) == m and ids.max() == m,
              f"{source} at P = 3: {len(np.unique(ids))} distinct ids, largest {ids.max()}; expected 1..{m}")
        result = run_check(args, 3, output)
        check(result.returncode == 0, f"gsr-check {output} at P = 3: exit {result.returncode}: "
                                      f"{(result.stdout + result.stderr).strip()[-300:]}")
    print("more ranks than elements: checked", flush=True)
    # Serendipity elements (quad8, hex20), re-oriented, in folders and files whose names
    # have spaces: the ids count the points of the box, and gsr-check passes.
    spaced = os.path.join(work, "a folder with spaces")
    os.makedirs(spaced, exist_ok=True)
    for name, box, version, binary in (
            ("quad8 mesh.msh", msh_writer.Box(2, (3, 2), order="s", reorient=True, seed=4), "2.2", True),
            ("hex20 mesh.msh", msh_writer.Box(3, (2, 2, 1), order="s", reorient=True, seed=5), "4.1", False)):
        source = os.path.join(spaced, name)
        msh_writer.write_msh(source, box, version, binary)
        output = os.path.join(spaced, name.replace(".msh", " out.h5"))
        out = imported(args, 2, source, output, 4)
        if out is None:
            continue
        m = expected_ids(box.n, 4, ())
        check(out["ids"].max() == m and len(np.unique(out["ids"])) == m,
              f"{name}: ids up to {out['ids'].max()}, {len(np.unique(out['ids']))} distinct; the box has {m} points")
        result = run_check(args, 2, output)
        check(result.returncode == 0, f"gsr-check {output}: exit {result.returncode}: {result.stdout[-300:]}")
    print("quad8, hex20, paths with spaces: checked", flush=True)
    # A boundary face in two physical groups, which MSH 2.2 writes as two elements (here
    # tags 1 and 7): the face keeps the first tag, 1.
    box = msh_writer.Box(3, (2, 1, 1), order=1)
    source = os.path.join(work, "two groups.msh")
    msh_writer.write_msh(source, box, "2.2", False)
    lines = open(source).read().split("\n")
    at = lines.index("$Elements")
    copy = lines[at + 2].split()  # the first boundary element: tag, type 3, 2 tags (1, 1), nodes
    check(copy[1] == "3" and copy[3] == "1", f"msh_writer's first element is not a quad of tag 1: {copy}")
    copy[0], copy[3] = "1000", "7"
    lines.insert(at + 3, " ".join(copy))
    lines[at + 1] = str(int(lines[at + 1]) + 1)
    open(source, "w").write("\n".join(lines))
    out = imported(args, 2, source, os.path.join(work, "two groups.h5"), 2)
    if out is not None:
        tags, counts = np.unique(out["boundary"][out["boundary"] >= 0], return_counts=True)
        found = dict(zip(tags.tolist(), counts.tolist()))
        check(found == {1: 1, 2: 1, 3: 2, 4: 2, 5: 2, 6: 2}, f"a face in two physical groups: faces by tag {found}")
    # A surface of a 3-D mesh (quadrilaterals not in a plane z = const) is no 2-D mesh.
    tilted = msh_writer.Box(2, (2, 2), order=1)
    tilted.xyz[..., 2] = 0.3 * tilted.xyz[..., 0]
    source = os.path.join(work, "tilted.msh")
    msh_writer.write_msh(source, tilted, "4.1", False)
    output = os.path.join(work, "tilted.h5")
    result = run_import(args, 2, source, output, 2, env=SHORT_TIMEOUT)
    check(result.returncode == 1 and "no volume elements" in result.stderr and not os.path.exists(output),
          f"a tilted surface: exit {result.returncode}: {result.stderr.strip()[-300:]}")
    if args.meshes:
        conj_ht(args)


def conj_ht(args):
    """Nek5000's conj_ht.re2 (64 elements, nelgv 32, three BC sections; the third, a passive
    scalar's, written by genbox for the fluid elements only): it imports; field 1's boundary
    faces are on fluid elements only; every field holds the file's records (counted here by
    reading the sections); gsr-check passes."""
    source = os.path.join(args.meshes, "Nek5000", "short_tests", "conj_ht", "conj_ht.re2")
    data = open(source, "rb").read()
    nelgt, dim, nelgv = int(data[5:14]), int(data[14:17]), int(data[17:26])
    at = 84 + nelgt * 8 * (1 + dim * 2 ** dim)
    at += 8 + 64 * int(np.frombuffer(data[at:at + 8], "<f8")[0])  # the curve section
    sections = []
    while at < len(data):
        n = int(np.frombuffer(data[at:at + 8], "<f8")[0])
        words = np.frombuffer(data[at + 8:at + 8 + 64 * n], "<f8").reshape(n, 8)
        sections.append(words[:, 0].astype(int))  # each record's element (1-based)
        at += 8 + 64 * n
    output = os.path.join(args.work, "conj_ht.h5")
    out = imported(args, 2, source, output, 3)
    if out is None:
        return
    boundary = out["boundary"]
    check(boundary.shape == (nelgt, len(sections), 2 * dim),
          f"conj_ht: boundary of shape {boundary.shape}, the file has {nelgt} elements and {len(sections)} fields")
    if boundary.shape == (nelgt, len(sections), 2 * dim):
        tagged = np.argwhere(boundary[:, 0, :] >= 0)[:, 0]
        check(tagged.max() < nelgv, f"conj_ht: field 1 has boundary faces on solid element {tagged.max() + 1}")
        for field, elements in enumerate(sections):
            counted = int((boundary[:, field, :] >= 0).sum())
            check(counted == len(elements), f"conj_ht: field {field + 1} has {counted} boundary faces, "
                                            f"the file {len(elements)} records")
    result = run_check(args, 2, output)
    check(result.returncode == 0, f"gsr-check conj_ht.h5: exit {result.returncode}: {result.stdout[-400:]}")
    print("conj_ht: checked", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["boxes", "nek", "pipe", "refusals", "hostile"])
    parser.add_argument("--gsr-mesh", required=True)
    parser.add_argument("--gsr-check")
    parser.add_argument("--mpiexec", required=True, help='launcher and its rank-count flag, e.g. "mpiexec -n"')
    parser.add_argument("--work", required=True)
    parser.add_argument("--meshes", help="folder holding Nek5000/short_tests/...")
    parser.add_argument("--reference", default=os.path.join(HERE, "nek_reference"))
    parser.add_argument("--errors-doc", default=os.path.join(HERE, "..", "..", "docs", "errors.md"))
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    {"boxes": box_cases, "nek": nek_cases, "pipe": pipe_case, "refusals": refusals, "hostile": hostile}[args.what](args)
    if FAILURES:
        print(f"import_cases.py {args.what}: {len(FAILURES)} failures", file=sys.stderr)
        return 1
    print(f"import_cases.py {args.what}: every check holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
