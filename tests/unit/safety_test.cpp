// Output safety (issue #17) and complete readers (issue #16): every numbered
// defect of #17 has a test here named D<N>_..., each of which failed before
// its fix. The fault suite (random SIGKILL/SIGINT trials) is FaultSuite.*.
#include "kdbgen/cache.hpp"
#include "kdbgen/compile.hpp"
#include "kdbgen/kdb.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "perf_db_fixture.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <algorithm>
#include <map>
#include <random>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>

using namespace kdbgen;
using test::run_kdbgen;

namespace {

KernelBuild fill_build(const std::string& target, const fs::path& kernels = test::kernels_dir()) {
    KernelBuild build;
    build.source = kernels / "kdbgen_fill.s";
    build.kernel_file = "kdbgen_fill.s";
    build.options = "-Wa,-defsym,kdbgen_fill_value=1";
    build.target = parse_target(target);
    build.kernels = {"KdbgenFill"};
    return build;
}

KernelBuild tensor_op_build(const std::string& target) {
    KernelBuild build;
    build.source = test::kernels_dir() / "kdbgen_tensor_op.cl";
    build.kernel_file = "kdbgen_tensor_op.cl";
    build.options = "-DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_BFP16=0 -DKDBGEN_TENSOR_OP=0 -DMLO_GRP_SZ0=256";
    build.target = parse_target(target);
    build.kernels = {"KdbgenTensorOp"};
    return build;
}

}  // namespace

// --- 7: overlays and device libraries are verified before reuse, private, and in the key.

TEST(Safety, D7_SynthesizedDeviceLibraryIsVerifiedBeforeReuse) {
    test::TempDir work;
    ToolchainOptions options;
    options.work_dir = work.path();
    const Toolchain first = discover_toolchain(options);
    ASSERT_FALSE(first.synthesized_libs.empty()) << "the packaged device libraries lack no processor here";
    const auto library = first.device_libs_overlay / first.synthesized_libs.front();
    ASSERT_TRUE(fs::exists(library));
    const Bytes good = read_file(library);
    // A truncated library (a full disk, a killed run) is made again, not linked in.
    fs::resize_file(library, 3);
    ToolchainOptions again = options;
    const Toolchain second = discover_toolchain(again);
    Target target = parse_target("gfx1030_36");
    for (const auto& p : processor_table())
        if (fmt::format("oclc_isa_version_{}.bc", p.name.substr(3)) == first.synthesized_libs.front()) target.processor = &p;
    std::string why;
    EXPECT_TRUE(ensure_isa_library(second, target, &why)) << why;
    EXPECT_EQ(read_file(library), good) << "the truncated library was reused";
}

TEST(Safety, D7_NoCacheWorkFolderIsPrivateAndRemoved) {
    fs::path work;
    {
        const Toolchain tc = discover_toolchain(ToolchainOptions{});
        work = tc.work_dir;
        EXPECT_NE(work, fs::temp_directory_path() / "kdbgen-toolchain") << "a fixed name in the shared temp folder";
        struct stat st {};
        ASSERT_EQ(::lstat(work.c_str(), &st), 0);
        EXPECT_TRUE(S_ISDIR(st.st_mode));
        EXPECT_EQ(st.st_mode & 0077, 0u) << "readable or writable by others";
    }
    EXPECT_FALSE(fs::exists(work)) << "the private work folder is left behind";
}

TEST(SafetyWithTree, D7_EditedAssemblerOverlayIsRewrittenAndInTheKey) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    const fs::path kernels = fs::path(src) / "src" / "kernels";
    test::TempDir work, copy;
    // A copy of the kernel folder has the same overlay, reached afresh.
    fs::create_directories(copy / "k");
    for (const auto& entry : fs::directory_iterator(kernels))
        if (entry.path().extension() == ".inc" || entry.path().extension() == ".s")
            fs::copy_file(entry.path(), copy / "k" / entry.path().filename());
    const auto overlay = assembler_compat_overlay(kernels, work.path());
    ASSERT_TRUE(overlay);
    const std::string good = read_text_file(*overlay / "conv_common.inc");
    std::ofstream(*overlay / "conv_common.inc", std::ios::trunc) << ".error \"planted\"\n";
    const auto again = assembler_compat_overlay(copy / "k", work.path());
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *overlay);
    EXPECT_EQ(read_text_file(*again / "conv_common.inc"), good) << "an edited overlay file is assembled in";
    EXPECT_FALSE(assembler_compat_identity(kernels, work.path()).empty()) << "the overlay is not in the cache key";
}

// --- 10: cache keys do not depend on where the cache is or how its path is spelled.

TEST(Safety, D10_CacheKeyDoesNotDependOnTheCachePath) {
    test::TempDir a, b;
    ToolchainOptions one, two;
    one.work_dir = a / "cache" / "toolchain";
    two.work_dir = b / "elsewhere" / ".." / "moved" / "toolchain";
    const Compiler first(discover_toolchain(one), nullptr);
    const Compiler second(discover_toolchain(two), nullptr);
    for (const auto& build : {tensor_op_build("gfx1030_36"), fill_build("gfx90a:sramecc+:xnack-_110")})
        EXPECT_EQ(first.cache_key(build), second.cache_key(build)) << build.describe();
}

// --- 13: the printed command of a failed compile is shell-quoted.

TEST(Safety, D13_PrintedCommandIsShellQuoted) {
    test::TempDir dir;
    const std::vector<std::string> argv{"/bin/printf", "%s\\n", "it's", "a;touch " + (dir / "owned").string(),
                                        "$(touch x)", "`y`", "back\\slash", "", "new\nline", "-DX=1"};
    const auto line = shell_quote(argv);
    const auto run = run_process({"/bin/sh", "-c", line});
    EXPECT_FALSE(fs::exists(dir / "owned")) << line;
    EXPECT_EQ(run.output, "it's\na;touch " + (dir / "owned").string() + "\n$(touch x)\n`y`\nback\\slash\n\nnew\nline\n-DX=1\n")
        << line;
    EXPECT_EQ(shell_quote({"clang", "-DX=1", "-o", "/tmp/a.o"}), "clang -DX=1 -o /tmp/a.o");
}

// --- 2 (and #16): every bzip2 stream is read; trailing garbage and empty files are errors.

namespace {

void bzip2_to(const fs::path& out, const std::string& text) {
    const fs::path plain = out.string() + ".plain";
    std::ofstream(plain, std::ios::binary) << text;
    const auto run = run_process({"/bin/sh", "-c", "bzip2 -c '" + plain.string() + "' > '" + out.string() + "'"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    fs::remove(plain);
}

void append_file(const fs::path& to, const fs::path& from) {
    const Bytes data = read_file(from);
    std::ofstream(to, std::ios::binary | std::ios::app).write(data.data(), static_cast<std::streamsize>(data.size()));
}

}  // namespace

TEST(Safety, D2_EveryStreamOfAMultiStreamBz2IsRead) {
    test::TempDir dir;
    bzip2_to(dir / "a.bz2", "first half\n");
    bzip2_to(dir / "b.bz2", "second half\n");
    fs::copy_file(dir / "a.bz2", dir / "ab.txt.bz2");
    append_file(dir / "ab.txt.bz2", dir / "b.bz2");  // as `cat a.bz2 b.bz2` and pbzip2 write
    EXPECT_EQ(read_text_maybe_bz2(dir / "ab.txt.bz2"), "first half\nsecond half\n");
}

TEST(SafetyWithTree, D2_RealFindDbSplitIntoTwoStreamsGivesEveryProblem) {
    const auto fdb = test::shared_db_dir() / "gfx1030_36.HIP.fdb.txt.bz2";
    if (!fs::exists(fdb)) GTEST_SKIP() << "no shared find-db";
    test::TempDir dir;
    const std::string text = read_text_maybe_bz2(fdb);
    const auto half = text.find('\n', text.size() / 2) + 1;
    bzip2_to(dir / "1.bz2", text.substr(0, half));
    bzip2_to(dir / "2.bz2", text.substr(half));
    const auto split = dir / "gfx1030_36.HIP.fdb.txt.bz2";
    fs::copy_file(dir / "1.bz2", split);
    append_file(split, dir / "2.bz2");
    const auto whole = run_kdbgen({"plan", "--find-db", fdb.string(), "--json"});
    const auto two = run_kdbgen({"plan", "--find-db", split.string(), "--json"});
    ASSERT_EQ(whole.exit_code, 0) << whole.output.substr(0, 500);
    ASSERT_EQ(two.exit_code, 0) << two.output.substr(0, 500);
    const auto total = [](const std::string& out) { return nlohmann::json::parse(out.substr(out.find('{')))["total"].get<long>(); };
    EXPECT_EQ(total(two.output), total(whole.output));
}

TEST(Safety, D2_TrailingGarbageAfterABz2StreamIsAnError) {
    test::TempDir dir;
    bzip2_to(dir / "x.txt.bz2", "text\n");
    std::ofstream(dir / "x.txt.bz2", std::ios::binary | std::ios::app) << "garbage after the stream";
    const auto error = test::input_error_of([&] { read_text_maybe_bz2(dir / "x.txt.bz2"); });
    EXPECT_NE(error.find("x.txt.bz2"), std::string::npos) << error;
    EXPECT_NE(error.find("trailing garbage"), std::string::npos) << error;
}

TEST(Safety, D2_EmptyBz2AndEmptyFindDbAreErrorsNamingTheFile) {
    test::TempDir dir;
    bzip2_to(dir / "gfx1030_36.HIP.fdb.txt.bz2", "");
    std::ofstream(dir / "empty.HIP.fdb.txt") << "";
    for (const auto& file : {dir / "gfx1030_36.HIP.fdb.txt.bz2", dir / "empty.HIP.fdb.txt"}) {
        const auto run = run_kdbgen({"plan", "--find-db", file.string()});
        EXPECT_EQ(run.exit_code, 2) << run.output;
        EXPECT_NE(run.output.find(file.filename().string()), std::string::npos) << run.output;
    }
}

// --- 11: bounded allocation and linear duplicate merging.

TEST(Safety, D11_UncompressedSizeIsBoundedByWhatTheBlobHolds) {
    const std::string zeros(1 << 20, '\0');
    const auto blob = bz2_compress_like_miopen(std::span<const char>(zeros.data(), zeros.size()));
    ASSERT_TRUE(blob);
    StoredRow row;
    row.key = {"x.s.o", "-mcpu=gfx1030"};
    row.blob = *blob;
    row.hash = md5_hex(std::span<const char>(zeros.data(), zeros.size()));
    row.uncompressed_size = 8'000'000'000;  // a 32 KiB file that claims 8e9
    EXPECT_THROW(decode_row(row), std::runtime_error);
    // A claim under the limit costs only what the stream really holds.
    row.uncompressed_size = std::int64_t{512} << 20;
    rusage before {};
    getrusage(RUSAGE_SELF, &before);
    EXPECT_THROW(decode_row(row), std::runtime_error);
    rusage after {};
    getrusage(RUSAGE_SELF, &after);
    EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 200 * 1024) << "KiB more peak memory for a 1 MiB stream";
    row.uncompressed_size = static_cast<std::int64_t>(zeros.size());
    EXPECT_EQ(decode_row(row).size(), zeros.size());
}

TEST(Safety, D11_DuplicateDriverLinesMergeInLinearTime) {
    test::TempDir dir;
    {
        std::ofstream log(dir / "dup.log");
        for (int i = 0; i < 100000; ++i)
            log << "MIOpenDriver conv -n 1 -c 64 -H 56 -W 56 -k 64 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1 -F 1 -t 1\n";
    }
    const auto start = std::chrono::steady_clock::now();
    const auto run = run_kdbgen({"plan", "--driver-log", (dir / "dup.log").string(), "--json"});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(run.exit_code, 0) << run.output.substr(0, 400);
#if defined(__SANITIZE_ADDRESS__)
    const double bound = 48.0;  // the ASan build: 24.4 s measured under load; 68ac86e unsanitized took 83 s
#else
    const double bound = 12.0;
#endif
    EXPECT_LT(seconds, bound) << "100k duplicate lines (quadratic merging took 20 s; linear 2-6 s on a loaded 2-core machine)";
}

// --- Helpers for the CLI tests below: a small manifest of kdbgen's own
// kernels (fast with a warm cache), old kdbs, runs with a changed environment.

namespace {

const std::string kTargets = "gfx1030_36,gfx90a:sramecc+:xnack-_110";
const std::vector<std::string> kKdbs = {"gfx1030_36.kdb", "gfx90a6e.kdb"};

// A manifest with `variants` option strings of the fill kernel (each a key).
fs::path fill_manifest(const fs::path& dir, int first, int count) {
    const auto path = dir / fmt::format("fill-{}-{}.toml", first, count);
    std::ofstream out(path);
    out << "[[kernel]]\nfile = \"kdbgen_fill.s\"\nsymbols = [\"KdbgenFill\"]\noptions = [";
    for (int i = first; i < first + count; ++i) out << (i > first ? ", " : "") << "\"-Wa,-defsym,kdbgen_fill_value=" << i << "\"";
    out << "]\n";
    return path;
}

std::vector<std::string> build_args(const fs::path& manifest, const fs::path& out, const fs::path& cache) {
    return {"build", "--targets", kTargets, "-o", out.string(), "--manifest", manifest.string(), "--kernels-dir",
            test::kernels_dir().string(), "--cache-dir", cache.string(), "-q", "-j", "2"};
}

ProcessResult run_with_env(const std::vector<std::string>& env, const std::vector<std::string>& args) {
    std::vector<std::string> argv{"/usr/bin/env"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.push_back(test::kdbgen_binary());
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv);
}

std::map<std::string, Bytes> kdb_bytes(const fs::path& dir) {
    std::map<std::string, Bytes> out;
    for (const auto& name : kKdbs)
        if (fs::exists(dir / name)) out[name] = read_file(dir / name);
    return out;
}

std::vector<std::string> non_kdb_files(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const auto name = entry.path().filename().string();
        if (name.ends_with(".kdb")) continue;
        out.push_back(name);
    }
    return out;
}

// A fake LLVM whose clang answers --version and fails every compile, as a
// full TMPDIR or a broken toolchain makes every compile fail.
fs::path failing_llvm(const fs::path& dir) {
    const auto bin = dir / "llvm" / "bin";
    fs::create_directories(bin);
    for (const char* tool : {"clang", "ld.lld", "llvm-as"}) {
        std::ofstream(bin / tool) << "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'clang version 19.0.0 (fake)'; exit 0; }\n"
                                     "echo 'error: No space left on device' >&2\nexit 1\n";
        fs::permissions(bin / tool, fs::perms::owner_all);
    }
    return dir / "llvm";
}

}  // namespace

