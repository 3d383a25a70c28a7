#!/usr/bin/python3
"""Reads what scripts/nek5000.sh collects from Nek5000 runs and says whether it passes.

  verdict OUT                        NekTests' own result in the output of one
                                     `python3 -m unittest -v NekTests.<target>`
  compare STOCK_LOG GSR_LOG          the quantities Nek5000 prints (error norms, iteration
                                     counts, residuals, partition statistics), equal as printed
  gs-absent LIBGS_NM STOCK_NM GSR_NM...
                                     gslib's gs.o is linked into the stock executable and
                                     into none of the gsr ones (nm outputs)
  bindings LIB_DIR FILE...           LD_DEBUG=bindings output: the gather-scatter and crystal
                                     calls bound to the gsr libraries in LIB_DIR
  timing LOG...                      medians of Nek5000's own timers per case and build, from
                                     logs named <case>.<stock|gsr>.<run>.log, and gsr/stock

Each prints one short report and exits 1 when its check fails.
"""
import os
import re
import statistics
import sys

# --- verdict ---------------------------------------------------------------------------

RESULT_WORDS = ("ok", "FAIL", "ERROR", "expected failure", "unexpected success")


def verdict(path):
    """unittest -v prints 'test_x (module.Class.test_x) ... ', then whatever the test prints,
    then the result word on a line of its own (or at the end of that line if the test printed
    nothing), and at the end 'Ran 1 test' and 'OK' or 'FAILED (...)'."""
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    result = None
    for line in lines:
        if line.startswith("Ran ") and " test" in line:
            break
        word = line.strip()
        m = re.search(r" \.\.\. (ok|FAIL|ERROR|skipped.*)$", line)
        if m:
            word = m.group(1)
        if word in RESULT_WORDS or word.startswith("skipped"):
            result = word
    ran = [l for l in lines if re.match(r"Ran \d+ tests? in", l)]
    summary = next((l.strip() for l in reversed(lines) if l.startswith(("OK", "FAILED"))), None)
    targets = [l.strip() for l in lines if re.match(r"\s*(SUCCESS|FAILURE): ", l)]
    failures = [t for t in targets if t.startswith("FAILURE")]
    labels = []
    for t in targets:
        m = re.match(r"(?:SUCCESS|FAILURE): (.+?): Test value", t)
        labels.append(m.group(1) if m else t.split(":", 1)[1].strip())
    problems = []
    if not ran or not ran[-1].startswith("Ran 1 test"):
        problems.append("unittest did not run exactly one test" + (f" ({ran[-1]})" if ran else ""))
    if result != "ok":
        problems.append(f"result '{result or 'none'}'")
    if summary != "OK":
        problems.append(f"summary '{summary or 'none'}'")
    if not targets:
        problems.append("no SUCCESS/FAILURE target lines")
    problems += failures
    for l in lines:
        if l.startswith(("AssertionError", "ValueError", "IndexError", "OSError")):
            problems.append(l.strip())
    if problems:
        print("FAIL: " + "; ".join(problems))
        return 1
    print(f"ok ({len(targets)} targets: {', '.join(labels)})")
    return 0


# --- compare ---------------------------------------------------------------------------

def checked_lines(path):
    """The lines of a Nek5000 log that carry results, without their timing columns, as
    (category, text, line number). Formats are those of core/*.f and partitioner.c."""
    out = []
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    for number, line in enumerate(lines, start=1):
        t = line.split()
        if not t:
            continue
        if line.startswith("Step") and ", t=" in line:
            # drive2.f: 'Step',I7,', t=',E,', DT=',E,', C=',F7.3, then two timings
            m = re.match(r"(Step\s+\d+, t=\s*\S+, DT=\s*\S+, C=\s*\S+)", line)
            if m:
                out.append(("step", m.group(1), number))
        elif "gmres" in t:
            # gmres.f: istep, 'PRES gmres' or 'U-PRES gmres', iterations, residual, initial
            # residual, tolerance, then two timings (etime_p, etime1) and an optional flag
            i = t.index("gmres")
            if len(t) >= i + 7:
                out.append(("solver", " ".join(t[: i + 5] + t[i + 7:]), number))
        elif t[-1] == "Divergence" or "Hmholtz" in t[:3] or "Project" in t[:3] \
                or t[0].startswith("L1/L2") or line.startswith("AMG "):
            out.append(("solver", " ".join(t), number))
        elif "Fluid" in t[:3] and "done" in t[:4]:
            out.append(("solver", " ".join(t[:-1]), number))  # last column: the step's seconds
        elif "err" in t or "err:" in t:
            out.append(("error", " ".join(t), number))
        elif re.match(r"\s*(nElements|nMessages|msgSize|msgSizeSum)\s+max/min", line):
            out.append(("partition", " ".join(t), number))
    return out


