#!/usr/bin/python3
"""re2_writer.py - writes Nek5000 .re2 meshes (and genmap/gencon vertex files) for the tests.

The layout is Nek5000's (core/reader_re2.f; docs/mesh-import.md): an 80-byte ASCII header,
the float32 6.54321 (byte order test), then nelgt element records (group, x(nv), y(nv)
[, z(nv)], corners in prenek order), the curve section (count, 8-word records) and one BC
section per field (count, 8-word records elem, face, bc(1..5), cbc), faces in prenek
numbering. #v001 files have 4-byte words (int32 and float32), #v002-#v004 8-byte words
(every field a float64); #v004's header is list-directed and carries the BC-field count.

As a module:
    mesh = box((3, 2, 2), periodic=(0,), reorient="all", shuffle=True, seed=1)
    write_re2("box.re2", mesh, version="#v001", byteorder=">")
    write_vertices("box.ma2", mesh)              # or box.co2
    swap_re2("in.re2", "out.re2")                # the same file in the other byte order
From the command line:
    re2_writer.py box OUT.re2 --n 3 2 2 [--periodic x] [--version v001] [--big-endian]
                  [--reorient none|rotations|all] [--shuffle] [--seed S] [--fields K]
                  [--tags] [--vertex-file OUT.ma2]
    re2_writer.py swap IN.re2 OUT.re2
"""
import argparse
import itertools
import struct
import sys

import numpy as np

# prenek corner k (0-based) is lexicographic corner PRENEK_TO_LEX[k] (the map is self-inverse).
PRENEK_TO_LEX = [0, 1, 3, 2, 4, 5, 7, 6]
# our face f (axis f // 2, side f % 2: r-, r+, s-, s+, t-, t+) is prenek face OUR_TO_PRENEK_FACE[f].
OUR_TO_PRENEK_FACE = [4, 2, 1, 3, 5, 6]
ENDIAN_TEST = 6.54321


class Mesh:
    """What a .re2 holds. corners: (nelgt, nv, dim) in prenek order; groups: nelgt ints;
    curves: [(elem 1-based, edge 1-based prenek, [5 reals], 'C')]; fields: one list per BC
    section of (elem 1-based, prenek face, [5 reals], 'P'); nelgv: fluid elements.
    lex_vertices: (nelgt, nv) vertex ids in lexicographic corner order (for .ma2/.co2)."""

    def __init__(self, dim, corners, groups=None, curves=(), fields=((),), nelgv=None, lex_vertices=None):
        self.dim = dim
        self.corners = np.asarray(corners, dtype=float)
        self.nelgt = len(self.corners)
        self.groups = list(groups) if groups is not None else [0] * self.nelgt
        self.curves = list(curves)
        self.fields = [list(f) for f in fields]
        self.nelgv = self.nelgt if nelgv is None else nelgv
        self.lex_vertices = lex_vertices


def _header(version, nelgt, dim, nelgv, nfields):
    if version == "#v004":
        text = "#v004%16d%3d%16d%4d hdr" % (nelgt, dim, nelgv, nfields)
    else:
        text = "%5s%9d%3d%9d this is the hdr" % (version, nelgt, dim, nelgv)
    return text.ljust(80).encode("ascii")


def re2_bytes(mesh, version="#v002", byteorder="<", header=None):
    """The bytes of the .re2 for `mesh`. header: 80 bytes to write instead of the real one."""
    if version not in ("#v001", "#v002", "#v003", "#v004"):
        raise ValueError("version must be #v001 .. #v004")
    w = 4 if version == "#v001" else 8
    integer = byteorder + ("i" if w == 4 else "d")
    real = byteorder + ("f" if w == 4 else "d")
    nv = 2 ** mesh.dim
    out = bytearray(header if header is not None else _header(version, mesh.nelgt, mesh.dim, mesh.nelgv,
                                                               len(mesh.fields)))
    assert len(out) == 80
    out += struct.pack(byteorder + "f", ENDIAN_TEST)
    kind = ("i4", "f4") if w == 4 else ("f8", "f8")
    records = np.zeros(mesh.nelgt, dtype=[("group", byteorder + kind[0]),
                                          ("xyz", byteorder + kind[1], (mesh.dim * nv,))])
    records["group"] = mesh.groups
    records["xyz"] = mesh.corners.transpose(0, 2, 1).reshape(mesh.nelgt, mesh.dim * nv)  # x(nv), y(nv)[, z(nv)]
    out += records.tobytes()

    def record(elem, side, params, text, periodic_bits=False):
        b = struct.pack(integer, elem) + struct.pack(integer, side)
        if periodic_bits:  # genbox: v001 with a million elements or more, P's element as int32
            b += struct.pack(byteorder + "i", int(params[0])) + struct.pack(byteorder + "4f", *params[1:])
        else:
            b += struct.pack(byteorder + "5" + real[-1], *params)
        return b + text.encode("ascii").ljust(w)[:w]

    out += struct.pack(integer, len(mesh.curves))
    for elem, edge, params, kind in mesh.curves:
        out += record(elem, edge, params, kind)
    for field in mesh.fields:
        out += struct.pack(integer, len(field))
        for elem, face, params, kind in field:
            bits = w == 4 and mesh.nelgt >= 1000000 and kind.ljust(3) == "P  "
            out += record(elem, face, params, kind.ljust(3), bits)
    return bytes(out)


