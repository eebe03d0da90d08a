#include "sdscprov/sidecars/upstream.hpp"

#include "sdscprov/core/json_layout.hpp"
#include "sidecars/located_json.hpp"
#include "sidecars/padded_readers.hpp"

#include <algorithm>
#include <simdjson.h>

namespace sdscprov {

namespace {

using simdjson::dom::element;

// Walks the document beside its value locations (pre-order), so that a rejected value is
// reported at its line and column.
class UpstreamParser : public detail::LocatedJsonReader {
public:
    UpstreamParser(std::string path, std::string_view bytes)
        : LocatedJsonReader(std::move(path), bytes, ProblemCode::bad_mappings) {}

    std::optional<UpstreamMappings> read(const element& root) {
        UpstreamMappings m;
        m.path = path_;
        simdjson::dom::object obj;
        if (root.get(obj) != simdjson::SUCCESS) {
            error(0, false, "a provenance mappings file is a JSON object");
            return std::nullopt;
        }
        bool node_mappings = false;
        for (auto [key, value] : obj) {
            node_mappings |= key == "preToPost" || key == "postToPre" || key == "cppCodeToPost" ||
                             key == "postToCppCode" || key == "version";
        }
        if (!node_mappings && obj.size() > 0 && !(*obj.begin()).value.is_array()) {
            // Neither kind: reading it as stack traces would only say that its first value is
            // not a list.
            problems.push_back(
                make_problem(path_, position(0, false), ProblemCode::unknown_sidecar,
                             "not a provenance mappings file: " + std::string(upstream_kinds)));
            return std::nullopt;
        }
        std::size_t child = 1;
        for (auto [key, value] : obj) {
            if (!node_mappings) {
                list(value, child, "a kernel's stack traces",
                     m.kernel_stack_traces[std::string(key)]);
            } else if (key == "version") {
                double v = 0;
                std::int64_t i = 0;
                if (value.get(v) == simdjson::SUCCESS) {
                    m.version = v;
                } else if (value.get(i) == simdjson::SUCCESS) {
                    m.version = static_cast<double>(i);
                } else {
                    m.version = -1;
                }
                if (!value.is_number()) {
                    error(child, false, "'version' must be a number (1.0 or 2.0)");
                } else if (m.version != 1.0 && m.version != 2.0) {
                    error(child, false,
                          "unsupported mappings version (this sdscprov reads 1.0 and 2.0)");
                }
            } else if (key == "preToPost") {
                lists(value, child, m.pre_to_post);
            } else if (key == "postToPre") {
                lists(value, child, m.post_to_pre);
            } else if (key == "cppCodeToPost") {
                lists(value, child, m.code_to_post);
            } else if (key == "postToCppCode") {
                lists(value, child, m.post_to_code);
            } else {
                error(child, true,
                      "unknown member '" + std::string(key) +
                          "' (known: preToPost, postToPre, cppCodeToPost, postToCppCode, version)");
            }
            child += locs_[child].count;
        }
        if (any_error()) {
            return std::nullopt;
        }
        if (m.code_to_post.empty() && m.post_to_code.empty() && m.kernel_stack_traces.empty()) {
            // `{}` and `{"version": 2.0}` are what PyTorch writes on some paths.
            Problem p = make_problem(path_, position(0, false), ProblemCode::empty_sidecar,
                                     "the provenance mappings hold no kernels: nothing to take "
                                     "from this file");
            problems.push_back(std::move(p));
        }
        return m;
    }

private:
    // {name: [string...]}
    void lists(const element& value, std::size_t at, NameLists& out) {
        simdjson::dom::object obj;
        if (value.get(obj) != simdjson::SUCCESS) {
            error(at, false, "must be an object of name -> list of names");
            return;
        }
        std::size_t child = at + 1;
        for (auto [key, names] : obj) {
            list(names, child, "a list of names", out[std::string(key)]);
            child += locs_[child].count;
        }
    }

    void list(const element& value, std::size_t at, std::string_view what,
              std::vector<std::string>& out) {
        simdjson::dom::array arr;
        if (value.get(arr) != simdjson::SUCCESS) {
            error(at, false, std::string(what) + " must be a list of strings");
            return;
        }
        std::size_t child = at + 1;
        for (element e : arr) {
            std::string_view s;
            if (e.get(s) != simdjson::SUCCESS) {
                error(child, false, std::string(what) + " must hold strings only");
            } else {
                out.emplace_back(s);
            }
            child += locs_[child].count;
        }
    }
};

void add_unique(std::vector<std::string>& to, const std::vector<std::string>& from) {
    for (const auto& s : from) {
        if (std::find(to.begin(), to.end(), s) == to.end()) {
            to.push_back(s);
        }
    }
}

// `key` names `kernel`: equal, or `kernel:<digits>` (version 2 call ordinals).
bool names_kernel(std::string_view key, std::string_view kernel) {
    if (key == kernel) {
        return true;
    }
    if (key.size() <= kernel.size() + 1 || !key.starts_with(kernel) || key[kernel.size()] != ':') {
        return false;
    }
    std::string_view n = key.substr(kernel.size() + 1);
    return std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; });
}

} // namespace

UpstreamReadResult detail::parse_upstream_padded(const std::string& path, std::string_view bytes) {
    return detail::read_located<UpstreamParser>(path, bytes, &UpstreamReadResult::mappings);
}

UpstreamReadResult parse_upstream_mappings(const std::string& path, std::string_view bytes) {
    simdjson::padded_string padded(bytes);
    return detail::read_located<UpstreamParser>(
        path, std::string_view(padded.data(), padded.size()), &UpstreamReadResult::mappings);
}

UpstreamReadResult read_upstream_mappings(const std::string& path, std::uint64_t max_size) {
    UpstreamReadResult result;
    auto content = detail::load_padded(path, "mappings", max_size, result.problems);
    if (!content) {
        return result;
    }
    // Parsed in place: load_padded's buffer is already padded.
    return detail::read_located<UpstreamParser>(
        path, std::string_view(content->data(), content->size()), &UpstreamReadResult::mappings);
}

UpstreamKernel upstream_kernel(const std::vector<UpstreamMappings>& all, std::string_view kernel) {
    UpstreamKernel k;
    // The keys that name the kernel ("K" or "K:<N>") all start with it: one sorted range per map,
    // not a pass over every key (annotate asks this for each of tens of thousands of kernels).
    auto each_key = [&](const NameLists& lists, std::vector<std::string>& into) {
        for (auto it = lists.lower_bound(kernel);
             it != lists.end() && std::string_view(it->first).substr(0, kernel.size()) == kernel;
             ++it) {
            if (names_kernel(it->first, kernel)) {
                add_unique(k.keys, {it->first});
                add_unique(into, it->second);
            }
        }
    };
    for (const auto& m : all) {
        each_key(m.code_to_post, k.post_grad_nodes);
        each_key(m.kernel_stack_traces, k.stack_traces);
    }
    for (const auto& m : all) {
        for (const auto& post : k.post_grad_nodes) {
            auto it = m.post_to_pre.find(post);
            if (it != m.post_to_pre.end()) {
                add_unique(k.pre_grad_nodes, it->second);
            }
        }
    }
    return k;
}

} // namespace sdscprov
