#include "profile/pairing.hpp"

#include "profile/derived.hpp"

#include "sdscprov/handle/compiler_generated.hpp"

#include "sdscprov/handle/source_text.hpp"

#include <algorithm>
#include <iterator>
#include <set>

namespace sdscprov {

namespace {

constexpr std::string_view event_prefix = "spyre_kernel_v1_";
constexpr std::size_t key_width = 16;

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_key_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
}

bool is_key(std::string_view s) {
    return s.size() == key_width && std::all_of(s.begin(), s.end(), is_key_char);
}

// The name without a `#<step>` suffix (decimal digits); the whole name when it has none, and
// nullopt when what follows the last '#' is not a step.
std::optional<std::string_view> without_step(std::string_view name) {
    auto hash = name.rfind('#');
    if (hash == std::string_view::npos) {
        return name;
    }
    std::string_view step = name.substr(hash + 1);
    if (step.empty() || !std::all_of(step.begin(), step.end(), is_digit)) {
        return std::nullopt;
    }
    return name.substr(0, hash);
}

// The key of `spyre_kernel_v1_<summary>_<key>` (the name without its step): summary non-empty
// of [A-Za-z0-9_], key 16 lowercase base32 characters, as torch-spyre's parser has it.
std::optional<std::string_view> name_key(std::string_view base) {
    if (base.size() <= event_prefix.size() + key_width + 1 || !base.starts_with(event_prefix)) {
        return std::nullopt;
    }
    std::size_t key_start = base.size() - key_width;
    if (base[key_start - 1] != '_') {
        return std::nullopt;
    }
    std::string_view summary =
        base.substr(event_prefix.size(), key_start - 1 - event_prefix.size());
    auto display = [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '_';
    };
    if (summary.empty() || !std::all_of(summary.begin(), summary.end(), display)) {
        return std::nullopt;
    }
    std::string_view key = base.substr(key_start);
    return is_key(key) ? std::optional(key) : std::nullopt;
}

std::string id_list(const std::vector<std::string>& ids) {
    std::string s = "[";
    for (const auto& id : ids) {
        s += (s.size() > 1 ? ", " : "") + id;
    }
    return s + "]";
}

void append_field(std::string& key, char state, std::string_view text) {
    auto n = static_cast<std::uint32_t>(text.size());
    key.push_back(state);
    key.append(reinterpret_cast<const char*>(&n), sizeof n);
    key.append(text);
}

// Source lines and ATen ops of a handle and, recursively, of the handles it is fused from.
void collect(const DebugHandle& h, std::set<SourceLine>& lines, std::set<std::string>& ops) {
    if (h.source) {
        lines.insert({h.source->file, h.source->start_line});
    }
    if (h.aten_op) {
        ops.insert(*h.aten_op);
    }
    for (const auto& child : h.fused_from) {
        collect(child, lines, ops);
    }
}

UnpairedGroup group_of(ProblemCode reason, std::string_view name, std::string_view key) {
    return {reason, std::string(name), std::string(key)};
}

} // namespace

// What an event's name says: the name without its step (`base`, when the step parses), the key
// it carries (`parsed`) and the name its group goes by.
struct Pairing::Names {
    std::optional<std::string_view> base;
    std::optional<std::string_view> parsed;
    std::string_view group_name;
    std::string key; // the key the event pairs by, once read
};

Pairing::Pairing(const PairingSources& sources, Aggregation& aggregation, DiagnosticLog& log)
    : sources_(sources), aggregation_(aggregation), log_(log), holders_(sources.caches.holders()),
      named_(sources.caches.named_dirs()) {
    for (const auto& doc : sources_.sidecars) {
        auto& by_identity = occurrences_.emplace_back();
        for (const auto& [id, occurrence] : doc.occurrences) {
            by_identity.emplace(occurrence.identity_key, &occurrence);
        }
    }
}

void variant_key(const TraceEvent& e, std::string& out) {
    out.clear();
    std::string_view name = e.name_state == FieldState::ok ? e.name : std::string_view();
    append_field(out, 'n', without_step(name).value_or(name));
    append_field(out, static_cast<char>('0' + static_cast<int>(e.provenance_key_state)),
                 e.provenance_key);
    append_field(out, static_cast<char>('0' + static_cast<int>(e.dir_prefix_state)), e.dir_prefix);
    out.push_back(static_cast<char>('0' + static_cast<int>(e.debug_handles_state)));
    for (auto h : e.debug_handles) {
        append_field(out, 'h', h);
    }
}

