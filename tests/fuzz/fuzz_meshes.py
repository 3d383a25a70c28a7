#!/usr/bin/python3
"""fuzz_meshes.py — mutation fuzzing of gsr-check with damaged copies of good mesh files.

Every case i of a run takes one seed mesh, applies a few mutations chosen by
random.Random("<seed>:<i>") (so one case is reproducible on its own with --only i), and
runs gsr-check on the result under a timeout: at P = 1, and at P = 2 for every fourth
case. gsr-check documents exit codes 0 (consistent), 1 (inconsistent) and 2 (file cannot
be loaded); anything else (a signal, an abort, another code) is a crash, a timeout is a
hang, and an exit 2 whose message does not name the file is unclear. Failing files are
kept in <work>/failures; the others are deleted. Counts are printed at the end.

  fuzz_meshes.py --check gsr-check --mpiexec mpiexec --work DIR --seed S --count N SEED.h5...
"""
import argparse
import collections
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import time

INTERESTING_BYTES = [0x00, 0x01, 0x02, 0x7F, 0x80, 0xFE, 0xFF]
INTERESTING_INT64 = [0, 1, -1, -(2**63), 2**63 - 1, 2**62, -(2**62), 2**31, 2**32 + 7]
INTERESTING_DOUBLES = [float("nan"), float("inf"), float("-inf"), 1e308, -1e308, 5e-324, 0.0, -0.0]


# ---- where things are in a seed file --------------------------------------------------

