// The conversion of the command line into the library's own option types, done once, as each
// option is parsed: a command's options struct holds a Format, a WriteSettings, a Shard and a
// DiscoverOptions, never the strings they were given as (docs/architecture.md, "Options").
#pragma once

#include "sdscprov/commands/rewrite.hpp"
#include "sdscprov/handle/source_text.hpp"
#include "sdscprov/report/report.hpp"
#include "sdscprov/walk/discover.hpp"
#include "sdscprov/walk/shard.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sdscprov::cli {

// Every output format of every command, the printers' own type (report.hpp); each command accepts
// its own set (`--format`).
using Format = ReportFormat;
std::string_view to_string(Format format);
std::optional<Format> format_from_name(std::string_view name);

// --color auto|always|never.
enum class ColorMode { automatic, always, never };
std::string_view to_string(ColorMode mode);

// A fixed set of names, each standing for one value.
template <class T> using Choices = std::vector<std::pair<std::string, T>>;

// An option taking one of `choices`' names, stored in `value` as the value it stands for when it
// is parsed. Its --help, man page and completion list the names (`{a,b,c}`, CLI11's IsMember)
// with the current value's name as the default, and a name outside them is refused with
// IsMember's message.
template <class T>
CLI::Option* add_choice_option(CLI::App& cmd, const std::string& name, T& value,
                               const Choices<T>& choices, const std::string& help) {
    std::vector<std::string> names;
    std::string default_name;
    for (const auto& [choice, v] : choices) {
        names.push_back(choice);
        if (v == value) {
            default_name = choice;
        }
    }
    return cmd
        .add_option_function<std::string>(
            name,
            [&value, choices](const std::string& given) {
                for (const auto& [choice, v] : choices) {
                    if (choice == given) {
                        value = v;
                    }
                }
            },
            help)
        ->check(CLI::IsMember(names))
        ->default_str(default_name);
}

// What an option refuses: `NAME: 'VALUE': why` (the value escaped as printable_text() escapes a
// message, so that nothing given reaches the terminal as a control sequence), thrown as CLI11's
// ValidationError (exit 2). `why` says what is needed.
CLI::ValidationError option_refusal(const std::string& name, std::string_view value,
                                    const std::string& why);

// An option whose value `take` converts into the library's type and stores: it returns the
// reason (option_refusal's `why`) when it refuses the value, nullopt when it took it. The value's
// name in --help, the man page and the completions is `value_name` (N, I/N, ...).
CLI::Option* add_converted_option(CLI::App& cmd, const std::string& name,
                                  std::function<std::optional<std::string>(const std::string&)> take,
                                  const std::string& value_name, const std::string& help);

// The numbers a numeric option takes, both ends included; RealRange's max may be infinity (no
// upper end).
struct WholeRange {
    std::uint64_t min = 0;
    std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
};
struct RealRange {
    double min = 0;
    double max = std::numeric_limits<double>::infinity();
};

// A plain decimal number in `range`: decimal digits (leading zeros allowed: 007 is 7), and for a
// real number a point between digits for a fraction (2.5). Nothing else: no sign, space,
// exponent (1e3), hex (0x10), nan or inf, as strtod and CLI11's own conversion (base 0: 010 is 8)
// take them. nullopt with `why` (what is needed, the range included) otherwise.
std::optional<std::uint64_t> parse_decimal(std::string_view text, WholeRange range,
                                           std::string& why);
std::optional<double> parse_decimal(std::string_view text, RealRange range, std::string& why);

// The number as the help shows a default: 20, 2.5.
std::string decimal_text(std::uint64_t value);
std::string decimal_text(double value);

// An option taking a plain decimal number (parse_decimal) in `range`, stored in `value`; any
// other value is refused by option_refusal (`--top: '0x10': a whole number from 0 to ... is
// needed`, exit 2). `value`'s current value is shown as the default in --help and the man page
// when it is one the option takes (jobs' 0, all cores, is not: its help says what it means).
// The value is named N (whole) or NUMBER (real: the man page and completions then name it after
// the option); ->type_name("PCT") on the option returned names it otherwise.
template <std::unsigned_integral T>
CLI::Option* add_decimal_option(CLI::App& cmd, const std::string& name, T& value, WholeRange range,
                                const std::string& help) {
    range.max = std::min<std::uint64_t>(range.max, std::numeric_limits<T>::max());
    auto* opt = add_converted_option(
        cmd, name,
        [&value, range](const std::string& text) -> std::optional<std::string> {
            std::string why;
            auto n = parse_decimal(text, range, why);
            if (!n) {
                return why;
            }
            value = static_cast<T>(*n);
            return std::nullopt;
        },
        "N", help);
    if (value >= range.min && value <= range.max) {
        opt->default_str(decimal_text(std::uint64_t{value}));
    }
    return opt;
}
CLI::Option* add_decimal_option(CLI::App& cmd, const std::string& name, double& value,
                                RealRange range, const std::string& help);
// Unset until given.
CLI::Option* add_decimal_option(CLI::App& cmd, const std::string& name,
                                std::optional<double>& value, RealRange range,
                                const std::string& help);

// --format, one of `accepted` (listed in that order).
CLI::Option* add_format_option(CLI::App& cmd, Format& format, const std::vector<Format>& accepted,
                               const std::string& help);
// --color.
CLI::Option* add_color_option(CLI::App& cmd, ColorMode& color, const std::string& what);

// --shard I/N, parsed into `shard` (unset: every kernel directory): I and N plain decimal numbers
// (parse_decimal), the shard's rules those of make_shard; refused by option_refusal.
CLI::Option* add_shard_option(CLI::App& cmd, std::optional<Shard>& shard);

// --include-incomplete and --follow-symlinks into `discover`; `verb` says what the command does
// with the entries ("scan", "look in", "read"), `follow_help` the second option's help.
void add_discover_options(CLI::App& cmd, DiscoverOptions& discover, const std::string& verb,
                          const std::string& follow_help);

// Where the source text a report shows may be read (source_text.hpp, docs/safety.md): every
// command that shows source lines takes --source-root DIR, --source-map FROM=TO (parsed into a
// SourceMapping as it is given; a malformed one is refused, exit 2) and --no-source-text.
struct SourceTextCli {
    bool off = false;
    std::vector<std::string> roots;
    std::vector<SourceMapping> map;
};
void add_source_text_options(CLI::App& cmd, SourceTextCli& o);
// The library's rule: the allowed roots are the current directory, each of `given` (the paths the
// command was given; a file's directory), every --source-root and every --source-map TO.
SourceTextOptions source_text_options(const SourceTextCli& o,
                                      const std::vector<std::string>& given);

// The write options of annotate and strip: --dry-run, --check, --diff, --durability. The three
// flags decide one mode, once the command line is parsed (write_settings()).
struct WriteCli {
    bool dry_run = false;
    bool check = false;
    bool diff = false;
    Durability durability = Durability::batch;
};
void add_write_options(CLI::App& cmd, WriteCli& o, const std::string& check_help);
// --check checks; --dry-run and --diff preview (a diff never writes, so `strip --diff . > out.diff`
// leaves the tree alone); else the files are written.
WriteSettings write_settings(const WriteCli& o);

} // namespace sdscprov::cli