// --- 1: an input that yields no problem is exit 2 naming it; a plan with nothing replaces no kdb.

TEST(SafetyWithTree, D1_SourceThatYieldsNoProblemIsExitTwoNamingIt) {
    KDBGEN_REQUIRE_MIOPEN_TREE(src);
    test::TempDir dir;
    std::ofstream(dir / "empty.log") << "";
    std::ofstream(dir / "unrelated.log") << "hello\nthis log holds no driver command at all\n";
    std::ofstream(dir / "net.toml") << "[network]\nname = \"n\"\n[[layer]]\nkind = \"conv\"\nin = [1, 8, 8, 8]\nout = 8\nkernel = 3\n";
    for (const auto& log : {dir / "empty.log", dir / "unrelated.log"}) {
        const auto run = run_kdbgen({"build", "--targets", "gfx1030_36", "--miopen-src", src, "--driver-log", log.string(),
                                     "-o", (dir / "out").string(), "--no-cache", "-n"});
        EXPECT_EQ(run.exit_code, 2) << run.output.substr(0, 600);
        EXPECT_NE(run.output.find(log.filename().string()), std::string::npos) << run.output.substr(0, 600);
        EXPECT_NE(run.output.find("yields no problem"), std::string::npos) << run.output.substr(0, 600);
    }
    EXPECT_FALSE(fs::exists(dir / "out")) << "output folder created for a rejected input";
}

TEST(Safety, D1_PlanWithNothingForAKdbReplacesNoKdb) {
    test::TempDir dir;
    const auto out = dir / "out";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), out, dir / "cache")).exit_code, 0);
    const auto old = kdb_bytes(out);
    std::ofstream(dir / "gfx9only.toml") << "[[kernel]]\nfile = \"kdbgen_fill.s\"\nsymbols = [\"KdbgenFill\"]\n"
                                            "options = [\"\"]\ntargets = [\"gfx9\"]\n";
    auto args = build_args(dir / "gfx9only.toml", out, dir / "cache");
    const auto run = run_kdbgen(args);
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("gfx1030_36.kdb"), std::string::npos) << run.output;
    EXPECT_EQ(kdb_bytes(out), old) << "a 0-record kdb was written over the old one";
}

// --- 3: a perf-db is read whole and every row is checked.

TEST(SafetyWithTree, D3_PerfDbWithNullParamsOrDamagedPageIsAnErrorNamingIt) {
    test::TempDir dir;
    const auto db = dir / "gfx1030_36.db";
    const auto made = run_process(
        {"/usr/bin/sqlite3", db.string(),
         "CREATE TABLE config (id INTEGER PRIMARY KEY, layout TEXT, data_type TEXT, direction TEXT, spatial_dim INT, "
         "in_channels INT, in_h INT, in_w INT, in_d INT, fil_h INT, fil_w INT, fil_d INT, out_channels INT, batchsize INT, "
         "pad_h INT, pad_w INT, pad_d INT, conv_stride_h INT, conv_stride_w INT, conv_stride_d INT, dilation_h INT, "
         "dilation_w INT, dilation_d INT, bias INT, group_count INT);"
         "CREATE TABLE perf_db (id INTEGER PRIMARY KEY, solver TEXT, config INT, params TEXT);"
         "INSERT INTO config VALUES (1,'NCHW','FP32','F',2,64,56,56,1,3,3,1,64,1,1,1,0,1,1,0,1,1,0,0,1);"
         "INSERT INTO perf_db VALUES (1,'ConvOclDirectFwd',1,NULL);"});
    ASSERT_EQ(made.exit_code, 0) << made.output;
    const auto error = test::input_error_of([&] { PerfDb perf(db); });
    EXPECT_NE(error.find("gfx1030_36.db"), std::string::npos) << error;
    EXPECT_NE(error.find("params is NULL"), std::string::npos) << error;

    const auto real = test::shared_db_dir() / "gfx1030_36.db.bz2";
    if (!fs::exists(real)) GTEST_SKIP() << "no shared perf-db";
    const Bytes plain = bz2_decompress_stream(read_file(real));
    Bytes damaged = plain;
    ASSERT_GT(damaged.size(), 64u * 4096);
    std::fill(damaged.begin() + 40 * 4096, damaged.begin() + 41 * 4096, '\xa5');  // one page of garbage
    write_file_atomic(dir / "damaged.db", damaged);
    const auto damaged_error = test::input_error_of([&] { PerfDb perf(dir / "damaged.db"); });
    EXPECT_NE(damaged_error.find("damaged.db"), std::string::npos) << damaged_error;
    write_file_atomic(dir / "whole.db", plain);
    EXPECT_EQ(test::input_error_of([&] { PerfDb perf(dir / "whole.db"); }), "no error");
}

// --- 4: two concurrent --update runs into one folder lose no key.

TEST(Safety, D4_ConcurrentUpdatesLoseNoKey) {
    test::TempDir dir;
    const auto cache = dir / "cache";
    // Warm the cache for both halves so the runs race in their write phase.
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 100, 24), dir / "warm", cache)).exit_code, 0);
    for (int round = 0; round < 4; ++round) {
        const auto out = dir / fmt::format("out{}", round);
        ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 100, 1), out, cache)).exit_code, 0);
        std::vector<pid_t> pids;
        for (int half = 0; half < 2; ++half) {
            auto args = build_args(fill_manifest(dir.path(), 101 + 12 * half, 12 - half), out, cache);
            args.push_back("--update");
            pids.push_back(test::start_kdbgen(args));
        }
        for (const pid_t pid : pids) {
            int status = 0;
            ::waitpid(pid, &status, 0);
            EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
        for (const auto& name : kKdbs) EXPECT_EQ(read_kdb(out / name).size(), 24u) << name << " round " << round;
    }
}

// --- 5: an environment failure (every compile fails) replaces no kdb.

TEST(Safety, D5_BuildThatCompiledNothingReplacesNoKdb) {
    test::TempDir dir;
    const auto out = dir / "out";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 3), out, dir / "cache")).exit_code, 0);
    const auto old = kdb_bytes(out);
    auto args = build_args(fill_manifest(dir.path(), 1, 3), out, dir / "cache2");
    args.insert(args.end(), {"--llvm-root", failing_llvm(dir.path()).string()});
    const auto run = run_kdbgen(args);
    // Every compile says "No space left on device": a TMPDIR failure, exit 2 since issue #25.
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("TMPDIR"), std::string::npos) << run.output;
    EXPECT_EQ(kdb_bytes(out), old) << "good kdbs replaced by empty ones";
    // --min-built: fewer than the threshold built replaces nothing either.
    std::ofstream(dir / "half.toml") << "[[kernel]]\nfile = \"kdbgen_fill.s\"\nsymbols = [\"KdbgenFill\"]\noptions = [\"\"]\n"
                                        "[[kernel]]\nfile = \"broken.cl\"\nsymbols = [\"Broken\"]\noptions = [\"\"]\n";
    fs::create_directories(dir / "k");
    fs::copy_file(test::kernels_dir() / "kdbgen_fill.s", dir / "k" / "kdbgen_fill.s");
    fs::copy_file(test::source_dir() / "tests/data/broken.cl", dir / "k" / "broken.cl");
    const auto half = run_kdbgen({"build", "--targets", kTargets, "-o", out.string(), "--manifest", (dir / "half.toml").string(),
                                  "--kernels-dir", (dir / "k").string(), "--no-cache", "-q", "--min-built", "90%"});
    EXPECT_EQ(half.exit_code, 1) << half.output;
    EXPECT_NE(half.output.find("--min-built"), std::string::npos) << half.output;
    EXPECT_EQ(kdb_bytes(out), old);
}

// A full TMPDIR and a full output disk, for real: a 2 MiB tmpfs mounted for the
// test (root only; elsewhere skipped, saying why) is TMPDIR for builds with a
// fresh cache and with --no-cache, then the output folder, filled so that 0 to
// 64 KiB are free. Every run fails, names what is full, leaves the old kdbs
// byte-identical and no temporary behind (results: docs/safety.md).

