#include "sdscprov/handle/debug_handle.hpp"

#include <algorithm>
#include <simdjson.h>
#include <string_view>

namespace sdscprov {

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;

// Reads one handle object; on failure sets `why` and returns false. `where` prefixes reasons for
// nested handles ("fused_from[1]: ...").
class HandleReader {
public:
    bool read(const element& value, DebugHandle& out, std::string& why) {
        simdjson::dom::object obj;
        if (value.get(obj) != simdjson::SUCCESS) {
            why = "not an object";
            return false;
        }
        static constexpr std::string_view order[] = {"id",       "source",     "aten_op",
                                                     "ir_chain", "fused_from", "transform_history"};
        std::size_t next = 0;
        bool has_history = false;
        for (auto [key, member] : obj) {
            if (has_history) {
                why = "member '" + std::string(key) + "' after '" +
                      std::string(out.history_shape == HistoryShape::fusion_context
                                      ? "fusion_context"
                                      : "transform_history") +
                      "'";
                return false;
            }
            bool history_slot = next == 5;
            if (history_slot && key == "fusion_context") {
                out.history_shape = HistoryShape::fusion_context;
            } else if (next >= 6 || key != order[next]) {
                why = next < 6 ? "expected member '" + std::string(order[next]) + "', found '" +
                                     std::string(key) + "'"
                               : "unexpected member '" + std::string(key) + "'";
                return false;
            }
            if (!read_member(next, member, out, why)) {
                if (why.find('\'') != 0) {
                    why = "member '" + std::string(key) + "' " + why;
                }
                return false;
            }
            has_history = history_slot;
            ++next;
        }
        if (!has_history) {
            why = next < 6 ? "missing member '" + std::string(order[next]) + "'"
                           : "missing member 'transform_history'";
            return false;
        }
        return true;
    }

private:
    static bool read_string(const element& e, std::string& out) {
        std::string_view s;
        if (e.get(s) != simdjson::SUCCESS) {
            return false;
        }
        out.assign(s);
        return true;
    }

    static bool read_int(const element& e, std::int64_t& out) {
        return e.get(out) == simdjson::SUCCESS;
    }

    static bool read_optional_int(const element& e, std::optional<std::int64_t>& out) {
        if (e.is_null()) {
            out.reset();
            return true;
        }
        std::int64_t v = 0;
        if (!read_int(e, v)) {
            return false;
        }
        out = v;
        return true;
    }

    static bool read_optional_string(const element& e, std::optional<std::string>& out) {
        if (e.is_null()) {
            out.reset();
            return true;
        }
        std::string s;
        if (!read_string(e, s)) {
            return false;
        }
        out = std::move(s);
        return true;
    }

    static bool is_handle_id(std::string_view id) {
        if (id.empty() || id.size() > 19 || (id.size() > 1 && id[0] == '0')) {
            return false;
        }
        std::uint64_t v = 0;
        for (char c : id) {
            if (c < '0' || c > '9') {
                return false;
            }
            v = v * 10 + static_cast<std::uint64_t>(c - '0');
        }
        return v < (std::uint64_t{1} << 63);
    }

    static bool read_source(const element& e, std::optional<HandleSource>& out, std::string& why) {
        if (e.is_null()) {
            out.reset();
            return true;
        }
        simdjson::dom::object obj;
        if (e.get(obj) != simdjson::SUCCESS) {
            why = "is neither null nor an object";
            return false;
        }
        static constexpr std::string_view order[] = {"file", "start_line", "start_col", "end_line",
                                                     "end_col"};
        HandleSource src;
        std::size_t next = 0;
        for (auto [key, member] : obj) {
            if (next >= 5 || key != order[next]) {
                why = next < 5 ? "expected 'source." + std::string(order[next]) + "', found '" +
                                     std::string(key) + "'"
                               : "unexpected member 'source." + std::string(key) + "'";
                return false;
            }
            bool ok = next == 0   ? read_string(member, src.file)
                      : next == 1 ? read_int(member, src.start_line)
                      : next == 2 ? read_int(member, src.start_col)
                      : next == 3 ? read_optional_int(member, src.end_line)
                                  : read_optional_int(member, src.end_col);
            if (!ok) {
                why = "'source." + std::string(key) + "' has the wrong type";
                return false;
            }
            ++next;
        }
        if (next != 5) {
            why = "missing 'source." + std::string(order[next]) + "'";
            return false;
        }
        out = std::move(src);
        return true;
    }

