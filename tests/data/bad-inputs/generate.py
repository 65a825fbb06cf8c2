#!/usr/bin/env python3
"""Writes the bad-input corpus (tests/data/bad-inputs/): one file per case and
cases.txt, read by tests/unit/bad_inputs_test.cpp. Each case line is
    <kdbgen build arguments> | <fragment the error message must hold>
where @name is a corpus file and '' an empty argument. The runner adds
--targets gfx906_60 unless the case gives targets, and a stand-in MIOpen tree
unless it gives --manifest; every case must exit 2, print the fragment and
write nothing. Run it again after editing; the files are committed."""
import bz2
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
cases = []


def write(name, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(HERE, name), mode) as f:
        f.write(data)


def case(args, fragment):
    assert "|" not in args and "|" not in fragment
    cases.append(f"{args} | {fragment}")


# ---- network TOML ---------------------------------------------------------
HEAD = '[network]\nname = "t"\ninput = [3, 32, 32]\n'


def net(name, body, fragment, head=HEAD):
    write(f"net-{name}.toml", head + body)
    case(f"--network @net-{name}.toml", fragment)


L = "[[layer]]\n"
net("strides-typo", L + 'type = "conv"\nout = 8\nstrides = 2\n', "'strides' is not a key of a conv layer (did you mean 'stride'?)")
net("batches-typo", L + 'type = "relu"\n', "'batches' is not a key of [network] (did you mean 'batch'?)", HEAD + "batches = [1]\n")
net("lrn-mode-word", L + 'type = "lrn"\nmode = "within-channel"\n', "(did you mean 'within_channel'?)")
# issue #25: 'from' and 'with' name one layer; a second of that name took its place silently.
net("layer-name-twice", L + 'type = "conv"\nname = "a"\nout = 8\n' + L + 'type = "relu"\nname = "a"\n', "net-layer-name-twice.toml:8: layer 'a': a layer of this name comes earlier")
net("block-name-twice", L + 'name = "b"\nlayers = [{ type = "relu" }]\n' + L + 'name = "b"\nlayers = [{ type = "relu" }]\n', "net-block-name-twice.toml:7: layer 'b': a block or layer of this name comes earlier")
net("lrn-size-negative", L + 'type = "lrn"\nsize = -5\n', "size = -5: must be between 1")
net("lrn-size-zero", L + 'type = "lrn"\nsize = 0\n', "size = 0: must be between 1")
net("lrn-alpha-nan", L + 'type = "lrn"\nalpha = nan\n', "alpha = nan: must be a finite number")
net("lrn-beta-inf", L + 'type = "lrn"\nbeta = inf\n', "beta = inf: must be a finite number")
net("lrn-k-string", L + 'type = "lrn"\nk = "1"\n', 'k = "1": must be a number')
net("lrn-bias-key", L + 'type = "lrn"\nbias = 1.0\n', "'bias' is not a key of a lrn layer")
net("conv-bias-string", L + 'type = "conv"\nout = 8\nbias = "yes"\n', 'bias = "yes": must be true or false')
net("conv-bias-int", L + 'type = "conv"\nout = 8\nbias = 1\n', "bias = 1: must be true or false")
net("conv-kernel-float", L + 'type = "conv"\nout = 8\nkernel = 3.0\n', "kernel = 3.0: must be a whole number")
net("conv-kernel-string", L + 'type = "conv"\nout = 8\nkernel = "3"\n', 'kernel = "3": must be a whole number')
net("conv-kernel-list-float", L + 'type = "conv"\nout = 8\nkernel = [3, 3.5]\n', "holds a value that is not a whole number")
net("conv-kernel-list-length", L + 'type = "conv"\nout = 8\nkernel = [3, 3, 3]\n', "needs 2 values, has 3")
net("conv-kernel-zero", L + 'type = "conv"\nout = 8\nkernel = 0\n', "value 0 is below 1")
net("conv-stride-zero", L + 'type = "conv"\nout = 8\nstride = 0\n', "stride = 0: value 0 is below 1")
net("conv-pad-negative", L + 'type = "conv"\nout = 8\npad = -1\n', "pad = -1: value -1 is below 0")
net("conv-dilation-zero", L + 'type = "conv"\nout = 8\ndilation = 0\n', "dilation = 0: value 0 is below 1")
net("conv-dilation-float", L + 'type = "conv"\nout = 8\ndilation = 1.5\n', "dilation = 1.5: must be a whole number")
net("conv-groups-zero", L + 'type = "conv"\nout = 8\ngroups = 0\n', "groups = 0: must be between 1")
net("conv-groups-word", L + 'type = "conv"\nout = 8\ngroups = "dw"\n', 'groups = "dw": must be a whole number or "depthwise"')
net("conv-groups-indivisible", L + 'type = "conv"\nout = 8\ngroups = 2\n', "not divisible by 2 groups")
net("conv-out-zero", L + 'type = "conv"\nout = 0\n', "out = 0: must be between 1")
net("conv-out-float", L + 'type = "conv"\nout = 8.0\n', "out = 8.0: must be a whole number")
net("conv-out-string", L + 'type = "conv"\nout = "8"\n', 'out = "8": must be a whole number')
net("conv-out-missing", L + 'type = "conv"\n', "'out' (output channels) must be a positive number")
net("conv-out-huge", L + 'type = "conv"\nout = 4000000000\n', "out = 4000000000: must be between 1 and 2147483647")
net("conv-output-pad-in-conv", L + 'type = "conv"\nout = 8\noutput_pad = 1\n', "'output_pad' is not a key of a conv layer")
net("conv-output-size", L + 'type = "conv"\nout = 8\nkernel = 64\n', "output size -31")
net("conv-outs-typo", L + 'type = "conv"\nouts = 8\n', "(did you mean 'out'?)")
net("type-typo", L + 'type = "cnov"\nout = 8\n', "is not a layer type (did you mean 'conv'?)")
net("type-missing", L + "out = 8\n", "needs a 'type'")
net("type-number", L + "type = 3\n", "type = 3: must be a string")
net("name-number", L + 'name = 3\ntype = "relu"\n', "name = 3: must be a string")
net("repeat-huge", L + 'type = "relu"\nrepeat = 10000000\n', "repeat = 10000000: must be between 1 and 10000")
net("repeat-1e9-float", L + 'type = "relu"\nrepeat = 1e9\n', "repeat = 1000000000.0: must be a whole number")
net("repeat-zero", L + 'type = "relu"\nrepeat = 0\n', "repeat = 0: must be between 1 and 10000")
net("repeat-float", L + 'type = "relu"\nrepeat = 2.5\n', "repeat = 2.5: must be a whole number")
net("repeat-string", L + 'type = "relu"\nrepeat = "2"\n', 'repeat = "2": must be a whole number')
net("block-repeat-huge", L + 'name = "b"\nrepeat = 10000000\nlayers = [{ type = "relu" }]\n', "block 'b': repeat = 10000000")
net("block-runs-too-many", L + 'repeat = 10000\nlayers = [{ type = "relu", repeat = 10000 }]\n', "more than the 1000000 kdbgen plans from one file")
net("block-unknown-key", L + 'name = "b"\nrepeats = 2\nlayers = [{ type = "relu" }]\n', "(did you mean 'repeat'?)")
net("block-with-type", L + 'type = "relu"\nlayers = [{ type = "relu" }]\n', "'type' is not a key of a block")
net("block-layers-not-list", L + 'name = "b"\nlayers = 3\n', "'layers' must be a list of tables")
net("block-inner-typo", L + 'name = "b"\nlayers = [{ type = "conv", out = 8, strid = 2 }]\n', "(did you mean 'stride'?)")
net("batchnorm-mode", L + 'type = "batchnorm"\nmode = "spacial"\n', "(did you mean 'spatial'?)")
net("activation-mode", L + 'type = "activation"\nmode = "rleu"\n', "(did you mean 'relu'?)")
net("activation-no-mode", L + 'type = "activation"\n', "'activation' needs a 'mode'")
net("avgpool-include-string", L + 'type = "avgpool"\ncount_include_pad = "yes"\n', 'count_include_pad = "yes": must be true or false')
net("maxpool-include-key", L + 'type = "maxpool"\ncount_include_pad = true\n', "'count_include_pad' is not a key of a maxpool layer")
net("pool-stride-zero", L + 'type = "maxpool"\nstride = 0\n', "stride = 0: value 0 is below 1")
net("concat-crop-string", L + 'name = "a"\ntype = "relu"\n' + L + 'type = "concat"\nwith = ["a"]\ncrop = "yes"\n', 'crop = "yes": must be true or false')
net("add-with-number", L + 'type = "add"\nwith = 3\n', "with = 3: must be a string")
net("add-with-unknown", L + 'type = "add"\nwith = "nowhere"\n', "no earlier layer named 'nowhere'")
net("from-unknown", L + 'type = "relu"\nfrom = "nowhere"\n', "no earlier layer named 'nowhere'")
net("upsample-scale-zero", L + 'type = "upsample"\nscale = 0\n', "scale = 0: value 0 is below 1")
net("upsample-huge-tensor", L + 'type = "upsample"\nscale = 100000\n' + L + 'type = "upsample"\nscale = 100000\n', "more than 256 GiB")
net("linear-out-zero", L + 'type = "linear"\nout = 0\n', "out = 0: must be between 1")
net("dropout-p", L + 'type = "dropout"\np = 0.5\n', "'p' is not a key of a dropout layer")
net("unknown-root-table", L + 'type = "relu"\n[netwrk]\nname = "x"\n', "'netwrk' is not a key of a network file")
net("network-not-table", "", "'network' must be a table", 'network = 3\n' + L + 'type = "relu"\n')
net("layer-not-array", "", "'layer' must be a list of tables", 'layer = 3\n' + HEAD)
net("no-network", L + 'type = "relu"\n', "no [network] table", "")
net("no-layers", "", "no [[layer]] tables")
net("input-missing", L + 'type = "relu"\n', "input = (missing): must be [C, H, W]", '[network]\nname = "t"\n')
net("input-one", L + 'type = "relu"\n', "input = [3]: must be [C, H, W]", '[network]\ninput = [3]\n')
net("input-zero", L + 'type = "relu"\n', "size 0 is not between 1", '[network]\ninput = [3, 0, 32]\n')
net("input-float", L + 'type = "relu"\n', "holds 3.0, not a whole number", '[network]\ninput = [3.0, 32, 32]\n')
net("input-huge", L + 'type = "relu"\n', "size 3000000000 is not between 1", '[network]\ninput = [3, 3000000000, 32]\n')
net("batch-zero", L + 'type = "relu"\n', "batch size 0 is not between 1", HEAD + "batch = [0]\n")
net("batch-float", L + 'type = "relu"\n', "holds 1.5, not a whole number", HEAD + "batch = [1.5]\n")
net("batch-string", L + 'type = "relu"\n', 'holds "32", not a whole number', HEAD + 'batch = ["32"]\n')
net("batch-empty", L + 'type = "relu"\n', "batch = []: is an empty list", HEAD + "batch = []\n")
net("data-type-unknown", L + 'type = "relu"\n', "unknown data type 'FP8x'", HEAD + 'data_types = ["FP8x"]\n')
net("layout-typo", L + 'type = "relu"\n', "(did you mean 'NCHW'?)", HEAD + 'layouts = ["NHCW"]\n')
net("mode-typo", L + 'type = "relu"\n', "(did you mean 'training'?)", HEAD + 'modes = ["trainig"]\n')
net("network-name-number", L + 'type = "relu"\n', "name = 5: must be a string", '[network]\nname = 5\ninput = [3, 32, 32]\n')
write("net-malformed.toml", HEAD + L + 'type = "conv"\nout = 8\nkernel = [3, 3\n')
case("--network @net-malformed.toml", "net-malformed.toml:7:")

