#!/usr/bin/python3
"""re2_test_files.py OUT NEK_SHORT_TESTS - the inputs of import_re2_test (fixture import_re2_files).

Writes into OUT: box meshes of every version and byte order (re2_writer.box, the same
parameters as kBoxes in re2_test.cpp) with .ma2/.co2 vertex files; one element whose curve
and BC records carry the prenek edge's or face's own corners, so the test can tell which of
our edges and faces they landed on; byte-swapped copies of Nek5000's shipped .re2 files
(swapped/); and one broken file per error of the reader (bad_*.re2, bad_*.ma2/.co2).
"""
import os
import pathlib
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

import re2_writer as rw  # noqa: E402


def boxes(out):
    # name, n, periodic axes, version, byte order, reorient, shuffle, seed, fields, vertex file
    table = [
        ("box2d_v001", (4, 3), (0,), "#v001", "<", "all", True, 1, 2, "ma2"),
        ("box3d_v002", (3, 2, 2), (0, 2), "#v002", ">", "all", True, 2, 1, "co2"),
        ("box3d_v003", (2, 2, 3), (), "#v003", "<", "rotations", False, 3, 1, None),
        ("box3d_v004", (3, 3, 2), (1,), "#v004", ">", "all", True, 4, 3, "ma2"),
        ("box2d_v004", (5, 2), (0, 1), "#v004", "<", "none", False, 5, 1, "co2"),
    ]
    for name, n, periodic, version, order, reorient, shuffle, seed, fields, vfile in table:
        if name == "box3d_v003":  # through the command line, as other tests call it
            assert rw.main(["box", str(out / (name + ".re2")), "--n"] + [str(k) for k in n] +
                           ["--version", version[1:], "--reorient", reorient, "--seed", str(seed), "--tags"]) == 0
            continue
        mesh = rw.box(n, periodic, reorient, shuffle, seed, fields, tags=True)
        rw.write_re2(out / (name + ".re2"), mesh, version, order)
        if vfile:  # box3d_v002.co2 with gencon's list-directed #v002 header
            rw.write_vertices(str(out / (name + "." + vfile)), mesh, order, "#v002" if name == "box3d_v002" else "#v001")


def records(out):
    """BC records of every kind the reader treats apart, and v004 headers without a count."""
    mesh = small()
    mesh.curves = [(4, 3, [0.5, 1.0, 0, 0, 0], "m")]
    mesh.fields = [[
        (1, 2, [2.0, 4.0, 0, 0, 0], "E"),     # E naming its neighbour: element 2, prenek face 4
        (2, 2, [0.0, 0.0, 0, 0, 0], "E"),     # E without one
        (3, 1, [0.0, 0.0, 0, 0, 0], "p"),     # single-element periodicity: no connection
        (3, 3, [0.0, 0.0, 0, 0, 3.5], "W"),   # bc(5) not an integer: no tag
        (4, 1, [0.0, 0.0, 0, 0, -2.0], "W"),  # bc(5) negative: no tag
        (4, 3, [0.0, 0.0, 0, 0, 12.0], "MSH"),
        (1, 4, [0.0, 0.0, 0, 0, 0], "SYM"),
    ]]
    rw.write_re2(out / "records.re2", mesh, "#v002", ">")
    v4 = rw.re2_bytes(small(3), "#v004")
    (out / "v004_zero_fields.re2").write_bytes(header("#v004", 4, 3, 4, "0") + v4[80:])
    (out / "v004_negative_fields.re2").write_bytes(header("#v004", 4, 3, 4, "-1") + v4[80:])


# prenek edges as (start, end) prenek corners (1-based): 1-4 bottom cycle, 5-8 top, 9-12 up.
PRENEK_EDGES_3D = [(1, 2), (2, 3), (3, 4), (4, 1), (5, 6), (6, 7), (7, 8), (8, 5), (1, 5), (2, 6), (3, 7), (4, 8)]
PRENEK_EDGES_2D = PRENEK_EDGES_3D[:4]
# prenek faces as prenek corners (core/connect1.f): 1 = s-, 2 = r+, 3 = s+, 4 = r-, 5 = t-, 6 = t+.
PRENEK_FACES_3D = [(1, 2, 6, 5), (2, 3, 7, 6), (3, 4, 8, 7), (1, 4, 8, 5), (1, 2, 3, 4), (5, 6, 7, 8)]
PRENEK_FACES_2D = [(1, 2), (2, 3), (3, 4), (4, 1)]


