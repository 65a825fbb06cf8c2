// Network descriptions (TOML): read_network on the input as a file.
#include "fuzz_support.hpp"
#include "kdbgen/enumerate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = kdbgen::fuzz::scratch_file(data, size, "net.toml");
    kdbgen::fuzz::refusing_bad_input([&] { kdbgen::read_network(path); });
    return 0;
}
