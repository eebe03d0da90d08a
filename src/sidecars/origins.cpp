#include "sdscprov/sidecars/origins.hpp"

#include "sidecars/located_json.hpp"
#include "sidecars/padded_readers.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <set>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sdscprov {

namespace {

using simdjson::dom::element;

constexpr std::int64_t supported_version = 1;

// A kernel a filter left out: counted, and among the first `named` kept without its ops.
void leave_out(OriginsMap& map, OriginsKernel&& kernel, std::size_t named) {
    ++map.left_out;
    if (map.first_left_out.size() < named) {
        kernel.ops = {};
        map.first_left_out.push_back(std::move(kernel));
    }
}

// The nodes that no kept kernel's op names (in its origins or as its origin_node) go.
void drop_unnamed_nodes(OriginsMap& map) {
    std::set<std::string_view> named;
    for (const auto& kernel : map.kernels) {
        for (const auto& op : kernel.ops) {
            named.insert(op.origins.begin(), op.origins.end());
            if (op.origin_node) {
                named.insert(*op.origin_node);
            }
        }
    }
    for (auto it = map.nodes.begin(); it != map.nodes.end();) {
        it = named.count(it->first) != 0 ? std::next(it) : map.nodes.erase(it);
    }
}

// Reads the map from a parsed document, walking it in pre-order beside the value locations so
// that every rejected value is reported at its line and column.
class OriginsParser : public detail::LocatedJsonReader {
public:
    OriginsParser(std::string path, std::string_view bytes)
        : LocatedJsonReader(std::move(path), bytes, ProblemCode::bad_origins) {}
    // A reader of one piece of the map whose first byte is at `start` in the file.
    OriginsParser(std::string path, std::string_view piece, TextPosition start)
        : LocatedJsonReader(std::move(path), piece, ProblemCode::bad_origins), start_(start),
          walked_pos_(start) {}

    TextPosition position_of(std::size_t offset) const override {
        if (!start_) {
            return LocatedJsonReader::position_of(offset);
        }
        // Asked in text order (each op, each kernel): counted on from the last answer.
        offset = std::min(offset, bytes_.size());
        if (offset < walked_) {
            walked_ = 0;
            walked_pos_ = *start_;
        }
        walked_pos_ = advance(walked_pos_, bytes_.substr(walked_, offset - walked_));
        walked_ = offset;
        return walked_pos_;
    }

