// Problems: what went wrong with one input, as a value. Stages never throw for bad input; they
// return Problems and the command-line front decides the exit status. Every command's problems,
// profile's event diagnostics, a trace that cannot be read and reports that cannot be merged are
// all Problems, shown by one function (problem_line, core/display.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
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
    untimed_annotations,  // --annotate-trace: events written without their timeline figures
    // profile's diagnostics of trace events (Problem::events counts them), in this order; the
    // names of torch-spyre's trace reader where it has one (carrier-conflict, collision,
    // native-handle-disagreement).
    carrier_conflict,           // the name's key and args.provenance_key differ: unresolved
    collision,                  // the key's identity has another eventNameBase: unresolved
    unknown_key,                // no sidecar has the key
    unparsable_name,            // named spyre_kernel... but not spyre_kernel_v1_<summary>_<key>
    malformed_provenance_key,   // args.provenance_key not 16 base32 characters: ignored
    malformed_debug_handles,    // args.debug_handles not an array of distinct strings: ignored
    native_handle_disagreement, // args.debug_handles differ from the sidecar's: the sidecar wins
    no_handles,                 // no sidecar has the key and the event carries no debug_handles
    unknown_handle,             // a debug_handles id found in no SDSC file of the caches
    sources_disagree,           // the sidecar and the caches' files say different things
    bad_bundle_dir_prefix,      // args.sdsc_bundle_dir_prefix names no directory of the bundle
    ambiguous_ideal,            // the bundle's directories give different ideals: none is used
    bad_duration,               // dur missing, not a number, negative or absurd: not counted
    bad_cycles_ts,              // cycles_ts not five integers in [0, 2^32): stages not counted
    not_an_event,               // an element of traceEvents that is not an object
    already_annotated,          // args.sdscprov exists: --annotate-trace leaves the event alone
    util_over_100,              // the bundle's ideal exceeds the event's dur
    // A trace that cannot be read (besides parse-error and io-error).
    not_a_trace,     // JSON, but no traceEvents array
    value_too_large, // an event or a member beside traceEvents over the reader's limit
    bad_gzip,        // gzip data corrupt or cut short
    merge_refused,   // shards' reports that cannot be merged into one run's
};

// The first and last of profile's event diagnostics.
inline constexpr ProblemCode first_event_code = ProblemCode::carrier_conflict;
inline constexpr ProblemCode last_event_code = ProblemCode::util_over_100;

std::string_view to_string(ProblemCode c);
Severity default_severity(ProblemCode c);

struct Problem {
    std::string path; // empty: a problem of no one input (merge's)
    TextPosition pos;
    Severity severity = Severity::error;
    ProblemCode code = ProblemCode::parse_error;
    std::string message;
    // profile's diagnostics: a group of events (same code, same bundle), the first one's index
    // in traceEvents and how many there are (0 for every other problem).
    std::uint64_t first_event = 0;
    std::uint64_t events = 0;
};

inline Problem make_problem(std::string path, TextPosition pos, ProblemCode code,
                            std::string message) {
    return Problem{std::move(path), pos, default_severity(code), code, std::move(message)};
}

} // namespace sdscprov
