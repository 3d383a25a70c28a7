"""Output paths of the Python scripts, checked before they measure or draw anything (issue 42),
as src/tools/outputs.cpp checks the tools': an output that is a folder, whose folder is
missing, not a folder or not writable, that is the same file as another output or as a file
the run reads, is refused with a message naming the option and the path.

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
    from output_paths import refuse_folder, refuse_outputs
    refuse_outputs("plot_model", [("--out", args.out)], [("input", f) for f in args.files])
"""
import os
import sys


def same_file(a, b):
    """Whether paths a and b name one existing file (./x and x, links, d/../x)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def output_problem(outputs, inputs=()):
    """The first problem of `outputs` ((name, path) pairs; an empty path is an option not
    given) against each other and `inputs`, or ""."""
    for index, (name, path) in enumerate(outputs):
        if not path:
            continue
        what = "%s '%s'" % (name, path)
        if os.path.isdir(path):
            return what + " is a folder, not a file"
        folder = os.path.dirname(path) or "."
        if not os.path.exists(folder):
            return what + ": its folder '%s' does not exist" % folder
        if not os.path.isdir(folder):
            return what + ": '%s' is not a folder" % folder
        if not os.access(folder, os.W_OK | os.X_OK):
            return what + ": its folder '%s' is not writable" % folder
        for other_name, other in outputs[:index]:
            if other and (os.path.abspath(other) == os.path.abspath(path) or same_file(other, path)):
                return "%s is the same file as %s '%s': one would overwrite the other; give each output a path " \
                       "of its own" % (what, other_name, other)
        for input_name, input_path in inputs:
            if input_path and same_file(input_path, path):
                return "%s is the same file as %s '%s', which this run reads; write to another path" % (
                    what, input_name, input_path)
    return ""


def refuse_folder(program, name, path, must_exist):
    """Exits with status 2 if the output folder `path` is a file, or is missing and `must_exist`."""
    if os.path.exists(path) and not os.path.isdir(path):
        problem = "%s '%s' is a file, not a folder" % (name, path)
    elif must_exist and not os.path.exists(path):
        problem = "%s '%s' does not exist; create it or name another folder" % (name, path)
    else:
        return
    print("%s: error: %s; nothing was run" % (program, problem), file=sys.stderr)
    sys.exit(2)


def refuse_outputs(program, outputs, inputs=()):
    """Exits with status 2 and the problem on stderr if output_problem finds one."""
    problem = output_problem(outputs, inputs)
    if problem:
        print("%s: error: %s; nothing was run" % (program, problem), file=sys.stderr)
        sys.exit(2)
