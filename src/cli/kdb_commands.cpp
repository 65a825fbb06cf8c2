// inspect, verify, diff, merge: reading kdbs, ours or MIOpen's.
#include "commands.hpp"
#include "common.hpp"

#include "kdbgen/codeobject.hpp"
#include "kdbgen/error.hpp"
#include "kdbgen/kdb.hpp"
#include "kdbgen/paths.hpp"

#include <fmt/format.h>

#include <iostream>
#include <algorithm>
#include <map>
#include <memory>

namespace kdbgen::cli {

namespace {

nlohmann::json key_json(const KdbKey& key) { return {{"kernel_name", key.kernel_name}, {"kernel_args", key.kernel_args}}; }

}  // namespace

Action add_inspect_command(CLI::App& app) {
    auto* sub = app.add_subcommand("inspect", "list the records of a kdb");
    struct Options {
        std::string file;
        bool json = false;
    };
    auto options = std::make_shared<Options>();
    sub->add_option("file", options->file, "the .kdb file")->required();
    sub->add_flag("--json", options->json, "print JSON");
    return [options]() {
        const auto rows = read_kdb_rows(options->file);
        nlohmann::json out = nlohmann::json::array();
        for (const auto& row : rows) {
            nlohmann::json record = key_json(row.key);
            record["id"] = row.id;
            record["stored_size"] = row.blob.size();
            record["uncompressed_size"] = row.uncompressed_size;
            record["kernel_hash"] = row.hash;
            try {
                const auto code = decode_row(row);
                const auto info = read_code_object(code);
                record["kernels"] = info.kernels;
                record["elf_mach"] = fmt::format("0x{:03x}", info.mach());
                record["code_object_version"] = info.code_object_version();
            } catch (const std::exception& e) {
                record["error"] = e.what();
            }
            out.push_back(record);
        }
        if (options->json) {
            print_json({{"file", options->file}, {"records", out}});
            return 0;
        }
        fmt::print("{}: {} records\n", options->file, rows.size());
        for (const auto& record : out) {
            fmt::print("{:>5}  {}  {}\n       stored {} B, uncompressed {} B, md5 {}{}\n", record["id"].get<long long>(),
                       record["kernel_name"].get<std::string>(), record["kernel_args"].get<std::string>(),
                       record["stored_size"].get<std::size_t>(), record["uncompressed_size"].get<long long>(),
                       record["kernel_hash"].get<std::string>(),
                       record.contains("error") ? "  ERROR: " + record["error"].get<std::string>() : "");
        }
        return 0;
    };
}

Action add_verify_command(CLI::App& app) {
    auto* sub = app.add_subcommand("verify", "check kdbs as MIOpen would read them: schema, bzip2, MD5, code objects");
    struct Options {
        std::vector<std::string> files;
        std::string target;
        bool json = false;
    };
    auto options = std::make_shared<Options>();
    sub->add_option("files", options->files, "the .kdb files")->required();
    sub->add_option("--target", options->target,
                    "the target the file is for (default: read from the file name, e.g. gfx90a6e.kdb)");
    sub->add_flag("--json", options->json, "print JSON");
    return [options]() {
        bool all_ok = true;
        nlohmann::json out = nlohmann::json::array();
        for (const auto& file : options->files) {
            std::optional<Target> target;
            if (!options->target.empty()) target = parse_target(options->target);
            else target = target_from_kdb_filename(file);
            VerifyReport report;
            try {
                report = verify_kdb(file, target);
            } catch (const InputError& e) {
                report.faults.push_back(e.what());
            }
            if (!target) report.faults.push_back("target unknown (name the file as MIOpen does or give --target): "
                                                 "code objects not checked against a processor");
            all_ok = all_ok && report.ok();
            out.push_back({{"file", file},
                           {"target", target ? nlohmann::json(std::string(target->name())) : nlohmann::json(nullptr)},
                           {"records", report.records},
                           {"ok", report.ok()},
                           {"faults", report.faults}});
            if (!options->json) {
                if (report.ok()) fmt::print("{}: ok, {} records for {}\n", file, report.records, target->name());
                else {
                    fmt::print(stderr, "{}: {} fault(s) in {} records\n", file, report.faults.size(), report.records);
                    for (const auto& fault : report.faults) fmt::print(stderr, "  {}\n", fault);
                }
            }
        }
        if (options->json) print_json(out);
        return all_ok ? 0 : kExitSomeFailed;
    };
}

Action add_diff_command(CLI::App& app) {
    auto* sub = app.add_subcommand("diff", "compare the keys and code of two kdbs");
    struct Options {
        std::string a, b;
        bool json = false;
    };
    auto options = std::make_shared<Options>();
    sub->add_option("a", options->a, "first .kdb")->required();
    sub->add_option("b", options->b, "second .kdb")->required();
    sub->add_flag("--json", options->json, "print JSON");
    return [options]() {
        const auto diff = diff_kdbs(options->a, options->b);
        const auto keys = [](const std::vector<KdbKey>& list) {
            nlohmann::json out = nlohmann::json::array();
            for (const auto& key : list) out.push_back(key_json(key));
            return out;
        };
        const bool same = diff.only_a.empty() && diff.only_b.empty() && diff.different_code.empty();
        if (options->json) {
            print_json({{"same", diff.same},
                        {"only_a", keys(diff.only_a)},
                        {"only_b", keys(diff.only_b)},
                        {"different_code", keys(diff.different_code)}});
        } else {
            for (const auto& key : diff.only_a) fmt::print("< {} | {}\n", key.kernel_name, key.kernel_args);
            for (const auto& key : diff.only_b) fmt::print("> {} | {}\n", key.kernel_name, key.kernel_args);
            for (const auto& key : diff.different_code) fmt::print("! {} | {}\n", key.kernel_name, key.kernel_args);
            fmt::print("{} same, {} only in {}, {} only in {}, {} with different code\n", diff.same, diff.only_a.size(),
                       options->a, diff.only_b.size(), options->b, diff.different_code.size());
        }
        return same ? 0 : kExitSomeFailed;
    };
}

Action add_merge_command(CLI::App& app) {
    auto* sub = app.add_subcommand(
        "merge", "combine kdbs of one target into one file, or folders of kdbs (shard outputs) into one folder");
    struct Options {
        std::string out;
        std::vector<std::string> inputs;
        bool json = false;
    };
    auto options = std::make_shared<Options>();
    sub->add_option("out", options->out, "the merged .kdb to write, or a folder when the inputs are folders")->required();
    sub->add_option("inputs", options->inputs, "kdbs, or folders of kdbs, to merge")->required();
    sub->add_flag("--json", options->json, "print JSON");
    return [options]() {
        std::vector<fs::path> inputs(options->inputs.begin(), options->inputs.end());
        const bool folders = std::all_of(inputs.begin(), inputs.end(), [](const fs::path& p) { return fs::is_directory(p); });
        const fs::path out = options->out;
        // The folder the merged kdb goes in is created as `build -o` creates its
        // own, once the inputs are known to be there.
        for (const auto& input : inputs)
            if (!fs::exists(input)) throw InputError(located(input.string(), 0, "no such file or folder"));
        const fs::path out_dir = folders ? out : (out.has_parent_path() ? out.parent_path() : fs::path("."));
        std::error_code ec;
        if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec))
            throw InputError(located(out_dir.string(), 0, "output folder is a file"));
        if (!folders && fs::is_directory(out, ec))
            throw InputError(located(out.string(), 0, "is a folder; merging kdb files writes one .kdb file"));
        // Shard outputs: each kdb name across the folders, all in one
        // transaction: one bad shard leaves every old kdb as it was.
        std::map<std::string, std::vector<fs::path>> by_name;
        const auto list_inputs = [&] {
            for (const auto& dir : inputs)
                for (const auto& entry : fs::directory_iterator(dir))
                    if (entry.path().extension() == ".kdb") by_name[entry.path().filename().string()].push_back(entry.path());
            if (by_name.empty()) throw InputError(fmt::format("no .kdb files in {}", join(options->inputs, ", ")));
        };
        if (folders) list_inputs();  // refused before the output folder is made
        fs::create_directories(out_dir, ec);
        if (ec) throw InputError(located(out_dir.string(), 0, "cannot create output folder: " + ec.message()));
        KdbTransaction transaction(out_dir);
        // The lock before any input is read: an input may be in the output
        // folder (`merge OUT OUT shard`), which another writer could change.
        transaction.lock_folder();
        if (folders) {
            by_name.clear();
            list_inputs();
        }
        std::vector<std::pair<std::string, std::size_t>> staged;  // out path, inputs
        if (folders) {
            for (const auto& [name, files] : by_name) {
                stage_merge(transaction, transaction.add_kdb(out / name, false), files);
                staged.emplace_back((out / name).string(), files.size());
            }
        } else {
            stage_merge(transaction, transaction.add_kdb(out, false), inputs);
            staged.emplace_back(out.string(), inputs.size());
        }
        const auto stats = transaction.commit();
        nlohmann::json report = nlohmann::json::array();
        for (std::size_t i = 0; i < staged.size(); ++i) {
            report.push_back({{"kdb", staged[i].first}, {"records", stats[i].records}, {"inputs", staged[i].second},
                              {"bytes", stats[i].file_bytes}});
            if (!options->json)
                fmt::print("{}: {} records from {} {}, {}\n", staged[i].first, stats[i].records, staged[i].second,
                           folders ? "shards" : "files", human_bytes(stats[i].file_bytes));
        }
        if (options->json) {
            if (folders) print_json(report);
            else print_json({{"out", options->out}, {"records", stats[0].records}, {"bytes", stats[0].file_bytes}});
        }
        return 0;
    };
}

