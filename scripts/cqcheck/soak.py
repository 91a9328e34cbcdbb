# SPDX-License-Identifier: GPL-2.0
"""The soak (make soak): its verdicts, from soak_test's output.

soak_test prints ``soak sample {JSON}`` at boot, at the start (the
boot's state again, after a warm-up that did every action once), at
each idle checkpoint (everything torn down, the takeover on, the
targets made again, caches dropped and the kmalloc caches shrunk) and at the end, whose state is
the start's.  What counts, beside the binary's own result (kselftest.py)
and the console's splat scan:

- the samples are there: a boot, a start, an end, and at least 4
  checkpoints;
- at the end cqpool holds nothing, rxe0 has the CQs it started with,
  and every module's reference count is the start's; the kmalloc
  caches' bytes and objects in use are at most GROWTH above the start's.
  What the warm-up's first uses left, from boot to the start, is
  reported, not judged: the kernel keeps it (soak_test.c says what);
- from the first quarter of the checkpoints to the last nothing grew:
  the modules' reference counts are the same, and the kmalloc caches'
  bytes and objects in use grew by at most GROWTH of the first
  quarter's, the noise of a kernel that runs more than cqpool;
- every action ran: NVMe-oF connects, iSER logins, fio runs, takeover
  disables, cache drops and removals of rxe0, at least once each.
"""

import json
import os
import re

# The kmalloc caches' growth allowed from the first quarter to the last,
# and from the start to the end, as a fraction.
GROWTH = 0.02

ACTIONS = ("nvme", "iser", "fio", "takeover_cycles", "drops", "removals")

SAMPLE = re.compile(r"soak sample (\{.*\})\s*$")


def samples(log):
    """Every sample of @log, in order."""
    out = []
    for line in log.replace("\r", "").splitlines():
        m = SAMPLE.search(line)
        if m:
            out.append(json.loads(m.group(1)))
    return out


