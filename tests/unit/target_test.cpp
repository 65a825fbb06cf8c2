// Target table and MIOpen's database naming.
//
// Golden names are MIOpen's rules worked by hand, from MIOpen 3.3.0 (develop
// 2d1fd997) and rocm-6.2.0, whose files agree on these lines:
//   src/include/miopen/handle.hpp:225-236  GetDbBasename: "_<CUs>" when CUs <= 64, else CUs in lowercase hex
//   src/target_properties.cpp:99-104        sramecc: computed true for gfx906/gfx908, unset elsewhere
//   src/target_properties.cpp:116-135       InitDbId: _nosramecc / _sramecc / _xnack suffixes
//   src/target_properties.cpp:58-63         device aliases (gfx901 -> gfx900, Vega10 -> gfx900, ...)
//   src/hip/handlehip.cpp:547-548           kernel_args end in " -mcpu=" + the base name
#include "kdbgen/error.hpp"
#include "kdbgen/target.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <fstream>

using namespace kdbgen;

TEST(TargetTable, HasEveryProcessorMIOpenUsersRun) {
    for (const char* name : {"gfx803", "gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx1010",
                             "gfx1011", "gfx1012", "gfx1030", "gfx1031", "gfx1032", "gfx1034", "gfx1035", "gfx1036",
                             "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1200", "gfx1201"})
        EXPECT_NE(find_processor(name), nullptr) << name;
    EXPECT_EQ(processor_table().size(), 25u);
}

TEST(TargetTable, RowFacts) {
    // llvm/include/llvm/BinaryFormat/ELF.h EF_AMDGPU_MACH_AMDGCN_* (LLVM 19); the
    // compile tests check these against what LLVM really writes.
    struct Row { const char* name; bool xnack, sramecc; unsigned wave; bool xdlops; unsigned mach; };
    const Row rows[] = {
        {"gfx803", false, false, 64, false, 0x2a},  {"gfx900", true, false, 64, false, 0x2c},
        {"gfx906", true, true, 64, false, 0x2f},    {"gfx908", true, true, 64, true, 0x30},
        {"gfx90a", true, true, 64, true, 0x3f},     {"gfx940", true, true, 64, true, 0x40},
        {"gfx941", true, true, 64, true, 0x4b},     {"gfx942", true, true, 64, true, 0x4c},
        {"gfx1010", true, false, 32, false, 0x33},  {"gfx1011", true, false, 32, false, 0x34},
        {"gfx1012", true, false, 32, false, 0x35},  {"gfx1030", false, false, 32, false, 0x36},
        {"gfx1031", false, false, 32, false, 0x37}, {"gfx1032", false, false, 32, false, 0x38},
        {"gfx1034", false, false, 32, false, 0x3e}, {"gfx1035", false, false, 32, false, 0x3d},
        {"gfx1036", false, false, 32, false, 0x45}, {"gfx1100", false, false, 32, false, 0x41},
        {"gfx1101", false, false, 32, false, 0x46}, {"gfx1102", false, false, 32, false, 0x47},
        {"gfx1103", false, false, 32, false, 0x44}, {"gfx1150", false, false, 32, false, 0x43},
        {"gfx1151", false, false, 32, false, 0x4a}, {"gfx1200", false, false, 32, false, 0x48},
        {"gfx1201", false, false, 32, false, 0x4e},
    };
    for (const auto& row : rows) {
        const auto* p = find_processor(row.name);
        ASSERT_NE(p, nullptr) << row.name;
        EXPECT_EQ(p->supports_xnack, row.xnack) << row.name;
        EXPECT_EQ(p->supports_sramecc, row.sramecc) << row.name;
        EXPECT_EQ(p->default_wave_size, row.wave) << row.name;
        EXPECT_EQ(p->xdlops, row.xdlops) << row.name;
        EXPECT_EQ(p->elf_mach, row.mach) << row.name;
    }
}

TEST(TargetNaming, DecimalUpTo64CUsHexAbove) {
    EXPECT_EQ(parse_target("gfx1030_36").db_basename(), "gfx1030_36");
    EXPECT_EQ(parse_target("gfx900_56").db_basename(), "gfx900_56");
    EXPECT_EQ(parse_target("gfx906_60").db_basename(), "gfx906_60");
    EXPECT_EQ(parse_target("gfx906_64").db_basename(), "gfx906_64");
    EXPECT_EQ(parse_target("gfx906_65").db_basename(), "gfx90641");
    EXPECT_EQ(parse_target("gfx90a_110").db_basename(), "gfx90a6e");
    EXPECT_EQ(parse_target("gfx908_120").db_basename(), "gfx90878");
    EXPECT_EQ(parse_target("gfx942_304").db_basename(), "gfx942130");
    EXPECT_EQ(parse_target("gfx90a_104").db_basename(), "gfx90a68");
    EXPECT_EQ(parse_target("gfx1030_36").kdb_filename(), "gfx1030_36.kdb");
    EXPECT_EQ(parse_target("gfx90a_110").fallback_kdb_filename(), "gfx90a.kdb");
}

