// Target strings (--targets): parse_target_list and what each target names.
#include "fuzz_support.hpp"
#include "kdbgen/target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    kdbgen::fuzz::refusing_bad_input([&] {
        for (const auto& target : kdbgen::parse_target_list(kdbgen::fuzz::text_of(data, size))) {
            (void)target.kdb_filename();
            (void)target.db_id();
            (void)target.spec();
        }
    });
    return 0;
}
