// The in-process tests of tests/unit/safety_test.cpp (Safety.D2, D3, D7, D10,
// D11, D13) in a form that builds against kdbgen's library both before the
// #17 fixes (68ac86e) and after them: the same inputs and the same
// assertions, written only with functions both versions have. Where a test
// used a function the old library lacks (shell_quote, assembler_compat_identity),
// it reaches the same code through one both have (Compiler::compile's printed
// command), or leaves that one assertion out (said below). Code that crashed
// or allocated what a file claims runs in a forked child under an address-space
// limit, so the old library's failure is observed, not suffered.
// Build and run: see CMakeLists.txt here; results are in docs/safety.md.
#include "kdbgen/compile.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/kdb.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/util.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kdbgen;

namespace {

const fs::path kTree = KDBGEN_TREE;

class TempDir {
public:
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "kdbgen-before-fix-XXXXXX").string();
        if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const fs::path& path() const { return path_; }
    fs::path operator/(const std::string& name) const { return path_ / name; }

private:
    fs::path path_;
};

std::string input_error_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

// fn runs in a forked child, under an address-space limit when one is given;
// the parent gets the child's wait status and the text fn returned.
struct Child {
    int status = 0;
    std::string text;
    std::string how() const {
        if (WIFSIGNALED(status)) return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
        return fmt::format("exit {}", WEXITSTATUS(status));
    }
    bool ok() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }
};

Child in_child(const std::function<std::string()>& fn, rlim_t address_space = 0) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("pipe");
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        if (address_space) {
            const rlimit limit{address_space, address_space};
            ::setrlimit(RLIMIT_AS, &limit);
        }
        std::string text;
        try {
            text = fn();
        } catch (const std::exception& e) {
            text = fmt::format("uncaught {}", e.what());
        }
        [[maybe_unused]] const auto n = ::write(fds[1], text.data(), text.size());
        ::_exit(0);
    }
    ::close(fds[1]);
    Child child;
    char buffer[4096];
    for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) child.text.append(buffer, static_cast<std::size_t>(n));
    ::close(fds[0]);
    ::waitpid(pid, &child.status, 0);
    return child;
}

KernelBuild fill_build(const std::string& target) {
    KernelBuild build;
    build.source = kTree / "kernels" / "kdbgen_fill.s";
    build.kernel_file = "kdbgen_fill.s";
    build.options = "-Wa,-defsym,kdbgen_fill_value=1";
    build.target = parse_target(target);
    build.kernels = {"KdbgenFill"};
    return build;
}

KernelBuild tensor_op_build(const std::string& target) {
    KernelBuild build;
    build.source = kTree / "kernels" / "kdbgen_tensor_op.cl";
    build.kernel_file = "kdbgen_tensor_op.cl";
    build.options = "-DMIOPEN_USE_FP16=0 -DMIOPEN_USE_FP32=1 -DMIOPEN_USE_BFP16=0 -DKDBGEN_TENSOR_OP=0 -DMLO_GRP_SZ0=256";
    build.target = parse_target(target);
    build.kernels = {"KdbgenTensorOp"};
    return build;
}

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

fs::path shared_db_dir() {
    if (const char* env = std::getenv("KDBGEN_SHARED_DB_DIR"); env && *env) return env;
    return kTree / ".." / "shared" / "miopen-db";
}

}  // namespace

// --- 2: every bzip2 stream is read; trailing garbage is an error.

TEST(BeforeFix, D2_EveryStreamOfAMultiStreamBz2IsRead) {
    TempDir dir;
    bzip2_to(dir / "a.bz2", "first half\n");
    bzip2_to(dir / "b.bz2", "second half\n");
    fs::copy_file(dir / "a.bz2", dir / "ab.txt.bz2");
    append_file(dir / "ab.txt.bz2", dir / "b.bz2");
    EXPECT_EQ(read_text_maybe_bz2(dir / "ab.txt.bz2"), "first half\nsecond half\n");
}

TEST(BeforeFix, D2_TrailingGarbageAfterABz2StreamIsAnError) {
    TempDir dir;
    bzip2_to(dir / "x.txt.bz2", "text\n");
    std::ofstream(dir / "x.txt.bz2", std::ios::binary | std::ios::app) << "garbage after the stream";
    const auto error = input_error_of([&] { read_text_maybe_bz2(dir / "x.txt.bz2"); });
    EXPECT_NE(error.find("x.txt.bz2"), std::string::npos) << error;
    EXPECT_NE(error.find("trailing garbage"), std::string::npos) << error;
}