    // `from` moved over `text`: lines and columns as LineIndex counts them (a column per UTF-8
    // character).
    static TextPosition advance(TextPosition from, std::string_view text) {
        if (text.empty()) {
            return from;
        }
        // Line breaks found with memchr; characters counted after the last one only.
        const char* p = text.data();
        const char* const end = p + text.size();
        const char* line = p;
        for (const void* nl;
             (nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p))) != nullptr;) {
            ++from.line;
            p = static_cast<const char*>(nl) + 1;
            line = p;
        }
        if (line != text.data()) {
            from.col = 1;
        }
        for (; line != end; ++line) {
            if ((static_cast<unsigned char>(*line) & 0xC0) != 0x80) {
                ++from.col;
            }
        }
        return from;
    }

    std::optional<OriginsMap> read(const element& root) {
        OriginsMap map;
        map.path = path_;
        simdjson::dom::object obj;
        if (root.get(obj) != simdjson::SUCCESS) {
            error(0, false, "an origins map is a JSON object");
            return std::nullopt;
        }
        bool has_version = false;
        bool has_nodes = false;
        bool has_kernels = false;
        members(obj, 0, [&](std::string_view key, const element& value, std::size_t at) {
            if (key == "sdscprov_origins") {
                has_version = true;
                std::int64_t version = 0;
                if (value.get(version) != simdjson::SUCCESS || version != supported_version) {
                    error(at, false,
                          "unsupported origins map version (this sdscprov reads version 1)");
                }
            } else if (key == "nodes") {
                has_nodes = true;
                read_nodes(value, at, map.nodes);
            } else if (key == "kernels") {
                has_kernels = true;
                read_kernels(value, at, map.kernels);
            } else {
                unknown(key, at, "the origins map", "sdscprov_origins, nodes, kernels");
            }
        });
        if (!has_version) {
            error(0, false,
                  "missing member 'sdscprov_origins' (the map's version, 1): not an origins map?");
        }
        if (!has_nodes) {
            error(0, false, "missing member 'nodes'");
        }
        if (!has_kernels) {
            error(0, false, "missing member 'kernels'");
        }
        check_references(map);
        if (any_error()) {
            return std::nullopt;
        }
        return map;
    }

    // Meaning: origins and origin_node name nodes of the map.
    void check_references(const OriginsMap& map) {
        for (const auto& kernel : map.kernels) {
            check_references(kernel, map.nodes);
        }
    }

    void check_references(const OriginsKernel& kernel, const std::map<std::string, FxNode>& nodes) {
        for (const auto& op : kernel.ops) {
            for (const auto& origin : op.origins) {
                if (nodes.count(origin) == 0) {
                    warning(op.pos, "origin '" + origin + "' of kernel '" + kernel.name +
                                        "' is not in 'nodes': no ATen op or source for it");
                }
            }
            if (op.origin_node && std::find(op.origins.begin(), op.origins.end(),
                                            *op.origin_node) == op.origins.end()) {
                warning(op.pos, "origin_node '" + *op.origin_node + "' of kernel '" + kernel.name +
                                    "' is not one of its origins");
            }
        }
    }

private:
    std::optional<TextPosition> start_;
    mutable std::size_t walked_ = 0;    // position_of's last offset
    mutable TextPosition walked_pos_{}; // and its line and column

