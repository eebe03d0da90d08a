// Pieces of JSON output every JSON writer shares: keys, texts made valid UTF-8, paths that keep
// their bytes, positions and a problem. Internal to the library (RapidJSON stays out of the public
// headers); `W` is a RapidJSON writer. A debug_handle_ is written by handle/handle_json.hpp, a
// sharded run's members by walk/shard_json.hpp.
#pragma once

#include "sdscprov/core/display.hpp"
#include "sdscprov/core/problem.hpp"

#include <cstdint>
#include <optional>
#include <rapidjson/rapidjson.h>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

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

// An array of texts.
template <class W> void strings(W& w, const std::vector<std::string>& list) {
    w.StartArray();
    for (const auto& s : list) {
        string(w, s);
    }
    w.EndArray();
}

template <class W> void optional_int(W& w, const std::optional<std::int64_t>& v) {
    if (v) {
        w.Int64(*v);
    } else {
        w.Null();
    }
}

// A member: its key, then the value written as its type asks (a bool, a signed or unsigned
// integer, an optional integer or text, or a text).
template <class W, class T> void member(W& w, std::string_view k, const T& v) {
    key(w, k);
    if constexpr (std::is_same_v<T, bool>) {
        w.Bool(v);
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
        w.Int64(v);
    } else if constexpr (std::is_integral_v<T>) {
        w.Uint64(v);
    } else if constexpr (std::is_same_v<T, std::optional<std::int64_t>>) {
        optional_int(w, v);
    } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
        optional_string(w, v);
    } else {
        string(w, std::string_view(v));
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

// {"path", "line", "col", "severity", "code", "message"}: the members, and the object.
template <class W> void problem_members(W& w, const Problem& p) {
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
}

template <class W> void problem(W& w, const Problem& p) {
    w.StartObject();
    problem_members(w, p);
    w.EndObject();
}

} // namespace sdscprov::json_out
