#include "sdscprov/core/problem.hpp"

#include <algorithm>
#include <array>

namespace sdscprov {

TextPosition position_at(std::string_view bytes, std::size_t offset) {
    if (offset > bytes.size()) {
        offset = bytes.size();
    }
    std::size_t line = 1;
    std::size_t line_start = 0;
    if (bytes.substr(0, 3) == "\xEF\xBB\xBF") {
        line_start = offset >= 3 ? 3 : offset;
    }
    for (std::size_t i = 0; i < offset; ++i) {
        if (bytes[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    }
    std::size_t col = 1;
    for (std::size_t i = line_start; i < offset; ++i) {
        // Continuation bytes (10xxxxxx) belong to the previous code point.
        if ((static_cast<unsigned char>(bytes[i]) & 0xC0) != 0x80) {
            ++col;
        }
    }
    return {line, col};
}

LineIndex::LineIndex(std::string_view bytes) : bytes_(bytes) {
    const std::size_t first = bytes.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    line_starts_.push_back(first);
    block_columns_.reserve(bytes.size() / block + 1);
    std::size_t col = 1; // the column at offset i
    for (std::size_t i = 0;; ++i) {
        if (i % block == 0) {
            block_columns_.push_back(col);
        }
        if (i == bytes.size()) {
            break;
        }
        auto c = static_cast<unsigned char>(bytes[i]);
        if (c == '\n') {
            line_starts_.push_back(i + 1);
            col = 1;
        } else if (i >= first && (c & 0xC0) != 0x80) {
            ++col;
        }
    }
}

TextPosition LineIndex::position(std::size_t offset) const {
    if (offset > bytes_.size()) {
        offset = bytes_.size();
    }
    // The last line start at or before the offset (a BOM's bytes belong to no column).
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    std::size_t line =
        it == line_starts_.begin() ? 1 : static_cast<std::size_t>(it - line_starts_.begin());
    std::size_t start = it == line_starts_.begin() ? offset : *(it - 1);
    std::size_t col = 1;
    // Count from the last indexed block start on this line, if there is one.
    std::size_t b = offset / block;
    if (b * block > start) {
        start = b * block;
        col = block_columns_[b];
    }
    for (std::size_t i = start; i < offset; ++i) {
        if ((static_cast<unsigned char>(bytes_[i]) & 0xC0) != 0x80) {
            ++col;
        }
    }
    return {line, col};
}

std::string_view to_string(Severity s) {
    switch (s) {
    case Severity::error:
        return "error";
    case Severity::warning:
        return "warning";
    case Severity::note:
        return "note";
    }
    return "error";
}

namespace {

// The code strings, in the enum's order.
constexpr std::array<std::string_view, 55> code_names = {
    "io-error",                    // io_error
    "not-a-regular-file",          // not_regular_file
    "file-too-large",              // file_too_large
    "parse-error",                 // parse_error
    "not-sdsc",                    // not_sdsc
    "duplicate-handle",            // duplicate_handle
    "index-mismatch",              // index_mismatch
    "opfunc-mismatch",             // opfunc_mismatch
    "malformed-handle",            // malformed_handle
    "bad-argument",                // bad_argument
    "bad-origins",                 // bad_origins
    "bad-bundle",                  // bad_bundle
    "bad-mappings",                // bad_mappings
    "bad-ideal-cycles",            // bad_ideal_cycles
    "join-mismatch",               // join_mismatch
    "ambiguous-kernel",            // ambiguous_kernel
    "write-failed",                // write_failed
    "changed-on-disk",             // changed_on_disk
    "leftover-temp",               // leftover_temp
    "internal-error",              // internal_error
    "unsupported-schema-version",  // unsupported_schema_version
    "schema-validation-failure",   // schema_validation_failure
    "semantic-validation-failure", // semantic_validation_failure
    "stale-handle",                // stale_handle
    "inconsistent-handle-id",      // inconsistent_handle_id
    "conflicting-origins",         // conflicting_origins
    "kernel-without-dir",          // kernel_without_dir
    "unknown-sidecar",             // unknown_sidecar
    "empty-sidecar",               // empty_sidecar
    "no-sdsc-files",               // no_sdsc_files
    "symlink-not-followed",        // symlink_not_followed
    "hard-links",                  // hard_links
    "nested-handle",               // nested_handle
    "untimed-annotations",         // untimed_annotations
    "carrier-conflict",            // carrier_conflict
    "collision",                   // collision
    "unknown-key",                 // unknown_key
    "unparsable-name",             // unparsable_name
    "malformed-provenance-key",    // malformed_provenance_key
    "malformed-debug-handles",     // malformed_debug_handles
    "native-handle-disagreement",  // native_handle_disagreement
    "no-handles",                  // no_handles
    "unknown-handle",              // unknown_handle
    "sources-disagree",            // sources_disagree
    "bad-bundle-dir-prefix",       // bad_bundle_dir_prefix
    "ambiguous-ideal",             // ambiguous_ideal
    "bad-duration",                // bad_duration
    "bad-cycles-ts",               // bad_cycles_ts
    "not-an-event",                // not_an_event
    "already-annotated",           // already_annotated
    "util-over-100",               // util_over_100
    "not-a-trace",                 // not_a_trace
    "value-too-large",             // value_too_large
    "bad-gzip",                    // bad_gzip
    "merge-refused",               // merge_refused
};
static_assert(code_names.size() == static_cast<std::size_t>(ProblemCode::merge_refused) + 1);

} // namespace

std::string_view to_string(ProblemCode c) {
    auto i = static_cast<std::size_t>(c);
    return i < code_names.size() ? code_names[i] : "unknown";
}

Severity default_severity(ProblemCode c) {
    switch (c) {
    case ProblemCode::index_mismatch:
    case ProblemCode::opfunc_mismatch:
    case ProblemCode::malformed_handle:
    case ProblemCode::bad_ideal_cycles: // the kernel has no ideal; the profile goes on
    case ProblemCode::ambiguous_kernel:
    case ProblemCode::stale_handle:
    case ProblemCode::inconsistent_handle_id:
    case ProblemCode::conflicting_origins:
    case ProblemCode::empty_sidecar:
    case ProblemCode::nested_handle:
    case ProblemCode::no_sdsc_files: // check makes it an error: a gate that checks nothing fails
    case ProblemCode::unknown_key:
    case ProblemCode::unparsable_name:
    case ProblemCode::malformed_provenance_key:
    case ProblemCode::malformed_debug_handles:
    case ProblemCode::native_handle_disagreement:
    case ProblemCode::no_handles:
    case ProblemCode::unknown_handle:
    case ProblemCode::sources_disagree:
    case ProblemCode::bad_bundle_dir_prefix:
    case ProblemCode::ambiguous_ideal:
    case ProblemCode::not_an_event:
    case ProblemCode::already_annotated:
    case ProblemCode::util_over_100:
        return Severity::warning;
    case ProblemCode::leftover_temp:
    case ProblemCode::kernel_without_dir:
    case ProblemCode::symlink_not_followed:
    case ProblemCode::hard_links:
    case ProblemCode::untimed_annotations:
        return Severity::note;
    default:
        return Severity::error;
    }
}

} // namespace sdscprov