public:
    void read_nodes(const element& e, std::size_t at, std::map<std::string, FxNode>& nodes) {
        simdjson::dom::object obj;
        if (!object(e, at, "'nodes'", obj)) {
            return;
        }
        members(obj, at, [&](std::string_view name, const element& value, std::size_t node_at) {
            read_node(name, value, node_at, nodes);
        });
    }

    // One member of 'nodes'.
    void read_node(std::string_view name, const element& value, std::size_t node_at,
                   std::map<std::string, FxNode>& nodes) {
        simdjson::dom::object node_obj;
        if (!object(value, node_at, "node '" + std::string(name) + "'", node_obj)) {
            return;
        }
        FxNode node;
        members(node_obj, node_at,
                [&](std::string_view key, const element& v, std::size_t member_at) {
                    if (key == "original_aten") {
                        optional_string(v, member_at, "'original_aten'", node.original_aten);
                    } else if (key == "stack_trace") {
                        optional_string(v, member_at, "'stack_trace'", node.stack_trace);
                    } else if (key == "nn_module_stack" || key == "source_fn_stack" ||
                               key == "from_node" || key == "target") {
                        const auto& loc = locs_[member_at];
                        node.other_meta.emplace(
                            key, std::string(bytes_.substr(loc.value, loc.end - loc.value)));
                    } else {
                        unknown(key, member_at, "node '" + std::string(name) + "'",
                                "original_aten, stack_trace, nn_module_stack, "
                                "source_fn_stack, from_node, target");
                    }
                });
        nodes.emplace(std::string(name), std::move(node));
    }

    void read_kernels(const element& e, std::size_t at, std::vector<OriginsKernel>& kernels) {
        simdjson::dom::array arr;
        if (!array(e, at, "'kernels'", arr)) {
            return;
        }
        elements(arr, at, [&](const element& value, std::size_t kernel_at, std::size_t index) {
            read_kernel(value, kernel_at, index, kernels);
        });
    }

    // An object of a list (`where` names it), read member by member into a T at its position,
    // appended to `out`; false (nothing appended) when it is not an object.
    template <class T, class ReadMember>
    bool entry(const element& value, std::size_t at, const std::string& where, std::vector<T>& out,
               ReadMember& read_member) {
        simdjson::dom::object obj;
        if (!object(value, at, where, obj)) {
            return false;
        }
        T item;
        item.pos = position(at, false);
        members(obj, at, [&](std::string_view key, const element& v, std::size_t m) {
            read_member(item, key, v, m);
        });
        out.push_back(std::move(item));
        return true;
    }

    // Element `index` of 'kernels'.
    void read_kernel(const element& value, std::size_t kernel_at, std::size_t index,
                     std::vector<OriginsKernel>& kernels) {
        std::string where = "kernels[" + std::to_string(index) + "]";
        bool has_name = false;
        bool has_ops = false;
        auto read = [&](OriginsKernel& kernel, std::string_view key, const element& v,
                        std::size_t m) {
            if (key == "name") {
                has_name = string(v, m, "'name'", kernel.name);
            } else if (key == "dir") {
                std::string dir;
                if (string(v, m, "'dir'", dir)) {
                    if (dir.empty() || dir.find('/') != std::string::npos) {
                        error(m, false, "'dir' is the kernel directory's own name, without '/'");
                    }
                    kernel.dir = std::move(dir);
                }
            } else if (key == "metadata") {
                std::string metadata;
                if (string(v, m, "'metadata'", metadata)) {
                    kernel.metadata = std::move(metadata);
                }
            } else if (key == "ops") {
                has_ops = true;
                read_ops(v, m, where, kernel.ops);
            } else {
                unknown(key, m, where, "name, dir, metadata, ops");
            }
        };
        if (!entry(value, kernel_at, where, kernels, read)) {
            return;
        }
        if (!has_name) {
            error(kernel_at, false, where + " has no 'name'");
        }
        if (!has_ops) {
            error(kernel_at, false, where + " has no 'ops'");
        }
    }

    void read_ops(const element& e, std::size_t at, const std::string& kernel_where,
                  std::vector<OriginsOp>& ops) {
        simdjson::dom::array arr;
        if (!array(e, at, "'ops'", arr)) {
            return;
        }
        elements(arr, at, [&](const element& value, std::size_t op_at, std::size_t index) {
            read_op(value, op_at, kernel_where + ".ops[" + std::to_string(index) + "]", ops);
        });
        check_placement(ops, kernel_where);
    }

    // One op of an entry's 'ops' (`where` names it), appended to `ops` when it is an object.
    void read_op(const element& value, std::size_t op_at, const std::string& where,
                 std::vector<OriginsOp>& ops) {
        bool has_opfunc = false;
        bool has_buffer = false;
        bool has_origins = false;
        auto read = [&](OriginsOp& op, std::string_view key, const element& v, std::size_t m) {
            if (key == "opfunc") {
                has_opfunc = string(v, m, "'opfunc'", op.opfunc);
            } else if (key == "buffer") {
                has_buffer = string(v, m, "'buffer'", op.buffer);
            } else if (key == "origins") {
                has_origins = true;
                simdjson::dom::array names;
                if (array(v, m, "'origins'", names)) {
                    elements(names, m, [&](const element& n, std::size_t n_at, std::size_t) {
                        std::string name;
                        if (string(n, n_at, "an origin", name)) {
                            op.origins.push_back(std::move(name));
                        }
                    });
                }
            } else if (key == "origin_node") {
                optional_string(v, m, "'origin_node'", op.origin_node);
            } else if (key == "transform_history") {
                read_history(v, m, op.transform_history);
            } else if (key == "spec_path") {
                read_spec_path(v, m, op.spec_path);
            } else {
                unknown(key, m, where,
                        "opfunc, buffer, origins, origin_node, transform_history, spec_path");
            }
        };
        if (entry(value, op_at, where, ops, read) && (!has_opfunc || !has_buffer || !has_origins)) {
            error(op_at, false,
                  where + " needs 'opfunc', 'buffer' and 'origins' (an empty list when the "
                          "op has no FX origin)");
        }
    }

    void read_spec_path(const element& v, std::size_t m, std::vector<std::uint64_t>& spec_path) {
        simdjson::dom::array path;
        if (!array(v, m, "'spec_path'", path)) {
            return;
        }
        elements(path, m, [&](const element& n, std::size_t n_at, std::size_t) {
            std::uint64_t i = 0;
            if (n.get(i) != simdjson::SUCCESS) {
                error(n_at, false, "'spec_path' holds non-negative integers");
            } else {
                spec_path.push_back(i);
            }
        });
        if (spec_path.empty()) {
            error(m, false, "'spec_path' must not be empty");
        }
    }

    // Spec paths place each op; without them the list order does. An entry that mixes the
    // two cannot be placed, nor one that gives two ops one spec path.
    void check_placement(const std::vector<OriginsOp>& ops, const std::string& kernel_where) {
        auto placed = [](const OriginsOp& op) { return !op.spec_path.empty(); };
        auto odd = std::find_if(ops.begin(), ops.end(),
                                [&](const OriginsOp& op) { return placed(op) != placed(ops[0]); });
        if (odd != ops.end()) {
            auto i = static_cast<std::size_t>(odd - ops.begin());
            problems.push_back(make_problem(
                path_, odd->pos, code_,
                kernel_where + ".ops[" + std::to_string(i) + "] " +
                    (placed(*odd) ? "has" : "has no") + " 'spec_path' but " + kernel_where +
                    ".ops[0] " + (placed(ops[0]) ? "has one" : "has none") +
                    ": give every op of an entry its spec_path (the entry may then list only "
                    "some OpSpecs), or none (the entry lists every OpSpec in order)"));
        }
        for (std::size_t i = 0; i < ops.size(); ++i) {
            for (std::size_t j = 0; j < i && placed(ops[i]); ++j) {
                if (ops[j].spec_path == ops[i].spec_path) {
                    problems.push_back(make_problem(path_, ops[i].pos, code_,
                                                    kernel_where + ".ops[" + std::to_string(i) +
                                                        "] has the spec_path of " + kernel_where +
                                                        ".ops[" + std::to_string(j) +
                                                        "]: one OpSpec, two entries"));
                    break;
                }
            }
        }
    }

    void read_history(const element& e, std::size_t at, std::vector<TransformStep>& history) {
        simdjson::dom::array arr;
        if (!array(e, at, "'transform_history'", arr)) {
            return;
        }
        elements(arr, at, [&](const element& value, std::size_t step_at, std::size_t) {
            simdjson::dom::object obj;
            if (!object(value, step_at, "a transform_history step", obj)) {
                return;
            }
            TransformStep step;
            int seen = 0;
            members(obj, step_at, [&](std::string_view key, const element& v, std::size_t m) {
                if (key == "kind") {
                    seen |= string(v, m, "'kind'", step.kind) ? 1 : 0;
                } else if (key == "pass_name") {
                    seen |= string(v, m, "'pass_name'", step.pass_name) ? 2 : 0;
                } else if (key == "reason") {
                    seen |= optional_string(v, m, "'reason'", step.reason) ? 4 : 0;
                } else {
                    unknown(key, m, "a transform_history step", "kind, pass_name, reason");
                }
            });
            if (seen != 7) {
                error(step_at, false,
                      "a transform_history step needs 'kind', 'pass_name' and 'reason'");
            }
            history.push_back(std::move(step));
        });
    }
};

} // namespace

