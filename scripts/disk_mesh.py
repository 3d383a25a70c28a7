#!/usr/bin/env python3
"""Writes meshes/disk.msh: an unstructured quadrilateral mesh of the unit disk (Gmsh 2.2,
ASCII), the source mesh of gsr-poisson's solve on an imported mesh (docs/examples.md).

    scripts/disk_mesh.py [--out meshes/disk.msh]

An O-grid: a 2 x 2 block of elements in the square [-0.4, 0.4]^2 and, between each side of
the square and the circle, a block of 2 x 2 elements (along the side x outward), 20 second-
order quadrilaterals (quad9) in all. The four corners of the square are vertices of three
elements, so the mesh is not a structured grid. Nodes come from the blending map
P(rho, t) = (1 - rho) P_square(t) + rho P_circle(t), so the outer elements are curved and
the middle nodes of the circle's edges lie on it (the importer then draws each edge as the
parabola through its three nodes). Some elements are written with their
corners in clockwise order (mirrored, a negative Jacobian) and some starting from another
corner, as meshes made elsewhere may hold them. The circle's edges are line3 elements with
the physical tag 1 ("top", y > 0) or 2 ("bottom"); the elements have the physical tag 3
("disk"). Standard library only.
"""
import argparse
import math
import os
import sys

sys.dont_write_bytecode = True  # scripts/lib/output_paths.py: no __pycache__ in the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from output_paths import refuse_outputs  # noqa: E402

HALF_SIDE = 0.4  # the inner square is [-HALF_SIDE, HALF_SIDE]^2
SPLIT = 2        # elements along each side of the square, and outward


class Nodes:
    """Node tags (1, 2, ...) by position: a point two elements compute alike is one node."""

    def __init__(self):
        self.tags, self.points = {}, []

    def tag(self, x, y):
        key = (round(x, 12) + 0.0, round(y, 12) + 0.0)
        if key not in self.tags:
            self.points.append((x, y))
            self.tags[key] = len(self.points)
        return self.tags[key]


def square_point(first, t):
    """The point at fraction t along the side of the square that the rays at angles `first`
    to `first` + pi/2 cross, counter-clockwise (evenly, as the square's own elements split it)."""
    x0, y0 = math.sqrt(2) * HALF_SIDE * math.cos(first), math.sqrt(2) * HALF_SIDE * math.sin(first)
    x1, y1 = -y0, x0  # the next corner, a quarter turn on
    return x0 + t * (x1 - x0), y0 + t * (y1 - y0)


def quad9(nodes, point, u0, u1, v0, v1):
    """Node tags of the quad9 on [u0, u1] x [v0, v1] of the map `point`, counter-clockwise:
    corners, edge midpoints (01, 12, 23, 30), centre (Gmsh's order)."""
    um, vm = (u0 + u1) / 2, (v0 + v1) / 2
    where = [(u0, v0), (u1, v0), (u1, v1), (u0, v1), (um, v0), (u1, vm), (um, v1), (u0, vm), (um, vm)]
    return [nodes.tag(*point(u, v)) for u, v in where]


def reoriented(element, index):
    """Element `index` as the file holds it: every third mirrored (corners clockwise), every
    third but one starting from its second corner, the rest as made."""
    c, m, centre = element[:4], element[4:8], element[8]
    if index % 3 == 1:  # mirrored: corners 0 3 2 1, edges 30 23 12 01
        return [c[0], c[3], c[2], c[1], m[3], m[2], m[1], m[0], centre]
    if index % 3 == 2:  # rotated: corners 1 2 3 0, edges 12 23 30 01
        return [c[1], c[2], c[3], c[0], m[1], m[2], m[3], m[0], centre]
    return element


def build():
    nodes = Nodes()
    elements, arcs = [], []
    h = 2 * HALF_SIDE / SPLIT
    for j in range(SPLIT):  # the inner square
        for i in range(SPLIT):
            x0, y0 = -HALF_SIDE + i * h, -HALF_SIDE + j * h
            elements.append(quad9(nodes, lambda u, v: (u, v), x0, x0 + h, y0, y0 + h))
    for block in range(4):  # right, top, left, bottom
        first = (2 * block - 1) * math.pi / 4

        def point(rho, t, first=first):  # rho outward, t counter-clockwise: a right-handed frame
            angle = first + t * math.pi / 2
            sx, sy = square_point(first, t)
            return (1 - rho) * sx + rho * math.cos(angle), (1 - rho) * sy + rho * math.sin(angle)

        for k in range(SPLIT):  # outward
            for i in range(SPLIT):  # along the side
                t0, r0 = i / SPLIT, k / SPLIT
                elements.append(quad9(nodes, point, r0, r0 + 1 / SPLIT, t0, t0 + 1 / SPLIT))
                if k == SPLIT - 1:  # the circle: corners 1 and 2 of this element, midpoint 5
                    e = elements[-1]
                    mid_angle = first + (t0 + 0.5 / SPLIT) * math.pi / 2
                    arcs.append(([e[1], e[2], e[5]], 1 if math.sin(mid_angle) > 0 else 2))
    return nodes, [reoriented(e, n) for n, e in enumerate(elements)], arcs


def write(path, nodes, elements, arcs):
    with open(path, "w") as f:
        f.write("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n")
        f.write('$PhysicalNames\n3\n1 1 "top"\n1 2 "bottom"\n2 3 "disk"\n$EndPhysicalNames\n')
        f.write("$Nodes\n%d\n" % len(nodes.points))
        for tag, (x, y) in enumerate(nodes.points, 1):
            f.write("%d %.17g %.17g 0\n" % (tag, x, y))
        f.write("$EndNodes\n$Elements\n%d\n" % (len(arcs) + len(elements)))
        number = 0
        for arc, tag in arcs:  # line3: ends, then middle; tags: physical, elementary
            number += 1
            f.write("%d 8 2 %d %d %s\n" % (number, tag, tag, " ".join(map(str, arc))))
        for element in elements:  # quad9
            number += 1
            f.write("%d 10 2 3 3 %s\n" % (number, " ".join(map(str, element))))
        f.write("$EndElements\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--out", default=os.path.join(repo, "meshes", "disk.msh"))
    args = parser.parse_args()
    refuse_outputs("disk_mesh", [("--out", args.out)])
    nodes, elements, arcs = build()
    write(args.out, nodes, elements, arcs)
    print("wrote %s: %d quad9 elements, %d nodes, %d boundary edges" % (args.out, len(elements), len(nodes.points),
                                                                         len(arcs)))


if __name__ == "__main__":
    main()
