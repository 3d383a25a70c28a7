#!/usr/bin/python3
"""fuzz_imports.py - mutation fuzzing of `gsr-mesh import` with damaged .re2 and .msh files.

The seed meshes are written by tests/import/re2_writer.py and msh_writer.py (2-D and 3-D,
.re2 v001 big-endian and v002, periodic ones, .msh 2.2 and 4.1, ASCII and binary). Every case
i takes one seed and applies one to three mutations chosen by random.Random("<seed>:<i>")
(reproducible alone with --only i): byte flips, truncation, a count forged (the .re2 header's
element count, a curve or BC section's count, a .msh section's count), two records or two
sections swapped, a word set to NaN, infinity or an extreme integer, and in ASCII .msh files
text garbage, lines dropped or repeated. Then `gsr-mesh import` runs on it, at P = 1 and at
P = 2 for every --p2-every-th case, under a timeout (GSR_TIMEOUT short, so a rank left
waiting fails fast). A case fails on a signal or another exit code than 0 and 1 (a crash),
a timeout or a collective step that timed out (a hang), an exit 1 whose message does not
name the file, an exit 1 that leaves the output, its temporary or its sidecar behind, or an
exit 0 whose output gsr-check does not pass (a bad file accepted; coordinates compared with
a tolerance of 0.1, the matching's own). Failing inputs are kept
in <work>/failures.

  fuzz_imports.py --gsr-mesh M --gsr-check C --mpiexec mpiexec --work DIR --count N
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "import"))

import msh_writer  # noqa: E402
import re2_writer  # noqa: E402

INTERESTING_INT = [0, 1, -1, 2 ** 31 - 1, 2 ** 31, 2 ** 62, 2 ** 63 - 1, 10 ** 15]
INTERESTING_DOUBLES = [float("nan"), float("inf"), float("-inf"), 1e308, -1e308, 5e-324, 0.0, 1e15, -3.0]


# ---- the seeds ---------------------------------------------------------------------------

class Seed:
    def __init__(self, name, data, kind):
        self.name, self.data, self.kind = name, data, kind  # kind: re2, msh-ascii, msh-binary
        self.word = 4 if data[:5] == b"#v001" else 8
        self.order = ">" if kind == "re2" and abs(struct.unpack(">f", data[80:84])[0] - 6.54321) < 1e-4 else "<"


def write_seeds(folder):
    os.makedirs(folder, exist_ok=True)
    seeds = []
    re2s = [
        ("box2d_v002.re2", re2_writer.box((3, 3), reorient="all", shuffle=True, seed=3, tags=True), "#v002", "<"),
        ("box3d_v001_be.re2", re2_writer.box((3, 2, 2), periodic=(0,), reorient="rotations", seed=4, tags=True),
         "#v001", ">"),
        ("box3d_v004.re2", re2_writer.box((2, 2, 2), seed=5, fields=2, tags=True), "#v004", "<"),
    ]
    for name, mesh, version, order in re2s:
        seeds.append(Seed(name, re2_writer.re2_bytes(mesh, version, order), "re2"))
    mshs = [
        ("hex8_41.msh", msh_writer.Box(3, (2, 2, 1), order=1, reorient=True, shuffle=True, seed=6), "4.1", False),
        ("quad9_22_periodic.msh", msh_writer.Box(2, (3, 3), order=2, seed=7, periodic=(0,)), "2.2", False),
        ("hex27_41_bin.msh", msh_writer.Box(3, (2, 1, 1), order=2, seed=8), "4.1", True),
        ("quad4_22_bin.msh", msh_writer.Box(2, (3, 2), order=1, reorient=True, seed=9), "2.2", True),
    ]
    for name, box, version, binary in mshs:
        path = os.path.join(folder, name)
        msh_writer.write_msh(path, box, version, binary)
        seeds.append(Seed(name, open(path, "rb").read(), "msh-binary" if binary else "msh-ascii"))
    return seeds


# ---- mutations ---------------------------------------------------------------------------

def flip_bits(rng, seed, data):
    at = rng.randrange(len(data))
    bit = rng.randrange(8)
    data[at] ^= 1 << bit
    return f"flip bit {bit} of byte {at}"


def set_byte(rng, seed, data):
    at = rng.randrange(len(data))
    data[at] = rng.choice([0x00, 0x01, 0x7F, 0x80, 0xFF, ord("$"), ord("\n"), ord("-")])
    return f"set byte {at}"


def truncate(rng, seed, data):
    length = rng.randrange(1, len(data))
    del data[length:]
    return f"truncate to {length} bytes"


def re2_word(rng, seed, data):
    """A random word of the element, curve or BC sections (after the 84-byte header)."""
    words = (len(data) - 84) // seed.word
    return 84 + seed.word * rng.randrange(max(words, 1))


def re2_set_word(rng, seed, data):
    at = re2_word(rng, seed, data)
    if seed.word == 4:
        value = struct.pack(seed.order + "f", rng.choice(INTERESTING_DOUBLES[:3] + [3e38, 1e-45, 0.0, -3.0])) \
            if rng.random() < 0.5 else \
            struct.pack(seed.order + "i", rng.choice(INTERESTING_INT) % 2 ** 31 * rng.choice([1, -1]))
    else:
        value = struct.pack(seed.order + "d", rng.choice(INTERESTING_DOUBLES + [float(v) for v in INTERESTING_INT]))
    data[at:at + seed.word] = value[:len(data[at:at + seed.word])]
    return f"set the word at byte {at}"


def re2_forge_header(rng, seed, data):
    """The header's element count (or dimension, or fluid count) replaced by another number."""
    text = data[:80].decode("ascii", errors="replace")
    numbers = list(re.finditer(r"-?\d+", text[5:]))
    if not numbers:
        return "no header number"
    m = rng.choice(numbers)
    value = str(rng.choice([0, 1, -1, 3, 7, 99, 2 ** 31, 4 * 10 ** 13, 10 ** 19]))
    start, end = 5 + m.start(), 5 + m.end()
    if len(value) < end - start:
        value = value.rjust(end - start)
    data[:80] = (text[:start] + value + text[end:])[:80].ljust(80).encode("ascii", errors="replace")
    return f"header number '{m.group()}' -> '{value}'"


