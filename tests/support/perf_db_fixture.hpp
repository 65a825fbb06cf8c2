// A MIOpen perf-db written by a test: the `config` and `perf_db` tables as
// MIOpen's perf-db files have them (src/include/miopen/conv/problem_description.hpp
// and src/include/miopen/perf_field.hpp, MIOpen 3.3.0), one config row per
// problem. For targets whose shipped perf-db the MIOpen tree at hand lacks
// (gfx908 and gfx90a: their .db.bz2 blobs are too large for the mirror), a
// solver's record path is tested with a record written here.
#pragma once

#include "kdbgen/enumerate.hpp"
#include "kdbgen/miopen_tree.hpp"
#include "kdbgen/util.hpp"

#include <sqlite3.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace kdbgen::test {

struct PerfDbRecord {
    std::string problem_key;  // a find-db key: 64-56-56-3x3-64-56-56-32-1x1-1x1-1x1-0-NCHW-FP32-F
    std::string solver;
    std::string params;       // as MIOpen serializes the solver's performance config
};

inline fs::path write_perf_db(const fs::path& path, const std::vector<PerfDbRecord>& records) {
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) throw std::runtime_error("cannot create " + path.string());
    const auto exec = [&](const std::string& sql) {
        char* error = nullptr;
        if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
            const std::string why = error ? error : "?";
            sqlite3_free(error);
            sqlite3_close(db);
            throw std::runtime_error(path.string() + ": " + why);
        }
    };
    exec("CREATE TABLE config (id INTEGER PRIMARY KEY ASC, layout TEXT, data_type TEXT, direction TEXT,"
         " spatial_dim INT, in_channels INT, in_h INT, in_w INT, in_d INT, fil_h INT, fil_w INT, fil_d INT,"
         " out_channels INT, batchsize INT, pad_h INT, pad_w INT, pad_d INT, conv_stride_h INT, conv_stride_w INT,"
         " conv_stride_d INT, dilation_h INT, dilation_w INT, dilation_d INT, bias INT, group_count INT);"
         "CREATE TABLE perf_db (id INTEGER PRIMARY KEY ASC, solver TEXT, config INTEGER, params TEXT);");
    int id = 0;
    for (const auto& record : records) {
        ++id;
        // PerfDb::config_key lists the config columns in table order, '|'-separated.
        const auto columns = split(PerfDb::config_key(parse_conv_problem_key(record.problem_key)), '|');
        std::string values = std::to_string(id);
        for (std::size_t i = 0; i < columns.size(); ++i)
            values += i < 3 ? ",'" + columns[i] + "'" : "," + columns[i];
        exec("INSERT INTO config VALUES (" + values + ");");
        exec("INSERT INTO perf_db (solver, config, params) VALUES ('" + record.solver + "'," + std::to_string(id) +
             ",'" + record.params + "');");
    }
    sqlite3_close(db);
    return path;
}

}  // namespace kdbgen::test
