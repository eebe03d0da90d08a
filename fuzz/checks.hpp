// The properties the fuzz targets check, one function per target, shared with
// tests/unit/fuzz/test_fuzz_regressions.cpp so that every input a fuzzer once crashed on (kept
// under fuzz/regressions/<target>/) is checked again by the ordinary test suite, compiled by g++
// and without sanitizers.
//
// A violated property throws PropertyViolation: the fuzz targets turn it into abort() (a crash
// libFuzzer keeps), the test into a failed check. Any other exception escaping a check is a bug
// too (the readers return problems as values; the writer documents when it throws and the checks
// catch exactly those cases).
#pragma once

#include "sdscprov/core/json_error.hpp"
#include "sdscprov/core/json_layout.hpp"
#include "sdscprov/handle/debug_handle.hpp"
#include "sdscprov/handle/handle_id.hpp"
#include "sdscprov/sidecars/origins.hpp"
#include "sdscprov/report/profile_printers.hpp"
#include "sdscprov/profile/ideal.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/trace.hpp"
#include "sdscprov/sdsc/bundle.hpp"
#include "sdscprov/sdsc/scan.hpp"
#include "sdscprov/sidecars/derive.hpp"
#include "sdscprov/sidecars/origins.hpp"
#include "sdscprov/sidecars/sidecar.hpp"
#include "sdscprov/sidecars/spyre_provenance.hpp"
#include "sdscprov/sidecars/upstream.hpp"
#include "sdscprov/write/splice_check.hpp"
#include "sdscprov/write/writer.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <simdjson.h>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov::fuzz {

struct PropertyViolation : std::logic_error {
    using std::logic_error::logic_error;
};

inline void require(bool ok, std::string_view what) {
    if (!ok) {
        throw PropertyViolation(std::string(what));
    }
}

// The file names the scan-based targets use: each naming era changes what the op key may be.
inline std::vector<SdscFile> fuzz_files() {
    return {
        SdscFile{"fuzz/sdsc_0.json", SdscName{FileNaming::named, std::nullopt, ""}, false},
        SdscFile{"fuzz/execute/k/sdsc.json", SdscName{FileNaming::execute, std::nullopt, ""},
                 false},
        SdscFile{"fuzz/sdsc_0_add.json", SdscName{FileNaming::indexed_opfunc, 0, "add"}, false},
    };
}

// The handle the writer target writes: small, but with every kind of member (a nested handle, a
// transform step, a non-ASCII character written as \u00e9).
inline DebugHandle fixed_handle() {
    DebugHandle child;
    child.id = "7";
    child.aten_op = "aten.relu.default";
    child.ir_chain = {"relu"};

    DebugHandle h;
    h.id = "8249498605557491263";
    h.source = HandleSource{"/m/mod\xC3\xA9l.py", 11, 4, std::nullopt, std::nullopt};
    h.aten_op = "aten.add.Tensor";
    h.ir_chain = {"add", "buf0"};
    h.fused_from = {child};
    h.transform_history = {TransformStep{"fuse", "fuse_pointwise", std::nullopt}};
    return h;
}

// ---- Shared property pieces -------------------------------------------------------------------

inline std::size_t line_count(std::string_view bytes) {
    return static_cast<std::size_t>(std::count(bytes.begin(), bytes.end(), '\n')) + 1;
}

// A reported position is a real place in the text: 1-based, on one of its lines.
inline void require_position(std::string_view bytes, TextPosition pos, std::string_view what) {
    require(pos.line >= 1 && pos.line <= line_count(bytes) && pos.col >= 1 &&
                pos.col <= bytes.size() + 1,
            std::string(what) + ": position " + std::to_string(pos.line) + ":" +
                std::to_string(pos.col) + " is not in the text");
}

inline void require_problems_placed(std::string_view bytes, const std::vector<Problem>& problems,
                                    const std::string& path) {
    for (const Problem& p : problems) {
        require(p.path == path, "a problem names another path: " + p.path);
        require(!p.message.empty(), "a problem without a message");
        require_position(bytes, p.pos, "problem '" + p.message + "'");
    }
}

inline bool has_error(const std::vector<Problem>& problems) {
    return std::any_of(problems.begin(), problems.end(),
                       [](const Problem& p) { return p.severity == Severity::error; });
}

inline bool valid_utf8(std::string_view s) {
    return simdjson::validate_utf8(s.data(), s.size());
}

// Whether every string of the handle is valid UTF-8: the writer refuses the others (writer.hpp).
inline bool strings_valid_utf8(const DebugHandle& h) {
    bool ok = valid_utf8(h.id) && (!h.aten_op || valid_utf8(*h.aten_op)) &&
              (!h.source || valid_utf8(h.source->file)) &&
              (!h.fusion_context || valid_utf8(*h.fusion_context));
    for (const auto& s : h.ir_chain) {
        ok = ok && valid_utf8(s);
    }
    for (const auto& step : h.transform_history) {
        ok = ok && valid_utf8(step.kind) && valid_utf8(step.pass_name) &&
             (!step.reason || valid_utf8(*step.reason));
    }
    for (const auto& child : h.fused_from) {
        ok = ok && strings_valid_utf8(child);
    }
    return ok;
}

// The object or array `e` is (the caller knows which), by value: a range-for over
// `e.get_object().value_unsafe()` would iterate a reference into a destroyed temporary.
inline simdjson::dom::object object_of(const simdjson::dom::element& e) {
    simdjson::dom::object o;
    require(e.get(o) == simdjson::SUCCESS, "object_of: not an object");
    return o;
}

inline simdjson::dom::array array_of(const simdjson::dom::element& e) {
    simdjson::dom::array a;
    require(e.get(a) == simdjson::SUCCESS, "array_of: not an array");
    return a;
}

// The coverage column's "populated" (docs/formats.md): not null, not an empty string, array or
// object.
inline bool populated(const simdjson::dom::element& e) {
    switch (e.type()) {
    case simdjson::dom::element_type::NULL_VALUE:
        return false;
    case simdjson::dom::element_type::STRING:
        return !std::string_view(e.get_string().value_unsafe()).empty();
    case simdjson::dom::element_type::ARRAY:
        return array_of(e).size() != 0;
    case simdjson::dom::element_type::OBJECT:
        return object_of(e).size() != 0;
    default:
        return true;
    }
}

// The provenance members at any depth, by a plain DOM walk: the reference for the scanner's pass
// over simdjson's tape.
inline std::uint8_t provenance_by_dom_walk(const simdjson::dom::element& e) {
    std::uint8_t bits = 0;
    if (e.is_object()) {
        for (auto [key, value] : object_of(e)) {
            for (unsigned m = 0; m < provenance_member_count; ++m) {
                if (key == to_string(static_cast<ProvenanceMember>(m)) && populated(value)) {
                    bits = static_cast<std::uint8_t>(bits | (1U << m));
                }
            }
            bits = static_cast<std::uint8_t>(bits | provenance_by_dom_walk(value));
        }
    } else if (e.is_array()) {
        for (simdjson::dom::element value : array_of(e)) {
            bits = static_cast<std::uint8_t>(bits | provenance_by_dom_walk(value));
        }
    }
    return bits;
}