def write_re2(path, mesh, version="#v002", byteorder="<", header=None):
    with open(path, "wb") as f:
        f.write(re2_bytes(mesh, version, byteorder, header))


def vertex_bytes(mesh, kind, byteorder="<", nelgt=None, nv=None, version="#v001"):
    """genmap's .ma2 (kind 'ma2') or gencon's .co2 ('co2') for mesh.lex_vertices. A .co2 of
    version #v002 has a list-directed header, the others fixed columns (core/map2.f)."""
    nelgt = mesh.nelgt if nelgt is None else nelgt
    nv = 2 ** mesh.dim if nv is None else nv
    if kind == "ma2":
        header = "#v001" + "%12d" * 7 % (nelgt, nelgt, 1, 2, 0, int(np.max(mesh.lex_vertices)), 0)
    elif version == "#v002":
        header = "#v002 %d %d %d" % (nelgt, mesh.nelgv, nv)
    else:
        header = version + "%12d" * 3 % (nelgt, mesh.nelgv, nv)
    out = bytearray(header.ljust(132).encode("ascii"))
    out += struct.pack(byteorder + "f", ENDIAN_TEST)
    for e in range(mesh.nelgt):
        first = 0 if kind == "ma2" else e + 1  # partition id, or the element id
        out += struct.pack(byteorder + "%di" % (1 + len(mesh.lex_vertices[e])), first, *mesh.lex_vertices[e])
    return bytes(out)


def write_vertices(path, mesh, byteorder="<", version="#v001"):
    with open(path, "wb") as f:
        f.write(vertex_bytes(mesh, "co2" if path.endswith(".co2") else "ma2", byteorder, version=version))


def _symmetries(dim, rotations_only):
    """(axis permutation, flips) of the reference square/cube."""
    out = []
    for perm in itertools.permutations(range(dim)):
        parity = sum(1 for a in range(dim) for b in range(a + 1, dim) if perm[a] > perm[b]) % 2
        for flips in itertools.product((0, 1), repeat=dim):
            if not rotations_only or (parity + sum(flips)) % 2 == 0:
                out.append((perm, flips))
    return out


def box(n, periodic=(), reorient="none", shuffle=False, seed=0, fields=1, tags=False):
    """A structured box of n[0] x n[1] (x n[2]) elements on [0,1]^dim. periodic: axes (0..dim-1)
    whose two ends are joined by P records; every other boundary face gets a W record (bc(5)
    = 1 + 2 axis + side when tags). reorient: 'none', 'rotations' or 'all' (rotations and
    reflections): each element's corner order is re-oriented by a random symmetry of the
    reference element. shuffle: the elements are written in a random order. The same records
    go into each of `fields` BC sections."""
    dim = len(n)
    nv = 2 ** dim
    rng = np.random.default_rng(seed)
    grid = list(itertools.product(*[range(k) for k in reversed(n)]))
    grid = [tuple(reversed(g)) for g in grid]  # lexicographic: first index fastest
    count = len(grid)
    order = rng.permutation(count) if shuffle else np.arange(count)  # file position -> grid element
    file_id = np.empty(count, dtype=int)  # grid element -> 1-based element id in the file
    file_id[order] = np.arange(1, count + 1)
    syms = _symmetries(dim, reorient == "rotations")
    orient = [syms[rng.integers(len(syms))] if reorient != "none" else (tuple(range(dim)), (0,) * dim)
              for _ in range(count)]
    index_of = {g: i for i, g in enumerate(grid)}
    h = [1.0 / k for k in n]

    def original_bits(sym, new_corner):
        perm, flips = sym
        bits = [0] * dim
        for a in range(dim):
            bits[perm[a]] = ((new_corner >> a) & 1) ^ flips[a]
        return bits

    def new_face(sym, axis, side):
        perm, flips = sym
        for a in range(dim):
            if perm[a] == axis:
                return 2 * a + (side ^ flips[a])
        raise AssertionError

    corners = np.zeros((count, nv, dim))
    lex_vertices = np.zeros((count, nv), dtype=np.int64)
    bc = []
    for q in range(count):
        g = order[q]
        idx = grid[g]
        sym = orient[g]
        for c in range(nv):  # our (lexicographic) corner c of the re-oriented element
            bits = original_bits(sym, c)
            point = [idx[a] + bits[a] for a in range(dim)]
            corners[q, PRENEK_TO_LEX[c], :] = [point[a] * h[a] for a in range(dim)]
            vid, stride = 1, 1
            for a in range(dim):
                vid += point[a] * stride
                stride *= n[a] + 1
            lex_vertices[q, c] = vid
        for axis in range(dim):
            for side in (0, 1):
                if idx[axis] != (0 if side == 0 else n[axis] - 1):
                    continue
                face = OUR_TO_PRENEK_FACE[new_face(sym, axis, side)]
                if axis in periodic:
                    other = list(idx)
                    other[axis] = n[axis] - 1 if side == 0 else 0
                    og = index_of[tuple(other)]
                    oface = OUR_TO_PRENEK_FACE[new_face(orient[og], axis, 1 - side)]
                    bc.append((q + 1, face, [float(file_id[og]), float(oface), 0.0, 0.0, 0.0], "P"))
                else:
                    tag = float(1 + 2 * axis + side) if tags else 0.0
                    bc.append((q + 1, face, [0.0, 0.0, 0.0, 0.0, tag], "W"))
    bc.sort(key=lambda r: (r[0], r[1]))
    return Mesh(dim, corners, groups=[int(order[q]) for q in range(count)], fields=[bc] * fields,
                lex_vertices=lex_vertices)


