// The kdbgen binary end to end: exit codes, messages, nothing half-written.
#include "kdbgen/kdb.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>
#include <map>
#include <set>
#include <vector>

using namespace kdbgen;
using test::run_kdbgen;

namespace {

// The subcommands `kdbgen --help` lists: the help and man-page tests cover each, so a new
// subcommand is covered the day it is added.
std::vector<std::string> subcommands() {
    const auto help = run_kdbgen({"--help"}).output;
    std::vector<std::string> out;
    const auto at = help.find("Subcommands:");
    std::istringstream lines(help.substr(at == std::string::npos ? help.size() : at));
    std::string line;
    std::getline(lines, line);
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::string name;
        if (words >> name) out.push_back(name);
    }
    return out;
}

// Every --long option a help text names.
std::set<std::string> long_options(const std::string& help) {
    std::set<std::string> out;
    static const std::regex option(R"((^|[\s,])(--[a-z][a-z0-9-]*))");
    for (std::sregex_iterator it(help.begin(), help.end(), option), end; it != end; ++it) out.insert((*it)[2]);
    return out;
}

}  // namespace

TEST(Cli, HelpAndVersionForEverySubcommand) {
    EXPECT_EQ(run_kdbgen({"--help"}).exit_code, 0);
    const auto subs = subcommands();
    for (const char* known : {"build", "plan", "inspect", "verify", "diff", "merge", "cache", "targets", "solvers"})
        EXPECT_NE(std::find(subs.begin(), subs.end(), known), subs.end()) << known << " missing from kdbgen --help";
    for (const auto& sub : subs) {
        EXPECT_EQ(run_kdbgen({sub, "--help"}).exit_code, 0) << sub;
        const auto version = run_kdbgen({sub, "--version"});
        EXPECT_EQ(version.exit_code, 0) << sub;
        EXPECT_NE(version.output.find("kdbgen "), std::string::npos) << sub;
    }
}

// docs/kdbgen.1 documents every subcommand and every option their --help lists.
TEST(Cli, ManPageNamesEverySubcommandAndOption) {
    std::string man = read_text_file(test::source_dir() / "docs" / "kdbgen.1");
    for (std::size_t at; (at = man.find("\\-")) != std::string::npos;) man.replace(at, 2, "-");  // roff's \- is -
    for (const auto& sub : subcommands()) {
        const std::regex entry("(\\.B |\\\\fB)" + sub + "(?![a-z0-9-])");
        EXPECT_TRUE(std::regex_search(man, entry)) << "docs/kdbgen.1 has no entry for kdbgen " << sub;
        for (const auto& option : long_options(run_kdbgen({sub, "--help"}).output)) {
            if (option == "--help" || option == "--version") continue;
            const std::regex named(option + "(?![a-z0-9-])");
            EXPECT_TRUE(std::regex_search(man, named)) << "docs/kdbgen.1 does not document " << sub << " " << option;
        }
    }
}

TEST(Cli, BadUsageIsExitTwo) {
    EXPECT_EQ(run_kdbgen({}).exit_code, 2);
    EXPECT_EQ(run_kdbgen({"build", "--no-such-flag"}).exit_code, 2);
    const auto unknown = run_kdbgen({"build", "--targets", "gfx1234_5", "-o", "/tmp/x"});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_NE(unknown.output.find("unknown processor 'gfx1234'"), std::string::npos) << unknown.output;
}