namespace {

// ---- Streaming: a valid map read piece by piece -------------------------------------------------
//
// A compile's map is tens of MB. Parsed whole, the text, simdjson's tape and strings, and the value
// locations the error messages need would be several times the map's size at once, on top of what
// is kept. Read forward in chunks instead, the map is split at its members by a byte walk (the top
// level, each node, each kernel) and every piece parsed and read on its own: what is held at once
// is a chunk, one piece and what the run keeps. The walk checks the bytes between the pieces, and
// each piece is checked by the parser, so a map that passes is valid JSON as a whole. Anything
// else (invalid JSON, a rejected value, a byte order mark, escapes in names, a file that is not
// a plain regular file) is read again by the whole-document reader, which reports it exactly.

// The map's bytes, read forward in chunks from a file (or all in memory). Bytes before what was
// released are dropped once a chunk's worth has gathered.
class MapText {
public:
    static constexpr std::size_t chunk = 1 << 20;

    MapText(int fd, std::uint64_t max_size) : fd_(fd), max_size_(max_size) {}
    explicit MapText(std::string_view whole) : whole_(whole), in_memory_(true) {}

    // Whether byte `i` exists, reading on as needed (false at the end, or when reading fails).
    bool has(std::size_t i) {
        if (in_memory_) {
            return i < whole_.size();
        }
        while (i >= base_ + buffer_.size() && !end_) {
            std::size_t had = buffer_.size();
            buffer_.resize(had + chunk);
            ssize_t got = ::read(fd_, buffer_.data() + had, chunk);
            if (got < 0 && errno == EINTR) {
                buffer_.resize(had);
                continue;
            }
            buffer_.resize(had + static_cast<std::size_t>(std::max<ssize_t>(got, 0)));
            if (got <= 0 || base_ + buffer_.size() > max_size_) {
                failed_ = got < 0 || base_ + buffer_.size() > max_size_;
                end_ = true;
            }
        }
        return i < base_ + buffer_.size();
    }
    char at(std::size_t i) const { return in_memory_ ? whole_[i] : buffer_[i - base_]; }
    // One past the last byte read so far.
    std::size_t available_end() const {
        return in_memory_ ? whole_.size() : base_ + buffer_.size();
    }
    // Bytes [from, to), all of which has() said exist and none released.
    std::string_view text(std::size_t from, std::size_t to) const {
        return in_memory_ ? whole_.substr(from, to - from)
                          : std::string_view(buffer_).substr(from - base_, to - from);
    }
    void release(std::size_t before) {
        if (!in_memory_ && before - base_ >= chunk) {
            buffer_.erase(0, before - base_);
            base_ = before;
        }
    }
    bool failed() const { return failed_; }
    // The text's size as known when it was opened (a hint: a file may change while read).
    std::size_t size_hint() const { return in_memory_ ? whole_.size() : size_hint_; }
    void set_size_hint(std::size_t size) { size_hint_ = size; }

