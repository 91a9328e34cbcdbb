# SPDX-License-Identifier: GPL-2.0
"""The VM runs of make check, as data: vm/matrix.toml.

``load()`` reads and checks the file (an unknown key, kernel, build or
payload is an error, not a row that silently does less), ``rows()`` gives
the rows of one of make check's modes with every per-mode value resolved,
``table()`` the Markdown table of kernels that TESTING.md carries, and
``expect()`` what a boot must report (expect.py's file).  The runner
(runner.py) does the rest.
"""

import os
import re
import tomllib
from dataclasses import dataclass, field

MODES = ("fast", "full", "all")
PAYLOADS = ("tests", "dkms", "deb", "blktests", "soak")
KINDS = ("stock", "debug", "kcsan")
ROW_KEYS = {"label", "kernel", "accel", "vcpus", "mem", "timeout", "cores",
            "modes", "payload", "modules", "tests", "kunit", "races",
            "may_skip", "env", "after", "blktests", "soak_minutes", "why"}
# What a row must name, by payload.
NEEDS = {"tests": ("modules", "tests"), "dkms": (), "deb": (), "blktests": ("blktests",),
         "soak": ("modules", "soak_minutes")}
AFTER = ("coverage",)


@dataclass
class Kernel:
    """A kernel the matrix boots."""

    key: str
    name: str
    kind: str
    series: str
    about: str


@dataclass
class Build:
    """A test build of cqpool the runner makes, once, for its rows."""

    label: str
    kernel: Kernel
    args: list


@dataclass
class Row:
    """One VM run, its values resolved for one mode."""

    label: str
    kernel: Kernel
    payload: str
    accel: str
    vcpus: int
    mem: str
    timeout: int
    cores: int
    modes: list
    modules: str = ""
    build: Build = None
    tests: object = None        # "all" or a list of kselftests
    kunit: bool = False
    races: bool = False
    may_skip: dict = field(default_factory=dict)
    env: dict = field(default_factory=dict)
    after: str = ""
    blktests: str = ""
    soak_minutes: int = 0
    why: str = ""


class MatrixError(ValueError):
    """vm/matrix.toml says something the runner cannot do."""


def _per_mode(value, mode, what):
    """@value, or its entry for @mode when it is a table by mode."""
    if isinstance(value, dict) and value and set(value) <= set(MODES):
        if mode not in value:
            raise MatrixError(f"{what}: no value for mode {mode}")
        return value[mode]
    return value


def load(path):
    """The matrix of @path, checked: (kernels, builds, raw rows, defaults)."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    unknown = set(data) - {"defaults", "kernels", "builds", "run"}
    if unknown:
        raise MatrixError(f"unknown tables: {sorted(unknown)}")
    kernels = {}
    for key, k in data.get("kernels", {}).items():
        if set(k) != {"name", "kind", "series", "about"} or k["kind"] not in KINDS:
            raise MatrixError(f"kernel {key}: needs name, kind ({'/'.join(KINDS)}), series, about")
        kernels[key] = Kernel(key, k["name"], k["kind"], k["series"], k["about"])
    builds = {}
    for label, b in data.get("builds", {}).items():
        if set(b) != {"kernel", "args"} or b["kernel"] not in kernels:
            raise MatrixError(f"build {label}: needs a known kernel and args")
        builds[label] = (kernels[b["kernel"]], b["args"])
    defaults = data.get("defaults", {})
    raw = data.get("run", [])
    labels = set()
    for r in raw:
        what = f"run {r.get('label', '?')}"
        unknown = set(r) - ROW_KEYS
        if unknown:
            raise MatrixError(f"{what}: unknown keys {sorted(unknown)}")
        if "label" not in r or r["label"] in labels:
            raise MatrixError(f"{what}: no label, or one taken")
        labels.add(r["label"])
        if r.get("kernel") not in kernels:
            raise MatrixError(f"{what}: no kernel, or an unknown one")
        if r.get("payload") not in PAYLOADS:
            raise MatrixError(f"{what}: payload is one of {PAYLOADS}")
        for need in NEEDS[r["payload"]]:
            if need not in r:
                raise MatrixError(f"{what}: a {r['payload']} row names {need}")
        if set(r.get("modes", defaults.get("modes", []))) - set(MODES):
            raise MatrixError(f"{what}: modes are {MODES}")
        if r.get("after", "") not in ("",) + AFTER:
            raise MatrixError(f"{what}: after is one of {AFTER}")
    return kernels, builds, raw, defaults


def rows(path, mode):
    """The rows that run in @mode, in the file's order, resolved."""
    if mode not in MODES:
        raise MatrixError(f"mode is one of {MODES}")
    kernels, builds, raw, defaults = load(path)
    out = []
    for r in raw:
        v = dict(defaults)
        v.update(r)
        if mode not in v["modes"]:
            continue
        what = f"run {v['label']}"
        row = Row(label=v["label"], kernel=kernels[v["kernel"]], payload=v["payload"],
                  accel=v["accel"], vcpus=v["vcpus"], mem=v["mem"],
                  timeout=v["timeout"], cores=v["cores"], modes=v["modes"],
                  modules=v.get("modules", ""),
                  tests=_per_mode(v.get("tests"), mode, what),
                  kunit=_per_mode(v["kunit"], mode, what),
                  races=_per_mode(v["races"], mode, what),
                  may_skip=v.get("may_skip", {}),
                  env=_per_mode(v.get("env", {}), mode, what),
                  after=v.get("after", ""), blktests=v.get("blktests", ""),
                  soak_minutes=v.get("soak_minutes", 0), why=v.get("why", ""))
        if row.modules in builds:
            kernel, args = builds[row.modules]
            row.build = Build(row.modules, kernel, _per_mode(args, mode, f"build {row.modules}"))
        if row.tests is not None and row.tests != "all" and not isinstance(row.tests, list):
            raise MatrixError(f"{what}: tests is \"all\" or a list")
        out.append(row)
    return out