// --- 3: a perf-db is read whole and every row is checked.

TEST(BeforeFix, D3_PerfDbWithNullParamsIsAnErrorNamingIt) {
    TempDir dir;
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
    const auto child = in_child([&] { return input_error_of([&] { PerfDb perf(db); }); });
    ASSERT_TRUE(child.ok()) << "reading the perf-db: " << child.how();
    EXPECT_NE(child.text.find("gfx1030_36.db"), std::string::npos) << child.text;
    EXPECT_NE(child.text.find("params is NULL"), std::string::npos) << child.text;
}

TEST(BeforeFix, D3_PerfDbWithADamagedPageIsAnErrorNamingIt) {
    const auto real = shared_db_dir() / "gfx1030_36.db.bz2";
    if (!fs::exists(real)) GTEST_SKIP() << "no shared perf-db (set KDBGEN_SHARED_DB_DIR)";
    TempDir dir;
    const Bytes plain = bz2_decompress_stream(read_file(real));
    Bytes damaged = plain;
    ASSERT_GT(damaged.size(), 64u * 4096);
    std::fill(damaged.begin() + 40 * 4096, damaged.begin() + 41 * 4096, '\xa5');  // one page of garbage
    write_file_atomic(dir / "damaged.db", damaged);
    const auto child = in_child([&] { return input_error_of([&] { PerfDb perf(dir / "damaged.db"); }); });
    ASSERT_TRUE(child.ok()) << child.how();
    EXPECT_NE(child.text.find("damaged.db"), std::string::npos) << "the damaged perf-db was read: " << child.text;
    write_file_atomic(dir / "whole.db", plain);
    EXPECT_EQ(input_error_of([&] { PerfDb perf(dir / "whole.db"); }), "no error");
}

// --- 7: overlays and device libraries are verified before reuse, private.

TEST(BeforeFix, D7_SynthesizedDeviceLibraryIsVerifiedBeforeReuse) {
    TempDir work;
    ToolchainOptions options;
    options.work_dir = work.path();
    const Toolchain first = discover_toolchain(options);
    ASSERT_FALSE(first.synthesized_libs.empty()) << "the packaged device libraries lack no processor here";
    const auto library = first.device_libs_overlay / first.synthesized_libs.front();
    ASSERT_TRUE(fs::exists(library));
    const Bytes good = read_file(library);
    fs::resize_file(library, 3);  // a truncated library (a full disk, a killed run)
    const Toolchain second = discover_toolchain(options);
    Target target = parse_target("gfx1030_36");
    for (const auto& p : processor_table())
        if (fmt::format("oclc_isa_version_{}.bc", p.name.substr(3)) == first.synthesized_libs.front()) target.processor = &p;
    std::string why;
    EXPECT_TRUE(ensure_isa_library(second, target, &why)) << why;
    EXPECT_EQ(read_file(library), good) << "the truncated library was reused";
}

TEST(BeforeFix, D7_NoCacheWorkFolderIsPrivateAndRemoved) {
    fs::path work;
    {
        const Toolchain tc = discover_toolchain(ToolchainOptions{});
        work = tc.work_dir;
        EXPECT_NE(work, fs::temp_directory_path() / "kdbgen-toolchain") << "a fixed name in the shared temp folder";
        struct stat st {};
        ASSERT_EQ(::lstat(work.c_str(), &st), 0);
        EXPECT_TRUE(S_ISDIR(st.st_mode));
        EXPECT_EQ(st.st_mode & 0077, 0u) << "readable or writable by others: mode " << fmt::format("{:o}", st.st_mode & 0777);
    }
    EXPECT_FALSE(fs::exists(work)) << "the private work folder is left behind";
}

// The overlay's contents in the cache key (assembler_compat_identity) are not
// checked here: the old library has no such function; docs/safety.md says
// where the old key leaves them out.
TEST(BeforeFix, D7_EditedAssemblerOverlayIsRewritten) {
    const char* src = std::getenv("KDBGEN_MIOPEN_SRC");
    if (!src || !*src) GTEST_SKIP() << "set KDBGEN_MIOPEN_SRC to a MIOpen source tree";
    const fs::path kernels = fs::path(src) / "src" / "kernels";
    TempDir work, copy;
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
    const std::string now = read_text_file(*again / "conv_common.inc");
    EXPECT_TRUE(now == good) << "an edited overlay file is assembled in; it begins: " << now.substr(0, now.find('\n'));
}

