#!/usr/bin/python3
"""msh_writer.py - writes Gmsh .msh files of a structured box for the .msh reader's tests.

A box of nx x ny (x nz) elements on [0,1]^d, in MSH 2.2 or 4.1, ASCII or binary (either byte
order), of order 1 (quad4/hex8), 2 (quad9/hex27) or serendipity (quad8/hex20), with physical
groups on the six (four) sides (tags 1..2d: x-, x+, y-, y+, z-, z+) and on the volume (tag 10),
optional $Periodic node pairs for chosen axes, and optionally every element's corner order
re-oriented by a random symmetry of the cube (rotation or reflection, seedable) and the node
tags shuffled. Written from the format's description, independently of gsr's reader.

Next to each mesh it can write what a reader must find (--expect FILE), as plain text:
  dim D elements E geometry G
  E lines: group, the 2^d corner tags (lexicographic), the G^d points (lexicographic, x y z)
  faces F, then F lines: element face tag   (0-based element, gsr's face numbering)
  periodic P, then P lines: node master
  names N, then N lines: dim tag name

  msh_writer.py OUT.msh --dim 3 --n 3 2 2 --version 4.1 --binary --order 2 --reorient --shuffle
  msh_writer.py --suite DIR   (every file the tests read, with their expectations)
"""
import argparse
import itertools
import os
import struct
import sys

import numpy as np

VOLUME_TAG = 10
SIDE_NAMES = ["xmin", "xmax", "ymin", "ymax", "zmin", "zmax"]

# Gmsh's node order of the quad and hex as positions on the 3^d grid (0..2 per axis): corners,
# then edge midpoints, face centres and the centre (the MSH manual's "node ordering").
QUAD_CORNERS = [(0, 0), (2, 0), (2, 2), (0, 2)]
QUAD_EDGES = [(0, 1), (1, 2), (2, 3), (3, 0)]
HEX_CORNERS = [(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0), (0, 0, 2), (2, 0, 2), (2, 2, 2), (0, 2, 2)]
HEX_EDGES = [(0, 1), (0, 3), (0, 4), (1, 2), (1, 5), (2, 3), (2, 6), (3, 7), (4, 5), (4, 7), (5, 6), (6, 7)]
HEX_FACES = [(0, 1, 2, 3), (0, 1, 5, 4), (0, 3, 7, 4), (1, 2, 6, 5), (2, 3, 7, 6), (4, 5, 6, 7)]


