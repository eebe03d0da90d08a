// Pieces of JSON output shared by the printers (report, check, explain, profile): a debug_handle_ as
// docs/formats.md lays it out, and a problem. Internal to the library (RapidJSON stays out of
// the public headers); `W` is a RapidJSON writer.
#pragma once

#include "sdscprov/handle/debug_handle.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/core/problem.hpp"
#include "sdscprov/walk/shard.hpp"

#include <cstdint>
#include <optional>
#include <rapidjson/rapidjson.h>
#include <string>
#include <string_view>

namespace sdscprov::json_out {

template <class W> void key(W& w, std::string_view k) {
    w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size()));
}

// A text: valid UTF-8 as it is, else each invalid byte replaced by U+FFFD (RapidJSON would write
// the bytes as they are, and the report would not be JSON).
template <class W> void string(W& w, std::string_view s) {
    if (is_valid_utf8(s)) {
        w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
        return;
    }
    std::string text = valid_utf8(s);
    w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

// A path: a string when it is valid UTF-8, else {"bytes": "<base64 of its bytes>"}: nothing of a
// file name is lost, and the report stays JSON (docs/report-json.md, "Paths").
template <class W> void path(W& w, std::string_view p) {
    if (is_valid_utf8(p)) {
        w.String(p.data(), static_cast<rapidjson::SizeType>(p.size()));
        return;
    }
    w.StartObject();
    key(w, "bytes");
    std::string encoded = base64_encode(p);
    w.String(encoded.data(), static_cast<rapidjson::SizeType>(encoded.size()));
    w.EndObject();
}

template <class W> void optional_string(W& w, const std::optional<std::string>& s) {
    if (s) {
        string(w, *s);
    } else {
        w.Null();
    }
}

template <class W> void optional_int(W& w, const std::optional<std::int64_t>& v) {
    if (v) {
        w.Int64(*v);
    } else {
        w.Null();
    }
}

// A 1-based line or column; null for 0 ("no position").
template <class W> void position(W& w, std::size_t v) {
    if (v == 0) {
        w.Null();
    } else {
        w.Uint64(v);
    }
}

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

// {"path", "line", "col", "severity", "code", "message"}, and in a sharded run's report "scope"
// and "position" (docs/report-json.md, "Shards").
template <class W> void problem(W& w, const Problem& p, const ProblemPlace* place = nullptr) {
    w.StartObject();
    key(w, "path");
    path(w, p.path);
    key(w, "line");
    position(w, p.pos.line);
    key(w, "col");
    position(w, p.pos.col);
    key(w, "severity");
    string(w, to_string(p.severity));
    key(w, "code");
    string(w, to_string(p.code));
    key(w, "message");
    string(w, p.message);
    if (place) {
        key(w, "scope");
        string(w, to_string(place->scope));
        key(w, "position");
        if (place->scope == ProblemScope::run) {
            w.Null();
        } else {
            w.Uint64(place->position);
        }
    }
    w.EndObject();
}

// A sharded run's "shard" member: which shard, and what merge checks of the walk.
template <class W> void shard(W& w, const ShardWalk& walk) {
    key(w, "shard");
    w.StartObject();
    key(w, "index");
    w.Uint(walk.shard.index);
    key(w, "count");
    w.Uint(walk.shard.count);
    key(w, "hash");
    string(w, "fnv1a64");
    key(w, "positions");
    w.Uint64(walk.positions);
    key(w, "kernels");
    w.Uint64(walk.kernels);
    w.EndObject();
}

} // namespace sdscprov::json_out
