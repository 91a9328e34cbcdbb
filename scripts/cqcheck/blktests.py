# SPDX-License-Identifier: GPL-2.0
"""blktests: the verdicts of a kernel's two boots, upstream and takeover.

Each boot runs blktests' own ./check on the same tests.  What counts:

- every test the run asked for (by name, or every test of a group it
  named) is reported by both boots; ./check that aborted, or ran a test
  name that does not exist, reports nothing;
- a test upstream passes, the takeover passes; one upstream skips, the
  takeover does not fail; one upstream fails is listed, not failed;
- a test named in the must-pass list (make check's) passes in both: a
  skip is not a pass there;
- something passed upstream at all;
- the takeover's boot ran on cqpool: the takeover held reservations,
  cqpool held CQs, and ib_core's own pool held none (cq.log, sampled
  once a second by the payload);
- on a kernel with kmemleak, the boot scanned for leaks at its end.
"""

import os
import re


def results(check_log):
    """[(TEST, STATUS, REASON)] ./check reported, STATUS pass, fail or
    skip; TEST is the name and its condition ("nvme/003 (tr=rdma)")."""
    out = []
    cur = None
    for line in check_log.replace("\r", "").splitlines():
        m = re.match(r"^([a-z]+/(?:[0-9]+|\*\*\*))( \([a-z_]+=[^)]*\))?.*\[(passed|failed|not run)\]$",
                     line)
        if m:
            name = m.group(1) + (m.group(2) or "")
            status = {"passed": "pass", "failed": "fail", "not run": "skip"}[m.group(3)]
            cur = [name, status, ""]
            out.append(cur)
            continue
        # The first indented line after the verdict but its runtime.
        if cur and line.startswith("    ") and not re.match(r"^ +runtime[ \t]", line) \
                and not cur[2]:
            cur[2] = line.strip().replace("\t", " ")
    return [tuple(r) for r in out]


def base(test):
    """A reported test's name without its condition: "nvme/003"."""
    return test.split(" ", 1)[0]


def asked(tests, suite):
    """The test names a run of ./check @tests must report: each named
    test, and each test of each named group, as @suite's tests/ has them."""
    names = []
    for item in tests.split():
        if "/" in item:
            names.append(item)
            continue
        d = os.path.join(suite, "tests", item)
        names += sorted(f"{item}/{f}" for f in os.listdir(d)
                        if re.fullmatch(r"[0-9]+", f)) if os.path.isdir(d) else [item]
    return names


def verdicts(up, tk, wanted, must_pass=()):
    """[(NAME, OK, NOTE)]: a verdict for each test either boot reported
    or the run asked for (@wanted), from each boot's results()."""
    ups, tks = dict((r[0], r[1]) for r in up), dict((r[0], r[1]) for r in tk)
    out = []
    names = list(dict.fromkeys([r[0] for r in up] + [r[0] for r in tk]))
    for name in names:
        u, t = ups.get(name), tks.get(name)
        must = base(name) in must_pass
        if u is None or t is None:
            out.append((name, False, f"reported on {'the takeover' if u is None else 'upstream'} only"))
        elif must and (u != "pass" or t != "pass"):
            out.append((name, False, f"must pass: {u} upstream, {t} on the takeover"))
        elif u == "pass":
            out.append((name, t == "pass", "" if t == "pass" else f"passes upstream, {t} on the takeover"))
        elif u == "skip":
            out.append((name, t != "fail", "" if t != "fail" else "skipped upstream, fails on the takeover"))
        else:
            out.append((name, True, f"fails upstream, {t} on the takeover: upstream's, not cqpool's"))
    reported = {base(n) for n in names}
    for name in wanted:
        if name not in reported:
            out.append((name, False, "asked for, and reported by neither boot"))
    if not any(s == "pass" for s in ups.values()):
        out.append(("upstream:anything-passed", False, "no test passed upstream: did ./check run?"))
    return out


def peaks(cq_log):
    """{OWNER: (CQS, CQES)}: the most each owner held at once in cq.log
    ("SECONDS OWNER CQS CQES" lines)."""
    out = {}
    for line in cq_log.splitlines():
        f = line.split()
        if len(f) != 4 or not f[2].isdigit() or not f[3].isdigit():
            continue
        c, e = out.get(f[1], (0, 0))
        out[f[1]] = (max(c, int(f[2])), max(e, int(f[3])))
    return out


def on_cqpool(cq_log):
    """(OK, NOTE): whether the takeover's boot put the ULPs on cqpool."""
    p = peaks(cq_log)
    cqp, core = p.get("[cqpool]", (0, 0)), p.get("[ib_core-pool]")
    res = p.get("[takeover-reservations]", (0, 0))[0]
    note = (f"takeover reservations {res}, [cqpool] {cqp[0]} CQs, "
            f"ib_core's pool {core[0] if core else 'not sampled'}")
    ok = res > 0 and cqp[0] > 0 and core is not None and core[0] == 0
    return ok, note


def kmemleak_scanned(console, rig="blktests-vm"):
    """Whether the boot's payload, whose lines start with @rig, scanned for
    leaks at its end (the splat scan fails any report it printed)."""
    return re.search(re.escape(rig) + r": \[[0-9.]+\] kmemleak scanned", console) is not None