def mean(points):
    return tuple(sum(p[a] for p in points) // len(points) for a in range(len(points[0])))


def gmsh_positions(dim, nodes):
    """Grid positions (0..2) of the first `nodes` Gmsh nodes of a quad (dim 2) or hex (dim 3)."""
    if dim == 2:
        c = QUAD_CORNERS
        full = c + [mean([c[i], c[j]]) for i, j in QUAD_EDGES] + [mean(c)]
    elif dim == 3:
        c = HEX_CORNERS
        full = (c + [mean([c[i], c[j]]) for i, j in HEX_EDGES] + [mean([c[i] for i in f]) for f in HEX_FACES]
                + [mean(c)])
    else:  # a line: its two ends, then its midpoint
        full = [(0,), (2,), (1,)]
    return full[:nodes]


TYPES = {  # (dim, order) -> (Gmsh type, nodes)
    (1, 1): (1, 2), (1, 2): (8, 3), (1, "s"): (8, 3),
    (2, 1): (3, 4), (2, 2): (10, 9), (2, "s"): (16, 8),
    (3, 1): (5, 8), (3, 2): (12, 27), (3, "s"): (17, 20),
}


def cube_symmetries(dim):
    """Every (axis permutation, flips) of the square or cube: rotations and reflections."""
    return [(perm, flips) for perm in itertools.permutations(range(dim))
            for flips in itertools.product((False, True), repeat=dim)]


class Box:
    def __init__(self, dim, n, order=2, reorient=False, shuffle=False, seed=0, periodic=()):
        self.dim, self.n, self.order = dim, tuple(n), order
        self.q = 1 if order == 1 else 2  # grid points per element edge, minus 1
        rng = np.random.default_rng(seed)
        shape = tuple(self.q * k + 1 for k in self.n)  # global grid, axis 0 = x
        count = int(np.prod(shape))
        if shuffle:
            tags = rng.choice(np.arange(1, 3 * count + 1), size=count, replace=False)
        else:
            tags = np.arange(1, count + 1)
        self.shape = shape
        self.tags = tags.reshape(shape, order="F")  # tags[i, j, k]
        grids = np.meshgrid(*[np.linspace(0.0, 1.0, s) for s in shape], indexing="ij")
        self.xyz = np.zeros(shape + (3,))
        for a in range(dim):
            self.xyz[..., a] = grids[a]
        symmetries = cube_symmetries(dim)
        # Elements in lexicographic order; each as its file-oriented local grid of global indices.
        self.elements = []  # (local grid: dict position -> global index tuple, symmetry)
        for e in itertools.product(*[range(k) for k in reversed(self.n)]):
            e = tuple(reversed(e))  # x fastest
            perm, flips = symmetries[rng.integers(len(symmetries))] if reorient else (tuple(range(dim)), (False,) * dim)
            self.elements.append((e, perm, flips))
        # Boundary elements: every element side on the box's boundary.
        self.boundary = []  # (element number, global axis, side, reverse)
        for number, (e, perm, flips) in enumerate(self.elements):
            for axis in range(dim):
                for side in (0, 1):
                    if e[axis] == (0 if side == 0 else self.n[axis] - 1):
                        self.boundary.append((number, axis, side, bool(reorient and rng.integers(2))))
        self.periodic = []  # (node tag, master tag): the high side's nodes onto the low side's
        for axis in periodic:
            for index in itertools.product(*[range(s) for s in shape]):
                if index[axis] == shape[axis] - 1:
                    master = list(index)
                    master[axis] = 0
                    self.periodic.append((int(self.tags[index]), int(self.tags[tuple(master)])))

    def global_index(self, number, local):
        """Global grid index of the file-oriented local point `local` (0..q per axis) of element `number`."""
        e, perm, flips = self.elements[number]
        index = [0] * self.dim
        for d in range(self.dim):
            value = self.q - local[d] if flips[d] else local[d]
            index[perm[d]] = self.q * e[perm[d]] + value
        return tuple(index)

    def element_nodes(self, number):
        """The element's node tags in Gmsh's order."""
        _, nodes = TYPES[(self.dim, self.order)]
        out = []
        for p in gmsh_positions(self.dim, nodes):
            local = tuple(x * self.q // 2 for x in p)
            out.append(int(self.tags[self.global_index(number, local)]))
        return out

    def local_face(self, number, axis, side):
        """gsr's face number (2 * local axis + local side) of the global side (axis, side)."""
        _, perm, flips = self.elements[number]
        d = perm.index(axis)
        return 2 * d + (1 - side if flips[d] else side)

    def boundary_nodes(self, number, axis, side, reverse):
        """Node tags, in Gmsh's order, of the boundary element on side (axis, side) of element `number`."""
        e, _, _ = self.elements[number]
        others = [a for a in range(self.dim) if a != axis]
        if reverse:
            others.reverse()
        _, nodes = TYPES[(self.dim - 1, self.order)]
        out = []
        for p in gmsh_positions(self.dim - 1, nodes):
            index = [0] * self.dim
            index[axis] = self.q * (e[axis] + side)
            for a, x in zip(others, p):
                index[a] = self.q * e[a] + x * self.q // 2
            out.append(int(self.tags[tuple(index)]))
        return out

    # ---- what a reader must find ----
    def expectation(self):
        g = 2 if self.order == 1 else 3
        lines = [f"dim {self.dim} elements {len(self.elements)} geometry {g}"]
        for number in range(len(self.elements)):
            corners = [int(self.tags[self.global_index(number, tuple(self.q * ((c >> a) & 1) for a in range(self.dim)))])
                       for c in range(2 ** self.dim)]
            points = []
            for p in itertools.product(*[range(g)] * self.dim):
                local = tuple(reversed(p))  # x fastest
                xyz = self.xyz[self.global_index(number, tuple(x * self.q // (g - 1) for x in local))]
                points += [repr(float(v)) for v in xyz]
            lines.append(" ".join([str(VOLUME_TAG)] + [str(c) for c in corners] + points))
        faces = sorted((number, self.local_face(number, axis, side), 1 + 2 * axis + side)
                       for number, axis, side, _ in self.boundary)
        lines.append(f"faces {len(faces)}")
        lines += [f"{e} {f} {t}" for e, f, t in faces]
        lines.append(f"periodic {len(self.periodic)}")
        lines += [f"{a} {b}" for a, b in self.periodic]
        names = self.names()
        lines.append(f"names {len(names)}")
        lines += [f"{d} {t} {name}" for d, t, name in names]
        return "\n".join(lines) + "\n"

    def names(self):
        return [(self.dim - 1, 1 + s, SIDE_NAMES[s]) for s in range(2 * self.dim)] + [(self.dim, VOLUME_TAG, "fluid")]


# ---- writing ------------------------------------------------------------------------------------

class Out:
    def __init__(self, binary, big_endian):
        self.binary, self.chunks = binary, []
        self.e = ">" if big_endian else "<"

    def text(self, s):
        self.chunks.append(s.encode())

    def ints(self, values, fmt="i"):  # binary int32 ("i") or size_t ("Q")
        self.chunks.append(struct.pack(self.e + fmt * len(values), *values))

    def doubles(self, values):
        self.chunks.append(struct.pack(self.e + "d" * len(values), *values))

    # 4.1 values: ASCII tokens on one line, or binary
    def v41(self, values, kinds):
        if not self.binary:
            self.text(" ".join(repr(float(v)) if k == "d" else str(int(v)) for v, k in zip(values, kinds)) + "\n")
        else:
            for v, k in zip(values, kinds):
                self.chunks.append(struct.pack(self.e + k, float(v) if k == "d" else int(v)))

    def data(self):
        return b"".join(self.chunks)


def element_list(box, defect):
    """[(tag, type, physical, entity, dim, nodes)] in file order: boundary, points, volume."""
    out = []
    btype, _ = TYPES[(box.dim - 1, box.order)]
    vtype, _ = TYPES[(box.dim, box.order)]
    for number, axis, side, reverse in box.boundary:
        nodes = box.boundary_nodes(number, axis, side, reverse)
        if defect == "unmatched" and not out:
            nodes[0] = int(box.tags[(1,) * box.dim])  # the first element's centre: no face has it
        out.append([0, btype, 1 + 2 * axis + side, 1 + 2 * axis + side, box.dim - 1, nodes])
    out.append([0, 15, 99, 1, 0, [int(box.tags[(0,) * box.dim])]])  # a tagged point: ignored
    if defect != "no-volume":
        for number in range(len(box.elements)):
            out.append([0, vtype, VOLUME_TAG, 1, box.dim, box.element_nodes(number)])
    if defect == "undefined-node":
        out[-1][5][-1] = 10 ** 7 + 3
    if defect == "mixed":  # a hex8 (or quad4) on the first element's corners after the others
        corners = [box.element_nodes(0)[c] for c in range(2 ** box.dim)]
        out.append([0, TYPES[(box.dim, 1)][0], VOLUME_TAG, 1, box.dim, corners])
    if defect == "tets":
        first = [int(t) for t in box.tags.flat[:6]]
        out += [[0, 4, VOLUME_TAG, 1, 3, first[:4]]] * 3 + [[0, 6, VOLUME_TAG, 1, 3, first[:6]]] * 2
    for i, element in enumerate(out):
        element[0] = i + 1
    return out


def write_msh(path, box, version="2.2", binary=False, big_endian=False, defect=None, singles=False):
    """singles: 2.2 binary with every element in a block of its own (as pipe.msh has them)."""
    o = Out(binary, big_endian)
    node_tags = box.tags.flatten(order="F")
    if defect == "duplicate-node":  # the last node takes the second one's tag (in another 4.1 block)
        node_tags = node_tags.copy()
        node_tags[-1] = node_tags[1]
    coords = box.xyz.reshape(-1, 3, order="F")
    elements = element_list(box, defect)
    v = "3.0" if defect == "version" else version
    o.text(f"$MeshFormat\n{v} {1 if binary else 0} 8\n")
    if binary:
        o.ints([1])
        o.text("\n")
    o.text("$EndMeshFormat\n")
    names = box.names()
    o.text(f"$PhysicalNames\n{len(names)}\n" + "".join(f'{d} {t} "{n}"\n' for d, t, n in names) + "$EndPhysicalNames\n")
    o.text("$Comment\nan unknown section, skipped\n$EndComment\n")
    if version == "4.1":
        write_41(o, box, node_tags, coords, elements)
    else:
        write_22(o, box, node_tags, coords, elements, singles)
    data = o.data()
    if defect == "truncated":
        data = data[: len(data) * 2 // 3]
    with open(path, "wb") as f:
        f.write(data)


def write_22(o, box, node_tags, coords, elements, singles=False):
    o.text(f"$Nodes\n{len(node_tags)}\n")
    for tag, xyz in zip(node_tags, coords):
        if o.binary:
            o.ints([int(tag)])
            o.doubles(xyz)
        else:
            o.text(f"{tag} {xyz[0]!r} {xyz[1]!r} {xyz[2]!r}\n")
    if o.binary:
        o.text("\n")
    o.text("$EndNodes\n")
    o.text(f"$Elements\n{len(elements)}\n")
    if o.binary:  # blocks of consecutive elements of one type
        if singles:
            groups = [[e] for e in elements]
        else:
            groups = [list(g) for _, g in itertools.groupby(elements, key=lambda e: e[1])]
        for group in groups:
            o.ints([group[0][1], len(group), 2])
            for tag, _, phys, entity, _, nodes in group:
                o.ints([tag, phys, entity] + nodes)
        o.text("\n")
    else:
        for tag, etype, phys, entity, _, nodes in elements:
            o.text(" ".join(str(x) for x in [tag, etype, 2, phys, entity] + nodes) + "\n")
    o.text("$EndElements\n")
    if box.periodic:  # ASCII also in binary files
        o.text(f"$Periodic\n1\n{box.dim - 1} 2 1\nAffine 1 0 0 1 0 1 0 0 0 0 1 0 0 0 0 1\n{len(box.periodic)}\n")
        o.text("".join(f"{a} {b}\n" for a, b in box.periodic))
        o.text("$EndPeriodic\n")


def write_41(o, box, node_tags, coords, elements):
    dim = box.dim
    # Entities: the sides (dim - 1, tags 1..2d, physical = tag) and the volume (dim, 1, 10).
    counts = [0, 0, 0, 0]
    counts[dim - 1] = 2 * dim
    counts[dim] = 1
    o.text("$Entities\n")
    o.v41(counts, "QQQQ")
    for d in range(4):
        for tag in range(1, counts[d] + 1):
            phys = tag if d == dim - 1 else VOLUME_TAG
            o.v41([tag] + [0.0] * 6 + [1, phys, 0], "i" + "d" * 6 + "QiQ")
    if o.binary:
        o.text("\n")
    o.text("$EndEntities\n")
    # Nodes in two blocks of the volume entity.
    o.text("$Nodes\n")
    half = len(node_tags) // 2
    blocks = [(0, half), (half, len(node_tags))]
    o.v41([len(blocks), len(node_tags), int(node_tags.min()), int(node_tags.max())], "QQQQ")
    for a, b in blocks:
        o.v41([dim, 1, 0, b - a], "iiiQ")
        if o.binary:
            o.ints([int(t) for t in node_tags[a:b]], "Q")
            o.doubles(coords[a:b].flatten())
        else:
            o.text("".join(f"{t}\n" for t in node_tags[a:b]))
            o.text("".join(f"{x!r} {y!r} {z!r}\n" for x, y, z in coords[a:b]))
    if o.binary:
        o.text("\n")
    o.text("$EndNodes\n")
    # Elements: one block per run of (entity dim, entity, type).
    o.text("$Elements\n")
    groups = [list(g) for _, g in itertools.groupby(elements, key=lambda e: (e[4], e[3], e[1]))]
    o.v41([len(groups), len(elements), 1, len(elements)], "QQQQ")
    for group in groups:
        _, etype, _, entity, edim, _ = group[0]
        o.v41([edim, entity, etype, len(group)], "iiiQ")
        for tag, _, _, _, _, nodes in group:
            o.v41([tag] + nodes, "Q" * (1 + len(nodes)))
    if o.binary:
        o.text("\n")
    o.text("$EndElements\n")
    if box.periodic:
        o.text("$Periodic\n")
        o.v41([1], "Q")
        o.v41([dim - 1, 2, 1], "iii")
        affine = [1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        o.v41([16] + affine, "Q" + "d" * 16)
        o.v41([len(box.periodic)], "Q")
        for a, b in box.periodic:
            o.v41([a, b], "QQ")
        if o.binary:
            o.text("\n")
        o.text("$EndPeriodic\n")


# ---- the tests' files ---------------------------------------------------------------------------

FORMATS = [("2.2", False), ("2.2", True), ("4.1", False), ("4.1", True)]


def suite(folder):
    """Every file the reader's tests read: each box in the four formats (plus big-endian binary),
    its expectation, and one file per error."""
    os.makedirs(folder, exist_ok=True)
    boxes = {
        "hex27": Box(3, (3, 2, 2), order=2, reorient=True, shuffle=True, seed=7, periodic=(0,)),
        "hex8": Box(3, (2, 2, 3), order=1, reorient=True, shuffle=True, seed=8, periodic=(2,)),
        "hex20": Box(3, (2, 3, 2), order="s", reorient=True, shuffle=True, seed=9),
        "quad9": Box(2, (4, 3), order=2, reorient=True, shuffle=True, seed=10, periodic=(0, 1)),
        "quad4": Box(2, (3, 4), order=1, reorient=True, shuffle=True, seed=11),
        "quad8": Box(2, (3, 3), order="s", reorient=True, shuffle=False, seed=12),
    }
    for name, box in boxes.items():
        with open(os.path.join(folder, name + ".expect"), "w") as f:
            f.write(box.expectation())
        for version, binary in FORMATS:
            kind = "bin" if binary else "ascii"
            write_msh(os.path.join(folder, f"{name}-{version}-{kind}.msh"), box, version, binary)
        write_msh(os.path.join(folder, f"{name}-4.1-bin-be.msh"), box, "4.1", True, big_endian=True)
        write_msh(os.path.join(folder, f"{name}-2.2-bin-be.msh"), box, "2.2", True, big_endian=True)
        write_msh(os.path.join(folder, f"{name}-2.2-bin-singles.msh"), box, "2.2", True, singles=True)
    small = Box(3, (2, 1, 1), order=2, seed=1)
    defects = ["truncated", "version", "tets", "mixed", "no-volume", "undefined-node", "unmatched", "duplicate-node"]
    for defect in defects:
        for version, binary in [("2.2", False), ("2.2", True), ("4.1", True)]:
            kind = "bin" if binary else "ascii"
            write_msh(os.path.join(folder, f"bad-{defect}-{version}-{kind}.msh"), small, version, binary, defect=defect)
    write_msh(os.path.join(folder, "bad-no-volume-2d.msh"), Box(2, (2, 2), order=2, seed=2), "4.1", False,
              defect="no-volume")
    with open(os.path.join(folder, "bad-empty.msh"), "w") as f:
        f.write("not a mesh\n")
    with open(os.path.join(folder, "bad-version1.msh"), "w") as f:
        f.write("$NOD\n1\n1 0 0 0\n$ENDNOD\n$ELM\n0\n$ENDELM\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?")
    parser.add_argument("--suite", metavar="DIR")
    parser.add_argument("--dim", type=int, default=3, choices=(2, 3))
    parser.add_argument("--n", type=int, nargs="+", default=None)
    parser.add_argument("--version", default="4.1", choices=("2.2", "4.1"))
    parser.add_argument("--binary", action="store_true")
    parser.add_argument("--big-endian", action="store_true")
    parser.add_argument("--order", default="2", choices=("1", "2", "s"), help="s: serendipity (quad8/hex20)")
    parser.add_argument("--periodic", type=int, nargs="*", default=[], help="axes (0, 1, 2) made periodic")
    parser.add_argument("--reorient", action="store_true")
    parser.add_argument("--shuffle", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--expect", metavar="FILE")
    args = parser.parse_args()
    if args.suite:
        suite(args.suite)
        return 0
    if not args.out:
        parser.error("an output file or --suite DIR is needed")
    n = args.n or [2] * args.dim
    if len(n) != args.dim:
        parser.error("--n needs one count per dimension")
    order = "s" if args.order == "s" else int(args.order)
    box = Box(args.dim, n, order, args.reorient, args.shuffle, args.seed, tuple(args.periodic))
    write_msh(args.out, box, args.version, args.binary, args.big_endian)
    if args.expect:
        with open(args.expect, "w") as f:
            f.write(box.expectation())
    return 0


if __name__ == "__main__":
    sys.exit(main())