TEST(Cli, DemoBuildWritesVerifiedKdbsAndJson) {
    test::TempDir dir;
    const auto out = dir / "out";
    const auto run = run_kdbgen({"build", "--targets", "gfx1030_36,gfx90a:sramecc+:xnack-_110", "-o", out.string(),
                                 "--cache-dir", (dir / "cache").string(), "--json", "-j", "2"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    // The folder holds the kdbs and nothing else (no lock file, no temporary) for `install out/*`.
    std::set<std::string> left;
    for (const auto& entry : fs::directory_iterator(out)) left.insert(entry.path().filename().string());
    EXPECT_EQ(left, (std::set<std::string>{"gfx1030_36.kdb", "gfx90a6e.kdb"}));
    const auto json = nlohmann::json::parse(run.output.substr(run.output.find('{')));
    EXPECT_EQ(json["failed"], 0);
    EXPECT_EQ(json["targets"].size(), 2u);
    EXPECT_EQ(json["targets"][0]["records"], 9);
    // Phase timings: wall and CPU per phase; compiling is the compilers' CPU, not kdbgen's.
    for (const char* phase : {"plan", "toolchain", "compile", "write"}) {
        ASSERT_TRUE(json["phases"].contains(phase)) << phase;
        EXPECT_GE(json["phases"][phase]["seconds"].get<double>(), 0.0) << phase;
    }
    const auto& compile = json["phases"]["compile"];
    EXPECT_GT(compile["user_seconds"].get<double>() + compile["system_seconds"].get<double>(),
              compile["kdbgen_cpu_seconds"].get<double>());
    EXPECT_TRUE(json["phases"]["plan"]["parts"].contains("read_find_db"));
    // kdbgen's own peak memory, as it stood at the end of each phase: never lower later, and plausible
    // (the demo's plan takes megabytes, not bytes or terabytes).
    const auto rss_of = [&](const char* phase) { return json["phases"][phase]["kdbgen_peak_rss_bytes"].get<long>(); };
    EXPECT_GT(rss_of("plan"), 1L << 20);
    EXPECT_LE(rss_of("plan"), rss_of("write"));
    EXPECT_LT(rss_of("write"), 4L << 30);
    // What each language's compiles cost: every compile of the cold build counted once, with its CPU time.
    std::size_t counted = 0;
    for (const auto& [language, cost] : json["compile_time"]["by_language"].items()) {
        counted += cost["compiles"].get<std::size_t>();
        EXPECT_GT(cost["cpu_seconds"].get<double>(), 0.0) << language;
    }
    EXPECT_EQ(counted, json["compiles"].get<std::size_t>());
    EXPECT_TRUE(json["compile_time"]["by_kernel_file"].contains("kdbgen_fill.s"));
    const auto verify = run_kdbgen({"verify", (out / "gfx1030_36.kdb").string(), (out / "gfx90a6e.kdb").string()});
    EXPECT_EQ(verify.exit_code, 0) << verify.output;
    const auto inspect = run_kdbgen({"inspect", "--json", (out / "gfx1030_36.kdb").string()});
    EXPECT_EQ(inspect.exit_code, 0);
    EXPECT_NE(inspect.output.find("kdbgen_fill.s.o"), std::string::npos);
    const auto warm = run_kdbgen({"build", "--targets", "gfx1030_36", "-o", (dir / "warm").string(), "--cache-dir",
                                  (dir / "cache").string(), "--json"});
    const auto warm_json = nlohmann::json::parse(warm.output.substr(warm.output.find('{')));
    EXPECT_EQ(warm_json["cached"], 9);
    EXPECT_TRUE(warm_json["compile_time"]["by_language"].empty()) << "cache hits cost no compile";
    EXPECT_EQ(read_file(out / "gfx1030_36.kdb"), read_file(dir / "warm" / "gfx1030_36.kdb"))
        << "cold and warm builds give the same bytes";
}

// kdbgen's reported peak is its own, not that of the process that started it: Linux's
// ru_maxrss keeps the peak of the image before exec, so a kdbgen run from a script holding a
// plan's 1.4 GB of JSON reported the script's size (tools/bench's warm run: 4,954 MiB).
// Standard output is the result: a warning (here --no-cache's) goes to standard error, so --json parses.
TEST(Cli, WarningsGoToStandardErrorSoJsonParses) {
    test::TempDir dir;
    const std::string command = std::string(test::kdbgen_binary()) + " build -n --json --no-cache --targets gfx1030_36 -o " +
                                (dir / "out").string() + " > " + (dir / "out.json").string() + " 2> " +
                                (dir / "err.txt").string();
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    const std::string out = read_text_file(dir / "out.json"), err = read_text_file(dir / "err.txt");
    EXPECT_TRUE(nlohmann::json::accept(out)) << out.substr(0, 300);
    EXPECT_NE(err.find("--no-cache"), std::string::npos) << err;
    EXPECT_EQ(out.find("kdbgen: "), std::string::npos) << out.substr(0, 300);
}

TEST(Cli, PeakMemoryIsKdbgensOwnNotItsParents) {
    constexpr std::size_t kParent = std::size_t{768} << 20;
    std::vector<char> held(kParent, 1);  // touched: resident in this process when kdbgen starts
    test::TempDir dir;
    const auto run = run_kdbgen({"build", "-n", "--json", "-q", "--targets", "gfx1030_36", "-o", (dir / "out").string()});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto json = nlohmann::json::parse(run.output.substr(run.output.find('{')));
    const long peak = json["phases"]["plan"]["kdbgen_peak_rss_bytes"].get<long>();
    EXPECT_GT(peak, 1L << 20);
    EXPECT_LT(peak, static_cast<long>(kParent / 2)) << "the parent's " << (kParent >> 20) << " MiB reported as kdbgen's";
    EXPECT_EQ(held[kParent / 2], 1);
}

TEST(Cli, FailedKernelCostsNoOtherKernelAndExitsOne) {
    test::TempDir dir;
    test::write_manifest_with_a_broken_kernel(dir.path());
    const auto run = run_kdbgen({"build", "--targets", "gfx1030_36", "-o", (dir / "out").string(), "--manifest",
                                 (dir / "m.toml").string(), "--kernels-dir", (dir / "kernels").string(), "--no-cache"});
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_NE(run.output.find("broken.cl:4:"), std::string::npos) << run.output;
    EXPECT_EQ(read_kdb(dir / "out" / "gfx1030_36.kdb").size(), 1u) << "the good kernel is written";
    const auto fail_fast = run_kdbgen({"build", "--targets", "gfx1030_36", "-o", (dir / "ff").string(), "--manifest",
                                       (dir / "m.toml").string(), "--kernels-dir", (dir / "kernels").string(),
                                       "--no-cache", "--fail-fast", "-j", "1"});
    EXPECT_EQ(fail_fast.exit_code, 1);
    EXPECT_FALSE(fs::exists(dir / "ff" / "gfx1030_36.kdb"));
}

TEST(Cli, VerifyRejectsCorruptFileWithNonZeroExit) {
    test::TempDir dir;
    write_file_atomic(dir / "gfx1030_36.kdb", test::bytes_of("SQLite format 3\0 this is not a database"));
    const auto run = run_kdbgen({"verify", (dir / "gfx1030_36.kdb").string()});
    EXPECT_NE(run.exit_code, 0);
    EXPECT_NE(run.output.find("gfx1030_36.kdb"), std::string::npos) << run.output;
}

TEST(Cli, UnwritableOutputIsExitTwo) {
    test::TempDir dir;
    write_file_atomic(dir / "file", test::bytes_of("x"));
    const auto run = run_kdbgen({"build", "--targets", "gfx1030_36", "-o", (dir / "file" / "sub").string(), "--no-cache"});
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("cannot create output folder"), std::string::npos) << run.output;
}

TEST(Cli, TargetsShowsMIOpenNames) {
    const auto run = run_kdbgen({"targets", "--json", "--targets", "gfx90a:xnack+_110,gfx942_304"});
    ASSERT_EQ(run.exit_code, 0);
    const auto json = nlohmann::json::parse(run.output);
    EXPECT_EQ(json[0]["kdb"], "gfx90a_xnack6e.kdb");
    EXPECT_EQ(json[1]["kdb"], "gfx942130.kdb");
}

// Compilers start with posix_spawn: a program that cannot run is exit 127 with
// its name; each child leads its own process group and reads /dev/null.
TEST(RunProcess, SpawnsInItsOwnGroupWithNoInput) {
    const auto missing = run_process({"/nonexistent/clang", "--version"});
    EXPECT_EQ(missing.exit_code, 127);
    EXPECT_NE(missing.output.find("cannot run /nonexistent/clang"), std::string::npos) << missing.output;
    const auto group = run_process({"/bin/sh", "-c", "cut -d' ' -f5 /proc/$$/stat; cat; echo done"});
    ASSERT_EQ(group.exit_code, 0) << group.output;
    EXPECT_NE(std::stol(group.output), static_cast<long>(::getpgrp())) << group.output;
    EXPECT_NE(group.output.find("done"), std::string::npos);
    EXPECT_EQ(run_process({"/bin/sh", "-c", "exit 3"}).exit_code, 3);
}

TEST(Cli, InterruptStopsCleanlyAndWritesNoKdb) {
    test::TempDir dir;
    // SIGINT once a compile runs (a clang child with -o; `clang --version` runs
    // earlier), not after a fixed 1.5 s: a slow start (the ASan build under load)
    // was interrupted while planning, which exits 130 at once without this
    // message and is tested in safety_test (D8).
    const std::string script = std::string("\"") + KDBGEN_TEST_BINARY + "\" build --targets-file \"" +
                               (test::source_dir() / "configs/targets/all.txt").string() + "\" -o \"" +
                               (dir / "out").string() + "\" --no-cache -j 1 -q & pid=$!; n=0; "
                               "while [ $n -lt 600 ]; do for c in $(cat /proc/$pid/task/*/children 2>/dev/null); do "
                               "[ \"$(cat /proc/$c/comm 2>/dev/null)\" = clang ] && case \"$(tr '\\0' ' ' 2>/dev/null </proc/$c/cmdline)\" in "
                               "*' -o '*) n=600;; esac; done; "
                               "[ $n -lt 600 ] && sleep 0.1; n=$((n+1)); done; "
                               "[ $n -gt 600 ] && echo compiling || echo 'no compiler seen in 60 s'; "
                               "kill -INT $pid; wait $pid; echo \"exit=$?\"";
    const auto run = run_process({"/bin/sh", "-c", script});
    EXPECT_NE(run.output.find("compiling"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("exit=130"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("interrupted; no kdb written"), std::string::npos) << run.output;
    std::size_t files = 0;
    if (fs::exists(dir / "out"))
        for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir / "out")) ++files;
    EXPECT_EQ(files, 0u) << "no kdb and no temporary file left";
}

TEST(Cli, PlanListsProblemConfigsFromEverySource) {
    test::TempDir dir;
    std::ofstream(dir / "run.log") << "noise\n./bin/MIOpenDriver conv -n 2 -c 8 -H 8 -W 8 -k 8 -y 3 -x 3 -p 1 -q 1 -F 1\n";
    std::vector<std::string> args{"plan", "--json", "--network", (test::source_dir() / "configs/networks/resnet50.toml").string(),
                                  "--batch", "32", "--data-types", "FP32", "--modes", "inference",
                                  "--driver-log", (dir / "run.log").string()};
    const fs::path onnx = "/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d/model.onnx";
    if (fs::exists(onnx)) args.insert(args.end(), {"--onnx", onnx.string()});
    const auto run = run_kdbgen(args);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto json = nlohmann::json::parse(run.output);
    EXPECT_EQ(json["counts"]["conv"], fs::exists(onnx) ? 25 : 24);
    bool from_log = false;
    for (const auto& p : json["problems"])
        from_log |= p["key"] == "8-8-8-3x3-8-8-8-2-1x1-1x1-1x1-0-NCHW-FP32-F" && p["origins"][0] == (dir / "run.log").string() + ":2";
    EXPECT_TRUE(from_log);
    const auto table = run_kdbgen({"plan", "--driver-log", (dir / "run.log").string()});
    EXPECT_NE(table.output.find("1 problem configs: 1 conv"), std::string::npos) << table.output;
}

TEST(Cli, PlanBadInputIsExitTwoWithFileAndLine) {
    test::TempDir dir;
    std::ofstream(dir / "run.log") << "ok\nok\n./bin/MIOpenDriver conv -n 2 --bogus 1\n";
    const auto run = run_kdbgen({"plan", "--driver-log", (dir / "run.log").string()});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.output.find("run.log:3: MIOpenDriver conv: unknown flag '--bogus'"), std::string::npos) << run.output;
    write_file_atomic(dir / "cut.HIP.fdb.txt", test::bytes_of("1-1-1-3x3-2-3-3-128-0x0-2x2-1x1-0-NCHW-FP32-B=ConvA"));
    const auto fdb = run_kdbgen({"plan", "--find-db", (dir / "cut.HIP.fdb.txt").string()});
    EXPECT_EQ(fdb.exit_code, 2);
    EXPECT_NE(fdb.output.find("cut.HIP.fdb.txt:1:"), std::string::npos) << fdb.output;
}

