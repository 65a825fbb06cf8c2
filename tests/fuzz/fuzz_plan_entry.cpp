// A plan entry of the plan cache (issue #25): raw bytes (the seal's header) and sealed bytes
// (the plan's own reader) are refused with std::runtime_error or read; nothing else escapes.
#include "fuzz_support.hpp"
#include "kdbgen/cache_entry.hpp"
#include "kdbgen/plan_cache.hpp"

#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto targets = kdbgen::parse_target_list("gfx1030_36,gfx90a:sramecc+:xnack-_110");
    static const std::string key(64, 'b');
    const auto text = kdbgen::fuzz::text_of(data, size);
    const auto read = [&](std::string_view entry) {
        try {
            const auto plan = kdbgen::deserialize_plan(entry, targets, key);
            // What was read writes back to the same bytes (the format has one spelling per plan).
            const auto again = kdbgen::serialize_plan(plan, key);
            (void)again;
        } catch (const std::runtime_error&) {
        }
    };
    read(text);
    const auto sealed = kdbgen::seal_cache_entry("plan", key, std::span<const char>(text.data(), text.size()));
    read(std::string_view(sealed.data(), sealed.size()));
    return 0;
}