# ---- MIOpenDriver logs ----------------------------------------------------
def log(name, line, fragment):
    write(f"log-{name}.txt", f"some other output\nMIOpen(HIP): Command [LogCmd] ./bin/MIOpenDriver {line}\n")
    case(f"--driver-log @log-{name}.txt", fragment)


C2 = "conv -n 1 -c 8 -H 8 -W 8 -k 8 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1 -F 1"
log("bnorm-depth-negative", "bnorm -n 2 -c 8 -D -5 -H 8 -W 8 -m 1 --forw 1 -b 0", "--in_d -5 is not 0..")
log("conv-3d-no-depth", "conv -n 1 -c 8 -H 8 -W 8 -k 8 --spatial_dim 3 -y 3 -x 3 -F 1", "--spatial_dim 3 without --in_d")
log("conv-3d-no-filter-depth", "conv -n 1 -c 8 --in_d 4 -H 8 -W 8 -k 8 --spatial_dim 3 -y 3 -x 3 -F 1", "--spatial_dim 3 without --fil_d")
log("conv-batch-zero", C2.replace("-n 1", "-n 0"), "--batchsize must be positive, not 0")
log("conv-channels-zero", C2.replace("-c 8", "-c 0"), "--in_channels must be positive, not 0")
log("conv-out-zero", C2.replace("-k 8", "-k 0"), "--out_channels must be positive, not 0")
log("conv-stride-zero", C2.replace("-u 1", "-u 0"), "--conv_stride_h must be positive, not 0")
log("conv-dilation-zero", C2.replace("-l 1", "-l 0"), "--dilation_h must be positive, not 0")
log("conv-groups-zero", C2.replace("-g 1", "-g 0"), "--group_count must be positive, not 0")
log("conv-groups-indivisible", C2.replace("-g 1", "-g 3"), "not divisible by 3 groups")
log("conv-pad-negative", C2.replace("-p 1", "-p -1"), "negative padding -1")
log("conv-spatial-4", C2 + " --spatial_dim 4", "--spatial_dim must be 2 or 3, not 4")
log("conv-forw-9", C2.replace("-F 1", "-F 9"), "--forw 9 is not 0..7")
log("conv-mode-word", C2 + " -m convolution", "--mode 'convolution' is not conv or trans")
log("conv-flag-typo", C2 + " --in_chanels 8", "unknown flag '--in_chanels' (did you mean 'in_channels'?)")
log("conv-flag-no-value", C2 + " -t", "flag '-t' has no value")
log("conv-batch-word", C2.replace("-n 1", "-n one"), "--batchsize 'one' is not a whole number")
log("conv-batch-beyond-int", C2.replace("-n 1", "-n 99999999999"), "--batchsize 99999999999 does not fit in an int")
# issue #25: layouts kdbgen does not plan, and bytes that are not UTF-8, are named with their line.
log("conv-layout-unknown", C2 + " -I FOO", "-I layout 'FOO' is not one of NCHW, NHWC")
log("conv-layout-3d-for-2d", C2 + " -I NCDHW", "-I layout 'NCDHW' is not one of NCHW, NHWC")
log("bnorm-layout-unknown", "bnorm -n 2 -c 8 -H 8 -W 8 -m 1 --forw 1 -b 0 -L CHWN", "-L layout 'CHWN' is not one of NCHW, NHWC")
write("log-conv-not-utf8.txt", ("MIOpen(HIP): Command [LogCmdConvolution] ./bin/MIOpenDriver " + C2 + " -I NCHW\xff\n").encode("latin-1"))
case("--driver-log @log-conv-not-utf8.txt", "log-conv-not-utf8.txt:1: byte 0xff")
log("conv-huge-tensor", C2.replace("-H 8 -W 8", "-H 2000000 -W 2000000").replace("-c 8", "-c 64"), "more than 256 GiB")
log("conv-output-size", C2.replace("-y 3 -x 3", "-y 30 -x 3"), "output size -19 in dimension 0")
log("bnorm-save-2", "bnorm -n 2 -c 8 -H 8 -W 8 -m 1 --forw 1 -b 0 -s 2", "--save 2 is not 0..1")
log("bnorm-run-3", "bnorm -n 2 -c 8 -H 8 -W 8 -m 1 --forw 1 -b 0 -r 3", "--run 3 is not 0..1")
log("bnorm-forw-3", "bnorm -n 2 -c 8 -H 8 -W 8 -m 1 --forw 3 -b 0", "--forw 3 is not 0..2")
log("bnorm-back-2", "bnorm -n 2 -c 8 -H 8 -W 8 -m 1 --forw 0 -b 2", "--back 2 is not 0..1")
log("bnorm-mode-2", "bnorm -n 2 -c 8 -H 8 -W 8 -m 2 --forw 1", "--mode 2 is not 0 or 1")
log("bnorm-no-direction", "bnorm -n 2 -c 8 -H 8 -W 8 -m 1 --forw 0 -b 0", "neither --forw nor --back selects a direction")
log("pool-tensor-3d", "pool -W 1x2x3 -y 2 -x 2 -F 1", "has 3 dimensions, not 4 or 5")
log("pool-mode-word", "pool -W 1x2x8x8 -y 2 -x 2 -m mean -F 1", "--mode 'mean' is not max, avg or avg_in")
log("pool-stride-zero", "pool -W 1x2x8x8 -y 2 -x 2 -v 0 -F 1", "--pool_stride_h must be positive, not 0")
log("activ-mode-10", "activ -n 1 -c 8 -H 8 -W 8 -m 10 --forw 1", "--mode 10 is not 0..9")
log("activ-forw-5", "activ -n 1 -c 8 -H 8 -W 8 -m 3 --forw 5", "--forw 5 is not 0..2")
log("softmax-algorithm-5", "softmax -n 1 -c 8 -H 1 -W 1 -a 5 -F 1", "--algorithm 5 / --mode 1 out of range")
log("softmax-alpha-nan", "softmax -n 1 -c 8 -H 1 -W 1 -A nan -F 1", "--alpha 'nan' is not a number")
log("lrn-mode-side", "lrn -n 1 -c 8 -H 8 -W 8 -m side -F 1", "--mode 'side' is not within or cross")
log("lrn-size-zero", "lrn -n 1 -c 8 -H 8 -W 8 -N 0 -F 1", "--lrnN must be positive, not 0")
log("tensorop-op-9", "tensorop -n 1 -c 8 -H 8 -W 8 -o 9", "--tensor_op 9 is not 0..5")
log("command-unknown", "convfp8 -n 1 -c 8 -H 8 -W 8", "unsupported MIOpenDriver command 'convfp8'")

