#include "options.hpp"

#include "sdscprov/core/display.hpp"
#include "sdscprov/core/path.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <sys/stat.h>

namespace sdscprov::cli {

namespace {

constexpr std::array<std::pair<Format, std::string_view>, 10> format_names{{
    {Format::text, "text"},
    {Format::json, "json"},
    {Format::markdown, "markdown"},
    {Format::html, "html"},
    {Format::sarif, "sarif"},
    {Format::github, "github"},
    {Format::junit, "junit"},
    {Format::folded, "folded"},
    {Format::csv, "csv"},
    {Format::acelyzer_categories, "acelyzer-categories"},
}};

bool decimal_digits(std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// "-j,--jobs": --jobs, as CLI11 names an option in its own errors.
std::string shown_name(const std::string& names) {
    std::string shown;
    std::size_t begin = 0;
    while (begin <= names.size()) {
        std::size_t end = std::min(names.find(',', begin), names.size());
        std::string name = names.substr(begin, end - begin);
        if (shown.empty() || name.starts_with("--")) {
            shown = name;
        }
        begin = end + 1;
    }
    return shown;
}

template <class Store>
CLI::Option* add_real_option(CLI::App& cmd, const std::string& name, Store store, RealRange range,
                             const std::string& help) {
    return add_converted_option(
        cmd, name,
        [store, range](const std::string& text) -> std::optional<std::string> {
            std::string why;
            auto n = parse_decimal(text, range, why);
            if (!n) {
                return why;
            }
            store(*n);
            return std::nullopt;
        },
        "NUMBER", help);
}

} // namespace

CLI::ValidationError option_refusal(const std::string& name, std::string_view value,
                                    const std::string& why) {
    return CLI::ValidationError(name, "'" + printable_text(value) + "': " + why);
}

CLI::Option* add_converted_option(CLI::App& cmd, const std::string& name,
                                  std::function<std::optional<std::string>(const std::string&)> take,
                                  const std::string& value_name, const std::string& help) {
    return cmd
        .add_option_function<std::string>(
            name,
            [shown = shown_name(name), take = std::move(take)](const std::string& text) {
                if (auto why = take(text)) {
                    throw option_refusal(shown, text, *why);
                }
            },
            help)
        ->type_name(value_name);
}

std::optional<std::uint64_t> parse_decimal(std::string_view text, WholeRange range,
                                           std::string& why) {
    // from_chars takes decimal digits only: no sign, space, base prefix or exponent.
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size() && value >= range.min &&
        value <= range.max) {
        return value;
    }
    why = "a whole number from " + decimal_text(range.min) + " to " + decimal_text(range.max) +
          " is needed (decimal digits)";
    return std::nullopt;
}

std::optional<double> parse_decimal(std::string_view text, RealRange range, std::string& why) {
    const auto point = text.find('.');
    const bool plain = point == std::string_view::npos
                           ? decimal_digits(text)
                           : decimal_digits(text.substr(0, point)) &&
                                 decimal_digits(text.substr(point + 1));
    double value = 0;
    if (plain) {
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value,
                                         std::chars_format::fixed);
        if (ec == std::errc() && end == text.data() + text.size() && value >= range.min &&
            value <= range.max) {
            return value;
        }
    }
    why = "a number " +
          (std::isinf(range.max) ? "of at least " + decimal_text(range.min)
                                 : "from " + decimal_text(range.min) + " to " +
                                       decimal_text(range.max)) +
          " is needed (decimal digits, with a point for a fraction: 2.5)";
    return std::nullopt;
}

std::string decimal_text(std::uint64_t value) {
    return std::to_string(value);
}

std::string decimal_text(double value) {
    char text[64];
    auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    return ec == std::errc() ? std::string(text, end) : std::to_string(value);
}

CLI::Option* add_decimal_option(CLI::App& cmd, const std::string& name, double& value,
                                RealRange range, const std::string& help) {
    auto* opt = add_real_option(
        cmd, name, [&value](double n) { value = n; }, range, help);
    if (value >= range.min && value <= range.max) {
        opt->default_str(decimal_text(value));
    }
    return opt;
}

CLI::Option* add_decimal_option(CLI::App& cmd, const std::string& name,
                                std::optional<double>& value, RealRange range,
                                const std::string& help) {
    return add_real_option(
        cmd, name, [&value](double n) { value = n; }, range, help);
}

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
    return add_converted_option(
        cmd, "--shard",
        [&shard](const std::string& given) -> std::optional<std::string> {
            const std::string_view text = given;
            const auto slash = text.find('/');
            std::string why;
            auto index = slash == std::string_view::npos
                             ? std::nullopt
                             : parse_decimal(text.substr(0, slash), WholeRange{}, why);
            auto count = slash == std::string_view::npos
                             ? std::nullopt
                             : parse_decimal(text.substr(slash + 1), WholeRange{}, why);
            if (!index || !count) {
                return "expected I/N with 1 <= I <= N (shard I of N, 1-based), e.g. 1/3";
            }
            shard = make_shard(*index, *count, why);
            return shard ? std::nullopt : std::optional<std::string>(why);
        },
        "I/N",
        "Process shard I of N (1-based) of the kernel directories, chosen by a hash of "
        "each directory's path; `sdscprov merge` joins the shards' JSON reports");
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
