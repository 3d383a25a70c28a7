#!/usr/bin/env python3
"""Helpers of make_reference.sh (tests/import/nek_reference).

  merge RUN_DIR OUT_PREFIX KEY=VALUE...
      Gathers the files nekref.ids.<rank> and nekref.xyz.<rank> that nekref.usr wrote in
      RUN_DIR (one line per local element: global element id, then its lx1^ndim values)
      into OUT_PREFIX.ids and OUT_PREFIX.xyz, one line per element in global element order,
      after header lines "# key: value" (the first two KEY=VALUE pairs, ndim, nelgt, lx1,
      ngv, the other pairs).
  check OUT_PREFIX [--periodic AXES]
      Checks that two nodes have the same id exactly when they have the same coordinates,
      the coordinates taken modulo the extent of the mesh along each periodic axis (AXES:
      letters of x, y, z); that the ids are 1..ngv, each used; that the corners carry the
      vertex ids of OUT_PREFIX.ma2 (when there); prints a summary.
  same-groups OUT_PREFIX RUN_DIR
      Checks that the ids of another run (RUN_DIR, e.g. at another rank count) group the
      nodes exactly as OUT_PREFIX.ids does (the numbers themselves may differ).
Exit status 1 when a check fails, 2 on bad input.
"""
import glob
import gzip
import io
import os
import sys

import numpy as np


def die(msg, code=2):
    print(f"nek_reference: ERROR: {msg}", file=sys.stderr)
    sys.exit(code)


def open_text(path, mode="rt"):
    if not path.endswith(".gz"):
        return open(path, mode)
    if mode == "wt":  # no time stamp: the same content gives the same bytes
        return io.TextIOWrapper(gzip.GzipFile(path, "wb", mtime=0), encoding="ascii")
    return gzip.open(path, mode)


def read_rank_files(run_dir, kind):
    """{global element id: list of value strings} and the rank files' '#' header fields."""
    files = sorted(glob.glob(os.path.join(run_dir, f"nekref.{kind}.*")))
    if not files:
        die(f"no nekref.{kind}.* in {run_dir}: did nekref.usr run there?")
    rows, header = {}, None
    for f in files:
        with open(f) as fh:
            for line in fh:
                if line.startswith("#"):
                    words = line[1:].split()
                    half = len(words) // 2
                    header = dict(zip(words[:half], words[half:]))
                    continue
                words = line.split()
                if not words:
                    continue
                eg = int(words[0])
                if eg in rows:
                    die(f"{f}: element {eg} written twice")
                rows[eg] = words[1:]
    return rows, header


def merge(run_dir, prefix, pairs):
    ids, header = read_rank_files(run_dir, "ids")
    xyz, _ = read_rank_files(run_dir, "xyz")
    if header is None:
        die(f"{run_dir}/nekref.ids.*: no '# ngv ndim lx1 nelgt np' line")
    ndim, lx1, nelgt = int(header["ndim"]), int(header["lx1"]), int(header["nelgt"])
    n = lx1**ndim
    if sorted(ids) != list(range(1, nelgt + 1)) or sorted(xyz) != sorted(ids):
        die(f"{run_dir}: the rank files do not hold each of the {nelgt} elements once")
    meta = [kv.split("=", 1) for kv in pairs]
    meta[2:2] = [["ndim", str(ndim)], ["nelgt", str(nelgt)], ["lx1", str(lx1)], ["ngv", header["ngv"]]]
    head = "".join(f"# {k}: {v}\n" for k, v in meta)
    for eg in range(1, nelgt + 1):
        if len(ids[eg]) != n or len(xyz[eg]) != ndim * n:
            die(f"{run_dir}: element {eg} has {len(ids[eg])} ids and {len(xyz[eg])} coordinates")
    with open_text(prefix + ".ids", "wt") as out:
        out.write(head)
        out.write(f"# layout: one line per element (global order); its {n} node ids, i fastest\n")
        for eg in range(1, nelgt + 1):
            out.write(" ".join(ids[eg]) + "\n")
    xyz_path = prefix + ".xyz"
    if os.path.exists(xyz_path + ".gz") or nelgt * n * ndim * 23 > 300_000:
        xyz_path += ".gz"
    with open_text(xyz_path, "wt") as out:
        out.write(head)
        names = "x y z"[: 2 * ndim - 1]
        out.write(f"# layout: one line per element (global order); {names} of each of its {n} nodes, i fastest\n")
        for eg in range(1, nelgt + 1):
            out.write(" ".join("%.15e" % float(v.replace("D", "E")) for v in xyz[eg]) + "\n")
    print(f"nek_reference: wrote {prefix}.ids and {xyz_path}")


def load(prefix):
    """(header dict, ids [nelgt, n], coordinates [nelgt, n, ndim])."""
    def read(path):
        header, rows = {}, []
        with open_text(path) as fh:
            for line in fh:
                if line.startswith("#"):
                    key, _, value = line[1:].partition(":")
                    header[key.strip()] = value.strip()
                elif line.strip():
                    rows.append(line.split())
        return header, rows

    header, id_rows = read(prefix + ".ids")
    xyz_path = prefix + ".xyz" if os.path.exists(prefix + ".xyz") else prefix + ".xyz.gz"
    _, xyz_rows = read(xyz_path)
    ndim, lx1 = int(header["ndim"]), int(header["lx1"])
    ids = np.array(id_rows, dtype=np.int64)
    xyz = np.array(xyz_rows, dtype=float).reshape(len(xyz_rows), lx1**ndim, ndim)
    return header, ids, xyz


