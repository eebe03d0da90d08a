// The command line's documents, generated from its definition so that they cannot drift from
// `--help`: the man page (man_page.cpp), the shell completions (completion.cpp), the suggestion
// for a mistyped command and the message for a missing argument. Linked into the binary with the
// front (src/cli/), which alone calls them.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov::usage {

// The command closest to `typo` (at most two edits away, as git suggests), if any.
std::optional<std::string> suggest_command(const CLI::App& app, std::string_view typo);

// After a parse that failed for want of a required argument or option (CLI11's RequiredError):
// what is missing, what it is, how a run looks and where the command's help is. nullopt when
// nothing required is missing (another kind of error: CLI11's own message stands).
std::optional<std::string> missing_argument_message(const CLI::App& app);

// A man page (roff, section 1) laid out as git's and ripgrep's are: NAME, SYNOPSIS, DESCRIPTION,
// one section per command with its arguments, options (with named values) and examples (the
// same texts as --help), EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES, SEE ALSO.
void write_man_page(std::ostream& out, const CLI::App& app);

// The shells `sdscprov completion SHELL` writes a script for.
inline constexpr const char* completion_shells[] = {"bash", "zsh", "fish"};

// A completion script for `shell` (one of completion_shells): commands, each command's options,
// the values of options that take one of a fixed set, files for paths.
void write_completion(std::ostream& out, const CLI::App& app, std::string_view shell);

// The pieces of the command-line definition the generators share.
namespace help_parts {

// The visible commands (an empty group hides one), in definition order.
std::vector<const CLI::App*> commands(const CLI::App& app);
// A command's options and positionals, without --help and hidden ones.
std::vector<const CLI::Option*> visible_options(const CLI::App& command);
// The fixed values an option takes ({a,b,c} in its validators' descriptions), if any.
std::vector<std::string> choices(const CLI::Option& opt);
// A flag expects no value.
bool takes_value(const CLI::Option& opt);
// The name of an option's value as the man page shows it: FORMAT, N, WHEN, MAP, ... rather than
// CLI11's types (TEXT, UINT); a type name given in the definition (I/N) is kept.
std::string value_name(const CLI::Option& opt);
// A positional's name as the synopsis shows it: PATH..., TRACE, [CACHE...].
std::string positional_synopsis(const CLI::Option& opt);
// `sdscprov scan [OPTIONS] PATH...`: required options named, then the positionals.
std::string command_synopsis(const CLI::App& app, const CLI::App& command);

} // namespace help_parts

} // namespace sdscprov::usage