// json_value_locations (the readers' path:line:col index) agrees with simdjson's DOM on every
// value: same pre-order, same count, each location at a byte that starts a value of that type.
inline std::size_t check_locations(const simdjson::dom::element& e, bool member,
                                   const std::vector<JsonValueLocation>& locs, std::size_t at,
                                   std::string_view bytes) {
    require(at < locs.size(), "json_value_locations has fewer values than the DOM");
    const JsonValueLocation& loc = locs[at];
    require(loc.value < loc.end && loc.end <= bytes.size(),
            "json_value_locations: value span outside the text");
    require(member ? (loc.key < loc.value && bytes[loc.key] == '"') : loc.key == loc.value,
            "json_value_locations: key offset");
    char first = bytes[loc.value];
    std::size_t next = at + 1;
    switch (e.type()) {
    case simdjson::dom::element_type::OBJECT:
        require(first == '{' && bytes[loc.end - 1] == '}', "json_value_locations: object span");
        for (auto [key, value] : object_of(e)) {
            next = check_locations(value, true, locs, next, bytes);
        }
        break;
    case simdjson::dom::element_type::ARRAY:
        require(first == '[' && bytes[loc.end - 1] == ']', "json_value_locations: array span");
        for (simdjson::dom::element value : array_of(e)) {
            next = check_locations(value, false, locs, next, bytes);
        }
        break;
    case simdjson::dom::element_type::STRING:
        require(first == '"' && bytes[loc.end - 1] == '"', "json_value_locations: string span");
        break;
    case simdjson::dom::element_type::NULL_VALUE:
        require(bytes.substr(loc.value, loc.end - loc.value) == "null",
                "json_value_locations: null span");
        break;
    case simdjson::dom::element_type::BOOL:
        require(first == 't' || first == 'f', "json_value_locations: bool span");
        break;
    default:
        require(first == '-' || (first >= '0' && first <= '9'),
                "json_value_locations: number span");
        break;
    }
    require(loc.count == next - at, "json_value_locations: subtree count differs from the DOM");
    return next;
}

inline void check_value_locations(const simdjson::dom::element& root, std::string_view bytes) {
    std::vector<JsonValueLocation> locs = json_value_locations(bytes);
    std::size_t n = check_locations(root, false, locs, 0, bytes);
    require(n == locs.size(), "json_value_locations has more values than the DOM");
}

inline bool same_problems(const std::vector<Problem>& a, const std::vector<Problem>& b) {
    return std::equal(
        a.begin(), a.end(), b.begin(), b.end(), [](const Problem& x, const Problem& y) {
            return x.code == y.code && x.severity == y.severity && x.pos.line == y.pos.line &&
                   x.pos.col == y.pos.col && x.message == y.message;
        });
}

inline bool same_problem_codes(const std::vector<Problem>& a, const std::vector<Problem>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const Problem& x, const Problem& y) { return x.code == y.code; });
}

// Everything a scan of bytes in memory says about them (the file and its stamp aside).
inline bool same_scan(const ScanResult& a, const ScanResult& b) {
    auto span_eq = [](const std::optional<ByteSpan>& x, const std::optional<ByteSpan>& y) {
        return x.has_value() == y.has_value() && (!x || (x->begin == y->begin && x->end == y->end));
    };
    return a.status == b.status && a.op_key == b.op_key && a.index == b.index &&
           a.opfunc == b.opfunc && a.handle_state == b.handle_state && a.handle == b.handle &&
           a.provenance == b.provenance && a.bom == b.bom && a.op_key_offset == b.op_key_offset &&
           a.op_object_open == b.op_object_open && span_eq(a.handle_member, b.handle_member) &&
           a.handle_member_index == b.handle_member_index &&
           a.op_key_pos.line == b.op_key_pos.line && a.op_key_pos.col == b.op_key_pos.col &&
           a.handle_pos.line == b.handle_pos.line && a.handle_pos.col == b.handle_pos.col &&
           same_problems(a.problems, b.problems);
}

// " (first difference at byte N of M and K)", for messages about bytes that should be equal.
inline std::string first_difference(std::string_view a, std::string_view b) {
    auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    return " (first difference at byte " + std::to_string(ia - a.begin()) + " of " +
           std::to_string(a.size()) + " and " + std::to_string(b.size()) + ")";
}

inline bool same_style(const FileStyle& a, const FileStyle& b) {
    return a.pretty == b.pretty && a.newline == b.newline && a.indent_unit == b.indent_unit &&
           a.key_separator == b.key_separator && a.item_separator == b.item_separator;
}

// ---- spyre_provenance.json --------------------------------------------------------------------

// The codes the spyre_provenance.json reader rejects a document with, in the order it checks.
inline bool spyre_rejection_code(ProblemCode c) {
    return c == ProblemCode::parse_error || c == ProblemCode::unsupported_schema_version ||
           c == ProblemCode::schema_validation_failure ||
           c == ProblemCode::semantic_validation_failure;
}

// What the reader returns, whatever the input: a document exactly when no problem is an error;
// without one, the errors carry the reader's codes; every problem names the file and (an io-error
// aside, which bytes in memory cannot give) a line:col in the text.
inline void require_spyre_result(std::string_view bytes, const std::string& path,
                                 const SpyreReadResult& r) {
    require(r.doc.has_value() != has_error(r.problems),
            r.doc ? "parse_spyre_provenance: a document and an error problem"
                  : "parse_spyre_provenance: no document and no error problem");
    for (const Problem& p : r.problems) {
        require(p.path == path, "parse_spyre_provenance: a problem names another path: " + p.path);
        require(!p.message.empty(), "parse_spyre_provenance: a problem without a message");
        if (p.code != ProblemCode::io_error) {
            require_position(bytes, p.pos, "problem '" + p.message + "'");
        }
        if (!r.doc && p.severity == Severity::error) {
            require(spyre_rejection_code(p.code),
                    "parse_spyre_provenance: rejected with code " + std::string(to_string(p.code)));
        }
    }
}