TEST(Cli, MiopenTreeVersionIsCheckedAndAssumable) {
    test::TempDir dir;
    fs::create_directories(dir / "tree" / "src" / "kernels");
    std::ofstream(dir / "tree" / "CMakeLists.txt") << "project(MIOpen)\nrocm_setup_version(VERSION 2.19.0)\n";
    std::ofstream(dir / "run.log") << "MIOpenDriver conv -n 1 -c 8 -H 8 -W 8 -k 8 -y 3 -x 3 -p 1 -q 1 -F 1\n";
    const std::vector<std::string> base{"plan", "--miopen-src", (dir / "tree").string(), "--targets", "gfx1030_36",
                                        "--driver-log", (dir / "run.log").string(), "--solvers", "applicable"};
    const auto old = run_kdbgen(base);
    EXPECT_EQ(old.exit_code, 2);
    EXPECT_NE(old.output.find("MIOpen 2.19.0 is not supported"), std::string::npos) << old.output;
    auto assumed = base;
    assumed.insert(assumed.end(), {"--assume-version", "3.3", "--json"});
    const auto run = run_kdbgen(assumed);
    ASSERT_EQ(run.exit_code, 0) << run.output;
    // The tree has no kernel sources: every applicable solver is reported, none planned.
    const auto json = nlohmann::json::parse(run.output);
    EXPECT_EQ(json["builds"].size(), 0u);
    EXPECT_GT(json["coverage"]["gfx1030_36.kdb"]["status"]["kernel source not in the MIOpen tree"].get<int>(), 0);
    auto excluding = assumed;
    excluding.insert(excluding.end(), {"--exclude-solvers", "ConvDirectNaiveConvFwd,ConvOclDirectFwd"});
    const auto excluded = nlohmann::json::parse(run_kdbgen(excluding).output);
    EXPECT_EQ(excluded["coverage"]["gfx1030_36.kdb"]["solvers"]["ConvDirectNaiveConvFwd"]["excluded (--exclude-solvers)"], 1);
    auto unknown = assumed;
    unknown.insert(unknown.end(), {"--exclude-solvers", "ConvNoSuchThing"});
    EXPECT_EQ(run_kdbgen(unknown).exit_code, 2);
    const auto no_tree = run_kdbgen({"plan", "--miopen-src", (dir / "nowhere").string(), "--targets", "gfx1030_36"});
    EXPECT_EQ(no_tree.exit_code, 2);
    EXPECT_NE(no_tree.output.find("not a MIOpen source tree"), std::string::npos) << no_tree.output;
}

