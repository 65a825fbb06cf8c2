// perf-db files (SQLite, as MIOpen ships them): PerfDb reads every record; the input is the file.
#include "fuzz_support.hpp"
#include "kdbgen/miopen_tree.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = kdbgen::fuzz::scratch_file(data, size, "perf.db");
    kdbgen::fuzz::refusing_bad_input([&] {
        kdbgen::PerfDb db(path);
        kdbgen::ConvProblem p = kdbgen::parse_conv_problem_key("64-56-56-1x1-256-56-56-32-0x0-1x1-1x1-0-NCHW-FP32-F");
        (void)db.find(p, "ConvAsm1x1U");
    });
    return 0;
}