const Variant& Pairing::variant(const TraceEvent& e, std::optional<Variant>& uncached) {
    // Events with the same name (step aside), provenance key and handles pair alike; the key's
    // hash is the reader's when it worked it out on its parsing thread.
    VariantKeyRef key{e.variant_key, e.variant_hash};
    if (!e.variant_hash_known) {
        key.hash = variant_hash_of(e, key_buf_);
        key.bytes = key_buf_;
    }
    auto found = variant_of_.find(key);
    if (found != variant_of_.end()) {
        return variants_[found->second];
    }
    if (variant_of_.size() < max_cached_variants) {
        auto index = static_cast<std::uint32_t>(variants_.size());
        variants_.push_back(classify(e));
        variant_of_.emplace(VariantKey{std::string(key.bytes), key.hash}, index);
        return variants_[index];
    }
    uncached = classify(e);
    return *uncached;
}

// args.provenance_key when it is a key; a diagnostic when it is there but not one.
std::optional<std::string_view> Pairing::native_key(Variant& v, const TraceEvent& e) {
    if (e.provenance_key_state == FieldState::ok && is_key(e.provenance_key)) {
        return e.provenance_key;
    }
    if (e.provenance_key_state != FieldState::absent) {
        v.diagnostics.push_back(
            log_.diagnose(ProblemCode::malformed_provenance_key, e,
                          e.provenance_key_state == FieldState::ok
                              ? "args.provenance_key '" + printable(e.provenance_key) +
                                    "' is not 16 lowercase base32 characters: ignored"
                              : std::string("args.provenance_key is not a string: ignored")));
    }
    return std::nullopt;
}

// args.debug_handles when they are distinct strings; a diagnostic when they are there but not.
std::optional<std::vector<std::string>> Pairing::native_handles(Variant& v, const TraceEvent& e) {
    std::optional<std::vector<std::string>> handles;
    if (e.debug_handles_state == FieldState::ok) {
        handles.emplace(e.debug_handles.begin(), e.debug_handles.end());
        std::set<std::string> distinct(handles->begin(), handles->end());
        if (distinct.size() != handles->size()) {
            v.diagnostics.push_back(log_.diagnose(ProblemCode::malformed_debug_handles, e,
                                                  "args.debug_handles names an id twice: ignored"));
            handles.reset();
        }
    } else if (e.debug_handles_state == FieldState::wrong_type) {
        v.diagnostics.push_back(
            log_.diagnose(ProblemCode::malformed_debug_handles, e,
                          "args.debug_handles is not an array of strings: ignored"));
    }
    return handles;
}

// Classifies the first event of a variant: the pairing rules (profile.hpp).
Variant Pairing::classify(const TraceEvent& e) {
    Variant v;
    Names n;
    std::string_view name = e.name_state == FieldState::ok ? e.name : std::string_view();
    n.base = without_step(name);
    n.parsed = n.base ? name_key(*n.base) : std::nullopt;
    n.group_name = n.base.value_or(name);
    std::optional<std::string_view> native = native_key(v, e);
    std::optional<std::vector<std::string>> handles = native_handles(v, e);
    if (!n.parsed && !native) {
        if (!name.starts_with("spyre_kernel")) {
            return v; // not a Spyre kernel event
        }
        v.kernel = true;
        v.group = group_of(ProblemCode::unparsable_name, n.group_name, "");
        v.diagnostics.push_back(
            log_.diagnose(ProblemCode::unparsable_name, e,
                          "event name '" + printable(name) +
                              "' is not spyre_kernel_v1_<summary>_<key>[#<step>]: unpaired"));
        return v;
    }
    v.kernel = true;
    if (n.parsed && native && *n.parsed != *native) {
        v.group = group_of(ProblemCode::carrier_conflict, n.group_name, *n.parsed);
        v.diagnostics.push_back(log_.diagnose(ProblemCode::carrier_conflict, e,
                                              "the name's key " + std::string(*n.parsed) +
                                                  " and args.provenance_key " +
                                                  std::string(*native) + " differ: unpaired"));
        return v;
    }
    n.key = std::string(native ? *native : *n.parsed);
    if (!by_sidecar(v, e, n, handles)) {
        by_caches(v, e, n, handles);
    }
    return v;
}

