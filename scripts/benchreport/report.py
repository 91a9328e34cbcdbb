# SPDX-License-Identifier: GPL-2.0
"""From results to report: each scenario's summary, targets and notes, and
BENCHMARKS.md, the scenarios' sections inside templates/report.md.

Everything here is made from what results.json holds (raw, machine,
sizes, failures, plots), so that the report renders again from the json
alone.  The notes come in this order: the missed targets, then the met
ones within noise (both in the Targets table's order), what the
scenarios observed, the report's own caveats, and the scenarios' standing
notes.
"""
from . import template
from .cells import g3
from .design import DEVICE
from .registry import SCENARIOS, by_targets
from .scenarios import Target


def summarize(raw):
    """results.json's summary: every scenario's part, then what relates
    them."""
    s = {}
    for sc in SCENARIOS:
        if hasattr(sc, "summarize"):
            s.update(sc.summarize(raw))
    for sc in SCENARIOS:
        if hasattr(sc, "relate"):
            s.update(sc.relate(s, raw))
    return s


def sections():
    """section_NAME for every scenario: the number of the section its
    template opens, or of the one it follows on in."""
    out, cur = {}, ""
    for sc in SCENARIOS:
        found = template.load(sc.NAME).sections()
        out["section_" + sc.NAME] = found[0] if found else cur
        cur = found[-1] if found else cur
    return out


class Run:
    """One run's results, and what the scenarios make of them."""

    def __init__(self, raw, machine, sizes=None, failures=None):
        self.raw, self.machine = raw, machine
        self.sizes, self.failures = sizes or {}, failures or []
        self.summary = summarize(raw)
        # Values every template may use.  Round one of a pool fills it;
        # rounds two and on find its CQs (the storm's warm rounds).  A ratio
        # of one: the sides even.
        self.common = dict(sections(), device=DEVICE, first_round="1", second_round="2",
                           even="1")
        self.targets = targets(self)
        self.notes = notes(self)

    @classmethod
    def of(cls, res):
        """The run results.json @res holds."""
        return cls(res["raw"], res["machine"], res.get("sizes"), res.get("failures"))

    def text(self, scenario, block="body", /, **values):
        """Block @block of templates/@scenario.md, with @values and the
        common ones."""
        clash = set(values) & set(self.common)
        if clash:
            raise template.TemplateError("%s: %s are common values" % (scenario, sorted(clash)))
        return template.load(scenario).render(block, {**self.common, **values})

    def line(self, scenario, block, /, **values):
        """The same as one line, for a note."""
        return template.one_line(self.text(scenario, block, **values))

    def results(self):
        """What results.json holds of this: summary, targets, notes."""
        return {"summary": self.summary, "targets": [t.public() for _, t in self.targets],
                "notes": self.notes}


def targets(run):
    """(scenario, Target) in the Targets table's order; a scenario with
    targets and no result misses them all, after the others."""
    found, missing = [], []
    for sc in by_targets():
        if not hasattr(sc, "targets"):
            continue
        got = sc.targets(run)
        found += [(sc, t) for t in got]
        if not got:
            missing.append((sc, Target("%s: every target" % sc.NAME, missing=True)))
    return found + missing


def missed(run, sc, t, given):
    """A missed target's note.  A scenario's targets with one why_key share
    a reason: the first gives it, the rest point to it (@given: the keys
    given)."""
    if t.value is None:
        why = run.line("report", "no_result")
    else:
        key = (sc.NAME, t.why_key)
        if t.why_key and key in given:
            why = run.line("report", "see_above")
        else:
            why = sc.why(t, run) if hasattr(sc, "why") else ""
            given.add(key)
        if t.note:
            why = run.line("report", "straddles", rounds=t.note, why=why)
    return run.line("report", "missed_note", target=t.name, value=g3(t.value), why=why)


def notes(run):
    """The report's notes, in the order the module's docstring gives."""
    out, given = [], set()
    for sc, t in run.targets:
        if not t.met:
            out.append(missed(run, sc, t, given))
    for sc, t in run.targets:
        if t.met and t.note:
            out.append(run.line("report", "met_straddles", target=t.name,
                                value=g3(t.value), rounds=t.note))
        noise = t.met and hasattr(sc, "noise") and sc.noise(t, run)
        if noise:
            out.append(noise)
    for sc in SCENARIOS:
        if hasattr(sc, "notes"):
            out += sc.notes(run)
    cores = run.machine.get("host_cores")
    out.append(run.line("report", "first_touch"))
    out.append(run.line("report", "emulated", host="%d-core" % cores if cores else "shared"))
    out += [run.line(sc.NAME, "standing") for sc in SCENARIOS
            if "standing" in template.load(sc.NAME).blocks]
    return out


def scenario_sections(run):
    """The scenarios' sections, in order; a heading that repeats the one
    above (two scenarios of one section) is given once."""
    parts, last = [], None
    for sc in SCENARIOS:
        values = sc.values(run)
        if values is None:
            continue
        text = run.text(sc.NAME, "body", **values)
        head, _, rest = text.partition("\n")
        if head.startswith("#") and head == last:
            text = rest.lstrip("\n")
        last = ([x for x in text.splitlines() if x.startswith("#")] or [last])[-1]
        parts.append(text)
    return "\n\n".join(parts)


def machine_values(run):
    """The machine table's values, as the run recorded them."""
    m = run.machine
    debug = {True: "debug_on", False: "debug_off"}.get(m.get("debug"))
    return {
        "rounds": "%s" % m.get("rounds"), "kernel": "%s" % m.get("kernel", "?"),
        "debug": " " + run.line("report", debug) if debug else "",
        "vcpus": "%s" % m.get("vcpus"), "accel": "%s" % m.get("accel"),
        "guest_mem": "%s" % m.get("guest_mem"), "host_cpu": "%s" % m.get("host_cpu"),
        "vectors": "%s" % m.get("num_comp_vectors"), "nvec": "%s" % m.get("nvec"),
        "date": "%s" % m.get("date"), "commit": "%s" % m.get("commit"),
        "dirty": " " + run.line("report", "dirty") if m.get("dirty") else "",
        "elapsed": "%s" % m.get("elapsed_s"),
    }


def markdown(run, plots=()):
    """BENCHMARKS.md of @run, its charts @plots [(title, path)]: the whole
    file, which ends in a blank line, as it always has."""
    rows = [run.text("report", "target", target=t.name, value=g3(t.value),
                     verdict=run.text("report", "met" if t.met else "missed"))
            for _, t in run.targets]
    about = [sc.about_targets(run) for sc in SCENARIOS if hasattr(sc, "about_targets")]
    images = [run.text("report", "chart", title=t, path=p) for t, p in plots]
    failures = "; ".join(run.failures)
    return run.text(
        "report", **machine_values(run),
        failures=run.text("report", "failures", failures=failures) if failures else "",
        targets="\n".join(rows), about_targets="\n\n".join(filter(None, about)),
        charts=run.text("report", "charts", images="\n\n".join(images)) if images else "",
        sections=scenario_sections(run),
        notes="\n".join(run.text("report", "note", note=n) for n in run.notes)) + "\n\n"
