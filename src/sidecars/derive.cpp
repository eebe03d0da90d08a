// Deriving a handle as torch-spyre's `build_debug_handle` (torch_spyre/_inductor/provenance.py,
// id version 2) does, from the data the origins map carries instead of live FX nodes.
//
// Interpretation of torch-spyre's derivation (docs/formats.md) (decisions taken for sdscprov,
// matching the Python):
// - Origins are sorted by (name, original_aten), a null original_aten sorting as "". (Python's
//   key is str(meta.get("original_aten", "")): an absent value is "", a present None would be
//   "None"; the origins map cannot tell the two apart, and FX names are unique in a graph, so the
//   second key never decides anything in practice.) A name listed twice is one node, as Inductor's
//   `origins` is a set of nodes.
// - "The origins agree on one value": the set of distinct NON-null values has exactly one
//   element; null values do not disagree. Sources are compared as whole HandleSource values
//   (Python compares "file:line:col"; derived sources always have col 0 and no end, so the two
//   are the same).
// - With an origin_node: aten_op is that node's original_aten (possibly null); source is that
//   node's source when it has one, else the one source the origins agree on, else null. An
//   origin_node name missing from `nodes` is a node with nothing.
// - Without an origin_node: aten_op and source are each set only when the origins agree on one
//   value, else null.
// - ir_chain: sorted origin names, then the buffer name (omitted when empty, as Python's
//   `if buf_name`).
// - fused_from: one child per origin when there are 2 or more, in sorted origin order, each
//   {id, source, aten_op, ir_chain: [name], fused_from: [], transform_history: []}, its id computed
//   from its own content.
// - transform_history is the op's, history_shape transform_history, id version 2.
#include "sdscprov/sidecars/derive.hpp"

#include "sdscprov/handle/handle_id.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace sdscprov {

namespace {

// One frame as `re.findall(r'File "([^"]+)", line (\d+)', trace)` sees it.
struct Frame {
    std::string_view path;
    std::int64_t line = 0;
};

struct FrameMatch {
    std::size_t end = 0;        // where the match ends: the search goes on from here, as findall's
    std::optional<Frame> frame; // unset when the line number does not fit a handle (int64)
};

// Matches the frame pattern at `pos` (which holds `File "`). The path is everything up to the
// next double quote (Python's [^"]+ cannot skip one, and may include newlines), so CRLF line ends
// and spaces in paths need no special case. Line numbers are ASCII digits (Python's \d would also
// take other Unicode digits, which no traceback prints).
std::optional<FrameMatch> match_frame(std::string_view trace, std::size_t pos) {
    constexpr std::string_view file_prefix = "File \"";
    constexpr std::string_view line_infix = "\", line ";
    const std::size_t path_begin = pos + file_prefix.size();
    const std::size_t quote = trace.find('"', path_begin);
    if (quote == std::string_view::npos || quote == path_begin ||
        trace.substr(quote, line_infix.size()) != line_infix) {
        return std::nullopt;
    }
    const std::size_t digits_begin = quote + line_infix.size();
    std::size_t k = digits_begin;
    std::int64_t line = 0;
    bool fits = true;
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
    while (k < trace.size() && trace[k] >= '0' && trace[k] <= '9') {
        const int digit = trace[k] - '0';
        if (line > (max - digit) / 10) {
            fits = false;
        } else {
            line = line * 10 + digit;
        }
        ++k;
    }
    if (k == digits_begin) {
        return std::nullopt;
    }
    FrameMatch match{k, std::nullopt};
    if (fits) {
        match.frame = Frame{trace.substr(path_begin, quote - path_begin), line};
    }
    return match;
}

struct Origin {
    std::string name;
    std::optional<std::string> aten_op;
    std::optional<HandleSource> source;
};

const FxNode* find_node(const std::map<std::string, FxNode>& nodes, const std::string& name) {
    auto it = nodes.find(name);
    return it == nodes.end() ? nullptr : &it->second;
}

std::optional<HandleSource> source_of_node(const FxNode* node) {
    if (node == nullptr || !node->stack_trace) {
        return std::nullopt;
    }
    return source_of_stack_trace(*node->stack_trace);
}

// The one non-null value the origins hold, when there is exactly one distinct such value.
template <typename T>
std::optional<T> agreed(const std::vector<Origin>& origins, std::optional<T> Origin::*member) {
    std::optional<T> found;
    for (const auto& origin : origins) {
        const auto& value = origin.*member;
        if (!value) {
            continue;
        }
        if (found && *found != *value) {
            return std::nullopt;
        }
        found = value;
    }
    return found;
}

} // namespace

std::optional<HandleSource> source_of_stack_trace(std::string_view stack_trace) {
    constexpr std::string_view file_prefix = "File \"";
    std::optional<Frame> last;
    std::optional<Frame> last_user; // innermost frame outside torch: the model's own line
    std::size_t pos = stack_trace.find(file_prefix);
    while (pos != std::string_view::npos) {
        std::size_t resume = pos + 1;
        if (auto match = match_frame(stack_trace, pos)) {
            resume = match->end;
            if (match->frame) {
                last = match->frame;
                if (match->frame->path.find("/torch/") == std::string_view::npos) {
                    last_user = match->frame;
                }
            }
        }
        pos = stack_trace.find(file_prefix, resume);
    }
    const auto& chosen = last_user ? last_user : last;
    if (!chosen) {
        return std::nullopt;
    }
    return HandleSource{std::string(chosen->path), chosen->line, 0, std::nullopt, std::nullopt};
}

std::optional<DebugHandle> derive_handle(const OriginsOp& op,
                                         const std::map<std::string, FxNode>& nodes) {
    if (op.origins.empty()) {
        return std::nullopt;
    }
    std::vector<Origin> origins;
    std::set<std::string_view> seen;
    for (const auto& name : op.origins) {
        if (!seen.insert(name).second) {
            continue;
        }
        const FxNode* node = find_node(nodes, name);
        origins.push_back(
            {name, node != nullptr ? node->original_aten : std::nullopt, source_of_node(node)});
    }
    // Stable, as Python's sorted(): equal keys keep the map's order.
    std::stable_sort(origins.begin(), origins.end(), [](const Origin& a, const Origin& b) {
        const std::string_view a_aten = a.aten_op ? std::string_view(*a.aten_op) : "";
        const std::string_view b_aten = b.aten_op ? std::string_view(*b.aten_op) : "";
        return a.name != b.name ? a.name < b.name : a_aten < b_aten;
    });

    DebugHandle h;
    if (op.origin_node) {
        const FxNode* primary = find_node(nodes, *op.origin_node);
        h.aten_op = primary != nullptr ? primary->original_aten : std::nullopt;
        h.source = source_of_node(primary);
        if (!h.source) {
            h.source = agreed(origins, &Origin::source);
        }
    } else {
        h.aten_op = agreed(origins, &Origin::aten_op);
        h.source = agreed(origins, &Origin::source);
    }
    for (const auto& origin : origins) {
        h.ir_chain.push_back(origin.name);
    }
    if (!op.buffer.empty()) {
        h.ir_chain.push_back(op.buffer);
    }
    if (origins.size() >= 2) {
        for (const auto& origin : origins) {
            DebugHandle child;
            child.source = origin.source;
            child.aten_op = origin.aten_op;
            child.ir_chain = {origin.name};
            child.id = handle_id_v2(child);
            h.fused_from.push_back(std::move(child));
        }
    }
    h.history_shape = HistoryShape::transform_history;
    h.transform_history = op.transform_history;
    h.id = handle_id_v2(h);
    return h;
}

} // namespace sdscprov