def compare(stock_log, gsr_log):
    a, b = checked_lines(stock_log), checked_lines(gsr_log)
    counts = {}
    for cat, _, _ in a:
        counts[cat] = counts.get(cat, 0) + 1
    breakdown = ", ".join(f"{counts[c]} {c}" for c in ("error", "solver", "step", "partition") if c in counts)
    if not a:
        print(f"FAIL: no checked lines in {stock_log}")
        return 1
    diffs = []
    for x, y in zip(a, b):
        if x[:2] != y[:2]:
            diffs.append((x, y))
    if diffs or len(a) != len(b):
        print(f"FAIL: {len(diffs)} of {min(len(a), len(b))} checked lines differ"
              + (f"; stock has {len(a)} checked lines, gsr {len(b)}" if len(a) != len(b) else ""))
        for x, y in diffs[:5]:
            print(f"  {x[0]}, stock's line {x[2]}, gsr's line {y[2]}:\n    stock: {x[1]}\n    gsr:   {y[1]}")
        return 1
    print(f"{len(a)} lines equal ({breakdown})")
    return 0


# --- gs-absent -------------------------------------------------------------------------

DEFINED = set("TtDdBbRrVWGgSsiu")


def nm_defined(path):
    """name -> set of kinds for the defined symbols in an nm listing (also nm -A)."""
    defs, undef = {}, set()
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 2 and p[-2] == "U":
                undef.add(p[-1])
            elif len(p) >= 3 and p[-2] in DEFINED:
                defs.setdefault(p[-1], set()).add(p[-2])
    return defs, undef


def gs_o_symbols(libgs_nm):
    """Symbols defined in libgs.a's gs.o and in no other member (from nm -A libgs.a)."""
    by_member = {}
    with open(libgs_nm) as f:
        for line in f:
            p = line.split()
            if len(p) < 3 or p[-2] not in DEFINED:
                continue
            member = p[0].rstrip(":").split(":")[-2] if p[0].count(":") >= 2 else p[0]
            if "." not in p[-1]:  # skip .LC0 and compiler-made names (foo.isra.0, init.15)
                by_member.setdefault(member, set()).add(p[-1])
    gs_o = by_member.get("gs.o", set())
    others = set().union(*(s for m, s in by_member.items() if m != "gs.o")) if by_member else set()
    return gs_o - others


SHOWN_FIRST = ("pw_exec", "cr_exec", "allreduce_exec", "gs_aux", "gslib_gs_setup", "fgslib_gs_op_")


def executable_name(nm_path):
    """<results>/<build>/<Class.test>_np<P>.<case>.nm -> '<case>/nek5000 (<Class.test> P=<P>)'"""
    name = os.path.basename(nm_path)
    m = re.match(r"(.+)_np(\d+)\.([^.]+)\.nm$", name)
    if m:
        return f"{m.group(3)}/nek5000 ({m.group(1)} P={m.group(2)})"
    m = re.match(r"timing_(.+)\.nm$", name)
    return f"timing/{m.group(1)}/nek5000" if m else name


def gs_absent(libgs_nm, stock_nm, gsr_nms):
    only_gs_o = gs_o_symbols(libgs_nm)
    if not only_gs_o:
        print(f"FAIL: found no symbols of gs.o in {libgs_nm}")
        return 1
    stock_defs, _ = nm_defined(stock_nm)
    in_stock = sorted(only_gs_o & stock_defs.keys())
    named = ["pw_exec", "cr_exec", "allreduce_exec", "gslib_gs_setup"]
    missing = [n for n in named if n not in in_stock]
    if missing:
        # The check would prove nothing if stock's executable did not show gs.o this way.
        print(f"FAIL: the stock executable lacks gs.o's {', '.join(missing)}; the check cannot tell")
        return 1
    status = 0
    for path in gsr_nms:
        defs, undef = nm_defined(path)
        # the names the reader knows first, then the rest alphabetically
        found = sorted(set(in_stock) & defs.keys(), key=lambda n: (n not in SHOWN_FIRST, n))
        not_u = [n for n in ("fgslib_gs_op_", "gslib_gs_setup", "fgslib_crystal_setup_")
                 if n not in undef]
        name = executable_name(path)
        if found or not_u:
            status = 1
            msg = []
            if found:
                shown = [f"{'/'.join(sorted(defs[n]))} {n}" for n in found[:8]]
                msg.append(f"defines {len(found)} of gs.o's {len(in_stock)} symbols "
                           f"({', '.join(shown)}{', ...' if len(found) > 8 else ''})")
            if not_u:
                msg.append("not undefined (U): " + ", ".join(
                    f"{n} ({'/'.join(sorted(defs.get(n, []))) or 'absent'})" for n in not_u))
            print(f"FAIL: {name}: " + "; ".join(msg))
        else:
            print(f"ok: {name}: none of gs.o's {len(in_stock)} symbols; fgslib_gs_op_, "
                  "gslib_gs_setup, fgslib_crystal_setup_ undefined (U)")
    return status