def one_element(dim):
    """A distorted element (all corners apart) whose records name their own corners: 'C'
    curves with params = (radius = edge number, start corner), an 's' face curve per face in
    3-D with params = face centroid, and one W record per face with params = face centroid."""
    rng = np.random.default_rng(7 + dim)
    nv = 2 ** dim
    ref = np.array([[(c >> a) & 1 for a in range(dim)] for c in range(nv)], dtype=float)  # lexicographic
    lex = ref + 0.15 * rng.standard_normal(ref.shape)
    prenek = lex[rw.PRENEK_TO_LEX[:nv]]  # prenek corner k at lexicographic position PRENEK_TO_LEX[k]
    edges = PRENEK_EDGES_3D if dim == 3 else PRENEK_EDGES_2D
    faces = PRENEK_FACES_3D if dim == 3 else PRENEK_FACES_2D
    curves = []
    for k, (a, b) in enumerate(edges, start=1):
        start = list(prenek[a - 1]) + [0.0] * (3 - dim)
        curves.append((1, k, [float(k)] + start + [0.0], "C"))
    bcs = []
    for k, corners in enumerate(faces, start=1):
        centroid = list(np.mean([prenek[c - 1] for c in corners], axis=0)) + [0.0] * (3 - dim)
        if dim == 3:
            curves.append((1, k, centroid + [float(k), 0.0], "s"))
        bcs.append((1, k, centroid + [float(k), 0.0], "W"))
    return rw.Mesh(dim, prenek[None, :, :], groups=[3], curves=curves, fields=[bcs])


def small(dim=2, nelgt=4):
    """A small valid mesh (a strip of nelgt elements) to break."""
    corners = []
    for e in range(nelgt):
        if dim == 2:
            corners.append([[e, 0], [e + 1, 0], [e + 1, 1], [e, 1]])
        else:
            corners.append([[e, 0, 0], [e + 1, 0, 0], [e + 1, 1, 0], [e, 1, 0],
                            [e, 0, 1], [e + 1, 0, 1], [e + 1, 1, 1], [e, 1, 1]])
    bcs = [(1, 4, [0.0] * 5, "W"), (nelgt, 2, [0.0] * 5, "W")]
    mesh = rw.Mesh(dim, corners, fields=[bcs])
    mesh.lex_vertices = np.array([[1 + e + (c & 1) + (nelgt + 1) * ((c >> 1) & 1) + 2 * (nelgt + 1) * (c >> 2)
                                   for c in range(2 ** dim)] for e in range(nelgt)])
    return mesh


def header(version, nelgt, dim, nelgv, extra=""):
    if version == "#v004":
        text = "#v004%16s%3s%16s%4s hdr" % (nelgt, dim, nelgv, extra or "1")
    else:
        text = "%5s%9s%3s%9s this is the hdr" % (version, nelgt, dim, nelgv)
    return text.ljust(80).encode("ascii")


