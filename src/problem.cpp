#include "sdscprov/problem.hpp"

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
    case ProblemCode::join_mismatch:
        return "join-mismatch";
    case ProblemCode::ambiguous_kernel:
        return "ambiguous-kernel";
    case ProblemCode::write_failed:
        return "write-failed";
    case ProblemCode::changed_on_disk:
        return "changed-on-disk";
    }
    return "unknown";
}

Severity default_severity(ProblemCode c) {
    switch (c) {
    case ProblemCode::index_mismatch:
    case ProblemCode::opfunc_mismatch:
    case ProblemCode::malformed_handle:
    case ProblemCode::ambiguous_kernel:
        return Severity::warning;
    default:
        return Severity::error;
    }
}

} // namespace sdscprov
