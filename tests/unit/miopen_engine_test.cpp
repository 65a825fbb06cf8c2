// The MIOpen engine: replay lines, kdbgen-hip-stub's ABI, offload bundles, and
// (with Debian's MIOpen roots from tools/miopen-roots) MIOpen building its own
// kdb under the stub, then finding every kernel in it.
#include "test_support.hpp"

#include "kdbgen/codeobject.hpp"
#include "kdbgen/compile.hpp"
#include "kdbgen/engine_cache.hpp"
#include "kdbgen/kdb.hpp"
#include "kdbgen/miopen_engine.hpp"
#include "kdbgen/shard.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <cstring>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <sys/stat.h>

using namespace kdbgen;

namespace {

fs::path stub_dir() { return fs::path(test::kdbgen_binary()).parent_path() / "hip-stub"; }

Problem first_problem(const std::string& driver_line) {
    const auto problems = parse_driver_command(driver_line);
    EXPECT_FALSE(problems.empty());
    return problems.front();
}

}  // namespace

TEST(ReplayLine, ForwardConvolutionNamesEveryTensor) {
    const auto problem = first_problem("conv -n 2 -c 64 -H 56 -W 56 -k 128 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -g 2 -F 1 -t 1");
    EXPECT_EQ(replay_line(problem).value(),
              "conv dir=F x=2,64,56,56 w=128,32,3,3 y=2,128,28,28 pad=1,1 stride=2,2 dil=1,1 groups=2 types=1,1,1 "
              "layouts=NCHW,NCHW,NCHW");
}

TEST(ReplayLine, BackwardDataSwapsTheKeysInAndOutBack) {
    // A find-db key for backward data holds the convolution's output in its "in" fields.
    ConvProblem key = parse_conv_problem_key("128-28-28-3x3-64-56-56-4-1x1-2x2-1x1-0-NHWC-NHWC-NHWC-FP16-B");
    EXPECT_EQ(replay_line(key).value(),
              "conv dir=B x=4,64,56,56 w=128,64,3,3 y=4,128,28,28 pad=1,1 stride=2,2 dil=1,1 groups=1 types=0,0,0 "
              "layouts=NHWC,NHWC,NHWC");
}

TEST(ReplayLine, MixedTypesAndThreeDimensions) {
    ConvProblem key = parse_conv_problem_key("16-4-8-8-3x3x3-32-4-8-8-2-1x1x1-1x1x1-1x1x1-0-NCDHW-INT8INT8INT32-F");
    EXPECT_EQ(replay_line(key).value(),
              "conv dir=F x=2,16,4,8,8 w=32,16,3,3,3 y=2,32,4,8,8 pad=1,1,1 stride=1,1,1 dil=1,1,1 groups=1 "
              "types=3,3,2 layouts=NCDHW,NCDHW,NCDHW");
}

TEST(ReplayLine, WhatTheReplayCannotExpressIsSaidWhy) {
    ConvProblem key = parse_conv_problem_key("64-56-56-3x3-64-56-56-1-1x1-1x1-1x1-0-NCHW-FP32-F");
    key.cast_suffix = "_ci";
    std::string why;
    EXPECT_FALSE(replay_line(key, &why));
    EXPECT_NE(why.find("cast"), std::string::npos) << why;
    key.cast_suffix.clear();
    key.in_layout = "CHWN";
    EXPECT_FALSE(replay_line(key, &why));
    EXPECT_NE(why.find("CHWN"), std::string::npos) << why;
}

TEST(ReplayLine, OtherPrimitives) {
    EXPECT_EQ(replay_line(first_problem("bnorm -n 8 -c 64 -H 56 -W 56 -m 1 --forw 1 -b 0 -s 1 -r 1")).value(),
              "bnorm dir=train mode=1 x=8,64,56,56 type=1 ptype=1 layout=NCHW saved=1 running=1");
    const auto pool = replay_line(first_problem("pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1"));
    ASSERT_TRUE(pool);
    EXPECT_TRUE(pool->starts_with("pool dir=F mode=0 x=8,64,112,112 y=8,64,56,56 win=3,3 pad=1,1 stride=2,2 type=1"))
        << *pool;
}

// MIOpenDriver's rnn, ctc and dropout lines are replayed by kdbgen, the flags read as the drivers read them
// (MIOpen 3.3.0): rnn_driver.hpp:232-293 for the defaults (forw 0, num_layer 1, seq_len 1, batchsize "4",
// hid_h 32, in_h 32, bias "" = 0, mode tanh, fwdtype 0, dropout 0.0), :297-352 for the batch size of each
// time step (cut to seq_len, its last value repeated), :389-530 for the modes and the seed (seed_high << 32
// | seed_low); dropout_driver.hpp:152-181 (input_dim "4", dropout 0.5, use_mask 0) and :137-150; the type is
// the command's (driver/main.cpp: rnnfp16 and dropoutfp16 run the half drivers).
TEST(ReplayLine, RnnCtcAndDropoutLinesAreReadAsMiopenDriverReadsThem) {
    EXPECT_EQ(replay_line(first_problem("rnn -n 8,6 -W 32 -H 64 -l 2 -k 4 -m lstm -r 1 -b 1")).value(),
              "rnn mode=2 layers=2 hidden=64 input=32 batches=8,6,6,6 bidirection=1 inputmode=0 bias=1 algo=0 "
              "padding=0 forw=0 fwdtype=0 dropout=0 rate=0.0 seed=0 type=1");
    EXPECT_EQ(replay_line(first_problem("rnnfp16 --batchsize 4,3,2 --seq_len 2 --mode gru --fwdtype 1 -F 1 -U 1 "
                                        "-P 0.25 -L 7 -M 1"))
                  .value(),
              "rnn mode=3 layers=1 hidden=32 input=32 batches=4,3 bidirection=0 inputmode=0 bias=0 algo=0 padding=0 "
              "forw=1 fwdtype=1 dropout=1 rate=0.25 seed=4294967303 type=0");
    EXPECT_EQ(replay_line(first_problem("rnn")).value(),
              "rnn mode=1 layers=1 hidden=32 input=32 batches=4 bidirection=0 inputmode=0 bias=0 algo=0 padding=0 "
              "forw=0 fwdtype=0 dropout=0 rate=0.0 seed=0 type=1");
    std::string why;
    EXPECT_FALSE(replay_line(first_problem("rnn -m sigmoid"), &why));  // the driver exits: "Incorrect RNN Mode"
    EXPECT_NE(why.find("mode sigmoid"), std::string::npos) << why;
    EXPECT_EQ(replay_line(first_problem("dropout -d 4,32,32 -p 0.5 -e 1 -F 1")).value(),
              "dropout x=4,32,32 rate=0.5 seed=0 mask=1 forw=1 type=1");
    EXPECT_EQ(replay_line(first_problem("dropoutfp16 -d 2,3,4,5,6,7 -l 3")).value(),
              "dropout x=2,3,4,5,6 rate=0.5 seed=3 mask=0 forw=0 type=0");
    // ctc_driver.hpp:158-187 (batchsize 4, num_class 9 without the blank, input_len "20", label_len "5",
    // blank_label_id 0, apply_softmax_layer 1, ctcalgo 0) and :189-216 (a length per batch entry, cut to
    // the batch or its last value repeated).
    EXPECT_EQ(replay_line(first_problem("ctc -k 10 -l 5 -c 16 -n 2 -F 1")).value(),
              "ctc classes=16 labels=5,5 inputs=10,10 blank=0 softmax=1 algo=0");
    EXPECT_EQ(replay_line(first_problem("ctc")).value(),
              "ctc classes=9 labels=5,5,5,5 inputs=20,20,20,20 blank=0 softmax=1 algo=0");
    EXPECT_EQ(replay_line(first_problem("ctc -n 3 -l 2,4,6,8 -k 7,9 -b 3 -m 0")).value(),
              "ctc classes=9 labels=2,4,6 inputs=7,9,9 blank=3 softmax=0 algo=0");
}

TEST(ReplayLine, BackwardWeightsNamesXAndDyTheRightWayRound) {
    // The key of a backward-weights problem holds dy in its "in" fields, as for backward data (MIOpen 3.3.0
    // src/ocl/convolutionocl.cpp:1090 forms ProblemDescription{dy, dw, x}); the replay must pass x as x.
    const auto problem =
        first_problem("conv -n 2 -c 32 -H 14 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -g 1 -F 4");
    EXPECT_EQ(replay_line(problem).value(),
              "conv dir=W x=2,32,14,28 w=64,32,3,3 y=2,64,7,14 pad=1,1 stride=2,2 dil=1,1 groups=1 types=1,1,1 "
              "layouts=NCHW,NCHW,NCHW");
}

TEST(ReplayLine, BatchNormSaysWhichBuffersTheCallerGives) {
    // MIOpenDriver -s 0 -r 0: neither saved nor running results, so MIOpen builds
    // MIOpenBatchNormFwdTrainSpatial.cl with MIO_SAVE_MEAN_VARIANCE=0 MIO_RUNNING_RESULT=0.
    EXPECT_EQ(replay_line(first_problem("bnorm -n 2 -c 16 -H 8 -W 8 -m 1 --forw 1 -s 0 -r 0")).value(),
              "bnorm dir=train mode=1 x=2,16,8,8 type=1 ptype=1 layout=NCHW saved=0 running=0");
    EXPECT_EQ(replay_line(first_problem("bnorm -n 2 -c 16 -H 8 -W 8 -m 1 --forw 1 -s 1 -r 0")).value(),
              "bnorm dir=train mode=1 x=2,16,8,8 type=1 ptype=1 layout=NCHW saved=1 running=0");
    EXPECT_EQ(replay_line(first_problem("bnorm -n 2 -c 16 -H 8 -W 8 -m 0 --forw 0 -b 1 -s 0")).value(),
              "bnorm dir=back mode=0 x=2,16,8,8 type=1 ptype=1 layout=NCHW saved=0 running=0");
}

TEST(ReplayLine, ActivationAndSoftmaxCarryTheirParameters) {
    EXPECT_EQ(replay_line(first_problem("activ -n 2 -c 3 -H 4 -W 5 -m 8 -A 0.5 -B 2 -G 0.25 --forw 1")).value(),
              "activ dir=F mode=8 alpha=0.5 beta=2 gamma=0.25 x=2,3,4,5 type=1");
    EXPECT_EQ(replay_line(first_problem("softmax -n 2 -c 3 -H 4 -W 5 -a 2 -m 0 -A 1.5 -B 0.5 --forw 2")).value(),
              "softmax dir=B algo=2 mode=0 alpha=1.5 beta=0.5 x=2,3,4,5 type=1");
}

TEST(MiopenLog, LookupsMissesAndSavesPerKey) {
    // src/binary_cache.cpp:166,175,194 (MIOpen 3.3.0); 3.4 streams the name as a path, in quotes.
    KernelLookups lookups;
    const std::string args = "  -DMIOPEN_USE_FP32=1 -mcpu=gfx1030";
    EXPECT_TRUE(read_miopen_log_line("MIOpen(HIP): Info2 [LoadBinary] Loading binary for: \"naive_conv.cpp.o\"; args: " + args, lookups));
    EXPECT_TRUE(read_miopen_log_line("MIOpen(HIP): Info2 [LoadBinary] Unable to load binary for: \"naive_conv.cpp.o\"; args: " + args, lookups));
    EXPECT_TRUE(read_miopen_log_line("MIOpen(HIP): Info2 [LoadBinary] Loading binary for: MIOpenIm2d2Col.cl.o; args: -DX=1 -mcpu=gfx90a:sramecc+:xnack-", lookups));
    EXPECT_TRUE(read_miopen_log_line("MIOpen(HIP): Info2 [LoadBinary] Unable to load binary for: MIOpenIm2d2Col.cl.o; args: -DX=1 -mcpu=gfx90a:sramecc+:xnack-", lookups));
    EXPECT_TRUE(read_miopen_log_line("MIOpen(HIP): Info2 [LoadBinary] Unable to load binary for: MIOpenIm2d2Col.cl.o; args: -DX=1 -mcpu=gfx90a", lookups));
    EXPECT_TRUE(read_miopen_log_line("MIOpen(HIP): Info2 [SaveBinary] Saving binary for: MIOpenIm2d2Col.cl.o; args: -DX=1 -mcpu=gfx90a", lookups));
    EXPECT_FALSE(read_miopen_log_line("MIOpen(HIP): Info2 [GetAvailableMemory] 1234", lookups));
    EXPECT_TRUE(lookups.asked.count({"naive_conv.cpp.o", args}));
    // The target-ID lookup and its fallback are one kernel, saved: not a failure; naive_conv was never saved.
    const auto failed = lookups.failed_compiles();
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_EQ(failed[0].kernel_name, "naive_conv.cpp.o");
    // A kernel whose source this MIOpen lacks is not a failed compile: it has nothing to compile.
    EXPECT_TRUE(read_miopen_log_line("MIOpen(HIP): Info2 [LoadBinary] Unable to load binary for: "
                                     "Conv_Winograd_v30_3_1_fp32_f3x2_stride1.s.o; args: -mcumode -mcpu=gfx1030", lookups));
    read_miopen_log_line("MIOpen Error: vm:build/kernel.cpp:444: Failed to load kernel source: "
                         "Conv_Winograd_v30_3_1_fp32_f3x2_stride1.s", lookups);
    EXPECT_EQ(lookups.failed_compiles().size(), 1u);
    ASSERT_EQ(lookups.without_source().size(), 1u);
    EXPECT_EQ(lookups.without_source()[0].kernel_name, "Conv_Winograd_v30_3_1_fp32_f3x2_stride1.s.o");
    // Which problems are replayed again to tell unstable keys: those that tried to compile something.
    EXPECT_TRUE(lookups.missed_a_buildable_key());
    KernelLookups only_sourceless;
    read_miopen_log_line("MIOpen(HIP): Info2 [LoadBinary] Loading binary for: naive_conv.cpp.o; args: " + args,
                         only_sourceless);
    EXPECT_FALSE(only_sourceless.missed_a_buildable_key());
    read_miopen_log_line("MIOpen(HIP): Info2 [LoadBinary] Unable to load binary for: "
                         "Conv_Winograd_v30_3_1_fp32_f3x2_stride1.s.o; args: -mcumode -mcpu=gfx1030", only_sourceless);
    read_miopen_log_line("MIOpen Error: vm:build/kernel.cpp:444: Failed to load kernel source: "
                         "Conv_Winograd_v30_3_1_fp32_f3x2_stride1.s", only_sourceless);
    EXPECT_FALSE(only_sourceless.missed_a_buildable_key());
    EXPECT_TRUE(read_miopen_log_line("MIOpen Error: src/sqlite_db.cpp:226: Internal error while accessing SQLite "
                                     "database: file is not a database", lookups));
    EXPECT_EQ(lookups.kdb_unreadable.size(), 1u);
}

TEST(UnstableKeys, DifferOnlyInTheValuesOfDefines) {
    // MIOpen 3.5.1's batch-norm backward key, from two processes (docs/engine.md).
    const KdbKey a{"MIOpenBatchNormBwdSpatial.cl.o", "-DMIO_BN_N=2 -DMIO_BN_N_ELEMENTS=12340 -DMIO_BN_C=16 -mcpu=gfx1030"};
    const KdbKey b{"MIOpenBatchNormBwdSpatial.cl.o", "-DMIO_BN_N=2 -DMIO_BN_N_ELEMENTS=14646 -DMIO_BN_C=16 -mcpu=gfx1030"};
    EXPECT_EQ(varying_defines(a, b).value(), std::vector<std::string>{"MIO_BN_N_ELEMENTS"});
    EXPECT_FALSE(varying_defines(a, a));
    EXPECT_FALSE(varying_defines(a, KdbKey{"MIOpenBatchNormBwdSpatial.cl.o", "-DMIO_BN_N=2 -DMIO_BN_C=16 -mcpu=gfx1030"}));
    EXPECT_FALSE(varying_defines(a, KdbKey{"other.cl.o", b.kernel_args}));
    const UnstableKey unstable{a.kernel_name, {"MIO_BN_N_ELEMENTS"}, {a.kernel_args, b.kernel_args}, "batchnorm"};
    EXPECT_TRUE(unstable.matches({a.kernel_name, "-DMIO_BN_N=2 -DMIO_BN_N_ELEMENTS=53 -DMIO_BN_C=16 -mcpu=gfx1030"}));
    // Another problem's kernel (another MIO_BN_N) is a kernel of its own, not this one ...
    EXPECT_FALSE(unstable.matches({a.kernel_name, "-DMIO_BN_N=4 -DMIO_BN_N_ELEMENTS=53 -DMIO_BN_C=16 -mcpu=gfx1030"}));
    // ... unless that problem's own forms were seen varying too: then each example is one problem's form.
    UnstableKey two = unstable;
    two.examples.push_back("-DMIO_BN_N=4 -DMIO_BN_N_ELEMENTS=7 -DMIO_BN_C=16 -mcpu=gfx1030");
    EXPECT_TRUE(two.matches({a.kernel_name, "-DMIO_BN_N=4 -DMIO_BN_N_ELEMENTS=53 -DMIO_BN_C=16 -mcpu=gfx1030"}));
}

