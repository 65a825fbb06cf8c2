// An unpacked find-db text in the cache (issue #25): whatever bytes sit in the entry, reading
// the packed find-db gives exactly its own lines (the entry is refused and unpacked again) or,
// for a sealed entry of other text, that text read strictly; nothing crashes.
#include "fuzz_support.hpp"
#include "kdbgen/cache_entry.hpp"
#include "kdbgen/enumerate.hpp"

#include <bzlib.h>

namespace {

const std::string kText =
    "64-28-28-3x3-64-28-28-1-1x1-1x1-1x1-0-NCHW-FP32-F=ConvOclDirectFwd:0.5,0,miopenConvolutionFwdAlgoDirect\n"
    "64-28-28-3x3-64-28-28-2-1x1-1x1-1x1-0-NCHW-FP32-F=ConvOclDirectFwd:0.5,0,miopenConvolutionFwdAlgoDirect\n";

kdbgen::Bytes packed_text() {
    std::vector<char> out(kText.size() + 1024);
    unsigned int length = static_cast<unsigned int>(out.size());
    if (BZ2_bzBuffToBuffCompress(out.data(), &length, const_cast<char*>(kText.data()),
                                 static_cast<unsigned int>(kText.size()), 9, 0, 0) != BZ_OK)
        __builtin_trap();
    out.resize(length);
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const kdbgen::Bytes packed = packed_text();
    static const auto truth = kdbgen::parse_find_db(kText, "truth");
    const auto find_db = kdbgen::fuzz::scratch_file(reinterpret_cast<const std::uint8_t*>(packed.data()), packed.size(),
                                                    "gfx1030_36.HIP.fdb.txt.bz2");
    const auto decoded_dir = find_db.parent_path() / "decoded";
    const std::string digest = kdbgen::Sha256().add(std::string_view(packed.data(), packed.size())).hex();
    kdbgen::fuzz::scratch_file(data, size, "decoded/" + digest + ".txt");
    const auto entries = kdbgen::read_find_db(find_db, decoded_dir);
    if (entries.size() != truth.size()) __builtin_trap();
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (entries[i].key != truth[i].key) __builtin_trap();
    // The bytes as text, sealed under the packed file's digest: read strictly, as given text is.
    const auto sealed = kdbgen::seal_cache_entry("find-db-text", digest, std::span<const char>(reinterpret_cast<const char*>(data), size));
    kdbgen::fuzz::scratch_file(reinterpret_cast<const std::uint8_t*>(sealed.data()), sealed.size(), "decoded/" + digest + ".txt");
    kdbgen::fuzz::refusing_bad_input([&] { kdbgen::read_find_db(find_db, decoded_dir); });
    return 0;
}