    // The byte walk (valid JSON assumed, as json_layout.hpp's steps; npos when the text ends).
    std::size_t skip_ws(std::size_t i) {
        while (has(i) && json_is_ws(at(i))) {
            ++i;
        }
        return i;
    }
    // As json_string_end, over the bytes read so far and on (none after the opening quote is
    // released while its string is walked: the closing quote's look-back needs them).
    std::size_t string_end(std::size_t open) {
        for (std::size_t from = open + 1; has(from);) {
            std::string_view read = text(open, available_end());
            std::size_t quote = json_closing_quote(read, 0, from - open);
            if (quote != std::string_view::npos) {
                return open + quote + 1;
            }
            from = available_end();
        }
        return std::string_view::npos;
    }
    std::size_t value_end(std::size_t i) {
        if (!has(i)) {
            return std::string_view::npos;
        }
        if (at(i) == '"') {
            return string_end(i);
        }
        if (at(i) == '{' || at(i) == '[') {
            std::size_t depth = 0;
            while (has(i)) {
                const std::size_t end = available_end();
                while (i < end) {
                    char c = at(i);
                    if (c == '"') {
                        i = string_end(i);
                        if (i == std::string_view::npos) {
                            return i;
                        }
                        break; // string_end may have read on: the end is asked again
                    }
                    if (c == '{' || c == '[') {
                        ++depth;
                    } else if ((c == '}' || c == ']') && --depth == 0) {
                        return i + 1;
                    }
                    ++i;
                }
            }
            return std::string_view::npos;
        }
        while (has(i) && !json_is_ws(at(i)) && at(i) != ',' && at(i) != '}' && at(i) != ']') {
            ++i;
        }
        return i;
    }

private:
    int fd_ = -1;
    std::uint64_t max_size_ = 0;
    std::string buffer_; // bytes [base_, base_ + size) of the file
    std::size_t base_ = 0;
    bool end_ = false;
    bool failed_ = false;
    std::string_view whole_;
    bool in_memory_ = false;
    std::size_t size_hint_ = 0;
};

class StreamingReader {
public:
    StreamingReader(std::string path, MapText& text, const KernelFilter* filter)
        : path_(std::move(path)), text_(text), filter_(filter) {
        // A piece sits two containers deep in the map (the map's object, 'nodes' or 'kernels'):
        // parsed alone it may nest two levels less, and one more is given up to stay on the safe
        // side (a deeper piece is read by the whole-document reader, which decides).
        usable_ = parser_.allocate(4096, simdjson::DEFAULT_MAX_DEPTH - 3) == simdjson::SUCCESS;
    }