namespace {
// tools/random-problems: every kind and direction the engine replays.
ProblemSet generated_problems(int count, int seed, const fs::path& log) {
    const std::string command = "python3 " + (test::source_dir() / "tools" / "random-problems").string() + " -n " +
                                std::to_string(count) + " --seed " + std::to_string(seed) + " > " + log.string();
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return read_driver_log(log);
}
}  // namespace

TEST(DriverCommands, EveryGeneratedProblemIsStatedExactly) {
    // driver_commands reads each command back as kdbgen reads MIOpenDriver lines and refuses one that
    // states another problem; every kind the generator makes must go through.
    const fs::path log = fs::temp_directory_path() / ("kdbgen-driver-commands-" + std::to_string(getpid()) + ".log");
    const ProblemSet problems = generated_problems(300, 11, log);
    fs::remove(log);
    ASSERT_GE(problems.entries().size(), 300u);
    std::set<std::string> kinds;
    for (const auto& entry : problems.entries()) {
        std::string why;
        const auto commands = driver_commands(entry.problem, &why);
        ASSERT_TRUE(commands) << entry.key << ": " << why;
        kinds.insert(std::string(problem_kind(entry.problem)));
        if (std::holds_alternative<ConvProblem>(entry.problem)) {
            ASSERT_TRUE(commands->immediate);
            EXPECT_EQ(commands->immediate->back(), "0");
        }
        EXPECT_TRUE(replay_line(entry.problem)) << entry.key;
    }
    EXPECT_EQ(kinds.size(), 7u);
}

// The stub answers as the card kdbgen names: hipDeviceProp_tR0600 at HIP 6.4's
// and 7.2's offsets, and every symbol at the version libMIOpen imports it with.
TEST(HipStub, DescribesTheCardAtTheAbisOffsetsAndVersions) {
    for (const char* soname : {"libamdhip64.so.6", "libamdhip64.so.7"}) {
        // Each soname is a separate object, so the device is read once per library.
        ASSERT_EQ(setenv("KDBGEN_STUB_ARCH", "gfx90a:sramecc+:xnack-", 1), 0);
        ASSERT_EQ(setenv("KDBGEN_STUB_CUS", "110", 1), 0);
        void* library = dlopen((stub_dir() / soname).c_str(), RTLD_NOW | RTLD_LOCAL);
        ASSERT_NE(library, nullptr) << dlerror();
        // libMIOpen 3.4.0 imports hipMalloc@hip_4.2, hipModuleLaunchCooperativeKernel@hip_5.5 and
        // hipGetDevicePropertiesR0600@hip_6.0 (readelf --dyn-syms of Debian's libMIOpen.so.1.0).
        EXPECT_NE(dlvsym(library, "hipMalloc", "hip_4.2"), nullptr) << soname;
        EXPECT_NE(dlvsym(library, "hipModuleLaunchCooperativeKernel", "hip_5.5"), nullptr) << soname;
        auto* properties = reinterpret_cast<int (*)(void*, int)>(dlvsym(library, "hipGetDevicePropertiesR0600", "hip_6.0"));
        ASSERT_NE(properties, nullptr) << soname;
        // The replay's count of reads of the CU count that may decide what MIOpen builds.
        auto* deciding = reinterpret_cast<unsigned long (*)()>(dlvsym(library, "kdbgen_stub_deciding_cu_reads", "hip_4.2"));
        ASSERT_NE(deciding, nullptr) << soname;
        const unsigned long before = deciding();
        std::vector<char> prop(1472);
        ASSERT_EQ(properties(prop.data(), 0), 0);
        EXPECT_STREQ(prop.data() + 1160, "gfx90a:sramecc+:xnack-");  // gcnArchName
        int cus = 0, warp = 0, major = 0, minor = 0;
        std::memcpy(&cus, prop.data() + 388, 4);    // multiProcessorCount
        std::memcpy(&warp, prop.data() + 308, 4);   // warpSize
        std::memcpy(&major, prop.data() + 360, 4);
        std::memcpy(&minor, prop.data() + 364, 4);
        EXPECT_EQ(cus, 110);
        EXPECT_EQ(warp, 64);
        EXPECT_EQ(major, 9);
        EXPECT_EQ(minor, 0);  // ROCm: gfx90a is 9.0, stepping a
        auto* attribute = reinterpret_cast<int (*)(int*, int, int)>(dlsym(library, "hipDeviceGetAttribute"));
        int value = 0;
        ASSERT_EQ(attribute(&value, 87, 0), 0);  // hipDeviceAttributeWarpSize: no CU count
        EXPECT_EQ(deciding(), before + 1) << "the properties, read here (no db file's name), count; the wave size not";
        ASSERT_EQ(attribute(&value, 63, 0), 0);  // hipDeviceAttributeMultiprocessorCount
        EXPECT_EQ(value, 110);
        EXPECT_EQ(deciding(), before + 2) << "a reader that is none of MIOpen's db-naming functions decides";
        EXPECT_NE(properties(prop.data(), 1), 0);  // one device only
        dlclose(library);
    }
}

TEST(CodeObject, AClangOffloadBundleIsReadThroughItsAmdgcnEntry) {
    // MIOpen 3.4 compiling HIP with clang stores the bundle clang wrote.
    const Compiler compiler(test::toolchain(), nullptr);
    const auto build = test::demo_build("kdbgen_tensor_op.cl", "-DMIOPEN_USE_FP32=1", "gfx1030_36", {});
    const auto result = compiler.compile(build);
    ASSERT_TRUE(result.ok) << result.log;
    const std::string host_id = "host-x86_64-unknown-linux-gnu-", device_id = "hipv4-amdgcn-amd-amdhsa--gfx1030";
    Bytes bundle;
    auto put64 = [&](std::uint64_t value) {
        for (int i = 0; i < 8; ++i) bundle.push_back(static_cast<char>(value >> (8 * i)));
    };
    const std::string magic = "__CLANG_OFFLOAD_BUNDLE__";
    bundle.insert(bundle.end(), magic.begin(), magic.end());
    put64(2);
    const std::uint64_t header = magic.size() + 8 + 2 * 24 + host_id.size() + device_id.size();
    put64(header), put64(0), put64(host_id.size());
    bundle.insert(bundle.end(), host_id.begin(), host_id.end());
    put64(header), put64(result.code.size()), put64(device_id.size());
    bundle.insert(bundle.end(), device_id.begin(), device_id.end());
    bundle.insert(bundle.end(), result.code.begin(), result.code.end());
    const auto info = read_code_object(bundle);
    EXPECT_EQ(info.mach(), find_processor("gfx1030")->elf_mach);
    EXPECT_TRUE(check_code_object(bundle, parse_target("gfx1030_36")).empty());
    bundle.resize(bundle.size() - 100);
    EXPECT_THROW(read_code_object(bundle), std::runtime_error);
}

// Rows MIOpen wrote are checked as `kdbgen verify` checks a kdb's before any is written: a name that is not
// an object's and a code object for another processor are named with the library and the file, and dropped.
TEST(UserKdbRows, EachIsCheckedAsVerifyChecksAKdb) {
    const Compiler compiler(test::toolchain(), nullptr);
    const auto result = compiler.compile(test::demo_build("kdbgen_tensor_op.cl", "-DMIOPEN_USE_FP32=1", "gfx1030_36", {}));
    ASSERT_TRUE(result.ok) << result.log;
    const fs::path ukdb = fs::temp_directory_path() / ("kdbgen-user-kdb-" + std::to_string(getpid()) + ".ukdb");
    write_kdb(ukdb, {{{"good.cl.o", "-DA=1 -mcpu=gfx1030"}, result.code},
                     {{"no_suffix.cl", "-DA=1 -mcpu=gfx1030"}, result.code}});
    std::map<KdbKey, Bytes> kernels;
    std::vector<std::string> bad;
    read_user_kdb(ukdb, parse_target("gfx1030_36"), "/usr/lib/libMIOpen.so.1", kernels, bad);
    EXPECT_EQ(kernels.size(), 1u);
    EXPECT_TRUE(kernels.count({"good.cl.o", "-DA=1 -mcpu=gfx1030"}));
    ASSERT_EQ(bad.size(), 1u);
    EXPECT_NE(bad[0].find("no_suffix.cl"), std::string::npos) << bad[0];
    EXPECT_NE(bad[0].find("/usr/lib/libMIOpen.so.1"), std::string::npos) << bad[0];
    EXPECT_NE(bad[0].find(ukdb.string()), std::string::npos) << bad[0];
    // The same rows for a card of another processor: the code object's machine is not its.
    kernels.clear();
    bad.clear();
    read_user_kdb(ukdb, parse_target("gfx90a:sramecc+:xnack-_110"), "/usr/lib/libMIOpen.so.1", kernels, bad);
    EXPECT_TRUE(kernels.empty());
    EXPECT_EQ(bad.size(), 2u);
    fs::remove(ukdb);
}

// Debian's MIOpen, run by kdbgen: tools/miopen-roots makes the roots (as
// root); KDBGEN_MIOPEN_ROOTS names their folder (default build-miopen/).
class DebianMiopen : public ::testing::TestWithParam<std::string> {
protected:
    fs::path root;
    void SetUp() override {
        const char* env = std::getenv("KDBGEN_MIOPEN_ROOTS");
        root = fs::path(env && *env ? env : (test::source_dir() / "build-miopen").string()) / GetParam();
        if (!fs::exists(root / ".kdbgen-done")) GTEST_SKIP() << "no MIOpen root at " << root << " (tools/miopen-roots)";
        if (!test::namespaces_available())
            GTEST_SKIP() << "kdbgen-sandbox needs root or unprivileged user namespaces";
        // Each test's builds start from an empty cache of their own: what MIOpen compiles is what is tested.
        cache = scratch("cache");
        setenv("KDBGEN_CACHE_DIR", cache.c_str(), 1);
    }
    void TearDown() override {
        if (!cache.empty()) fs::remove_all(cache);
    }
    fs::path cache;
    // kdbgen build --engine miopen on this root, for one card, over work/net.log; JSON out.
    std::vector<std::string> engine_build(const fs::path& work, const std::string& card) const {
        return {"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets", card,
                "--driver-log", (work / "net.log").string(), "-j", "2", "--json", "-q"};
    }
    // A driver log (work/ops.log) built for one card with no cache, then its kdbs (work/out)
    // checked through MIOpenDriver: each run's result and its JSON (null where it printed none).
    struct BuiltAndChecked {
        ProcessResult built, checked;
        nlohmann::json build, check;
    };
    BuiltAndChecked build_then_check_with_driver(const fs::path& work, const std::string& log,
                                                 const std::string& card) const {
        std::ofstream(work / "ops.log") << log;
        const std::vector<std::string> common{"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets",
                                              card, "--driver-log", (work / "ops.log").string(), "--json", "-q"};
        const auto json_of = [](const ProcessResult& run) {
            const auto brace = run.output.find('{');
            return brace == std::string::npos ? nlohmann::json() : nlohmann::json::parse(run.output.substr(brace));
        };
        BuiltAndChecked result;
        auto args = common;
        args.insert(args.end(), {"-o", (work / "out").string(), "--no-cache"});
        result.built = test::run_kdbgen(args);
        result.build = json_of(result.built);
        if (result.built.exit_code != 0) return result;
        args = common;
        args.insert(args.end(), {"--check-kdbs", (work / "out").string(), "--check-client", "driver"});
        result.checked = test::run_kdbgen(args);
        result.check = json_of(result.checked);
        return result;
    }
    static ProcessResult build_into(std::vector<std::string> args, const fs::path& out) {
        args.insert(args.end(), {"-o", out.string()});
        return test::run_kdbgen(args);
    }
    fs::path scratch(const std::string& name) {
        const fs::path dir = fs::temp_directory_path() / ("kdbgen-engine-test-" + std::to_string(getpid()) + "-" + name);
        fs::remove_all(dir);
        fs::create_directories(dir);
        return dir;
    }
};

// Problems that passed on a card: every problem but those that failed (MIOpen's own or under kdbgen).
static int problems_ok(const nlohmann::json& card) {
    return card["problems"].get<int>() - card["problems_failed_by_miopen"].get<int>() -
           card["problems_failed_under_kdbgen"].get<int>() - card["problems_not_replayed"].get<int>();
}

