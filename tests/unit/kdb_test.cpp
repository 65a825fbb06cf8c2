// The kdb writer and reader against MIOpen's own definitions.
//
// Golden text from MIOpen 3.3.0 (develop 2d1fd997, 2024-10-24), identical in rocm-6.2.0:
//   src/include/miopen/kern_db.hpp:57-72   KernelConfig::CreateQuery()
//   src/include/miopen/kern_db.hpp:160-190 StoreRecordUnsafe: raw blob with uncompressed_size 0
//                                          when compress() fails, md5 of the uncompressed blob
//   src/include/miopen/kern_db.hpp:116-145 FindRecordUnsafe: "Possible database corruption"
//   src/bz2.cpp:62-80                       compress(): BZ2_bzBuffToBuffCompress(..., 9, 0, 30)
#include "kdbgen/codeobject.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/kdb.hpp"
#include "test_support.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

using namespace kdbgen;

namespace {

// MIOpen's CreateQuery() output, written out by hand from kern_db.hpp:60-70.
const char* const kMiopenCreateQuery =
    "CREATE TABLE IF NOT EXISTS `kern_db` (`id` INTEGER PRIMARY KEY ASC,`kernel_name` TEXT NOT NULL,"
    "`kernel_args` TEXT NOT NULL,`kernel_blob` BLOB NOT NULL,`kernel_hash` TEXT NOT NULL,"
    "`uncompressed_size` INT NOT NULL);CREATE UNIQUE INDEX IF NOT EXISTS `idx_kern_db` ON "
    "kern_db(kernel_name, kernel_args);";

std::vector<std::string> schema_of(const fs::path& path) {
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* stmt = nullptr;
    sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_master ORDER BY name;", -1, &stmt, nullptr);
    std::vector<std::string> out;
    while (sqlite3_step(stmt) == SQLITE_ROW)
        out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return out;
}

void exec(const fs::path& path, const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    char* error = nullptr;
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
    sqlite3_close(db);
}

// A real code object from the demo's assembly kernel, built once.
const Bytes& sample_code_object() {
    static const Bytes code = [] {
        test::TempDir dir;
        const auto& tc = test::toolchain();
        const auto obj = dir / "k.o", co = dir / "k.co";
        const auto assemble = run_process({tc.clang().string(), "-x", "assembler", "-target", "amdgcn-amd-amdhsa",
                                           "-mcpu=gfx1030", "-c", (test::kernels_dir() / "kdbgen_fill.s").string(),
                                           "-o", obj.string()});
        const auto link = run_process({tc.lld().string(), "-shared", obj.string(), "-o", co.string()});
        EXPECT_EQ(assemble.exit_code, 0) << assemble.output;
        EXPECT_EQ(link.exit_code, 0) << link.output;
        return read_file(co);
    }();
    return code;
}

std::vector<KdbRecord> sample_records() {
    return {{{"kdbgen_fill.s.o", "-Wa,-defsym,KDBGEN_FILL_GROUP_SIZE=64 -mcpu=gfx1030"}, sample_code_object()},
            {{"kdbgen_fill.s.o", "-Wa,-defsym,KDBGEN_FILL_GROUP_SIZE=256 -mcpu=gfx1030"}, sample_code_object()}};
}

std::string verify_faults(const fs::path& path) {
    const auto report = verify_kdb(path, parse_target("gfx1030_36"));
    return join(report.faults, "\n");
}

}  // namespace

TEST(KdbSchema, CreateSqlIsMIOpensByteForByte) { EXPECT_EQ(kdb_create_sql(), kMiopenCreateQuery); }

TEST(KdbSchema, WrittenFileSchemaEqualsOneMIOpenCreates) {
    test::TempDir dir;
    write_kdb(dir / "gfx1030_36.kdb", sample_records());
    exec(dir / "miopen.kdb", kMiopenCreateQuery);
    EXPECT_EQ(schema_of(dir / "gfx1030_36.kdb"), schema_of(dir / "miopen.kdb"));
    EXPECT_EQ(schema_of(dir / "gfx1030_36.kdb").size(), 2u);
}

