// configs/targets/products.toml: the GPUs of each processor and their CU
// counts, the cards an arch-wide kdb serves.
#include "kdbgen/error.hpp"
#include "kdbgen/target.hpp"
#include "kdbgen/util.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <set>

namespace kdbgen {

std::vector<Product> read_products(const std::string& path) {
    toml::table root;
    try {
        root = toml::parse(read_text_file(path), std::string(path));
    } catch (const toml::parse_error& e) {
        throw InputError(located(path, e.source().begin.line, std::string(e.description())));
    }
    for (const auto& [key, node] : root)
        if (key.str() != "product")
            throw InputError(located(path, node.source().begin.line,
                                     fmt::format("unknown table or key '{}' (expected [[product]])", key.str())));
    const auto* list = root.get_as<toml::array>("product");
    if (!list || list->empty()) throw InputError(located(path, 0, "no [[product]] tables"));
    std::vector<Product> products;
    for (const auto& node : *list) {
        const auto* table = node.as_table();
        const auto line = node.source().begin.line;
        if (!table) throw InputError(located(path, line, "product is not a table"));
        for (const auto& [key, value] : *table) {
            static const std::set<std::string> known{"name", "processor", "compute_units", "source"};
            if (!known.count(std::string(key.str())))
                throw InputError(located(path, value.source().begin.line,
                                         fmt::format("unknown key '{}' (known: name, processor, compute_units, source)",
                                                     key.str())));
        }
        const auto text = [&](const char* key) {
            const auto* value = table->get_as<std::string>(key);
            if (!value || value->get().empty())
                throw InputError(located(path, line, fmt::format("[[product]] needs '{}' as a non-empty string", key)));
            return value->get();
        };
        Product product{text("name"), text("processor"), 0, text("source")};
        if (!find_processor(product.processor))
            throw InputError(located(path, line, fmt::format("unknown processor '{}' (known: {})", product.processor,
                                                             known_processor_names())));
        const auto* cus = table->get_as<int64_t>("compute_units");
        if (!cus || cus->get() <= 0 || cus->get() > 4096)
            throw InputError(located(path, line, "'compute_units' must be an integer from 1 to 4096"));
        product.compute_units = static_cast<unsigned>(cus->get());
        products.push_back(std::move(product));
    }
    return products;
}

std::vector<unsigned> product_compute_units(const std::vector<Product>& products, std::string_view processor) {
    std::vector<unsigned> out;
    for (const auto& product : products)
        if (product.processor == processor) out.push_back(product.compute_units);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace kdbgen