TEST_P(DebianMiopen, BuildsAKdbThatMiopenThenCompilesNothingWith) {
    const fs::path work = scratch("build-" + GetParam());
    {
        std::ofstream log(work / "net.log");
        log << "MIOpenDriver conv -n 1 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1 -t 1\n"
               "MIOpenDriver conv -n 4 -c 32 -H 28 -W 28 -k 64 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 2 -t 1\n"
               "MIOpenDriver bnorm -n 8 -c 64 -H 56 -W 56 -m 1 --forw 1 -b 0 -s 1 -r 1\n"
               "MIOpenDriver pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n";
    }
    const std::vector<std::string> common{"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets",
                                          "gfx1030_36", "--driver-log", (work / "net.log").string(), "-j", "2",
                                          "--json", "-q"};
    auto args = common;
    args.insert(args.end(), {"-o", (work / "out").string()});
    const auto built = test::run_kdbgen(args);
    const auto report = nlohmann::json::parse(built.output.substr(built.output.find('{')));
    const auto& card = report["targets"][0]["cards"][0];
    EXPECT_EQ(card["db_basename"], "gfx1030_36");
    const auto& by_file = card["kernels_by_file"];
    if (GetParam() == "sid") {
        ASSERT_EQ(built.exit_code, 0) << built.output;
        EXPECT_EQ(problems_ok(card), 4) << card.dump(2);
        // MIOpen 3.4.0's own kernels: naive_conv and im2col for the convolutions (no find-db record, no
        // assembler in Debian's build: the dynamic solvers), batch norm's and pooling's OpenCL kernels.
        for (const char* file : {"naive_conv.cpp.o", "MIOpenIm2d2Col.cl.o", "MIOpenBatchNormFwdTrainSpatial.cl.o",
                                 "MIOpenPooling.cl.o"})
            EXPECT_TRUE(by_file.contains(file)) << file << " missing: " << by_file.dump();
        EXPECT_TRUE(card["still_compiled"].empty()) << card.dump(2);
    } else {
        // MIOpen 3.5.1: batch norm and pooling are HIP now, the 3x3 convolution gets the direct OpenCL and
        // the v4r4 implicit-GEMM kernels, and naive_conv only in the second round (once those load from a
        // kdb). The spatial batch-norm key carries an uninitialized value (-DMIO_BN_N_ELEMENTS=<a stack
        // address>, new in every process): no kdb can serve it, so the build names it and never writes it.
        // Debian's 3.5.1 ships gfx1030_36's find-db, whose records name Winograd assembly kernels it does not
        // ship ("Failed to load kernel source: Conv_Winograd_v30_3_1_fp32_f2x3_stride1.s"): Find and -S 0 of
        // the two convolutions fail in a user's process, with or without any kdb: MIOpen's own failures, named
        // with the sources it lacks, and no failure of the build (exit 0; issue #47).
        EXPECT_EQ(built.exit_code, 0) << built.output;
        EXPECT_EQ(problems_ok(card), 2) << card.dump(2);
        EXPECT_EQ(report["problems_failed_under_kdbgen"], 0) << built.output;
        EXPECT_EQ(report["problems_failed_by_miopen"], 2) << built.output;
        for (const auto& failure : card["failures"]) {
            EXPECT_EQ(failure["kind"], "conv") << failure.dump();
            EXPECT_NE(failure["message"].get<std::string>().find("miopenStatusUnknownError"), std::string::npos);
            EXPECT_NE(failure["miopen_own"].get<std::string>().find("MIOpen has no source for"), std::string::npos)
                << failure.dump();
            EXPECT_NE(failure["miopen_own"].get<std::string>().find("Conv_Winograd"), std::string::npos)
                << failure.dump();
        }
        for (const char* file : {"naive_conv.cpp.o", "MIOpenConvDirUni.cl.o", "MIOpenPooling.cpp.o",
                                 "static_kernel_gridwise_convolution_implicit_gemm_v4r4_nchw_kcyx_nkhw.cpp.o"})
            EXPECT_TRUE(by_file.contains(file)) << file << " missing: " << by_file.dump();
        EXPECT_TRUE(card["still_compiled"].empty()) << card.dump(2);
        ASSERT_FALSE(card["unstable_keys"].empty()) << card.dump(2);
        for (const auto& key : card["unstable_keys"]) {
            EXPECT_TRUE(key["kernel_name"].get<std::string>().starts_with("MIOpenBatchNorm")) << key.dump();
            EXPECT_FALSE(by_file.contains(key["kernel_name"].get<std::string>())) << key.dump();
        }
    }
    const auto verify = test::run_kdbgen({"verify", (work / "out" / "gfx1030_36.kdb").string()});
    EXPECT_EQ(verify.exit_code, 0) << verify.output;

    // The end-to-end check, with MIOpen's own MIOpenDriver (Find and -S 0, a process each, an empty user db):
    // with this kdb installed MIOpen compiles nothing (but the unstable key, named apart) ...
    args = common;
    args.insert(args.end(), {"--check-kdbs", (work / "out").string()});
    const auto checked = test::run_kdbgen(args);
    const auto check = nlohmann::json::parse(checked.output.substr(checked.output.find('{')));
    EXPECT_EQ(check["client"], "MIOpenDriver") << checked.output;
    EXPECT_EQ(check["kernels_compiled"], 0) << checked.output;
    if (GetParam() == "sid") {
        EXPECT_EQ(checked.exit_code, 0) << checked.output;
        EXPECT_EQ(check["problems_failed_under_kdbgen"], 0) << checked.output;
    } else {
        EXPECT_GE(check["unstable_keys"].get<int>(), 1) << checked.output;
        // The two convolutions fail in MIOpenDriver as they do in the replay, and not because of the kdb:
        // MIOpen's own failures, no fault of the kdbs (exit 0).
        EXPECT_EQ(checked.exit_code, 0) << checked.output;
        EXPECT_EQ(check["problems_failed_under_kdbgen"], 0) << checked.output;
        EXPECT_EQ(check["problems_failed_by_miopen"], 2) << checked.output;
        for (const auto& failure : check["targets"][0]["cards"][0]["failures"])
            EXPECT_NE(failure["message"].get<std::string>().find("without the kdbs as well"), std::string::npos)
                << failure.dump();
    }
    // ... and without it compiles every kernel again (the check can fail).
    fs::create_directories(work / "empty");
    args = common;
    args.insert(args.end(), {"--check-kdbs", (work / "empty").string()});
    const auto unchecked = test::run_kdbgen(args);
    EXPECT_EQ(unchecked.exit_code, 1) << unchecked.output;
    fs::remove_all(work);
}

// Foreign libraries on this system ("/" as the root): no Debian root needed.
class HostileMiopen : public ::testing::Test {
protected:
    fs::path work;
    void SetUp() override {
        if (!test::namespaces_available())
            GTEST_SKIP() << "kdbgen-sandbox needs root or unprivileged user namespaces";
        work = fs::temp_directory_path() / ("kdbgen-hostile-test-" + std::to_string(getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(work);
        fs::create_directories(work / "tmp");
        setenv("KDBGEN_CACHE_DIR", (work / "cache").c_str(), 1);
        std::ofstream(work / "net.log") << "MIOpenDriver pool -W 2x16x16x16 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n";
    }
    void TearDown() override {
        if (!work.empty()) fs::remove_all(work);
    }
    ProcessResult build_with(const std::string& library, std::vector<std::string> more = {}) {
        std::vector<std::string> args{"build", "--engine", "miopen", "--miopen-lib", library, "--targets",
                                      "gfx1030_36", "--driver-log", (work / "net.log").string(), "-o",
                                      (work / "out").string()};
        args.insert(args.end(), more.begin(), more.end());
        return test::run_kdbgen(args);
    }
};

TEST_F(HostileMiopen, ALibraryThatIsNotMiopenIsAnErrorNamingIt) {
    const auto result = build_with("/usr/lib/x86_64-linux-gnu/libz.so.1");
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("libz.so.1"), std::string::npos) << result.output;
    EXPECT_FALSE(fs::exists(work / "out" / "gfx1030_36.kdb"));
}

TEST_F(HostileMiopen, ASymbolTheStubLacksIsNamed) {
    // A MIOpen built against a HIP newer than the stub: the loader's own words name the symbol.
    const auto result = build_with(KDBGEN_TEST_FAKE_MIOPEN);
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("hipFunctionTheStubLacks"), std::string::npos) << result.output;
    EXPECT_FALSE(fs::exists(work / "out"));
}

TEST_F(HostileMiopen, ALibraryThatDiesLoadingIsNamedNotAProblem) {
    const auto result = build_with(KDBGEN_TEST_DYING_MIOPEN);
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find(KDBGEN_TEST_DYING_MIOPEN), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("before its first problem"), std::string::npos) << result.output;
    EXPECT_EQ(result.output.find("interrupted"), std::string::npos) << result.output;
    EXPECT_FALSE(fs::exists(work / "out"));
}

// A library that never returns (in its constructor, in miopenCreate): the watchdog stops each replay process
// with everything it started, names the library, and kdbgen exits 2 well within twice the limit.
TEST_F(HostileMiopen, ALibraryThatHangsIsStoppedByTheWatchdogAndNamed) {
    for (const char* library : {KDBGEN_TEST_HANGING_MIOPEN_1, KDBGEN_TEST_HANGING_MIOPEN_2}) {
        const auto started = std::chrono::steady_clock::now();
        const auto result = build_with(library, {"--problem-timeout", "3", "-j", "1"});
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        EXPECT_EQ(result.exit_code, 2) << library << "\n" << result.output;
        EXPECT_NE(result.output.find(library), std::string::npos) << result.output;
        EXPECT_NE(result.output.find("started no problem within 3 s (--problem-timeout)"), std::string::npos)
            << result.output;
        EXPECT_LT(seconds, 30) << library;
        EXPECT_FALSE(fs::exists(work / "out"));
    }
}

// A library that prints the replay's own "start 0" line once a second while it hangs in a problem: the
// watchdog listens to the replay's channel alone, so the problem is stopped after --problem-timeout. Before,
// any "start N" on the output moved the deadline: it ran past --problem-timeout 5 for over a minute.
TEST_F(HostileMiopen, WhatTheLibraryPrintsMovesNoDeadline) {
    const auto started = std::chrono::steady_clock::now();
    const auto result = build_with(KDBGEN_TEST_HANGING_MIOPEN_4, {"--problem-timeout", "3", "-j", "1"});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    EXPECT_NE(result.output.find("stopped by the watchdog after 3 s on this problem"), std::string::npos)
        << result.output;
    EXPECT_LT(seconds, 40) << result.output;
    EXPECT_NE(result.exit_code, 0) << result.output;
}

// The engine's identity (the cache's key) digests the compiler libraries beside MIOpen's: one that is a link
// to /proc/self/pagemap (size 0, endless bytes) is refused, exit 2 naming it, before any client starts.
// Before, kdbgen read it for ever, with no watchdog running.
TEST_F(HostileMiopen, IdentityHashingReadsOnlyRegularFilesOfTheInstallation) {
    fs::create_directories(work / "lib");
    fs::copy_file(KDBGEN_TEST_PLANTING_MIOPEN, work / "lib" / "libMIOpen.so.1");
    fs::create_symlink("/proc/self/pagemap", work / "lib" / "libamd_comgr.so.98");
    const std::string command = fmt::format(
        "timeout 120 {} build --engine miopen --miopen-lib {} --targets gfx1030_36 --driver-log {} -o {} > {} 2>&1",
        test::kdbgen_binary(), (work / "lib" / "libMIOpen.so.1").string(), (work / "net.log").string(),
        (work / "out").string(), (work / "log").string());
    const int status = std::system(command.c_str());
    const std::string log = read_text_file(work / "log");
    ASSERT_TRUE(WIFEXITED(status)) << log;
    EXPECT_EQ(WEXITSTATUS(status), 2) << "(124: still reading after 120 s)\n" << log;
    EXPECT_NE(log.find("pagemap"), std::string::npos) << log;
    EXPECT_FALSE(fs::exists(work / "out"));
}

// The sandbox is a boundary for root as for a plain user: a library run on "/" that tries every way out it
// can (write by path, clear the view's read-only flag, the chroot escape, /proc/<pid>/root, the view's own
// copy of itself under TMPDIR) leaves nothing in a folder of the system's. Before, as root, it wrote there
// through the view's copy (/tmp/kdbgen-engine-*/mnt/...), after mount_setattr, and after the chroot escape.
TEST_F(HostileMiopen, TheSandboxHoldsWhateverTheLibraryTries) {
    const fs::path victim = work / "victim";
    fs::create_directories(victim);
    fs::permissions(victim, fs::perms::all);  // writable by anyone: only the sandbox stands in the way
    std::ofstream(std::string(KDBGEN_TEST_ESCAPING_MIOPEN) + ".victim") << victim.string() << "\n";
    const auto result = build_with(KDBGEN_TEST_ESCAPING_MIOPEN, {"-j", "1"});
    fs::remove(std::string(KDBGEN_TEST_ESCAPING_MIOPEN) + ".victim");
    std::string escaped;
    for (const auto& entry : fs::directory_iterator(victim)) escaped += entry.path().filename().string() + " ";
    EXPECT_TRUE(escaped.empty()) << "the library wrote " << escaped << "outside its sandbox\n" << result.output;
    EXPECT_EQ(result.output.find("kdbgen-sandbox:"), std::string::npos) << result.output;
}

// A library that leaves a child in a session of its own holding the replay's output: the replay ends, and
// the child dies with the replay's PID namespace, so the output ends too. No watchdog (--problem-timeout 0):
// before the namespaces kdbgen waited on that pipe for ever.
TEST_F(HostileMiopen, AChildInItsOwnSessionDiesWithTheReplay) {
    const auto result = build_with(KDBGEN_TEST_HANGING_MIOPEN_3, {"--problem-timeout", "0", "-j", "1"});
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("no MIOpen here"), std::string::npos) << result.output;
    EXPECT_NE(std::system("pgrep -f 'sleep 424[3]' > /dev/null"), 0) << "the library's child outlived the replay";
}

// A library that plants a link where kdbgen makes the next pass's folder (its cache -> a folder of the
// test's) and a file in its own user kdb folder, which kdbgen copies to seed the next pass: kdbgen writes
// nothing through the link (the folder stays empty), stops with exit 2 naming the link, and leaves no run
// folder. Before, kdbgen copied the file into the folder the link named.
TEST_F(HostileMiopen, ALinkTheLibraryPlantsInItsRunFolderIsNeverWrittenThrough) {
    const fs::path victim = work / "victim";
    fs::create_directories(victim);
    std::ofstream(std::string(KDBGEN_TEST_PLANTING_MIOPEN) + ".victim") << victim.string() << "\n";
    setenv("TMPDIR", (work / "tmp").c_str(), 1);
    const auto result = build_with(KDBGEN_TEST_PLANTING_MIOPEN, {"-j", "1"});
    unsetenv("TMPDIR");
    fs::remove(std::string(KDBGEN_TEST_PLANTING_MIOPEN) + ".victim");
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("follows no link"), std::string::npos) << result.output;
    EXPECT_TRUE(fs::is_empty(victim)) << "kdbgen wrote through the link the library planted";
    EXPECT_TRUE(fs::is_empty(work / "tmp")) << "a run folder was left behind";
    EXPECT_FALSE(fs::exists(work / "out"));
}

// Each engine option's value is checked before anything runs: exit 2 naming the option (issue #46).
// Before: a timeout past poll's int wrapped to 0.8 s, -1 and 2^64 problems ran everything, a db
// folder without a MIOpen db file (or none at all) was taken with no word, --check-client alone was
// ignored.
TEST_F(HostileMiopen, EveryEngineOptionValueIsChecked) {
    fs::create_directories(work / "empty");
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--problem-timeout", "4294968"}, "--problem-timeout"},
        {{"--compile-timeout", "999999999"}, "--compile-timeout"},
        {{"--first-problems", "-1"}, "--first-problems"},
        {{"--first-problems", "0"}, "--first-problems"},
        {{"--first-problems", "18446744073709551616"}, "--first-problems"},
        {{"--miopen-db", ""}, "--miopen-db"},
        {{"--miopen-db", (work / "empty").string()}, "--miopen-db"},
        {{"--miopen-db", "/etc"}, "--miopen-db"},
        {{"--check-client", "driver"}, "--check-kdbs"},
    };
    for (const auto& [more, named] : cases) {
        const auto result = build_with(KDBGEN_TEST_PLANTING_MIOPEN, more);
        EXPECT_EQ(result.exit_code, 2) << more[0] << " " << more[1] << "\n" << result.output;
        EXPECT_NE(result.output.find(named), std::string::npos) << more[0] << " " << more[1] << "\n" << result.output;
        EXPECT_FALSE(fs::exists(work / "out"));
    }
}

TEST_P(DebianMiopen, ACrashOrARejectedProblemCostsOnlyThatProblem) {
    // Three problems in one replay process: MIOpen rejects the first (an add of tensors that do not broadcast), the
    // replay crashes on the second (KDBGEN_REPLAY_CRASH_ON, as a crash inside MIOpen would), the third builds.
    ProblemSet problems;
    TensorOpProblem mismatched;
    mismatched.a.dims = {8, 64, 7, 7};
    mismatched.b.dims = {8, 32, 7, 7};
    problems.add(mismatched, "test:1");
    for (const char* line : {"bnorm -n 8 -c 64 -H 56 -W 56 -m 1 --forw 1 -b 0 -s 1 -r 1",
                             "pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1"})
        for (auto& problem : parse_driver_command(line)) problems.add(problem, std::string("test:") + line);
    ASSERT_EQ(problems.entries().size(), 3u);
    EngineSetup setup;
    InstallationRequest installation;
    installation.root = root;
    installation.helper_dir = fs::path(test::kdbgen_binary()).parent_path();
    setup.installation = resolve_installation(installation);
    ASSERT_EQ(setenv("KDBGEN_REPLAY_CRASH_ON", "1", 1), 0);
    const CardReplay replay = replay_card(setup, parse_target("gfx1030_36"), problems);
    unsetenv("KDBGEN_REPLAY_CRASH_ON");
    ASSERT_EQ(replay.outcomes.size(), 3u);
    EXPECT_FALSE(replay.outcomes[0].ok);
    EXPECT_NE(replay.outcomes[0].message.find("miopenOpTensor: miopenStatus"), std::string::npos)
        << replay.outcomes[0].message;
    EXPECT_FALSE(replay.outcomes[1].ok);
    EXPECT_NE(replay.outcomes[1].message.find("ended (signal 6"), std::string::npos) << replay.outcomes[1].message;
    EXPECT_TRUE(replay.outcomes[2].ok) << replay.outcomes[2].message;
    bool pooling = false;
    for (const auto& record : replay.records) pooling |= record.key.kernel_name.starts_with("MIOpenPooling");
    EXPECT_TRUE(pooling) << "the problem after the crash was replayed in a new process";
}

