// The conversion of the command line into the library's own option types, done once, as each
// option is parsed: a command's options struct holds a Format, a WriteSettings, a Shard and a
// DiscoverOptions, never the strings they were given as (docs/architecture.md, "Options").
#pragma once

#include "sdscprov/commands/annotate.hpp"
#include "sdscprov/handle/source_text.hpp"
#include "sdscprov/report/report.hpp"
#include "sdscprov/walk/discover.hpp"
#include "sdscprov/walk/shard.hpp"

#include <CLI/CLI.hpp>
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

// --format, one of `accepted` (listed in that order).
CLI::Option* add_format_option(CLI::App& cmd, Format& format, const std::vector<Format>& accepted,
                               const std::string& help);
// --color.
CLI::Option* add_color_option(CLI::App& cmd, ColorMode& color, const std::string& what);

// --shard I/N, parsed into `shard` (unset: every kernel directory); a bad value is refused with
// parse_shard's sentence.
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
