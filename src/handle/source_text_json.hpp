// What a report did not read of the source files, in JSON: the `source_text` member of explain's
// and profile's reports (docs/explain.md, docs/profile.md). Internal to the library; `W` is a
// RapidJSON writer.
#pragma once

#include "core/json_out.hpp"
#include "sdscprov/handle/source_text.hpp"

namespace sdscprov::json_out {

// "source_text": {"read": false with --no-source-text, "not_shown": [{"file", "reason"}] by
// file, "unreadable_prefixes": ["/workspace/", ...]}.
template <class W> void source_text_member(W& w, const SourceTextNote& note) {
    key(w, "source_text");
    w.StartObject();
    member(w, "read", note.read);
    key(w, "not_shown");
    w.StartArray();
    for (const auto& [file, why] : note.not_shown) {
        w.StartObject();
        member(w, "file", file);
        member(w, "reason", to_string(why));
        w.EndObject();
    }
    w.EndArray();
    key(w, "unreadable_prefixes");
    w.StartArray();
    for (const auto& prefix : note.unreadable_prefixes) {
        string(w, prefix);
    }
    w.EndArray();
    w.EndObject();
}

} // namespace sdscprov::json_out
