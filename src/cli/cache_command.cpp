// cache stats | clean
#include "commands.hpp"
#include "common.hpp"

#include <fmt/format.h>

namespace kdbgen::cli {

Action add_cache_command(CLI::App& app) {
    auto* sub = app.add_subcommand("cache", "show or clean the build cache");
    struct Options {
        CacheFlags cache;
        std::string action;
        std::string max_size;
        bool json = false;
    };
    auto options = std::make_shared<Options>();
    sub->add_option("action", options->action, "stats or clean")->required()->check(CLI::IsMember({"stats", "clean"}));
    sub->add_option("--cache-dir", options->cache.dir, "cache folder (default: $KDBGEN_CACHE_DIR, $XDG_CACHE_HOME/kdbgen)");
    sub->add_option("--max-size", options->max_size, "clean: trim to this size instead of removing everything");
    sub->add_flag("--json", options->json, "print JSON");
    return [options]() {
        options->cache.max_size = "0";
        auto cache = options->cache.open();
        if (options->action == "clean") {
            const auto removed = options->max_size.empty() ? cache->clear() : cache->trim(parse_size(options->max_size));
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