// The first sidecar that has the key pairs it (or finds the name collides); false when none has.
bool Pairing::by_sidecar(Variant& v, const TraceEvent& e, const Names& n,
                         const std::optional<std::vector<std::string>>& handles) {
    const std::string& key = n.key;
    for (std::size_t i = 0; i < sources_.sidecars.size(); ++i) {
        const auto& doc = sources_.sidecars[i];
        auto identity = doc.identities.find(key);
        if (identity == doc.identities.end()) {
            continue;
        }
        const auto& id = identity->second;
        if (n.parsed && *n.base != id.event_name_base) {
            v.group = group_of(ProblemCode::collision, n.group_name, key);
            v.diagnostics.push_back(
                log_.diagnose(ProblemCode::collision, e,
                              "key " + key + " is the bundle '" + id.event_name_base + "' in " +
                                  doc.path + ", not '" + printable(*n.base) + "': unpaired"));
            return true;
        }
        if (handles && *handles != id.direct_handle_ids) {
            v.diagnostics.push_back(
                log_.diagnose(ProblemCode::native_handle_disagreement, e,
                              "args.debug_handles " + id_list(*handles) + " differ from " +
                                  id_list(id.direct_handle_ids) + " in " + doc.path + " for key " +
                                  key + ": the sidecar's are used"));
        }
        v.bundle = paired_bundle(v, e, n, Resolution::sidecar, &doc, i, id.direct_handle_ids);
        return true;
    }
    return false;
}

// A key no sidecar has: paired through the caches' files by the event's own handles, if it can.
void Pairing::by_caches(Variant& v, const TraceEvent& e, const Names& n,
                        const std::optional<std::vector<std::string>>& handles) {
    const std::string& key = n.key;
    bool through_caches = !sources_.caches.empty() && handles;
    if (!sources_.sidecars.empty()) {
        v.diagnostics.push_back(
            log_.diagnose(ProblemCode::unknown_key, e,
                          "key " + key + " is in no sidecar given" +
                              (through_caches ? ": paired through the caches" : ": unpaired")));
    }
    if (!through_caches) {
        ProblemCode reason =
            sources_.sidecars.empty() ? ProblemCode::no_handles : ProblemCode::unknown_key;
        if (reason == ProblemCode::no_handles) {
            v.diagnostics.push_back(log_.diagnose(
                ProblemCode::no_handles, e,
                "event of key " + key +
                    " carries no args.debug_handles and there is no sidecar: unpaired"));
        }
        v.group = group_of(reason, n.group_name, key);
        return;
    }
    std::vector<std::string> known;
    std::vector<std::string> unknown;
    for (const auto& id : *handles) {
        (sources_.caches.find(id) != nullptr ? known : unknown).push_back(id);
    }
    if (!unknown.empty()) {
        v.diagnostics.push_back(log_.diagnose(
            ProblemCode::unknown_handle, e,
            "args.debug_handles " + id_list(unknown) + " of key " + key +
                (unknown.size() == 1 ? " is" : " are") + " in no SDSC file of the caches" +
                (known.empty() ? ": unpaired" : "")));
        if (known.empty()) {
            v.group = group_of(ProblemCode::unknown_handle, n.group_name, key);
            return;
        }
    }
    v.bundle = paired_bundle(v, e, n, Resolution::caches, nullptr, 0, known);
}

// The event's args.sdsc_bundle_dir_prefix, when it is a string of 8 lowercase hex digits; a
// diagnostic when it is there but not one.
std::optional<std::string> Pairing::dir_prefix(Variant& v, const TraceEvent& e) {
    auto hex = [](char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); };
    if (e.dir_prefix_state == FieldState::ok && e.dir_prefix.size() == 8 &&
        std::all_of(e.dir_prefix.begin(), e.dir_prefix.end(), hex)) {
        return std::string(e.dir_prefix);
    }
    if (e.dir_prefix_state != FieldState::absent) {
        v.diagnostics.push_back(log_.diagnose(
            ProblemCode::bad_bundle_dir_prefix, e,
            e.dir_prefix_state == FieldState::ok
                ? "args.sdsc_bundle_dir_prefix '" + printable(e.dir_prefix) +
                      "' is not 8 lowercase hex digits: ignored"
                : std::string("args.sdsc_bundle_dir_prefix is not a string: ignored")));
    }
    return std::nullopt;
}