namespace {

// A tmpfs of `size` mounted at a fresh folder, unmounted (lazily) at the end.
class SmallTmpfs {
public:
    explicit SmallTmpfs(const fs::path& at, const char* size) : path_(at) {
        fs::create_directories(path_);
        const std::string options = std::string("size=") + size + ",mode=1777";
        if (::mount("tmpfs", path_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0)
            why_ = fmt::format("mount -t tmpfs -o size={} tmpfs {}: {}", size, path_.string(), std::strerror(errno));
    }
    ~SmallTmpfs() {
        if (why_.empty()) ::umount2(path_.c_str(), MNT_DETACH);
    }
    const std::string& why_not() const { return why_; }  // empty when mounted
    const fs::path& path() const { return path_; }
    // Fills the file system with one file until `leave` bytes are free.
    void fill_leaving(std::uintmax_t leave) const {
        const auto filler = path_ / "filler";
        fs::remove(filler);
        const auto free_now = fs::space(path_).available;
        std::ofstream out(filler, std::ios::binary);
        const std::string block(4096, 'f');
        for (std::uintmax_t written = 0; written + leave < free_now && out; written += block.size())
            out.write(block.data(), static_cast<std::streamsize>(std::min<std::uintmax_t>(block.size(), free_now - leave - written)));
    }
    std::vector<std::string> files() const {
        std::vector<std::string> out;
        for (const auto& entry : fs::recursive_directory_iterator(path_)) out.push_back(entry.path().lexically_relative(path_).string());
        std::sort(out.begin(), out.end());
        return out;
    }

private:
    fs::path path_;
    std::string why_;
};

}  // namespace

TEST(Safety, D5_FullTmpdirAndFullOutputDiskLeaveTheOldKdbs) {
    if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root (run as root to fill a disk for real)";
    test::TempDir dir;
    const SmallTmpfs disk(dir / "small", "2m");
    if (!disk.why_not().empty()) GTEST_SKIP() << "cannot mount a tmpfs here: " << disk.why_not();
    const auto out = dir / "out";
    const auto cache = dir / "cache";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 3), out, cache)).exit_code, 0);
    const auto old = kdb_bytes(out);
    ASSERT_EQ(old.size(), 2u);
    const auto manifest = fill_manifest(dir.path(), 10, 8);
    const std::string tmpdir = "TMPDIR=" + disk.path().string();

    // TMPDIR full: the run stops before planning, naming TMPDIR (issue #25: exit 2, not 1).
    disk.fill_leaving(0);
    const auto compiles = run_with_env({tmpdir}, build_args(manifest, out, dir / "fresh-cache"));
    EXPECT_EQ(compiles.exit_code, 2) << compiles.output;
    EXPECT_NE(compiles.output.find("TMPDIR " + disk.path().string()), std::string::npos) << compiles.output;
    EXPECT_EQ(kdb_bytes(out), old) << "TMPDIR full: good kdbs replaced";
    EXPECT_TRUE(non_kdb_files(out).empty()) << non_kdb_files(out).front();
    EXPECT_EQ(disk.files(), std::vector<std::string>{"filler"}) << "temporaries left in TMPDIR";
    // With --no-cache the private work folder's device-library overlay is the first write that fails.
    auto no_cache = build_args(manifest, out, cache);
    no_cache.erase(no_cache.begin() + 9, no_cache.begin() + 11);  // --cache-dir DIR
    no_cache.push_back("--no-cache");
    const auto toolchain = run_with_env({tmpdir}, no_cache);
    EXPECT_EQ(toolchain.exit_code, 2) << toolchain.output;
    EXPECT_NE(toolchain.output.find("TMPDIR " + disk.path().string()), std::string::npos) << toolchain.output;
    EXPECT_EQ(kdb_bytes(out), old) << "TMPDIR full (--no-cache): good kdbs replaced";
    EXPECT_TRUE(non_kdb_files(out).empty()) << non_kdb_files(out).front();
    EXPECT_EQ(disk.files(), std::vector<std::string>{"filler"}) << "temporaries left in TMPDIR";

    // The output disk full at different points of staging: before the first
    // record, within the first kdb, within the second, while completing, at
    // the commit journal (96 KiB free, measured), or not at all. A run
    // that fits writes the new kdbs (exit 0); one that does not is exit 2
    // naming the file, with every old kdb as it was; never a mix.
    ASSERT_EQ(run_kdbgen(build_args(manifest, dir / "expected", cache)).exit_code, 0);
    const auto expected = kdb_bytes(dir / "expected");
    const auto full_out = disk.path() / "out";
    std::vector<std::uintmax_t> refused;
    for (const std::uintmax_t free_kib : {0, 8, 24, 40, 64, 96, 128}) {
        fs::remove(disk.path() / "filler");
        fs::remove_all(full_out);
        fs::create_directories(full_out);
        for (const auto& [name, bytes] : old) write_file_atomic(full_out / name, bytes);
        disk.fill_leaving(free_kib * 1024);
        const auto run = run_kdbgen(build_args(manifest, full_out, cache));
        const auto what = fmt::format("output disk with {} KiB free", free_kib);
        EXPECT_TRUE(non_kdb_files(full_out).empty()) << what << ": left " << non_kdb_files(full_out).front();
        if (run.exit_code == 0) {
            EXPECT_EQ(kdb_bytes(full_out), expected) << what << ": exit 0 without the complete new kdbs";
            continue;
        }
        refused.push_back(free_kib);
        EXPECT_EQ(run.exit_code, 2) << what << ": " << run.output;
        EXPECT_TRUE(run.output.find("disk is full") != std::string::npos ||  // SQLite's words
                    run.output.find("No space left on device") != std::string::npos)
            << what << ": " << run.output;
        EXPECT_NE(run.output.find(full_out.string()), std::string::npos) << what << ": the file is not named: " << run.output;
        EXPECT_EQ(kdb_bytes(full_out), old) << what << ": good kdbs replaced";
    }
    // With nothing free nothing fits: the failure path ran at least there.
    ASSERT_FALSE(refused.empty());
    EXPECT_EQ(refused.front(), 0u);
    std::printf("full output disk: refused with %s KiB free\n",
                fmt::format("{}", fmt::join(refused, ", ")).c_str());
}

// --- 6: a multi-target write is all-or-nothing.

TEST(Safety, D6_SecondKdbFailingLeavesTheFirstUnchanged) {
    test::TempDir dir;
    const auto out = dir / "out";
    const auto cache = dir / "cache";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), out, cache)).exit_code, 0);
    const auto old = kdb_bytes(out);
    // A corrupt old kdb with --update.
    write_file_atomic(out / "gfx90a6e.kdb", test::bytes_of("SQLite format 3\0 not a database at all, truncated"));
    auto args = build_args(fill_manifest(dir.path(), 5, 2), out, cache);
    args.push_back("--update");
    const auto run = run_kdbgen(args);
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_EQ(read_file(out / "gfx1030_36.kdb"), old.at("gfx1030_36.kdb")) << "first kdb replaced before the second failed";
    EXPECT_TRUE(non_kdb_files(out).empty()) << non_kdb_files(out).front();
    // The second kdb's path is a folder.
    fs::remove(out / "gfx90a6e.kdb");
    fs::create_directories(out / "gfx90a6e.kdb");
    const auto folder = run_kdbgen(build_args(fill_manifest(dir.path(), 5, 2), out, cache));
    EXPECT_EQ(folder.exit_code, 2) << folder.output;
    EXPECT_EQ(read_file(out / "gfx1030_36.kdb"), old.at("gfx1030_36.kdb"));
}

TEST(Safety, D6_MergeWithOneBadShardLeavesEveryOldKdb) {
    test::TempDir dir;
    const auto cache = dir / "cache";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), dir / "s1", cache)).exit_code, 0);
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 3, 2), dir / "s2", cache)).exit_code, 0);
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 9, 1), dir / "out", cache)).exit_code, 0);
    const auto old = kdb_bytes(dir / "out");
    write_file_atomic(dir / "s2" / "gfx90a6e.kdb", test::bytes_of("not a kdb"));
    const auto run = run_kdbgen({"merge", (dir / "out").string(), (dir / "s1").string(), (dir / "s2").string()});
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_EQ(kdb_bytes(dir / "out"), old) << "one kdb of the folder merged before the bad shard was found";
}

TEST(Safety, D6_KillBetweenTheRenamesIsRolledForwardByTheNextRun) {
    test::TempDir dir;
    const auto out = dir / "out";
    const auto cache = dir / "cache";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), out, cache)).exit_code, 0);
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 3, 2), dir / "expected", cache)).exit_code, 0);
    const auto run = run_with_env({"KDBGEN_TEST_CRASH_IN_COMMIT=1"}, build_args(fill_manifest(dir.path(), 3, 2), out, cache));
    EXPECT_EQ(run.exit_code, -SIGKILL);
    EXPECT_TRUE(fs::exists(out / ".kdbgen-commit")) << "no commit journal";
    EXPECT_GT(recover_output_folder(out), 0u);
    EXPECT_EQ(kdb_bytes(out), kdb_bytes(dir / "expected")) << "the folder mixes old and new kdbs";
    EXPECT_TRUE(non_kdb_files(out).empty()) << non_kdb_files(out).front();
}

// A commit journal holds names of this folder's kdbgen files only: one someone planted, naming a path, a
// "../" or another file, is refused (exit 2, naming it) before anything is renamed or removed, on every path
// that recovers a folder (build, --update, merge into it, merge into it with it as a shard too).
TEST(Safety, D6_APlantedJournalRenamesAndRemovesNothing) {
    test::TempDir dir;
    const auto out = dir / "out";
    const auto cache = dir / "cache";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), out, cache)).exit_code, 0);
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), dir / "shard", cache)).exit_code, 0);
    fs::create_directories(dir / "v");
    const auto victim = dir / "v" / "victim";
    const std::vector<std::string> journals = {
        "x\tgfx1030_36.kdb\t" + victim.string() + "\n",                                  // an absolute backup
        ".gfx1030_36.kdb.kdbgen-stage.1.ab\t../v/victim\t-\n",                            // "../" as the kdb
        ".gfx1030_36.kdb.kdbgen-stage.1.ab\tgfx1030_36.kdb\t../v/victim\n",               // "../" as the backup
        "../v/victim\tgfx1030_36.kdb\t-\n",                                               // "../" as the stage
        ".other.kdb.kdbgen-stage.1.ab\tgfx1030_36.kdb\t-\n",                              // another kdb's stage
    };
    const std::vector<std::vector<std::string>> runs = {
        build_args(fill_manifest(dir.path(), 3, 2), out, cache),
        [&] {
            auto args = build_args(fill_manifest(dir.path(), 3, 2), out, cache);
            args.push_back("--update");
            return args;
        }(),
        {"merge", out.string(), (dir / "shard").string()},
        {"merge", out.string(), out.string(), (dir / "shard").string()},
    };
    for (const auto& journal : journals)
        for (const auto& args : runs) {
            write_file_atomic(victim, test::bytes_of("precious"));
            write_file_atomic(out / ".kdbgen-commit", test::bytes_of(journal));
            const auto old = kdb_bytes(out);
            const auto run = run_kdbgen(args);
            EXPECT_EQ(run.exit_code, 2) << args[0] << " with " << journal << run.output;
            EXPECT_NE(run.output.find(".kdbgen-commit"), std::string::npos) << run.output;
            EXPECT_EQ(read_text_file(victim), "precious") << args[0] << " with " << journal;
            EXPECT_EQ(kdb_bytes(out), old) << args[0] << " with " << journal;
        }
    fs::remove(out / ".kdbgen-commit");
    EXPECT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 3, 2), out, cache)).exit_code, 0);
}

// --- 8: signals are honoured in every phase; verify on a FIFO does not hang.