def swap_re2(source, target):
    """Writes `source` (a .re2) to `target` in the other byte order: every word but the
    character word that ends each curve and BC record."""
    data = bytearray(open(source, "rb").read())
    version = data[:5].decode("ascii")
    w = 4 if version == "#v001" else 8
    if version == "#v004":
        items = data[5:80].decode("ascii").split()
        nelgt, dim, nfields = int(items[0]), int(items[1]), abs(int(items[3]))
    else:
        nelgt, dim, nfields = int(data[5:14]), int(data[14:17]), 0
    little = abs(struct.unpack("<f", data[80:84])[0] - ENDIAN_TEST) <= 2e-4
    order = "<" if little else ">"
    word = order + ("i" if w == 4 else "d")

    def swap_words(start, words):
        for k in range(words):
            p = start + k * w
            data[p:p + w] = data[p:p + w][::-1]

    def count_at(p):
        return int(struct.unpack(word, data[p:p + w])[0])

    data[80:84] = data[80:84][::-1]
    p = 84
    words = nelgt * (1 + dim * 2 ** dim)
    swap_words(p, words)
    p += words * w
    sections = 0
    while p < len(data) and (nfields == 0 or sections < 1 + nfields):
        records = count_at(p)
        swap_words(p, 1)
        p += w
        for _ in range(records):
            swap_words(p, 7)
            p += 8 * w
        sections += 1
    if p != len(data):
        raise ValueError("%s: %d bytes left over" % (source, len(data) - p))
    open(target, "wb").write(bytes(data))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("box", help="a structured box mesh")
    b.add_argument("output")
    b.add_argument("--n", type=int, nargs="+", required=True, help="elements per axis (2 or 3 numbers)")
    b.add_argument("--periodic", nargs="*", default=[], choices=["x", "y", "z"])
    b.add_argument("--version", default="v002", choices=["v001", "v002", "v003", "v004"])
    b.add_argument("--big-endian", action="store_true")
    b.add_argument("--reorient", default="none", choices=["none", "rotations", "all"])
    b.add_argument("--shuffle", action="store_true")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--fields", type=int, default=1)
    b.add_argument("--tags", action="store_true", help="bc(5) of W records = 1 + 2 axis + side")
    b.add_argument("--vertex-file", help="also write this .ma2 or .co2")
    s = sub.add_parser("swap", help="a .re2 in the other byte order")
    s.add_argument("input")
    s.add_argument("output")
    args = parser.parse_args(argv)
    if args.command == "swap":
        swap_re2(args.input, args.output)
        return 0
    if len(args.n) not in (2, 3):
        parser.error("--n takes 2 or 3 numbers")
    periodic = tuple("xyz".index(a) for a in args.periodic)
    mesh = box(tuple(args.n), periodic, args.reorient, args.shuffle, args.seed, args.fields, args.tags)
    order = ">" if args.big_endian else "<"
    write_re2(args.output, mesh, "#" + args.version, order)
    if args.vertex_file:
        write_vertices(args.vertex_file, mesh, order)
    return 0


if __name__ == "__main__":
    sys.exit(main())