# ---- find-dbs -------------------------------------------------------------
GOOD = "GemmFwdRest:0.1,0,miopenConvolutionFwdAlgoGEMM"


def fdb(name, text, fragment, compress=False):
    # Named for the runner's target (gfx906_60), one folder per case: a given find-db names its target.
    os.makedirs(os.path.join(HERE, "fdb", name), exist_ok=True)
    file = f"fdb/{name}/gfx906_60.HIP.fdb.txt" + (".bz2" if compress else "")
    write(file, bz2.compress(text.encode()) if compress else text)
    case(f"--find-db @{file}", fragment)


K = "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F"
fdb("batch-zero", K.replace("-32-0x0", "-0-0x0") + "=" + GOOD + "\n", "batch size 0 is not positive")
fdb("in-channels-zero", "0" + K[2:] + "=" + GOOD + "\n", "input channels 0 is not positive")
fdb("out-channels-zero", K.replace("-256-", "-0-") + "=" + GOOD + "\n", "output channels 0 is not positive")
fdb("filter-zero", K.replace("1x1-256", "0x1-256") + "=" + GOOD + "\n", "filter size 0x1 is below 1")
fdb("dilation-zero", K.replace("1x1-1x1-0-NCHW", "1x1-0x1-0-NCHW") + "=" + GOOD + "\n", "dilation 0x1 is below 1")
fdb("stride-zero-2d", K.replace("0x0-1x1-1x1", "0x0-0x1-1x1") + "=" + GOOD + "\n", "stride 0x1 is below 1")
fdb("groups-zero", K + "_g0=" + GOOD + "\n", "group count 0 is not positive")
fdb("groups-indivisible", K + "_g3=" + GOOD + "\n", "not divisible by 3 groups")
fdb("bias-two", K.replace("1x1-0-NCHW", "1x1-2-NCHW") + "=" + GOOD + "\n", "bias 2 is not 0 or 1")
K3 = "1-1-1-1-1x4x4-512-1-4-4-128-0x0x0-1x1x1-1x1x1-0-NCDHW-FP32-W"
fdb("stride-zero-3d", K3.replace("0x0x0-1x1x1", "0x0x0-0x1x1") + "=" + GOOD + "\n", "stride 0x1x1 is below 1")
fdb("padding-two-values-3d", K3.replace("0x0x0", "0x0") + "=" + GOOD + "\n", "padding '0x0' needs 3 values")
fdb("no-equals", K + "\n", "no '=' in find-db line")
fdb("record-truncated", K + "=GemmFwdRest:0.1\n", "is truncated")
fdb("time-word", K + "=GemmFwdRest:fast,0,miopenConvolutionFwdAlgoGEMM\n", "time 'fast'")
fdb("time-nan", K + "=GemmFwdRest:nan,0,miopenConvolutionFwdAlgoGEMM\n", "time 'nan' in")
fdb("time-negative", K + "=GemmFwdRest:-1,0,miopenConvolutionFwdAlgoGEMM\n", "is not a time")
fdb("workspace-word", K + "=GemmFwdRest:0.1,big,miopenConvolutionFwdAlgoGEMM\n", "workspace 'big'")
fdb("record-no-colon", K + "=GemmFwdRest\n", "has no ':'")
fdb("empty", "", "the find-db has no lines")
fdb("empty-bz2", "", "the find-db has no lines", compress=True)
fdb("blank-lines", "\n\n  \n", "the find-db has no lines")
fdb("leading-zero", "064" + K[2:] + "=" + GOOD + "\n", "MIOpen writes this problem as '64-56-56")
fdb("direction-q", K[:-1] + "Q=" + GOOD + "\n", "direction 'Q' is not F, B or W")
fdb("layout-word", K.replace("NCHW", "NCXW") + "=" + GOOD + "\n", "layout 'NCXW' is not a tensor layout")
fdb("suffix-unknown", K + "_x1=" + GOOD + "\n", "unknown key suffix '_x1'")
fdb("too-few-fields", "64-56-56-1x1-256=" + GOOD + "\n", "a convolution key has at least 15")
fdb("size-word", K.replace("-56-56-1x1", "-5a-56-1x1") + "=" + GOOD + "\n", "'5a' is not a non-negative number")
os.makedirs(os.path.join(HERE, "fdb", "not-bz2"), exist_ok=True)
write("fdb/not-bz2/gfx906_60.HIP.fdb.txt.bz2", b"BZh91AY&SY")
case("--find-db @fdb/not-bz2/gfx906_60.HIP.fdb.txt.bz2", "fdb/not-bz2/gfx906_60.HIP.fdb.txt.bz2")
os.makedirs(os.path.join(HERE, "fdb", "other-target"), exist_ok=True)
write("fdb/other-target/gfx1030_36.HIP.fdb.txt", "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F=" + GOOD + "\n")
case("--find-db @fdb/other-target/gfx1030_36.HIP.fdb.txt", "is named for none of the targets")