// No handle is fused from itself, directly or not (an iterative depth-first walk: the check must
// not overflow the stack on the very input it is meant to catch). Every fused_from id resolves.
inline void require_fusion_acyclic(const SpyreProvenance& doc) {
    std::map<std::string, int> state; // absent: unseen, 1: on the path, 2: done
    for (const auto& [root, unused] : doc.handles) {
        if (state[root] != 0) {
            continue;
        }
        std::vector<std::pair<const SpyreHandle*, std::size_t>> stack; // handle, next child
        state[root] = 1;
        stack.push_back({&doc.handles.at(root), 0});
        while (!stack.empty()) {
            auto& [h, next] = stack.back();
            if (next == h->fused_ids.size()) {
                state[h->handle.id] = 2;
                stack.pop_back();
                continue;
            }
            const std::string& child = h->fused_ids[next++];
            auto it = doc.handles.find(child);
            require(it != doc.handles.end(), "spyre document: handle '" + h->handle.id +
                                                 "' is fused from '" + child +
                                                 "', which is not in 'handles'");
            int& s = state[child];
            require(s != 1, "spyre document: handle '" + child + "' is fused from itself");
            if (s == 0) {
                s = 1;
                stack.push_back({&it->second, 0});
            }
        }
    }
}

// The handles the reader may ask a caller to build for one id: src/sidecars/spyre_provenance.cpp
// rejects a document in which a handle expands to more (a fused_from DAG that shares constituents
// grows exponentially when expanded into nested handles, as SDSC files hold them).
constexpr std::uint64_t spyre_max_expanded_handles = 4096;

// The number of handles expand_handle(doc, id) builds (the handle and its nested constituents),
// saturating at spyre_max_expanded_handles + 1; from an acyclic document.
inline std::uint64_t expanded_size(const SpyreProvenance& doc, const std::string& id,
                                   std::map<std::string, std::uint64_t>& memo) {
    if (auto it = memo.find(id); it != memo.end()) {
        return it->second;
    }
    std::uint64_t n = 1;
    for (const auto& child : doc.handles.at(id).fused_ids) {
        n = std::min(n + expanded_size(doc, child, memo), spyre_max_expanded_handles + 1);
    }
    memo[id] = n;
    return n;
}

// `h` is handle `id` expanded: its members as stored, its fused_from the stored ids expanded in
// order. Returns the number of handles in `h`.
inline std::uint64_t require_expansion(const SpyreProvenance& doc, const std::string& id,
                                       const DebugHandle& h) {
    const SpyreHandle& stored = doc.handles.at(id);
    require(h.id == id && h.source == stored.handle.source && h.aten_op == stored.handle.aten_op &&
                h.ir_chain == stored.handle.ir_chain &&
                h.transform_history == stored.handle.transform_history,
            "expand_handle: handle '" + id + "' is not the stored handle");
    require(h.fused_from.size() == stored.fused_ids.size(),
            "expand_handle: handle '" + id + "' has another number of constituents");
    std::uint64_t n = 1;
    for (std::size_t i = 0; i < h.fused_from.size(); ++i) {
        n += require_expansion(doc, stored.fused_ids[i], h.fused_from[i]);
    }
    return n;
}

// A document the reader returned: its handles expand (no cycle, a bounded size, faithfully), and
// it converts to origins map entries and upstream mappings that say what the document says.
// A handle a sidecar reader accepted can be written into an SDSC file and reads back as written:
// whatever would make annotate's write impossible is refused when the sidecar is read, before the
// first file is written.
inline void require_writable(const DebugHandle& handle, const std::string& what) {
    static Scanner scanner;
    static const std::string doc = "{\"0_add\": {\"x\": 1}}";
    static const SdscFile file{"fuzz/sdsc_0.json", SdscName{FileNaming::indexed, 0, ""}, false};
    ScanResult before = scanner.scan_bytes(file, doc);
    std::string written;
    try {
        written = set_handle(doc, before, handle);
    } catch (const std::invalid_argument& e) {
        throw PropertyViolation(what + " cannot be written: " + e.what());
    }
    ScanResult after = scanner.scan_bytes(file, written);
    require(after.status == FileStatus::ok && after.handle_state == HandleState::populated &&
                after.handle == handle,
            what + " does not read back as written");
}

inline void require_spyre_document(std::string_view bytes, const std::string& path,
                                   const SpyreProvenance& doc) {
    require(doc.path == path, "parse_spyre_provenance: the document's path");
    require_fusion_acyclic(doc);
    std::map<std::string, std::uint64_t> memo;
    for (const auto& [id, stored] : doc.handles) {
        require(stored.handle.id == id,
                "spyre document: handle '" + id + "' has id '" + stored.handle.id + "'");
        std::uint64_t size = expanded_size(doc, id, memo);
        require(size <= spyre_max_expanded_handles,
                "spyre document: handle '" + id + "' expands to more than " +
                    std::to_string(spyre_max_expanded_handles) + " handles");
        require(require_expansion(doc, id, expand_handle(doc, id)) == size,
                "expand_handle: handle '" + id + "' expands to another number of handles");
    }

    OriginsMap map;
    std::vector<UpstreamMappings> upstream;
    try {
        map = spyre_origins(doc);
        upstream = spyre_upstream(doc);
    } catch (const std::exception& e) {
        throw PropertyViolation(std::string("spyre_origins / spyre_upstream threw: ") + e.what());
    }
    require(map.path == path, "spyre_origins: the map's path");
    std::set<std::pair<std::string, std::string>> kernels; // (name, identity) of the occurrences
    for (const auto& [key, occ] : doc.occurrences) {
        kernels.insert({occ.kernel_name, occ.identity_key});
    }
    require(map.kernels.size() == kernels.size(),
            "spyre_origins: not one kernel per (compilerKernelName, identity)");
    for (const OriginsKernel& kernel : map.kernels) {
        require_position(bytes, kernel.pos, "spyre_origins: kernel " + kernel.name);
        require(kernel.identity && kernels.count({kernel.name, *kernel.identity}) == 1,
                "spyre_origins: kernel " + kernel.name + " is not an occurrence's");
        const SpyreIdentity& identity = doc.identities.at(*kernel.identity);
        require(kernel.ops.size() == identity.bindings.size(),
                "spyre_origins: kernel " + kernel.name + " has not one op per spec binding");
        for (std::size_t i = 0; i < kernel.ops.size(); ++i) {
            const OriginsOp& op = kernel.ops[i];
            require_position(bytes, op.pos, "spyre_origins: op of kernel " + kernel.name);
            require(op.handle && doc.handles.count(op.handle->id) == 1,
                    "spyre_origins: an op of kernel " + kernel.name +
                        " has no handle of the document");
            require(op.handle->id == identity.bindings[i].handle_id &&
                        op.spec_path == identity.bindings[i].spec_path,
                    "spyre_origins: an op of kernel " + kernel.name + " is not its binding");
            require_writable(*op.handle, "spyre_origins: the handle of an op of " + kernel.name);
        }
    }
    require(upstream.size() == doc.projections.size(),
            "spyre_upstream: not one mappings per projection");
    for (const UpstreamMappings& m : upstream) {
        require(m.path == path, "spyre_upstream: the mappings' path");
    }
}

