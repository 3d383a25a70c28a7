#!/usr/bin/python3
"""Plots gsr-model predictions (docs/scaling.md): the predicted time per call of every
exchange method (the slowest virtual rank's) against the number of ranks P, one panel per
file (weak and strong scaling side by side), with the rank counts where the winner changes
marked by dotted lines and named.

    /usr/bin/python3 scripts/plot_model.py [--out FILE.png] weak.json strong.json ...

Each FILE.json is what `gsr-model --json FILE.json` wrote. Needs Debian's python3-matplotlib.
"""
import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # scripts/lib/output_paths.py: no __pycache__ in the checkout
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from output_paths import refuse_outputs  # noqa: E402


def load(path):
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    if document.get("tool") != "gsr-model":
        sys.exit("plot_model: %s is not a gsr-model JSON file" % path)
    return document


def title(document):
    problem = document["problem"]
    if problem["kind"] == "mesh":
        return "mesh %s" % problem["file"]
    size = ("%d elements per rank" % problem["elements_per_rank"] if document["scaling"] == "weak"
            else "%s elements" % "x".join(str(e) for e in problem["elements"]))
    return "%s scaling, %dD box, N = %d, %s, %s" % (document["scaling"], problem["dim"], problem["order"],
                                                   problem["partition"], size)


def crossovers(results):
    """(P, previous winner, new winner) where the winner changes between rank counts."""
    changes = []
    for before, after in zip(results, results[1:]):
        if before["winner"] != after["winner"]:
            changes.append((after["ranks"], before["winner"], after["winner"]))
    return changes


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", help="gsr-model --json outputs")
    parser.add_argument("--out", default="model.png", help="the picture to write (default model.png)")
    args = parser.parse_args()
    refuse_outputs("plot_model", [("--out", args.out)], [("the input", path) for path in args.files])

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    documents = [load(path) for path in args.files]
    figure, axes = plt.subplots(1, len(documents), figsize=(6.5 * len(documents), 4.8), squeeze=False)
    for axis, document in zip(axes[0], documents):
        results = document["results"]
        methods = [m["method"] for m in results[0]["methods"]] if results else []
        for method in methods:
            points = [(r["ranks"], next(m["predicted_seconds"] for m in r["methods"] if m["method"] == method))
                      for r in results]
            axis.loglog([p for p, _ in points], [t * 1e6 for _, t in points], marker="o", markersize=3,
                        label=method)
        for ranks, before, after in crossovers(results):
            axis.axvline(ranks, color="grey", linestyle=":", linewidth=1)
            axis.annotate("%s -> %s" % (before, after), (ranks, 1), xycoords=("data", "axes fraction"),
                          rotation=90, va="top", ha="right", fontsize=7, color="grey")
        axis.set_xlabel("ranks P")
        axis.set_ylabel("predicted us per call (slowest rank)")
        axis.set_title(title(document), fontsize=9)
        axis.grid(True, which="both", alpha=0.3)
        axis.legend(fontsize=8)
    figure.suptitle("gsr-model: alpha %.3g s, beta %.3g s/byte" % (documents[0]["alpha_seconds"],
                                                                   documents[0]["beta_seconds_per_byte"]), fontsize=10)
    figure.tight_layout()
    figure.savefig(args.out, dpi=120)
    print(args.out)


if __name__ == "__main__":
    main()
