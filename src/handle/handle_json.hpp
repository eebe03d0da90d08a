// A debug_handle_ in JSON as docs/formats.md lays it out (its members in that order), for every
// printer that shows one. Internal to the library; `W` is a RapidJSON writer.
#pragma once

#include "core/json_out.hpp"
#include "sdscprov/handle/debug_handle.hpp"

#include <optional>

namespace sdscprov::json_out {

// A handle's source, or null.
template <class W> void source(W& w, const std::optional<HandleSource>& s) {
    if (!s) {
        w.Null();
        return;
    }
    w.StartObject();
    member(w, "file", s->file);
    member(w, "start_line", s->start_line);
    member(w, "start_col", s->start_col);
    member(w, "end_line", s->end_line);
    member(w, "end_col", s->end_col);
    w.EndObject();
}

template <class W> void handle(W& w, const DebugHandle& h) {
    w.StartObject();
    member(w, "id", h.id);
    key(w, "source");
    source(w, h.source);
    member(w, "aten_op", h.aten_op);
    key(w, "ir_chain");
    strings(w, h.ir_chain);
    key(w, "fused_from");
    w.StartArray();
    for (const auto& child : h.fused_from) {
        handle(w, child);
    }
    w.EndArray();
    if (h.history_shape == HistoryShape::fusion_context) {
        member(w, "fusion_context", h.fusion_context);
    } else {
        key(w, "transform_history");
        w.StartArray();
        for (const auto& step : h.transform_history) {
            w.StartObject();
            member(w, "kind", step.kind);
            member(w, "pass_name", step.pass_name);
            member(w, "reason", step.reason);
            w.EndObject();
        }
        w.EndArray();
    }
    w.EndObject();
}

} // namespace sdscprov::json_out
