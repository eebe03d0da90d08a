// Deriving a `debug_handle_` from one op's FX origins, exactly as torch-spyre does (docs/formats.md), so that annotate writes the handle torch-spyre would have written.
#pragma once

#include "sdscprov/handle/debug_handle.hpp"
#include "sdscprov/sidecars/origins.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace sdscprov {

// The source of a stack trace: every `File "<path>", line <n>` frame; the last (innermost) frame
// whose path does not contain "/torch/", else the last frame; column 0, no end. nullopt when the
// trace has no frame.
std::optional<HandleSource> source_of_stack_trace(std::string_view stack_trace);

// The handle for `op`, with nodes looked up in `nodes`; nullopt when the op has no origins
// (a compiler-generated op: it gets no handle). Origins missing from `nodes` count as nodes
// without ATen op or stack trace.
std::optional<DebugHandle> derive_handle(const OriginsOp& op,
                                         const std::map<std::string, FxNode>& nodes);

} // namespace sdscprov
