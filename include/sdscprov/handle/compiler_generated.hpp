// Ops the compiler creates with no model source by design: layout conversions and padding that
// torch-spyre inserts (docs/formats.md, "Compiler-generated ops"). They have no FX origins, so no
// handle can name a source line for them: they are not a provenance loss, and no fix removes
// them. Every command names them "compiler-generated" instead of counting them with the ops whose
// source is missing.
#pragma once

#include "sdscprov/handle/debug_handle.hpp"

#include <array>
#include <string_view>

namespace sdscprov {

// The one table of what makes an op compiler-generated: the compiler passes whose new buffers are
// source-less (torch-spyre's own list), and the opfunc families those passes create. A new pass
// or family is one row here.
struct SourcelessPass {
    std::string_view pass_name; // as a handle's transform_history names it
    std::string_view what;      // what the pass inserts, for people
};
inline constexpr std::array<SourcelessPass, 3> sourceless_creation_passes{{
    {"insert_restickify", "a layout conversion (restickify)"},
    {"insert_post_mutation_restickify", "a layout conversion after a mutation (restickify)"},
    {"insert_bmm_padding", "padding for a batched matmul"},
}};
// Opfuncs of the ops those passes create, matched as a part of the opfunc, letter case ignored
// (`ReStickifyOpHBM`, `ReStickifyOpLx`, `MixedReStickifyOpWithPTLxConsumer`, ...).
inline constexpr std::array<std::string_view, 2> sourceless_opfunc_families{{
    "restickify",
    "padding",
}};

// How an op was recognised as compiler-generated.
enum class GeneratedForm {
    none,              // not compiler-generated (or not known to be)
    sourceless_handle, // its handle has source null and a source-less creation pass in its history
    layout_opfunc,     // an opfunc of a source-less family, and no populated handle
    no_fx_origins,     // the origins map lists the op with no FX origins
};

bool is_sourceless_creation_pass(std::string_view pass_name);
bool is_sourceless_opfunc(std::string_view opfunc);

// A populated handle of a compiler-generated op: `source` null and a transform_history step whose
// pass is a source-less creation pass.
bool is_sourceless_handle(const DebugHandle& handle);

// An op by what its file says: its opfunc, and its handle when populated (nullptr otherwise).
GeneratedForm compiler_generated(std::string_view opfunc, const DebugHandle* handle);

} // namespace sdscprov
