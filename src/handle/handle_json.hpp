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
    key(w, "file");
    string(w, s->file);
    key(w, "start_line");
    w.Int64(s->start_line);
    key(w, "start_col");
    w.Int64(s->start_col);
    key(w, "end_line");
    optional_int(w, s->end_line);
    key(w, "end_col");
    optional_int(w, s->end_col);
    w.EndObject();
}

template <class W> void handle(W& w, const DebugHandle& h) {
    w.StartObject();
    key(w, "id");
    string(w, h.id);
    key(w, "source");
    source(w, h.source);
    key(w, "aten_op");
    optional_string(w, h.aten_op);
    key(w, "ir_chain");
    w.StartArray();
    for (const auto& s : h.ir_chain) {
        string(w, s);
    }
    w.EndArray();
    key(w, "fused_from");
    w.StartArray();
    for (const auto& child : h.fused_from) {
        handle(w, child);
    }
    w.EndArray();
    if (h.history_shape == HistoryShape::fusion_context) {
        key(w, "fusion_context");
        optional_string(w, h.fusion_context);
    } else {
        key(w, "transform_history");
        w.StartArray();
        for (const auto& step : h.transform_history) {
            w.StartObject();
            key(w, "kind");
            string(w, step.kind);
            key(w, "pass_name");
            string(w, step.pass_name);
            key(w, "reason");
            optional_string(w, step.reason);
            w.EndObject();
        }
        w.EndArray();
    }
    w.EndObject();
}

} // namespace sdscprov::json_out