namespace {

// Whether process pid catches signal sig (its SigCgt mask in /proc), waiting up to 20 s.
bool wait_until_catching(pid_t pid, int sig) {
    for (int i = 0; i < 2000; ++i) {
        std::ifstream status(fmt::format("/proc/{}/status", pid));
        for (std::string line; std::getline(status, line);)
            if (line.starts_with("SigCgt:") && (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1) & 1)) return true;
        ::usleep(10'000);
    }
    return false;
}

}  // namespace

TEST(SafetyWithTree, D8_InterruptWhilePlanningExits130) {
    const auto fdb = test::shared_db_dir() / "gfx90a6e.HIP.fdb.txt.bz2";
    if (!fs::exists(fdb)) GTEST_SKIP() << "no shared find-db";
    test::TempDir dir;
    const pid_t pid = test::start_kdbgen({"plan", "--find-db", fdb.string(), "--json"});
    // kdbgen catches SIGINT first thing in main; a signal before that (a slow start:
    // an ASan build under load took more than 300 ms) kills it by the default action,
    // which is not the phase under test. So: wait until it catches SIGINT, then 300 ms.
    ASSERT_TRUE(wait_until_catching(pid, SIGINT)) << "kdbgen never installed a SIGINT handler";
    ::usleep(300'000);
    ::kill(pid, SIGINT);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
    EXPECT_EQ(WEXITSTATUS(status), 130) << "SIGINT while reading and planning is ignored";
}

TEST(Safety, D8_VerifyOnAFifoDoesNotHang) {
    test::TempDir dir;
    const auto fifo = dir / "gfx1030_36.kdb";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto start = std::chrono::steady_clock::now();
    // -k: a kdbgen blocked opening the FIFO with SIGTERM caught (68ac86e) is killed; the test fails, not hangs.
    const auto run = run_process({"/usr/bin/timeout", "-k", "5", "20", test::kdbgen_binary(), "verify", fifo.string()});
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
    EXPECT_EQ(run.exit_code, 1) << run.output;
    EXPECT_NE(run.output.find("not a regular file"), std::string::npos) << run.output;
}

// --- 9: merge and --update write only kdbs verify accepts.

TEST(Safety, D9_MergeOfMixedTargetsIsRefused) {
    test::TempDir dir;
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), dir / "a", dir / "cache")).exit_code, 0);
    fs::copy_file(dir / "a" / "gfx90a6e.kdb", dir / "other.kdb");  // a name that tells no target
    // The output folder exists, so that only the mixed targets can be the reason for a refusal.
    fs::create_directories(dir / "m");
    const auto run = run_kdbgen({"merge", (dir / "m" / "gfx1030_36.kdb").string(), (dir / "a" / "gfx1030_36.kdb").string(),
                                 (dir / "other.kdb").string()});
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("another target"), std::string::npos) << run.output;
    EXPECT_FALSE(fs::exists(dir / "m" / "gfx1030_36.kdb"));
    const auto unnamed = run_kdbgen({"merge", (dir / "m" / "x.kdb").string(), (dir / "other.kdb").string(),
                                     (dir / "a" / "gfx1030_36.kdb").string()});
    EXPECT_EQ(unnamed.exit_code, 2) << unnamed.output;
}

TEST(Safety, D9_UpdateDoesNotCarryABadOldRecord) {
    test::TempDir dir;
    const auto out = dir / "out";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), out, dir / "cache")).exit_code, 0);
    // A gfx90a record inside the gfx1030 kdb.
    const auto sql = run_process({"/usr/bin/sqlite3", (out / "gfx1030_36.kdb").string(),
                                  "ATTACH '" + (out / "gfx90a6e.kdb").string() + "' AS o; INSERT INTO kern_db(kernel_name, "
                                  "kernel_args, kernel_blob, kernel_hash, uncompressed_size) SELECT 'stray.s.o', kernel_args, "
                                  "kernel_blob, kernel_hash, uncompressed_size FROM o.kern_db LIMIT 1;"});
    ASSERT_EQ(sql.exit_code, 0) << sql.output;
    const auto old = kdb_bytes(out);
    auto args = build_args(fill_manifest(dir.path(), 5, 1), out, dir / "cache");
    args.push_back("--update");
    const auto run = run_kdbgen(args);
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("stray.s.o"), std::string::npos) << run.output;
    EXPECT_EQ(kdb_bytes(out), old);
}

// --- 10: cache clean touches only kdbgen's entries; sizes that overflow are rejected.

TEST(Safety, D10_CacheCleanTouchesOnlyKdbgenEntries) {
    test::TempDir dir;
    fs::create_directories(dir / "project" / "ab");
    std::ofstream(dir / "project" / "ab" / "mine.co") << "a user's file";
    std::ofstream(dir / "project" / "notes.md5") << "x";
    const auto key = std::string(64, 'a');
    BuildCache cache(dir / "project", 0);
    cache.store(key, test::bytes_of("code object"));
    const auto run = run_kdbgen({"cache", "clean", "--cache-dir", (dir / "project").string()});
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_TRUE(fs::exists(dir / "project" / "ab" / "mine.co"));
    EXPECT_TRUE(fs::exists(dir / "project" / "notes.md5"));
    EXPECT_FALSE(fs::exists(dir / "project" / "aa" / (std::string(62, 'a') + ".co"))) << "kdbgen's entry kept";
}

TEST(Safety, D10_MaxSizeThatOverflowsIsRejected) {
    test::TempDir dir;
    BuildCache cache(dir / "c", 0);
    cache.store(std::string(64, 'b'), test::bytes_of("code object"));
    const auto run = run_kdbgen({"cache", "clean", "--cache-dir", (dir / "c").string(), "--max-size", "16777216T"});
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_TRUE(fs::exists(dir / "c" / "bb" / (std::string(62, 'b') + ".co"))) << "the cache was wiped";
}

// --- 12: exit 2 naming the file; no leftovers.

TEST(Safety, D12_FolderGivenAsAnInputIsExitTwoNamingIt) {
    test::TempDir dir;
    fs::create_directories(dir / "adir");
    const auto d = (dir / "adir").string();
    for (const auto& args : std::vector<std::vector<std::string>>{{"plan", "--driver-log", d},
                                                                   {"plan", "--find-db", d},
                                                                   {"plan", "--network", d},
                                                                   {"plan", "--onnx", d},
                                                                   {"inspect", d}}) {
        const auto run = run_kdbgen(args);
        EXPECT_EQ(run.exit_code, 2) << args[1] << ": " << run.output;
        EXPECT_NE(run.output.find("adir"), std::string::npos) << args[1] << ": " << run.output;
    }
}

TEST(Safety, D12_NonUtf8TextAndACacheDirThatIsAFile) {
    test::TempDir dir;
    const auto log = dir / "caf\xe9.log";  // a Latin-1 file name
    std::ofstream(log) << "MIOpenDriver conv -n 1 -c 8 -H 8 -W 8 -k 8 -y 3 -x 3 -p 1 -q 1 -u 1 -v 1 -l 1 -j 1 -g 1 -F 1 -t 1\n";
    const auto run = run_kdbgen({"plan", "--driver-log", log.string(), "--json"});
    EXPECT_EQ(run.exit_code, 0) << run.output;
    std::ofstream(dir / "cachefile") << "x";
    const auto cache = run_kdbgen({"build", "--targets", "gfx1030_36", "-o", (dir / "out").string(), "--cache-dir",
                                   (dir / "cachefile").string()});
    EXPECT_EQ(cache.exit_code, 2) << cache.output;
    EXPECT_NE(cache.output.find("cachefile"), std::string::npos) << cache.output;
}

TEST(Safety, D12_StaleTemporariesOfDeadRunsAreCleaned) {
    test::TempDir dir;
    const auto out = dir / "out";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 1), out, dir / "cache")).exit_code, 0);
    // pid 4194304 is above Linux's pid_max: no such process.
    std::ofstream(out / ".gfx1030_36.kdb.tmp.4194304.0.1f2e") << "left by kill -9";
    std::ofstream(out / ".gfx90a6e.kdb.kdbgen-spool.4194304.ab12") << "left by kill -9";
    std::ofstream(out / "notes.txt") << "the user's";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 1), out, dir / "cache")).exit_code, 0);
    EXPECT_EQ(non_kdb_files(out), std::vector<std::string>{"notes.txt"});
}

// --- 13: manifest kernel paths stay inside --kernels-dir.

TEST(Safety, D13_ManifestKernelOutsideKernelsDirIsRefused) {
    test::TempDir dir;
    fs::create_directories(dir / "k");
    fs::copy_file(test::kernels_dir() / "kdbgen_fill.s", dir / "outside.s");
    std::ofstream(dir / "m.toml") << "[[kernel]]\nfile = \"../outside.s\"\nsymbols = [\"KdbgenFill\"]\noptions = [\"\"]\n";
    const auto run = run_kdbgen({"build", "--targets", "gfx1030_36", "-o", (dir / "out").string(), "--manifest",
                                 (dir / "m.toml").string(), "--kernels-dir", (dir / "k").string(), "--no-cache", "-n"});
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("outside --kernels-dir"), std::string::npos) << run.output;
}

// --- #16: a kdb MIOpen wrote (WAL) gets advice; merge creates its output folder.

TEST(Safety, VerifyOfAWalKdbSaysToRewriteItWithMerge) {
    test::TempDir dir;
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 1), dir / "a", dir / "cache")).exit_code, 0);
    // MIOpen switches the dbs it writes to WAL: src/include/miopen/sqlite_db.hpp:281-289 (3.3.0).
    ASSERT_EQ(run_process({"/usr/bin/sqlite3", (dir / "a" / "gfx1030_36.kdb").string(), "PRAGMA journal_mode=WAL;"}).exit_code, 0);
    const auto run = run_kdbgen({"verify", (dir / "a" / "gfx1030_36.kdb").string()});
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_NE(run.output.find("kdbgen merge"), std::string::npos) << run.output;
    const auto merged = dir / "new" / "sub" / "gfx1030_36.kdb";
    const auto merge = run_kdbgen({"merge", merged.string(), (dir / "a" / "gfx1030_36.kdb").string()});
    EXPECT_EQ(merge.exit_code, 0) << merge.output;
    EXPECT_EQ(run_kdbgen({"verify", merged.string()}).exit_code, 0);
}

// --- The fault suite: SIGKILL and SIGINT at random moments of multi-target
// builds, --update builds and folder merges (36 trials). After each, the
// output folder holds the old kdbs unchanged or the complete new ones, never
// a mix; SIGINT exits 130 (or 0 when the command had finished) and leaves no
// temporary, in the output folder or in TMPDIR; after SIGKILL the next run's
// recovery (recover_output_folder, done by every build and merge) leaves none;
// no compiler outlives kdbgen.

namespace {

struct Scenario {
    std::string name;
    std::vector<std::string> args;  // with {OUT} for the output folder
    std::map<std::string, Bytes> expected;
    double seconds = 0;
};

std::vector<std::string> with_out(const std::vector<std::string>& args, const fs::path& out) {
    std::vector<std::string> result;
    for (const auto& a : args) result.push_back(a == "{OUT}" ? out.string() : a);
    return result;
}

void copy_folder(const fs::path& from, const fs::path& to) {
    fs::remove_all(to);
    fs::create_directories(to);
    for (const auto& entry : fs::directory_iterator(from))
        if (entry.path().extension() == ".kdb") fs::copy_file(entry.path(), to / entry.path().filename());
}

// A process whose command line or environment names needle: a compiler's
// names its scratch folder, an in-process compile worker has kdbgen's TMPDIR.
bool process_mentions(const std::string& needle) {
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const auto name = entry.path().filename().string();
        if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
        for (const char* part : {"cmdline", "environ"}) {
            std::ifstream in(entry.path() / part, std::ios::binary);
            std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            if (text.find(needle) != std::string::npos) return true;
        }
    }
    return false;
}

}  // namespace