// ---- The profiler trace reader ------------------------------------------------------------------

// What one read of a trace gave: the events' fields, the bytes passed on, the error.
struct TraceRead {
    struct Event {
        std::uint64_t index, offset, end;
        bool object;
        std::string ph, name, dur, key;
        std::vector<std::string> handles;
        bool operator==(const Event&) const = default;
    };
    std::vector<Event> events;
    std::string text;
    std::optional<Problem> error;
    std::uint64_t error_offset = 0;
    TraceStats stats;
};

class TraceCollector final : public TraceHandler {
public:
    explicit TraceCollector(TraceRead& r) : r_(r) {}
    void event(const TraceEvent& e) override {
        r_.events.push_back(
            {e.index, e.offset, e.end, e.object, std::string(e.ph), std::string(e.name),
             std::string(e.dur), std::string(e.provenance_key),
             std::vector<std::string>(e.debug_handles.begin(), e.debug_handles.end())});
    }
    void bytes(std::string_view t) override { r_.text.append(t); }

private:
    TraceRead& r_;
};

inline TraceRead read_trace(std::string_view bytes, std::size_t chunk, unsigned threads) {
    TraceReaderOptions options;
    options.chunk_bytes = chunk;
    options.threads = threads;
    options.max_value_bytes = 1 << 16;
    TraceReader reader(options);
    TraceRead r;
    TraceCollector collector(r);
    auto result = reader.read_bytes(bytes, collector);
    r.error = result.error;
    r.error_offset = result.error_offset;
    r.stats = result.stats;
    return r;
}

inline bool same_outcome(const TraceRead& a, const TraceRead& b) {
    if (a.error || b.error) {
        return a.error && b.error && a.error_offset == b.error_offset &&
               a.error->code == b.error->code && a.error->message == b.error->message;
    }
    return a.events == b.events && a.text == b.text;
}

// The ideal-cycles rules (ideal.hpp) by a plain DOM walk of a valid document: the reference for
// the reader. nullopt for a document the rules refuse.
inline std::optional<KernelIdeal> ideal_by_dom_walk(const simdjson::dom::element& root) {
    constexpr std::uint64_t largest = std::numeric_limits<std::uint64_t>::max();
    if (!root.is_array() || array_of(root).size() == 0) {
        return std::nullopt;
    }
    KernelIdeal ideal;
    std::uint64_t sum = 0, totals = 0, biggest = 0;
    bool overflow = false;
    for (simdjson::dom::element e : array_of(root)) {
        if (!e.is_object()) {
            return std::nullopt;
        }
        std::set<std::string_view> keys;
        std::optional<std::uint64_t> cycles;
        std::optional<std::string_view> category;
        for (auto [key, value] : object_of(e)) {
            if (!keys.insert(key).second) {
                return std::nullopt;
            }
            if (key == "ideal_cycles") {
                std::uint64_t n = 0;
                if (value.get(n) != simdjson::SUCCESS) {
                    return std::nullopt;
                }
                cycles = n;
            } else if (key == "op_category") {
                std::string_view c;
                if (value.get(c) != simdjson::SUCCESS) {
                    return std::nullopt;
                }
                category = c;
            } else if (std::find(ideal.other_members.begin(), ideal.other_members.end(), key) ==
                       ideal.other_members.end()) {
                ideal.other_members.emplace_back(key);
            }
        }
        if (!cycles || !category) {
            return std::nullopt;
        }
        ++ideal.entries;
        if (*category == "TOTAL") {
            ++totals;
            ideal.cycles = *cycles;
            continue;
        }
        overflow = overflow || sum > largest - *cycles;
        sum = overflow ? largest : sum + *cycles;
        if (!ideal.category || *cycles > biggest) {
            biggest = *cycles;
            ideal.category = std::string(*category);
        }
    }
    if (totals > 1 || (totals == 0 && overflow)) {
        return std::nullopt;
    }
    ideal.rule = totals == 1 ? IdealRule::total_entry : IdealRule::sum_of_entries;
    if (totals == 0) {
        ideal.cycles = sum;
    }
    return ideal;
}

// ---- The checks, one per target ---------------------------------------------------------------

class PropertyChecks {
public:
    // The scanner on arbitrary bytes: it classifies them as simdjson and the strict validator
    // do, and when it says "ok" every offset points where it says, the handle it read is the
    // value at the handle's span, and the provenance bits equal a DOM walk's.
    void scan(std::string_view bytes) {
        for (const SdscFile& file : fuzz_files()) {
            ScanResult r = scanner_.scan_bytes(file, bytes);
            check_scan_result(file, bytes, r);
            // The scanner's parser and buffer are reused: a second scan of the same bytes must
            // not see anything of the first.
            require(same_scan(r, scanner_.scan_bytes(file, bytes)),
                    "scanning the same bytes twice gives different results");
        }
    }

    // The handle reader on any JSON value: a handle or a reason, never both; a handle it reads
    // is rendered by the writer (in several styles) to text it reads back as the same handle.
    void handle(std::string_view bytes) {
        simdjson::padded_string padded(bytes);
        simdjson::dom::element root;
        if (parser_.parse(padded).get(root) != simdjson::SUCCESS) {
            return;
        }
        std::vector<simdjson::dom::element> values{root};
        if (root.is_object()) {
            for (auto [key, value] : object_of(root)) {
                values.push_back(value);
            }
        } else if (root.is_array()) {
            for (simdjson::dom::element value : array_of(root)) {
                values.push_back(value);
            }
        }
        std::vector<DebugHandle> read;
        for (const auto& value : values) {
            HandleReadResult r = read_debug_handle(value);
            require(r.handle.has_value() == r.malformed_reason.empty(),
                    "read_debug_handle: a handle and a reason, or neither");
            if (r.handle) {
                read.push_back(std::move(*r.handle));
            }
        }
        // Rendered only after reading everything: parsing the rendered text reuses the parser.
        for (const DebugHandle& h : read) {
            check_handle_round_trip(h, "read_debug_handle");
        }
    }