    // The map, or nullopt when the whole-document reader must read it. Warnings in `problems`.
    std::optional<OriginsMap> read(std::vector<Problem>& problems) {
        OriginsMap map;
        map.path = path_;
        std::size_t i = text_.skip_ws(0);
        if (!usable_ || !text_.has(i) || text_.at(i) != '{') {
            return std::nullopt; // also a byte order mark: not JSON for simdjson 3.0.1
        }
        int seen = 0;
        i = text_.skip_ws(i + 1);
        for (bool more = text_.has(i) && text_.at(i) != '}'; more;) {
            std::string_view key;
            if (!key_at(i, key)) {
                return std::nullopt;
            }
            if (key == "sdscprov_origins" && (seen & 1) == 0) {
                seen |= 1;
                std::size_t end = text_.value_end(i);
                std::int64_t version = 0;
                if (end == std::string_view::npos || !parse(i, end) ||
                    root_.get(version) != simdjson::SUCCESS || version != supported_version) {
                    return std::nullopt;
                }
                i = end;
            } else if (key == "nodes" && (seen & 2) == 0 && text_.at(i) == '{') {
                seen |= 2;
                if (!members(i, '}',
                             [&](std::size_t at, std::size_t end, std::string_view name,
                                 std::size_t) { return read_node(at, end, name, map); })) {
                    return std::nullopt;
                }
                // The kernels that follow are checked against them and filtered as they are read.
                nodes_read_ = (seen & 4) == 0;
            } else if (key == "kernels" && (seen & 4) == 0 && text_.at(i) == '[') {
                seen |= 4;
                kernels_at_ = i;
                if (!members(i, ']',
                             [&](std::size_t at, std::size_t end, std::string_view,
                                 std::size_t index) { return read_kernel(at, end, index, map); })) {
                    return std::nullopt;
                }
            } else {
                return std::nullopt; // unknown, repeated or of the wrong type: reported there
            }
            if (!after_member(i, '}', more)) {
                return std::nullopt;
            }
        }
        // `i` at the map's closing '}': only whitespace may follow.
        if (seen != 7 || !text_.has(i) || text_.at(i) != '}' || text_.has(text_.skip_ws(i + 1)) ||
            text_.failed()) {
            return std::nullopt;
        }
        if (filter_ != nullptr && nodes_read_) {
            drop_unnamed_nodes(map);
        } else {
            references_.check_references(map);
            if (filter_ != nullptr) {
                filter_kernels(map, *filter_);
            }
        }
        problems = std::move(references_.problems);
        return map;
    }

private:
    std::string path_;
    MapText& text_;
    simdjson::dom::parser parser_;
    bool usable_ = false;
    simdjson::dom::element root_;
    std::string piece_;     // the piece being read, then simdjson's padding
    TextPosition start_;    // of the piece's first byte
    TextPosition at_{1, 1}; // of byte `at_offset_` of the file (the last piece's end)
    std::size_t at_offset_ = 0;
    std::size_t kernels_at_ = 0; // the kernels array's '['
    const KernelFilter* filter_ = nullptr;
    bool nodes_read_ = false; // before the kernels: each kernel is checked and filtered when read
    OriginsParser references_{path_, {}};              // the warnings of origins that name no node
    static constexpr std::size_t estimate_after = 256; // kernels read before reserving the rest

