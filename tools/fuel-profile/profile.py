#!/usr/bin/env python3
"""Where a program's fuel goes inside the guest, deterministically.

Fuel is deterministic, so running the same program with a budget of F
units stops it at the same place every time. This script runs it with
budgets spread evenly between FROM and TO, and reads the guest's stack at
each stop (printed by the runtime with fuel-trace.patch applied): a sample
every (TO - FROM) / SAMPLES units, with no timer and no noise.

A sample lands where the guest next checks its fuel: at a function's entry
or a loop's header. The fuel burnt since the previous check (the rest of a
loop's body, or a caller's straight-line code before a call) is charged
there. Read "self" shares per function, and the loops under "loops", with
that in mind.

Usage (see README.md):
  profile.py --core guest.core.wasm      # the guest's core module, to disassemble
  profile.py PROGRAM FROM TO [SAMPLES] [--coderun PATH] [--disassembly FILE]
"""

import argparse
import bisect
import collections
import concurrent.futures
import os
import re
import subprocess
import sys

COMPONENT_CORE_MODULE = 1
WASM_CODE_SECTION = 10


def leb128(data, at):
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def core_module(component):
    """Where the guest's first core module (QuickJS and the guest's Rust)
    lies in the component, as (start, size): the runtime reports offsets
    in the component's bytes, and a disassembler wants the module alone."""
    at = 8
    while at < len(component):
        section = component[at]
        size, body = leb128(component, at + 1)
        if section == COMPONENT_CORE_MODULE:
            return body, size
        at = body + size
    raise SystemExit("no core module in the component")


def code_body(module):
    """Where the core module's code section's contents start, in the
    module: `llvm-objdump -d` gives addresses from there (its first
    function at 2, past the count of functions)."""
    at = 8
    while at < len(module):
        section = module[at]
        size, body = leb128(module, at + 1)
        if section == WASM_CODE_SECTION:
            return body
        at = body + size
    raise SystemExit("no code section in the core module")


def demangle(name):
    match = re.match(r"_ZN(.*)17h[0-9a-f]{16}E$", name)
    if not match:
        return name
    text, parts, at = match.group(1), [], 0
    while at < len(text):
        end = at
        while text[end].isdigit():
            end += 1
        length = int(text[at:end])
        parts.append(text[end:end + length])
        at = end + length
    name = "::".join(parts[-2:])
    for escape, char in (("$LT$", "<"), ("$GT$", ">"), ("$u20$", " "), ("$C$", ","), ("..", "::")):
        name = name.replace(escape, char)
    return name


def sample(coderun, program, fuel):
    run = subprocess.run(
        [coderun, "run", "--no-demo", "--max-value-bytes", "1000000000", "--fuel", str(fuel), program],
        env={**os.environ, "CODERUN_FUEL_TRACE": "1"},
        capture_output=True,
        text=True,
    )
    for line in run.stderr.splitlines():
        if line.startswith("FUELTRACE "):
            offset, frames = line[len("FUELTRACE "):].split(" ", 1)
            return (int(offset) if offset != "-" else None), frames.split(";")
    return None


def loops_of(disassembly):
    """Function starts and loop headers, from `llvm-objdump -d` of the core
    module (addresses are offsets in its code section's contents)."""
    functions, loops, code = [], [], None
    for line in open(disassembly):
        match = re.match(r"^([0-9a-f]+) <(.*)>:$", line)
        if match:
            if match.group(2) == "CODE":
                code = int(match.group(1), 16)
                continue
            functions.append((int(match.group(1), 16), match.group(2)))
            continue
        match = re.match(r"^\s*([0-9a-f]+):.*\sloop\s", line)
        if match:
            loops.append(int(match.group(1), 16))
    # llvm-objdump 19 gives addresses from the module's start, under a
    # `<CODE>` label at the code section's contents; older ones from there.
    if code is not None:
        functions = [(address - code, name) for address, name in functions]
        loops = [address - code for address in loops]
    return functions, loops


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("program", nargs="?")
    parser.add_argument("start", type=int, nargs="?", help="the fuel where the part to profile starts")
    parser.add_argument("end", type=int, nargs="?", help="the fuel where it ends (the run's total, for the rest of it)")
    parser.add_argument("samples", type=int, nargs="?", default=400)
    parser.add_argument("--core", help="write the guest's core module to this file, and stop")
    parser.add_argument("--coderun", default="target/debug/coderun")
    parser.add_argument("--guest", default="coderun-guest/coderun-guest.wasm")
    parser.add_argument("--disassembly", help="llvm-objdump -d of the guest's core module, for loops")
    args = parser.parse_args()
    if args.core:
        component = open(args.guest, "rb").read()
        start, size = core_module(component)
        open(args.core, "wb").write(component[start:start + size])
        return
    if args.program is None or args.start is None or args.end is None:
        parser.error("PROGRAM, FROM and TO are needed")

    budgets = [args.start + (args.end - args.start) * (i + 0.5) / args.samples for i in range(args.samples)]
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        stops = [s for s in pool.map(lambda fuel: sample(args.coderun, args.program, int(fuel)), budgets) if s]
    if not stops:
        sys.exit("no sample: is fuel-trace.patch applied, and does the run reach FROM?")
    share = lambda count: f"{count * 100 / len(stops):6.1f}%"
    own, within, callers = collections.Counter(), collections.Counter(), collections.Counter()
    for _, frames in stops:
        names = [demangle(frame) for frame in frames]
        own[names[-1]] += 1
        within.update(set(names))
        callers[" < ".join(reversed(names[-3:]))] += 1
    print(f"{len(stops)} samples of {args.samples}, one every {(args.end - args.start) / args.samples:.0f} units")
    for title, counter in (("self", own), ("inclusive", within), ("innermost three frames", callers)):
        print(f"--- {title}")
        for name, count in counter.most_common(25):
            print(f"{share(count)}  {name}")
    if args.disassembly:
        component = open(args.guest, "rb").read()
        start, size = core_module(component)
        # The runtime's offsets count from the component's start.
        start += code_body(component[start:start + size])
        functions, loops = loops_of(args.disassembly)
        starts = [address for address, _ in functions]
        places = collections.Counter()
        for offset, _ in stops:
            if offset is None:
                continue
            offset -= start
            function = functions[bisect.bisect_right(starts, offset) - 1]
            loop = bisect.bisect_right(loops, offset) - 1
            header = loops[loop] if loop >= 0 and loops[loop] >= function[0] else None
            where = f"loop at {header:#x}" if header is not None else "before its first loop"
            places[f"{demangle(function[1])}: {where}"] += 1
        print("--- where in each function (the last loop header at or before the stop)")
        for place, count in places.most_common(30):
            print(f"{share(count)}  {place}")


if __name__ == "__main__":
    main()