TEST(TargetNaming, XnackSuffix) {
    EXPECT_EQ(parse_target("gfx90a:xnack+_110").db_id(), "gfx90a_xnack");
    EXPECT_EQ(parse_target("gfx90a:xnack+_110").db_basename(), "gfx90a_xnack6e");
    EXPECT_EQ(parse_target("gfx90a:sramecc+:xnack+_110").db_basename(), "gfx90a_xnack6e");
    EXPECT_EQ(parse_target("gfx90a:xnack-_110").db_basename(), "gfx90a6e");
    EXPECT_EQ(parse_target("gfx906:xnack+_60").db_basename(), "gfx906_xnack_60");
    EXPECT_EQ(parse_target("gfx1010:xnack+_20").db_basename(), "gfx1010_xnack_20");
}

TEST(TargetNaming, SrameccBranchesAsMIOpen33EvaluatesThem) {
    // sramecc is computed, not reported: on for gfx906/gfx908 whatever the
    // device says, so _nosramecc never fires; unset elsewhere, so _sramecc never fires.
    EXPECT_EQ(parse_target("gfx906:sramecc-_60").db_id(), "gfx906");
    EXPECT_EQ(parse_target("gfx906:sramecc+_60").db_id(), "gfx906");
    EXPECT_EQ(parse_target("gfx908:sramecc-_120").db_id(), "gfx908");
    EXPECT_EQ(parse_target("gfx90a:sramecc+_110").db_id(), "gfx90a");
    EXPECT_EQ(parse_target("gfx942:sramecc+:xnack-_304").db_basename(), "gfx942130");
    EXPECT_EQ(parse_target("gfx906_60").miopen_sramecc(), std::optional<bool>(true));
    EXPECT_EQ(parse_target("gfx90a:sramecc+_110").miopen_sramecc(), std::nullopt);
}

TEST(TargetNaming, McpuSuffixUsesBaseName) {
    EXPECT_EQ(parse_target("gfx90a:sramecc+:xnack-_110").mcpu_suffix(), " -mcpu=gfx90a");
    EXPECT_EQ(parse_target("gfx1030_36").mcpu_suffix(), " -mcpu=gfx1030");
}

TEST(TargetNaming, CompilerTargetIds) {
    // comgr BuildOcl: device + xnack (src/comgr.cpp:229-236, WORKAROUND_ISSUE_1257);
    // BuildAsm: device + sramecc_reported + xnack (hip_build_utils.hpp:59-77).
    const auto t = parse_target("gfx90a:sramecc+:xnack-_110");
    EXPECT_EQ(t.ocl_target_id(), "gfx90a:xnack-");
    EXPECT_EQ(t.asm_target_id(), "gfx90a:sramecc+:xnack-");
    EXPECT_EQ(t.hip_target_id(), "gfx90a:sramecc+:xnack-");
    // Unstated xnack compiles as xnack-, what ROCm reports on discrete GPUs.
    EXPECT_EQ(parse_target("gfx906_60").asm_target_id(), "gfx906:sramecc+:xnack-");
    EXPECT_EQ(parse_target("gfx906_60").ocl_target_id(), "gfx906:xnack-");
    EXPECT_EQ(parse_target("gfx1030_36").hip_target_id(), "gfx1030");
    EXPECT_EQ(parse_target("gfx900:xnack-_56").asm_target_id(), "gfx900:xnack-");
}

TEST(TargetParse, AliasesAndRoundTrip) {
    EXPECT_EQ(parse_target("gfx901_64").name(), "gfx900");
    EXPECT_EQ(parse_target("Vega10_64").name(), "gfx900");
    for (const char* spec : {"gfx1030_36", "gfx90a:sramecc+:xnack-_110", "gfx906:xnack+_60"})
        EXPECT_EQ(parse_target(spec).spec(), spec);
}

