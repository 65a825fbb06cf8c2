#!/usr/bin/env python3
"""Independent NumPy evaluation of MIOpen's ConvAsm1x1U kernel-tuning net (gfx908).

Reads the frugally-deep JSON models of a MIOpen tree
(src/kernels/gfx908_ConvAsm1x1U_{encoder,decoder,metadata}.ktn.model), checks
their stored test vectors, decodes the tuning config of >= 50 1x1 stride-1
problems the way MIOpen 3.3.0 does, and compares them with what kdbgen's C++
solver plans (the probe prints one config per problem key read on stdin).

MIOpen 3.3.0 rules followed here (written from its source, not copied):
  src/solver/conv/conv_asm_1x1u.cpp:393-409  TransformFeatures (8x8 diagonal matrix)
  src/solver/conv/conv_asm_1x1u.cpp:372-391  ModelApplyToken: set field i, IsPartiallyValid(i + 1)
  src/solver/conv/conv_asm_1x1u.cpp:295-369  IsValidImpl (the partial validity check)
  src/solver/conv/conv_asm_1x1u.cpp:430-474  StaticHeuristic (the fallback)
  src/solver/conv/conv_asm_1x1u.cpp:488-503  HeuristicInit: the model first, else the fallback
  src/conv/heuristics/ai_heuristics.cpp:701-780  ModelSetParams: token 0 starts, best valid
      token by score (ties: higher index first, std::priority_queue), "-1" ends with failure
Exit code 77 (ctest: skipped) when NumPy or the MIOpen tree is absent.
"""
import argparse
import base64
import bz2
import json
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("ktn_reference: NumPy not installed (Debian: python3-numpy); skipped")
    sys.exit(77)

F32 = np.float32


def floats(chunks):
    """frugally-deep stores float32 arrays as base64 text, split into chunks."""
    if isinstance(chunks, str):
        chunks = [chunks]
    return np.frombuffer(base64.b64decode("".join(chunks)), dtype="<f4").astype(F32)


def sigmoid(x):
    with np.errstate(over="ignore"):  # exp overflow gives inf, and 1 / inf the right 0
        return F32(1) / (F32(1) + np.exp(-x))


def lstm(layer, params, x, h, c):
    """Keras LSTM over x [steps, features]; gates i, f, c, o."""
    units = layer["config"]["units"]
    w = floats(params["weights"]).reshape(-1, 4 * units)
    u = floats(params["recurrent_weights"]).reshape(units, 4 * units)
    b = floats(params["bias"]) if layer["config"]["use_bias"] else np.zeros(4 * units, F32)
    assert layer["config"]["activation"] == "tanh" and layer["config"]["recurrent_activation"] == "sigmoid"
    seq = []
    for t in range(x.shape[0]):
        z = x[t] @ w + h @ u + b
        i, f, g, o = (z[k * units:(k + 1) * units] for k in range(4))
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        seq.append(h)
    out = np.stack(seq) if layer["config"]["return_sequences"] else h
    return [out, h, c]


class Model:
    def __init__(self, path):
        with open(path) as f:
            self.json = json.load(f)
        self.config = self.json["architecture"]["config"]
        self.params = self.json["trainable_params"]

    def predict(self, inputs):
        values = {}
        for (name, node, index), value in zip(self.config["input_layers"], inputs):
            values[(name, node, index)] = value
        for layer in self.config["layers"]:
            kind, name = layer["class_name"], layer["name"]
            if kind == "InputLayer":
                continue
            sources = [values[(s[0], s[1], s[2])] for s in layer["inbound_nodes"][0]]
            p = self.params.get(name, {})
            if kind == "Dense":
                assert layer["config"]["activation"] == "linear"
                x = sources[0]
                w = floats(p["weights"]).reshape(x.shape[-1], -1)
                y = x @ w
                if layer["config"]["use_bias"]:
                    y = y + floats(p["bias"])
                outs = [y]
            elif kind == "Embedding":
                table = floats(p["weights"]).reshape(layer["config"]["input_dim"], -1)
                outs = [table[sources[0].astype(np.int64)]]
            elif kind == "LSTM":
                units = layer["config"]["units"]
                h = sources[1] if len(sources) > 1 else np.zeros(units, F32)
                c = sources[2] if len(sources) > 2 else np.zeros(units, F32)
                outs = lstm(layer, p, sources[0], h, c)
            else:
                raise SystemExit(f"{name}: layer type {kind} not modelled")
            for k, v in enumerate(outs):
                values[(name, 0, k)] = v
        return [values[(s[0], s[1], s[2])] for s in self.config["output_layers"]]

    def check_tests(self, label):
        worst = 0.0
        for test in self.json["tests"]:
            ins = [floats(t["values"]).reshape(t["shape"]) for t in test["inputs"]]
            got = self.predict(ins)
            for g, want in zip(got, test["outputs"]):
                worst = max(worst, float(np.max(np.abs(g.reshape(-1) - floats(want["values"])))))
        print(f"ktn_reference: {label}: {len(self.json['tests'])} stored test(s), max |diff| {worst:.3g}")
        return worst <= 1e-4