    bool read_member(std::size_t slot, const element& e, DebugHandle& out, std::string& why) {
        switch (slot) {
        case 0:
            if (!read_string(e, out.id) || !is_handle_id(out.id)) {
                why = "is not the decimal string of a 63-bit value";
                return false;
            }
            return true;
        case 1:
            return read_source(e, out.source, why);
        case 2:
            if (!read_optional_string(e, out.aten_op)) {
                why = "is neither null nor a string";
                return false;
            }
            return true;
        case 3: {
            simdjson::dom::array arr;
            if (e.get(arr) != simdjson::SUCCESS) {
                why = "is not an array";
                return false;
            }
            for (element item : arr) {
                std::string s;
                if (!read_string(item, s)) {
                    why = "holds a non-string";
                    return false;
                }
                out.ir_chain.push_back(std::move(s));
            }
            return true;
        }
        case 4: {
            simdjson::dom::array arr;
            if (e.get(arr) != simdjson::SUCCESS) {
                why = "is not an array";
                return false;
            }
            std::size_t i = 0;
            for (element item : arr) {
                DebugHandle child;
                std::string child_why;
                if (!read(item, child, child_why)) {
                    why = "'fused_from[" + std::to_string(i) + "]': " + child_why;
                    return false;
                }
                out.fused_from.push_back(std::move(child));
                ++i;
            }
            return true;
        }
        default:
            if (out.history_shape == HistoryShape::fusion_context) {
                if (!read_optional_string(e, out.fusion_context)) {
                    why = "is neither null nor a string";
                    return false;
                }
                return true;
            }
            return read_history(e, out.transform_history, why);
        }
    }

    static bool read_history(const element& e, std::vector<TransformStep>& out, std::string& why) {
        simdjson::dom::array arr;
        if (e.get(arr) != simdjson::SUCCESS) {
            why = "is not an array";
            return false;
        }
        for (element item : arr) {
            simdjson::dom::object obj;
            if (item.get(obj) != simdjson::SUCCESS) {
                why = "holds a non-object";
                return false;
            }
            TransformStep step;
            static constexpr std::string_view order[] = {"kind", "pass_name", "reason"};
            std::size_t next = 0;
            for (auto [key, member] : obj) {
                bool ok = next < 3 && key == order[next] &&
                          (next == 0   ? read_string(member, step.kind)
                           : next == 1 ? read_string(member, step.pass_name)
                                       : read_optional_string(member, step.reason));
                if (!ok) {
                    why = "holds a step that is not {kind, pass_name, reason}";
                    return false;
                }
                ++next;
            }
            if (next != 3) {
                why = "holds a step that is not {kind, pass_name, reason}";
                return false;
            }
            out.push_back(std::move(step));
        }
        return true;
    }
};

} // namespace

HandleReadResult read_debug_handle(const simdjson::dom::element& value) {
    HandleReadResult result;
    DebugHandle handle;
    HandleReader reader;
    if (reader.read(value, handle, result.malformed_reason)) {
        result.handle = std::move(handle);
    }
    return result;
}

std::size_t own_nesting(const DebugHandle& handle) {
    std::size_t nesting = 1; // the members of the handle object
    if (handle.source || !handle.ir_chain.empty()) {
        nesting = 2; // the source's members, the ir_chain's elements
    }
    if (handle.history_shape == HistoryShape::transform_history &&
        !handle.transform_history.empty()) {
        nesting = 3; // the members of a transform step, in its array
    }
    return nesting;
}

std::size_t handle_nesting(const DebugHandle& handle) {
    std::size_t deepest = 0;
    std::vector<std::pair<const DebugHandle*, std::size_t>> pending{{&handle, 0}};
    while (!pending.empty()) {
        auto [h, outside] = pending.back();
        pending.pop_back();
        deepest = std::max(deepest, outside + own_nesting(*h));
        for (const auto& child : h->fused_from) {
            pending.emplace_back(&child, outside + 2);
        }
    }
    return deepest;
}

} // namespace sdscprov
