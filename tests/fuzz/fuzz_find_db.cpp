// find-db text, read strictly (a given --find-db) and skipping keys MIOpen never forms (a tree's).
#include "fuzz_support.hpp"
#include "kdbgen/enumerate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = kdbgen::fuzz::text_of(data, size);
    kdbgen::fuzz::refusing_bad_input([&] {
        for (const auto& entry : kdbgen::parse_find_db(text, "fuzz.fdb.txt"))
            if (entry.problem.serialize() != entry.key) __builtin_trap();  // every accepted key round-trips
    });
    kdbgen::UnreadableFindDbLines skipped;
    kdbgen::fuzz::refusing_bad_input([&] { kdbgen::parse_find_db(text, "fuzz.fdb.txt", &skipped); });
    return 0;
}