# --- ConvAsm1x1U (conv_asm_1x1u.cpp, MIOpen 3.3.0) ---------------------------------------------

FIELDS = ["read_size", "k_mult", "chunks_per_wave", "chunk_size", "n_mult", "c_mult",
          "waves_c_in_group", "waves_k_in_group"]


def two_power(v, lo, hi):
    return v > 0 and (v & (v - 1)) == 0 and lo <= v <= hi


def valid(p, c, n):
    """IsValidImpl(problem, n) with IsValidValueImpl(n) (:250-369)."""
    e = 1 if p["type"] == "FP32" else 2
    img_hw = p["H"] * p["W"]
    value_checks = [1 <= c[0] <= 4, c[1] == 1 or (c[1] % 4 == 0 and 1 <= c[1] // 4 <= 8), 1 <= c[2] <= 16,
                    two_power(c[3], 1, 64), 1 <= c[4] <= 8, two_power(c[5], 1, 32), 1 <= c[6] <= 8,
                    two_power(c[7], 1, 8)]
    if not all(value_checks[:n]):
        return False
    read, kmul, cpw, csz, nmul, cmul, wc, wk = c
    if n > 1 and (kmul % e != 0 or (p["dir"] == "B" and p["K"] % kmul != 0)):
        return False
    if n > 2 and (read * e > cpw or cpw % e != 0):
        return False
    if n > 3 and cpw > (img_hw + csz - 1) // csz:
        return False
    if n > 4 and nmul > (p["N"] + 64 // csz - 1) // (64 // csz):
        return False
    vgprs = 4 + 2 * ((cpw * nmul * cmul + e - 1) // e) + cpw * nmul * kmul + (1 if img_hw % e else 0) + 1
    if n > 5 and (cmul % e != 0 or vgprs >= 256 or 25 + 2 * kmul * cmul >= 102):
        return False
    if n > 6:
        if wc > p["C"]:
            return False
        per_wave = -(-p["C"] // wc)
        last = p["C"] - per_wave * (wc - 1)
        if per_wave % cmul != 0 or last % cmul != 0:
            return False
    if n > 7 and (kmul * wk > p["K"] or wc * wk > 16 or (256 // vgprs) * 4 < wc * wk):
        return False
    return True


def static_heuristic(p):
    """StaticHeuristic (:430-474): a first guess, then four conservative re-inits."""
    e = 1 if p["type"] == "FP32" else 2
    read, kmul, cpw, csz, nmul, cmul, wc, wk = 4, 16, 4 * e, 16, 2, e, 1, 1
    for attempt in range(5):
        c = [read, kmul, cpw, csz, nmul, cmul, wc, wk]
        if valid(p, c, 8):
            return c
        if attempt == 0:
            read, kmul, csz, nmul = 1, 4, 1, 1
        elif attempt == 1:
            kmul, cmul = (1 if e == 1 else 4), 2
        elif attempt == 2:
            cpw, cmul = 2, e
        elif attempt == 3:
            cpw = e
    return None  # "All attempts failed"


def features(p):
    """TransformFeatures (:393-409): an 8x8 matrix, nonzero on the diagonal and at [0][0]."""
    n = 8
    f = np.zeros((n, n), F32)
    f[0, 0] = 2.0 if p["type"] == "FP32" else 1.0
    offset = (0 if p["dir"] == "F" else 1) + 1
    f[offset, offset] = 1.0
    f[3, 3] = p["C"] if p["dir"] == "F" else p["K"]
    f[4, 4] = p["K"] if p["dir"] == "F" else p["C"]
    f[5, 5], f[6, 6], f[7, 7] = p["H"], p["W"], p["N"]
    return f


def ai_config(p, encoder, decoder, meta):
    """ModelSetParams (ai_heuristics.cpp:701-780) with ModelApplyToken as the validator."""
    decodings = meta["decodings"]["tunings"]
    count = meta["num_tuning_params"]["fwd" if p["dir"] == "F" else "bwd"]
    context = encoder.predict([features(p)])
    token, config = 0.0, [1] * 8
    for i in range(count):
        out = decoder.predict([np.array([token], F32)] + context)
        scores = out[0].reshape(-1)
        order = sorted(range(len(scores)), key=lambda k: (scores[k], k), reverse=True)
        chosen = -1
        for k in order:
            value = decodings[str(k)]
            if value == "-1":
                return None
            config[i] = int(value)
            if valid(p, config, i + 1):
                chosen = k
                break
        token, context = float(chosen), out[1:]
    return config


def problems():
    """>= 50 applicable 1x1 stride-1 problems: C, K, H(=W), N, type, direction."""
    shapes = [(64, 256, 56, 32), (256, 64, 56, 32), (256, 128, 56, 16), (128, 512, 28, 32), (512, 128, 28, 64),
              (512, 256, 28, 8), (256, 1024, 14, 32), (1024, 256, 14, 128), (1024, 512, 14, 4), (512, 2048, 7, 32),
              (2048, 512, 7, 64), (2048, 1000, 1, 16), (32, 32, 112, 1), (96, 24, 56, 2), (144, 24, 56, 8),
              (24, 144, 56, 8), (384, 64, 28, 1), (960, 160, 7, 128), (16, 96, 112, 4), (8, 8, 3, 1),
              (12, 20, 9, 3), (4, 4, 2, 256), (1280, 1000, 1, 1), (320, 1280, 7, 32), (192, 64, 35, 16),
              (64, 64, 73, 2), (48, 208, 19, 7)]
    out = []
    for i, (c, k, hw, n) in enumerate(shapes):
        for t in ("FP32", "FP16"):
            d = "F" if (i + (t == "FP16")) % 2 == 0 else "B"
            w = hw if i % 3 else max(1, hw + 1)  # some non-square images
            p = dict(C=c, K=k, H=hw, W=w, N=n, type=t, dir=d)
            e = 1 if t == "FP32" else 2
            applicable = c % e == 0 and k % e == 0 and hw * w >= e and (e == 1 or k >= 4) and \
                (d == "F" or e == 1 or k % 4 == 0)
            if applicable:
                out.append(p)
    return out


def find_db_problems(kernels_dir, every):
    """Every `every`-th stride-1 ConvAsm1x1U problem of the gfx908_120 find-db (gfx90878), if shipped."""
    path = os.path.join(kernels_dir, "gfx90878.HIP.fdb.txt.bz2")
    if every <= 0 or not os.path.exists(path):
        return []
    out, seen = [], 0
    with bz2.open(path, "rt") as f:
        for line in f:
            k, _, items = line.strip().partition("=")
            if "ConvAsm1x1U:" not in items:
                continue
            fields = k.split("-")
            if len(fields) != 15 or fields[3] != "1x1" or fields[8] != "0x0" or fields[9] != "1x1" or \
                    fields[12] != "NCHW" or fields[13] not in ("FP32", "FP16") or fields[14] not in ("F", "B"):
                continue
            seen += 1
            if seen % every == 0:
                out.append(dict(C=int(fields[0]), H=int(fields[1]), W=int(fields[2]), K=int(fields[4]),
                                N=int(fields[7]), type=fields[13], dir=fields[14]))
    return out


def key(p):
    return (f"{p['C']}-{p['H']}-{p['W']}-1x1-{p['K']}-{p['H']}-{p['W']}-{p['N']}-0x0-1x1-1x1-0-NCHW-"
            f"{p['type']}-{p['dir']}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--miopen-src", default=os.environ.get("KDBGEN_MIOPEN_SRC", ""))
    ap.add_argument("--probe", help="kdbgen's C++ probe: problem keys on stdin, one config a line out")
    ap.add_argument("--print", action="store_true", help="print every problem's configs")
    ap.add_argument("--find-db-every", type=int, default=50,
                    help="also check every N-th stride-1 ConvAsm1x1U problem of gfx90878.HIP.fdb.txt.bz2 (0: none)")
    args = ap.parse_args()
    base = os.path.join(args.miopen_src, "src", "kernels", "gfx908_ConvAsm1x1U_")
    if not args.miopen_src or not os.path.exists(base + "encoder.ktn.model"):
        print(f"ktn_reference: no MIOpen tree with {base}encoder.ktn.model; skipped")
        return 77
    encoder, decoder = Model(base + "encoder.ktn.model"), Model(base + "decoder.ktn.model")
    with open(base + "metadata.ktn.model") as f:
        meta = json.load(f)
    ok = encoder.check_tests("encoder") & decoder.check_tests("decoder")

    probs = problems()
    sampled = find_db_problems(os.path.dirname(base), args.find_db_every)
    print(f"ktn_reference: {len(probs)} hand-picked problems, {len(sampled)} from the gfx908_120 find-db")
    probs += sampled
    want = {}
    differs = fallbacks = 0
    for p in probs:
        ai = ai_config(p, encoder, decoder, meta)
        fallbacks += ai is None
        fallback = static_heuristic(p)
        chosen = ai if ai is not None else fallback
        differs += chosen != fallback
        want[key(p)] = ",".join(map(str, chosen))
        if args.print:
            print(f"{key(p)} ai={ai} static={fallback}")
    print(f"ktn_reference: {len(probs)} problems, {differs} where the model's config differs from "
          f"StaticHeuristic, {fallbacks} model fallbacks")
    if len(probs) - len(sampled) < 50:
        print("ktn_reference: fewer than 50 problems")
        ok = False
    if args.probe:
        run = subprocess.run([args.probe, args.miopen_src], input="\n".join(want) + "\n", capture_output=True,
                             text=True)
        if run.returncode != 0:
            print(f"ktn_reference: probe failed ({run.returncode}): {run.stderr}")
            return 1
        got = dict(line.split(" ", 1) for line in run.stdout.splitlines() if line.strip())
        mismatches = [k for k in want if got.get(k) != want[k]]
        for k in mismatches:
            print(f"MISMATCH {k}: numpy {want[k]}, kdbgen {got.get(k)}")
        print(f"ktn_reference: kdbgen matches on {len(want) - len(mismatches)}/{len(want)} problems")
        ok = ok and not mismatches
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