// The bundle of a paired key: one per key, and one per directory an event's
// args.sdsc_bundle_dir_prefix names (the first variant that pairs it makes it).
std::uint32_t Pairing::paired_bundle(Variant& v, const TraceEvent& e, const Names& n,
                                     Resolution how, const SpyreProvenance* doc,
                                     std::size_t doc_index, const std::vector<std::string>& ids) {
    std::optional<std::string> prefix = dir_prefix(v, e);
    BundleDirQuery query;
    query.handle_ids = ids;
    query.sidecar = doc != nullptr;
    if (doc != nullptr) {
        auto [first, last] = occurrences_[doc_index].equal_range(n.key);
        for (auto it = first; it != last; ++it) {
            query.sidecar_kernels.push_back(it->second->kernel_name);
        }
    }
    query.dir_prefix = prefix;
    BundleDirs where = resolve_bundle_dirs(query, sources_.caches.dirs, holders_, named_);
    std::string identity = n.key;
    if (where.by_prefix) {
        identity += '\0' + sources_.caches.dirs[where.dirs.front()].path;
    }
    for (const auto& note : where.notes) {
        if (note.code == ProblemCode::bad_bundle_dir_prefix) {
            v.diagnostics.push_back(log_.diagnose(note.code, e, note.message));
        }
    }
    auto found = resolved_by_key_.find(identity);
    if (found != resolved_by_key_.end()) {
        const auto& first = aggregation_.bundle(found->second).bundle;
        if (how == Resolution::caches && first.handle_ids != ids) {
            v.diagnostics.push_back(
                log_.diagnose(ProblemCode::native_handle_disagreement, e,
                              "events of key " + n.key + " carry other args.debug_handles " +
                                  id_list(ids) + " than the first one's " +
                                  id_list(first.handle_ids) + ": the first event's are used"));
        }
        return found->second;
    }
    BundleState state;
    ProfileBundle& b = state.bundle;
    b.key = n.key;
    b.event_name = std::string(n.group_name);
    b.resolution = how;
    b.handle_ids = ids;
    for (const auto& id : ids) {
        if (doc != nullptr) {
            state.handles.push_back(expand_handle(*doc, id));
        } else if (const auto* cached = sources_.caches.find(id)) {
            state.handles.push_back(cached->handle);
        }
    }
    std::set<SourceLine> lines;
    std::set<std::string> ops;
    for (const auto& h : state.handles) {
        collect(h, lines, ops);
    }
    b.lines.assign(lines.begin(), lines.end());
    b.aten_ops.assign(ops.begin(), ops.end());
    b.compiler_generated =
        !state.handles.empty() && b.lines.empty() &&
        std::all_of(state.handles.begin(), state.handles.end(),
                    [](const DebugHandle& h) { return is_sourceless_handle(h); });
    kernel_dirs(state, e, doc, where);
    ideal(state, e);
    label_frames(b);
    auto index = aggregation_.add_paired(std::move(state));
    resolved_by_key_.emplace(std::move(identity), index);
    return index;
}

// The bundle's kernel names and directories (resolve_bundle_dirs), and where the sidecar's
// handles differ from the caches' files.
void Pairing::kernel_dirs(BundleState& state, const TraceEvent& e, const SpyreProvenance* doc,
                          const BundleDirs& where) {
    ProfileBundle& b = state.bundle;
    const HandleIndex& caches = sources_.caches;
    for (const auto& note : where.notes) {
        if (note.code != ProblemCode::bad_bundle_dir_prefix) {
            state.diagnostics.push_back(log_.diagnose(note.code, e, note.message));
        }
    }
    if (doc != nullptr) {
        for (std::size_t i = 0; i < b.handle_ids.size() && i < state.handles.size(); ++i) {
            const auto* cached = caches.find(b.handle_ids[i]);
            if (cached != nullptr && !(cached->handle == state.handles[i])) {
                state.diagnostics.push_back(
                    log_.diagnose(ProblemCode::sources_disagree, e,
                                  "handle " + b.handle_ids[i] + " differs between " + doc->path +
                                      " and " + cached->file + ": the sidecar's is used"));
            }
        }
    }
    b.kernel_names = where.kernel_names;
    for (auto d : where.dirs) {
        b.kernel_dirs.push_back(caches.dirs[d].path);
    }
}

// The bundle's ideal: the one its directories agree on; when they give different ones, none
// (ambiguous-ideal, naming them).
void Pairing::ideal(BundleState& state, const TraceEvent& e) {
    ProfileBundle& b = state.bundle;
    std::vector<std::string> differing;
    b.ideal = aggregation_.ideals().of_bundle(b.kernel_dirs, &differing);
    if (!differing.empty()) {
        std::string list;
        for (const auto& d : differing) {
            list += (list.empty() ? "" : ", ") + d;
        }
        state.diagnostics.push_back(log_.diagnose(
            ProblemCode::ambiguous_ideal, e,
            "key " + b.key + " is in " + std::to_string(differing.size()) +
                " kernel directories whose perf/ideal_cycles.json differ (" + list +
                "): its ideal is unknown"));
    }
}

} // namespace sdscprov
