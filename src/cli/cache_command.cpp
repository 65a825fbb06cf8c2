// cache stats | clean
#include "commands.hpp"
#include "common.hpp"

#include "kdbgen/error.hpp"

#include <fmt/format.h>

namespace kdbgen::cli {

Action add_cache_command(CLI::App& app) {
    auto* sub = app.add_subcommand("cache", "show or clean the build cache");
    struct Options {
        CacheFlags cache;
        std::string action;
        std::string max_size;
        bool max_size_given = false;
        bool json = false;
    };
    auto options = std::make_shared<Options>();
    sub->add_option("action", options->action, "stats or clean")->required()->check(CLI::IsMember({"stats", "clean"}));
    sub->add_option("--cache-dir", options->cache.dir, "cache folder (default: $KDBGEN_CACHE_DIR, $XDG_CACHE_HOME/kdbgen)");
    sub->add_option("--max-size", options->max_size, "clean: trim to this size instead of removing everything")
        ->each([options](const std::string&) { options->max_size_given = true; });
    sub->add_flag("--json", options->json, "print JSON");
    return [options]() {
        // An empty size is a mistake, not "remove everything".
        if (options->max_size_given && trim(options->max_size).empty())
            throw InputError("--max-size '': no size given (write e.g. --max-size 5G, or leave it out to remove everything)");
        const auto limit = options->max_size_given ? std::optional(parse_size(options->max_size)) : std::nullopt;
        auto cache = std::make_unique<BuildCache>(options->cache.dir.empty() ? BuildCache::default_dir() : fs::path(options->cache.dir),
                                                  0, CacheOpen::ExistingOnly);
        if (options->action == "clean") {
            const auto removed = limit ? cache->trim(*limit) : cache->clear();
            if (options->json) print_json({{"removed", removed}});
            else fmt::print("{}: removed {} entries\n", cache->dir().string(), removed);
            return 0;
        }
        const auto totals = cache->totals();
        if (options->json)
            print_json({{"dir", cache->dir().string()}, {"entries", totals.entries}, {"bytes", totals.bytes},
                        {"hits", totals.hits}, {"misses", totals.misses}, {"corrupt", totals.corrupt},
                        {"stores", totals.stores}});
        else
            fmt::print("cache folder   {}\nentries        {}\nsize           {}\nhits           {}\nmisses         {}\n"
                       "corrupt found  {}\n",
                       cache->dir().string(), totals.entries, human_bytes(totals.bytes), totals.hits, totals.misses,
                       totals.corrupt);
        return 0;
    };
}

}  // namespace kdbgen::cli
