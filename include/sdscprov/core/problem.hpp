// Problems: what went wrong with one input, as a value. Stages never throw for bad input; they
// return Problems and the command-line front decides the exit status.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// 1-based line and column of a byte offset. Column counts code points (UTF-8 lead bytes) from the
// start of the line, so it matches what an editor shows. 0:0 means "no position" (e.g. a file that
// could not be opened).
struct TextPosition {
    std::size_t line = 0;
    std::size_t col = 0;
};

// Line and column of `offset` in `bytes` (offset may equal bytes.size(), the position after the
// last byte). A UTF-8 byte order mark at the start does not count as a column.
TextPosition position_at(std::string_view bytes, std::size_t offset);

// position_at for many offsets into one text: the line starts, and the column at every
// `block`-th byte, are indexed once, so each lookup costs a binary search plus a column count over
// at most `block` bytes, not a scan from the start of the line: a compact sidecar is one line of
// megabytes.
class LineIndex {
public:
    static constexpr std::size_t block = 4096;
    explicit LineIndex(std::string_view bytes);
    TextPosition position(std::size_t offset) const;

private:
    std::string_view bytes_;
    std::vector<std::size_t> line_starts_;
    std::vector<std::size_t> block_columns_; // [b]: the column at offset b * block
};

enum class Severity { error, warning, note };

std::string_view to_string(Severity s);

// Stable codes: reports, SARIF rule ids and the exit status are derived from them.
enum class ProblemCode {
    io_error,         // could not open, stat or read a file or directory
    not_regular_file, // a fifo, socket or device named like an SDSC file
    file_too_large,   // larger than --max-file-size
    parse_error,      // not valid JSON
    not_sdsc,         // valid JSON, not an SDSC document
    duplicate_handle, // debug_handle_ more than once in the op object
    index_mismatch,   // N in the op key differs from N in the file name
    opfunc_mismatch,  // opfunc in the op key differs from the file name's
    malformed_handle, // debug_handle_ present but not of the shape documented in docs/formats.md
    bad_argument,     // a command-line path that does not exist
    bad_origins,      // an origins map that cannot be used (syntax, unknown member, type)
    bad_bundle,       // a bundle.mlir whose sdsc_execute lines cannot be read
    bad_mappings,     // an upstream provenance mappings file that cannot be used
    bad_ideal_cycles, // a kernel's perf/ideal_cycles.json that cannot be used (a warning)
    join_mismatch,    // a map entry's ops and a directory's files cannot be paired
    ambiguous_kernel, // several directories or map entries for one kernel: nothing written
    write_failed,     // a temporary file could not be written or renamed
    changed_on_disk,  // the file changed between our read and our replace: left as it is
    leftover_temp,    // a temporary file of an interrupted sdscprov run, removed (a note)
    internal_error,   // a check of our own failed (a bug): nothing was written for it
    // spyre_provenance.json, checked in this order; the names are
    // torch-spyre's reader diagnostics.
    unsupported_schema_version,  // schemaVersion missing or not 1
    schema_validation_failure,   // not of the schema's structure
    semantic_validation_failure, // structure fine, meaning not (dangling ids, wrong status...)
    stale_handle,                // a populated handle differs from the sidecar's for that op
    inconsistent_handle_id,      // a populated handle's id is not the hash of its content
    conflicting_origins,         // two --origins files give different handles for one op
    kernel_without_dir,          // a kernel of the sidecar with no directory in the caches (a note)
    unknown_sidecar,      // a --origins or --mappings document of none of the kinds sdscprov reads
    empty_sidecar,        // a sidecar of a known kind that holds no kernel (a warning)
    no_sdsc_files,        // a directory given on the command line holds no SDSC file
    symlink_not_followed, // a kernel directory reached only through a symbolic link (a note)
    hard_links,           // a file written has other names, which keep the old bytes (a note)
    nested_handle,        // a debug_handle_ below the op's members, not the op's own (a warning)
};

std::string_view to_string(ProblemCode c);
Severity default_severity(ProblemCode c);

struct Problem {
    std::string path;
    TextPosition pos;
    Severity severity = Severity::error;
    ProblemCode code = ProblemCode::parse_error;
    std::string message;
};

inline Problem make_problem(std::string path, TextPosition pos, ProblemCode code,
                            std::string message) {
    return Problem{std::move(path), pos, default_severity(code), code, std::move(message)};
}

} // namespace sdscprov
