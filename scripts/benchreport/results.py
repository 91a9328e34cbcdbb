# SPDX-License-Identifier: GPL-2.0
"""results.json from a VM run: the BENCH lines of vm/payload-bench.sh
(and of the simulated day, appended by scripts/bench.sh), the machine
they ran on, and the sizes of cqpool.ko's objects.
"""
import datetime
import json
import os
import re
import subprocess

from .design import DEVICE, TOP


def parse(path):
    """The BENCH records of the log @path, by name, and its failures."""
    out, fails = {}, []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip().replace("\r", "")
            m = re.match(r"BENCH (\S+) (.*)$", line)
            if m:
                try:
                    out[m.group(1)] = json.loads(m.group(2))
                except json.JSONDecodeError as e:
                    fails.append("%s: bad JSON (%s)" % (m.group(1), e))
                continue
            m = re.match(r"BENCH-FAIL (\S+) (.*)$", line)
            if m:
                fails.append("%s: %s" % (m.group(1), m.group(2)))
    return out, fails


def pahole_sizes(ko):
    """The sizes of cqpool's objects in @ko's DWARF."""
    sizes = {}
    for s in ("cqpool_qp", "cqpool_hook", "cqpool_cq"):
        try:
            txt = subprocess.run(["pahole", "-C", s, ko], capture_output=True,
                                 text=True, check=False).stdout
        except OSError:
            break
        m = re.search(r"/\* size: (\d+)", txt)
        if m:
            sizes[s] = int(m.group(1))
    return sizes


def git(*args):
    try:
        return subprocess.run(["git", "--no-optional-locks", "-C", TOP] + list(args),
                              capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return ""


def host_cpu():
    """The host's CPU model and cores, and the cores alone."""
    name = ""
    try:
        with open("/proc/cpuinfo") as f:
            name = next((line.split(":", 1)[1].strip() for line in f
                         if line.startswith("model name")), "")
    except OSError:
        return "", None
    return name + ", %d cores" % os.cpu_count(), os.cpu_count()


def accel(cmdline):
    """QEMU's accelerator, from the command line the VM ran with."""
    if not cmdline or not os.path.exists(cmdline):
        return "?"
    with open(cmdline) as f:
        cmd = f.read()
    m = re.search(r"-accel (\w+)", cmd)
    return m.group(1).upper() if m else ("KVM" if "kvm" in cmd else "TCG")


def machine(raw, log, cmdline=None, commit=None, elapsed=None):
    """results.json's machine block: the guest's, as it reported itself,
    and the host's, as it is now."""
    mach = dict(raw.get("machine", {}))
    res = {
        "kernel": mach.get("kernel"), "vcpus": mach.get("vcpus"),
        "guest_mem": "%.1f GiB" % (mach.get("mem_kb", 0) / 1048576.0),
        "guest_cpu": mach.get("cpu"),
        # When the VM run ended (the results file's time), not when this ran.
        "date": datetime.datetime.fromtimestamp(os.path.getmtime(log), datetime.timezone.utc)
        .strftime("%Y-%m-%d %H:%M UTC"),
        "commit": (commit or git("rev-parse", "--short", "HEAD")).replace("-dirty", ""),
        "dirty": commit.endswith("-dirty") if commit else
        bool(git("status", "--porcelain", "--untracked-files=no")),
        "elapsed_s": int(elapsed) if elapsed else None,
        "rounds": (raw.get("storm") or raw.get("mixed") or {}).get("rounds"),
        "debug": None if "debug" not in mach else bool(mach["debug"]),
        "accel": accel(cmdline),
    }
    res["host_cpu"], cores = host_cpu()
    if cores:
        res["host_cores"] = cores
    devices = raw.get("devices") or []
    if isinstance(devices, dict):
        devices = devices.get("devices", [])
    for d in devices:
        if isinstance(d, dict) and d.get("name") == DEVICE:
            res["num_comp_vectors"] = d.get("num_comp_vectors")
            res["nvec"] = d.get("nvec")
    return res
