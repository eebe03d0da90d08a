// The `debug_handle_` member of an SDSC op object (docs/formats.md): what it holds and how it
// is read. Reading is strict: anything not of the documented shape is reported as malformed with
// a reason, never guessed at.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simdjson::dom {
class element;
}

namespace sdscprov {

struct HandleSource {
    std::string file;
    std::int64_t start_line = 0;
    std::int64_t start_col = 0;
    std::optional<std::int64_t> end_line;
    std::optional<std::int64_t> end_col;
    bool operator==(const HandleSource&) const = default;
};

struct TransformStep {
    std::string kind;
    std::string pass_name;
    std::optional<std::string> reason;
    bool operator==(const TransformStep&) const = default;
};

// Which member ends the handle: `transform_history` (today) or `fusion_context` (July 2026 files,
// torch-spyre PR #2945, id version 1).
enum class HistoryShape { transform_history, fusion_context };

struct DebugHandle {
    std::string id; // decimal string of a 63-bit unsigned value
    std::optional<HandleSource> source;
    std::optional<std::string> aten_op;
    std::vector<std::string> ir_chain;
    std::vector<DebugHandle> fused_from;
    HistoryShape history_shape = HistoryShape::transform_history;
    std::vector<TransformStep> transform_history;
    std::optional<std::string> fusion_context;
    bool operator==(const DebugHandle&) const = default;
};

struct HandleReadResult {
    std::optional<DebugHandle> handle; // set when the value has the documented shape
    std::string malformed_reason;      // set otherwise, e.g. "member 'id' is not a decimal string"
};

// Reads a populated handle (an object) from a parsed document. Unknown members, missing members,
// members out of the documented order and wrong types all make it malformed.
HandleReadResult read_debug_handle(const simdjson::dom::element& value);

} // namespace sdscprov