// A find-db kdbgen picks from the MIOpen tree may hold lines MIOpen never looks up (3-D keys with two
// padding values: MIOpen 3.3.0's gfx906_64 has 42; ProblemDescription::Serialize,
// src/conv/problem_description.cpp:188-237, never writes one): those are skipped with a warning and
// counted in plan --json. The same file given with --find-db is the user's input and is refused.
TEST(Cli, TreeFindDbSkipsKeysMIOpenNeverFormsGivenFindDbRefusesThem) {
    test::TempDir dir;
    fs::create_directories(dir / "tree" / "src" / "kernels");
    std::ofstream(dir / "tree" / "CMakeLists.txt") << "project(MIOpen)\nrocm_setup_version(VERSION 3.3.0)\n";
    const std::string lines =
        "64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F=GemmFwd1x1_0_1:0.08,128,miopenConvolutionFwdAlgoGEMM\n"
        "1024-14-14-4-1x1x1-2048-7-7-2-4-0x0-2x2x2-1x1x1-0-NCHW-FP32-F=GemmFwdRest:15.3,401408,"
        "miopenConvolutionFwdAlgoGEMM\n"
        "1024-14-14-4-1x1x1-256-14-14-4-4-0x0-1x1x1-1x1x1-0-NCHW-FP32-B=GemmBwdRest:0.17,0,"
        "miopenConvolutionBwdDataAlgoGEMM\n";
    std::ofstream(dir / "tree" / "src" / "kernels" / "gfx906_60.HIP.fdb.txt") << lines;
    const auto tree = run_kdbgen({"plan", "--miopen-src", (dir / "tree").string(), "--targets", "gfx906_60", "--json"});
    ASSERT_EQ(tree.exit_code, 0) << tree.output;
    EXPECT_NE(tree.output.find("warning: " + (dir / "tree" / "src" / "kernels" / "gfx906_60.HIP.fdb.txt").string() +
                               ": skipped 2 line(s)"),
              std::string::npos)
        << tree.output;
    const auto json = nlohmann::json::parse(tree.output.substr(tree.output.find('{')));
    const auto& unreadable = json["coverage"]["gfx906_60.kdb"]["unreadable_lines"];
    EXPECT_EQ(unreadable["count"], 2) << unreadable;
    EXPECT_EQ(unreadable["first"], "gfx906_60.HIP.fdb.txt:2") << unreadable;
    EXPECT_EQ(json["coverage"]["gfx906_60.kdb"]["lines"]["counted"], 1) << "the readable line is planned";

    std::ofstream(dir / "gfx906_60.HIP.fdb.txt") << lines;
    const auto given = run_kdbgen({"plan", "--miopen-src", (dir / "tree").string(), "--targets", "gfx906_60",
                                   "--find-db", (dir / "gfx906_60.HIP.fdb.txt").string(), "--json"});
    EXPECT_EQ(given.exit_code, 2) << given.output;
    EXPECT_NE(given.output.find("gfx906_60.HIP.fdb.txt:2:"), std::string::npos) << given.output;
    EXPECT_NE(given.output.find("padding '0x0'"), std::string::npos) << given.output;
}