// --- 10: cache keys do not depend on where the cache is or how its path is spelled.

TEST(BeforeFix, D10_CacheKeyDoesNotDependOnTheCachePath) {
    TempDir a, b;
    ToolchainOptions one, two;
    one.work_dir = a / "cache" / "toolchain";
    two.work_dir = b / "elsewhere" / ".." / "moved" / "toolchain";
    const Compiler first(discover_toolchain(one), nullptr);
    const Compiler second(discover_toolchain(two), nullptr);
    for (const auto& build : {tensor_op_build("gfx1030_36"), fill_build("gfx90a:sramecc+:xnack-_110")})
        EXPECT_EQ(first.cache_key(build), second.cache_key(build)) << build.describe();
}

// --- 11: allocation bounded by what the blob holds.

TEST(BeforeFix, D11_UncompressedSizeIsBoundedByWhatTheBlobHolds) {
    // Under a 2 GiB address-space limit: an allocation of the claim itself fails
    // (std::bad_alloc) instead of taking 8 GB of the machine.
    const auto child = in_child(
        [] {
            const std::string zeros(1 << 20, '\0');
            const auto blob = bz2_compress_like_miopen(std::span<const char>(zeros.data(), zeros.size()));
            if (!blob) return std::string("no blob");
            StoredRow row;
            row.key = {"x.s.o", "-mcpu=gfx1030"};
            row.blob = *blob;
            row.hash = md5_hex(std::span<const char>(zeros.data(), zeros.size()));
            const auto attempt = [&](std::int64_t claim) -> std::string {
                row.uncompressed_size = claim;
                rusage before {}, after {};
                getrusage(RUSAGE_SELF, &before);
                std::string what;
                try {
                    what = fmt::format("decoded {} bytes", decode_row(row).size());
                } catch (const std::bad_alloc&) {
                    what = "std::bad_alloc";
                } catch (const std::runtime_error&) {
                    what = "runtime_error";
                }
                getrusage(RUSAGE_SELF, &after);
                return fmt::format("{} +{}KiB", what, after.ru_maxrss - before.ru_maxrss);
            };
            return attempt(8'000'000'000) + "\n" + attempt(std::int64_t{512} << 20) + "\n" +
                   attempt(static_cast<std::int64_t>(zeros.size()));
        },
        rlim_t{2} << 30);
    ASSERT_TRUE(child.ok()) << child.how();
    const auto lines = split(child.text, '\n');
    ASSERT_EQ(lines.size(), 3u) << child.text;
    EXPECT_TRUE(lines[0].starts_with("runtime_error")) << "a claim of 8e9 bytes: " << lines[0];
    EXPECT_TRUE(lines[1].starts_with("runtime_error")) << "a claim of 512 MiB: " << lines[1];
    const auto kib = std::stol(lines[1].substr(lines[1].find('+') + 1));
    EXPECT_LT(kib, 200 * 1024) << "KiB more peak memory for a 1 MiB stream";
    EXPECT_EQ(lines[2].substr(0, lines[2].find(' ', 8)), "decoded 1048576") << lines[2];
}

// --- 13: the printed command of a failed compile runs as exactly its arguments.

TEST(BeforeFix, D13_PrintedCommandOfAFailedCompileIsShellQuoted) {
    TempDir work, dir;
    ToolchainOptions options;
    options.work_dir = work.path();
    const Compiler compiler(discover_toolchain(options), nullptr);
    KernelBuild build;
    build.source = kTree / "tests" / "data" / "broken.cl";  // fails to compile
    build.kernel_file = "broken.cl";
    build.options = "-DX=';touch${IFS}" + (dir / "owned").string() + ";'";
    build.target = parse_target("gfx1030_36");
    build.kernels = {"Broken"};
    const auto result = compiler.compile(build);
    ASSERT_FALSE(result.ok);
    ASSERT_FALSE(result.command.empty()) << result.log;
    const auto pasted = run_process({"/bin/sh", "-c", result.command});  // as a user pastes it
    EXPECT_FALSE(fs::exists(dir / "owned")) << "pasting the printed command ran an injected one:\n" << result.command;
    EXPECT_NE(pasted.output.find("undeclared_value"), std::string::npos) << "not the compile it printed:\n" << pasted.output;
}