TEST_P(DebianMiopen, AFailingCompileIsReportedWithMiopensWordsAndCostsOnlyItsKernel) {
    if (GetParam() != "sid") GTEST_SKIP() << "MIOpen 3.5.1 compiles in-process (hiprtc, comgr): no compiler to fail";
    const fs::path work = scratch("compiler-" + GetParam());
    std::ofstream(work / "net.log")
        << "MIOpenDriver conv -n 1 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1 -t 1\n"
           "MIOpenDriver pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n";
    ASSERT_EQ(setenv("KDBGEN_COMPILER_FAIL_ON", "naive_conv.cpp", 1), 0);
    const auto result = test::run_kdbgen({"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets",
                                          "gfx1030_36", "--driver-log", (work / "net.log").string(), "-o",
                                          (work / "out").string(), "--json", "-q", "--engine-rounds", "1"});
    unsetenv("KDBGEN_COMPILER_FAIL_ON");
    const auto report = nlohmann::json::parse(result.output.substr(result.output.find('{')));
    const auto& card = report["targets"][0]["cards"][0];
    // The convolution's other kernel (im2col) and the pooling kernel are in the kdb; naive_conv is not, and the
    // convolution is a failure naming the kernel MIOpen did not build: exit 1, never a short kdb with 0.
    EXPECT_EQ(result.exit_code, 1) << result.output;
    const auto& by_file = card["kernels_by_file"];
    EXPECT_TRUE(by_file.contains("MIOpenPooling.cl.o")) << by_file.dump();
    EXPECT_TRUE(by_file.contains("MIOpenIm2d2Col.cl.o")) << by_file.dump();
    EXPECT_FALSE(by_file.contains("naive_conv.cpp.o")) << by_file.dump();
    bool named = false;
    std::string errors;
    for (const auto& problem : card["failures"])
        if (problem["kind"] == "conv") {
            for (const auto& key : problem["failed_compiles"]) named |= key["kernel_name"] == "naive_conv.cpp.o";
            for (const auto& line : problem["miopen_errors"]) errors += line.get<std::string>() + "\n";
        }
    EXPECT_TRUE(named) << card.dump(2);
    // MIOpen's own words name the failed compile, under the convolution that asked for it.
    EXPECT_NE(errors.find("naive_conv.cpp"), std::string::npos) << card.dump(2);
    EXPECT_TRUE(fs::exists(work / "out" / "gfx1030_36.kdb"));
    fs::remove_all(work);
}

// The three ways a user's process asked for keys the replay had not: immediate mode in a process that ran no
// Find (naive_conv with the data-type defines twice), backward weights (x and dy were swapped: im2col's
// NUM_IM_BLKS_EQ_1), batch-norm training without saved or running results. Built, then checked with MIOpenDriver.
TEST_P(DebianMiopen, WhatAUsersProcessAsksForIsInTheKdb) {
    const fs::path work = scratch("user-" + GetParam());
    std::ofstream(work / "net.log")
        << "MIOpenDriver conv -n 1 -c 16 -H 14 -W 14 -k 16 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1 -F 1 "
           "--in_layout NHWC --out_layout NHWC --fil_layout NHWC\n"
           "MIOpenDriver conv -n 2 -c 32 -H 14 -W 28 -k 64 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 -g 1 -F 4\n"
           "MIOpenDriver bnorm -n 2 -c 16 -H 8 -W 8 -m 1 --forw 1 -s 0 -r 0\n";
    const auto common = engine_build(work, "gfx1030_40");
    const auto built = build_into(common, work / "out");
    ASSERT_EQ(built.exit_code, 0) << built.output;
    const auto rows = read_kdb_rows(work / "out" / "gfx1030_40.kdb");
    const auto count = [](const std::string& text, const std::string& what) {
        std::size_t n = 0;
        for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
        return n;
    };
    bool twice = false, one_block = false, saved_off = false;
    for (const auto& row : rows) {
        const auto& [name, options] = row.key;
        if (name == "naive_conv.cpp.o") (count(options, "-DMIOPEN_USE_FP32=1") == 2 ? twice : one_block) = true;
        if (name.starts_with("MIOpenIm2d2Col")) {
            EXPECT_NE(options.find("-DNUM_IM_BLKS_EQ_1=1"), std::string::npos) << options;
        }
        if (name.starts_with("MIOpenBatchNormFwdTrainSpatial") &&
            options.find("-DMIO_SAVE_MEAN_VARIANCE=0 -DMIO_RUNNING_RESULT=0") != std::string::npos)
            saved_off = true;
    }
    EXPECT_TRUE(twice) << "naive_conv as immediate mode asks for it (the defines twice)";
    EXPECT_TRUE(one_block) << "naive_conv as Find asks for it";
    if (GetParam() == "sid") {
        EXPECT_TRUE(saved_off) << "batch norm without saved or running results";
    }
    auto args = common;
    args.insert(args.end(), {"--check-kdbs", (work / "out").string()});
    const auto checked = test::run_kdbgen(args);
    const auto check = nlohmann::json::parse(checked.output.substr(checked.output.find('{')));
    EXPECT_EQ(checked.exit_code, 0) << checked.output;
    EXPECT_EQ(check["kernels_compiled"], 0) << checked.output;
    fs::remove_all(work);
}

// MIOpen's own command log (MIOPEN_ENABLE_LOGGING_CMD, src/driver_arguments.cpp) states each call it was given
// as a MIOpenDriver line: read back, every generated problem's replay gave MIOpen that very problem.
TEST_P(DebianMiopen, TheReplayGivesMiopenEachProblemAsItCameIn) {
    if (GetParam() != "sid") GTEST_SKIP() << "the replay's calls do not depend on the MIOpen version";
    const fs::path work = scratch("descriptors");
    const ProblemSet problems = generated_problems(120, 5, work / "net.log");
    // The replay in kdbgen-sandbox over the root, as kdbgen runs it: the run folder is the view's /.kdbgen-run.
    const fs::path run = work / "run" / "view";
    fs::create_directories(run / "lib");
    fs::create_directories(work / "run" / "mnt");
    const fs::path helpers = fs::path(test::kdbgen_binary()).parent_path();
    fs::copy_file(helpers / "kdbgen-miopen-replay", run / "kdbgen-miopen-replay");
    for (const auto& entry : fs::directory_iterator(helpers / "hip-stub"))
        if (entry.is_regular_file()) fs::copy_file(entry.path(), run / "lib" / entry.path().filename());
    std::set<std::string> wanted;
    {
        std::ofstream out(run / "problems.txt");
        std::size_t id = 0;
        for (const auto& entry : problems.entries()) {
            out << id++ << ' ' << replay_line(entry.problem).value() << '\n';
            // MIOpen 3.4's command logger cannot state batch norm's calls exactly (it names FP16 data with
            // FP32 parameters "bnormfp16", and writes -r for an inference's estimates where 3.3's, which
            // kdbgen reads, wrote -s): batch norm's buffers are checked by the kdb tests above instead. Its
            // pooling line always says -F 1 (Pooling_logging_cmd): the forward is stated without whether it
            // saves indices, the backward not at all.
            if (std::holds_alternative<BatchNormProblem>(entry.problem)) continue;
            // Its LRN line states the forward alone, without whether it keeps its scale.
            if (const auto* lrn = std::get_if<LrnProblem>(&entry.problem)) {
                if (lrn->direction != LrnProblem::Direction::Forward) continue;
                LrnProblem as_logged = *lrn;
                as_logged.save_scale = false;
                wanted.insert("lrn " + problem_key(as_logged));
                continue;
            }
            if (const auto* pool = std::get_if<PoolingProblem>(&entry.problem)) {
                if (pool->direction != PoolingProblem::Direction::Forward) continue;
                PoolingProblem as_logged = *pool;
                as_logged.save_index = false;
                wanted.insert("pooling " + problem_key(as_logged));
                continue;
            }
            wanted.insert(std::string(problem_kind(entry.problem)) + " " + entry.key);
        }
    }
    const std::string view = "/.kdbgen-run";
    // kdbgen's compiler wrappers, told to fail every compile at once: only the calls matter here.
    InstallationRequest installation;
    installation.root = root;
    installation.helper_dir = helpers;
    std::string wraps;
    for (const auto& wrapper : resolve_installation(installation).compilers) {
        const std::string name = "wrapper-" + std::to_string(wraps.size());
        std::ofstream(run / name) << wrapper.script;
        fs::permissions(run / name, fs::perms::owner_all);
        wraps += " --wrap " + wrapper.path + " " + view + "/" + name;
    }
    const std::string command = "env -i PATH=/usr/bin:/bin KDBGEN_COMPILER_FAIL_ON=- HOME=" + view +
                                " LD_LIBRARY_PATH=" + view + "/lib KDBGEN_STUB_ARCH=gfx1030 KDBGEN_STUB_CUS=20"
                                " MIOPEN_CUSTOM_CACHE_DIR=" + view + "/cache MIOPEN_USER_DB_PATH=" + view +
                                "/udb MIOPEN_ENABLE_LOGGING_CMD=1 " + (helpers / "kdbgen-sandbox").string() + " " +
                                root.string() + " " + run.string() + " " + (work / "run" / "mnt").string() + wraps +
                                " -- " + view + "/kdbgen-miopen-replay /usr/lib/x86_64-linux-gnu/libMIOpen.so.1 " + view +
                                "/problems.txt find > " + (work / "replay.log").string() + " 2>&1";
    std::system(command.c_str());
    fs::remove_all(run);
    {
        const std::string log = read_text_file(work / "replay.log");
        ASSERT_EQ(log.find("kdbgen-sandbox:"), std::string::npos) << log;
    }
    const ProblemSet given = read_driver_log(work / "replay.log");
    std::set<std::string> logged;
    for (const auto& entry : given.entries()) logged.insert(std::string(problem_kind(entry.problem)) + " " + entry.key);
    std::size_t missing = 0;
    for (const auto& key : wanted)
        if (!logged.count(key)) {
            ++missing;
            ADD_FAILURE() << "MIOpen was not given " << key;
        }
    EXPECT_EQ(missing, 0u) << wanted.size() << " problems";
    fs::remove_all(work);
}

// Problems generated at random, every kind and direction: built, then run through MIOpenDriver both ways with
// the kdb installed. MIOpen compiles nothing but keys named as built from changing values.
TEST_P(DebianMiopen, GeneratedProblemsCompileNothingInMiopensOwnDriver) {
    const fs::path work = scratch("generated-" + GetParam());
    generated_problems(14, GetParam() == "sid" ? 21 : 22, work / "net.log");
    const std::vector<std::string> common{"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets",
                                          "gfx1100_48", "--driver-log", (work / "net.log").string(), "-j", "2",
                                          "--json", "-q"};
    auto args = common;
    args.insert(args.end(), {"-o", (work / "out").string()});
    const auto built = test::run_kdbgen(args);
    const auto build = nlohmann::json::parse(built.output.substr(built.output.find('{')));
    // A problem MIOpen itself refuses is a failure (exit 1), but never one whose kernel MIOpen failed to build.
    EXPECT_EQ(built.exit_code, build["problems_failed_under_kdbgen"].get<int>() ? 1 : 0) << built.output;
    for (const auto& failure : build["targets"][0]["cards"][0]["failures"])
        EXPECT_TRUE(failure["failed_compiles"].empty()) << failure.dump();
    args = common;
    args.insert(args.end(), {"--check-kdbs", (work / "out").string()});
    const auto checked = test::run_kdbgen(args);
    const auto check = nlohmann::json::parse(checked.output.substr(checked.output.find('{')));
    EXPECT_EQ(check["kernels_compiled"], 0) << checked.output;
    EXPECT_EQ(check["kdb_unreadable"], 0) << checked.output;
    // What fails in MIOpenDriver fails without the kdbs too: the kdb never breaks a call.
    for (const auto& failure : check["targets"][0]["cards"][0]["failures"])
        EXPECT_NE(failure["message"].get<std::string>().find("without the kdbs as well"), std::string::npos)
            << failure.dump();
    EXPECT_EQ(checked.exit_code, check["problems_failed_under_kdbgen"].get<int>() ? 1 : 0) << checked.output;
    for (const auto& key : check["targets"][0]["cards"][0]["unstable_keys"])
        EXPECT_TRUE(key["kernel_name"].get<std::string>().starts_with("MIOpenBatchNorm")) << key.dump();
    fs::remove_all(work);
}

TEST_P(DebianMiopen, TheReplayCheckNamesEachKernelTheKdbLacksThoughItsProblemsShareAHandle) {
    // The check's replay runs a process's problems on one handle, as a
    // framework does (ReplayPurpose::Check). A kernel two problems need is
    // then looked up once; taken out of the kdb, it must still be named.
    const fs::path work = scratch("check-one-handle-" + GetParam());
    std::ofstream(work / "net.log")
        << "MIOpenDriver pool -W 2x16x16x16 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n"
           "MIOpenDriver pool -W 2x16x16x16 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1 -m avg\n"
           "MIOpenDriver conv -n 2 -c 16 -H 14 -W 14 -k 16 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 1 -t 1\n"
           "MIOpenDriver conv -n 4 -c 16 -H 14 -W 14 -k 16 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 1 -t 1\n";
    const auto common = engine_build(work, "gfx1030_36");
    const auto built = build_into(common, work / "out");
    const fs::path kdb = work / "out" / "gfx1030_36.kdb";
    ASSERT_TRUE(fs::exists(kdb)) << built.output;
    const auto rows = read_kdb_rows(kdb);
    ASSERT_GE(rows.size(), 2u) << built.output;
    const auto check = [&](const fs::path& kdbs) {
        auto check_args = common;
        check_args.insert(check_args.end(), {"--check-kdbs", kdbs.string(), "--check-client", "replay"});
        const auto result = test::run_kdbgen(check_args);
        return nlohmann::json::parse(result.output.substr(result.output.find('{')));
    };
    const auto whole = check(work / "out");
    EXPECT_EQ(whole["kernels_compiled"], 0) << whole.dump(2);
    // Each of the first rows taken out in turn (the rest stay): that key, compiled, is in the report.
    for (std::size_t taken = 0; taken < std::min<std::size_t>(rows.size(), 3); ++taken) {
        const fs::path short_of_one = work / fmt::format("short-{}", taken);
        fs::create_directories(short_of_one);
        std::vector<KdbRecord> kept;
        for (std::size_t i = 0; i < rows.size(); ++i)
            if (i != taken) kept.push_back({rows[i].key, decode_row(rows[i])});
        write_kdb(short_of_one / "gfx1030_36.kdb", kept);
        const auto report = check(short_of_one);
        std::set<KdbKey> compiled;
        for (const auto& key : report["targets"][0]["cards"][0]["still_compiled"])
            compiled.insert({key["kernel_name"].get<std::string>(), key["kernel_args"].get<std::string>()});
        EXPECT_TRUE(compiled.count(rows[taken].key))
            << rows[taken].key.kernel_name << " | " << rows[taken].key.kernel_args << " not named: " << report.dump(2);
        EXPECT_EQ(compiled.size(), 1u) << report.dump(2);
    }
    fs::remove_all(work);
}

TEST_P(DebianMiopen, AKdbMiopenCannotReadFailsTheCheck) {
    const fs::path work = scratch("unreadable-" + GetParam());
    std::ofstream(work / "net.log") << "MIOpenDriver pool -W 2x16x16x16 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n";
    fs::create_directories(work / "kdbs");
    std::ofstream(work / "kdbs" / "gfx1030_36.kdb") << std::string(4096, 'x');
    const auto result = test::run_kdbgen({"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets",
                                          "gfx1030_36", "--driver-log", (work / "net.log").string(), "--check-kdbs",
                                          (work / "kdbs").string(), "--json", "-q"});
    EXPECT_EQ(result.exit_code, 1) << result.output;
    const auto check = nlohmann::json::parse(result.output.substr(result.output.find('{')));
    EXPECT_GE(check["kdb_unreadable"].get<int>(), 1) << result.output;
    EXPECT_FALSE(check["kdb_faults"].empty()) << result.output;  // and `verify` rejects it
    // The pooling MIOpenDriver runs without the kdbs fails with them: a failure the kdbs caused, named so.
    const auto& failures = check["targets"][0]["cards"][0]["failures"];
    ASSERT_EQ(failures.size(), 1u) << result.output;
    EXPECT_NE(failures[0]["message"].get<std::string>().find("with the kdbs installed and passes without them"),
              std::string::npos)
        << failures.dump();
    fs::remove_all(work);
}

