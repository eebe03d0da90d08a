// The text of model source lines, as a handle's `source` points at them (explain and profile show
// it beside file:line when the file is readable on this machine), and strings from files made
// safe to print on a terminal.
#pragma once

#include "sdscprov/handle/debug_handle.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace sdscprov {

// Source files larger than this are not read for their line text (a handle pointing at a huge or
// generated file must not stall explain or profile).
inline constexpr std::uint64_t max_source_file_size = std::uint64_t{16} << 20;

// The source lines handles point at, each file read at most once per SourceLines.
class SourceLines {
public:
    SourceLines();
    ~SourceLines();
    SourceLines(const SourceLines&) = delete;
    SourceLines& operator=(const SourceLines&) = delete;

    // The text of line `source->start_line` (1-based) of `source->file`, without its line end;
    // nullopt when there is no source or the file cannot be read (missing, not a regular file,
    // over max_source_file_size, no such line). Invalid UTF-8 is replaced by U+FFFD.
    std::optional<std::string> line(const std::optional<HandleSource>& source);

    struct SourceText; // a file's bytes and line starts

private:
    struct Files;
    std::unique_ptr<Files> files_;
};

// `s` with control characters other than tab (C0, DEL, C1) and bytes that are not UTF-8
// replaced by '?', bidirectional formatting characters shown as <U+202E>: text from files (a
// source line, a handle's strings) must not reach a terminal, nor reorder its line (masked_text()
// of core/display.hpp).
std::string printable(std::string_view s);

} // namespace sdscprov