// With a MIOpen tree: ResNet-50 FP32 training kdbs for gfx1030 and gfx906, verified.
TEST(CliWithTree, ResNet50TrainingKdb) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    test::TempDir dir;
    const auto run = run_kdbgen({"build", "--miopen-src", src, "--targets", "gfx1030_36,gfx906_60", "--network",
                                 (test::source_dir() / "configs/networks/resnet50.toml").string(), "--batch", "32",
                                 "--data-types", "FP32", "--modes", "training", "-o", (dir / "out").string(),
                                 "--cache-dir", (dir / "cache").string(), "--json"});
    // Every planned kernel builds, conv1x1u.s included (the assembler
    // compatibility overlay, src/compile/asm_compat.cpp).
    ASSERT_EQ(run.exit_code, 0) << run.output.substr(0, 4000);
    const auto json = nlohmann::json::parse(run.output.substr(run.output.find('{')));
    for (const auto& target : json["targets"]) EXPECT_TRUE(target["failed"].empty()) << target["failed"].dump();
    EXPECT_GT(json["targets"][0]["records"].get<int>(), 10);
    EXPECT_GT(json["targets"][1]["records"].get<int>(), 5);
    const auto verify = run_kdbgen({"verify", (dir / "out/gfx1030_36.kdb").string(), (dir / "out/gfx906_60.kdb").string()});
    EXPECT_EQ(verify.exit_code, 0) << verify.output;
    // The kdbs hold the activation and pooling kernels too.
    const auto inspect = run_kdbgen({"inspect", (dir / "out/gfx906_60.kdb").string()});
    EXPECT_NE(inspect.output.find("MIOpenNeuron.cl.o"), std::string::npos) << inspect.output.substr(0, 2000);
    EXPECT_NE(inspect.output.find("MIOpenPooling.cl.o"), std::string::npos);
}