    // The origins map reader: a map exactly when there is no error; every problem at a real
    // line:col; the value index it reports positions from agrees with the DOM; every handle
    // derived from the map has the id it is hashed to and survives rendering and reading back.
    void origins(std::string_view bytes) {
        const std::string path = "fuzz/origins.json";
        OriginsReadResult r = parse_origins_map(path, bytes);
        require(r.map.has_value() != has_error(r.problems),
                "parse_origins_map: a map exactly when there is no error");
        require_problems_placed(bytes, r.problems, path);
        for (const Problem& p : r.problems) {
            require(p.code == ProblemCode::parse_error || p.code == ProblemCode::bad_origins,
                    "parse_origins_map: unexpected problem code " + std::string(to_string(p.code)));
        }
        check_locations_if_valid(bytes);
        if (!r.map) {
            return;
        }
        require(r.map->path == path, "parse_origins_map: the map's path");
        std::size_t derived = 0;
        for (const OriginsKernel& kernel : r.map->kernels) {
            require_position(bytes, kernel.pos, "kernel " + kernel.name);
            for (const OriginsOp& op : kernel.ops) {
                require_position(bytes, op.pos, "op of kernel " + kernel.name);
                if (derived++ >= 64) {
                    continue; // bounds the time per input; 64 ops cover every shape
                }
                std::optional<DebugHandle> h = derive_handle(op, r.map->nodes);
                require(h.has_value() == !op.origins.empty(),
                        "derive_handle: a handle exactly for ops with origins");
                if (h) {
                    require(verify_handle_id(*h) == IdVersion::v2,
                            "derive_handle: the id is not the handle's v2 id");
                    check_handle_round_trip(*h, "derive_handle");
                }
            }
        }
    }

    // The bundle.mlir reader: an order exactly when there is no problem; the names it gives are
    // file names; written back as sdsc_execute lines they read back the same.
    void bundle(std::string_view bytes) {
        const std::string path = "fuzz/bundle.mlir";
        BundleReadResult r = parse_bundle(path, bytes);
        require(r.order.has_value() == r.problems.empty(),
                "parse_bundle: an order exactly when there is no problem");
        require_problems_placed(bytes, r.problems, path);
        if (!r.order) {
            return;
        }
        constexpr std::string_view op = "sdscbundle.sdsc_execute";
        std::size_t ops = 0;
        for (std::size_t at = bytes.find(op); at != std::string_view::npos;
             at = bytes.find(op, at + 1)) {
            ++ops;
        }
        require(r.order->files.size() <= ops, "parse_bundle: more files than sdsc_execute ops");
        std::string text = "module {\n";
        bool plain_names = true;
        for (const std::string& name : r.order->files) {
            require(!name.empty() && name.find_first_of("/\"\n") == std::string::npos,
                    "parse_bundle: '" + name + "' is not a file name");
            plain_names = plain_names && name.find("sdsc_execute") == std::string::npos &&
                          name.find("sdsc_filename") == std::string::npos;
            text += "  sdscbundle.sdsc_execute () {sdsc_filename=\"" + name +
                    "\", \"symbol_ids\"=[]}\n";
        }
        text += "}\n";
        if (plain_names) {
            BundleReadResult again = parse_bundle(path, text);
            require(again.order && again.order->files == r.order->files,
                    "parse_bundle: the files written back as sdsc_execute lines read differently");
        }
    }

    // The ideal-cycles reader: an ideal or a warning, never both; the warning of its own code at
    // a real line:col; an ideal exactly when the document is valid JSON and a plain DOM walk of
    // the rules gives that same ideal; the same again from the same reader; and its time at a few
    // clocks is the exact quotient rounded half up.
    void ideal(std::string_view bytes) {
        const std::string path = "fuzz/perf/ideal_cycles.json";
        IdealCyclesRead r = ideal_reader_.parse(path, bytes);
        require(r.ideal.has_value() != r.problem.has_value(),
                "ideal: exactly one of an ideal and a problem");
        require(!r.absent(), "ideal: bytes read are never an absent file");
        std::string_view doc = bytes.starts_with("\xEF\xBB\xBF") ? bytes.substr(3) : bytes;
        bool json = !locate_json_error(doc);
        std::optional<KernelIdeal> want;
        if (json) {
            simdjson::padded_string padded(doc);
            simdjson::dom::element root;
            require(parser_.parse(padded).get(root) == simdjson::SUCCESS,
                    "ideal: simdjson rejects what locate_json_error accepts");
            want = ideal_by_dom_walk(root);
        }
        if (r.problem) {
            require(r.problem->code == ProblemCode::bad_ideal_cycles &&
                        r.problem->severity == Severity::warning,
                    "ideal: a problem that is not a bad-ideal-cycles warning");
            require_problems_placed(bytes, {*r.problem}, path);
            require(!want, "ideal: refused a file the rules read");
        } else {
            require(json, "ideal: read a file that is not JSON");
            require(want && *want == *r.ideal, "ideal: the ideal differs from the rules'");
        }
        IdealCyclesRead again = ideal_reader_.parse(path, bytes);
        require(again.ideal == r.ideal && again.problem.has_value() == r.problem.has_value(),
                "ideal: a second read differs");
        if (!r.ideal || r.ideal->cycles >= (std::uint64_t{1} << 40)) {
            return;
        }
        for (std::uint32_t mhz : {1U, 999U, 1100U, 2000U, 4294967295U}) {
            // |2000 x cycles - 2 x ns x MHz| <= MHz, the upper end excluded: half up.
            std::uint64_t twice_exact = 2000 * r.ideal->cycles, ns = ideal_ns(r.ideal->cycles, mhz);
            std::uint64_t twice_ns = 2 * ns * mhz;
            require(twice_ns + mhz > twice_exact && twice_exact + mhz >= twice_ns,
                    "ideal_ns: not the quotient rounded half up");
        }
    }

    // The upstream mappings reader: mappings exactly when there is no error; every problem at a
    // real line:col; a supported version; one of the two file shapes, never both.
    void upstream(std::string_view bytes) {
        const std::string path = "fuzz/mappings.json";
        UpstreamReadResult r = parse_upstream_mappings(path, bytes);
        require(r.mappings.has_value() != has_error(r.problems),
                "parse_upstream_mappings: mappings exactly when there is no error");
        require_problems_placed(bytes, r.problems, path);
        bool said_empty = false;
        for (const Problem& p : r.problems) {
            said_empty = said_empty || p.code == ProblemCode::empty_sidecar;
            require(p.code == ProblemCode::parse_error || p.code == ProblemCode::bad_mappings ||
                        p.code == ProblemCode::unknown_sidecar ||
                        p.code == ProblemCode::empty_sidecar,
                    "parse_upstream_mappings: unexpected problem code " +
                        std::string(to_string(p.code)));
        }
        check_locations_if_valid(bytes);
        if (!r.mappings) {
            require(!said_empty, "parse_upstream_mappings: empty-sidecar beside an error");
            return;
        }
        const UpstreamMappings& m = *r.mappings;
        // empty-sidecar is a warning, said exactly when no kernel is named.
        require(said_empty == (m.code_to_post.empty() && m.post_to_code.empty() &&
                               m.kernel_stack_traces.empty()),
                "parse_upstream_mappings: empty-sidecar said wrongly");
        require(m.path == path, "parse_upstream_mappings: the mappings' path");
        require(m.version == 1.0 || m.version == 2.0,
                "parse_upstream_mappings: an unsupported version was accepted");
        bool node_mappings = !m.pre_to_post.empty() || !m.post_to_pre.empty() ||
                             !m.code_to_post.empty() || !m.post_to_code.empty();
        require(!(node_mappings && !m.kernel_stack_traces.empty()),
                "parse_upstream_mappings: both a node mappings and a stack traces file");
        std::vector<UpstreamMappings> all{m};
        std::size_t asked = 0;
        for (const auto* lists : {&m.code_to_post, &m.kernel_stack_traces}) {
            for (const auto& [key, names] : *lists) {
                if (asked++ >= 16) {
                    break;
                }
                // `kernel` or `kernel:<N>` (a version 2 call ordinal) names the kernel.
                std::size_t colon = key.rfind(':');
                std::string kernel = key.substr(0, colon);
                bool ordinal = colon != std::string::npos && colon + 1 < key.size() &&
                               key.find_first_not_of("0123456789", colon + 1) == std::string::npos;
                UpstreamKernel k =
                    upstream_kernel(all, colon == std::string::npos || ordinal ? kernel : key);
                require(std::find(k.keys.begin(), k.keys.end(), key) != k.keys.end(),
                        "upstream_kernel: a kernel's own key is not among its keys");
            }
        }
    }