Action add_targets_command(CLI::App& app) {
    auto* sub = app.add_subcommand("targets", "show the processor table, or how MIOpen names the given targets");
    struct Options {
        TargetFlags targets;
        bool json = false;
    };
    auto options = std::make_shared<Options>();
    options->targets.add_to(*sub);
    sub->add_flag("--json", options->json, "print JSON");
    return [options]() {
        const auto products = read_products((data_path("configs") / "targets" / "products.toml").string());
        const auto products_of = [&](std::string_view processor) {
            nlohmann::json list = nlohmann::json::array();
            for (const auto& product : products)
                if (product.processor == processor)
                    list.push_back({{"name", product.name}, {"compute_units", product.compute_units}, {"source", product.source}});
            return list;
        };
        if (!options->targets.list_given && !options->targets.file_given) {
            nlohmann::json out = nlohmann::json::array();
            for (const auto& p : processor_table())
                out.push_back({{"processor", p.name}, {"xnack", p.supports_xnack}, {"sramecc", p.supports_sramecc},
                               {"wave_size", p.default_wave_size}, {"xdlops", p.xdlops},
                               {"elf_mach", fmt::format("0x{:03x}", p.elf_mach)}, {"products", products_of(p.name)}});
            if (options->json) print_json(out);
            else {
                fmt::print("{:<9} {:<6} {:<8} {:<5} {:<7} {:<8} {}\n", "processor", "xnack", "sramecc", "wave", "xdlops",
                           "e_flags", "products (CUs as MIOpen counts them)");
                for (const auto& p : processor_table()) {
                    std::vector<std::string> cards;
                    for (const auto& product : products)
                        if (product.processor == p.name) cards.push_back(fmt::format("{} ({})", product.name, product.compute_units));
                    fmt::print("{:<9} {:<6} {:<8} {:<5} {:<7} 0x{:03x}    {}\n", p.name, p.supports_xnack ? "yes" : "-",
                               p.supports_sramecc ? "yes" : "-", p.default_wave_size, p.xdlops ? "yes" : "-", p.elf_mach,
                               join(cards, "; "));
                }
            }
            return 0;
        }
        nlohmann::json out = nlohmann::json::array();
        for (const auto& target : options->targets.resolve()) {
            auto t = target_json(target);
            if (target.arch_wide()) {
                t["compute_units"] = nullptr;
                t["products"] = products_of(target.name());
                t["card_compute_units"] = product_compute_units(products, target.name());
            }
            out.push_back(std::move(t));
        }
        if (options->json) print_json(out);
        else
            for (const auto& t : out) {
                fmt::print("{:<28} kdb {:<22} DbId {:<16} -mcpu={}\n", t["spec"].get<std::string>(),
                           t["kdb"].get<std::string>(), t["db_id"].get<std::string>(), t["mcpu"].get<std::string>());
                if (t.contains("products"))
                    for (const auto& product : t["products"])
                        fmt::print("    serves {} ({} CUs)\n", product["name"].get<std::string>(),
                                   product["compute_units"].get<unsigned>());
            }
        return 0;
    };
}

}  // namespace kdbgen::cli
