#include "sdscprov/core/json_layout.hpp"

#include <cstring>

namespace sdscprov {

std::size_t json_skip_ws(std::string_view b, std::size_t i) {
    while (i < b.size() && json_is_ws(b[i])) {
        ++i;
    }
    return i;
}

std::size_t json_closing_quote(std::string_view b, std::size_t open, std::size_t from) {
    // From quote to quote (memchr); each run of backslashes is walked back once, for the quote
    // after it.
    const char* data = b.data();
    while (from < b.size()) {
        const void* q = std::memchr(data + from, '"', b.size() - from);
        if (q == nullptr) {
            break;
        }
        std::size_t quote = static_cast<std::size_t>(static_cast<const char*>(q) - data);
        std::size_t run = quote;
        while (run > open + 1 && data[run - 1] == '\\') {
            --run;
        }
        if ((quote - run) % 2 == 0) {
            return quote;
        }
        from = quote + 1;
    }
    return std::string_view::npos;
}

std::size_t json_string_end(std::string_view b, std::size_t i) {
    std::size_t quote = json_closing_quote(b, i, i + 1);
    return quote == std::string_view::npos ? b.size() : quote + 1;
}

std::size_t json_member_value(std::string_view b, std::size_t key) {
    std::size_t i = json_skip_ws(b, json_string_end(b, key));
    return json_skip_ws(b, i + 1);
}

std::size_t json_value_end(std::string_view b, std::size_t i) {
    if (i >= b.size()) {
        return i;
    }
    if (b[i] == '"') {
        return json_string_end(b, i);
    }
    if (b[i] == '{' || b[i] == '[') {
        std::size_t depth = 0;
        while (i < b.size()) {
            char c = b[i];
            if (c == '"') {
                i = json_string_end(b, i);
                continue;
            }
            if (c == '{' || c == '[') {
                ++depth;
            } else if ((c == '}' || c == ']') && --depth == 0) {
                return i + 1;
            }
            ++i;
        }
        return i;
    }
    while (i < b.size() && !json_is_ws(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']') {
        ++i;
    }
    return i;
}

std::vector<JsonValueLocation> json_value_locations(std::string_view b) {
    std::vector<JsonValueLocation> out;
    // Open containers: index into `out` of each, and whether it is an object.
    std::vector<std::pair<std::size_t, bool>> open;
    std::size_t pending_key = std::string_view::npos;
    std::size_t i = 0;
    while (i < b.size()) {
        char c = b[i];
        if (json_is_ws(c) || c == ',' || c == ':') {
            ++i;
            continue;
        }
        if (c == '}' || c == ']') {
            auto& container = out[open.back().first];
            container.end = i + 1;
            container.count = out.size() - open.back().first;
            open.pop_back();
            ++i;
            continue;
        }
        bool in_object = !open.empty() && open.back().second;
        if (c == '"' && in_object && pending_key == std::string_view::npos) {
            pending_key = i;
            i = json_string_end(b, i);
            continue;
        }
        std::size_t key = pending_key == std::string_view::npos ? i : pending_key;
        pending_key = std::string_view::npos;
        out.push_back({i, key, i, 1});
        if (c == '{' || c == '[') {
            open.emplace_back(out.size() - 1, c == '{');
            ++i;
        } else {
            i = json_value_end(b, i);
            out.back().end = i;
        }
    }
    return out;
}

} // namespace sdscprov