// --check-kdbs passes nothing `kdbgen verify` rejects, whatever MIOpen makes of it under the stub: rows whose
// bytes are no code object (their MD5 right), and a kdb that is a link (to /etc/passwd), each fail the check
// with exit 1 and are named; the same folder without them passes (issue #46).
TEST_P(DebianMiopen, ACheckFailsOnAKdbVerifyRejectsAndOnALink) {
    const fs::path work = scratch("check-verify-" + GetParam());
    std::ofstream(work / "net.log") << "MIOpenDriver pool -W 2x16x16x16 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n";
    auto args = engine_build(work, "gfx1030_36");
    ASSERT_EQ(build_into(args, work / "out").exit_code, 0);
    const auto check = [&](const fs::path& folder) {
        std::vector<std::string> checking = engine_build(work, "gfx1030_36");
        checking.insert(checking.end(), {"--check-client", "replay", "--check-kdbs", folder.string()});
        const auto result = test::run_kdbgen(checking);
        const auto at = result.output.find('{');
        return std::make_pair(result.exit_code, at == std::string::npos ? nlohmann::json::object()
                                                                         : nlohmann::json::parse(result.output.substr(at)));
    };
    EXPECT_EQ(check(work / "out").first, 0);
    fs::create_symlink("/etc/passwd", work / "out" / "gfx1030_40.kdb");
    const auto [linked, linked_report] = check(work / "out");
    EXPECT_EQ(linked, 1);
    EXPECT_NE(linked_report["kdb_faults"].dump().find("gfx1030_40.kdb: not a regular file"), std::string::npos)
        << linked_report.dump(2);
    fs::remove(work / "out" / "gfx1030_40.kdb");
    // Every row of the kdb replaced by four bytes that are no code object (write_kdb gives them their MD5).
    std::vector<KdbRecord> fake;
    for (const auto& row : read_kdb_rows(work / "out" / "gfx1030_36.kdb")) fake.push_back({row.key, test::bytes_of("\xde\xad\xbe\xef")});
    fs::create_directories(work / "fake");
    write_kdb(work / "fake" / "gfx1030_36.kdb", fake);
    const auto [faked, faked_report] = check(work / "fake");
    EXPECT_EQ(faked, 1);
    EXPECT_FALSE(faked_report["kdb_faults"].empty()) << faked_report.dump(2);
    fs::remove_all(work);
}

// Every process below pid (its children, theirs, ...), from /proc.
std::set<int> descendants(int pid) {
    std::map<int, std::vector<int>> children;
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream stat(entry.path() / "stat");
        std::string line;
        if (!std::getline(stat, line)) continue;
        const auto close = line.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(line.substr(close + 2));
        char state;
        int parent;
        rest >> state >> parent;
        children[parent].push_back(std::stoi(name));
    }
    std::set<int> found;
    std::vector<int> todo{pid};
    while (!todo.empty()) {
        const int at = todo.back();
        todo.pop_back();
        for (const int child : children[at])
            if (found.insert(child).second) todo.push_back(child);
    }
    return found;
}

bool has_process_named(const std::set<int>& pids, const std::string& comm) {
    for (const int pid : pids) {
        std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
        std::string name;
        if (std::getline(in, name) && name == comm) return true;
    }
    return false;
}

std::set<int> alive(const std::set<int>& pids) {
    std::set<int> left;
    for (const int pid : pids) {
        std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
        std::string line;
        if (std::getline(in, line) && line.find(") Z ") == std::string::npos) left.insert(pid);
    }
    return left;
}

// Every entry of a root: type, mode, owner, size, link text, and its times (ctime moves on any change to
// the entry, a folder's on any entry made or removed in it).
std::map<std::string, std::string> root_state(const fs::path& root) {
    std::map<std::string, std::string> state;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) != 0) continue;
        std::string text = fmt::format("{:o} {} {} {} {}.{} {}.{}", st.st_mode, st.st_uid, st.st_gid, st.st_size,
                                       st.st_mtim.tv_sec, st.st_mtim.tv_nsec, st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
        if (S_ISLNK(st.st_mode)) text += " -> " + fs::read_symlink(it->path()).string();
        state[it->path().lexically_relative(root).string()] = text;
    }
    struct stat st {};
    ::lstat(root.c_str(), &st);
    state["."] = fmt::format("{}.{}", st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
    return state;
}

void expect_same_root(const std::map<std::string, std::string>& before, const std::map<std::string, std::string>& after,
                      const std::string& when) {
    std::size_t differences = 0;
    for (const auto& [path, text] : after) {
        const auto found = before.find(path);
        if (found == before.end()) ADD_FAILURE() << when << ": made in the root: " << path;
        else if (found->second != text) ADD_FAILURE() << when << ": changed in the root: " << path;
        if ((found == before.end() || found->second != text) && ++differences > 10) return;
    }
    for (const auto& [path, text] : before)
        if (!after.count(path) && ++differences < 10) ADD_FAILURE() << when << ": removed from the root: " << path;
}

std::vector<fs::path> run_folders_in(const fs::path& tmp) {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(tmp))
        if (entry.path().filename().string().starts_with("kdbgen-")) found.push_back(entry.path());
    return found;
}

// Starts a build of two convolutions in TMPDIR=tmp and returns once its replay runs; the processes below
// kdbgen then are in *running.
int start_replaying(const fs::path& root, const fs::path& work, const fs::path& tmp, std::set<int>* running) {
    std::ofstream(work / "net.log")
        << "MIOpenDriver conv -n 1 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1 -t 1\n"
           "MIOpenDriver conv -n 2 -c 32 -H 28 -W 28 -k 48 -y 5 -x 5 -p 2 -q 2 -u 1 -v 1 -l 1 -j 1 -F 1 -t 1\n";
    fs::create_directories(tmp);
    const int pid = test::start_kdbgen({"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets",
                                        "gfx1030_36", "--driver-log", (work / "net.log").string(), "-o",
                                        (work / "out").string(), "-j", "1"},
                                       "TMPDIR=" + tmp.string());
    for (int i = 0; i < 1500; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        *running = descendants(pid);
        if (has_process_named(*running, "kdbgen-miopen-r")) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    *running = descendants(pid);
    return pid;
}

// SIGTERM and SIGINT, twice each: kdbgen exits 130 having stopped every process it started (the sandbox
// stops its namespace and returns once the kernel has reaped all in there) and removed its run folder, the
// root unchanged.
TEST_P(DebianMiopen, AnInterruptLeavesNoProcessNoRunFolderNoKdbAndTheRootUnchanged) {
    const fs::path work = scratch("interrupt-" + GetParam());
    const auto before = root_state(root);
    for (int trial = 0; trial < 4; ++trial) {
        const int signal = trial % 2 ? SIGINT : SIGTERM;
        const fs::path tmp = work / fmt::format("tmp{}", trial);
        std::set<int> running;
        const int pid = start_replaying(root, work, tmp, &running);
        ASSERT_TRUE(has_process_named(running, "kdbgen-miopen-r")) << "no replay started";
        ::kill(pid, signal);
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFEXITED(status));
        EXPECT_EQ(WEXITSTATUS(status), 130);
        EXPECT_FALSE(fs::exists(work / "out" / "gfx1030_36.kdb"));
        EXPECT_TRUE(alive(running).empty()) << "signal " << signal << ": " << alive(running).size() << " left";
        EXPECT_TRUE(run_folders_in(tmp).empty()) << "signal " << signal << ": " << run_folders_in(tmp).front();
    }
    expect_same_root(before, root_state(root), "after interrupts");
    fs::remove_all(work);
}