# ---- ONNX models (hand-encoded protobuf: onnx/onnx.proto field numbers) ----
def varint(n):
    out = b""
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field(num, wire, payload):
    key = varint((num << 3) | wire)
    if wire == 0:
        return key + varint(payload)
    if wire == 5:
        return key + struct.pack("<f", payload)
    data = payload.encode() if isinstance(payload, str) else payload
    return key + varint(len(data)) + data


def attr_ints(name, values):  # AttributeProto: name 1, ints 8, type 20 (INTS = 7)
    return b"".join([field(1, 2, name)] + [field(8, 0, v) for v in values] + [field(20, 0, 7)])


def attr_int(name, value):  # type INT = 2, i = 3
    return field(1, 2, name) + field(3, 0, value) + field(20, 0, 2)


def attr_float(name, value):  # type FLOAT = 1, f = 2
    return field(1, 2, name) + field(2, 5, value) + field(20, 0, 1)


def value_info(name, dims):  # ValueInfoProto{name 1, type 2: TypeProto{tensor_type 1: {elem_type 1, shape 2}}}
    shape = b"".join(field(1, 2, field(1, 0, d)) for d in dims)
    tensor = field(1, 0, 1) + field(2, 2, shape)
    return field(1, 2, name) + field(2, 2, field(1, 2, tensor))