def bad_files(out):
    def put(name, data):
        (out / name).write_bytes(data)

    good = rw.re2_bytes(small(), "#v002")
    # E-IMPORT-RE2-HEADER
    put("bad_short.re2", good[:60])
    put("bad_endian.re2", good[:80] + struct.pack("<f", 1.5) + good[84:])
    put("bad_header_text.re2", header("#v002", "abc", 2, 4) + good[80:])
    put("bad_not_re2.re2", b"\x89HDF\r\n\x1a\n" + good[8:])
    # E-IMPORT-RE2-VERSION
    put("bad_version.re2", header("#v005", 4, 2, 4) + good[80:])
    # E-IMPORT-RE2-DIM
    put("bad_dim.re2", header("#v002", 4, 4, 4) + good[80:])
    # E-IMPORT-RE2-ELEMENTS
    put("bad_nelgv.re2", header("#v002", 4, 2, 5) + good[80:])
    put("bad_nelgt.re2", header("#v002", 0, 2, 0) + good[80:])
    # E-IMPORT-RE2-OVERFLOW: a forged v004 count whose ids at order 64 pass 2^63
    v4 = rw.re2_bytes(small(3), "#v004")
    put("bad_overflow.re2", header("#v004", 40000000000000, 3, 40000000000000) + v4[80:])
    put("bad_overflow_int64.re2", header("#v004", 99999999999999999999, 3, 4) + v4[80:])
    # E-IMPORT-RE2-TRUNCATED
    put("bad_truncated.re2", good[:-10])
    put("bad_trailing.re2", good + b"abc")
    put("bad_elements_cut.re2", good[:84 + 3 * 9 * 8])
    put("bad_v004_fields.re2", header("#v004", 4, 3, 4, "2") + v4[80:])
    mesh = small()
    mesh.curves = [(1, 1, [1.0, 0, 0, 0, 0], "C")]
    curved = bytearray(rw.re2_bytes(mesh, "#v002"))
    curve_count = 84 + 4 * 9 * 8
    curved[curve_count:curve_count + 8] = struct.pack("<d", -1.0)
    put("bad_curve_count.re2", bytes(curved))
    # E-IMPORT-RE2-RECORD
    for name, curves, bcs in [
        ("bad_curve_element", [(5, 1, [1.0, 0, 0, 0, 0], "C")], None),
        ("bad_curve_edge", [(2, 5, [1.0, 0, 0, 0, 0], "C")], None),
        ("bad_bc_face", None, [(1, 4, [0.0] * 5, "W"), (3, 7, [0.0] * 5, "W")]),
        ("bad_bc_element", None, [(0, 4, [0.0] * 5, "W")]),
        ("bad_bc_fraction", None, [(2.5, 4, [0.0] * 5, "W")]),
        # E-IMPORT-RE2-PERIODIC
        ("bad_periodic_element", None, [(1, 4, [9.0, 2.0, 0, 0, 0], "P"), (4, 2, [1.0, 4.0, 0, 0, 0], "P")]),
        ("bad_periodic_face", None, [(1, 4, [4.0, 9.0, 0, 0, 0], "P"), (4, 2, [1.0, 4.0, 0, 0, 0], "P")]),
    ]:
        m = small()
        if curves is not None:
            m.curves = curves
        if bcs is not None:
            m.fields = [bcs]
        put(name + ".re2", rw.re2_bytes(m, "#v002"))
    # v001: curve records of a 4-byte file (element 6 of 4)
    m = small()
    m.curves = [(6, 1, [1.0, 0, 0, 0, 0], "m")]
    put("bad_curve_element_v001.re2", rw.re2_bytes(m, "#v001", ">"))
    # E-IMPORT-RE2-VERTEX-FILE and E-IMPORT-RE2-VERTEX-ID: each beside a good .re2
    m = small()
    for name, data in [
        ("bad_ma2_count", rw.vertex_bytes(m, "ma2", nelgt=5)),
        ("bad_co2_nv", rw.vertex_bytes(m, "co2", nv=8)),
        ("bad_ma2_cut", rw.vertex_bytes(m, "ma2")[:-4]),
        ("bad_ma2_endian", rw.vertex_bytes(m, "ma2")[:132] + b"\0\0\0\0" + rw.vertex_bytes(m, "ma2")[136:]),
    ]:
        put(name + ".re2", good)
        put(name + ("." + name[4:7]), data)
    co2 = bytearray(rw.vertex_bytes(m, "co2"))
    co2[136 + 2 * 5 * 4:136 + 2 * 5 * 4 + 4] = struct.pack("<i", 7)  # element 3's record names element 7
    put("bad_co2_element.re2", good)
    put("bad_co2_element.co2", bytes(co2))
    ma2 = bytearray(rw.vertex_bytes(m, "ma2"))
    ma2[136 + 3 * 5 * 4 + 8:136 + 3 * 5 * 4 + 12] = struct.pack("<i", 0)  # element 4, corner 2
    put("bad_ma2_id.re2", good)
    put("bad_ma2_id.ma2", bytes(ma2))


def million(out):
    """v001 with a million elements: P's element is stored as int32 bits (genbox, reader_re2.f)."""
    nelgt = 1000000
    x = np.arange(nelgt, dtype=float)
    corners = np.zeros((nelgt, 4, 2))
    corners[:, :, 0] = x[:, None] + np.array([0, 1, 1, 0])
    corners[:, :, 1] = np.array([0, 0, 1, 1])
    mesh = rw.Mesh(2, corners, fields=[[(1, 4, [1000000.0, 2.0, 0, 0, 0], "P"),
                                        (1000000, 2, [1.0, 4.0, 0, 0, 0], "P"),
                                        (999999, 1, [1.5, 2.5, 0, 0, 7.0], "W")]])
    rw.write_re2(out / "million_v001.re2", mesh, "#v001", "<")


def main():
    out = pathlib.Path(sys.argv[1])
    nek = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else None
    out.mkdir(parents=True, exist_ok=True)
    (out / "swapped").mkdir(exist_ok=True)
    boxes(out)
    rw.write_re2(out / "one2d.re2", one_element(2), "#v001", ">")
    rw.write_re2(out / "one3d.re2", one_element(3), "#v004", "<")
    bad_files(out)
    records(out)
    million(out)
    if nek:
        for path in sorted(nek.rglob("*.re2")):
            rw.swap_re2(str(path), str(out / "swapped" / (path.parent.name + "__" + path.name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
