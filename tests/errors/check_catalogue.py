#!/usr/bin/python3
"""check_catalogue.py - keeps docs/errors.md and the tests in step.

  check_catalogue.py --doc docs/errors.md --tests tests --root .
      Every entry (a heading "### E-...") has a code or exit code, key words, ranks, data,
      what to do and tests; every entry is named by at least one file under tests/ (or says
      "Tests: none - <why>"); every identifier a test names is an entry; every file an
      entry lists exists, names the gtest cases given in brackets after it, and, if it
      names catalogue identifiers at all, names this one.
  check_catalogue.py --self-test DIR
      Shows that the check fails on drift: runs it on a consistent fixture (must pass) and
      on one with an unnamed entry and an unknown identifier (must fail), in DIR.
Exit code 0 when all holds; the problems are listed otherwise.
"""
import argparse
import pathlib
import re
import subprocess
import sys

IDENTIFIER = re.compile(r"(?<![\w-])E-[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*(?![\w-])")
SOURCE_SUFFIXES = {".cpp", ".hpp", ".c", ".h", ".f90", ".cmake", ".py", ".txt"}
FIELDS = ["Key words", "Ranks", "Data", "Do", "Tests"]


def read_entries(doc):
    """{identifier: {field: text}} from the '### E-...' sections of the page."""
    entries, problems, current = {}, [], None
    for line in doc.read_text().splitlines():
        if line.startswith("### "):
            name = line[4:].strip()
            if not IDENTIFIER.fullmatch(name):
                problems.append(f"heading '{line}' is not an identifier like E-ARG-DOM")
                current = None
                continue
            if name in entries:
                problems.append(f"{name}: two entries")
            current = entries.setdefault(name, {})
        elif line.startswith("#"):
            current = None
        elif current is not None:
            match = re.match(r"- \*\*([A-Za-z ]+):\*\* ?(.*)", line)
            if match:
                current[match.group(1)] = match.group(2)
            elif line.startswith("  ") and current:
                last = list(current)[-1]
                current[last] += " " + line.strip()
    return entries, problems


def named_identifiers(tests, skip):
    """{identifier: [files naming it]} over the test sources."""
    named = {}
    for path in sorted(tests.rglob("*")):
        if not path.is_file() or path.suffix not in SOURCE_SUFFIXES or path.resolve() == skip:
            continue
        for name in set(IDENTIFIER.findall(path.read_text(errors="replace"))):
            named.setdefault(name, []).append(path)
    return named


def check(doc, tests, root):
    entries, problems = read_entries(doc)
    named = named_identifiers(tests, pathlib.Path(__file__).resolve())
    naming_files = {f.resolve() for files in named.values() for f in files}
    untested = []
    for name, fields in sorted(entries.items()):
        if "Code" not in fields and "Exit code" not in fields:
            problems.append(f"{name}: no Code or Exit code")
        for field in FIELDS:
            if not fields.get(field, "").strip():
                problems.append(f"{name}: no {field}")
        if not re.search(r"`[^`]+`", fields.get("Key words", "")):
            problems.append(f"{name}: no key words in backticks")
        listed = fields.get("Tests", "")
        if listed.startswith("none"):
            if not re.match(r"none\s+\S+\s+\S", listed):
                problems.append(f"{name}: 'Tests: none' needs a reason")
            untested.append(name)
            continue
        if name not in named:
            problems.append(f"{name}: no test names it")
        for path_text in re.findall(r"`(tests/[^`]*)`", listed):
            path = root / path_text
            if not path.exists():
                problems.append(f"{name}: lists {path_text}, which does not exist")
            elif path.is_file() and path.resolve() in naming_files and name not in path.read_text(errors="replace"):
                problems.append(f"{name}: lists {path_text}, which names other entries but not this one")
        for path_text, cases in re.findall(r"`(tests/[^`]*)` \(([^)`]*)\)", listed):
            path = root / path_text
            if not path.is_file():
                continue
            text = path.read_text(errors="replace")
            for case in (c.strip() for c in cases.split(",")):
                if case and case not in text:
                    problems.append(f"{name}: {path_text} has no test {case}")
    for name, files in sorted(named.items()):
        if name not in entries:
            where = ", ".join(str(f.relative_to(tests)) for f in files)
            problems.append(f"{name}: named by {where} but not an entry of {doc.name}")
    return entries, untested, problems


def self_test(work):
    """The check passes on a consistent fixture and fails on a drifting one."""
    work.mkdir(parents=True, exist_ok=True)
    entry = ("### {0}\nWhat it is.\n- **Code:** `state`\n- **Key words:** `word`\n- **Ranks:** this rank.\n"
             "- **Data:** unchanged.\n- **Do:** nothing.\n- **Tests:** `tests/a_test.cpp`\n\n")
    outcomes = {}
    for case, (doc_ids, test_ids) in {"consistent": (["E-FOO-ONE"], ["E-FOO-ONE"]),
                                      "drifting": (["E-FOO-ONE", "E-FOO-TWO"], ["E-FOO-ONE", "E-FOO-THREE"])}.items():
        root = work / case
        (root / "tests").mkdir(parents=True, exist_ok=True)
        (root / "errors.md").write_text("# Errors\n\n## Group\n\n" + "".join(entry.format(i) for i in doc_ids))
        (root / "tests" / "a_test.cpp").write_text("".join(f'expect_entry("{i}");\n' for i in test_ids))
        run = subprocess.run([sys.executable, __file__, "--doc", str(root / "errors.md"), "--tests",
                              str(root / "tests"), "--root", str(root)], capture_output=True, text=True)
        outcomes[case] = (run.returncode, run.stdout + run.stderr)
    ok = outcomes["consistent"][0] == 0
    drift_output = outcomes["drifting"][1]
    ok = ok and outcomes["drifting"][0] != 0
    ok = ok and "E-FOO-TWO: no test names it" in drift_output and "E-FOO-THREE: named by" in drift_output
    for case, (code, output) in outcomes.items():
        print(f"--- {case}: exit {code}\n{output}")
    print("self-test " + ("passed: the check fails on drift" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--doc", type=pathlib.Path)
    parser.add_argument("--tests", type=pathlib.Path)
    parser.add_argument("--root", type=pathlib.Path)
    parser.add_argument("--self-test", type=pathlib.Path, dest="self_test")
    args = parser.parse_args()
    if args.self_test:
        return self_test(args.self_test)
    if not (args.doc and args.tests and args.root):
        parser.error("--doc, --tests and --root are needed")
    entries, untested, problems = check(args.doc, args.tests, args.root)
    print(f"{args.doc}: {len(entries)} entries, {len(entries) - len(untested)} of them exercised by tests"
          + (f"; no test can provoke: {', '.join(untested)}" if untested else ""))
    for problem in problems:
        print("PROBLEM: " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