    // The spyre_provenance.json reader: a document exactly when no problem is an error, each
    // problem at a real line:col, a rejection by one of the reader's codes; a document it returns
    // expands and converts (require_spyre_document); sidecar_kind on the same bytes calls it one.
    void spyre(std::string_view bytes) {
        const std::string path = "fuzz/spyre_provenance.json";
        SpyreReadResult r = parse_spyre_provenance(path, bytes);
        require_spyre_result(bytes, path, r);
        SidecarKind kind = sidecar_kind(bytes);
        if (!r.doc) {
            return;
        }
        require(kind == SidecarKind::spyre_provenance,
                "sidecar_kind: a spyre_provenance.json the reader accepts is called " +
                    std::string(to_string(kind)));
        require_spyre_document(bytes, path, *r.doc);
    }

    // The trace reader: the same events, bytes and first error whatever the chunking and the
    // threads; the bytes passed on are the text; an error at a real line:col of it; reads only
    // what locate_json_error also calls valid; and a ProfileBuilder fed the events renders a
    // report that parses.
    void trace(std::string_view bytes) {
        TraceRead whole = read_trace(bytes, 1 << 20, 1);
        for (auto [chunk, threads] : {std::pair<std::size_t, unsigned>{7, 3}, {5, 2}}) {
            require(same_outcome(whole, read_trace(bytes, chunk, threads)),
                    "trace: chunking or threads change the outcome");
        }
        bool gzip = bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
                    static_cast<unsigned char>(bytes[1]) == 0x8b;
        if (gzip) {
            return;
        }
        if (whole.error) {
            require(whole.error_offset <= bytes.size(), "trace: an error past the end");
            TextPosition at = position_at(bytes, whole.error_offset);
            if (whole.error->pos.line != 0) {
                require(whole.error->pos.line == at.line && whole.error->pos.col == at.col,
                        "trace: the error's line:col is not its offset's");
            }
        } else {
            require(whole.text == bytes, "trace: the bytes passed on are not the text");
            std::string_view text = bytes;
            if (text.starts_with("\xEF\xBB\xBF")) {
                text.remove_prefix(3);
            }
            require(!locate_json_error(text, 1026), "trace: read a text that is not JSON");
        }
        if (!whole.error) {
            PairingSources sources;
            TraceReaderOptions options;
            options.threads = 2;
            options.chunk_bytes = 64;
            TraceReader reader(options);
            ProfileBuilder builder(sources, "fuzz/trace.json", reader, true);
            auto result = reader.read_bytes(bytes, builder);
            require(!result.error, "trace: a second read fails");
            ProfileReport report = builder.finish(result);
            std::string json = render_profile_json(report);
            simdjson::dom::parser parser;
            simdjson::dom::element doc;
            require(!parser.parse(json).get(doc), "trace: the JSON report does not parse");
            (void)render_profile_text(report, {});
            (void)render_profile_folded(report);
        }
    }

    // The writer. For a file whose handle is absent or null: set_handle gives bytes that scan ok
    // with exactly that handle, in the style read from the file, and idempotent; then
    // remove_handle (absent) or set_handle_null (null) gives the input back byte for byte. For a
    // file with any handle: set_handle, set_handle_null and remove_handle all give bytes that scan
    // ok, with what they wrote, and keep every byte outside the member.
    void writer(std::string_view bytes) {
        for (const SdscFile& file : fuzz_files()) {
            ScanResult before = scanner_.scan_bytes(file, bytes);
            if (before.status != FileStatus::ok) {
                continue; // e.g. an op key that only the execute/ layout accepts
            }
            if (before.handle_state == HandleState::absent ||
                before.handle_state == HandleState::null) {
                check_annotate_strip(file, bytes, before);
            } else {
                check_rewrites(file, bytes, before);
            }
        }
    }

private:
    Scanner scanner_;
    simdjson::dom::parser parser_;
    IdealCyclesReader ideal_reader_;
    SpliceChecker splice_checker_;
    const DebugHandle fixed_ = fixed_handle();

    // The splice check (annotate's check of the new bytes) proves the writer's edit of `bytes`
    // (`proved`: an edit of a scan whose handle is not malformed), and never proves an edit that a
    // full scan of its result rejects: checked on the edit broken in small ways (its ends moved,
    // a byte of its text dropped, doubled or replaced by a structural character, a separator
    // added).
    void check_splice_proofs(const SdscFile& file, std::string_view bytes, const ScanResult& before,
                             const Splice& edit, HandleState expected, const DebugHandle* handle,
                             bool proved) {
        if (proved) {
            require(splice_checker_.proves(bytes, before, edit, expected, handle),
                    "splice check: the writer's edit is not proved");
        }
        std::vector<Splice> variants{edit};
        auto add = [&](Splice s) {
            if (s.begin <= s.end && s.end <= bytes.size()) {
                variants.push_back(std::move(s));
            }
        };
        for (std::size_t d : {std::size_t{1}, std::size_t{2}}) {
            for (int side = 0; side < 3; ++side) {
                Splice earlier = edit;
                Splice later = edit;
                if (side != 1) {
                    earlier.begin -= d;
                    later.begin += d;
                }
                if (side != 0) {
                    earlier.end -= d;
                    later.end += d;
                }
                add(earlier);
                add(later);
            }
        }
        const std::string& text = edit.text;
        for (std::size_t k : {std::size_t{0}, text.size() / 2, text.size() - 1}) {
            if (k >= text.size()) {
                continue;
            }
            Splice s = edit;
            s.text.erase(k, 1);
            add(s);
            s = edit;
            s.text.insert(k, 1, text[k]);
            add(s);
            for (char c : {',', '}', ']', '"', ':'}) {
                s = edit;
                s.text[k] = c;
                add(s);
            }
        }
        Splice s = edit;
        s.text += ",";
        add(s);
        s = edit;
        s.text.insert(0, ",");
        add(s);
        for (const Splice& v : variants) {
            if (!splice_checker_.proves(bytes, before, v, expected, handle)) {
                continue;
            }
            ScanResult after = scanner_.scan_bytes(file, apply_splice(bytes, v));
            require(after.status == FileStatus::ok && after.op_key == before.op_key &&
                        after.handle_state == expected &&
                        (handle == nullptr || after.handle == *handle),
                    "splice check: proved an edit whose result a full scan rejects");
        }
    }

