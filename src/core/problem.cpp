#include "sdscprov/core/problem.hpp"

#include <algorithm>

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

std::string_view to_string(ProblemCode c) {
    switch (c) {
    case ProblemCode::io_error:
        return "io-error";
    case ProblemCode::not_regular_file:
        return "not-a-regular-file";
    case ProblemCode::file_too_large:
        return "file-too-large";
    case ProblemCode::parse_error:
        return "parse-error";
    case ProblemCode::not_sdsc:
        return "not-sdsc";
    case ProblemCode::duplicate_handle:
        return "duplicate-handle";
    case ProblemCode::index_mismatch:
        return "index-mismatch";
    case ProblemCode::opfunc_mismatch:
        return "opfunc-mismatch";
    case ProblemCode::malformed_handle:
        return "malformed-handle";
    case ProblemCode::bad_argument:
        return "bad-argument";
    case ProblemCode::bad_origins:
        return "bad-origins";
    case ProblemCode::bad_bundle:
        return "bad-bundle";
    case ProblemCode::bad_mappings:
        return "bad-mappings";
    case ProblemCode::bad_ideal_cycles:
        return "bad-ideal-cycles";
    case ProblemCode::join_mismatch:
        return "join-mismatch";
    case ProblemCode::ambiguous_kernel:
        return "ambiguous-kernel";
    case ProblemCode::write_failed:
        return "write-failed";
    case ProblemCode::leftover_temp:
        return "leftover-temp";
    case ProblemCode::changed_on_disk:
        return "changed-on-disk";
    case ProblemCode::internal_error:
        return "internal-error";
    case ProblemCode::unsupported_schema_version:
        return "unsupported-schema-version";
    case ProblemCode::schema_validation_failure:
        return "schema-validation-failure";
    case ProblemCode::semantic_validation_failure:
        return "semantic-validation-failure";
    case ProblemCode::stale_handle:
        return "stale-handle";
    case ProblemCode::inconsistent_handle_id:
        return "inconsistent-handle-id";
    case ProblemCode::conflicting_origins:
        return "conflicting-origins";
    case ProblemCode::kernel_without_dir:
        return "kernel-without-dir";
    case ProblemCode::unknown_sidecar:
        return "unknown-sidecar";
    case ProblemCode::empty_sidecar:
        return "empty-sidecar";
    case ProblemCode::no_sdsc_files:
        return "no-sdsc-files";
    case ProblemCode::symlink_not_followed:
        return "symlink-not-followed";
    case ProblemCode::hard_links:
        return "hard-links";
    case ProblemCode::nested_handle:
        return "nested-handle";
    }
    return "unknown";
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
        return Severity::warning;
    case ProblemCode::leftover_temp:
    case ProblemCode::kernel_without_dir:
    case ProblemCode::symlink_not_followed:
    case ProblemCode::hard_links:
        return Severity::note;
    default:
        return Severity::error;
    }
}

} // namespace sdscprov