def re2_swap_records(rng, seed, data):
    """Two 8-word spans of the sections after the header swapped (records, or a record and
    a count)."""
    span = 8 * seed.word
    a, b = re2_word(rng, seed, data), re2_word(rng, seed, data)
    if a + span > len(data) or b + span > len(data) or abs(a - b) < span:
        return "no swap"
    data[a:a + span], data[b:b + span] = data[b:b + span], data[a:a + span]
    return f"swap the words at bytes {a} and {b}"


def msh_lines(data):
    return bytes(data).split(b"\n")


def msh_forge_count(rng, seed, data):
    """The first number after a $Section line replaced by an extreme count."""
    text = bytes(data)
    sections = [m.end() for m in re.finditer(rb"\$(Nodes|Elements|PhysicalNames|Entities|Periodic)\n", text)]
    if not sections:
        return "no section"
    at = rng.choice(sections)
    if seed.kind == "msh-binary" and text[at - 9:at] != b"Elements\n" and b"4.1" in text[:20]:
        value = struct.pack("<Q", rng.choice([2 ** 63, 2 ** 62, 2 ** 40, 0, 7]))
        data[at:at + 8] = value
        return f"binary count at byte {at}"
    m = re.match(rb"-?\d+", text[at:])
    if not m:
        return "no count"
    value = str(rng.choice([0, -1, 1, 2 ** 31, 2 ** 62, 2 ** 64 + 1, 10 ** 30])).encode()
    data[at:at + len(m.group())] = value
    return f"count at byte {at} -> {value.decode()}"


def msh_swap_sections(rng, seed, data):
    """Two whole sections ($Name ... $EndName) exchanged."""
    text = bytes(data)
    spans = [(m.start(), m.end()) for m in re.finditer(rb"\$(\w+)\n.*?\$End\1\n", text, re.S)]
    if len(spans) < 2:
        return "no sections"
    (a0, a1), (b0, b1) = sorted(rng.sample(spans, 2))
    data[:] = text[:a0] + text[b0:b1] + text[a1:b0] + text[a0:a1] + text[b1:]
    return f"swap sections at {a0} and {b0}"


def msh_garbage(rng, seed, data):
    """ASCII: a token replaced by garbage, a line dropped or repeated, or junk inserted."""
    lines = msh_lines(data)
    i = rng.randrange(len(lines))
    choice = rng.randrange(4)
    if choice == 0:
        tokens = lines[i].split(b" ")
        k = rng.randrange(len(tokens))
        tokens[k] = rng.choice([b"nan", b"inf", b"-0", b"1e999", b"0x10", b"abc", b"", b"9" * 25, b"-5", b"3.5"])
        lines[i] = b" ".join(tokens)
        what = f"token {k} of line {i}"
    elif choice == 1:
        del lines[i]
        what = f"drop line {i}"
    elif choice == 2:
        lines.insert(i, lines[i])
        what = f"repeat line {i}"
    else:
        lines.insert(i, rng.choice([b"$Nodes", b"$EndElements", b"\x00\xff junk", b"1 2 3", b"$Periodic\n1"]))
        what = f"junk before line {i}"
    data[:] = b"\n".join(lines)
    return what


