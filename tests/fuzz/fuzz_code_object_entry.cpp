// A code object entry of the build cache (issue #25): whatever bytes sit under a key, load()
// returns only an object sealed under that key, else a miss; it never crashes or throws.
#include "fuzz_support.hpp"
#include "kdbgen/cache.hpp"
#include "kdbgen/cache_entry.hpp"

namespace {

const std::string kKey = std::string(64, 'a');

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto object = kdbgen::fuzz::scratch_file(data, size, "cache/aa/" + kKey.substr(2) + ".co");
    kdbgen::BuildCache cache(object.parent_path().parent_path(), 0);
    // The raw bytes as an entry: anything but a sealed entry of this key is a miss.
    if (const auto code = cache.load(kKey)) {
        const auto payload = kdbgen::open_cache_entry("code-object", kKey, kdbgen::fuzz::text_of(data, size));
        if (!payload || std::string_view(code->data(), code->size()) != *payload) __builtin_trap();
    }
    // The bytes as an object, sealed: the same bytes come back.
    const kdbgen::Bytes body(data, data + size);
    cache.store(kKey, body);
    const auto back = cache.load(kKey);
    if (size > 0 && (!back || *back != body)) __builtin_trap();
    return 0;
}
