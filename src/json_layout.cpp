#include "sdscprov/json_layout.hpp"

namespace sdscprov {

namespace {

bool is_ws(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::size_t skip_string(std::string_view b, std::size_t i) {
    for (++i; i < b.size(); ++i) {
        if (b[i] == '\\') {
            ++i;
        } else if (b[i] == '"') {
            return i + 1;
        }
    }
    return b.size();
}

} // namespace

std::size_t json_value_end(std::string_view b, std::size_t i) {
    if (i >= b.size()) {
        return i;
    }
    if (b[i] == '"') {
        return skip_string(b, i);
    }
    if (b[i] == '{' || b[i] == '[') {
        std::size_t depth = 0;
        while (i < b.size()) {
            char c = b[i];
            if (c == '"') {
                i = skip_string(b, i);
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
    while (i < b.size() && !is_ws(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']') {
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
        if (is_ws(c) || c == ',' || c == ':') {
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
            i = skip_string(b, i);
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