// `plan` per network and target: convolution kernels, other primitives' kernels, and what is not covered.
TEST(CliWithTree, PlanCountsKernelsPerNetworkAndKind) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const auto run = run_kdbgen({"plan", "--miopen-src", src, "--targets", "gfx1030_36,gfx906_60", "--network",
                                 (test::source_dir() / "configs/networks/resnet50.toml").string(), "--network",
                                 (test::source_dir() / "configs/networks/vgg16.toml").string(), "--batch", "32",
                                 "--modes", "training", "--solvers", "applicable", "--json"});
    ASSERT_EQ(run.exit_code, 0) << run.output.substr(0, 2000);
    const auto json = nlohmann::json::parse(run.output);
    for (const char* network : {"resnet50.toml", "vgg16.toml"})
        for (const char* kdb : {"gfx1030_36.kdb", "gfx906_60.kdb"}) {
            const auto& t = json["networks"][network][kdb];
            EXPECT_GT(t["conv_kernels"].get<long>(), 0) << network << " " << kdb;
            // ReLU forward and backward, max pooling forward: at least three other kernels.
            EXPECT_GE(t["other_kernels"].get<long>(), 3) << network << " " << kdb;
            EXPECT_GT(t["kernels_by_kind"]["activation"].get<long>(), 0);
            EXPECT_GT(t["kernels_by_kind"]["pooling"].get<long>(), 0);
            if (std::string(network) == "resnet50.toml") {
                EXPECT_GT(t["kernels_by_kind"]["batchnorm"].get<long>(), 0);
            }
            EXPECT_EQ(t["not_covered"].get<long>(), 0) << network << " " << kdb << " " << t.dump();
        }
}