TEST(FaultSuite, RandomKillsLeaveEveryKdbOldOrCompleteNew) {
    test::TempDir dir;
    const auto cache = dir / "cache";
    const auto old_manifest = fill_manifest(dir.path(), 1, 3);
    const auto new_manifest = fill_manifest(dir.path(), 10, 8);
    ASSERT_EQ(run_kdbgen(build_args(old_manifest, dir / "old", cache)).exit_code, 0);
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 20, 3), dir / "s1", cache)).exit_code, 0);
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 30, 3), dir / "s2", cache)).exit_code, 0);
    const auto old = kdb_bytes(dir / "old");
    ASSERT_EQ(old.size(), 2u);

    std::vector<Scenario> scenarios;
    auto no_cache = build_args(new_manifest, "{OUT}", cache);
    no_cache.erase(no_cache.begin() + 9, no_cache.begin() + 11);  // --cache-dir DIR
    no_cache.push_back("--no-cache");
    scenarios.push_back({"build (no cache)", no_cache, {}, 0});
    auto update = build_args(new_manifest, "{OUT}", cache);
    update.push_back("--update");
    scenarios.push_back({"build --update", update, {}, 0});
    scenarios.push_back({"merge folders", {"merge", "{OUT}", (dir / "s1").string(), (dir / "s2").string()}, {}, 0});
    for (auto& scenario : scenarios) {
        const auto ref = dir / "ref";
        copy_folder(dir / "old", ref);
        const auto start = std::chrono::steady_clock::now();
        const auto run = run_kdbgen(with_out(scenario.args, ref));
        scenario.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        ASSERT_EQ(run.exit_code, 0) << scenario.name << ": " << run.output;
        for (const auto& name : kKdbs) ASSERT_EQ(run_kdbgen({"verify", (ref / name).string()}).exit_code, 0) << name;
        scenario.expected = kdb_bytes(ref);
        ASSERT_NE(scenario.expected, old) << scenario.name;
    }

    std::mt19937 random(20261203);
    // 60 trials: each scenario gets 10 SIGKILLs and 10 SIGINTs, so build and build --update
    // together get the 20 SIGKILL trials issue #16 asks for.
    constexpr int kTrials = 60;
    int finished = 0, interrupted = 0, killed = 0, build_kills_sent = 0;
    for (int trial = 0; trial < kTrials; ++trial) {
        const auto& scenario = scenarios[trial % scenarios.size()];
        const int sig = (trial / scenarios.size()) % 2 ? SIGINT : SIGKILL;
        const auto out = dir / fmt::format("t{}", trial);
        const auto tmp = dir / fmt::format("tmp{}", trial);
        copy_folder(dir / "old", out);
        fs::create_directories(tmp);
        const double delay = std::uniform_real_distribution<double>(0.0, scenario.seconds * 1.1)(random);
        if (sig == SIGKILL && scenario.args.front() == "build") ++build_kills_sent;
        const pid_t pid = test::start_kdbgen(with_out(scenario.args, out), "TMPDIR=" + tmp.string());
        ::usleep(static_cast<useconds_t>(delay * 1e6));
        ::kill(pid, sig);
        int status = 0;
        ::waitpid(pid, &status, 0);
        const std::string what = fmt::format("trial {} ({}, {} after {:.2f}s)", trial, scenario.name, strsignal(sig), delay);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) ++finished;
        else if (sig == SIGINT) {
            ++interrupted;
            // 130, or killed by SIGINT when it came before kdbgen installed its handler (exec).
            EXPECT_TRUE((WIFEXITED(status) && WEXITSTATUS(status) == 130) || (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT))
                << what << ": status " << status;
        } else {
            ++killed;
            EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << what;
        }
        if (sig == SIGINT) {
            EXPECT_TRUE(non_kdb_files(out).empty()) << what << ": left " << non_kdb_files(out).front();
            EXPECT_TRUE(fs::is_empty(tmp)) << what << ": left " << fs::directory_iterator(tmp)->path();
        }
        recover_output_folder(out);  // what the next build or merge does first
        EXPECT_TRUE(non_kdb_files(out).empty()) << what << ": left " << non_kdb_files(out).front();
        const auto now = kdb_bytes(out);
        EXPECT_TRUE(now == old || now == scenario.expected) << what << ": the folder holds neither the old kdbs nor the new";
        ::usleep(100'000);
        EXPECT_FALSE(process_mentions(tmp.string())) << what << ": a compiler outlived kdbgen";
    }
    std::printf("fault suite: %d trials, %d finished, %d interrupted (SIGINT), %d killed (SIGKILL); %d SIGKILLs sent "
                "to build or build --update\n", kTrials, finished, interrupted, killed, build_kills_sent);
    EXPECT_EQ(build_kills_sent, 20);
    // Kill times are random and the machine may be loaded: a third of the trials landing mid-run is the floor.
    EXPECT_GE(interrupted + killed, kTrials / 3) << "too few trials hit the command while it ran";
}

// =====================================================================================
// Issue #25: trust nothing on disk. Each test reproduces one finding of the re-check;
// docs/safety.md lists them with what the binary before the fix did.

namespace {

// A MIOpen 3.3.0 stand-in whose gfx906_60 find-db is packed (.bz2, so its text is
// cached) and names ConvOclDirectFwd for each problem; the kernel file is empty, as a
// dry run compiles nothing.
fs::path trust_tree(const fs::path& root, const std::vector<int>& batches, const std::string& perf_params = "") {
    fs::create_directories(root / "src" / "kernels");
    std::ofstream(root / "CMakeLists.txt") << "project(MIOpen)\nrocm_setup_version(VERSION 3.3.0)\n";
    std::ofstream(root / "src" / "kernels" / "MIOpenConvDirUni.cl") << "// kernel\n";
    std::string text;
    for (const int n : batches)
        text += fmt::format("64-28-28-3x3-64-28-28-{}-1x1-1x1-1x1-0-NCHW-FP32-F=ConvOclDirectFwd:0.5,0,"
                            "miopenConvolutionFwdAlgoDirect\n", n);
    bzip2_to(root / "src" / "kernels" / "gfx906_60.HIP.fdb.txt.bz2", text);
    if (!perf_params.empty()) {
        const auto db = test::write_perf_db(root / "gfx906_60.db",
            {{fmt::format("64-28-28-3x3-64-28-28-{}-1x1-1x1-1x1-0-NCHW-FP32-F", batches.front()), "ConvOclDirectFwd", perf_params}});
        const auto bytes = read_file(db);
        bzip2_to(root / "src" / "kernels" / "gfx906_60.db.bz2", std::string(bytes.begin(), bytes.end()));
    }
    return root;
}

// The commands of a dry run (build -n --json) for the stand-in tree: what a build would compile.
nlohmann::json planned_compiles(const fs::path& tree, const fs::path& cache, ProcessResult* result = nullptr,
                                const std::vector<std::string>& env = {}) {
    const auto run = run_with_env(env, {"build", "-n", "--json", "--miopen-src", tree.string(), "--targets", "gfx906_60",
                                        "-o", (tree.parent_path() / "out").string(), "--cache-dir", cache.string()});
    if (result) *result = run;
    if (run.exit_code != 0 || run.output.find('{') == std::string::npos) return nullptr;
    return nlohmann::json::parse(run.output.substr(run.output.find('{')), nullptr, false)["compiles"];
}

std::vector<fs::path> files_under(const fs::path& dir, const std::string& extension) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
        if (it->path().extension() == extension) out.push_back(it->path());
    std::sort(out.begin(), out.end());
    return out;
}

void overwrite(const fs::path& path, const Bytes& bytes) {
    fs::remove(path);
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

ProcessResult run_with_timeout(const std::vector<std::string>& args) {
    std::vector<std::string> argv{"/usr/bin/timeout", "-k", "5", "30", test::kdbgen_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv);
}

}  // namespace

// A cached find-db text cut at a line boundary planned half the lines, exit 0; an edited
// one changed the plan; one cut mid-line blamed the intact MIOpen file.
TEST(Trust, CutOrEditedFindDbTextInTheCacheIsUnpackedAgain) {
    test::TempDir dir;
    const auto tree = trust_tree(dir / "tree", {1, 2, 3, 4, 5, 6, 7, 8});
    const auto cache = dir / "cache";
    const auto cold = planned_compiles(tree, cache);
    ASSERT_TRUE(cold.is_array() && cold.size() == 8u) << cold;
    const auto texts = files_under(cache / "find-db", ".txt");
    ASSERT_EQ(texts.size(), 1u);
    const auto text = read_file(texts.front());
    const std::string whole(text.begin(), text.end());
    const auto half = whole.find("-5-1x1");
    const auto line_start = whole.rfind('\n', half) + 1;
    struct Damage {
        const char* what;
        std::string bytes;
    };
    std::string edited = whole;
    edited.replace(edited.find("-28-8-1x1"), 9, "-28-9-1x1");  // batch 8 becomes batch 9
    for (const auto& damage : {Damage{"cut at a line boundary", whole.substr(0, line_start)},
                               Damage{"cut mid-line", whole.substr(0, half)}, Damage{"an edited problem", edited}}) {
        overwrite(texts.front(), Bytes(damage.bytes.begin(), damage.bytes.end()));
        fs::remove_all(cache / "plan");  // the plan cache would answer without reading the text
        ProcessResult run;
        const auto again = planned_compiles(tree, cache, &run);
        EXPECT_EQ(run.exit_code, 0) << damage.what << ": " << run.output.substr(0, 400);
        EXPECT_EQ(again, cold) << damage.what << ": the damaged text was planned";
    }
}

// Two plans swapped in the cache (each a well-formed entry, re-sealed with its own
// checksum): a build for one input used the other's kernels.
TEST(Trust, SwappedPlanEntriesAreRefused) {
    test::TempDir dir;
    const auto tree_a = trust_tree(dir / "a" / "tree", {1, 2});
    const auto tree_b = trust_tree(dir / "b" / "tree", {3, 4, 5});
    const auto cache = dir / "cache";
    const auto plan_a = planned_compiles(tree_a, cache), plan_b = planned_compiles(tree_b, cache);
    ASSERT_TRUE(plan_a.is_array() && plan_b.is_array());
    ASSERT_NE(plan_a, plan_b);
    auto entries = files_under(cache / "plan", ".plan");
    ASSERT_EQ(entries.size(), 2u);
    const auto first = read_file(entries[0]), second = read_file(entries[1]);
    overwrite(entries[0], second);
    overwrite(entries[1], first);
    EXPECT_EQ(planned_compiles(tree_a, cache), plan_a) << "tree a planned with another entry's plan";
    EXPECT_EQ(planned_compiles(tree_b, cache), plan_b) << "tree b planned with another entry's plan";
}

