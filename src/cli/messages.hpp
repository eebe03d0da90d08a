// What the front says on standard error, in one place (as ripgrep's messages.rs): problems as
// path:line:col lines, profile's diagnostics capped per code, and the commands' own sentences
// (`sdscprov COMMAND: ...`). --quiet is known here only: set once, when the command line is
// parsed, it leaves out everything but errors.
#pragma once

#include "sdscprov/core/problem.hpp"

#include <initializer_list>
#include <string_view>
#include <vector>

namespace sdscprov::cli::messages {

// Once, when the command line is parsed.
void set_quiet(bool quiet);
bool quiet();

// Each problem as a path:line:col line (with --quiet, errors only); whether any is an error.
bool problems(const std::vector<Problem>& problems);
// A run's problems and diagnostics, in the order given, under one rule for every code: the first
// `per_code` of each code, then one line per code counting the rest (--all and `--format json`
// show them all); whether any is an error.
bool capped(std::string_view command, std::initializer_list<const std::vector<Problem>*> lists,
            std::size_t per_code);
// `sdscprov COMMAND: SENTENCE` (`sdscprov: SENTENCE` without a command): why a run stopped or
// what it could not do; said with --quiet too.
void error(std::string_view command, std::string_view sentence);
// The same for a remark that is not an error (left out with --quiet).
void note(std::string_view command, std::string_view sentence);
// A line as it is (help text, a generated message), whatever --quiet says.
void raw(std::string_view text);

} // namespace sdscprov::cli::messages
