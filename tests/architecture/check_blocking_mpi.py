#!/usr/bin/env python3
"""check_blocking_mpi.py: every MPI call of gsr that waits on other ranks is watched.

Usage: check_blocking_mpi.py ROOT [ALLOWED]

Scans the C, C++ and Fortran sources under ROOT/src and ROOT/fortran for MPI calls that
block until other ranks take part: blocking collectives, communicator constructors,
blocking point-to-point calls and waits, collective MPI-IO, and HDF5's collective file
calls. gsr's rule (docs/errors.md, E-SETUP-TIMEOUT): such a call either goes through the
polled helpers of src/mpi/ (a non-blocking call waited for against GSR_TIMEOUT, which
hears a failing rank's notice) or is listed in ALLOWED (default: blocking_mpi_allowed.txt
beside this script) with the reason it may block. The check fails, naming file and line,
on a blocking call that is not listed, and on a listed one that is no longer there (a stale
list hides nothing, but it misleads the reader).
"""
import pathlib
import re
import sys

# MPI calls that return only when other ranks have done their part. The non-blocking forms
# (MPI_I...) and the tests (MPI_Test, MPI_Improbe, MPI_Iprobe) are what the watched helpers
# poll with, so they are not here.
BLOCKING_MPI = [
    # collectives
    "MPI_Allreduce", "MPI_Reduce", "MPI_Bcast", "MPI_Barrier", "MPI_Allgather", "MPI_Allgatherv",
    "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Alltoall", "MPI_Alltoallv",
    "MPI_Alltoallw", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Exscan",
    "MPI_Neighbor_allgather", "MPI_Neighbor_allgatherv", "MPI_Neighbor_alltoall",
    "MPI_Neighbor_alltoallv", "MPI_Neighbor_alltoallw",
    # communicators, groups and windows made collectively
    "MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_split", "MPI_Comm_split_type",
    "MPI_Comm_create", "MPI_Comm_create_group", "MPI_Dist_graph_create",
    "MPI_Dist_graph_create_adjacent", "MPI_Cart_create", "MPI_Graph_create",
    "MPI_Intercomm_create", "MPI_Intercomm_merge", "MPI_Win_create", "MPI_Win_allocate",
    "MPI_Win_allocate_shared", "MPI_Win_fence",
    # point to point and waits
    "MPI_Send", "MPI_Ssend", "MPI_Rsend", "MPI_Bsend", "MPI_Recv", "MPI_Sendrecv",
    "MPI_Sendrecv_replace", "MPI_Probe", "MPI_Mprobe", "MPI_Wait", "MPI_Waitall", "MPI_Waitany",
    "MPI_Waitsome",
    # collective MPI-IO
    "MPI_File_open", "MPI_File_close", "MPI_File_set_view", "MPI_File_set_size",
    "MPI_File_read_all", "MPI_File_write_all", "MPI_File_read_at_all", "MPI_File_write_at_all",
]
# HDF5's calls that are collective on a file opened with the MPI-IO driver.
BLOCKING_HDF5 = ["H5Fcreate", "H5Fopen", "H5Fclose", "H5Dcreate2", "H5Gcreate2", "H5Acreate2"]

CALL = re.compile(r"\b(" + "|".join(sorted(BLOCKING_MPI + BLOCKING_HDF5, key=len, reverse=True)) + r")\s*\(",
                  re.IGNORECASE)
SOURCES = ("*.c", "*.h", "*.cpp", "*.hpp", "*.f90", "*.f", "*.F90")


def strip_c(text):
    """The text with C/C++ comments and string literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        two = text[i:i + 2]
        if two == "//":
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif two == "/*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text[i] in "\"'":
            quote, j = text[i], i + 1
            while j < n and text[j] != quote:
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j, n - 1) + 1 - i))
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def strip_fortran(text):
    lines = []
    for line in text.split("\n"):
        if line[:1] in ("c", "C", "*") and not line.startswith(("call", "CALL", "contains")):
            line = ""  # fixed-form comment line
        line = re.sub(r"'[^']*'|\"[^\"]*\"", "''", line)
        lines.append(line.split("!", 1)[0])
    return "\n".join(lines)


def blocking_calls(root):
    """{(relative path, call name): [line numbers]} of every blocking call under root."""
    found = {}
    for folder in ("src", "fortran"):
        base = root / folder
        if not base.is_dir():
            continue
        for pattern in SOURCES:
            for path in sorted(base.rglob(pattern)):
                text = path.read_text(errors="replace")
                code = strip_fortran(text) if path.suffix.lower() in (".f90", ".f") else strip_c(text)
                rel = path.relative_to(root).as_posix()
                for match in CALL.finditer(code):
                    name = match.group(1)
                    canonical = next(c for c in BLOCKING_MPI + BLOCKING_HDF5 if c.lower() == name.lower())
                    line = code.count("\n", 0, match.start()) + 1
                    found.setdefault((rel, canonical), []).append(line)
    return found


def read_allowed(path):
    """{(file, call): reason}. Lines: `file  call  reason...`; # starts a comment."""
    allowed, problems = {}, []
    for number, raw in enumerate(path.read_text().split("\n"), 1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        parts = line.split(None, 2)
        if len(parts) < 3 or len(parts[2]) < 20:
            problems.append(f"{path.name}:{number}: expected `file call reason` with a reason, got: {raw}")
            continue
        allowed[(parts[0], parts[1])] = parts[2]
    return allowed, problems


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__)
        return 2
    root = pathlib.Path(sys.argv[1]).resolve()
    allowed_path = pathlib.Path(sys.argv[2]) if len(sys.argv) == 3 else \
        pathlib.Path(__file__).with_name("blocking_mpi_allowed.txt")
    if not (root / "src").is_dir():
        print(f"check_blocking_mpi: {root}/src is not a folder")
        return 2
    allowed, problems = read_allowed(allowed_path)
    found = blocking_calls(root)
    for (rel, call), lines in sorted(found.items()):
        if (rel, call) not in allowed:
            where = ", ".join(f"{rel}:{n}" for n in lines)
            problems.append(f"unwatched blocking call {call} at {where}: wait for it through the polled "
                            f"helpers of src/mpi/ (GSR_TIMEOUT), or list it in {allowed_path.name} with its reason")
    for (rel, call) in sorted(allowed):
        if (rel, call) not in found:
            problems.append(f"{allowed_path.name} lists {call} in {rel}, which no longer calls it: "
                            f"remove the line")
    if problems:
        print("check_blocking_mpi: FAILED")
        for p in problems:
            print("  " + p)
        return 1
    print(f"check_blocking_mpi: {sum(len(v) for v in found.values())} blocking calls in "
          f"{len({f for f, _ in found})} files, each listed with its reason; no other")
    return 0


if __name__ == "__main__":
    sys.exit(main())