def selftests(row, available):
    """The kselftests @row runs, of the binaries @available."""
    if row.tests == "all":
        return sorted(available)
    missing = [t for t in row.tests if t not in available]
    if missing:
        raise MatrixError(f"run {row.label}: no kselftest {missing}")
    return list(row.tests)


def kunit_suites(paths):
    """The KUnit suite names the C files of @paths declare."""
    out = []
    for p in paths:
        with open(p) as f:
            text = f.read()
        for body in re.findall(r"static struct kunit_suite \w+ = \{(.*?)\};", text, re.S):
            m = re.search(r'\.name = "([^"]+)"', body)
            if m:
                out.append(m.group(1))
    return out


def expect(row, available, kunit_dir):
    """The expect file (expect.py) of a tests row's boot."""
    lines = []
    for t in selftests(row, available):
        reason = row.may_skip.get(t)
        lines.append(f"kselftest:{t}" + (f" may-skip: {reason}" if reason else ""))
    tests = sorted(os.path.join(kunit_dir, f) for f in os.listdir(kunit_dir)
                   if f.endswith("_test.c"))
    if row.kunit:
        lines += [f"kunit:{s}" for s in kunit_suites(t for t in tests if "removal_race" not in t)]
    if row.races:
        lines += [f"races:{s}" for s in kunit_suites(t for t in tests if "removal_race" in t)]
    return "".join(line + "\n" for line in lines)


def _what(row):
    """What a row runs, in words, for the table."""
    if row.payload == "dkms":
        return "DKMS"
    if row.payload == "deb":
        later = row.env.get("CQPOOL_DEB_LATER_KERNEL") == "1"
        return ("the Debian packages, installed and purged by apt"
                + (", and DKMS's hook for a kernel installed later" if later else ""))
    if row.payload == "blktests":
        return f"blktests {row.blktests.replace(' ', ', ')}"
    if row.payload == "soak":
        return f"the soak, {row.soak_minutes} minutes"
    parts = []
    if row.kunit:
        parts.append("KUnit")
    if row.races:
        parts.append("the removal races")
    if row.tests == "all":
        parts.append("every kselftest")
    elif row.tests:
        parts.append(", ".join(f"`{t}`" for t in row.tests))
    text = ", ".join(parts)
    if row.vcpus != 2:
        text += f" ({row.vcpus} vCPUs)"
    if row.env:
        text += " (" + ", ".join(f"{k}={v}" for k, v in row.env.items()) + ")"
    return text


def table(path):
    """TESTING.md's table: a row a kernel, what each mode runs on it, and
    why a test may skip there."""
    kernels, _, _, _ = load(path)
    by_mode = {m: rows(path, m) for m in MODES}
    out = ["| kernel | what it is | `make check-fast` | `make check` | `make check-all` | why |",
           "| --- | --- | --- | --- | --- | --- |"]
    for k in kernels.values():
        cells = []
        for m in MODES:
            cells.append("; ".join(_what(r) for r in by_mode[m] if r.kernel.key == k.key) or "")
        skips, whys = {}, []
        for r in by_mode["all"]:
            if r.kernel.key == k.key:
                skips.update(r.may_skip)
                if r.why and r.why not in whys:
                    whys.append(r.why)
        note = " ".join(whys + [f"`{t}` may skip: {why}." for t, why in sorted(skips.items())])
        out.append(f"| {k.name} | {k.about} | " + " | ".join(cells) + f" | {note} |")
    return "\n".join(out) + "\n"
