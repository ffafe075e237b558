"""What the benchmark reports say about the machine they ran on."""
import os
import pathlib
import platform
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent


def cpu_model():
    """The CPU's model name from /proc/cpuinfo, or "unknown CPU"."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def describe(load=None):
    """CPU, architecture and cores, with the load average when given."""
    text = f"{cpu_model()}, {platform.machine()}, {os.cpu_count()} cores"
    return text if load is None else f"{text} (load average {load} before the run)"


def locked_version(crate):
    """The version of `crate` in Cargo.lock, or "unknown"."""
    text = (ROOT / "Cargo.lock").read_text()
    found = re.search(r'name = "%s"\nversion = "([^"]+)"' % re.escape(crate), text)
    return found.group(1) if found else "unknown"