// Two code objects swapped in the cache, or one edited with its digest recomputed over
// the object alone: the kdb held the wrong code. Now each is a miss and is compiled again.
TEST(Trust, SwappedOrReDigestedCodeObjectsAreCompiledAgain) {
    test::TempDir dir;
    const auto manifest = fill_manifest(dir.path(), 1, 2);
    const auto cache = dir / "cache";
    // One target: its two kernels have the same symbol and differ in one value.
    const auto one_target = [&](const fs::path& out) {
        auto args = build_args(manifest, out, cache);
        args[2] = "gfx1030_36";
        return args;
    };
    ASSERT_EQ(run_kdbgen(one_target(dir / "cold")).exit_code, 0);
    auto objects = files_under(cache, ".co");
    ASSERT_EQ(objects.size(), 2u);
    const auto md5_of = [](fs::path p) { return p.replace_extension(".md5"); };
    const auto same_target = objects;
    const auto a = read_file(same_target[0]), b = read_file(same_target[1]);
    overwrite(same_target[0], b);
    overwrite(same_target[1], a);
    for (const auto& object : same_target)  // kdbgen 0.x kept the object's MD5 beside it
        if (fs::exists(md5_of(object))) {
            const auto bytes = read_file(object);
            const auto digest = md5_hex(bytes);
            overwrite(md5_of(object), Bytes(digest.begin(), digest.end()));
        }
    ASSERT_EQ(run_kdbgen(one_target(dir / "swapped")).exit_code, 0);
    EXPECT_EQ(kdb_bytes(dir / "swapped"), kdb_bytes(dir / "cold")) << "swapped code objects were used";

    // One object edited in place (a byte of its code), its digest recomputed over the object.
    objects = files_under(cache, ".co");
    auto bytes = read_file(objects.front());
    bytes[bytes.size() - 300] ^= 0x01;
    overwrite(objects.front(), bytes);
    if (fs::exists(md5_of(objects.front()))) {
        const auto digest = md5_hex(bytes);
        overwrite(md5_of(objects.front()), Bytes(digest.begin(), digest.end()));
    }
    ASSERT_EQ(run_kdbgen(one_target(dir / "edited")).exit_code, 0);
    EXPECT_EQ(kdb_bytes(dir / "edited"), kdb_bytes(dir / "cold")) << "an edited code object was used";
}

// The cache linked to system files (the device libraries): a write through a link
// truncated a system bitcode file. Now it holds only its own regular files.
TEST(Trust, TheCacheHoldsNoLinks) {
    test::TempDir dir;
    const auto cache = dir / "cache";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 1), dir / "out", cache)).exit_code, 0);
    // An OpenCL kernel too: its compile uses the device libraries.
    fs::create_directories(dir / "k");
    fs::copy_file(test::kernels_dir() / "kdbgen_fill.s", dir / "k" / "kdbgen_fill.s");
    std::ofstream(dir / "k" / "ok.cl") << "__kernel void Ok(__global float* p) { p[0] = 1.0f; }\n";
    std::ofstream(dir / "cl.toml") << "[[kernel]]\nfile = \"ok.cl\"\nsymbols = [\"Ok\"]\noptions = [\"\"]\n";
    const auto cl = run_kdbgen({"build", "--targets", kTargets, "-o", (dir / "out2").string(), "--manifest",
                                (dir / "cl.toml").string(), "--kernels-dir", (dir / "k").string(), "--cache-dir",
                                cache.string(), "-q"});
    ASSERT_EQ(cl.exit_code, 0) << cl.output;
    std::vector<std::string> links;
    for (const auto& entry : fs::recursive_directory_iterator(cache))
        if (fs::is_symlink(entry.symlink_status())) links.push_back(entry.path().string());
    EXPECT_TRUE(links.empty()) << links.size() << " links, e.g. " << links.front();
}

// A perf-db row whose params do not parse for its solver became the default tuning,
// exit 0. Now exit 2 naming the file, the row and the value.
TEST(Trust, MalformedPerfDbParamsAreAnErrorNamingTheRow) {
    test::TempDir dir;
    const auto good = trust_tree(dir / "good" / "tree", {1}, "8,8,16,16,2,2,2,4,1");
    ProcessResult run;
    ASSERT_TRUE(planned_compiles(good, dir / "cache", &run).is_array()) << run.output;
    const auto bad = trust_tree(dir / "bad" / "tree", {1}, "8,3r,16,16,2,2,2,4,1");
    EXPECT_FALSE(planned_compiles(bad, dir / "cache", &run).is_array());
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("gfx906_60.db.bz2: perf_db row 1: params '8,3r,16,16,2,2,2,4,1' for ConvOclDirectFwd"),
              std::string::npos)
        << run.output;
}

// A perf-db in WAL mode left -wal and -shm files in TMPDIR.
TEST(Trust, WalPerfDbLeavesNothingInTmpdir) {
    test::TempDir dir;
    const auto tree = trust_tree(dir / "tree", {1}, "8,8,16,16,2,2,2,4,1");
    {
        const auto db = dir / "tree" / "gfx906_60.db";
        ASSERT_EQ(run_process({"/usr/bin/sqlite3", db.string(), "PRAGMA journal_mode=WAL; CREATE TABLE x(y);"}).exit_code, 0);
        const auto header = read_file(db);
        ASSERT_EQ(header[18], 2) << "not in WAL mode";
        bzip2_to(tree / "src" / "kernels" / "gfx906_60.db.bz2", std::string(header.begin(), header.end()));
    }
    fs::create_directories(dir / "tmp");
    ProcessResult run;
    EXPECT_TRUE(planned_compiles(tree, dir / "cache", &run, {"TMPDIR=" + (dir / "tmp").string()}).is_array()) << run.output;
    std::vector<std::string> left;
    for (const auto& entry : fs::directory_iterator(dir / "tmp")) left.push_back(entry.path().filename().string());
    EXPECT_TRUE(left.empty()) << fmt::format("{}", fmt::join(left, " "));
}

// A kdb in WAL mode (as MIOpen writes its own): reading it (verify, inspect, diff, a merge input, --update of
// the output folder) left -wal and -shm beside it. Read-only opens are immutable when no -wal is there.
TEST(Trust, ReadingAWalKdbLeavesNothingBesideIt) {
    test::TempDir dir;
    const auto out = dir / "out";
    const auto cache = dir / "cache";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), out, cache)).exit_code, 0);
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 3, 2), dir / "shard", cache)).exit_code, 0);
    for (const auto& folder : {out, dir / "shard"})
        for (const auto& entry : fs::directory_iterator(folder))
            ASSERT_EQ(run_process({"/usr/bin/sqlite3", entry.path().string(), "PRAGMA journal_mode=WAL;"}).exit_code, 0);
    const auto kdb = (out / "gfx1030_36.kdb").string();
    ASSERT_EQ(read_file(kdb)[18], 2) << "not in WAL mode";
    // verify still says what is wrong with a WAL kdb (MIOpen's db_sync wants delete mode), from the header.
    const auto verified = run_kdbgen({"verify", kdb});
    EXPECT_EQ(verified.exit_code, 1) << verified.output;
    EXPECT_NE(verified.output.find("journal mode is wal"), std::string::npos) << verified.output;
    EXPECT_EQ(run_kdbgen({"inspect", kdb}).exit_code, 0);
    run_kdbgen({"diff", kdb, (dir / "shard" / "gfx1030_36.kdb").string()});
    EXPECT_EQ(run_kdbgen({"merge", (dir / "merged").string(), (dir / "shard").string(), out.string()}).exit_code, 0);
    auto update = build_args(fill_manifest(dir.path(), 3, 2), out, cache);
    update.push_back("--update");
    EXPECT_EQ(run_kdbgen(update).exit_code, 0);
    for (const auto& folder : {out, dir / "shard"})
        EXPECT_TRUE(non_kdb_files(folder).empty()) << folder << ": " << non_kdb_files(folder).front();
}

// `merge OUT OUT shard` read OUT before taking its lock: next to a --update of OUT it lost
// that update's keys (10 of 31 rounds). Now the merge reads under the lock.
TEST(Trust, MergeIntoItsOwnInputLosesNoConcurrentKey) {
    test::TempDir dir;
    const auto cache = dir / "cache";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 200, 36), dir / "warm", cache)).exit_code, 0);
    // Six shard folders of the same 12 keys: the merge reads for a while before it writes.
    std::vector<std::string> merge{"merge"};
    for (int shard = 0; shard < 6; ++shard) {
        const auto folder = dir / fmt::format("shard{}", shard);
        ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 212, 12), folder, cache)).exit_code, 0);
        merge.push_back(folder.string());
    }
    std::mt19937 random(25);
    int lost = 0;
    for (int round = 0; round < 10; ++round) {
        const auto out = dir / fmt::format("out{}", round);
        ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 200, 12), out, cache)).exit_code, 0);
        auto update = build_args(fill_manifest(dir.path(), 224, 12), out, cache);
        update.push_back("--update");
        auto merge_out = merge;
        merge_out.insert(merge_out.begin() + 1, {out.string(), out.string()});
        // The update plans from a warm cache (a few hundred ms), then writes; the merge starts
        // at a random moment of that, so its read and the update's write overlap in some rounds.
        std::vector<pid_t> pids{test::start_kdbgen(update)};
        ::usleep(static_cast<useconds_t>(std::uniform_int_distribution<int>(0, 400)(random)) * 1000);
        pids.push_back(test::start_kdbgen(merge_out));
        for (const pid_t pid : pids) {
            int status = 0;
            ::waitpid(pid, &status, 0);
            EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
        for (const auto& name : kKdbs) {
            const auto keys = read_kdb(out / name).size();
            if (keys != 36u) ++lost;
            EXPECT_EQ(keys, 36u) << name << " round " << round;
        }
    }
    std::printf("merge next to --update: %d kdbs of 20 lost keys\n", lost);
}

// --update and merge carried a record whose name lacks .o into a kdb verify rejects.
TEST(Trust, UpdateAndMergeRefuseARecordVerifyWouldReject) {
    test::TempDir dir;
    const auto out = dir / "out";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), out, dir / "cache")).exit_code, 0);
    ASSERT_EQ(run_process({"/usr/bin/sqlite3", (out / "gfx1030_36.kdb").string(),
                           "UPDATE kern_db SET kernel_name = 'kdbgen_fill.s' WHERE id = 1;"}).exit_code, 0);
    const auto old = kdb_bytes(out);
    auto update = build_args(fill_manifest(dir.path(), 3, 1), out, dir / "cache");
    update.push_back("--update");
    const auto updated = run_kdbgen(update);
    EXPECT_EQ(updated.exit_code, 2) << updated.output;
    EXPECT_NE(updated.output.find("does not end in .o"), std::string::npos) << updated.output;
    EXPECT_EQ(kdb_bytes(out), old);
    const auto merged = run_kdbgen({"merge", (dir / "m.kdb").string(), (out / "gfx1030_36.kdb").string()});
    EXPECT_EQ(merged.exit_code, 2) << merged.output;
    EXPECT_NE(merged.output.find("does not end in .o"), std::string::npos) << merged.output;
    EXPECT_FALSE(fs::exists(dir / "m.kdb"));
}

// A rename failing in the middle of a two-kdb commit left a mixed folder the journal
// could not repair. Now every kdb is put back. Shown with a fault hook, and for real
// with an immutable file (chattr +i, root on a file system that has the flag).
TEST(Trust, RenameFailingMidCommitLeavesEveryOldKdb) {
    test::TempDir dir;
    const auto out = dir / "out";
    const auto cache = dir / "cache";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), out, cache)).exit_code, 0);
    const auto old = kdb_bytes(out);
    const auto run = run_with_env({"KDBGEN_TEST_FAIL_RENAME_OF=gfx90a6e.kdb"}, build_args(fill_manifest(dir.path(), 3, 2), out, cache));
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("every kdb was put back"), std::string::npos) << run.output;
    EXPECT_EQ(kdb_bytes(out), old) << "the folder mixes old and new kdbs";
    EXPECT_TRUE(non_kdb_files(out).empty()) << non_kdb_files(out).front();

    if (run_process({"/usr/bin/chattr", "+i", (out / "gfx90a6e.kdb").string()}).exit_code != 0)
        GTEST_SKIP() << "chattr +i is not available here (needs root and a file system with the flag)";
    const auto immutable = run_kdbgen(build_args(fill_manifest(dir.path(), 3, 2), out, cache));
    run_process({"/usr/bin/chattr", "-i", (out / "gfx90a6e.kdb").string()});
    EXPECT_EQ(immutable.exit_code, 2) << immutable.output;
    EXPECT_EQ(kdb_bytes(out), old) << "an immutable second kdb left the first replaced";
    EXPECT_TRUE(non_kdb_files(out).empty()) << non_kdb_files(out).front();
}