TEST(KdbSchema, SqliteShellSchemaMatches) {
    if (std::system("command -v sqlite3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "sqlite3 shell not installed";
    test::TempDir dir;
    write_kdb(dir / "gfx1030_36.kdb", sample_records());
    exec(dir / "miopen.kdb", kMiopenCreateQuery);
    const auto ours = run_process({"/usr/bin/sqlite3", (dir / "gfx1030_36.kdb").string(), ".schema"});
    const auto theirs = run_process({"/usr/bin/sqlite3", (dir / "miopen.kdb").string(), ".schema"});
    EXPECT_EQ(ours.exit_code, 0);
    EXPECT_FALSE(ours.output.empty());
    EXPECT_EQ(ours.output, theirs.output);
}

TEST(KdbWrite, RoundTripMd5AndCompression) {
    test::TempDir dir;
    const auto path = dir / "gfx1030_36.kdb";
    const auto records = sample_records();
    const auto stats = write_kdb(path, records);
    EXPECT_EQ(stats.records, 2u);
    const auto rows = read_kdb_rows(path);
    ASSERT_EQ(rows.size(), 2u);
    for (const auto& row : rows) {
        EXPECT_EQ(row.hash, md5_hex(sample_code_object()));
        EXPECT_EQ(row.uncompressed_size, static_cast<std::int64_t>(sample_code_object().size()));
        EXPECT_LT(row.blob.size(), sample_code_object().size());
        EXPECT_EQ(std::string(row.blob.data(), 3), "BZh");
        EXPECT_EQ(decode_row(row), sample_code_object());
    }
    const auto decoded = read_kdb(path);
    EXPECT_EQ(decoded.at(records[0].key), sample_code_object());
    EXPECT_TRUE(verify_kdb(path, parse_target("gfx1030_36")).ok()) << verify_faults(path);
}

TEST(KdbWrite, IncompressibleBlobStoredRawWithSizeZero) {
    Bytes noise(2048);
    unsigned state = 7;
    for (auto& c : noise) c = static_cast<char>((state = state * 1664525u + 1013904223u) >> 24);
    const auto row = encode_row({{"x.cl.o", "-mcpu=gfx1030"}, noise});
    EXPECT_EQ(row.uncompressed_size, 0);
    EXPECT_EQ(row.blob, noise);
    EXPECT_EQ(decode_row(row), noise);
}

TEST(KdbWrite, DeterministicBytesWhateverTheInputOrder) {
    test::TempDir dir;
    auto records = sample_records();
    write_kdb(dir / "a.kdb", records);
    std::reverse(records.begin(), records.end());
    write_kdb(dir / "b.kdb", records);
    EXPECT_EQ(read_file(dir / "a.kdb"), read_file(dir / "b.kdb"));
}

TEST(KdbWrite, UpdateReplacesKeysAndKeepsOthers) {
    test::TempDir dir;
    const auto path = dir / "gfx1030_36.kdb";
    write_kdb(path, sample_records());
    const Bytes other = test::bytes_of("not really code");
    const auto stats = write_kdb(path, {{sample_records()[0].key, other}, {{"new.cl.o", "-mcpu=gfx1030"}, other}}, true);
    EXPECT_EQ(stats.records, 3u);
    EXPECT_EQ(stats.replaced, 1u);
    EXPECT_EQ(stats.kept, 1u);
    const auto decoded = read_kdb(path);
    EXPECT_EQ(decoded.at(sample_records()[0].key), other);
    EXPECT_EQ(decoded.at(sample_records()[1].key), sample_code_object());
}

TEST(KdbWrite, UnwritableOutputFolderIsAnErrorAndLeavesNothing) {
    if (::geteuid() == 0) {
        // root ignores permission bits; a missing folder is the same fault.
        test::TempDir dir;
        EXPECT_THROW(write_kdb(dir / "missing" / "gfx1030_36.kdb", sample_records()), InputError);
        EXPECT_TRUE(fs::is_empty(dir.path()));
        return;
    }
    test::TempDir dir;
    fs::permissions(dir.path(), fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(write_kdb(dir / "gfx1030_36.kdb", sample_records()), InputError);
    fs::permissions(dir.path(), fs::perms::owner_all);
    EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(KdbFileName, TargetFromName) {
    EXPECT_EQ(target_from_kdb_filename("x/gfx90a6e.kdb")->compute_units, 110u);
    EXPECT_EQ(target_from_kdb_filename("x/gfx90a6e.kdb")->name(), "gfx90a");
    EXPECT_EQ(target_from_kdb_filename("gfx942130.kdb")->compute_units, 304u);
    EXPECT_EQ(target_from_kdb_filename("gfx1030_36.kdb")->name(), "gfx1030");
    EXPECT_EQ(target_from_kdb_filename("gfx90a_xnack6e.kdb")->xnack, FeatureState::On);
    EXPECT_EQ(target_from_kdb_filename("gfx906.kdb")->name(), "gfx906");
    EXPECT_FALSE(target_from_kdb_filename("resnet.kdb").has_value());
}

class KdbCorruption : public ::testing::Test {
protected:
    void SetUp() override { write_kdb(path, sample_records()); }
    test::TempDir dir;
    fs::path path = dir / "gfx1030_36.kdb";
};

TEST_F(KdbCorruption, TruncatedFile) {
    auto bytes = read_file(path);
    bytes.resize(bytes.size() / 3);
    write_file_atomic(path, bytes);
    const auto faults = [&] {
        try {
            return verify_faults(path);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
    }();
    EXPECT_FALSE(faults.empty());
    EXPECT_NE(faults.find(path.string()), std::string::npos) << faults;
}

TEST_F(KdbCorruption, WrongMd5) {
    exec(path, "UPDATE kern_db SET kernel_hash = '00000000000000000000000000000000' WHERE id = 1;");
    const auto faults = verify_faults(path);
    EXPECT_NE(faults.find("record id 1"), std::string::npos) << faults;
    EXPECT_NE(faults.find("Possible database corruption"), std::string::npos) << faults;
    EXPECT_THROW(read_kdb(path), InputError);
}

TEST_F(KdbCorruption, BadBz2Stream) {
    exec(path, "UPDATE kern_db SET kernel_blob = X'425A6839DEADBEEF' WHERE id = 2;");
    const auto faults = verify_faults(path);
    EXPECT_NE(faults.find("record id 2"), std::string::npos) << faults;
    EXPECT_NE(faults.find("bzip2"), std::string::npos) << faults;
}

TEST_F(KdbCorruption, WrongTableColumns) {
    fs::remove(path);
    exec(path, "CREATE TABLE kern_db(id INTEGER PRIMARY KEY, kernel_name TEXT, kernel_args TEXT, blob BLOB);");
    try {
        verify_kdb(path, parse_target("gfx1030_36"));
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("kernel_blob"), std::string::npos) << e.what();
    }
}

TEST_F(KdbCorruption, NotAnElfOrWrongProcessor) {
    write_kdb(path, {{{"x.cl.o", "-mcpu=gfx1030"}, test::bytes_of("plain text, not ELF")}});
    EXPECT_NE(verify_faults(path).find("not an ELF file"), std::string::npos);
    write_kdb(path, sample_records());
    const auto report = verify_kdb(path, parse_target("gfx906_60"));
    EXPECT_NE(join(report.faults, "\n").find("e_flags machine is 0x036, gfx906 is 0x02f"), std::string::npos)
        << join(report.faults, "\n");
}

TEST(KdbDiffMerge, DiffAndMerge) {
    test::TempDir dir;
    const auto records = sample_records();
    write_kdb(dir / "a.kdb", {records[0]});
    write_kdb(dir / "b.kdb", {records[1]});
    const auto diff = diff_kdbs(dir / "a.kdb", dir / "b.kdb");
    EXPECT_EQ(diff.only_a.size(), 1u);
    EXPECT_EQ(diff.only_b.size(), 1u);
    EXPECT_EQ(diff.same, 0u);
    merge_kdbs(dir / "gfx1030_36.kdb", {dir / "a.kdb", dir / "b.kdb"});
    write_kdb(dir / "whole.kdb", records);
    EXPECT_EQ(read_file(dir / "gfx1030_36.kdb"), read_file(dir / "whole.kdb")) << "merge equals one build";
    write_kdb(dir / "c.kdb", {{records[0].key, test::bytes_of("different")}});
    EXPECT_EQ(diff_kdbs(dir / "a.kdb", dir / "c.kdb").different_code.size(), 1u);
    EXPECT_THROW(merge_kdbs(dir / "m.kdb", {dir / "a.kdb", dir / "c.kdb"}), InputError);
    EXPECT_FALSE(fs::exists(dir / "m.kdb"));
}
