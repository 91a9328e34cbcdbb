# SPDX-License-Identifier: GPL-2.0
"""python3 -m benchreport COMMAND (scripts/ on the path):

  build --results LOG --json OUT.json --md OUT.md [--plots DIR]
        [--qemu-cmdline F] [--ko cqpool.ko] [--elapsed S] [--commit C]
      what make bench does (scripts/bench-report.py is this): results.json
      from the VM run's BENCH lines, its charts, and the report rendered
      from that json.
  render --json results.json --md OUT.md [--plots DIR] [--update-json]
      the report again from a results.json alone, with this tree's
      scenarios and templates; with --plots, its charts drawn again into
      DIR (else the json's links are kept); with --update-json, the
      json's summary, targets and notes made again from its raw results
      by this tree, when a scenario's code or prose changed.
  lint [TEMPLATE.md ...]
      the templates (all by default) against template.py's rules: no
      figure outside a placeholder.
  selftest
      the package's unit tests (tests/).
"""
import argparse
import json
import os
import sys
import unittest

from . import results, template
from .report import Run, markdown


def draw(summary, plots, md):
    """The charts into @plots, as [(title, path relative to @md's directory)]."""
    import bench_plots  # matplotlib: only where charts are drawn

    md_dir = os.path.dirname(os.path.abspath(md))
    return [(title, os.path.relpath(os.path.join(plots, name), md_dir))
            for title, name in bench_plots.draw(summary, plots)]


def write(path, text):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def build(a):
    raw, fails = results.parse(a.results)
    if not raw:
        sys.exit("bench-report: no BENCH lines in %s" % a.results)
    mach = results.machine(raw, a.results, a.qemu_cmdline, a.commit, a.elapsed)
    run = Run(raw, mach, results.pahole_sizes(a.ko) if a.ko else {}, fails)
    res = {"machine": mach, "sizes": run.sizes, "failures": fails, "raw": raw,
           **run.results()}
    res["plots"] = draw(run.summary, a.plots or os.path.dirname(os.path.abspath(a.json)), a.md)
    text = json.dumps(res, indent=1, sort_keys=True) + "\n"
    write(a.json, text)
    # The report as it renders from the json just written, no other way.
    res = json.loads(text)
    write(a.md, markdown(Run.of(res), res["plots"]))
    return 0


def render(a):
    with open(a.json, encoding="utf-8") as f:
        res = json.load(f)
    run = Run.of(res)
    made = json.loads(json.dumps(run.results()))
    for key in made:
        if res.get(key) != made[key]:
            print("benchreport: %s's %s is not what this tree makes of its raw results; "
                  "the report has this tree's" % (a.json, key), file=sys.stderr)
    if a.update_json:
        res.update(made)
        write(a.json, json.dumps(res, indent=1, sort_keys=True) + "\n")
    plots = draw(run.summary, a.plots, a.md) if a.plots else res.get("plots") or []
    write(a.md, markdown(run, plots))
    return 0


def lint(a):
    paths = a.templates or [template.path(n) for n in template.names()]
    problems = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            problems += template.lint(os.path.basename(p)[:-len(".md")], f.read())
    for p in problems:
        print(p)
    print("benchreport lint: %d templates, %d problems" % (len(paths), len(problems)),
          file=sys.stderr)
    return 1 if problems else 0


def selftest(_):
    here = os.path.dirname(os.path.abspath(__file__))
    suite = unittest.defaultTestLoader.discover(os.path.join(here, "tests"),
                                                top_level_dir=os.path.dirname(here))
    r = unittest.TextTestRunner(verbosity=2).run(suite)
    return 0 if r.wasSuccessful() and r.testsRun else 1


def parser():
    ap = argparse.ArgumentParser(prog="benchreport", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="results.json and the report from a VM run's log")
    b.add_argument("--results", required=True, help="the BENCH lines of the run")
    b.add_argument("--qemu-cmdline")
    b.add_argument("--ko")
    b.add_argument("--elapsed")
    b.add_argument("--commit", help="HEAD when the run was built; -dirty if changed")
    b.add_argument("--json", required=True)
    b.add_argument("--md", required=True)
    b.add_argument("--plots", help="directory for the SVG charts, beside --json by "
                   "default; linked from --md relative to it")
    b.set_defaults(fn=build)
    r = sub.add_parser("render", help="the report again from a results.json")
    r.add_argument("--json", required=True)
    r.add_argument("--md", required=True)
    r.add_argument("--plots", help="draw the charts again into this directory")
    r.add_argument("--update-json", action="store_true",
                   help="write the json's summary, targets and notes as this tree makes them")
    r.set_defaults(fn=render)
    li = sub.add_parser("lint", help="no figure in the templates")
    li.add_argument("templates", nargs="*")
    li.set_defaults(fn=lint)
    t = sub.add_parser("selftest", help="the package's unit tests")
    t.set_defaults(fn=selftest)
    return ap


def main(argv):
    a = parser().parse_args(argv)
    return a.fn(a)