MUTATIONS = {
    "re2": [(flip_bits, 25), (set_byte, 10), (truncate, 10), (re2_set_word, 25), (re2_forge_header, 15),
            (re2_swap_records, 15)],
    "msh-ascii": [(flip_bits, 10), (set_byte, 10), (truncate, 10), (msh_forge_count, 15), (msh_swap_sections, 10),
                  (msh_garbage, 45)],
    "msh-binary": [(flip_bits, 30), (set_byte, 20), (truncate, 15), (msh_forge_count, 20), (msh_swap_sections, 15)],
}


def mutate(rng, seed):
    data = bytearray(seed.data)
    done = []
    functions, weights = zip(*MUTATIONS[seed.kind])
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        mutation = rng.choices(functions, weights)[0]
        done.append(mutation(rng, seed, data))
        if mutation is truncate:
            break
    return bytes(data), "; ".join(done)


# ---- running -----------------------------------------------------------------------------

Outcome = collections.namedtuple("Outcome", "code verdict output")


def run(command, timeout):
    env = dict(os.environ, GSR_TIMEOUT="5")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               start_new_session=True, env=env)
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return "timeout", output.decode(errors="replace")
    return process.returncode, output.decode(errors="replace")


def run_case(args, path, ranks, output):
    code, text = run([args.mpiexec, "-n", str(ranks), args.gsr_mesh, "import", path, "-o", output, "--order", "3"],
                     args.timeout)
    left = [name for name in os.listdir(os.path.dirname(output)) if "out" in name]
    if code == "timeout" or "GSR_TIMEOUT" in text:
        return Outcome(code, "hang", text)
    if code not in (0, 1):
        return Outcome(code, "crash", text)
    if code == 1:
        if f"file '{path}'" not in text:
            return Outcome(code, "unclear", text)
        if left:
            return Outcome(code, f"left {left} behind", text)
        return Outcome(code, "ok", text)
    # Corners closer than a tenth of the shortest edge (1/3 in every seed) are one vertex, so
    # a coordinate nudged by a mutation may leave the copies of a node up to about 0.07
    # apart in a good import; a wrong match would leave them an edge apart.
    check_code, check_text = run([args.mpiexec, "-n", "1", args.gsr_check, output, "--tolerance", "0.1",
                                  "--no-method-comparison"], args.timeout)
    for name in left:
        os.remove(os.path.join(os.path.dirname(output), name))
    if check_code != 0:
        return Outcome(code, "accepted a bad file", text + "\ngsr-check:\n" + check_text)
    return Outcome(code, "ok", text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gsr-mesh", required=True)
    parser.add_argument("--gsr-check", required=True)
    parser.add_argument("--mpiexec", default="mpiexec")
    parser.add_argument("--work", required=True)
    parser.add_argument("--seed", default=os.environ.get("GSR_FUZZ_SEED", "1"))
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--only", type=int)
    parser.add_argument("--p2-every", type=int, default=3, help="every k-th case runs at P = 2")
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    seeds = write_seeds(os.path.join(args.work, "seeds"))
    out_folder = os.path.join(args.work, "out")
    os.makedirs(out_folder, exist_ok=True)
    indices = [args.only] if args.only is not None else range(args.first, args.first + args.count)
    counts = collections.Counter()
    start = time.monotonic()
    for index in indices:
        rng = random.Random(f"{args.seed}:{index}")
        seed = rng.choice(seeds)
        data, description = mutate(rng, seed)
        path = os.path.join(args.work, f"fuzz-{args.seed}-{index}-{seed.name}")
        with open(path, "wb") as f:
            f.write(data)
        ranks = 2 if index % args.p2_every == 0 else 1
        outcome = run_case(args, path, ranks, os.path.join(out_folder, "out.h5"))
        counts["files"] += 1
        counts[f"exit {outcome.code}"] += 1
        counts["ok" if outcome.verdict == "ok" else "failed"] += 1
        if outcome.verdict != "ok":
            failures = os.path.join(args.work, "failures")
            os.makedirs(failures, exist_ok=True)
            shutil.copy(path, failures)
            for name in os.listdir(out_folder):
                os.remove(os.path.join(out_folder, name))
            print(f"FAIL ({outcome.verdict}, exit {outcome.code}) seed {args.seed} case {index}: {seed.name}: "
                  f"{description}\n  kept: {os.path.join(failures, os.path.basename(path))}\n"
                  f"  rerun: {args.mpiexec} -n {ranks} {args.gsr_mesh} import {path} -o out.h5 --order 3\n"
                  f"  output (last lines):\n    " + "\n    ".join(outcome.output.strip().splitlines()[-6:]),
                  flush=True)
        elif args.verbose:
            print(f"case {index} P={ranks} {seed.name} exit {outcome.code}: {description}", flush=True)
        os.remove(path)
    exits = ", ".join(f"{k}: {counts[k]}" for k in sorted(counts) if k.startswith("exit"))
    print(f"fuzz_imports seed {args.seed}: {counts['files']} files in {time.monotonic() - start:.1f} s; {exits}; "
          f"failed: {counts['failed']}")
    return 0 if counts["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
