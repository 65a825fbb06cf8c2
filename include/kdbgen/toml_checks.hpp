// Strict reading of TOML tables (network descriptions, kernel manifests):
// every key known, every value of the right type and range. Errors read
//   file:line: <context>: <key> = <value>: <what is wrong>
// and offer the nearest known key for a typo.
#pragma once

#include "kdbgen/error.hpp"

#include <toml++/toml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kdbgen::checks {

// The value as it is written in the file: 2, 2.5, "x", [1, 2], nan.
std::string toml_value_text(const toml::node& node);

class StrictTable {
public:
    // context: "layer 'conv1'", "[network]", "kernel 3"... (may be empty).
    StrictTable(const toml::table& table, std::string file, std::string context);

    const toml::table& table() const { return table_; }
    bool has(std::string_view key) const { return table_.contains(key); }
    std::size_t line() const { return table_.source().begin.line; }

    // An unknown key is an error with the nearest allowed one.
    void allow_only(const std::vector<std::string_view>& keys, std::string_view what) const;

    // Whole numbers only: 2.0, "2" or true are errors, as are values outside [min, max].
    std::optional<long> integer(std::string_view key, long min, long max) const;
    long integer(std::string_view key, long fallback, long min, long max) const;
    // Whole numbers or floats; NaN and infinities are errors, as are values outside [min, max].
    double real(std::string_view key, double fallback, double min, double max) const;
    bool boolean(std::string_view key, bool fallback) const;
    std::optional<std::string> string(std::string_view key) const;
    // One of `words` ("did you mean" for a near miss).
    std::string word(std::string_view key, std::string_view fallback, const std::vector<std::string_view>& words) const;

    InputError error(const toml::node* node, std::string_view key, const std::string& message) const;
    InputError error(const std::string& message) const;

private:
    const toml::table& table_;
    std::string file_, context_;
};

}  // namespace kdbgen::checks
