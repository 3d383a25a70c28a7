#!/usr/bin/python3
"""bad_inputs.py - one file per error of issue 43's item 7, for `gsr-mesh import` end to end.

    cases(folder) -> [Case]: writes the files into `folder` and returns, for each, what the
    import must say: the catalogued identifier (docs/errors.md, "## Mesh import"), the
    words of its message that must appear (the file's path is always among them) and,
    where it applies, the element (1-based) the message must name.

The defects are made here from valid meshes written by re2_writer.py and msh_writer.py, each
by hand (a corner moved, a record dropped, a count forged), so what is wrong is known
independently of the importer.
"""
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import msh_writer  # noqa: E402
import re2_writer  # noqa: E402


class Case:
    def __init__(self, what, path, identifier, words=(), element=None, extra=()):
        self.what, self.path, self.identifier = what, path, identifier
        self.words, self.element, self.extra = list(words), element, tuple(extra)


def _grid_box(n, tags=True, periodic=()):
    """A box in file order = grid order (no shuffle, no re-orientation): element e (0-based) is
    grid cell e, x fastest, its prenek corners in the box's own order."""
    return re2_writer.box(n, periodic=periodic, tags=tags)


def _replace_header(data, text):
    return text.ljust(80).encode("ascii") + data[80:]


def cases(folder):
    os.makedirs(folder, exist_ok=True)
    out = []

    def path(name):
        return os.path.join(folder, name)

    # ---- .re2 --------------------------------------------------------------------------
    good = _grid_box((3, 3))
    data = re2_writer.re2_bytes(good, "#v002")

    p = path("truncated.re2")
    open(p, "wb").write(data[:-50])
    out.append(Case("a truncated .re2", p, "E-IMPORT-RE2-TRUNCATED"))

    p = path("corrupt.re2")  # the byte-order word is not 6.54321 in either order
    open(p, "wb").write(data[:80] + struct.pack("<f", 1.5) + data[84:])
    out.append(Case("a corrupt .re2 (no 6.54321)", p, "E-IMPORT-RE2-HEADER"))

    p = path("version.re2")
    open(p, "wb").write(_replace_header(data, "#v009%9d%3d%9d this is the hdr" % (9, 2, 9)))
    out.append(Case("an unknown .re2 version", p, "E-IMPORT-RE2-VERSION", ["#v009"]))

    p = path("overflow.re2")  # 4e13 elements: (64+1)^3 ids each pass 2^63
    v4 = re2_writer.re2_bytes(_grid_box((2, 2, 2)), "#v004")
    open(p, "wb").write(_replace_header(v4, "#v004%16d%3d%16d%4d hdr" % (40000000000000, 3, 40000000000000, 1)))
    out.append(Case("a forged .re2 element count whose ids pass 2^63", p, "E-IMPORT-RE2-OVERFLOW",
                    ["40000000000000"]))

    # A degenerate element by its vertex ids: element 5's .ma2 gives one id at two corners.
    mesh = _grid_box((3, 3))
    p = path("repeated.re2")
    re2_writer.write_re2(p, mesh)
    lex = mesh.lex_vertices.copy()
    lex[4, 3] = lex[4, 0]
    mesh.lex_vertices = lex
    re2_writer.write_vertices(path("repeated.ma2"), mesh)
    out.append(Case("a repeated vertex (.ma2)", p, "E-IMPORT-REPEATED-VERTEX", element=5))

    # An inverted element: element 1's corner at (0, 1/3) (prenek corner 4) pulled to
    # (0.3, 0.05), across the diagonal: the Jacobian is negative there, positive at (0, 0).
    mesh = _grid_box((3, 3))
    corners = mesh.corners.copy()
    assert np.allclose(corners[0, 3], [0, 1 / 3])
    corners[0, 3] = [0.3, 0.05]
    mesh.corners = corners
    p = path("inverted.re2")
    re2_writer.write_re2(p, mesh)
    out.append(Case("an inverted element", p, "E-IMPORT-INVERTED-ELEMENT", element=1))

    # A degenerate element by its geometry: element 1's corner (0, 1/3) moved onto the line
    # through its corners (0, 0) and (1/3, 1/3): a zero Jacobian there.
    mesh = _grid_box((3, 3))
    corners = mesh.corners.copy()
    corners[0, 3] = [1 / 6, 1 / 6]
    mesh.corners = corners
    p = path("flat.re2")
    re2_writer.write_re2(p, mesh)
    out.append(Case("a degenerate element (zero Jacobian)", p, "E-IMPORT-DEGENERATE-ELEMENT", element=1))

    # An element given twice: element 2 (cell (1, 0)) written again as element 10.
    mesh = _grid_box((3, 3))
    corners = np.concatenate([mesh.corners, mesh.corners[1:2]])
    p = path("twice.re2")
    re2_writer.write_re2(p, re2_writer.Mesh(2, corners, fields=mesh.fields))
    out.append(Case("an element given twice", p, "E-IMPORT-SAME-VERTICES", ["elements 2 and 10"]))

    # A face shared by three elements: a tenth element on element 1's top edge (which element
    # 4 shares), reaching half way up element 4 (prenek corners, counter-clockwise).
    mesh = _grid_box((3, 3))
    third = 1.0 / 3.0
    extra = np.array([[[0.0, third], [third, third], [third, 0.5], [0.0, 0.5]]])
    corners = np.concatenate([mesh.corners, extra])
    p = path("three.re2")
    re2_writer.write_re2(p, re2_writer.Mesh(2, corners, fields=mesh.fields))
    out.append(Case("a face shared by three elements", p, "E-IMPORT-FACE-THREE-ELEMENTS", ["elements 1, 4 and 10"]))

    # An E face with no neighbour: element 1's W record on its y- face dropped.
    mesh = _grid_box((3, 3))
    field = [r for r in mesh.fields[0] if not (r[0] == 1 and r[1] == 1)]
    assert len(field) == len(mesh.fields[0]) - 1
    mesh.fields = [field]
    p = path("open_face.re2")
    re2_writer.write_re2(p, mesh)
    out.append(Case("a face without a record that no element shares", p, "E-IMPORT-BOUNDARY-OPEN-FACE",
                    element=1))

    # Periodic pairs that do not match: a box periodic in x whose right side's vertex at
    # y = 1/3 moved to y = 0.45 (in every element that has it): the P faces there are no
    # translation of their partners on the left side.
    mesh = _grid_box((3, 3), periodic=(0,))
    corners = mesh.corners.copy()
    at = np.all(np.isclose(corners, [1.0, 1 / 3]), axis=-1)
    assert at.sum() == 2
    corners[at] = [1.0, 0.45]
    mesh.corners = corners
    p = path("periodic.re2")
    re2_writer.write_re2(p, mesh)
    out.append(Case("periodic faces that do not match", p, "E-IMPORT-PERIODIC-MISMATCH"))

    # A P record that its partner does not answer: element 1's y- face (its W record) points
    # at element 3's y+... the partner keeps its W record.
    mesh = _grid_box((3, 3))
    field = [r if not (r[0] == 1 and r[1] == 1) else (1, 1, [7.0, 3.0, 0, 0, 0], "P") for r in mesh.fields[0]]
    mesh.fields = [field]
    p = path("reciprocal.re2")
    re2_writer.write_re2(p, mesh)
    out.append(Case("a P record its partner does not answer", p, "E-IMPORT-PERIODIC-RECIPROCAL", element=1))

    # Two records for one face: element 1's y- face has its W record twice.
    mesh = _grid_box((3, 3))
    field = list(mesh.fields[0])
    field.insert(0, next(r for r in field if r[0] == 1 and r[1] == 1))
    mesh.fields = [field]
    p = path("two_records.re2")
    re2_writer.write_re2(p, mesh)
    out.append(Case("two records for one face", p, "E-IMPORT-BOUNDARY-TWO-RECORDS", element=1))

    # An E record naming a partner that is not the face found: element 1's r+ face (prenek
    # face 2) is element 2's r- face; its record says element 3's (prenek face 4).
    mesh = _grid_box((3, 3))
    mesh.fields = [sorted(mesh.fields[0] + [(1, 2, [3.0, 4.0, 0, 0, 0], "E")], key=lambda r: (r[0], r[1]))]
    p = path("partner.re2")
    re2_writer.write_re2(p, mesh)
    out.append(Case("an E record naming another face than the one shared", p, "E-IMPORT-BOUNDARY-PARTNER",
                    ["element 2 face r-", "element 3 face r-"], element=1))

    # ---- .msh --------------------------------------------------------------------------
    # $Periodic pairs that do not match: a box periodic in x whose first and last pairs have
    # their masters swapped, so that element 1's x- face meets no face once they are joined.
    box = msh_writer.Box(3, (3, 2, 2), order=1, periodic=(0,))
    pairs = list(box.periodic)
    (a, ma), (b, mb) = pairs[0], pairs[-1]
    pairs[0], pairs[-1] = (a, mb), (b, ma)
    box.periodic = pairs
    p = path("periodic.msh")
    msh_writer.write_msh(p, box, "4.1", False)
    out.append(Case("$Periodic pairs that do not match", p, "E-IMPORT-MSH-PERIODIC", element=1))

    small = msh_writer.Box(3, (2, 1, 1), order=2, seed=1)
    for defect, identifier, words in [
        ("truncated", "E-IMPORT-MSH-CORRUPT", []),
        ("version", "E-IMPORT-MSH-VERSION", ["3.0"]),
        ("tets", "E-IMPORT-MSH-TYPES", ["3 tetrahedra", "2 prisms"]),
        ("mixed", "E-IMPORT-MSH-MIXED", ["1 of type 5", "2 of type 12"]),
        ("no-volume", "E-IMPORT-MSH-NO-VOLUME", []),
        ("undefined-node", "E-IMPORT-MSH-NODE", ["10000003"]),
        ("unmatched", "E-IMPORT-MSH-BOUNDARY", []),
    ]:
        for version, binary in (("2.2", False), ("4.1", True)):
            p = path("%s-%s%s.msh" % (defect, version, "-bin" if binary else ""))
            msh_writer.write_msh(p, small, version, binary, defect=defect)
            out.append(Case("a .msh: %s (%s%s)" % (defect, version, " binary" if binary else ""), p, identifier,
                            words))

    # A folder named like a mesh.
    p = path("folder.msh")
    os.makedirs(p, exist_ok=True)
    out.append(Case("a folder named .msh", p, "E-IMPORT-MSH-OPEN", ["it is a folder"]))

    # A hexahedron with one node at two corners (its corner 8 set to its corner 1); the
    # boundary elements left out, so that no face of theirs goes unmatched first.
    text = _ascii_msh(msh_writer.Box(3, (2, 1, 1), order=1))
    lines = _without_boundary(text.split("\n"))
    at = _element_line(lines, 5, 2)  # the second hex8: Gmsh tag and 8 nodes after 2 tags
    fields = lines[at].split()
    fields[-1] = fields[5]
    lines[at] = " ".join(fields)
    p = path("repeated.msh")
    open(p, "w").write("\n".join(lines))
    out.append(Case("a .msh hexahedron with a repeated node", p, "E-IMPORT-REPEATED-VERTEX", element=2))

    # An element given twice: the first hexahedron written again.
    lines = text.split("\n")
    first = _element_line(lines, 5, 1)
    count_at = lines.index("$Elements") + 1
    lines[count_at] = str(int(lines[count_at]) + 1)
    copy = lines[first].split()
    copy[0] = "999"
    lines.insert(first + 1, " ".join(copy))
    p = path("three.msh")
    open(p, "w").write("\n".join(lines))
    out.append(Case("a .msh hexahedron given twice", p, "E-IMPORT-SAME-VERTICES", ["have the same vertices"]))

    # A $Elements count forged to 2^62: the reader must refuse it, not reserve for it.
    lines = text.split("\n")
    lines[lines.index("$Elements") + 1] = str(2 ** 62)
    p = path("count.msh")
    open(p, "w").write("\n".join(lines))
    out.append(Case("a .msh with a forged element count", p, "E-IMPORT-MSH-CORRUPT", [str(2 ** 62)]))
    return out


def _ascii_msh(box):
    """The box as an ASCII MSH 2.2 file's text."""
    with tempfile.TemporaryDirectory() as folder:
        name = os.path.join(folder, "box.msh")
        msh_writer.write_msh(name, box, "2.2", False)
        return open(name).read()


def _without_boundary(lines):
    """The lines of an ASCII 2.2 file without its boundary elements and points (types 3, 15)."""
    start, end = lines.index("$Elements") + 2, lines.index("$EndElements")
    kept = [line for line in lines[start:end] if int(line.split()[1]) not in (3, 15)]
    return lines[:start - 1] + [str(len(kept))] + kept + lines[end:]


def _element_line(lines, gmsh_type, nth):
    """Index of the nth (1-based) element line of type `gmsh_type` in an ASCII 2.2 file."""
    start = lines.index("$Elements") + 2
    seen = 0
    for i in range(start, lines.index("$EndElements")):
        fields = lines[i].split()
        if int(fields[1]) == gmsh_type:
            seen += 1
            if seen == nth:
                return i
    raise ValueError("no such element")


if __name__ == "__main__":
    for case in cases(sys.argv[1]):
        print(case.identifier, case.path, case.element, case.words)