def node(op, inputs, outputs, attrs=(), name="n0"):
    data = b"".join(field(1, 2, i) for i in inputs) + b"".join(field(2, 2, o) for o in outputs)
    data += field(3, 2, name) + field(4, 2, op) + b"".join(field(5, 2, a) for a in attrs)
    return data


def model(nodes, inputs, outputs):
    graph = b"".join(field(1, 2, n) for n in nodes) + field(2, 2, "g")
    graph += b"".join(field(11, 2, value_info(*i)) for i in inputs)
    graph += b"".join(field(12, 2, value_info(o, [])) for o in outputs)
    opset = field(2, 0, 13)
    return field(1, 0, 7) + field(8, 2, opset) + field(7, 2, graph)


def onnx(name, data, fragment):
    write(f"onnx-{name}.onnx", data)
    case(f"--onnx @onnx-{name}.onnx", fragment)


X, W = ("x", [1, 4, 8, 8]), ("w", [4, 4, 3, 3])
onnx("conv-group-zero", model([node("Conv", ["x", "w"], ["y"], [attr_int("group", 0)])], [X, W], ["y"]), "attribute group = 0 is not between 1")
onnx("conv-stride-zero", model([node("Conv", ["x", "w"], ["y"], [attr_ints("strides", [0, 1])])], [X, W], ["y"]), "attribute strides = [0, 1]: 0 is not between 1")
onnx("conv-dilation-zero", model([node("Conv", ["x", "w"], ["y"], [attr_ints("dilations", [1, 0])])], [X, W], ["y"]), "attribute dilations = [1, 0]")
onnx("conv-pads-negative", model([node("Conv", ["x", "w"], ["y"], [attr_ints("pads", [-1, 0, -1, 0])])], [X, W], ["y"]), "attribute pads = [-1, 0, -1, 0]")
onnx("conv-group-float", model([node("Conv", ["x", "w"], ["y"], [attr_float("group", 1.0)])], [X, W], ["y"]), "attribute 'group' must be an integer")
onnx("conv-kernel-zero", model([node("Conv", ["x", "w"], ["y"], [attr_ints("kernel_shape", [0, 3])])], [X, W], ["y"]), "attribute kernel_shape = [0, 3]")
onnx("pool-stride-zero", model([node("MaxPool", ["x"], ["y"], [attr_ints("kernel_shape", [2, 2]), attr_ints("strides", [0, 2])])], [X], ["y"]), "attribute strides = [0, 2]")
BN = [("x", [8]), ("s", [8]), ("b", [8]), ("m", [8]), ("v", [8])]
onnx("batchnorm-rank-1", model([node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])], BN, ["y"]), "has rank 1, MIOpen takes 3 to 5")
# issue #25: a Conv with no weights input stopped the process in protobuf (CHECK failed), naming no file.
onnx("conv-one-input", model([node("Conv", ["x"], ["y"], [attr_ints("kernel_shape", [3, 3])])], [X], ["y"]), "onnx-conv-one-input.onnx")
write("onnx-not-protobuf.onnx", b"\xff\xff\xff\xffnot a model")
case("--onnx @onnx-not-protobuf.onnx", "not a valid ONNX model")

