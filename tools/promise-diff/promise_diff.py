#!/usr/bin/env python3
"""Random programs of promises, run by coderun and by Node, their logs compared.

Each seed makes a program of async functions awaiting values of every kind
(numbers, settled and rejected promises, thenables that resolve or reject,
promises a microtask settles later, other async calls, a subclass's
promise, a `then`'s promise, one promise many await), chains of `then`
and `catch`, the four combinators, `queueMicrotask` and `new Promise`,
each step logged. The
order of the log is the order in which the engine ran the jobs, so a
change to QuickJS's promises that moves a job shows as a difference from
Node. A tool for people changing the guest's QuickJS patch; it needs
`node` on the PATH.

Usage:
  promise_diff.py [--coderun target/debug/coderun] [--from 0] [--to 500] [--show SEED]
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

PRELUDE = [
    "const log = [];",
    "const all = [];",
    "const thenable = (v, tag) => ({ then(res, rej) { log.push('then ' + tag); "
    "if (v === 'bad') rej(new Error('t' + tag)); else res(v); } });",
    "const later = (v, tag) => new Promise((res) => queueMicrotask(() => "
    "{ log.push('later ' + tag); res(v); }));",
    "class Sub extends Promise {}",
    "const shared = later(7, 'shared');",
]


def program(seed):
    r = random.Random(seed)
    n_async = r.randrange(1, 7)

    def value(tag, before=None):
        """An expression to await or to settle with; `before` bounds which
        async functions it may call (none after the caller)."""
        calls = n_async if before is None else before
        return r.choice([
            "%d" % r.randrange(100),
            "Promise.resolve(%d)" % r.randrange(100),
            "Promise.reject(new Error('r%s'))" % tag,
            "thenable(%d, '%s')" % (r.randrange(100), tag),
            "thenable('bad', '%s')" % tag,
            "later(%d, '%s')" % (r.randrange(100), tag),
            "f%d()" % r.randrange(calls) if calls else "null",
            "Sub.resolve(%d)" % r.randrange(100),
            "Promise.resolve().then(() => %d)" % r.randrange(100),
            "shared",
        ])

    lines = list(PRELUDE)
    for i in range(n_async):
        body = ["log.push('f%d start');" % i]
        for j in range(r.randrange(1, 7)):
            tag = "f%d.%d" % (i, j)
            body.append("try { log.push('%s ' + String(await %s)); } "
                        "catch (e) { log.push('%s caught ' + e.message); }" % (tag, value(tag, i), tag))
        if r.random() < 0.3:
            body.append("throw new Error('f%d threw');" % i)
        body.append("return 'f%d done';" % i)
        lines.append("async function f%d() { %s }" % (i, " ".join(body)))
    for i in range(r.randrange(3, 12)):
        tag = "c%d" % i
        kind = r.randrange(6)
        if kind == 0:
            chain = "Promise.resolve(%d)" % i
            for j in range(r.randrange(1, 5)):
                if r.random() < 0.5:
                    result = r.choice(["v + 1", "thenable(v, '%s%d')" % (tag, j), "Promise.resolve(v)",
                                       "later(v, '%s%d')" % (tag, j)])
                    chain += ".then((v) => { log.push('%s.%d ' + v); return %s; })" % (tag, j, result)
                else:
                    chain += ".catch((e) => { log.push('%s.%d caught ' + e.message); return 0; })" % (tag, j)
            lines.append("all.push(%s);" % chain)
        elif kind == 1:
            lines.append("all.push(f%d().then((v) => log.push('%s ' + v), "
                         "(e) => log.push('%s rejected ' + e.message)));" % (r.randrange(n_async), tag, tag))
        elif kind == 2:
            combinator = r.choice(["all", "allSettled", "race", "any"])
            items = ", ".join(value(tag + str(k)) for k in range(r.randrange(1, 4)))
            lines.append("all.push(Promise.%s([%s]).then((v) => log.push('%s ' + JSON.stringify(v)), "
                         "(e) => log.push('%s rejected ' + e.constructor.name)));" % (combinator, items, tag, tag))
        elif kind == 3:
            lines.append("queueMicrotask(() => log.push('%s micro'));" % tag)
        elif kind == 4:
            lines.append("all.push((async () => { log.push('%s a ' + await %s); })()"
                         ".catch((e) => log.push('%s ac ' + e.message)));" % (tag, value(tag), tag))
        else:
            lines.append("all.push(new Promise((res) => res(%s)).then((v) => log.push('%s p ' + v), "
                         "(e) => log.push('%s pe ' + e.message)));" % (value(tag), tag, tag))
    lines += ["await Promise.allSettled(all);", "await new Promise((r) => setTimeout(r, 0));", "return log;"]
    return "\n".join(lines)


def compact(value):
    return json.dumps(value, separators=(",", ":"))


def node_log(source, directory):
    path = os.path.join(directory, "node.js")
    with open(path, "w") as f:
        f.write("(async function () {\n%s\n})().then((v) => console.log(JSON.stringify(v)), "
                "(e) => console.log(JSON.stringify('threw ' + e)));\n" % source)
    out = subprocess.run(["node", path], capture_output=True, text=True, timeout=30).stdout
    return compact(json.loads(out))


def coderun_log(coderun, source, directory):
    path = os.path.join(directory, "program.js")
    with open(path, "w") as f:
        f.write(source)
    out = subprocess.run([coderun, "run", "--no-demo", path], capture_output=True, text=True, timeout=30).stdout
    result = json.loads(out)
    return compact(result["value"]) if "value" in result else compact("threw %s" % result.get("error"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--coderun", default="target/debug/coderun")
    parser.add_argument("--from", dest="start", type=int, default=0)
    parser.add_argument("--to", dest="end", type=int, default=500)
    parser.add_argument("--show", type=int, help="print the program of this seed, and stop")
    args = parser.parse_args()
    if args.show is not None:
        print(program(args.show))
        return
    differing = 0
    with tempfile.TemporaryDirectory() as directory:
        for seed in range(args.start, args.end):
            source = program(seed)
            expected, got = node_log(source, directory), coderun_log(args.coderun, source, directory)
            if expected != got:
                differing += 1
                print("seed %d differs\n  node:    %s\n  coderun: %s" % (seed, expected[:400], got[:400]))
    print("%d of %d programs differ from Node" % (differing, args.end - args.start))
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