// kill -9 reaches no handler: every process kdbgen started still dies (the sandbox has PR_SET_PDEATHSIG,
// its namespace's PID 1 too, and the kernel kills what is left in the namespace), the root is unchanged,
// and the next run removes the run folder left in TMPDIR.
TEST_P(DebianMiopen, KillNineLeavesNoProcessAndTheRootUnchanged) {
    const fs::path work = scratch("kill9-" + GetParam());
    const auto before = root_state(root);
    std::set<int> running;
    const int pid = start_replaying(root, work, work / "tmp", &running);
    ASSERT_TRUE(has_process_named(running, "kdbgen-miopen-r")) << "no replay started";
    ::kill(pid, SIGKILL);
    ASSERT_EQ(::waitpid(pid, nullptr, 0), pid);
    for (int i = 0; i < 100 && !alive(running).empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_TRUE(alive(running).empty()) << alive(running).size() << " processes outlived kdbgen";
    expect_same_root(before, root_state(root), "after kill -9");
    ASSERT_FALSE(run_folders_in(work / "tmp").empty());
    std::ofstream(work / "one.log") << "MIOpenDriver pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n";
    const char* tmpdir = std::getenv("TMPDIR");
    const std::string saved = tmpdir ? tmpdir : "";
    setenv("TMPDIR", (work / "tmp").c_str(), 1);
    const auto again = test::run_kdbgen({"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets",
                                         "gfx1030_36", "--driver-log", (work / "one.log").string(), "-o",
                                         (work / "out2").string(), "-q"});
    if (tmpdir) setenv("TMPDIR", saved.c_str(), 1);
    else unsetenv("TMPDIR");
    EXPECT_EQ(again.exit_code, 0) << again.output;
    EXPECT_TRUE(run_folders_in(work / "tmp").empty()) << run_folders_in(work / "tmp").front();
    fs::remove_all(work);
}

// Runs kdbgen with NAME=value in its environment (fault injection the engine passes to its clients).
ProcessResult run_kdbgen_with(const char* name, const std::string& value, const std::vector<std::string>& args) {
    setenv(name, value.c_str(), 1);
    auto result = test::run_kdbgen(args);
    unsetenv(name);
    return result;
}

// A problem MIOpen never finishes (KDBGEN_REPLAY_HANG_ON: the replay stops inside it, as a Find stuck in
// MIOpen would): the watchdog stops that process with all it started, the problem is reported as timed out
// with the limit, and the problem after it is built in a new process.
TEST_P(DebianMiopen, AHungProblemIsStoppedAndTheNextIsBuilt) {
    if (GetParam() != "sid") GTEST_SKIP() << "the watchdog does not depend on the MIOpen version";
    const fs::path work = scratch("hung-problem");
    std::ofstream(work / "net.log") << "MIOpenDriver bnorm -n 8 -c 64 -H 56 -W 56 -m 1 --forw 1 -b 0 -s 1 -r 1\n"
                                       "MIOpenDriver pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n";
    const auto result = run_kdbgen_with(
        "KDBGEN_REPLAY_HANG_ON", "0",
        {"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets", "gfx1030_36", "--driver-log",
         (work / "net.log").string(), "-o", (work / "out").string(), "-j", "1", "--problem-timeout", "4",
         "--engine-rounds", "1", "--json", "-q"});
    EXPECT_EQ(result.exit_code, 1) << result.output;
    const auto report = nlohmann::json::parse(result.output.substr(result.output.find('{')));
    const auto& card = report["targets"][0]["cards"][0];
    EXPECT_EQ(problems_ok(card), 1) << card.dump(2);
    ASSERT_EQ(card["failures"].size(), 1u) << card.dump(2);
    const auto& failure = card["failures"][0];
    EXPECT_EQ(failure["kind"], "batchnorm") << failure.dump();
    EXPECT_TRUE(failure["timed_out"].get<bool>()) << failure.dump();
    EXPECT_NE(failure["message"].get<std::string>().find("after 4 s on this problem (--problem-timeout)"),
              std::string::npos) << failure.dump();
    EXPECT_TRUE(card["kernels_by_file"].contains("MIOpenPooling.cl.o")) << card.dump(2);
    fs::remove_all(work);
}

// A compiler that never returns (KDBGEN_COMPILER_HANG_ON): the wrapper stops it after --compile-timeout,
// its problem is reported as timed out, and no compiler is left running. MIOpen 3.5.1 compiles in-process.
TEST_P(DebianMiopen, AHungCompileIsStoppedAndItsProblemNamed) {
    if (GetParam() != "sid") GTEST_SKIP() << "MIOpen 3.5.1 compiles in-process (hiprtc, comgr): no compiler to hang";
    const fs::path work = scratch("hung-compile");
    std::ofstream(work / "net.log") << "MIOpenDriver pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n"
                                       "MIOpenDriver bnorm -n 8 -c 64 -H 56 -W 56 -m 1 --forw 1 -b 0 -s 1 -r 1\n";
    const auto result = run_kdbgen_with(
        "KDBGEN_COMPILER_HANG_ON", "MIOpenPooling",
        {"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets", "gfx1030_36", "--driver-log",
         (work / "net.log").string(), "-o", (work / "out").string(), "-j", "1", "--compile-timeout", "3",
         "--engine-rounds", "1", "--json", "-q"});
    EXPECT_EQ(result.exit_code, 1) << result.output;
    const auto report = nlohmann::json::parse(result.output.substr(result.output.find('{')));
    const auto& card = report["targets"][0]["cards"][0];
    ASSERT_EQ(card["failures"].size(), 1u) << card.dump(2);
    const auto& failure = card["failures"][0];
    EXPECT_EQ(failure["kind"], "pooling") << failure.dump();
    EXPECT_TRUE(failure["timed_out"].get<bool>()) << failure.dump();
    EXPECT_NE(failure.dump().find("ran past 3 s (--compile-timeout)"), std::string::npos) << failure.dump();
    EXPECT_TRUE(card["kernels_by_file"].contains("MIOpenBatchNormFwdTrainSpatial.cl.o")) << card.dump(2);
    EXPECT_NE(std::system("pgrep -x sleep -a | grep -q 100000"), 0) << "a hung compiler outlived its replay";
    fs::remove_all(work);
}

// Links in the root are the root's: followed inside it, never out of it. A root whose /build leads to a
// folder outside (absolute link) gets the 3.4.0 OpenCL compiler's wrapper in the sandbox's view only; one
// whose /usr/bin climbs out with "../.." is refused, naming it, and the host's compilers are untouched.
// The test's roots are put together from the Debian root with bind mounts, in a mount namespace of the
// test's own (unshare), so the Debian root itself stays as it is.
TEST_P(DebianMiopen, LinksInTheRootAreFollowedInsideItNeverOut) {
    if (GetParam() != "sid") GTEST_SKIP() << "3.4.0 names a compiler in Debian's build tree (/build/...)";
    if (geteuid() != 0) GTEST_SKIP() << "putting a root together with bind mounts needs root";
    const fs::path work = scratch("links");
    const fs::path decoy = work / "decoy";
    fs::create_directories(decoy);
    std::ofstream(work / "net.log") << "MIOpenDriver pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n";
    const auto host_state = [] {
        std::map<std::string, std::string> state;
        for (const auto& entry : fs::directory_iterator("/usr/bin")) {
            struct stat st {};
            if (::lstat(entry.path().c_str(), &st) == 0)
                state[entry.path().string()] = fmt::format("{} {}.{}", st.st_mode, st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
        }
        return state;
    };
    const auto host_before = host_state();
    // linked: / of the Debian root, but /build -> the decoy (outside). climbing: /usr/bin -> ../../../../../../usr/bin.
    const std::string kdbgen = test::kdbgen_binary();
    const std::string script = fmt::format(R"(set -e
cd {work}
for name in linked climbing; do
  mkdir $name
  for entry in {root}/*; do
    base=$(basename "$entry")
    if [ -L "$entry" ]; then cp -P "$entry" $name/; elif [ -d "$entry" ]; then mkdir $name/$base; mount --rbind "$entry" $name/$base; fi
  done
done
ln -s {decoy} linked/build
umount -l climbing/usr
mkdir -p climbing-usr && mount -t tmpfs tmpfs climbing/usr
for entry in {root}/usr/*; do
  base=$(basename "$entry")
  [ "$base" = bin ] && continue
  if [ -L "$entry" ]; then cp -P "$entry" climbing/usr/; else mkdir climbing/usr/$base; mount --rbind "$entry" climbing/usr/$base; fi
done
ln -s ../../../../../../../../../../usr/bin climbing/usr/bin
for name in linked climbing; do
  {kdbgen} build --engine miopen --miopen-root {work}/$name --targets gfx1030_36 --driver-log {work}/net.log -o {work}/out-$name -j 1 --engine-rounds 1 > {work}/$name.log 2>&1 && echo 0 > {work}/$name.exit || echo $? > {work}/$name.exit
done
)",
                                           fmt::arg("work", work.string()), fmt::arg("root", root.string()),
                                           fmt::arg("decoy", decoy.string()), fmt::arg("kdbgen", kdbgen));
    std::ofstream(work / "script.sh") << script;
    ASSERT_EQ(std::system(("unshare --mount --propagation private sh " + (work / "script.sh").string()).c_str()), 0);
    const auto read = [&](const std::string& name) { return read_text_file(work / name); };
    EXPECT_EQ(read("linked.exit"), "0\n") << read("linked.log");
    EXPECT_TRUE(fs::exists(work / "out-linked" / "gfx1030_36.kdb")) << read("linked.log");
    EXPECT_TRUE(fs::is_empty(decoy)) << "kdbgen wrote through the root's link";
    EXPECT_EQ(read("climbing.exit"), "2\n") << read("climbing.log");
    EXPECT_NE(read("climbing.log").find("/usr/bin"), std::string::npos) << read("climbing.log");
    EXPECT_TRUE(host_before == host_state()) << "the host's /usr/bin changed";
    fs::remove_all(work);
}

// The Debian root is byte for byte the same after a build that runs both of 3.4.0's compilers (its OpenCL
// compiler in Debian's build tree, clang++-21) and a check with MIOpenDriver.
TEST_P(DebianMiopen, TheRootIsUnchangedByABuildAndACheck) {
    const fs::path work = scratch("unchanged-" + GetParam());
    std::ofstream(work / "net.log")
        << "MIOpenDriver conv -n 1 -c 16 -H 14 -W 14 -k 16 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1 -t 1\n"
           "MIOpenDriver pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n";
    const auto before = root_state(root);
    const std::vector<std::string> common{"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets",
                                          "gfx1030_36", "--driver-log", (work / "net.log").string(), "-q"};
    auto args = common;
    args.insert(args.end(), {"-o", (work / "out").string()});
    const auto built = test::run_kdbgen(args);
    ASSERT_TRUE(fs::exists(work / "out" / "gfx1030_36.kdb")) << built.output;
    args = common;
    args.insert(args.end(), {"--check-kdbs", (work / "out").string()});
    test::run_kdbgen(args);
    expect_same_root(before, root_state(root), "after a build and a check");
    fs::remove_all(work);
}

// Why a test that runs kdbgen as nobody cannot run here, or empty: it needs root (to become nobody, and to
// bind-mount), and nobody must be allowed a user namespace.
std::string why_not_as_nobody() {
    if (geteuid() != 0) return "becoming nobody (and bind-mounting a root together) needs root";
    if (std::system("setpriv --reuid=65534 --regid=65534 --clear-groups unshare --user --map-current-user true "
                    "> /dev/null 2>&1") != 0)
        return "unprivileged user namespaces are off here";
    return "";
}

// A plain user (nobody) runs the engine over the root: kdbgen-sandbox makes a user namespace, no chroot
// as root, and the kdb holds 3.4.0's OpenCL and HIP kernels (both through kdbgen's wrappers).
TEST_P(DebianMiopen, APlainUserBuildsWithoutRoot) {
    if (const auto why = why_not_as_nobody(); !why.empty()) GTEST_SKIP() << why;
    const fs::path work = scratch("plain-user-" + GetParam());
    std::ofstream(work / "net.log")
        << "MIOpenDriver conv -n 1 -c 16 -H 14 -W 14 -k 16 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 2 -t 1\n"
           "MIOpenDriver pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n";
    ASSERT_EQ(std::system(("chown -R 65534:65534 " + work.string()).c_str()), 0);
    const auto before = root_state(root);
    const std::string command = fmt::format(
        "cd {0} && setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin HOME={0} TMPDIR={0} "
        "{1} build --engine miopen --miopen-root {2} --targets gfx1030_36 --driver-log net.log -o out -j 2 --json -q "
        "> {0}/report.json 2> {0}/err.log",
        work.string(), test::kdbgen_binary(), root.string());
    const int status = std::system(command.c_str());
    const std::string output = read_text_file(work / "report.json") + read_text_file(work / "err.log");
    ASSERT_TRUE(fs::exists(work / "out" / "gfx1030_36.kdb")) << output;
    struct stat st {};
    ASSERT_EQ(::stat((work / "out" / "gfx1030_36.kdb").c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, 65534u);
    const auto report = nlohmann::json::parse(output.substr(output.find('{')));
    const auto& by_file = report["targets"][0]["cards"][0]["kernels_by_file"];
    if (GetParam() == "sid") {
        EXPECT_EQ(WEXITSTATUS(status), 0) << output;
        EXPECT_TRUE(by_file.contains("MIOpenPooling.cl.o")) << by_file.dump();
        EXPECT_TRUE(by_file.contains("naive_conv.cpp.o")) << by_file.dump();
    } else {
        EXPECT_TRUE(by_file.contains("MIOpenPooling.cpp.o")) << by_file.dump();
    }
    expect_same_root(before, root_state(root), "after a plain user's build");
    fs::remove_all(work);
}

// The packager's recipe (docs/packaging.md), as written: a plain user, the library a copy in a build-tree
// folder (not where the package installs it), MIOpen's system db given with --miopen-db because the package is
// not installed (the root's /usr/share/miopen is hidden), /var/tmp read-only. The root is put together in a
// mount namespace of the test's own from the Debian root plus a build-tree folder. On 3.4.0 the kdb holds the
// HIP and OpenCL kernels, and MIOpenDriver then compiles nothing; on 3.5.1 the kdb from --miopen-db has the
// kernels of the kdb built over the installed db, and more than one built without any db.
TEST_P(DebianMiopen, ThePackagersRecipeRunsAsAPlainUserWithTheDbItIsGiven) {
    if (const auto why = why_not_as_nobody(); !why.empty()) GTEST_SKIP() << why;
    const fs::path work = scratch("recipe-" + GetParam());
    std::ofstream(work / "net.log")
        << "MIOpenDriver conv -n 1 -c 16 -H 14 -W 14 -k 16 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 2 -t 1\n"
           "MIOpenDriver conv -n 2 -c 8 -H 20 -W 20 -k 8 -y 1 -x 1 -p 0 -q 0 -u 1 -v 1 -l 1 -j 1 -F 1 -t 1 --in_layout NHWC --out_layout NHWC --fil_layout NHWC\n"
           "MIOpenDriver pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n";
    fs::create_directories(work / "tree" / "lib");
    fs::copy_file(root / "usr/lib/x86_64-linux-gnu/libMIOpen.so.1.0", work / "tree" / "lib" / "libMIOpen.so.1");
    const fs::path db = root / "usr/share/miopen/db";
    // A db that says nothing for the card (--miopen-db refuses a folder with no MIOpen db file in it): an
    // empty perf-db of another card.
    fs::create_directories(work / "empty-db");
    std::ofstream(work / "empty-db" / "gfx803_36.db.txt").flush();
    // Problems the installed db has records for (whose solvers this MIOpen has the sources of): with the db
    // MIOpen builds what the record names, without it what its heuristics pick.
    std::string find_db;
    if (fs::exists(db / "gfx1030_36.HIP.fdb.txt")) {
        std::ifstream records(db / "gfx1030_36.HIP.fdb.txt");
        std::ofstream out(work / "records.fdb.txt");
        int kept = 0;
        for (std::string line; kept < 4 && std::getline(records, line);)
            if (line.find("-F=miopenConvolutionFwdAlgoDirect:ConvOclDirectFwd,") != std::string::npos ||
                line.find("-F=miopenConvolutionFwdAlgoImplicitGEMM:ConvHipImplicitGemmV4R4Fwd,") != std::string::npos) {
                out << line << '\n';
                ++kept;
            }
        find_db = " --find-db " + (work / "records.fdb.txt").string();
    }
    ASSERT_EQ(std::system(("chown -R 65534:65534 " + work.string()).c_str()), 0);
    const std::string kdbgen = test::kdbgen_binary();
    const auto build = [&](const std::string& name, const std::string& more) {
        return fmt::format(
            "setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH=/usr/bin:/bin HOME={0} TMPDIR={0} {1} "
            "build --engine miopen --miopen-root {0}/root --miopen-lib /build/miopen/lib/libMIOpen.so.1 {2} "
            "--targets gfx1030_36 --driver-log {0}/net.log{5} -j 2 --engine-rounds 2 --json -q {3} > {0}/{4}.json "
            "2> {0}/{4}.err; echo $? > {0}/{4}.exit\n",
            work.string(), kdbgen, more, name.starts_with("check") ? "--check-kdbs " + work.string() + "/out-db"
                                                                   : "-o " + work.string() + "/out-" + name,
            name, find_db);
    };
    std::string script = fmt::format(R"(set -e
cd {0}
mkdir root
for entry in {1}/*; do
  base=$(basename "$entry")
  if [ -L "$entry" ]; then cp -P "$entry" root/; elif [ -d "$entry" ]; then mkdir root/$base; mount --rbind "$entry" root/$base; fi
done
mkdir -p {0}/hidden
[ -d root/usr/share/miopen ] && mount --bind {0}/hidden root/usr/share/miopen
mkdir -p root/build/miopen/lib && cp tree/lib/libMIOpen.so.1 root/build/miopen/lib/
mount -t tmpfs -o ro tmpfs /var/tmp
)", work.string(), root.string());
    script += "set +e\n";
    script += build("db", "--miopen-db " + (fs::exists(db) ? db.string() : (work / "empty-db").string()));
    script += build("check", "--miopen-db " + (fs::exists(db) ? db.string() : (work / "empty-db").string()));
    if (fs::exists(db)) script += build("nodb", "--miopen-db " + (work / "empty-db").string());
    std::ofstream(work / "script.sh") << script;
    const auto before = root_state(root);
    ASSERT_EQ(std::system(("unshare --mount --propagation private sh " + (work / "script.sh").string()).c_str()), 0);
    expect_same_root(before, root_state(root), "after the recipe");
    const auto report = [&](const std::string& name) {
        const std::string text = read_text_file(work / (name + ".json"));
        EXPECT_NE(text.find('{'), std::string::npos) << name << ": " << read_text_file(work / (name + ".err"));
        return text.find('{') == std::string::npos ? nlohmann::json::object()
                                                   : nlohmann::json::parse(text.substr(text.find('{')));
    };
    const auto built = report("db");
    ASSERT_TRUE(built.contains("targets")) << read_text_file(work / "db.err");
    const auto& card = built["targets"][0]["cards"][0];
    const auto& by_file = card["kernels_by_file"];
    const auto checked = report("check");
    EXPECT_EQ(checked["kernels_compiled"], 0) << checked.dump(2);
    if (GetParam() == "sid") {
        EXPECT_EQ(read_text_file(work / "db.exit"), "0\n") << read_text_file(work / "db.err");
        EXPECT_TRUE(by_file.contains("MIOpenPooling.cl.o")) << by_file.dump();  // OpenCL, the build-tree compiler
        EXPECT_TRUE(by_file.contains("naive_conv.cpp.o")) << by_file.dump();    // HIP, clang++-21
        EXPECT_EQ(read_text_file(work / "check.exit"), "0\n") << checked.dump(2);
    } else {
        const auto without = report("nodb");
        const auto& fewer = without["targets"][0]["cards"][0]["kernels_by_file"];
        std::size_t with_db = 0, without_db = 0;
        for (const auto& [file, count] : by_file.items()) with_db += count.get<std::size_t>();
        for (const auto& [file, count] : fewer.items()) without_db += count.get<std::size_t>();
        EXPECT_GT(with_db, without_db) << by_file.dump() << "\n" << fewer.dump();
    }
    fs::remove_all(work);
}

TEST_P(DebianMiopen, ShardsMergeIntoTheUnshardedKdb) {
    // Debian's 3.5.1 fails Find of an NCHW FP32 3x3 convolution on RDNA (its Winograd assembly is not installed,
    // kernel.cpp:444 "Failed to load kernel source"), in MIOpenDriver too: an NHWC one it runs.
    const fs::path work = scratch("shards-" + GetParam());
    std::ofstream(work / "net.log")
        << "MIOpenDriver conv -n 1 -c 16 -H 14 -W 14 -k 16 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1 -F 1 "
           "--in_layout NHWC --out_layout NHWC --fil_layout NHWC\n"
           "MIOpenDriver bnorm -n 8 -c 64 -H 56 -W 56 -m 1 --forw 2 -b 0 -r 1\n"
           "MIOpenDriver pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n";
    auto build = [&](const std::string& out, const std::string& shard) {
        std::vector<std::string> args{"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets",
                                      "gfx1030_40", "--driver-log", (work / "net.log").string(), "-o",
                                      (work / out).string(), "-q"};
        if (!shard.empty()) args.insert(args.end(), {"--shard", shard});
        return test::run_kdbgen(args);
    };
    for (const auto& [out, shard] : std::vector<std::pair<std::string, std::string>>{{"all", ""}, {"s1", "1/2"}, {"s2", "2/2"}}) {
        const auto result = build(out, shard);
        ASSERT_EQ(result.exit_code, 0) << shard << "\n" << result.output;
    }
    fs::create_directories(work / "merged");
    const auto merged = test::run_kdbgen({"merge", (work / "merged" / "gfx1030_40.kdb").string(),
                                          (work / "s1" / "gfx1030_40.kdb").string(),
                                          (work / "s2" / "gfx1030_40.kdb").string()});
    ASSERT_EQ(merged.exit_code, 0) << merged.output;
    const auto diff = test::run_kdbgen({"diff", (work / "all" / "gfx1030_40.kdb").string(),
                                        (work / "merged" / "gfx1030_40.kdb").string()});
    EXPECT_EQ(diff.exit_code, 0) << diff.output;
    fs::remove_all(work);
}

TEST_P(DebianMiopen, EachKernelIsCompiledOnceAcrossCardsAndRuns) {
    const fs::path work = scratch("once-" + GetParam());
    std::ofstream(work / "net.log")
        << "MIOpenDriver conv -n 1 -c 16 -H 14 -W 14 -k 16 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1 -F 1 "
           "--in_layout NHWC --out_layout NHWC --fil_layout NHWC\n"
           "MIOpenDriver bnorm -n 8 -c 64 -H 56 -W 56 -m 1 --forw 2 -b 0 -r 1\n"
           "MIOpenDriver pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n";
    // Two cards of one processor, one replay process at a time (two at once may build one kernel twice).
    const std::vector<std::string> common{"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets",
                                          "gfx1030", "--cus", "36,40", "--driver-log", (work / "net.log").string(),
                                          "-j", "1"};
    auto cold_args = common;
    cold_args.insert(cold_args.end(), {"-o", (work / "cold").string(), "--cache-dir", (work / "cache").string()});
    const auto cold = test::run_kdbgen(cold_args);
    ASSERT_LE(cold.exit_code, 1) << cold.output;
    // A log, not a terminal: a line per phase with every pass of its problems done and the kernels
    // compiled; the card's last line gives the counts the card line gives.
    EXPECT_NE(cold.output.find("gfx1030_36: round 1: 3 problems\n"), std::string::npos) << cold.output;
    for (const char* card : {"gfx1030_36", "gfx1030_40"}) {
        const std::string done = fmt::format("kdbgen: {}: done: ", card);
        const auto at = cold.output.find(done);
        ASSERT_NE(at, std::string::npos) << cold.output;
        const std::string counts = cold.output.substr(at + done.size(), cold.output.find('\n', at) - at - done.size());
        EXPECT_NE(cold.output.find(fmt::format("kdbgen: {}: {}; ", card, counts)), std::string::npos) << cold.output;
    }
    const auto passes = cold.output.find("gfx1030_36: round 1: ");
    const auto passes_line = cold.output.substr(passes, cold.output.find('\n', cold.output.find("problem-passes", passes)) - passes);
    EXPECT_NE(passes_line.find("problem-passes"), std::string::npos) << cold.output;
    auto warm_args = common;
    warm_args.insert(warm_args.end(), {"-o", (work / "warm").string(), "--json", "--cache-dir", (work / "cache").string()});
    const auto warm = test::run_kdbgen(warm_args);
    ASSERT_LE(warm.exit_code, 1) << warm.output;
    const auto report = nlohmann::json::parse(warm.output.substr(warm.output.find('{')));
    // The rerun replays nothing and compiles nothing: every problem of both cards comes from the cache.
    EXPECT_EQ(report["kernels_compiled"], 0) << report.dump(2);
    EXPECT_EQ(report["problems_from_cache"], 6) << report.dump(2);
    for (const auto& card : report["targets"][0]["cards"]) EXPECT_EQ(card["processes"], 0) << card.dump(2);
    EXPECT_EQ(read_text_file(work / "cold" / "gfx1030.kdb"), read_text_file(work / "warm" / "gfx1030.kdb"));

    // Cold, without the cache's problems: the second card starts with every kernel of the first installed,
    // so MIOpen builds on it only what its CU count changes; across both, no key is built twice.
    auto again_args = common;
    again_args.insert(again_args.end(), {"-o", (work / "again").string(), "--json", "--cache-dir",
                                         (work / "cache2").string()});
    const auto again = test::run_kdbgen(again_args);
    ASSERT_LE(again.exit_code, 1) << again.output;
    const auto fresh = nlohmann::json::parse(again.output.substr(again.output.find('{')));
    const auto& cards = fresh["targets"][0]["cards"];
    ASSERT_EQ(cards.size(), 2u);
    EXPECT_EQ(cards[0]["kernels_installed_before"], 0);
    EXPECT_GT(cards[1]["kernels_installed_before"], 0) << cards[1].dump(2);
    // The counts agree: the run's are its cards' (problem-cards), and its kdb's rows are kernels_written.
    std::size_t compiled = 0, problems = 0;
    for (const auto& card : cards) {
        compiled += card["kernels_compiled"].get<std::size_t>();
        problems += card["problems"].get<std::size_t>();
    }
    EXPECT_EQ(compiled, fresh["kernels_compiled"]) << fresh.dump(2);
    EXPECT_EQ(problems, fresh["problems"].get<std::size_t>()) << fresh.dump(2);
    EXPECT_EQ(fresh["kernels_written"], fresh["targets"][0]["records"]) << fresh.dump(2);
    // The second card is confirmed as the first answered: a problem MIOpen read the CU count for only to
    // name db files (the pooling) with no replay, the rest in one pass on one handle, every kernel
    // installed. It compiles nothing, every problem settled without rounds, and the kdb is the same bytes.
    EXPECT_EQ(cards[1]["kernels_compiled"], 0) << cards[1].dump(2);
    EXPECT_EQ(cards[1]["problems_settled"], cards[1]["problems"]) << cards[1].dump(2);
    EXPECT_EQ(cards[1]["problems_confirmed"], cards[1]["problems"]) << cards[1].dump(2);
    EXPECT_TRUE(cards[1]["rounds"].empty()) << cards[1].dump(2);
    const std::size_t unreplayed = cards[1]["problems_confirmed_unreplayed"].get<std::size_t>();
    EXPECT_GE(unreplayed, 1u) << cards[1].dump(2);
    const std::size_t replayed = cards[1]["confirmation"].is_null() ? 0 : cards[1]["confirmation"]["problems"].get<std::size_t>();
    EXPECT_EQ(unreplayed + replayed, cards[1]["problems"].get<std::size_t>()) << cards[1].dump(2);
    EXPECT_EQ(read_text_file(work / "cold" / "gfx1030.kdb"), read_text_file(work / "again" / "gfx1030.kdb"));

    // The first card from the cache (an earlier run built it alone): the cache kept which problems were
    // blind to the CU count and the keys that change from process to process, so the second card is
    // confirmed as in one run, with no round, and the kdb is the same bytes.
    auto first_args = common;
    *std::find(first_args.begin(), first_args.end(), std::string("36,40")) = "36";
    first_args.insert(first_args.end(), {"-o", (work / "first").string(), "--cache-dir", (work / "cache3").string()});
    ASSERT_LE(test::run_kdbgen(first_args).exit_code, 1);
    auto later_args = common;
    later_args.insert(later_args.end(), {"-o", (work / "later").string(), "--json", "--cache-dir",
                                         (work / "cache3").string()});
    const auto later = test::run_kdbgen(later_args);
    ASSERT_LE(later.exit_code, 1) << later.output;
    const auto resumed = nlohmann::json::parse(later.output.substr(later.output.find('{')));
    const auto& resumed_cards = resumed["targets"][0]["cards"];
    EXPECT_EQ(resumed_cards[0]["problems_from_cache"], 3) << resumed.dump(2);
    EXPECT_EQ(resumed_cards[1]["problems_confirmed"], 3) << resumed.dump(2);
    EXPECT_EQ(resumed_cards[1]["problems_confirmed_unreplayed"], unreplayed) << resumed.dump(2);
    EXPECT_TRUE(resumed_cards[1]["rounds"].empty()) << resumed.dump(2);
    EXPECT_EQ(read_text_file(work / "cold" / "gfx1030.kdb"), read_text_file(work / "later" / "gfx1030.kdb"));
    fs::remove_all(work);
}

// Every MIOpenDriver command kdbgen has no problem of its own for (issue #50) is replayed through the
// installed MIOpenDriver, the kdb so far installed, and its kernels join the card's records and rounds; with
// the kdb installed MIOpen's own driver then compiles nothing for them. rnn, ctc and dropout are replayed
// by kdbgen itself (RnnCtcAndDropoutKeysAreMiopenDriversOnBothVersions). A line the installed driver runs no
// MIOpen call for (Debian's 3.5.1 layernorm takes other flags than 3.3's) fails to replay, never passes:
// named as MIOpen's own (the same without kdbgen), the build's exit 0.
TEST_P(DebianMiopen, MiopenDriverCommandsKdbgenCannotPlanAreReplayedThroughTheInstalledDriver) {
    const fs::path work = scratch("driver-commands-" + GetParam());
    const auto runs = build_then_check_with_driver(work,
                                                   "MIOpenDriver dropout -d 4,32,32 -p 0.5 -e 1 -F 1\n"
                                                   "MIOpenDriver ctc -k 10 -l 5 -c 16 -n 2 -F 1\n"
                                                   "MIOpenDriver rnn -n 4 -W 8 -H 16 -l 1 -k 5 -m lstm -F 0\n"
                                                   "MIOpenDriver layernorm -X 32x64x128 -o 2 -F 1\n"
                                                   "MIOpenDriver groupnorm -n 4 -c 32 -H 16 -W 16 -g 8 -F 1\n"
                                                   "MIOpenDriver pool -W 1x8x16x16 -y 2 -x 2 -u 2 -v 2 -F 1\n",
                                                   "gfx1030_36");
    ASSERT_EQ(runs.built.exit_code, 0) << runs.built.output;
    const auto& report = runs.build;
    const auto& card = report["targets"][0]["cards"][0];
    const auto& by_file = card["kernels_by_file"];
    std::vector<const char*> files{"MIOpenDropoutHIP.cpp.o", "MIOpenCTCLoss.cl.o", "MIOpenGroupNorm.cpp.o",
                                   "MIOpenRNNHiddenStateUpdate.cl.o"};  // the LSTM, on 3.5.1 too
    if (GetParam() == "sid") {
        files.push_back("MIOpenLayerNorm.cpp.o");
        EXPECT_EQ(report["problems_failed_by_miopen"], 0) << card.dump(2);
    } else {
        EXPECT_EQ(report["problems_failed_by_miopen"], 1) << card.dump(2);
        for (const auto& failure : card["failures"])
            EXPECT_NE(failure["message"].get<std::string>().find("MIOpenDriver ran no MIOpen call for it"),
                      std::string::npos)
                << failure.dump(2);
    }
    for (const char* file : files) EXPECT_TRUE(by_file.contains(file)) << file << " missing: " << by_file.dump();
    EXPECT_EQ(report["problems_failed_under_kdbgen"], 0) << card.dump(2);
    ASSERT_EQ(runs.checked.exit_code, 0) << runs.checked.output;
    EXPECT_EQ(runs.check["kernels_compiled"], 0) << runs.check.dump(2);
    EXPECT_EQ(runs.check["targets"][0]["cards"][0]["client"], "MIOpenDriver");
    fs::remove_all(work);
}

// RNN, CTC loss and dropout through kdbgen's own replay, MIOpen's API called as MIOpenDriver's rnn, ctc and
// dropout commands call it (issue #50): on 3.4.0, whose driver runs them, MIOpenDriver then asks for exactly the
// keys the kdb holds (as many distinct keys, none compiled) and compiles nothing; on 3.5.1, whose rnn
// command makes no MIOpen call, the kdb holds the RNN kernels all the same, the driver check runs the
// dropout lines and checks the rnn lines through the replay, and nothing is compiled. Every mode, both
// directions, training and inference, the backward passes, with and without a dropout descriptor.
TEST_P(DebianMiopen, RnnCtcAndDropoutKeysAreMiopenDriversOnBothVersions) {
    const fs::path work = scratch("rnn-" + GetParam());
    const auto runs = build_then_check_with_driver(
        work,
        "MIOpenDriver rnn -n 4 -W 8 -H 16 -l 1 -k 5 -m lstm -F 0\n"
        "MIOpenDriver rnn -n 8,8,6,4 -W 32 -H 32 -l 2 -k 4 -m gru -r 1 -b 1 -F 0\n"
        "MIOpenDriver rnnfp16 -n 2 -W 16 -H 16 -l 1 -k 3 -m tanh -F 1 -c 1\n"
        "MIOpenDriver rnn -n 2 -W 16 -H 16 -l 1 -k 2 -m relu -p 1 -F 2\n"
        "MIOpenDriver rnn -n 4 -W 16 -H 16 -l 2 -k 3 -m lstm -U 1 -P 0.3 -F 0\n"
        "MIOpenDriver dropout -d 4,32,32 -p 0.5 -e 1 -F 1\n"
        "MIOpenDriver dropout -d 2,8,16,16 -p 0.2 -F 0\n"
        "MIOpenDriver ctc -k 10 -l 5 -c 16 -n 2 -F 1\n",
        "gfx1201_32");
    ASSERT_EQ(runs.built.exit_code, 0) << runs.built.output;
    const auto& card = runs.build["targets"][0]["cards"][0];
    EXPECT_EQ(runs.build["problems_failed_by_miopen"], 0) << card.dump(2);
    EXPECT_EQ(runs.build["problems_failed_under_kdbgen"], 0) << card.dump(2);
    for (const char* file :
         {"MIOpenRNNHiddenStateUpdate.cl.o", "MIOpenDropoutHIP.cpp.o", "MIOpenNeuron.cl.o", "MIOpenCTCLoss.cl.o"})
        EXPECT_TRUE(card["kernels_by_file"].contains(file)) << file << " missing: " << card["kernels_by_file"].dump();
    ASSERT_EQ(std::distance(fs::directory_iterator(work / "out"), fs::directory_iterator()), 1);
    const auto rows = read_kdb_rows(fs::directory_iterator(work / "out")->path()).size();
    EXPECT_GT(rows, 10u);
    ASSERT_EQ(runs.checked.exit_code, 0) << runs.checked.output;
    EXPECT_EQ(runs.check["kernels_compiled"], 0) << runs.check.dump(2);
    EXPECT_EQ(runs.check["problems_failed_by_miopen"], 0) << runs.check.dump(2);
    EXPECT_EQ(runs.check["targets"][0]["cards"][0]["kernels_asked"], rows) << runs.check.dump(2);
    fs::remove_all(work);
}

// Issue #50's "done when": a driver log with every command MIOpenDriver 3.3 to 3.5 has, each with the
// driver's defaults, builds with the engine (exit 0: what the installed driver cannot run is named as
// MIOpen's own failure, the same without kdbgen), and MIOpen's own driver, run as a user runs each line
// with the kdb installed, then compiles nothing. The float commands by default (their fp16/bf16 twins
// build the same kernels with another type define); KDBGEN_ENGINE_ALL_COMMANDS=1 takes every one.
TEST_P(DebianMiopen, EveryMiopenDriverCommandBuildsAndTheDriverThenCompilesNothing) {
    const fs::path work = scratch("all-commands-" + GetParam());
    const bool all = std::getenv("KDBGEN_ENGINE_ALL_COMMANDS") != nullptr;
    std::string log;
    std::size_t commands = 0;
    for (const auto& [command, flags] : driver_flag_table()) {
        if (!all && (command.ends_with("fp16") || command.ends_with("fp64"))) continue;
        log += "MIOpenDriver " + command + "\n";
        ++commands;
    }
    const auto runs = build_then_check_with_driver(work, log, "gfx1030_36");
    ASSERT_EQ(runs.built.exit_code, 0) << runs.built.output;
    EXPECT_EQ(runs.build["problems_given"], commands) << runs.build.dump(2);
    EXPECT_EQ(runs.build["problems_failed_under_kdbgen"], 0) << runs.build.dump(2);
    EXPECT_EQ(runs.build["problems_not_replayed"], 0) << runs.build.dump(2);
    // Most commands run on both versions: their kernels are in the kdb.
    EXPECT_GT(runs.build["problems"].get<std::size_t>() - runs.build["problems_failed_by_miopen"].get<std::size_t>(),
              commands / 2)
        << runs.build.dump(2);
    ASSERT_EQ(runs.checked.exit_code, 0) << runs.checked.output;
    EXPECT_EQ(runs.check["kernels_compiled"], 0) << runs.check.dump(2);
    EXPECT_EQ(runs.check["problems_failed_under_kdbgen"], 0) << runs.check.dump(2);
    fs::remove_all(work);
}

// The driver check names as MIOpen's own a kernel MIOpen fails to build with the kdbs installed and without
// them while the driver exits 0 (3.4.0 cannot build MIOpenBatchNormFwdTrainSpatial.cl for gfx1151 at this
// shape): the check exits 0, as the build does, with the failure counted as MIOpen's.
TEST_P(DebianMiopen, TheDriverCheckNamesACompileMiopenFailsWithoutTheKdbsAsItsOwn) {
    const fs::path work = scratch("own-compile-" + GetParam());
    const auto runs = build_then_check_with_driver(work,
                                                   "MIOpenDriver bnorm -n 1 -c 32 -H 81 -W 200 -m 1 --forw 1 -b 0 "
                                                   "-s 1 -r 1\nMIOpenDriver activ -n 1 -c 32 -H 8 -W 8 -m 3 -F 1\n",
                                                   "gfx1151_20");
    ASSERT_EQ(runs.built.exit_code, 0) << runs.built.output;
    EXPECT_EQ(runs.checked.exit_code, 0) << runs.checked.output;
    EXPECT_EQ(runs.check["problems_failed_under_kdbgen"], 0) << runs.check.dump(2);
    EXPECT_EQ(runs.check["problems_failed_by_miopen"], runs.build["problems_failed_by_miopen"]) << runs.check.dump(2);
    if (GetParam() == "sid") {
        EXPECT_EQ(runs.check["problems_failed_by_miopen"], 1) << runs.check.dump(2);
    }
    EXPECT_EQ(runs.check["kernels_compiled"], 0) << runs.check.dump(2);
    fs::remove_all(work);
}

// --corpus takes the corpus' parts (issue #47): the zoo alone, the installed find-dbs alone, or both; a
// warm run reads the corpus through its index in the cache and takes the same problems as a run without.
TEST_P(DebianMiopen, TheCorpusPartsAreAChoiceAndItsIndexGivesTheSameProblems) {
    const fs::path work = scratch("parts-" + GetParam());
    const auto run = [&](const std::vector<std::string>& more) {
        std::vector<std::string> args{"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets",
                                      "gfx1030_36", "--first-problems", "1", "-o", (work / "out").string(), "--json",
                                      "-q", "--cache-dir", (work / "cache").string()};
        args.insert(args.end(), more.begin(), more.end());
        const auto result = test::run_kdbgen(args);
        EXPECT_LE(result.exit_code, 1) << result.output;
        return nlohmann::json::parse(result.output.substr(result.output.find('{')));
    };
    const auto zoo = run({"--corpus", "zoo"});
    EXPECT_EQ(zoo["problem_source"], "the zoo, the first 1") << zoo.dump(2);
    const auto find_dbs = GetParam() == "exp" ? run({"--corpus", "find-dbs"}) : nlohmann::json();
    const auto both = run({});  // last: its kdb is compared below
    EXPECT_EQ(both["problems_given"], 1) << both.dump(2);
    if (GetParam() == "exp") {
        EXPECT_NE(find_dbs["problem_source"].get<std::string>().find("the find-dbs of "), std::string::npos);
        // Both parts, each problem once: the zoo's convolutions the find-dbs list are not added twice.
        const auto parts = find_dbs["problems_all"].get<std::size_t>(), zoo_part = zoo["problems_all"].get<std::size_t>();
        const auto whole = both["problems_all"].get<std::size_t>();
        EXPECT_GT(whole, std::max(parts, zoo_part)) << find_dbs.dump(2);
        EXPECT_LE(whole, parts + zoo_part) << find_dbs.dump(2);
    } else {
        EXPECT_EQ(zoo["problems_all"], both["problems_all"]) << "3.4.0 ships no find-db: the zoo is the corpus";
    }
    // The index: one file per installation and corpus, and the problems a run without a cache takes.
    std::size_t indexes = 0;
    for (const auto& entry : fs::directory_iterator(work / "cache" / "engine" / "corpus"))
        indexes += entry.path().extension() == ".index";
    EXPECT_EQ(indexes, GetParam() == "exp" ? 3u : 1u);  // 3.4.0: the zoo and both are one corpus
    const auto without = test::run_kdbgen({"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets",
                                           "gfx1030_36", "--first-problems", "1", "-o", (work / "plain").string(),
                                           "--json", "-q", "--no-cache"});
    ASSERT_LE(without.exit_code, 1) << without.output;
    EXPECT_EQ(read_text_file(work / "out" / "gfx1030_36.kdb"), read_text_file(work / "plain" / "gfx1030_36.kdb"));
    fs::remove_all(work);
}

TEST_P(DebianMiopen, WithNoProblemSourceTheInstalledCorpusIsReplayedAndItsShardsMergeIntoOneBuild) {
    // Debian's 3.5.1 ships its find-dbs (/usr/share/miopen/db); 3.4.0's package has none: the zoo alone.
    // KDBGEN_ENGINE_SHARD_PROBLEMS=1000: the corpus' first thousand, as docs/engine.md reports (an hour here).
    const char* env = std::getenv("KDBGEN_ENGINE_SHARD_PROBLEMS");
    const std::size_t count = env && *env ? std::stoul(env) : 9;
    const fs::path work = scratch("corpus-" + GetParam());
    const auto build = [&](const std::string& out, const std::string& shard, const std::string& cache) {
        std::vector<std::string> args{"build", "--engine", "miopen", "--miopen-root", root.string(), "--targets",
                                      "gfx1030_36", "--first-problems", std::to_string(count), "-o",
                                      (work / out).string(), "--json", "-q", "-j", "2"};
        if (cache.empty()) args.push_back("--no-cache");
        else args.insert(args.end(), {"--cache-dir", (work / cache).string()});
        if (!shard.empty()) args.insert(args.end(), {"--shard", shard});
        const auto result = test::run_kdbgen(args);
        EXPECT_LE(result.exit_code, 1) << result.output;
        return nlohmann::json::parse(result.output.substr(result.output.find('{')));
    };
    const auto whole = build("all", "", "");
    EXPECT_EQ(whole["problems_given"], count) << whole.dump(2);
    EXPECT_GT(whole["problems_all"], count) << whole.dump(2);
    const std::string source = whole["problem_source"];
    if (GetParam() == "exp") EXPECT_NE(source.find("the find-dbs of "), std::string::npos) << source;
    else EXPECT_NE(source.find("the zoo"), std::string::npos) << source;
    std::vector<std::string> merge{"merge", (work / "merged.kdb").string()};
    std::size_t dealt = 0;
    for (const std::string shard : {"1/3", "2/3", "3/3"}) {
        const auto part = build("s" + shard.substr(0, 1), shard, "cache");
        dealt += part["problems_given"].get<std::size_t>();
        merge.push_back((work / ("s" + shard.substr(0, 1)) / "gfx1030_36.kdb").string());
    }
    EXPECT_EQ(dealt, count);
    const auto merged = test::run_kdbgen(merge);
    ASSERT_EQ(merged.exit_code, 0) << merged.output;
    EXPECT_EQ(read_text_file(work / "all" / "gfx1030_36.kdb"), read_text_file(work / "merged.kdb"));
    fs::remove_all(work);
}

INSTANTIATE_TEST_SUITE_P(Versions, DebianMiopen, ::testing::Values("sid", "exp"),
                         [](const auto& info) { return info.param == "sid" ? "MIOpen_3_4_0" : "MIOpen_3_5_1"; });

TEST(EngineCache, KernelsAndSettledProblemsComeBackAndADamagedEntryIsAMiss) {
    const fs::path dir = fs::temp_directory_path() / ("kdbgen-engine-cache-" + std::to_string(getpid()));
    fs::remove_all(dir);
    const Target card36 = parse_target("gfx1030_36"), card40 = parse_target("gfx1030_40");
    const KdbKey key{"naive_conv.cpp.o", "-DMIOPEN_USE_FP32=1 -mcpu=gfx1030"};
    const Compiler compiler(test::toolchain(), nullptr);
    const auto compiled = compiler.compile(test::demo_build("kdbgen_tensor_op.cl", "-DMIOPEN_USE_FP32=1", "gfx1030_36", {}));
    ASSERT_TRUE(compiled.ok) << compiled.log;
    const Bytes code = compiled.code;
    {
        EngineCache cache(dir, "library-a", "db-1");
        cache.store_kernel(card36, key, code);
        cache.store_problem(card36, "conv dir=F x=1,2,3,4",
                            {{key}, {{"Conv_Winograd_v30_3_1_fp32_f2x3_stride1.s.o", " -mcpu=gfx1030"}},
                             "find: miopenStatusUnknownError", "MIOpen has no source for a kernel it asks for", true,
                             {{"MIOpenBatchNormFwdTrainSpatial.cl.o", {"MIO_BN_N_ELEMENTS"},
                               {"-DMIO_BN_N=64 -DMIO_BN_N_ELEMENTS=140722237246416 -mcpu=gfx1030"}, "batchnorm n64"}}});
    }
    EngineCache cache(dir, "library-a", "db-1");
    // Kernels belong to the processor (its DbId): every card of it is served.
    const auto kernels = cache.kernels(card40);
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_EQ(kernels.at(key), code);
    // A settled problem belongs to its card, this system db and its exact line.
    const auto settled = cache.problem(card36, "conv dir=F x=1,2,3,4");
    ASSERT_TRUE(settled);
    EXPECT_EQ(settled->asked, std::vector<KdbKey>({key}));
    // A key it asked for and MIOpen cannot build (a source the installation lacks) stays named.
    ASSERT_EQ(settled->unbuildable.size(), 1u);
    EXPECT_EQ(settled->unbuildable[0].kernel_name, "Conv_Winograd_v30_3_1_fp32_f2x3_stride1.s.o");
    // ... and why it fails, and that the failure is MIOpen's own: a warm rerun reports the same.
    EXPECT_EQ(settled->failure, "find: miopenStatusUnknownError");
    EXPECT_EQ(settled->miopen_own, "MIOpen has no source for a kernel it asks for");
    // ... and that no process read the CU count but for a db file's name: the processor's later cards take it.
    EXPECT_TRUE(settled->blind_to_cu);
    // ... and the keys it asked for that change from process to process: a rerun names them again, and a
    // later card of the processor is confirmed with them known.
    ASSERT_EQ(settled->unstable.size(), 1u);
    EXPECT_EQ(settled->unstable[0].varying_defines, std::vector<std::string>{"MIO_BN_N_ELEMENTS"});
    EXPECT_TRUE(settled->unstable[0].matches({"MIOpenBatchNormFwdTrainSpatial.cl.o",
                                              "-DMIO_BN_N=64 -DMIO_BN_N_ELEMENTS=140730221764720 -mcpu=gfx1030"}));
    EXPECT_EQ(settled->unstable[0].problem, "batchnorm n64");
    EXPECT_FALSE(cache.problem(card40, "conv dir=F x=1,2,3,4"));
    EXPECT_FALSE(cache.problem(card36, "conv dir=F x=1,2,3,5"));
    EXPECT_FALSE(EngineCache(dir, "library-a", "db-2").problem(card36, "conv dir=F x=1,2,3,4"));
    EXPECT_TRUE(EngineCache(dir, "library-b", "db-1").kernels(card36).empty());
    // An entry is sealed with its identity: the folder of one library copied under another's name
    // (a CI cache restored under another key) serves nothing.
    fs::copy(dir / "engine" / "library-a", dir / "engine" / "library-c", fs::copy_options::recursive);
    EXPECT_TRUE(EngineCache(dir, "library-c", "db-1").kernels(card36).empty());
    EXPECT_FALSE(EngineCache(dir, "library-c", "db-1").problem(card36, "conv dir=F x=1,2,3,4"));
    // What the cache gives gets the checks a row MIOpen wrote gets: a code object of another
    // processor, or bytes that are none, under a gfx1030 key are never used.
    {
        EngineCache other(dir, "library-d", "db-1");
        const auto gfx906 = compiler.compile(test::demo_build("kdbgen_tensor_op.cl", "-DMIOPEN_USE_FP32=1", "gfx906_60", {}));
        ASSERT_TRUE(gfx906.ok) << gfx906.log;
        other.store_kernel(card36, {"a.cl.o", "-mcpu=gfx1030"}, gfx906.code);
        other.store_kernel(card36, {"b.cl.o", "-mcpu=gfx1030"}, test::bytes_of("four"));
        EXPECT_TRUE(other.kernels(card36).empty());
    }
    // One byte changed in the stored code object: never used.
    for (const auto& entry : fs::recursive_directory_iterator(dir))
        if (entry.path().extension() == ".k") {
            std::fstream file(entry.path(), std::ios::in | std::ios::out | std::ios::binary);
            file.seekp(-1, std::ios::end);
            file.put('X');
        }
    EXPECT_TRUE(cache.kernels(card36).empty());
    fs::remove_all(dir);
}

// A later card of a processor skips the replay of a problem blind to the CU count only where it reads
// the db files the first card read: MIOpen's own, else the closest CU count's of each kind
// (find_db.cpp:63-111, execution_context.hpp:139-160, MIOpen 3.3.0), decimal up to 64 CUs, hex above.
TEST(DbFilesRead, AreTheCardsOwnElseTheClosestCuCountsOfEachKind) {
    const std::vector<std::string> entries{
        "gfx1030_36.HIP.fdb.txt", "gfx908_64.HIP.fdb.txt", "gfx90878.HIP.fdb.txt", "gfx90878.db.txt",
        "gfx90a68.HIP.fdb.txt",   "gfx90a6e.HIP.fdb.txt",  "gfx90a68.db.txt",      "gfx90a.tn.model",
        "gfx90a_ConvHipIgemmGroupFwdXdlops_decoder.ktn.model"};
    const auto read = [&](const char* card) { return db_files_read(entries, parse_target(card)); };
    using Files = std::map<std::string, std::string>;
    EXPECT_EQ(read("gfx1030_36"), (Files{{".HIP.fdb.txt", "gfx1030_36.HIP.fdb.txt"}}));
    EXPECT_EQ(read("gfx1030_40"), read("gfx1030_36"));  // the one there is closest to both
    EXPECT_EQ(read("gfx1100_48"), Files{});             // none: every card reads the same (nothing)
    EXPECT_EQ(read("gfx90a:sramecc+:xnack-_110"),
              (Files{{".HIP.fdb.txt", "gfx90a6e.HIP.fdb.txt"}, {".db.txt", "gfx90a68.db.txt"}}));
    EXPECT_EQ(read("gfx90a:sramecc+:xnack-_104")[".HIP.fdb.txt"], "gfx90a68.HIP.fdb.txt");
    EXPECT_EQ(read("gfx908_120")[".HIP.fdb.txt"], "gfx90878.HIP.fdb.txt");
    EXPECT_EQ(read("gfx908_60")[".HIP.fdb.txt"], "gfx908_64.HIP.fdb.txt");
    EXPECT_EQ(read("gfx908_92")[".HIP.fdb.txt"], "") << "64 and 120 are as close: which MIOpen takes is its listing's";
}

TEST(EngineShards, ProblemsAreDealtByTheNativeRuleAndEveryOneToOneShard) {
    std::vector<ShardUnit> units;
    for (int i = 0; i < 40; ++i) units.push_back({"problem " + std::to_string(i % 30), i % 3 ? 1.0 : 9.0});
    const auto shards = assign_shards(units, 4);
    std::vector<double> load(4, 0.0);
    std::map<std::string, unsigned> shard_of;
    for (std::size_t i = 0; i < units.size(); ++i) {
        // A unit repeated (the same problem twice) goes where its first went, and counts once.
        const auto [it, first] = shard_of.emplace(units[i].identity, shards[i]);
        EXPECT_EQ(it->second, shards[i]) << units[i].identity;
        if (first) load[shards[i]] += units[i].cost;
    }
    // LPT: no shard carries more than the lightest plus the largest unit.
    EXPECT_LE(*std::max_element(load.begin(), load.end()) - *std::min_element(load.begin(), load.end()), 9.0);
    // A convolution's Find costs more than a pooling's, a backward one's more than a forward one's.
    ConvProblem forward = parse_conv_problem_key("64-56-56-3x3-64-56-56-1-1x1-1x1-1x1-0-NCHW-FP32-F");
    ConvProblem backward = forward;
    backward.direction = ConvDirection::BackwardData;
    EXPECT_GT(estimated_replay_cost(Problem(forward)), estimated_replay_cost(Problem(PoolingProblem{})));
    EXPECT_GT(estimated_replay_cost(Problem(backward)), estimated_replay_cost(Problem(forward)));
}

TEST(EngineShards, EachUnitGoesToTheFirstLeastLoadedShardEvenWithManyShards) {
    // The rule, stated plainly: largest unit first (ties by identity), each to
    // the lowest-numbered shard of least load. A corpus is 2.8 x 10^5 problems
    // and a site may deal them to 10^5 shards, so the deal must not scan every
    // shard per unit; its result must be the rule's all the same.
    std::vector<ShardUnit> units;
    std::uint64_t state = 35;
    for (int i = 0; i < 3000; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        units.push_back({"p" + std::to_string(i), 1.0 + static_cast<double>(state >> 60)});
    }
    for (const unsigned count : {2u, 7u, 64u, 5000u}) {
        std::vector<std::size_t> order(units.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return units[a].cost != units[b].cost ? units[a].cost > units[b].cost : units[a].identity < units[b].identity;
        });
        std::vector<double> load(count, 0.0);
        std::vector<unsigned> expected(units.size());
        for (const std::size_t i : order) {
            expected[i] = static_cast<unsigned>(std::min_element(load.begin(), load.end()) - load.begin());
            load[expected[i]] += units[i].cost;
        }
        EXPECT_EQ(assign_shards(units, count), expected) << count << " shards";
    }
    // A corpus dealt to 10^5 shards (the quadratic deal took 90 s of a build here).
    std::vector<ShardUnit> corpus;
    for (int i = 0; i < 280000; ++i) corpus.push_back({"p" + std::to_string(i), 1.0 + i % 7});
    const auto dealt = assign_shards(corpus, 100000);
    std::vector<double> corpus_load(100000, 0.0);
    for (std::size_t i = 0; i < corpus.size(); ++i) corpus_load[dealt[i]] += corpus[i].cost;
    const auto [lightest, heaviest] = std::minmax_element(corpus_load.begin(), corpus_load.end());
    EXPECT_GT(*lightest, 0.0);
    EXPECT_LE(*heaviest - *lightest, 7.0);
}

TEST(EnginePlan, ListsEveryCardAndEveryProblemsReplayLine) {
    const fs::path log = fs::temp_directory_path() / ("kdbgen-engine-plan-" + std::to_string(getpid()) + ".log");
    std::ofstream(log) << "MIOpenDriver conv -n 1 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -F 1 -t 1\n"
                          "MIOpenDriver pool -W 8x64x112x112 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -F 1\n";
    const auto result = test::run_kdbgen({"plan", "--engine", "miopen", "--targets", "gfx1030,gfx90a:sramecc+:xnack-_110",
                                          "--driver-log", log.string(), "--json"});
    fs::remove(log);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    const auto report = nlohmann::json::parse(result.output);
    EXPECT_EQ(report["replayable"], 2);
    // An arch-wide target is replayed on every card products.toml lists; the stub reports ROCm's target ID.
    const auto& gfx1030 = report["targets"][0]["cards"];
    EXPECT_GE(gfx1030.size(), 2u) << gfx1030.dump();
    const auto& mi210 = report["targets"][1]["cards"][0];
    EXPECT_EQ(mi210["stub_arch"], "gfx90a:sramecc+:xnack-");
    EXPECT_EQ(mi210["stub_cus"], 110);
    EXPECT_EQ(mi210["db_basename"], "gfx90a6e");
    EXPECT_TRUE(report["problems"][0]["replay"].get<std::string>().starts_with("conv dir=F x=1,64,56,56")) << report.dump(2);
}