    // A key without escapes at `i` (its quote), then ':': `i` moves to the value.
    bool key_at(std::size_t& i, std::string_view& key) {
        if (!text_.has(i) || text_.at(i) != '"') {
            return false;
        }
        std::size_t end = text_.string_end(i);
        if (end == std::string_view::npos) {
            return false;
        }
        key = text_.text(i + 1, end - 1);
        if (key.find('\\') != std::string_view::npos ||
            std::any_of(key.begin(), key.end(),
                        [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
            return false; // escapes and control characters: for the whole reader
        }
        i = text_.skip_ws(end);
        if (!text_.has(i) || text_.at(i) != ':') {
            return false;
        }
        i = text_.skip_ws(i + 1);
        return text_.has(i);
    }

    // After a member or element ending at `i`: ',' (more) or `close`; `i` moves past ','.
    bool after_member(std::size_t& i, char close, bool& more) {
        i = text_.skip_ws(i);
        if (!text_.has(i)) {
            return false;
        }
        if (text_.at(i) == ',') {
            i = text_.skip_ws(i + 1);
            more = true;
            return text_.has(i) && text_.at(i) != close;
        }
        more = false;
        return text_.at(i) == close;
    }

    // The members (close '}') or elements (']') of the container opening at `i`, each given to
    // `piece(value begin, value end, key, index)`; `i` moves past the container's close.
    template <class Piece> bool members(std::size_t& i, char close, Piece&& piece) {
        i = text_.skip_ws(i + 1);
        std::size_t index = 0;
        for (bool more = text_.has(i) && text_.at(i) != close; more; ++index) {
            std::string key_text;
            if (close == '}') {
                std::string_view key;
                if (!key_at(i, key)) {
                    return false;
                }
                key_text.assign(key); // the buffer may move while the value is read
            }
            std::size_t end = text_.value_end(i);
            if (end == std::string_view::npos || !piece(i, end, key_text, index)) {
                return false;
            }
            i = end;
            if (!after_member(i, close, more)) {
                return false;
            }
            text_.release(at_offset_); // what the positions have passed
        }
        if (!text_.has(i) || text_.at(i) != close) {
            return false;
        }
        ++i;
        return true;
    }

    // Parses bytes [begin, end) of the file into root_; the position of `begin` in start_.
    bool parse(std::size_t begin, std::size_t end) {
        std::string_view bytes = text_.text(begin, end);
        start_ = OriginsParser::advance(at_, text_.text(at_offset_, begin));
        at_ = OriginsParser::advance(start_, bytes);
        at_offset_ = end;
        piece_.resize(bytes.size() + simdjson::SIMDJSON_PADDING);
        if (!bytes.empty()) { // an empty view's data() may be null, which memcpy must not get
            std::memcpy(piece_.data(), bytes.data(), bytes.size());
        }
        return parser_.parse(piece_.data(), bytes.size(), false).get(root_) == simdjson::SUCCESS;
    }

    bool read_node(std::size_t begin, std::size_t end, std::string_view name, OriginsMap& map) {
        if (!parse(begin, end) || map.nodes.count(std::string(name)) != 0) {
            return false; // a repeated node name: reported by the whole reader
        }
        OriginsParser reader(path_, std::string_view(piece_.data(), end - begin), start_);
        reader.read_node(name, root_, 0, map.nodes);
        return reader.problems.empty();
    }

    bool read_kernel(std::size_t begin, std::size_t end, std::size_t index, OriginsMap& map) {
        if (!parse(begin, end)) {
            return false;
        }
        if (index == estimate_after && text_.size_hint() > end && filter_ == nullptr) {
            // Room for as many kernels as the rest of the file holds at this size per kernel, and
            // a tenth more: growing by doubling held up to three times the kernels' size at once.
            double per_kernel = static_cast<double>(end - kernels_at_) / static_cast<double>(index);
            map.kernels.reserve(
                index + static_cast<std::size_t>(
                            1.1 * static_cast<double>(text_.size_hint() - end) / per_kernel));
        }
        OriginsParser reader(path_, std::string_view(piece_.data(), end - begin), start_);
        reader.read_kernel(root_, 0, index, map.kernels);
        if (!reader.problems.empty()) {
            return false;
        }
        if (filter_ != nullptr && nodes_read_) {
            references_.check_references(map.kernels.back(), map.nodes);
            if (!filter_->keep(map.kernels.back())) {
                leave_out(map, std::move(map.kernels.back()), filter_->named);
                map.kernels.pop_back();
            }
        }
        return true;
    }
};

// `bytes` must be followed by simdjson::SIMDJSON_PADDING readable bytes.
OriginsReadResult parse_padded(const std::string& path, std::string_view bytes) {
    return detail::read_located<OriginsParser>(path, bytes, &OriginsReadResult::map);
}

} // namespace

void filter_kernels(OriginsMap& map, const KernelFilter& filter) {
    std::vector<OriginsKernel> kept;
    for (auto& kernel : map.kernels) {
        if (filter.keep(kernel)) {
            kept.push_back(std::move(kernel));
        } else {
            leave_out(map, std::move(kernel), filter.named);
        }
    }
    map.kernels = std::move(kept);
    drop_unnamed_nodes(map);
}

OriginsReadResult detail::parse_origins_padded(const std::string& path, std::string_view bytes,
                                               const KernelFilter* filter) {
    OriginsReadResult result;
    MapText text(bytes);
    result.map = StreamingReader(path, text, filter).read(result.problems);
    if (result.map) {
        return result;
    }
    result = parse_padded(path, bytes);
    if (result.map && filter != nullptr) {
        filter_kernels(*result.map, *filter);
    }
    return result;
}

OriginsReadResult parse_origins_map(const std::string& path, std::string_view bytes) {
    OriginsReadResult result;
    MapText text(bytes);
    result.map = StreamingReader(path, text, nullptr).read(result.problems);
    if (result.map) {
        return result;
    }
    simdjson::padded_string padded(bytes);
    return parse_padded(path, std::string_view(padded.data(), padded.size()));
}

OriginsReadResult read_origins_map(const std::string& path, std::uint64_t max_size,
                                   const KernelFilter* filter) {
    OriginsReadResult result;
    // Streamed when it is a regular file within the size limit; anything else, and any problem,
    // is for the whole-document reader (read_file.hpp's checks and messages).
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st {};
    if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        static_cast<std::uint64_t>(st.st_size) <= max_size) {
        MapText text(fd, max_size);
        text.set_size_hint(static_cast<std::size_t>(st.st_size));
        result.map = StreamingReader(path, text, filter).read(result.problems);
    }
    if (fd >= 0) {
        ::close(fd);
    }
    if (result.map) {
        return result;
    }
    result.problems.clear();
    auto content = detail::load_padded(path, "origins map", max_size, result.problems);
    if (!content) {
        return result;
    }
    result = parse_padded(path, std::string_view(content->data(), content->size()));
    if (result.map && filter != nullptr) {
        filter_kernels(*result.map, *filter);
    }
    return result;
}

} // namespace sdscprov
