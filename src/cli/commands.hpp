// The commands' fronts: each adds its options to its subcommand (made by main.cpp's table of
// commands, with its name and summary), and runs the library's stages with them (one file per
// command: scan.cpp, annotate.cpp, ...).
#pragma once

#include "common.hpp"
#include "progress.hpp"
#include "sdscprov/commands/annotate_run.hpp"
#include "sdscprov/commands/strip.hpp"

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sdscprov::cli {

void add_scan_options(CLI::App& scan, CommonOptions& options);
int run_scan(const CommonOptions& options);

struct AnnotateCli {
    CommonOptions common;
    std::vector<std::string> origins;
    bool refresh = false;
    WriteCli write;
};
void add_annotate_options(CLI::App& annotate, AnnotateCli& options);
int run_annotate(const AnnotateCli& options);

// The options of annotate's run (commands/annotate_run.hpp) that annotate and check --origins
// share: the paths, the sidecars, the walk and the workers.
AnnotateRunOptions annotate_run_options(const CommonOptions& common,
                                        const std::vector<std::string>& origins);

struct StripCli {
    CommonOptions common;
    WriteCli write;
    StripOptions strip; // --remove, and the write options once the command line is parsed
};
void add_strip_options(CLI::App& strip, StripCli& options);
int run_strip(const StripCli& options);

struct ExplainCli {
    std::string target;
    std::string targets_from; // --targets-from FILE: the targets, one a line
    std::vector<std::string> roots;
    std::vector<std::string> mappings;
    std::vector<std::string> origins; // spyre_provenance.json: provenance keys to directories
    Format format = Format::text;
    ColorMode color = ColorMode::automatic;
    DiscoverOptions discover;
    std::uint64_t max_file_size = default_max_file_size;
    SourceTextCli source_text;
};
void add_explain_options(CLI::App& explain, ExplainCli& options);
int run_explain(const ExplainCli& options);

struct CheckCli {
    CommonOptions common;
    std::vector<std::string> origins;
    sdscprov::CheckOptions check; // --strict, --all-kernels, --fail-under
};
void add_check_options(CLI::App& check, CheckCli& options);
int run_check(const CheckCli& options);

void add_merge_options(CLI::App& merge, std::vector<std::string>& reports);
int run_merge(const std::vector<std::string>& reports);

} // namespace sdscprov::cli