// A missing or unusable TMPDIR, or compiles failing for lack of space in it, replaced
// good kdbs with fewer kernels (exit 1). Now nothing is replaced and the exit is 2 naming TMPDIR.
TEST(Trust, ARunThatFailsForTmpdirReplacesNothing) {
    test::TempDir dir;
    const auto out = dir / "out";
    const auto cache = dir / "cache";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 9), out, cache)).exit_code, 0);
    const auto old = kdb_bytes(out);
    std::ofstream(dir / "a-file") << "x";
    for (const auto& tmp : {dir / "missing", dir / "a-file"}) {
        const auto run = run_with_env({"TMPDIR=" + tmp.string()}, build_args(fill_manifest(dir.path(), 11, 9), out, dir / "cold"));
        EXPECT_EQ(run.exit_code, 2) << run.output;
        EXPECT_NE(run.output.find("TMPDIR " + tmp.string()), std::string::npos) << run.output;
        EXPECT_EQ(kdb_bytes(out), old);
    }
    // Three of nine compiles fail for a full scratch disk, as clang says it.
    const auto bin = dir / "llvm" / "bin";
    fs::create_directories(bin);
    const auto real = test::toolchain().llvm_root / "bin";
    for (const char* tool : {"ld.lld", "llvm-as"}) fs::create_symlink(real / tool, bin / tool);
    std::ofstream(bin / "clang") << "#!/bin/sh\ncase \"$*\" in *kdbgen_fill_value=1[3-5]*) "
                                    "echo \"error: unable to open output file: 'No space left on device'\" >&2; exit 1;; esac\n"
                                 << "exec " << (real / "clang").string() << " \"$@\"\n";
    fs::permissions(bin / "clang", fs::perms::owner_all);
    auto args = build_args(fill_manifest(dir.path(), 11, 9), out, dir / "cold2");
    args.insert(args.end(), {"--llvm-root", (dir / "llvm").string(), "--in-process", "off"});
    const auto partial = run_kdbgen(args);
    EXPECT_EQ(partial.exit_code, 2) << partial.output;
    EXPECT_NE(partial.output.find("TMPDIR"), std::string::npos) << partial.output;
    EXPECT_EQ(kdb_bytes(out), old) << "kdbs with fewer kernels replaced the good ones";
}

// kill -9 during compiles left kdbgen scratch folders in TMPDIR that no run removed.
TEST(Trust, ScratchOfKilledRunsIsRemovedByTheNextRun) {
    test::TempDir dir;
    fs::create_directories(dir / "tmp");
    const auto cache = dir / "cache";
    // A dead pid: a child that has exited and been reaped.
    const pid_t dead = ::fork();
    if (dead == 0) ::_exit(0);
    ::waitpid(dead, nullptr, 0);
    for (const auto& name : {fmt::format("kdbgen-compile-{}-AbC123", dead), fmt::format("kdbgen-toolchain-{}-xYz789", dead)}) {
        fs::create_directories(dir / "tmp" / name / "inner");
        std::ofstream(dir / "tmp" / name / "inner" / "scratch.o") << "x";
    }
    std::ofstream(dir / "tmp" / fmt::format(".kdbgen-perfdb.tmp.{}.0.1f", dead)) << "x";
    const auto live = fmt::format("kdbgen-compile-{}-LiVe00", ::getpid());  // this process: alive
    fs::create_directories(dir / "tmp" / live);
    const auto run = run_with_env({"TMPDIR=" + (dir / "tmp").string()}, build_args(fill_manifest(dir.path(), 1, 1), dir / "out", cache));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    std::vector<std::string> left;
    for (const auto& entry : fs::directory_iterator(dir / "tmp")) left.push_back(entry.path().filename().string());
    EXPECT_EQ(left, std::vector<std::string>{live});
}

// cache clean on a folder kdbgen never made deleted its plan/ and find-db/ folders; a
// missing folder was created; --max-size "" emptied the whole cache.
TEST(Trust, CacheCleanTouchesOnlyATaggedCache) {
    test::TempDir dir;
    const auto project = dir / "project";
    fs::create_directories(project / "plan");
    fs::create_directories(project / "find-db");
    std::ofstream(project / "plan" / "roadmap.txt") << "mine";
    const auto refused = run_kdbgen({"cache", "clean", "--cache-dir", project.string()});
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find("not a kdbgen cache"), std::string::npos) << refused.output;
    EXPECT_TRUE(fs::exists(project / "plan" / "roadmap.txt"));
    EXPECT_TRUE(fs::exists(project / "find-db"));
    const auto missing = run_kdbgen({"cache", "clean", "--cache-dir", (dir / "nothing").string()});
    EXPECT_EQ(missing.exit_code, 2) << missing.output;
    EXPECT_FALSE(fs::exists(dir / "nothing")) << "cache clean created the folder";

    const auto cache = dir / "cache";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), dir / "out", cache)).exit_code, 0);
    const auto entries = files_under(cache, ".co").size();
    ASSERT_GT(entries, 0u);
    const auto empty_size = run_kdbgen({"cache", "clean", "--cache-dir", cache.string(), "--max-size", ""});
    EXPECT_EQ(empty_size.exit_code, 2) << empty_size.output;
    EXPECT_EQ(files_under(cache, ".co").size(), entries) << "--max-size '' emptied the cache";
    const auto clean = run_kdbgen({"cache", "clean", "--cache-dir", cache.string()});
    EXPECT_EQ(clean.exit_code, 0) << clean.output;
    EXPECT_TRUE(files_under(cache, ".co").empty());
}

// Trust nothing, round 2 (#36): the cache is private. With HOME and XDG_CACHE_HOME unset or empty the default was a
// $TMPDIR/kdbgen-cache every local user shared, whose owner was never checked.
TEST(Trust2, WithoutAHomeTheDefaultCacheIsThisUsersOwn) {
    test::TempDir dir;
    const auto run = run_process({"/usr/bin/env", "-u", "HOME", "-u", "XDG_CACHE_HOME", "-u", "XDG_RUNTIME_DIR", "-u",
                                  "KDBGEN_CACHE_DIR", "TMPDIR=" + dir.path().string(), "HOME=", test::kdbgen_binary(),
                                  "build", "--manifest", fill_manifest(dir.path(), 1, 2).string(), "--targets",
                                  "gfx1030_36", "-o", (dir / "out").string()});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto cache = dir / fmt::format("kdbgen-cache-{}", ::geteuid());
    EXPECT_FALSE(fs::exists(dir / "kdbgen-cache")) << "the shared folder of every user";
    struct stat st {};
    ASSERT_EQ(::lstat(cache.c_str(), &st), 0) << cache;
    EXPECT_EQ(st.st_mode & 07777, 0700u);
    EXPECT_EQ(st.st_uid, ::geteuid());
}

// A cache folder others can write (or, as root, one another user owns) is refused: its entries would go into the
// kdb as they are. Nothing is built, no kdb written.
TEST(Trust2, ACacheOthersCanWriteIsRefused) {
    test::TempDir dir;
    const auto cache = dir / "cache";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), dir / "warm", cache)).exit_code, 0);
    fs::permissions(cache, fs::perms::all);
    auto run = run_kdbgen(build_args(fill_manifest(dir.path(), 3, 2), dir / "out", cache));
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find("not private"), std::string::npos) << run.output;
    EXPECT_FALSE(fs::exists(dir / "out" / "gfx1030_36.kdb"));
    EXPECT_EQ(run_kdbgen({"cache", "clean", "--cache-dir", cache.string()}).exit_code, 2);
    fs::permissions(cache, fs::perms::owner_all);
    if (::geteuid() == 0) {
        ASSERT_EQ(::chown(cache.c_str(), 65534, 65534), 0);  // nobody
        run = run_kdbgen(build_args(fill_manifest(dir.path(), 3, 2), dir / "out", cache));
        EXPECT_EQ(run.exit_code, 2) << run.output;
        EXPECT_NE(run.output.find("owned by user 65534"), std::string::npos) << run.output;
        ASSERT_EQ(::chown(cache.c_str(), 0, 0), 0);
    }
    EXPECT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 3, 2), dir / "out", cache)).exit_code, 0);
}

// Links in the cache are never followed: a dangling link at a lock's name made kdbgen create a file wherever it
// pointed, and a linked folder had its target's files written.
TEST(Trust2, LinksInTheCacheAreNeverFollowed) {
    test::TempDir dir;
    const auto cache = dir / "cache";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), dir / "warm", cache)).exit_code, 0);
    fs::remove(cache / "stats.lock");
    fs::create_symlink(dir / "planted", cache / "stats.lock");
    auto run = run_kdbgen(build_args(fill_manifest(dir.path(), 3, 2), dir / "out", cache));
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_FALSE(fs::exists(dir / "planted")) << "a file was created through the link";
    fs::remove(cache / "stats.lock");
    // The toolchain folder (device libraries, HIP and assembler overlays) a link to another folder: refused,
    // nothing written there.
    fs::create_directories(dir / "elsewhere");
    fs::remove_all(cache / "toolchain");
    fs::create_directory_symlink(dir / "elsewhere", cache / "toolchain");
    run = run_kdbgen(build_args(fill_manifest(dir.path(), 3, 2), dir / "out", cache));
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_TRUE(fs::is_empty(dir / "elsewhere")) << "written through the linked toolchain folder";
}

// `cache clean` deletes only in a folder kdbgen tagged: another program's CACHEDIR.TAG (ccache writes the same
// standard first line) is not kdbgen's.
TEST(Trust2, CacheCleanLeavesAnotherProgramsTaggedCache) {
    test::TempDir dir;
    const auto ccache = dir / "ccache";
    fs::create_directories(ccache / "plan");
    fs::create_directories(ccache / "find-db");
    std::ofstream(ccache / "CACHEDIR.TAG") << "Signature: 8a477f597d28d172789f06886806bc55\n"
                                              "# This file is a cache directory tag created by ccache.\n";
    std::ofstream(ccache / "plan" / "mine") << "x";
    fs::permissions(ccache, fs::perms::owner_all);
    const auto run = run_kdbgen({"cache", "clean", "--cache-dir", ccache.string()});
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_TRUE(fs::exists(ccache / "plan" / "mine"));
    EXPECT_TRUE(fs::exists(ccache / "find-db"));
}

// An old kdb holding one key twice (its unique index dropped): --update named its own staged file.
TEST(Trust2, UpdateOverAKdbWithAKeyTwiceNamesThatKdb) {
    test::TempDir dir;
    const auto out = dir / "out";
    const auto cache = dir / "cache";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 2), out, cache)).exit_code, 0);
    const auto kdb = out / "gfx1030_36.kdb";
    ASSERT_EQ(run_process({"/usr/bin/sqlite3", kdb.string(),
                           "DROP INDEX idx_kern_db; INSERT INTO kern_db(kernel_name, kernel_args, kernel_blob, "
                           "kernel_hash, uncompressed_size) SELECT kernel_name, kernel_args, kernel_blob, kernel_hash, "
                           "uncompressed_size FROM kern_db WHERE id = 1;"})
                  .exit_code,
              0);
    const auto before = read_file(kdb);
    auto args = build_args(fill_manifest(dir.path(), 3, 2), out, cache);
    args.push_back("--update");
    const auto run = run_kdbgen(args);
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find(kdb.string() + ": the old kdb (--update) holds"), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("kdbgen-stage"), std::string::npos) << run.output;
    EXPECT_EQ(read_file(kdb), before);
    EXPECT_TRUE(non_kdb_files(out).empty()) << non_kdb_files(out).front();
}

