// Help that is generated from the command-line definition itself, so that it cannot drift from
// `--help`: the man page, bash completion, and the suggestion for a mistyped command.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace sdscprov::cli {

// The command closest to `typo` (at most two edits away, as git suggests), if any.
std::optional<std::string> suggest_command(const CLI::App& app, std::string_view typo);

// A man page (roff, section 1): the program's description, one section per command with its
// options and examples (the same texts as --help), the exit status and the environment.
void write_man_page(std::ostream& out, const CLI::App& app);

// A bash completion script: commands, each command's options, and the values of options that
// take one of a fixed set.
void write_bash_completion(std::ostream& out, const CLI::App& app);

} // namespace sdscprov::cli
