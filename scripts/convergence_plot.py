#!/usr/bin/env python3
"""Spectral convergence of gsr-poisson: runs the solver for N = 1..10 on three fixed meshes
and draws max error against N on a log scale into docs/convergence.png (and the numbers
into docs/convergence.csv).

    scripts/convergence_plot.py [--build build] [--out docs]

Needs only the Python standard library: the PNG is rasterised here (lines, markers and a
5x7 pixel font), so the figure can be regenerated on any machine that builds gsr.
"""
import argparse
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import zlib

sys.dont_write_bytecode = True  # scripts/lib/output_paths.py: no __pycache__ in the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from output_paths import refuse_folder, refuse_outputs  # noqa: E402

CASES = [  # label, gsr-mesh arguments, colour
    ("2-D box 2x2", ["--dim", "2", "--elements", "2,2"], (31, 119, 180)),
    ("3-D box 2x2x2", ["--dim", "3", "--elements", "2,2,2"], (214, 39, 40)),
    ("2-D deformed 3x3", ["--dim", "2", "--elements", "3,3", "--deform"], (44, 160, 44)),
]
ORDERS = list(range(1, 11))


def measure(build, workdir):
    solver = os.path.join(build, "examples", "poisson", "gsr-poisson")
    generator = os.path.join(build, "src", "tools", "gsr-mesh")
    results = {}
    for label, mesh_args, _ in CASES:
        for order in ORDERS:
            mesh = os.path.join(workdir, "mesh.h5")
            subprocess.run([generator, "box", "--order", str(order), "-o", mesh] + mesh_args,
                           check=True, capture_output=True)
            out = subprocess.run([solver, mesh, "--json", "--tol", "1e-14", "--max-iter", "5000", "--no-output"],
                                 check=True, capture_output=True, text=True).stdout
            report = json.loads(out)
            results[(label, order)] = (report["max_error"], report["iterations"])
            print("%-18s N=%2d  iterations %4d  max error %.3e" % (label, order, report["iterations"], report["max_error"]))
    return results


# ---- a tiny raster: 5x7 font, lines, markers, PNG -----------------------------------------
FONT = {
    "0": ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
    "1": ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
    "2": ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
    "3": ["11110", "00001", "00001", "01110", "00001", "00001", "11110"],
    "4": ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
    "5": ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],
    "6": ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
    "7": ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
    "8": ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],
    "9": ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
    "a": ["00000", "00000", "01110", "00001", "01111", "10001", "01111"],
    "b": ["10000", "10000", "10110", "11001", "10001", "10001", "11110"],
    "c": ["00000", "00000", "01110", "10000", "10000", "10001", "01110"],
    "d": ["00001", "00001", "01101", "10011", "10001", "10001", "01111"],
    "e": ["00000", "00000", "01110", "10001", "11111", "10000", "01110"],
    "f": ["00110", "01001", "01000", "11100", "01000", "01000", "01000"],
    "g": ["00000", "01111", "10001", "10001", "01111", "00001", "01110"],
    "h": ["10000", "10000", "10110", "11001", "10001", "10001", "10001"],
    "i": ["00100", "00000", "01100", "00100", "00100", "00100", "01110"],
    "k": ["10000", "10000", "10010", "10100", "11000", "10100", "10010"],
    "l": ["01100", "00100", "00100", "00100", "00100", "00100", "01110"],
    "m": ["00000", "00000", "11010", "10101", "10101", "10001", "10001"],
    "n": ["00000", "00000", "10110", "11001", "10001", "10001", "10001"],
    "o": ["00000", "00000", "01110", "10001", "10001", "10001", "01110"],
    "p": ["00000", "00000", "11110", "10001", "11110", "10000", "10000"],
    "r": ["00000", "00000", "10110", "11001", "10000", "10000", "10000"],
    "s": ["00000", "00000", "01110", "10000", "01110", "00001", "11110"],
    "t": ["01000", "01000", "11100", "01000", "01000", "01001", "00110"],
    "u": ["00000", "00000", "10001", "10001", "10001", "10011", "01101"],
    "v": ["00000", "00000", "10001", "10001", "10001", "01010", "00100"],
    "x": ["00000", "00000", "10001", "01010", "00100", "01010", "10001"],
    "y": ["00000", "00000", "10001", "10001", "01111", "00001", "01110"],
    "D": ["11110", "10001", "10001", "10001", "10001", "10001", "11110"],
    "N": ["10001", "11001", "10101", "10011", "10001", "10001", "10001"],
    "P": ["11110", "10001", "10001", "11110", "10000", "10000", "10000"],
    "-": ["00000", "00000", "00000", "11111", "00000", "00000", "00000"],
    "_": ["00000", "00000", "00000", "00000", "00000", "00000", "11111"],
    ":": ["00000", "01100", "01100", "00000", "01100", "01100", "00000"],
    "|": ["00100", "00100", "00100", "00100", "00100", "00100", "00100"],
    "(": ["00010", "00100", "01000", "01000", "01000", "00100", "00010"],
    ")": ["01000", "00100", "00010", "00010", "00010", "00100", "01000"],
    ",": ["00000", "00000", "00000", "00000", "01100", "00100", "01000"],
    ".": ["00000", "00000", "00000", "00000", "00000", "01100", "01100"],
    "=": ["00000", "00000", "11111", "00000", "11111", "00000", "00000"],
    " ": ["00000"] * 7,
}