class SeedFile:
    """A good mesh file, its bytes, and which byte ranges hold raw data (by dataset name):
    everything else is HDF5 metadata (superblock, object headers, indices, heaps)."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.data = f.read()
        self.raw = raw_data_ranges(path)
        self.metadata = metadata_offsets(len(self.data), self.raw.values())
        self.has_partition = "partition" in self.raw or b"partition" in self.data


def raw_data_ranges(path):
    """{dataset name: (offset, size)} of contiguous datasets, from h5dump's layout listing."""
    try:
        listing = subprocess.run(["h5dump", "-p", "-H", path], capture_output=True, text=True,
                                 timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    ranges = {}
    pattern = r'DATASET "(\w+)".*?CONTIGUOUS\s+SIZE (\d+)\s+OFFSET (\d+)'
    for name, size, offset in re.findall(pattern, listing, re.S):
        ranges[name] = (int(offset), int(size))
    return ranges


def metadata_offsets(length, raw_ranges):
    """Byte offsets outside the raw data, as a list of (start, end) runs."""
    covered = sorted((offset, offset + size) for offset, size in raw_ranges)
    runs, position = [], 0
    for start, end in covered:
        if start > position:
            runs.append((position, start))
        position = max(position, end)
    if position < length:
        runs.append((position, length))
    return runs or [(0, length)]


def metadata_byte(rng, seed):
    start, end = rng.choice(seed.metadata)
    return rng.randrange(start, end)


# ---- mutations: each changes `data` (a bytearray) and says what it did -----------------

def flip_metadata_bits(rng, seed, data):
    places = [(metadata_byte(rng, seed), rng.randrange(8)) for _ in range(rng.randint(1, 4))]
    for offset, bit in places:
        data[offset] ^= 1 << bit
    return "flip bits " + ", ".join(f"{o}:{b}" for o, b in places)


def set_metadata_bytes(rng, seed, data):
    places = [(metadata_byte(rng, seed), rng.choice(INTERESTING_BYTES)) for _ in range(rng.randint(1, 3))]
    for offset, value in places:
        data[offset] = value
    return "set bytes " + ", ".join(f"{o}={v:#04x}" for o, v in places)


def overwrite_metadata_run(rng, seed, data):
    offset, length = metadata_byte(rng, seed), rng.randint(2, 24)
    fill = rng.choice(["zeros", "ones", "random"])
    for k in range(offset, min(offset + length, len(data))):
        data[k] = {"zeros": 0, "ones": 0xFF}.get(fill, rng.randrange(256))
    return f"overwrite {length} bytes at {offset} with {fill}"


def damage_superblock(rng, seed, data):
    """The superblock (the first 96 bytes here) is what HDF5's parallel open reads on rank 0."""
    offset = rng.randrange(min(96, len(data)))
    mask = rng.choice([0xFF, 1 << rng.randrange(8)])
    data[offset] ^= mask
    return f"superblock byte {offset} ^= {mask:#04x}"


def flip_any_bit(rng, seed, data):
    offset, bit = rng.randrange(len(data)), rng.randrange(8)
    data[offset] ^= 1 << bit
    return f"flip bit {offset}:{bit}"


def raw_slot(rng, seed, dataset, width):
    if dataset not in seed.raw:
        return None
    offset, size = seed.raw[dataset]
    return offset + width * rng.randrange(max(size // width, 1))


def set_value(rng, seed, data, dataset, fmt, values, fallback):
    """Overwrites one raw value of `dataset` (struct format `fmt`) with one of `values`."""
    width = struct.calcsize(fmt)
    slot = raw_slot(rng, seed, dataset, width)
    if slot is None:
        return fallback(rng, seed, data)
    value = rng.choice(values)
    data[slot:slot + width] = struct.pack(fmt, value)
    return f"{dataset} at {slot} = {value}"


def set_id(rng, seed, data):
    return set_value(rng, seed, data, "global_ids", "<q", INTERESTING_INT64, flip_any_bit)


def set_coordinate(rng, seed, data):
    return set_value(rng, seed, data, "coordinates", "<d", INTERESTING_DOUBLES, set_id)


def set_partition(rng, seed, data):
    return set_value(rng, seed, data, "partition", "<i", [-1, 1, 2, 3, 2**31 - 1, -(2**31)], set_id)


def truncate(rng, seed, data):
    length = rng.randrange(1, len(data))
    del data[length:]
    return f"truncate to {length} bytes"


MUTATIONS = [
    (flip_metadata_bits, 30), (set_metadata_bytes, 20), (overwrite_metadata_run, 10), (damage_superblock, 10),
    (flip_any_bit, 10), (set_id, 10), (set_coordinate, 10), (set_partition, 5), (truncate, 5),
]


def mutate(rng, seed):
    """A damaged copy of `seed`: one to three mutations (a truncation ends the list)."""
    data = bytearray(seed.data)
    done = []
    functions, weights = zip(*MUTATIONS)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        mutation = rng.choices(functions, weights)[0]
        done.append(mutation(rng, seed, data))
        if mutation is truncate:
            break
    return bytes(data), "; ".join(done)


# ---- running gsr-check -------------------------------------------------------------------

Outcome = collections.namedtuple("Outcome", "code verdict output seconds")


def run_check(args, path, ranks, extra):
    command = [args.mpiexec, "-n", str(ranks), args.check, path] + extra
    start = time.monotonic()
    # A session of its own, so a hang can be killed with every rank mpiexec started.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        output, _ = process.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return Outcome("timeout", "hang", output.decode(errors="replace"), time.monotonic() - start)
    text = output.decode(errors="replace")
    return Outcome(process.returncode, verdict_of(process.returncode, text, path),
                   text, time.monotonic() - start)


def verdict_of(code, text, path):
    if code not in (0, 1, 2):
        return "crash"
    if code == 2 and f"file '{path}'" not in text:
        return "unclear"
    return "ok"


# ---- the run -------------------------------------------------------------------------

def case_plan(args, seeds, index):
    """The mutated file, its description and how to check it, for case `index`."""
    rng = random.Random(f"{args.seed}:{index}")
    seed = rng.choice(seeds)
    data, description = mutate(rng, seed)
    ranks = 2 if index % args.p2_every == 0 else 1
    extra = ["--distribution", "partition"] if seed.has_partition and rng.random() < 0.25 else []
    return seed, data, description, ranks, extra


def keep_failure(args, path, index, seed, description, ranks, extra, outcome):
    failures = os.path.join(args.work, "failures")
    os.makedirs(failures, exist_ok=True)
    kept = os.path.join(failures, os.path.basename(path))
    shutil.copyfile(path, kept)
    print(f"FAIL ({outcome.verdict}, exit {outcome.code}) seed {args.seed} case {index}: "
          f"{os.path.basename(seed.path)}: {description}\n"
          f"  kept: {kept}\n"
          f"  rerun: {args.mpiexec} -n {ranks} {args.check} {kept} {' '.join(extra)}\n"
          f"  reproduce: {sys.argv[0]} --seed {args.seed} --only {index} ... \n"
          f"  output (last lines):\n    " + "\n    ".join(outcome.output.strip().splitlines()[-8:]),
          flush=True)


def run_cases(args, seeds, indices):
    counts = collections.Counter()
    for index in indices:
        seed, data, description, ranks, extra = case_plan(args, seeds, index)
        path = os.path.join(args.work, f"fuzz-{args.seed}-{index}.h5")
        with open(path, "wb") as f:
            f.write(data)
        outcome = run_check(args, path, ranks, extra)
        counts["files"] += 1
        counts[f"P={ranks}"] += 1
        counts[f"exit {outcome.code}"] += 1
        counts[outcome.verdict] += 1
        if outcome.verdict != "ok":
            keep_failure(args, path, index, seed, description, ranks, extra, outcome)
        elif args.verbose:
            print(f"case {index} P={ranks} exit {outcome.code} {outcome.seconds:.2f}s: {description}")
        os.remove(path)
    return counts


def print_counts(args, counts, seconds):
    exits = ", ".join(f"{key}: {counts[key]}" for key in sorted(counts) if key.startswith("exit"))
    print(f"fuzz_meshes seed {args.seed}: {counts['files']} files "
          f"({counts['P=1']} at P=1, {counts['P=2']} at P=2) in {seconds:.1f} s; {exits}; "
          f"crashes: {counts['crash']}, hangs: {counts['hang']}, unclear messages: {counts['unclear']}")


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("seeds", nargs="+", help="good mesh files to mutate")
    parser.add_argument("--check", required=True, help="the gsr-check program")
    parser.add_argument("--mpiexec", default="mpiexec")
    parser.add_argument("--work", required=True, help="directory for the mutated files (build tree)")
    parser.add_argument("--seed", default=os.environ.get("GSR_FUZZ_SEED", "1"))
    parser.add_argument("--count", type=int, default=250, help="cases in this run")
    parser.add_argument("--first", type=int, default=0, help="index of the first case")
    parser.add_argument("--only", type=int, help="run this one case")
    parser.add_argument("--p2-every", type=int, default=4, help="every k-th case runs at P = 2")
    parser.add_argument("--timeout", type=float, default=30, help="seconds before a run counts as a hang")
    parser.add_argument("--verbose", action="store_true")
    return parser.parse_args()


def main():
    args = parse_arguments()
    os.makedirs(args.work, exist_ok=True)
    seeds = [SeedFile(path) for path in args.seeds]
    indices = [args.only] if args.only is not None else range(args.first, args.first + args.count)
    print(f"fuzz_meshes: seed {args.seed}, cases {indices[0]}..{indices[-1]}, "
          f"{len(seeds)} seed files, P = 2 every {args.p2_every}", flush=True)
    start = time.monotonic()
    counts = run_cases(args, seeds, indices)
    print_counts(args, counts, time.monotonic() - start)
    return 0 if counts["ok"] == counts["files"] else 1


if __name__ == "__main__":
    sys.exit(main())