// A packager's command: an architecture list and nothing else. Every one of them plans from the
// built-in corpus (the find-dbs of the tree and the zoo), those without any find-db of their own
// (gfx1100, xnack+ MI200) included; with --corpus off such a target has nothing to plan.
TEST(CliWithTree, ArchitectureListAloneBuildsFromTheCorpus) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    test::TempDir dir;
    const auto run = run_kdbgen({"build", "-n", "--json", "--miopen-src", src, "--targets", "gfx1100,gfx90a:xnack+",
                                 "-o", (dir / "out").string(), "--cache-dir", (dir / "cache").string()});
    ASSERT_EQ(run.exit_code, 0) << run.output.substr(0, 4000);
    const auto json = nlohmann::json::parse(run.output.substr(run.output.find('{')));
    std::map<std::string, std::set<std::string>> files;  // target -> kernel files
    for (const auto& compile : json["compiles"]) {
        const std::string kernel = compile["kernel"];
        const auto for_at = kernel.find(" for "), bracket = kernel.find(" [");
        files[kernel.substr(for_at + 5, bracket - for_at - 5)].insert(kernel.substr(0, for_at));
    }
    for (const char* target : {"gfx1100", "gfx90a:xnack+"}) {
        SCOPED_TRACE(target);
        const auto& f = files[target];
        EXPECT_TRUE(f.count("naive_conv.cpp")) << "the no-record path's naive convolutions";
        EXPECT_TRUE(f.count("MIOpenBatchNormFwdTrainSpatial.cl")) << "the zoo's batch norm";
        EXPECT_TRUE(f.count("MIOpenIm2d2Col.cl")) << "GemmFwdRest's im2col";
    }
    // RDNA3's own Winograd kernel, which only the no-record path compiles on a gfx1100.
    EXPECT_TRUE(files["gfx1100"].count("Conv_Winograd_Fury_v2_4_1_fp16_fp16acc_f2x3_c32_stride1.s") ||
                files["gfx1100"].count("Conv_Winograd_Fury_v2_4_1_fp16_fp16acc_f2x3_c16_stride1.s"));
    const auto off = run_kdbgen({"build", "-n", "--miopen-src", src, "--targets", "gfx1100", "--corpus", "off", "-o",
                                 (dir / "out2").string(), "--cache-dir", (dir / "cache").string()});
    EXPECT_EQ(off.exit_code, 2) << off.output;
    EXPECT_NE(off.output.find("no problems given and no find-db for gfx1100"), std::string::npos) << off.output;
}

// plan --json's per-kdb summary counts problems by where they came from and counts as served
// only what the kdb holds kernels for.
TEST(CliWithTree, PlanSummaryCountsWhatTheKdbServes) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const auto run = run_kdbgen({"plan", "--json", "--miopen-src", src, "--targets", "gfx1100_48", "--network",
                                 (test::source_dir() / "configs/networks/resnet18.toml").string(), "--batch", "8",
                                 "--data-types", "FP32", "--modes", "training"});
    ASSERT_EQ(run.exit_code, 0) << run.output.substr(0, 4000);
    const auto json = nlohmann::json::parse(run.output.substr(run.output.find('{')));
    const auto& summary = json["coverage"]["gfx1100_48.kdb"]["summary"];
    // 11 forward, 10 backward-data, 11 backward-weights problems (NetworkZoo counts them), none
    // with a find-db line on a gfx1100: all through the no-record path, all served.
    EXPECT_EQ(summary["no_record_path"]["given"]["problems"], 32) << summary.dump();
    EXPECT_EQ(summary["no_record_path"]["given"]["served"], 32) << summary.dump();
    EXPECT_GT(summary["primitives"]["given"]["by_kind"]["batchnorm"]["served"].get<int>(), 0) << summary.dump();
    EXPECT_FALSE(summary.contains("find_db_lines")) << "a gfx1100 reads no find-db";
}