def quarters(idle):
    """The first and the last quarter of the checkpoints @idle."""
    n = max(1, len(idle) // 4)
    return idle[:n], idle[-n:]


def _moves(a, b):
    """[(change, key)] of the counts of dicts @a and @b that moved, the
    largest change first."""
    return sorted(((b.get(k, 0) - a.get(k, 0), k) for k in set(a) | set(b)
                   if b.get(k, 0) != a.get(k, 0)), key=lambda m: (-abs(m[0]), m[1]))


def _cache_moves(a, b, n=3):
    """The @n kmalloc caches whose objects moved most from @a to @b."""
    moves = _moves(a.get("caches", {}), b.get("caches", {}))
    return ", ".join(f"{c} {d:+}" for d, c in moves[:n])


def _grew(first, last, key):
    """Whether @key grew by more than GROWTH: (grew, note)."""
    a = max(s[key] for s in first)
    b = max(s[key] for s in last)
    return b > a * (1 + GROWTH), f"{key} {a} -> {b} ({(b - a) / a:+.1%})" if a else \
        f"{key} {a} -> {b}"


def verdicts(log):
    """[(NAME, OK, NOTE)] of the soak's samples in @log."""
    s = samples(log)
    boot = [x for x in s if x["kind"] == "boot"]
    start = [x for x in s if x["kind"] == "start"]
    end = [x for x in s if x["kind"] == "end"]
    idle = [x for x in s if x["kind"] == "idle"]
    out = []
    ok = len(boot) == 1 and len(start) == 1 and len(end) == 1 and len(idle) >= 4
    out.append(("soak:samples", ok,
                f"boot {len(boot)}, start {len(start)}, checkpoints {len(idle)}, "
                f"end {len(end)}"))
    if not ok:
        return out
    start, end = start[0], end[0]

    held = {k: v for k, v in end["cqpool"].items() if v}
    out.append(("soak:end:cqpool-empty", not held,
                "nothing held" if not held else f"held: {held}"))
    same = end["rxe0_cqs"] == start["rxe0_cqs"] and end["rxe0_cqes"] == start["rxe0_cqes"]
    out.append(("soak:end:cqs", same,
                f"rxe0 CQs {start['rxe0_cqs']} -> {end['rxe0_cqs']}, "
                f"CQEs {start['rxe0_cqes']} -> {end['rxe0_cqes']}"))
    moved = {m: (start["refs"][m], end["refs"].get(m))
             for m in start["refs"] if start["refs"][m] != end["refs"].get(m)}
    out.append(("soak:end:module-refs", not moved,
                "as at the start" if not moved else f"start -> end: {moved}"))
    notes = []
    grew = False
    for key in ("kmalloc_bytes", "kmalloc_objs"):
        g, note = _grew([start], [end], key)
        grew |= g
        notes.append(note)
    moves = _cache_moves(start, end)
    out.append(("soak:end:kmalloc", not grew,
                "; ".join(notes) + (f"; most moved: {moves}" if moves else "")))

    first, last = quarters(idle)
    moved = {m: ([x["refs"][m] for x in first], [x["refs"].get(m) for x in last])
             for m in first[0]["refs"]
             if {x["refs"][m] for x in first} != {x["refs"].get(m) for x in last}}
    out.append(("soak:growth:module-refs", not moved,
                "the same at every checkpoint of both" if not moved
                else f"first -> last quarter: {moved}"))
    notes = []
    grew = False
    for key in ("kmalloc_bytes", "kmalloc_objs"):
        g, note = _grew(first, last, key)
        grew |= g
        notes.append(note)
    out.append(("soak:growth:kmalloc", not grew, "; ".join(notes)))

    missing = [a for a in ACTIONS if not end["counts"].get(a)]
    out.append(("soak:actions", not missing,
                ", ".join(f"{a} {end['counts'].get(a, 0)}" for a in ACTIONS)
                + (f"; never: {', '.join(missing)}" if missing else "")))
    return out


def table(log, minutes):
    """The Markdown table of a soak's figures (TESTING.md)."""
    s = samples(log)
    boot = [x for x in s if x["kind"] == "boot"]
    start = [x for x in s if x["kind"] == "start"]
    end = [x for x in s if x["kind"] == "end"]
    idle = [x for x in s if x["kind"] == "idle"]
    if not boot or not start or not end or not idle:
        return (f"No figures: the run left {len(boot)} boot, {len(start)} start, "
                f"{len(idle)} checkpoint and {len(end)} end samples.\n")
    boot, start, end = boot[0], start[0], end[0]
    first, last = quarters(idle)
    c = end["counts"]
    rows = [
        ("duration", f"{minutes} min, {end['t'] / 60:.1f} min run, {len(idle)} idle checkpoints"),
        ("connections made", f"{c['nvme']} NVMe-oF, {c['iser']} iSER; {c['disconnects']} torn down"),
        ("fio runs (4 MiB written and verified)", str(c["fio"])),
        ("takeover disabled", str(c["takeover_cycles"])),
        ("caches dropped", str(c["drops"])),
        ("rxe0 removed and added back", str(c["removals"])),
        ("kmalloc in use, boot -> start (the warm-up's first uses)",
         f"{boot['kmalloc_bytes'] >> 10} -> {start['kmalloc_bytes'] >> 10} KiB, "
         f"{boot['kmalloc_objs']} -> {start['kmalloc_objs']} objects; "
         f"most moved: {_cache_moves(boot, start) or 'none'}"),
        ("kmalloc in use, start -> end",
         f"{start['kmalloc_bytes'] >> 10} -> {end['kmalloc_bytes'] >> 10} KiB, "
         f"{start['kmalloc_objs']} -> {end['kmalloc_objs']} objects; "
         f"most moved: {_cache_moves(start, end) or 'none'}"),
        ("kmalloc in use, first -> last quarter (max)",
         f"{max(x['kmalloc_bytes'] for x in first) >> 10} -> "
         f"{max(x['kmalloc_bytes'] for x in last) >> 10} KiB"),
        ("rxe0 CQs, start -> end", f"{start['rxe0_cqs']} -> {end['rxe0_cqs']}"),
        ("cqpool at the end", ", ".join(f"{k} {v}" for k, v in end["cqpool"].items())),
        ("module references, start -> end",
         ", ".join(f"{m} {start['refs'][m]}->{end['refs'].get(m)}" for m in start["refs"])),
    ]
    return "| | |\n| --- | --- |\n" + "".join(f"| {a} | {b} |\n" for a, b in rows)


# soak.sh -u: a sample's allocation sites, /sys/kernel/debug/slab's
# alloc_traces: "   N caller+off/len ..." and the stack's frames under it.
SITE = re.compile(r"^\s*(\d+) (\S+)")
FRAME = re.compile(r"^\s+(\S+)\+0x")
ALLOCATOR = re.compile(r"^(__kmem_cache|kmalloc|__kmalloc|kmem_cache|krealloc|kstrdup"
                       r"|kmemdup|kvasprintf|kasprintf|kvmalloc|__kvmalloc)")


def sites(text, frames=4):
    """{the first @frames frames above the allocator: objects} of @text."""
    out = {}
    count, stack = 0, []

    def done():
        if count:
            key = " < ".join([f for f in stack if not ALLOCATOR.match(f)][:frames])
            out[key] = out.get(key, 0) + count
    for line in text.splitlines():
        m = SITE.match(line)
        if m:
            done()
            count, stack = int(m.group(1)), []
            continue
        m = FRAME.match(line)
        if m:
            stack.append(m.group(1))
    done()
    return out


def _sample_sites(folder, n):
    """{(cache, site): objects} of sample @n in @folder, files N-KIND-CACHE."""
    out = {}
    for name in os.listdir(folder):
        num, _, kind_cache = name.partition("-")
        if num == str(n):
            cache = kind_cache.partition("-")[2]
            with open(os.path.join(folder, name)) as f:
                out.update({(cache, k): v for k, v in sites(f.read()).items()})
    return out


def sites_diff(folder, a, b, top=12):
    """Lines of the allocation sites whose objects moved most from sample
    @a to sample @b (their numbers), over every kmalloc cache in @folder."""
    moves = _moves(_sample_sites(folder, a), _sample_sites(folder, b))
    return [f"{d:+6} {cache:14} {k}" for d, (cache, k) in moves[:top]]