def check(prefix, periodic):
    header, ids, xyz = load(prefix)
    ndim = int(header["ndim"])
    ngv = int(header["ngv"])
    failures = []
    flat_ids = ids.ravel()
    pts = xyz.reshape(-1, ndim)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    extent = hi - lo
    period = np.zeros(ndim)
    for axis in periodic:
        period["xyz".index(axis)] = extent["xyz".index(axis)]
    tol = 1e-9 * float(extent.max())

    def delta(a, b):
        d = a - b
        for k in range(ndim):
            if period[k] > 0:
                d[..., k] -= period[k] * np.round(d[..., k] / period[k])
        return np.abs(d).max(axis=-1)

    if flat_ids.min() < 1:
        failures.append(f"{np.count_nonzero(flat_ids < 1)} ids below 1 (interiors not numbered?)")
    used = np.unique(flat_ids)
    if used.size != ngv or used[0] != 1 or used[-1] != ngv:
        failures.append(f"the ids are not 1..{ngv} each used: {used.size} distinct, {used[0]}..{used[-1]}")
    # Same id -> same place: every node against the first node of its id.
    order = np.argsort(flat_ids, kind="stable")
    sid = flat_ids[order]
    first = np.r_[0, np.flatnonzero(np.diff(sid)) + 1]
    rep_of = np.repeat(first, np.diff(np.r_[first, sid.size]))
    spread = delta(pts[order], pts[order][rep_of])
    bad = spread > tol
    if bad.any():
        failures.append(f"{np.count_nonzero(bad)} nodes lie away from other nodes of their id "
                        f"(largest distance {spread.max():.3e}), e.g. id {sid[np.argmax(spread)]}")
    # Different ids -> different places: the ids' first nodes against each other.
    reps = pts[order][first]
    close_pairs = 0
    for start in range(0, reps.shape[0], 512):
        d = delta(reps[start:start + 512, None, :], reps[None, :, :])
        close = d <= tol
        close[np.arange(close.shape[0]), np.arange(start, start + close.shape[0])] = False
        close_pairs += int(np.count_nonzero(close))
    if close_pairs:
        failures.append(f"{close_pairs // 2} pairs of distinct ids sit at the same place")
    # The corners carry genmap's vertex ids (.ma2 records: partition, then the 2^ndim vertex
    # ids in lexicographic corner order), which set_vert copies.
    ma2 = prefix + ".ma2"
    if os.path.exists(ma2):
        with open(ma2, "rb") as fh:
            raw = fh.read()
        nv = 2**ndim
        rec = np.frombuffer(raw[136:], dtype="<i4").reshape(-1, 1 + nv)
        m = int(header["lx1"]) - 1
        corner = [i * m + j * m * (m + 1) + k * m * (m + 1) ** 2
                  for k in range(ndim - 1) for j in range(2) for i in range(2)]
        if rec.shape[0] != ids.shape[0] or not np.array_equal(ids[:, corner], rec[:, 1:]):
            failures.append(f"the corner ids differ from the vertex ids of {ma2}")
    per_node = np.bincount(flat_ids)[1:]
    print(f"nek_reference: {prefix}: {ids.shape[0]} elements, {flat_ids.size} nodes, {ngv} ids "
          f"(shared by up to {per_node.max()} nodes), extent {np.array2string(extent, precision=6)}"
          f"{', periodic in ' + periodic if periodic else ''}, tolerance {tol:.1e}")
    for f in failures:
        print(f"nek_reference: FAIL: {prefix}: {f}")
    return not failures


def same_groups(prefix, run_dir):
    _, ids, _ = load(prefix)
    rows, header = read_rank_files(run_dir, "ids")
    other = np.array([rows[eg] for eg in range(1, ids.shape[0] + 1)], dtype=np.int64)
    a, b = ids.ravel(), other.ravel()
    # The groupings agree iff the pairs (a, b) are a bijection between the ids of a and of b.
    pairs = np.unique(np.stack([a, b], axis=1), axis=0)
    ok = pairs.shape[0] == np.unique(a).size == np.unique(b).size
    print(f"nek_reference: {prefix} against {run_dir} (np {header.get('np')}): "
          f"{np.unique(a).size} and {np.unique(b).size} ids, {pairs.shape[0]} pairs: "
          f"{'same groups' if ok else 'DIFFERENT groups'}"
          f"{'' if (a != b).any() else ' (and the same numbers)'}")
    return ok


def main(argv):
    if len(argv) < 3:
        die(__doc__)
    cmd = argv[1]
    if cmd == "merge" and len(argv) >= 4:
        merge(argv[2], argv[3], argv[4:])
        return 0
    if cmd == "check":
        periodic = ""
        if len(argv) == 5 and argv[3] == "--periodic":
            periodic = argv[4]
        elif len(argv) != 3:
            die(__doc__)
        if any(c not in "xyz" for c in periodic):
            die(f"--periodic wants letters of xyz, not '{periodic}'")
        return 0 if check(argv[2], periodic) else 1
    if cmd == "same-groups" and len(argv) == 4:
        return 0 if same_groups(argv[2], argv[3]) else 1
    die(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
