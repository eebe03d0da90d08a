// The text of model source lines, as a handle's `source` points at them (explain, profile and the
// HTML page show it beside file:line), read under one rule, and strings from files made safe to
// print on a terminal.
//
// A handle comes from whoever produced the kernels or the sidecar, so the file it names is read
// only when it is a Python source of this machine the user allowed (docs/safety.md, "Source
// text"): the file OPENED (links followed, then its real path asked of the descriptor) must be a
// regular file of at most max_source_file_size bytes on a real file system, its real path must
// end in `.py` and lie under the real path of an allowed root. Nothing else is opened for its
// text, and a report holds only the lines it shows (the page: a window around each).
#pragma once

#include "sdscprov/handle/debug_handle.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// Source files larger than this are not read for their line text (a handle pointing at a huge or
// generated file must not stall explain or profile).
inline constexpr std::uint64_t max_source_file_size = std::uint64_t{16} << 20;

// The page shows this many lines before and after each line it names (windows that touch are
// one), never a whole file.
inline constexpr std::int64_t source_window_lines = 10;

// `--source-map FROM=TO`: a handle's path that is FROM, or starts with FROM and a '/', is read at
// TO and the rest of the path (the path shown stays the handle's).
struct SourceMapping {
    std::string from;
    std::string to;
};

// FROM=TO split at its first '='; nullopt and `error` (a sentence naming the value) when either
// side is empty. A trailing '/' of either side is dropped (the root "/" stays).
std::optional<SourceMapping> parse_source_mapping(std::string_view text, std::string& error);

// The rule, converted once from the command line.
struct SourceTextOptions {
    bool read = true;               // false: --no-source-text, no file is read for its text
    std::vector<std::string> roots; // the allowed roots (each taken by its real path)
    std::vector<SourceMapping> map; // applied longest FROM first
};

// Why a file's text is not shown, in the order a report lists them.
enum class SourceRefusal : std::uint8_t {
    outside_roots, // the file opened lies under no allowed root
    not_python,    // its name, or the real path of the file opened, does not end in .py
    missing,       // no such file here
    not_regular,   // a directory, device, fifo, or a file of a pseudo file system (/proc, /sys)
    too_large,     // more than max_source_file_size bytes
    unreadable,    // permission denied, an I/O error
};
inline constexpr std::size_t source_refusal_count = 6;
// "outside_roots", "not_python", ...: the JSON reports' names.
std::string_view to_string(SourceRefusal refusal);

// What a report did not read and why, said once per report.
struct SourceTextNote {
    bool read = true; // false: --no-source-text
    // Each file not shown, by the handle's path (as the report shows it).
    std::map<std::string, SourceRefusal> not_shown;
    // Of the missing files that no --source-map reached, the first directory of each path that
    // does not exist here (the file's own directory when every one does), with a trailing '/':
    // the FROM a --source-map needs.
    std::set<std::string> unreadable_prefixes;

    bool empty() const { return read && not_shown.empty(); }
    // The files and prefixes of `other` added (a report made of several runs').
    void merge(const SourceTextNote& other);
};

// The note for people, one line each: "source text: 3 files not shown: 2 outside the allowed
// roots (--source-root DIR), 1 not a Python file", then per unreadable prefix (at most 5, then
// how many more) "lines under /workspace/ are not readable here: --source-map /workspace=DIR".
// None when every file named was read.
std::vector<std::string> source_text_sentences(const SourceTextNote& note);

// The source lines handles point at, each file opened at most once per SourceLines, under
// `options` (held by reference: it outlives the SourceLines).
class SourceLines {
public:
    explicit SourceLines(const SourceTextOptions& options);
    ~SourceLines();
    SourceLines(const SourceLines&) = delete;
    SourceLines& operator=(const SourceLines&) = delete;

    // The text of line `source->start_line` (1-based) of `source->file`, without its line end;
    // nullopt when there is no source, no such line, or the file is not read (the note says
    // why). Invalid UTF-8 is replaced by U+FFFD.
    std::optional<std::string> line(const std::optional<HandleSource>& source);
    std::optional<std::string> line(const std::string& file, std::int64_t n);

    // What was not read so far, and why.
    const SourceTextNote& note() const;

    struct SourceText; // a file's bytes and line starts

private:
    struct Files;
    std::unique_ptr<Files> files_;
};

// Facts of a file opened for its text, and the rule's verdict on them (source_text.cpp opens
// the file; the verdict is apart so that every case is tested, /proc's included).
struct OpenedSource {
    std::string real_path;  // of the descriptor
    bool regular = false;   // S_ISREG
    std::uint64_t size = 0; // st_size
    bool pseudo_fs = false; // procfs, sysfs, devpts, debugfs, ... (fstatfs)
};
// nullopt: the file may be read. `real_roots`: the allowed roots' real paths.
std::optional<SourceRefusal> judge_opened_source(const OpenedSource& opened,
                                                 const std::vector<std::string>& real_roots);

// `s` with control characters other than tab (C0, DEL, C1) and bytes that are not UTF-8
// replaced by '?', bidirectional formatting characters shown as <U+202E>: text from files (a
// source line, a handle's strings) must not reach a terminal, nor reorder its line (masked_text()
// of core/display.hpp).
std::string printable(std::string_view s);

} // namespace sdscprov
