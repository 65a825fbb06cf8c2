#!/usr/bin/env python3
"""Pick benchmark commands from a `kdbgen build -n --json` plan.

OpenCL: one command per distinct .cl file (the middle entry of that file's
list, deterministic), then more from the most frequent files until N.
HIP: one command per distinct .cpp file, spread over the list, up to M.
Usage: select_commands.py PLAN.json OUT_CL.json OUT_HIP.json [N=20] [M=5]
"""
import json, sys, collections

plan, out_cl, out_hip = sys.argv[1:4]
n = int(sys.argv[4]) if len(sys.argv) > 4 else 20
m = int(sys.argv[5]) if len(sys.argv) > 5 else 5
compiles = json.load(open(plan))["compiles"]

def lang(e):
    a = e["commands"][0]
    return a[a.index("-x") + 1] if "-x" in a else None

def source(e, ext):
    return next(a for a in e["commands"][0] if a.endswith(ext))

def pick(entries, ext, count):
    byfile = collections.OrderedDict()
    for e in entries:
        byfile.setdefault(source(e, ext), []).append(e)
    files = sorted(byfile, key=lambda f: (-len(byfile[f]), f))
    chosen, rnd = [], 0
    while len(chosen) < count and rnd < 10:
        for f in files:
            lst = byfile[f]
            # round 0: middle entry; round k: entry at (k+1)/(k+2) of the list
            idx = (len(lst) * (rnd + 1)) // (rnd + 2)
            if rnd < len(lst) and lst[idx] not in chosen:
                chosen.append(lst[idx])
            if len(chosen) >= count:
                break
        rnd += 1
    return chosen

cl = pick([e for e in compiles if lang(e) == "cl"], ".cl", n)
hip_all = [e for e in compiles if lang(e) == "hip"]
hip = pick(hip_all, ".cpp", m) if m else []
json.dump({"compiles": cl}, open(out_cl, "w"), indent=1)
json.dump({"compiles": hip}, open(out_hip, "w"), indent=1)
for e in cl + hip:
    print(e["kernel"][:150])