    void check_scan_result(const SdscFile& file, std::string_view bytes, const ScanResult& r) {
        require(r.status != FileStatus::unreadable, "scan_bytes: status unreadable");
        require(r.bom == (bytes.substr(0, 3) == "\xEF\xBB\xBF" ? 3U : 0U), "scan: bom");
        require_problems_placed(bytes, r.problems, file.path);
        std::string_view doc = bytes.substr(r.bom);

        // The scanner and the strict validator agree on what is JSON (json_error.hpp: "as a
        // strict RFC 8259 parser would, applying the limits simdjson enforces").
        simdjson::padded_string padded(doc);
        simdjson::dom::element root;
        bool json = parser_.parse(padded).get(root) == simdjson::SUCCESS;
        // Now: the next parse with parser_ invalidates `root`.
        const std::uint8_t dom_provenance = json ? provenance_by_dom_walk(root) : 0;
        require(json == (r.status != FileStatus::invalid_json),
                "scan: invalid_json differs from simdjson");
        std::optional<JsonError> located = locate_json_error(doc);
        if (json && located) {
            throw PropertyViolation("locate_json_error rejects JSON that simdjson accepts: " +
                                    located->message);
        }
        require(json || located, "locate_json_error accepts JSON that simdjson rejects");
        if (located) {
            require(located->offset <= doc.size(), "locate_json_error: offset past the end");
        }
        auto has_code = [&](ProblemCode code) {
            return std::any_of(r.problems.begin(), r.problems.end(),
                               [&](const Problem& p) { return p.code == code; });
        };
        if (r.status == FileStatus::invalid_json) {
            require(has_code(ProblemCode::parse_error), "scan: invalid_json without parse_error");
            return;
        }
        if (r.status == FileStatus::not_sdsc) {
            require(has_code(ProblemCode::not_sdsc), "scan: not_sdsc without a not_sdsc problem");
            return;
        }

        // status ok: the op key and object are where the offsets say.
        bool strict_key = file.name.naming != FileNaming::execute;
        require(!strict_key || (!r.op_key.empty() && r.index && !r.opfunc.empty() &&
                                r.op_key.ends_with("_" + r.opfunc)),
                "scan ok: the op key is not <N>_<opfunc>");
        require(r.op_key_offset < r.op_object_open && r.op_object_open < bytes.size() &&
                    bytes[r.op_key_offset] == '"' && bytes[r.op_object_open] == '{',
                "scan ok: op key / op object offsets");
        require(json_member_value(bytes, r.op_key_offset) == r.op_object_open,
                "scan ok: the op object is not the op key's value");
        std::size_t key_end = json_string_end(bytes, r.op_key_offset);
        require(parsed_string(bytes.substr(r.op_key_offset, key_end - r.op_key_offset)) == r.op_key,
                "scan ok: the bytes at op_key_offset are not the op key");
        require_position(bytes, r.op_key_pos, "op key");
        require(r.provenance == dom_provenance, "scan ok: provenance bits differ from a DOM walk");
        require((r.handle_state == HandleState::populated) == r.handle.has_value(),
                "scan ok: a handle exactly when populated");
        require((r.handle_state == HandleState::absent) == !r.handle_member.has_value(),
                "scan ok: a handle span exactly when the handle is present");
        if (r.handle_state == HandleState::populated) {
            require(r.has(ProvenanceMember::debug_handle),
                    "scan ok: a populated handle without its provenance bit");
        }
        if (r.handle_state == HandleState::malformed) {
            require(has_code(ProblemCode::malformed_handle) ||
                        has_code(ProblemCode::duplicate_handle),
                    "scan ok: a malformed handle without a problem");
        }
        if (!r.handle_member) {
            return;
        }
        const ByteSpan span = *r.handle_member;
        require(r.op_object_open < span.begin && span.begin < span.end &&
                    span.end <= bytes.size() && bytes[span.begin] == '"' &&
                    !json_is_ws(bytes[span.end - 1]),
                "scan ok: the handle span is not a member inside the op object");
        std::size_t first_key = json_skip_ws(bytes, r.op_object_open + 1);
        require((r.handle_member_index == 0) == (first_key == span.begin),
                "scan ok: handle_member_index 0 exactly when the handle is the first member");
        std::size_t handle_key_end = json_string_end(bytes, span.begin);
        require(parsed_string(bytes.substr(span.begin, handle_key_end - span.begin)) ==
                    "debug_handle_",
                "scan ok: the handle span does not start at a debug_handle_ key");
        require_position(bytes, r.handle_pos, "handle key");
        std::size_t value = json_member_value(bytes, span.begin);
        require(value < span.end, "scan ok: the handle span has no value");
        std::string_view value_text = bytes.substr(value, span.end - value);
        if (r.handle_state == HandleState::null) {
            require(value_text == "null", "scan ok: a null handle's value is not 'null'");
        } else if (r.handle_state == HandleState::populated) {
            simdjson::padded_string value_padded(value_text);
            simdjson::dom::element value_root;
            require(parser_.parse(value_padded).get(value_root) == simdjson::SUCCESS,
                    "scan ok: the handle's value span is not a JSON value");
            require(read_debug_handle(value_root).handle == r.handle,
                    "scan ok: the handle's value span reads as another handle");
        }
    }

    // The JSON string literal `literal` decoded, or "\x01<invalid>" when it is not one.
    std::string parsed_string(std::string_view literal) {
        simdjson::padded_string padded(literal);
        std::string_view s;
        if (parser_.parse(padded).get(s) != simdjson::SUCCESS) {
            return "\x01<invalid>";
        }
        return std::string(s);
    }

    void check_locations_if_valid(std::string_view bytes) {
        simdjson::padded_string padded(bytes);
        simdjson::dom::element root;
        if (parser_.parse(padded).get(root) == simdjson::SUCCESS) {
            check_value_locations(root, bytes);
        }
    }

