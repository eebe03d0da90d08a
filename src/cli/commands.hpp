// The commands' fronts: each adds its subcommand and options to the application, and runs the
// library's stages with them (one file per command: scan.cpp, annotate.cpp, ...).
#pragma once

#include "common.hpp"
#include "progress.hpp"
#include "sdscprov/commands/annotate_run.hpp"

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sdscprov::cli {

CLI::App* add_scan_command(CLI::App& app, CommonOptions& options);
int run_scan(const CommonOptions& options);

struct AnnotateCli {
    CommonOptions common;
    std::vector<std::string> origins;
    bool refresh = false;
    WriteCli write;
};
CLI::App* add_annotate_command(CLI::App& app, AnnotateCli& options);
int run_annotate(const AnnotateCli& options);

// The options of annotate's run (commands/annotate_run.hpp) that annotate and check --origins
// share: the paths, the sidecars, the walk and the workers.
AnnotateRunOptions annotate_run_options(const CommonOptions& common,
                                        const std::vector<std::string>& origins);

struct StripCli {
    CommonOptions common;
    bool remove = false;
    WriteCli write;
};
CLI::App* add_strip_command(CLI::App& app, StripCli& options);
int run_strip(const StripCli& options);

struct ExplainCli {
    std::string target;
    std::vector<std::string> roots;
    std::vector<std::string> mappings;
    std::vector<std::string> origins; // spyre_provenance.json: provenance keys to directories
    std::string format = "text";
    std::string color = "auto";
    bool include_incomplete = false;
    bool follow_symlinks = false;
    std::uint64_t max_file_size = default_max_file_size;
};
CLI::App* add_explain_command(CLI::App& app, ExplainCli& options);
int run_explain(const ExplainCli& options);

struct CheckCli {
    CommonOptions common;
    std::vector<std::string> origins;
};
CLI::App* add_check_command(CLI::App& app, CheckCli& options);
int run_check(const CheckCli& options);

CLI::App* add_merge_command(CLI::App& app, std::vector<std::string>& reports);
int run_merge(const std::vector<std::string>& reports);

} // namespace sdscprov::cli
