// kdb files (SQLite): the reader and verify, as `kdbgen inspect` and `kdbgen verify` use them.
#include "fuzz_support.hpp"
#include "kdbgen/kdb.hpp"

#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = kdbgen::fuzz::scratch_file(data, size, "gfx1030_36.kdb");
    kdbgen::fuzz::refusing_bad_input([&] { (void)kdbgen::read_kdb_rows(path); });
    kdbgen::fuzz::refusing_bad_input([&] { (void)kdbgen::verify_kdb(path, std::nullopt); });
    return 0;
}