// A FIFO given as any input file blocked kdbgen in open().
TEST(Trust, FifosAreRefusedAsEveryKindOfInput) {
    test::TempDir dir;
    const auto fifo = dir / "fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const std::string f = fifo.string();
    const auto tree = trust_tree(dir / "tree", {1}).string();
    const std::vector<std::vector<std::string>> cases = {
        {"plan", "--targets", "gfx906_60", "--miopen-src", tree, "--network", f},
        {"plan", "--targets", "gfx906_60", "--miopen-src", tree, "--driver-log", f},
        {"plan", "--targets", "gfx906_60", "--miopen-src", tree, "--onnx", f},
        {"plan", "--targets", "gfx906_60", "--miopen-src", tree, "--find-db", f},
        {"plan", "--targets-file", f},
        {"build", "--targets", "gfx906_60", "--manifest", f, "-o", (dir / "out").string()},
        {"verify", f},
        {"inspect", f},
        {"merge", (dir / "m.kdb").string(), f},
    };
    for (const auto& args : cases) {
        const auto run = run_with_timeout(args);
        // verify reports an unreadable file as a fault of that file (exit 1), as for any kdb it cannot read.
        EXPECT_EQ(run.exit_code, args[0] == "verify" ? 1 : 2) << fmt::format("{}", fmt::join(args, " ")) << "\n" << run.output;
        EXPECT_NE(run.output.find(f), std::string::npos) << fmt::format("{}", fmt::join(args, " ")) << "\n" << run.output;
    }
}

// A 4 KiB kdb whose kern_db is an endless view made verify, inspect, diff, merge and
// --update run forever while filling TMPDIR.
TEST(Trust, AKernDbThatIsAViewIsRefused) {
    test::TempDir dir;
    const auto view = dir / "gfx1030_36.kdb";
    ASSERT_EQ(run_process({"/usr/bin/sqlite3", view.string(),
                           "CREATE VIEW kern_db AS WITH RECURSIVE r(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM r) "
                           "SELECT id, 'k' || id || '.o' AS kernel_name, '-mcpu=gfx1030' AS kernel_args, "
                           "zeroblob(1000) AS kernel_blob, 'x' AS kernel_hash, 0 AS uncompressed_size FROM r;"})
                  .exit_code,
              0);
    const auto out = dir / "out";
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 1), out, dir / "cache")).exit_code, 0);
    fs::copy_file(view, out / "gfx1030_36.kdb", fs::copy_options::overwrite_existing);
    auto update = build_args(fill_manifest(dir.path(), 2, 1), out, dir / "cache");
    update.push_back("--update");
    for (const auto& args : std::vector<std::vector<std::string>>{{"verify", view.string()},
                                                                    {"inspect", view.string()},
                                                                    {"diff", view.string(), view.string()},
                                                                    {"merge", (dir / "m.kdb").string(), view.string()},
                                                                    update}) {
        const auto run = run_with_timeout(args);
        EXPECT_TRUE(run.exit_code == 2 || (args[0] == "verify" && run.exit_code == 1))
            << args[0] << " exit " << run.exit_code << "\n" << run.output.substr(0, 400);
        EXPECT_NE(run.output.find("kern_db is a view"), std::string::npos) << args[0] << "\n" << run.output.substr(0, 400);
    }
}

// A symlink loop given to merge exited 1 with a bare filesystem error.
TEST(Trust, ALinkLoopIsExitTwoNamingIt) {
    test::TempDir dir;
    fs::create_symlink(dir / "b.kdb", dir / "a.kdb");
    fs::create_symlink(dir / "a.kdb", dir / "b.kdb");
    const auto run = run_with_timeout({"merge", (dir / "m.kdb").string(), (dir / "a.kdb").string()});
    EXPECT_EQ(run.exit_code, 2) << run.output;
    EXPECT_NE(run.output.find((dir / "a.kdb").string()), std::string::npos) << run.output;
}

// Issue #25's re-run of the fault suite, for real disks: TMPDIR and the output folders on
// small tmpfs mounts (root only), SIGKILL aimed at each phase of a build (planning with
// toolchain discovery, compiling, writing) and of a merge, each followed by the next run of
// the same command; then 4 concurrent writers (2 merges of the folder into itself, 2
// --update builds) into one folder. Counted: wrong or partial kdbs with exit 0, mixed
// folders, leftovers after the next run (docs/safety.md).
TEST(FaultSuite, SmallDisksKillNineInEveryPhaseAndConcurrentWriters) {
    if (::geteuid() != 0) GTEST_SKIP() << "mounting small tmpfs folders needs root";
    test::TempDir dir;
    const SmallTmpfs tmp(dir / "tmpfs-tmp", "64m"), outs(dir / "tmpfs-out", "32m");
    if (!tmp.why_not().empty() || !outs.why_not().empty()) GTEST_SKIP() << "cannot mount a tmpfs: " << tmp.why_not() << outs.why_not();
    const auto cache = dir / "cache";
    const auto env = "TMPDIR=" + tmp.path().string();
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 1, 3), dir / "old", cache)).exit_code, 0);
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 20, 3), dir / "s1", cache)).exit_code, 0);
    const auto old = kdb_bytes(dir / "old");
    auto no_cache = build_args(fill_manifest(dir.path(), 10, 8), "{OUT}", cache);
    no_cache.erase(no_cache.begin() + 9, no_cache.begin() + 11);
    no_cache.insert(no_cache.end(), {"--no-cache", "--json"});
    struct Phase {
        std::string name;
        double from, to;
    };
    struct Run {
        std::string name;
        std::vector<std::string> args;
        std::map<std::string, Bytes> expected;
        std::vector<Phase> phases;
    };
    std::vector<Run> runs{{"build", no_cache, {}, {}},
                          {"merge", {"merge", "{OUT}", "{OUT}", (dir / "s1").string()}, {}, {}}};
    for (auto& r : runs) {
        const auto ref = outs.path() / "ref";
        copy_folder(dir / "old", ref);
        const auto start = std::chrono::steady_clock::now();
        const auto run = run_with_env({env}, with_out(r.args, ref));
        const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        ASSERT_EQ(run.exit_code, 0) << r.name << ": " << run.output;
        r.expected = kdb_bytes(ref);
        if (r.name == "build") {
            const auto json = nlohmann::json::parse(run.output.substr(run.output.find('{')));
            const double planned = json["phases"]["plan"]["seconds"].get<double>() + json["phases"]["toolchain"]["seconds"].get<double>();
            const double compiled = planned + json["phases"]["compile"]["seconds"].get<double>();
            r.phases = {{"planning", 0.0, planned + (total - compiled - json["phases"]["write"]["seconds"].get<double>())},
                        {"compiling", planned, compiled},
                        {"writing", compiled, total}};
        } else {
            r.phases = {{"merging", 0.0, total}};
        }
    }
    std::mt19937 random(20261204);
    int trials = 0, killed = 0, wrong_with_exit_0 = 0, mixed = 0, leftovers = 0;
    std::map<std::string, int> per_phase;
    for (const auto& r : runs) {
        for (const auto& phase : r.phases) {
            for (int i = 0; i < 8; ++i, ++trials) {
                const auto out = outs.path() / fmt::format("t{}", trials);
                copy_folder(dir / "old", out);
                const double delay = std::uniform_real_distribution<double>(phase.from, std::max(phase.from + 0.001, phase.to))(random);
                const pid_t pid = test::start_kdbgen(with_out(r.args, out), env);
                ::usleep(static_cast<useconds_t>(delay * 1e6));
                ::kill(pid, SIGKILL);
                int status = 0;
                ::waitpid(pid, &status, 0);
                const auto what = fmt::format("{} killed in {} after {:.3f}s", r.name, phase.name, delay);
                if (WIFSIGNALED(status)) ++killed, ++per_phase[r.name + " " + phase.name];
                else if (WEXITSTATUS(status) == 0 && kdb_bytes(out) != r.expected) ++wrong_with_exit_0;
                recover_output_folder(out);
                const auto now = kdb_bytes(out);
                if (now != old && now != r.expected) ++mixed;
                EXPECT_TRUE(now == old || now == r.expected) << what << ": neither the old kdbs nor the new";
                // The next run of the command completes, and leaves nothing behind in either place.
                const auto next = run_with_env({env}, with_out(r.args, out));
                EXPECT_EQ(next.exit_code, 0) << what << ": the next run: " << next.output;
                if (r.name == "build") {
                    EXPECT_EQ(kdb_bytes(out), r.expected) << what;
                }
                const auto in_tmp = tmp.files();
                if (!non_kdb_files(out).empty() || !in_tmp.empty()) ++leftovers;
                EXPECT_TRUE(non_kdb_files(out).empty()) << what << ": left " << non_kdb_files(out).front();
                EXPECT_TRUE(in_tmp.empty()) << what << ": left in TMPDIR " << in_tmp.front();
                fs::remove_all(out);
            }
        }
    }
    // Four writers at once into one folder: two merges of the folder with a shard into
    // itself, two --update builds of other keys. No key is lost.
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 300, 40), dir / "warm", cache)).exit_code, 0);
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 310, 10), dir / "shard-a", cache)).exit_code, 0);
    ASSERT_EQ(run_kdbgen(build_args(fill_manifest(dir.path(), 320, 10), dir / "shard-b", cache)).exit_code, 0);
    int lost = 0, rounds = 0;
    for (; rounds < 6; ++rounds) {
        const auto out = outs.path() / fmt::format("w{}", rounds);
        ASSERT_EQ(run_with_env({env}, build_args(fill_manifest(dir.path(), 300, 10), out, cache)).exit_code, 0);
        std::vector<pid_t> pids;
        for (const int first : {330, 335}) {
            auto update = build_args(fill_manifest(dir.path(), first, 5), out, cache);
            update.push_back("--update");
            pids.push_back(test::start_kdbgen(update, env));
        }
        for (const char* shard : {"shard-a", "shard-b"})
            pids.push_back(test::start_kdbgen({"merge", out.string(), out.string(), (dir / shard).string()}, env));
        for (const pid_t pid : pids) {
            int status = 0;
            ::waitpid(pid, &status, 0);
            EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "round " << rounds;
        }
        for (const auto& name : kKdbs) {
            const auto keys = read_kdb(out / name).size();
            if (keys != 40u) ++lost;
            EXPECT_EQ(keys, 40u) << name << " round " << rounds;
        }
        EXPECT_TRUE(non_kdb_files(out).empty()) << non_kdb_files(out).front();
    }
    std::string phases;
    for (const auto& [name, count] : per_phase) phases += fmt::format("{} {}, ", name, count);
    std::printf("small-disk fault suite: %d SIGKILL trials (%d landed: %s), %d wrong or partial kdbs with exit 0, %d mixed "
                "folders, %d with leftovers after the next run; 4 concurrent writers: %d rounds, %d kdbs lost keys\n",
                trials, killed, phases.c_str(), wrong_with_exit_0, mixed, leftovers, rounds, lost);
    EXPECT_EQ(wrong_with_exit_0 + mixed + leftovers + lost, 0);
}