# ---- kernel manifests -----------------------------------------------------
def manifest(name, text, fragment):
    write(f"manifest-{name}.toml", text)
    case(f"--manifest @manifest-{name}.toml", fragment)


K1 = '[[kernel]]\nfile = "kdbgen_fill.s"\nsymbols = ["KdbgenFill"]\noptions = [""]\n'
manifest("unknown-key", K1 + 'option = ["-DX"]\n', "'option' is not a key of a [[kernel]] table (did you mean 'options'?)")
manifest("unknown-table", K1 + "[kernels]\nx = 1\n", "'kernels' is not a key of a kernel manifest ([[kernel]] tables) (did you mean 'kernel'?)")
manifest("symbols-empty", K1.replace('["KdbgenFill"]', "[]"), "symbols = []: is empty")
manifest("symbols-number", K1.replace('["KdbgenFill"]', "[3]"), "symbols = [3]: holds 3, not a string")
manifest("symbol-space", K1.replace('["KdbgenFill"]', '["Kdbgen Fill"]'), '"Kdbgen Fill" is not a kernel name')
manifest("options-missing", K1.replace('options = [""]\n', ""), "[[kernel]] needs 'options'")
manifest("targets-unknown", K1 + 'targets = ["gfx9999"]\n', '"gfx9999" is the start of no processor')
manifest("file-missing", K1.replace('file = "kdbgen_fill.s"\n', ""), "[[kernel]] needs 'file'")
manifest("file-not-found", K1.replace("kdbgen_fill.s", "no_such.s"), "kernel file 'no_such.s' not found")
manifest("no-kernels", "", "no [[kernel]] tables")

