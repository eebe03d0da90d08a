// The `debug_handle_` member of an SDSC op object (docs/formats.md): what it holds and how it
// is read. Reading is strict: anything not of the documented shape is reported as malformed with
// a reason, never guessed at.
#pragma once

#include "sdscprov/core/json_error.hpp"

#include <cstddef>
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

// How deep the handle's own values nest as written, not counting what its fused_from children
// add: the number of containers of the handle around its deepest value, the handle object
// included and empty arrays not (as the parser counts). A child in fused_from adds 2 to its own
// nesting (the array and its object).
std::size_t own_nesting(const DebugHandle& handle);

// The nesting of the whole handle, fused_from children included (no recursion).
std::size_t handle_nesting(const DebugHandle& handle);

// The deepest a handle can nest and still be written into an SDSC file that parses: it is a
// member of the op object, itself a member of the top-level object, and a value inside
// max_json_depth containers (json_error.hpp) is refused. A sidecar giving a deeper handle is
// refused when it is read, before any file is written.
inline constexpr std::size_t max_handle_nesting = max_json_depth - 3;

} // namespace sdscprov