# --- bindings --------------------------------------------------------------------------

BINDING = re.compile(r"binding file (\S+) \[\d+\] to (\S+) \[\d+\]: normal symbol `([^'\[]+)")
REQUIRED = ["fgslib_gs_setup_", "fgslib_gs_op_", "gslib_gs_setup", "fgslib_crystal_setup_"]
FAMILY = re.compile(r"^f?gslib_(i?gs|crystal|pw_data)")


def bindings(lib_dir, files):
    lib_dir = os.path.realpath(lib_dir)
    bound = {}  # symbol -> {target file}
    for path in files:
        with open(path, errors="replace") as f:
            for line in f:
                if "gslib_" not in line:
                    continue
                m = BINDING.search(line)
                if m and FAMILY.match(m.group(3)):
                    bound.setdefault(m.group(3), set()).add(os.path.realpath(m.group(2)))
    status = 0
    for name in REQUIRED:
        if name not in bound:
            print(f"FAIL: {name} was not bound by the dynamic loader (so it is defined in the "
                  "executable itself, or was never called)")
            status = 1
    for name, targets in sorted(bound.items()):
        elsewhere = [t for t in targets if os.path.dirname(t) != lib_dir
                     or not os.path.basename(t).startswith("libgsr")]
        if elsewhere:
            print(f"FAIL: {name} bound to {', '.join(sorted(elsewhere))}, not to gsr in {lib_dir}")
            status = 1
    libs = sorted({os.path.basename(t) for ts in bound.values() for t in ts})
    if status == 0:
        print(f"ok: {len(bound)} gather-scatter/crystal symbols bound, all to {', '.join(libs)} "
              f"in {lib_dir} ({', '.join(n for n in REQUIRED)} among them)")
    return status


# --- timing ----------------------------------------------------------------------------

# drive2.f's summary: '<name> time <calls> <seconds> <fraction>' (rank 0), then the totals.
TIMERS = {
    "dsum": r"^\s*dsum time\s+\d+\s+(\S+)",
    "vdss": r"^\s*vdss time\s+\d+\s+(\S+)",
    "step": r"^time/timestep\s*:\s*(\S+)",
    "solver": r"^total solver time w/o IO\s*:\s*(\S+)",
}


def timing(logs):
    """Logs named <case>.<build>.<i>.log; prints medians per case and build and gsr/stock."""
    values = {}  # (case, build) -> timer -> [values]
    for path in logs:
        case, build, _ = os.path.basename(path).split(".")[:3]
        with open(path, errors="replace") as f:
            text = f.read()
        row = values.setdefault((case, build), {})
        for timer, pattern in TIMERS.items():
            # Nek5000 prints its runtime statistics more than once in a long run (Ethier: at
            # step 500 and at the end); the last is the whole run's.
            found = re.findall(pattern, text, re.M)
            if found:
                row.setdefault(timer, []).append(float(found[-1].replace("D", "E")))
    cases = sorted({c for c, _ in values})
    print(f"{'case':8} {'timer':8} {'stock median':>13} {'gsr median':>13} {'gsr/stock':>9}  runs")
    status = 0
    for case in cases:
        for timer in TIMERS:
            s = values.get((case, "stock"), {}).get(timer, [])
            g = values.get((case, "gsr"), {}).get(timer, [])
            if not s or not g:
                print(f"{case:8} {timer:8} missing (stock {len(s)}, gsr {len(g)} runs)")
                status = 1
                continue
            ms, mg = statistics.median(s), statistics.median(g)
            ratio = f"{mg / ms:9.3f}" if ms > 0 else "      n/a"
            print(f"{case:8} {timer:8} {ms:13.4e} {mg:13.4e} {ratio}  {len(s)}+{len(g)}")
    return status


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd, args = argv[1], argv[2:]
    if cmd == "verdict" and len(args) == 1:
        return verdict(*args)
    if cmd == "compare" and len(args) == 2:
        return compare(*args)
    if cmd == "gs-absent" and len(args) >= 3:
        return gs_absent(args[0], args[1], args[2:])
    if cmd == "bindings" and len(args) >= 2:
        return bindings(args[0], args[1:])
    if cmd == "timing" and args:
        return timing(args)
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