// Arch-wide targets: AMD's kdbs are named by DbId alone (gfx1030.kdb, src/kernels/*.kdb.bz2 in
// MIOpen 3.3.0), the name src/binary_cache.cpp:128-140 (GetDb) tries after <DbBasename>.kdb.
TEST(TargetParse, ArchWideTargetsAreNamedByDbIdAlone) {
    EXPECT_TRUE(parse_target("gfx1030").arch_wide());
    EXPECT_FALSE(parse_target("gfx1030_36").arch_wide());
    EXPECT_EQ(parse_target("gfx1030").kdb_filename(), "gfx1030.kdb");
    EXPECT_EQ(parse_target("gfx90a").kdb_filename(), "gfx90a.kdb");
    EXPECT_EQ(parse_target("gfx906").kdb_filename(), "gfx906.kdb");
    EXPECT_EQ(parse_target("gfx90a:xnack+").kdb_filename(), "gfx90a_xnack.kdb");
    EXPECT_EQ(parse_target("gfx90a:sramecc+:xnack-").kdb_filename(), "gfx90a.kdb");
    EXPECT_EQ(parse_target("gfx1030").fallback_kdb_filename(), "gfx1030.kdb");
    for (const char* spec : {"gfx1030", "gfx90a:xnack+", "gfx90a:sramecc+:xnack-"})
        EXPECT_EQ(parse_target(spec).spec(), spec);
}

TEST(TargetParse, IsaVersions) {
    EXPECT_EQ(parse_target("gfx90a_110").isa_version(), 9010u);
    EXPECT_EQ(parse_target("gfx942_304").isa_version(), 9402u);
    EXPECT_EQ(parse_target("gfx1100_48").isa_version(), 11000u);
    EXPECT_EQ(parse_target("gfx1151_20").isa_version(), 11501u);
    EXPECT_EQ(parse_target("gfx803_36").isa_version(), 8003u);
}

TEST(TargetParse, BadTargetsAreClearErrors) {
    const auto message = [](const char* spec) { return test::input_error_of([&] { parse_target(spec); }); };
    EXPECT_NE(message("gfx1234_10").find("unknown processor 'gfx1234'"), std::string::npos);
    EXPECT_NE(message("gfx1234_10").find("gfx1030"), std::string::npos) << "lists the valid processors";
    EXPECT_NE(message("gfx1030_").find("compute units"), std::string::npos);
    EXPECT_NE(message("gfx1030_0").find("compute units"), std::string::npos);
    EXPECT_NE(message("gfx1030_x").find("compute units"), std::string::npos);
    EXPECT_NE(message("gfx1030:xnack+_36").find("does not support xnack"), std::string::npos);
    EXPECT_NE(message("gfx900:sramecc+_56").find("does not support sramecc"), std::string::npos);
    EXPECT_NE(message("gfx90a:xnack_110").find("must end in + or -"), std::string::npos);
    EXPECT_NE(message("gfx90a:wavefrontsize64+_110").find("unknown feature"), std::string::npos);
    EXPECT_THROW(parse_target_list(" , "), InputError);
}

TEST(TargetParse, TargetFileErrorsNameFileAndLine) {
    test::TempDir dir;
    const auto path = (dir / "targets.txt").string();
    std::ofstream(path) << "# comment\ngfx1030_36\n\ngfx9000_1  # typo\n";
    try {
        read_target_file(path);
        FAIL() << "no error";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(path + ":4:"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("gfx9000"), std::string::npos) << e.what();
    }
    EXPECT_EQ(read_target_file((test::source_dir() / "configs/targets/all.txt").string()).size(), 25u);
}

// Decided for issue 16: gfx900:xnack+ is a target MIOpen can ask for (its DbId takes "_xnack" from the
// device name for any processor, src/target_properties.cpp:105-133, MIOpen 3.3.0), so kdbgen accepts it
// and names the kdb as MIOpen looks it up; an empty list or an empty item is an error.
TEST(Targets, Gfx900XnackOnIsMIOpensDbIdAndEmptyListsAreErrors) {
    const auto t = parse_target("gfx900:xnack+_56");
    EXPECT_EQ(t.db_id(), "gfx900_xnack");
    EXPECT_EQ(t.kdb_filename(), "gfx900_xnack_56.kdb");
    EXPECT_EQ(parse_target("gfx900_56").kdb_filename(), "gfx900_56.kdb");
    EXPECT_THROW(parse_target_list(""), InputError);
    EXPECT_NE(test::input_error_of([] { parse_target_list("gfx906_60,,gfx1030_36"); }).find("item 2 is empty"),
              std::string::npos);
}
