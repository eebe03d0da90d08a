#include "options.hpp"

#include "sdscprov/core/path.hpp"

#include <array>
#include <sys/stat.h>

namespace sdscprov::cli {

namespace {

constexpr std::array<std::pair<Format, std::string_view>, 8> format_names{{
    {Format::text, "text"},
    {Format::json, "json"},
    {Format::markdown, "markdown"},
    {Format::html, "html"},
    {Format::sarif, "sarif"},
    {Format::github, "github"},
    {Format::junit, "junit"},
    {Format::folded, "folded"},
}};

} // namespace

std::string_view to_string(Format format) {
    for (const auto& [f, name] : format_names) {
        if (f == format) {
            return name;
        }
    }
    return "text";
}

std::optional<Format> format_from_name(std::string_view name) {
    for (const auto& [f, n] : format_names) {
        if (n == name) {
            return f;
        }
    }
    return std::nullopt;
}

std::string_view to_string(ColorMode mode) {
    switch (mode) {
    case ColorMode::always:
        return "always";
    case ColorMode::never:
        return "never";
    default:
        return "auto";
    }
}

CLI::Option* add_format_option(CLI::App& cmd, Format& format, const std::vector<Format>& accepted,
                               const std::string& help) {
    Choices<Format> choices;
    for (Format f : accepted) {
        choices.emplace_back(std::string(to_string(f)), f);
    }
    return add_choice_option(cmd, "--format", format, choices, help);
}

CLI::Option* add_color_option(CLI::App& cmd, ColorMode& color, const std::string& what) {
    Choices<ColorMode> choices;
    for (ColorMode mode : {ColorMode::automatic, ColorMode::always, ColorMode::never}) {
        choices.emplace_back(std::string(to_string(mode)), mode);
    }
    return add_choice_option(cmd, "--color", color, choices, what);
}

// The reports of all N shards are put back together by `sdscprov merge`.
CLI::Option* add_shard_option(CLI::App& cmd, std::optional<Shard>& shard) {
    return cmd
        .add_option_function<std::string>(
            "--shard",
            [&shard](const std::string& text) {
                std::string error;
                shard = parse_shard(text, error);
                if (!shard) {
                    throw CLI::ValidationError("--shard", error);
                }
            },
            "Process shard I of N (1-based) of the kernel directories, chosen by a hash of "
            "each directory's path; `sdscprov merge` joins the shards' JSON reports")
        ->type_name("I/N");
}

void add_source_text_options(CLI::App& cmd, SourceTextCli& o) {
    cmd.add_option("--source-root", o.roots,
                   "Also show the text of Python source files under this directory (by "
                   "default only under the current directory and the paths given); may be "
                   "given more than once")
        ->allow_extra_args(false)
        ->check(CLI::ExistingDirectory);
    cmd.add_option_function<std::vector<std::string>>(
           "--source-map",
           [&o](const std::vector<std::string>& values) {
               o.map.clear();
               for (const auto& text : values) {
                   std::string error;
                   auto mapping = parse_source_mapping(text, error);
                   if (!mapping) {
                       throw CLI::ValidationError("--source-map", error);
                   }
                   o.map.push_back(std::move(*mapping));
               }
           },
           "Read the source files the handles name under FROM at TO instead (the paths of the "
           "machine that compiled); the longest FROM applies; may be given more than once")
        ->type_name("FROM=TO")
        ->allow_extra_args(false);
    cmd.add_flag("--no-source-text", o.off,
                 "Read no source file: show file:line without the line's text");
}

SourceTextOptions source_text_options(const SourceTextCli& o,
                                      const std::vector<std::string>& given) {
    SourceTextOptions options;
    options.read = !o.off;
    options.roots.emplace_back(".");
    for (const auto& path : given) {
        struct stat st {};
        bool dir = ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
        options.roots.push_back(dir ? path : parent_dir(path));
    }
    options.roots.insert(options.roots.end(), o.roots.begin(), o.roots.end());
    for (const auto& m : o.map) {
        options.roots.push_back(m.to);
    }
    options.map = o.map;
    return options;
}

void add_discover_options(CLI::App& cmd, DiscoverOptions& discover, const std::string& verb,
                          const std::string& follow_help) {
    cmd.add_flag("--include-incomplete", discover.include_incomplete,
                 "Also " + verb + " the kernel cache's temporary (*.tmp.*) and failed/ entries");
    cmd.add_flag("--follow-symlinks", discover.follow_symlinks, follow_help);
}

void add_write_options(CLI::App& cmd, WriteCli& o, const std::string& check_help) {
    cmd.add_flag("--dry-run", o.dry_run, "Report what would change, write nothing");
    cmd.add_flag("--check", o.check, check_help);
    cmd.add_flag("--diff", o.diff,
                 "Print a unified diff of each change and write nothing (a preview, as black "
                 "and ruff do; with --check, exit 1 when there are changes)");
    add_choice_option(cmd, "--durability", o.durability,
                      Choices<Durability>{{"none", Durability::none},
                                          {"batch", Durability::batch},
                                          {"full", Durability::full}},
                      "none: no fsync; batch: one syncfs per batch of files, then renames; "
                      "full: fsync every file");
}

WriteSettings write_settings(const WriteCli& o) {
    WriteSettings w;
    w.mode = o.check               ? WriteMode::check
             : o.dry_run || o.diff ? WriteMode::dry_run
                                   : WriteMode::write;
    w.durability = o.durability;
    w.diff = o.diff;
    return w;
}

} // namespace sdscprov::cli