class Canvas:
    def __init__(self, width, height):
        self.width, self.height = width, height
        self.pixels = bytearray([255] * (width * height * 3))

    def dot(self, x, y, colour):
        if 0 <= x < self.width and 0 <= y < self.height:
            i = 3 * (y * self.width + x)
            self.pixels[i:i + 3] = bytes(colour)

    def rect(self, x0, y0, x1, y1, colour):
        for y in range(int(y0), int(y1) + 1):
            for x in range(int(x0), int(x1) + 1):
                self.dot(x, y, colour)

    def line(self, x0, y0, x1, y1, colour, width=1):
        steps = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        half = width // 2
        for s in range(steps + 1):
            t = s / steps
            x, y = round(x0 + t * (x1 - x0)), round(y0 + t * (y1 - y0))
            self.rect(x - half, y - half, x - half + width - 1, y - half + width - 1, colour)

    def disc(self, cx, cy, radius, colour):
        for y in range(-radius, radius + 1):
            for x in range(-radius, radius + 1):
                if x * x + y * y <= radius * radius:
                    self.dot(round(cx) + x, round(cy) + y, colour)

    def text(self, x, y, string, colour=(0, 0, 0), scale=2, anchor="left"):
        width = len(string) * 6 * scale
        if anchor == "right":
            x -= width
        elif anchor == "centre":
            x -= width // 2
        for k, ch in enumerate(string):
            glyph = FONT[ch]
            for row, bits in enumerate(glyph):
                for col, bit in enumerate(bits):
                    if bit == "1":
                        px, py = x + (6 * k + col) * scale, y + row * scale
                        self.rect(px, py, px + scale - 1, py + scale - 1, colour)

    def png(self, path):
        raw = b"".join(b"\x00" + bytes(self.pixels[3 * y * self.width:3 * (y + 1) * self.width])
                       for y in range(self.height))

        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n")
            f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)))
            f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
            f.write(chunk(b"IEND", b""))


def draw(results, path, cases=CASES, orders=ORDERS, title="gsr-poisson: max error against polynomial order N"):
    """Max error against N, one line per case ((label, ..., colour) tuples), into a PNG."""
    width, height = 900, 620
    left, right, top, bottom = 110, 870, 60, 540
    decades = (-14, 0)
    canvas = Canvas(width, height)

    def px(order):
        return left + (order - orders[0]) / (orders[-1] - orders[0]) * (right - left)

    def py(error):
        e = math.log10(max(error, 10.0 ** decades[0]))
        return bottom - (e - decades[0]) / (decades[1] - decades[0]) * (bottom - top)

    grey, black = (220, 220, 220), (0, 0, 0)
    for k in range(decades[0], decades[1] + 1):
        y = round(py(10.0 ** k))
        canvas.line(left, y, right, y, grey)
        if k % 2 == 0:
            canvas.text(left - 10, y - 7, "1e%d" % k, anchor="right")
    for order in orders:
        x = round(px(order))
        canvas.line(x, top, x, bottom, grey)
        canvas.text(x, bottom + 12, str(order), anchor="centre")
    canvas.line(left, top, left, bottom, black, 2)
    canvas.line(left, bottom, right, bottom, black, 2)
    canvas.text(width // 2, 18, title, anchor="centre")
    canvas.text((left + right) // 2, bottom + 42, "polynomial order N", anchor="centre")
    canvas.text(left + 8, top + 6, "max |u - u_exact|", anchor="left")

    canvas.rect(right - 310, top + 12, right - 12, top + 22 + 30 * len(cases), (255, 255, 255))
    for index, (label, _, colour) in enumerate(cases):
        points = [(px(n), py(results[(label, n)][0])) for n in orders]
        for (x0, y0), (x1, y1) in zip(points, points[1:]):
            canvas.line(x0, y0, x1, y1, colour, 3)
        for x, y in points:
            canvas.disc(x, y, 5, colour)
        ly = top + 20 + 30 * index
        canvas.line(right - 300, ly + 7, right - 260, ly + 7, colour, 3)
        canvas.disc(right - 280, ly + 7, 5, colour)
        canvas.text(right - 250, ly, label)
    canvas.png(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--build", default=os.path.join(repo, "build"))
    parser.add_argument("--out", default=os.path.join(repo, "docs"))
    args = parser.parse_args()
    refuse_folder("convergence_plot", "--out", args.out, must_exist=True)
    refuse_outputs("convergence_plot", [("--out", os.path.join(args.out, name))
                                        for name in ("convergence.csv", "convergence.png")])
    with tempfile.TemporaryDirectory() as workdir:
        results = measure(args.build, workdir)
    with open(os.path.join(args.out, "convergence.csv"), "w") as f:
        f.write("case,order,max_error,iterations\n")
        for label, _, _ in CASES:
            for n in ORDERS:
                f.write("%s,%d,%.6e,%d\n" % (label, n, *results[(label, n)]))
    draw(results, os.path.join(args.out, "convergence.png"))
    print("wrote %s and %s" % (os.path.join(args.out, "convergence.png"), os.path.join(args.out, "convergence.csv")))


if __name__ == "__main__":
    main()