    // `h` rendered in three styles parses and reads back as `h`. The writer refuses strings that
    // are not valid UTF-8 (documented), and only those.
    void check_handle_round_trip(const DebugHandle& h, std::string_view who) {
        FileStyle compact;
        compact.pretty = false;
        compact.key_separator = ":";
        compact.item_separator = ",";
        FileStyle crlf_tabs;
        crlf_tabs.newline = "\r\n";
        crlf_tabs.indent_unit = "\t";
        crlf_tabs.key_separator = " : ";
        for (const FileStyle& style : {FileStyle{}, compact, crlf_tabs}) {
            std::string text;
            try {
                text = render_handle(h, style, 2);
            } catch (const std::invalid_argument& e) {
                require(!strings_valid_utf8(h), std::string(who) +
                                                    ": render_handle refused a handle whose "
                                                    "strings are valid UTF-8: " +
                                                    e.what());
                return;
            }
            simdjson::padded_string padded(text);
            simdjson::dom::element root;
            require(parser_.parse(padded).get(root) == simdjson::SUCCESS,
                    std::string(who) + ": render_handle wrote invalid JSON");
            HandleReadResult back = read_debug_handle(root);
            require(back.handle == h,
                    std::string(who) + ": the rendered handle reads back as " +
                        (back.handle ? "another handle" : "malformed: " + back.malformed_reason));
        }
    }

    ScanResult rescan_ok(const SdscFile& file, const std::string& bytes, std::string_view what) {
        ScanResult r = scanner_.scan_bytes(file, bytes);
        require(r.status == FileStatus::ok, std::string(what) + ": the output does not scan ok");
        return r;
    }

    void check_annotate_strip(const SdscFile& file, std::string_view bytes,
                              const ScanResult& before) {
        std::string annotated;
        try {
            annotated = set_handle(bytes, before, fixed_);
        } catch (const std::invalid_argument& e) {
            // writer.hpp: only for a scan that is not an ok scan of the bytes, or a handle string
            // that is not UTF-8. Neither is the case here.
            throw PropertyViolation(std::string("set_handle refused an ok scan: ") + e.what());
        }
        std::string reused = "left over from an earlier file";
        set_handle(bytes, before, fixed_, reused);
        require(reused == annotated, "set_handle into a reused buffer differs");

        check_splice_proofs(file, bytes, before, handle_splice(bytes, before, fixed_),
                            HandleState::populated, &fixed_, true);
        ScanResult after = rescan_ok(file, annotated, "set_handle");
        require(after.handle_state == HandleState::populated && after.handle == fixed_,
                "set_handle: the output does not hold the handle written");
        check_splice_proofs(file, annotated, after, null_splice(annotated, after),
                            HandleState::null, nullptr, true);
        check_splice_proofs(file, annotated, after, remove_splice(annotated, after),
                            HandleState::absent, nullptr, true);
        require(after.op_key == before.op_key &&
                    same_problem_codes(after.problems, before.problems),
                "set_handle: the output scans with another op key or other problems");
        require(after.handle_member_index ==
                    (before.handle_state == HandleState::null ? before.handle_member_index : 0),
                "set_handle: the handle is not where it belongs");
        require(same_style(detect_style(annotated, after), detect_style(bytes, before)),
                "set_handle: the output's style differs from the input's");
        require(set_handle(annotated, after, fixed_) == annotated,
                "set_handle: writing the same handle again changes the bytes");

        std::string back = before.handle_state == HandleState::absent
                               ? remove_handle(annotated, after)
                               : set_handle_null(annotated, after);
        if (back != bytes) {
            throw PropertyViolation(
                std::string(before.handle_state == HandleState::absent
                                ? "set_handle then remove_handle does not give the input back"
                                : "set_handle then set_handle_null does not give the input back") +
                first_difference(bytes, back));
        }
    }

    void check_rewrites(const SdscFile& file, std::string_view bytes, const ScanResult& before) {
        const ByteSpan span = *before.handle_member;
        std::size_t value = json_member_value(bytes, span.begin);
        bool duplicate =
            before.handle_state == HandleState::malformed &&
            std::any_of(before.problems.begin(), before.problems.end(),
                        [](const Problem& p) { return p.code == ProblemCode::duplicate_handle; });
        auto keeps_outside_value = [&](const std::string& out) {
            std::size_t tail = bytes.size() - span.end;
            return out.size() >= value + tail &&
                   out.compare(0, value, bytes.substr(0, value)) == 0 &&
                   out.compare(out.size() - tail, tail, bytes.substr(span.end)) == 0;
        };

        std::string written;
        try {
            written = set_handle(bytes, before, fixed_);
        } catch (const std::invalid_argument& e) {
            throw PropertyViolation(std::string("set_handle refused an ok scan: ") + e.what());
        }
        const bool provable = before.handle_state != HandleState::malformed;
        check_splice_proofs(file, bytes, before, handle_splice(bytes, before, fixed_),
                            HandleState::populated, &fixed_, provable);
        check_splice_proofs(file, bytes, before, null_splice(bytes, before), HandleState::null,
                            nullptr, provable);
        check_splice_proofs(file, bytes, before, remove_splice(bytes, before), HandleState::absent,
                            nullptr, provable);
        ScanResult after = rescan_ok(file, written, "set_handle over a handle");
        require(keeps_outside_value(written), "set_handle over a handle changed other bytes");
        require(duplicate ||
                    (after.handle_state == HandleState::populated && after.handle == fixed_),
                "set_handle over a handle: the output does not hold the handle written");

        std::string nulled = set_handle_null(bytes, before);
        ScanResult after_null = rescan_ok(file, nulled, "set_handle_null");
        require(keeps_outside_value(nulled), "set_handle_null changed other bytes");
        require(duplicate || after_null.handle_state == HandleState::null,
                "set_handle_null: the handle is not null");

        std::string removed = remove_handle(bytes, before);
        ScanResult after_remove = rescan_ok(file, removed, "remove_handle");
        require(duplicate || after_remove.handle_state == HandleState::absent,
                "remove_handle: the handle is still there");
        // Only bytes inside the op object go: up to its '{' and from its end on, all is kept.
        std::size_t open = before.op_object_open + 1;
        std::size_t tail = bytes.size() - json_value_end(bytes, before.op_object_open);
        require(removed.size() < bytes.size() && removed.size() >= open + tail &&
                    removed.compare(0, open, bytes.substr(0, open)) == 0 &&
                    removed.compare(removed.size() - tail, tail,
                                    bytes.substr(bytes.size() - tail)) == 0,
                "remove_handle changed bytes outside the op object");
    }
};

// For the fuzz targets: a violated property is a crash (abort), its message on standard error.
template <typename Check> void abort_on_violation(Check&& check) {
    try {
        check();
    } catch (const PropertyViolation& e) {
        std::fprintf(stderr, "sdscprov fuzz: property violated: %s\n", e.what());
        std::abort();
    }
}

} // namespace sdscprov::fuzz
