// MIOpenDriver logs: parse_driver_log on the input as log text.
#include "fuzz_support.hpp"
#include "kdbgen/enumerate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    kdbgen::fuzz::refusing_bad_input([&] { kdbgen::parse_driver_log(kdbgen::fuzz::text_of(data, size), "fuzz.log"); });
    return 0;
}