# ---- target lists ---------------------------------------------------------
case("--targets ''", "--targets '': no target given")
case("--targets ' '", "no target given")
case("--targets gfx906_60,,gfx1030_36", "item 2 is empty")
case("--targets gfx906_60,", "item 2 is empty")
case("--targets gfx1234_5", "unknown processor 'gfx1234'")
case("--targets gfx906_0", "compute units must be a number from 1 to 4096")
case("--targets gfx906_5000", "compute units must be a number from 1 to 4096")
case("--targets gfx1030:xnack+_36", "gfx1030 does not support xnack")
case("--targets gfx906:fast+_60", "unknown feature 'fast'")
case("--targets gfx906:xnack_60", "feature 'xnack' must end in + or -")
case("--targets gfx90a:xnack+:xnack-_110", "feature 'xnack' is given more than once")
case("--targets gfx90a:sramecc+:sramecc+_110", "feature 'sramecc' is given more than once")
case("--targets gfx906_60,gfx906_60", "two targets would write the same kdb")
write("targets-empty.txt", "# no targets here\n")
case("--targets-file @targets-empty.txt", "no targets in file")
write("targets-bad-line.txt", "gfx906_60\ngfx90z_110\n")
case("--targets-file @targets-bad-line.txt", "targets-bad-line.txt:2:")

write("cases.txt", "# Generated by generate.py: <kdbgen build arguments> | <message fragment>. Every case exits 2 and writes nothing.\n"
      + "\n".join(cases) + "\n")
print(f"{len(cases)} cases")
