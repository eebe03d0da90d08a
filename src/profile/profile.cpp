#include "sdscprov/profile/profile.hpp"

#include "profile/evicted_names.hpp"
#include "profile/saturating.hpp"
#include "profile/utilization_rows.hpp"
#include "core/json_out.hpp"
#include "sdscprov/handle/source_text.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <set>
#include <tuple>
#include <unordered_map>

namespace sdscprov {

namespace {

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

} // namespace

// ---- event names --------------------------------------------------------------------------------

namespace {

constexpr std::string_view event_prefix = "spyre_kernel_v1_";
constexpr std::size_t key_width = 16;

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

std::vector<std::uint32_t> intersection(const std::vector<std::uint32_t>& a,
                                        const std::vector<std::uint32_t>& b) {
    std::vector<std::uint32_t> out;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
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

template <class Items, class Label>
std::string joined(const Items& items, Label label, std::string_view none) {
    std::string s;
    for (const auto& item : items) {
        s += (s.empty() ? "" : "+") + label(item);
    }
    return s.empty() ? std::string(none) : s;
}

} // namespace

// ---- the builder --------------------------------------------------------------------------------

struct ProfileBuilder::Impl {
    // Bounds of what a trace of distinct names can make the builder hold: variants kept for
    // reuse (the others are classified at each event) and distinct diagnostics per code.
    static constexpr std::size_t max_cached_variants = std::size_t{1} << 16;
    static constexpr std::uint32_t max_diagnostics_per_code = 1000;

    // The events of one unresolved group: same reason, same name (without #<step>).
    struct Group {
        ProfileCode reason;
        std::string name;
        std::string key;
    };
    struct Variant {
        std::uint32_t bundle = 0;   // a paired bundle, unless `group`
        std::optional<Group> group; // unpaired: the group, looked up at each event (evictions)
        bool kernel = false;
        std::vector<std::uint32_t> diagnostics;
    };
    struct BundleState {
        ProfileBundle bundle;
        std::vector<DebugHandle> handles;
        std::vector<std::uint32_t> diagnostics;
    };

    const PairingSources& sources;
    std::string path;
    TraceReader& reader;
    bool annotate;

    std::vector<std::multimap<std::string, const SpyreOccurrence*>> occurrences; // per sidecar

    std::unordered_map<std::string, std::uint32_t> variant_of;
    std::vector<Variant> variants;
    std::vector<BundleState> bundles;
    std::unordered_map<std::string, std::uint32_t> resolved_by_key;
    // The unresolved groups kept apart, at most max_unresolved_groups, and the same ordered by
    // device time (then events, then slot): the least is the first to leave for the overflow
    // group, which then takes every later event of its name (evicted_names remembers them).
    std::map<std::pair<ProfileCode, std::string>, std::uint32_t> unresolved_by_name;
    std::set<std::tuple<std::uint64_t, std::uint64_t, std::uint32_t>> unresolved_ranking;
    EvictedNames evicted_names;
    // Groups that left the table: a lower bound of the names in the overflow group (a name that
    // the filter turned away without its having left is not counted).
    std::uint64_t overflow_names = 0;
    std::optional<std::uint32_t> overflow_group;
    std::vector<ProfileDiagnostic> diagnostics;
    std::map<std::pair<ProfileCode, std::string>, std::uint32_t> diagnostic_by_message;
    // Distinct diagnostics per code, and the one that counts the events of the others beyond
    // max_diagnostics_per_code (a trace of a million distinct bad names stays small).
    std::map<ProfileCode, std::uint32_t> diagnostics_per_code;
    std::map<ProfileCode, std::uint32_t> diagnostic_overflow;
    std::map<std::pair<ProfileCode, std::uint32_t>, std::uint32_t> event_diagnostics;
    ProfileCoverage coverage;
    StageTotals stages;
    std::string key_buf;
    const ProfileBundle* last_annotated = nullptr;
    std::unique_ptr<StepLog> step_log; // record_steps()
    KernelIdeals ideals;
    IdealTime coverage_ideal;

    Impl(const PairingSources& s, std::string p, TraceReader& r, bool a)
        : sources(s), path(std::move(p)), reader(r), annotate(a), ideals(s.utilization) {
        for (const auto& doc : sources.sidecars) {
            auto& by_identity = occurrences.emplace_back();
            for (const auto& [id, occurrence] : doc.occurrences) {
                by_identity.emplace(occurrence.identity_key, &occurrence);
            }
        }
    }

    // A diagnostic about the variant being created; one per code and message.
    std::uint32_t diagnose(ProfileCode code, const TraceEvent& e, std::string message) {
        auto key = std::make_pair(code, message);
        auto it = diagnostic_by_message.find(key);
        if (it != diagnostic_by_message.end()) {
            return it->second;
        }
        if (diagnostics_per_code[code]++ >= max_diagnostics_per_code) {
            auto [over, added] = diagnostic_overflow.try_emplace(code, 0U);
            if (added) {
                over->second = static_cast<std::uint32_t>(diagnostics.size());
                diagnostics.push_back(
                    {code, severity_of(code), path, reader.position(e.offset), e.index, 0,
                     "more events of this kind, of other names or keys than the " +
                         std::to_string(max_diagnostics_per_code) +
                         " diagnostics of this code before it: counted here (from this event on)"});
            }
            return over->second;
        }
        auto index = static_cast<std::uint32_t>(diagnostics.size());
        diagnostics.push_back({code, severity_of(code), path, reader.position(e.offset), e.index, 0,
                               std::move(message)});
        diagnostic_by_message.emplace(std::move(key), index);
        return index;
    }

    // A diagnostic about single events of a bundle: one per code and bundle, counted here.
    void diagnose_event(ProfileCode code, std::uint32_t bundle, const TraceEvent& e,
                        const std::string& message) {
        auto [it, added] = event_diagnostics.try_emplace({code, bundle}, 0U);
        if (added) {
            it->second = static_cast<std::uint32_t>(diagnostics.size());
            diagnostics.push_back(
                {code, severity_of(code), path, reader.position(e.offset), e.index, 0, message});
        }
        ++diagnostics[it->second].events;
    }

    static Group group_of(ProfileCode reason, std::string_view name, std::string_view key) {
        return {reason, std::string(name), std::string(key)};
    }

    std::uint32_t overflow(ProfileCode reason) {
        if (!overflow_group) {
            overflow_group = static_cast<std::uint32_t>(bundles.size());
            BundleState b;
            b.bundle.event_name = "(other unpaired events)";
            b.bundle.reason = reason; // of the first group that went there
            bundles.push_back(std::move(b));
            label(bundles.back().bundle);
        }
        return *overflow_group;
    }

    static std::tuple<std::uint64_t, std::uint64_t, std::uint32_t> rank(const BundleState& b,
                                                                        std::uint32_t slot) {
        return {b.bundle.time.ns, b.bundle.time.events, slot};
    }

    // The group's slot: its own while it is among the kept ones; a new group takes the slot of
    // the least one when the table is full (whose time goes to the overflow group), unless its
    // name left the table before: then, as every name that left, the overflow group.
    std::uint32_t unresolved_bundle(const Group& g) {
        auto name = std::make_pair(g.reason, g.name);
        auto it = unresolved_by_name.find(name);
        if (it != unresolved_by_name.end()) {
            return it->second;
        }
        std::uint32_t slot = 0;
        if (unresolved_by_name.size() < max_unresolved_groups) {
            slot = static_cast<std::uint32_t>(bundles.size());
            bundles.emplace_back();
        } else {
            if (evicted_names.may_hold(g.reason, g.name)) {
                return overflow(g.reason);
            }
            std::uint32_t other = overflow(g.reason);
            slot = std::get<2>(*unresolved_ranking.begin());
            unresolved_ranking.erase(unresolved_ranking.begin());
            BundleState& least = bundles[slot];
            bundles[other].bundle.time.add(least.bundle.time);
            if (step_log) {
                step_log->moved(slot, other);
            }
            ++overflow_names;
            evicted_names.add(*least.bundle.reason, least.bundle.event_name);
            unresolved_by_name.erase({*least.bundle.reason, least.bundle.event_name});
            least = BundleState{};
        }
        ProfileBundle& b = bundles[slot].bundle;
        b.key = g.key;
        b.event_name = g.name;
        b.reason = g.reason;
        label(b);
        unresolved_by_name.emplace(std::move(name), slot);
        unresolved_ranking.insert(rank(bundles[slot], slot));
        return slot;
    }

    static void label(ProfileBundle& b) {
        bool paired = b.resolution != Resolution::unresolved;
        b.root_label =
            paired ? joined(
                         b.lines, [](const SourceLine& l) { return l.label(); }, "[no source]")
                   : "[unresolved]";
        b.aten_label = paired
                           ? joined(
                                 b.aten_ops, [](const std::string& s) { return s; }, "[no aten op]")
                           : "[unresolved]";
        b.kernel_label = joined(
            b.kernel_names, [](const std::string& s) { return s; }, b.event_name);
    }

    // The bundle of a paired key (the first variant that pairs it makes it).
    std::uint32_t paired_bundle(Variant& v, const TraceEvent& e, std::string_view key,
                                std::string_view base, Resolution how, const SpyreProvenance* doc,
                                std::size_t doc_index, const std::vector<std::string>& ids) {
        auto found = resolved_by_key.find(std::string(key));
        if (found != resolved_by_key.end()) {
            const auto& first = bundles[found->second].bundle;
            if (how == Resolution::caches && first.handle_ids != ids) {
                v.diagnostics.push_back(diagnose(
                    ProfileCode::native_handle_disagreement, e,
                    "events of key " + std::string(key) + " carry other args.debug_handles " +
                        id_list(ids) + " than the first one's " + id_list(first.handle_ids) +
                        ": the first event's are used"));
            }
            return found->second;
        }
        auto index = static_cast<std::uint32_t>(bundles.size());
        BundleState state;
        ProfileBundle& b = state.bundle;
        b.key = std::string(key);
        b.event_name = std::string(base);
        b.resolution = how;
        b.handle_ids = ids;
        for (const auto& id : ids) {
            if (doc != nullptr) {
                state.handles.push_back(expand_handle(*doc, id));
            } else if (const auto* cached = sources.caches.find(id)) {
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
        kernel_dirs(state, e, doc, doc_index);
        b.ideal = ideals.of_bundle(b.kernel_dirs);
        label(b);
        bundles.push_back(std::move(state));
        resolved_by_key.emplace(std::string(key), index);
        return index;
    }

    // Kernel names and directories: the sidecar's occurrences name kernels, whose directories
    // the caches have; the caches' files say which directories hold the bundle's handles.
    void kernel_dirs(BundleState& state, const TraceEvent& e, const SpyreProvenance* doc,
                     std::size_t doc_index) {
        ProfileBundle& b = state.bundle;
        const HandleIndex& caches = sources.caches;
        std::vector<std::uint32_t> holding;
        bool held = false;
        for (const auto& id : b.handle_ids) {
            if (const auto* cached = caches.find(id)) {
                holding = held ? intersection(holding, cached->dirs) : cached->dirs;
                held = true;
            }
        }
        if (held && holding.empty()) {
            // The handles are spread over several directories: all of them.
            std::set<std::uint32_t> all;
            for (const auto& id : b.handle_ids) {
                if (const auto* cached = caches.find(id)) {
                    all.insert(cached->dirs.begin(), cached->dirs.end());
                }
            }
            holding.assign(all.begin(), all.end());
        }
        std::vector<std::uint32_t> dirs;
        std::set<std::string> names;
        if (doc != nullptr) {
            auto [first, last] = occurrences[doc_index].equal_range(b.key);
            std::set<std::uint32_t> named;
            for (auto it = first; it != last; ++it) {
                names.insert(it->second->kernel_name);
                for (auto d : caches.dirs_named(it->second->kernel_name)) {
                    named.insert(d);
                }
            }
            std::vector<std::uint32_t> by_name(named.begin(), named.end());
            if (!by_name.empty() && held) {
                dirs = intersection(by_name, holding);
                if (dirs.empty()) {
                    state.diagnostics.push_back(diagnose(
                        ProfileCode::sources_disagree, e,
                        "the sidecar's kernel " +
                            joined(
                                names, [](const std::string& s) { return s; }, "") +
                            " is in " + dir_list(by_name) +
                            ", whose SDSC files do not hold its handles " + id_list(b.handle_ids) +
                            "; " + dir_list(holding) + " do: those are used"));
                    dirs = holding;
                }
            } else {
                dirs = held ? holding : by_name;
            }
            for (std::size_t i = 0; i < b.handle_ids.size() && i < state.handles.size(); ++i) {
                const auto* cached = caches.find(b.handle_ids[i]);
                if (cached != nullptr && !(cached->handle == state.handles[i])) {
                    state.diagnostics.push_back(
                        diagnose(ProfileCode::sources_disagree, e,
                                 "handle " + b.handle_ids[i] + " differs between " + doc->path +
                                     " and " + cached->file + ": the sidecar's is used"));
                }
            }
        } else {
            dirs = holding;
            for (auto d : dirs) {
                if (caches.dirs[d].kernel) {
                    names.insert(*caches.dirs[d].kernel);
                }
            }
        }
        b.kernel_names.assign(names.begin(), names.end());
        for (auto d : dirs) {
            b.kernel_dirs.push_back(caches.dirs[d].path);
        }
    }

    std::string dir_list(const std::vector<std::uint32_t>& dirs) const {
        std::string s;
        for (auto d : dirs) {
            s += (s.empty() ? "" : ", ") + sources.caches.dirs[d].path;
        }
        return s.empty() ? "no directory" : s;
    }

    // Classifies the first event of a variant: the pairing rules (profile.hpp).
    Variant classify(const TraceEvent& e) {
        Variant v;
        std::string_view name = e.name_state == FieldState::ok ? e.name : std::string_view();
        auto base = without_step(name);
        auto parsed = base ? name_key(*base) : std::nullopt;
        std::string_view group_name = base.value_or(name);

        std::optional<std::string_view> native;
        if (e.provenance_key_state == FieldState::ok && is_key(e.provenance_key)) {
            native = e.provenance_key;
        } else if (e.provenance_key_state != FieldState::absent) {
            v.diagnostics.push_back(
                diagnose(ProfileCode::malformed_provenance_key, e,
                         e.provenance_key_state == FieldState::ok
                             ? "args.provenance_key '" + printable(e.provenance_key) +
                                   "' is not 16 lowercase base32 characters: ignored"
                             : std::string("args.provenance_key is not a string: ignored")));
        }
        std::optional<std::vector<std::string>> handles;
        if (e.debug_handles_state == FieldState::ok) {
            handles.emplace(e.debug_handles.begin(), e.debug_handles.end());
            std::set<std::string> distinct(handles->begin(), handles->end());
            if (distinct.size() != handles->size()) {
                v.diagnostics.push_back(diagnose(ProfileCode::malformed_debug_handles, e,
                                                 "args.debug_handles names an id twice: ignored"));
                handles.reset();
            }
        } else if (e.debug_handles_state == FieldState::wrong_type) {
            v.diagnostics.push_back(
                diagnose(ProfileCode::malformed_debug_handles, e,
                         "args.debug_handles is not an array of strings: ignored"));
        }

        if (!parsed && !native) {
            if (!name.starts_with("spyre_kernel")) {
                return v; // not a Spyre kernel event
            }
            v.kernel = true;
            v.group = group_of(ProfileCode::unparsable_name, group_name, "");
            v.diagnostics.push_back(
                diagnose(ProfileCode::unparsable_name, e,
                         "event name '" + printable(name) +
                             "' is not spyre_kernel_v1_<summary>_<key>[#<step>]: unpaired"));
            return v;
        }
        v.kernel = true;
        if (parsed && native && *parsed != *native) {
            v.group = group_of(ProfileCode::carrier_conflict, group_name, *parsed);
            v.diagnostics.push_back(diagnose(ProfileCode::carrier_conflict, e,
                                             "the name's key " + std::string(*parsed) +
                                                 " and args.provenance_key " +
                                                 std::string(*native) + " differ: unpaired"));
            return v;
        }
        std::string key(native ? *native : *parsed);
        for (std::size_t i = 0; i < sources.sidecars.size(); ++i) {
            const auto& doc = sources.sidecars[i];
            auto identity = doc.identities.find(key);
            if (identity == doc.identities.end()) {
                continue;
            }
            const auto& id = identity->second;
            if (parsed && *base != id.event_name_base) {
                v.group = group_of(ProfileCode::collision, group_name, key);
                v.diagnostics.push_back(diagnose(ProfileCode::collision, e,
                                                 "key " + key + " is the bundle '" +
                                                     id.event_name_base + "' in " + doc.path +
                                                     ", not '" + printable(*base) + "': unpaired"));
                return v;
            }
            if (handles && *handles != id.direct_handle_ids) {
                v.diagnostics.push_back(
                    diagnose(ProfileCode::native_handle_disagreement, e,
                             "args.debug_handles " + id_list(*handles) + " differ from " +
                                 id_list(id.direct_handle_ids) + " in " + doc.path + " for key " +
                                 key + ": the sidecar's are used"));
            }
            v.bundle = paired_bundle(v, e, key, group_name, Resolution::sidecar, &doc, i,
                                     id.direct_handle_ids);
            return v;
        }
        bool by_caches = !sources.caches.empty() && handles;
        if (!sources.sidecars.empty()) {
            v.diagnostics.push_back(
                diagnose(ProfileCode::unknown_key, e,
                         "key " + key + " is in no sidecar given" +
                             (by_caches ? ": paired through the caches" : ": unpaired")));
        }
        if (!by_caches) {
            ProfileCode reason =
                sources.sidecars.empty() ? ProfileCode::no_handles : ProfileCode::unknown_key;
            if (reason == ProfileCode::no_handles) {
                v.diagnostics.push_back(diagnose(
                    ProfileCode::no_handles, e,
                    "event of key " + key +
                        " carries no args.debug_handles and there is no sidecar: unpaired"));
            }
            v.group = group_of(reason, group_name, key);
            return v;
        }
        std::vector<std::string> known;
        std::vector<std::string> unknown;
        for (const auto& id : *handles) {
            (sources.caches.find(id) != nullptr ? known : unknown).push_back(id);
        }
        if (!unknown.empty()) {
            v.diagnostics.push_back(diagnose(ProfileCode::unknown_handle, e,
                                             "args.debug_handles " + id_list(unknown) + " of key " +
                                                 key + (unknown.size() == 1 ? " is" : " are") +
                                                 " in no SDSC file of the caches" +
                                                 (known.empty() ? ": unpaired" : "")));
            if (known.empty()) {
                v.group = group_of(ProfileCode::unknown_handle, group_name, key);
                return v;
            }
        }
        v.bundle = paired_bundle(v, e, key, group_name, Resolution::caches, nullptr, 0, known);
        return v;
    }

    void event(const TraceEvent& e) {
        last_annotated = nullptr;
        ++coverage.trace_events;
        if (!e.object) {
            diagnose_event(ProfileCode::not_an_event, std::numeric_limits<std::uint32_t>::max(), e,
                           "an element of traceEvents that is not an object: ignored");
            return;
        }
        if (e.ph_state != FieldState::ok || e.ph != "X") {
            return; // only complete events carry device time
        }
        if (step_log) {
            step_log->event(e);
        }
        bool kernel_name = e.name_state == FieldState::ok && e.name.starts_with("spyre_kernel");
        if (!kernel_name && e.provenance_key_state == FieldState::absent) {
            return;
        }
        // Events with the same name (step aside), provenance key and handles pair alike.
        key_buf.clear();
        std::string_view name = e.name_state == FieldState::ok ? e.name : std::string_view();
        append_field(key_buf, 'n', without_step(name).value_or(name));
        append_field(key_buf, static_cast<char>('0' + static_cast<int>(e.provenance_key_state)),
                     e.provenance_key);
        key_buf.push_back(static_cast<char>('0' + static_cast<int>(e.debug_handles_state)));
        for (auto h : e.debug_handles) {
            append_field(key_buf, 'h', h);
        }
        auto found = variant_of.find(key_buf);
        // Beyond max_cached_variants (a trace of distinct names), a variant is classified again
        // at each of its events rather than kept.
        std::optional<Variant> uncached;
        if (found == variant_of.end()) {
            if (variant_of.size() < max_cached_variants) {
                auto index = static_cast<std::uint32_t>(variants.size());
                variants.push_back(classify(e));
                found = variant_of.emplace(key_buf, index).first;
            } else {
                uncached = classify(e);
            }
        }
        const Variant& v = uncached ? *uncached : variants[found->second];
        for (auto d : v.diagnostics) {
            ++diagnostics[d].events;
        }
        if (!v.kernel) {
            return;
        }
        const std::uint32_t slot = v.group ? unresolved_bundle(*v.group) : v.bundle;
        const bool ranked = v.group && slot != overflow_group;
        BundleState& bundle = bundles[slot];
        for (auto d : bundle.diagnostics) {
            ++diagnostics[d].events;
        }
        DeviceTime t;
        t.events = 1;
        std::optional<std::uint64_t> ns;
        if (e.dur_state == FieldState::ok) {
            ns = microseconds_to_ns(e.dur);
        }
        if (ns) {
            t.ns = *ns;
            if (bundle.bundle.ideal) {
                ideal_event(t, slot, e);
            }
        } else {
            ++coverage.unmeasured_events;
            std::string what =
                e.dur_state == FieldState::absent ? "a kernel event without dur"
                : e.dur_state == FieldState::wrong_type
                    ? "dur is not a number"
                    : "dur " + std::string(e.dur) + " is negative or longer than 2^62 ns";
            diagnose_event(ProfileCode::bad_duration, slot, e,
                           what + ": the time of these events is not counted");
        }
        if (e.cycles_ts_state == FieldState::ok && e.cycles_ts_count == 5 && e.cycles_ts_counters) {
            if (std::all_of(e.cycles_ts.begin(), e.cycles_ts.end(),
                            [](std::uint32_t c) { return c == 0; })) {
                ++coverage.counters_failed_events;
            } else {
                t.stages = stages_of(e.cycles_ts);
            }
        } else if (e.cycles_ts_state != FieldState::absent) {
            diagnose_event(ProfileCode::bad_cycles_ts, slot, e,
                           "args.cycles_ts is not five integers in [0, 2^32): the stages of "
                           "these events are not counted");
        }
        if (ranked) {
            unresolved_ranking.erase(rank(bundle, slot));
        }
        bundle.bundle.time.add(t);
        if (step_log) {
            step_log->kernel(slot, e, t.ns);
        }
        if (ranked) {
            unresolved_ranking.insert(rank(bundle, slot));
        }
        stages.add(t.stages);
        coverage_ideal.add(t.ideal);
        ++coverage.kernel_events;
        coverage.kernel_ns = saturating_add(coverage.kernel_ns, t.ns);
        if (bundle.bundle.resolution != Resolution::unresolved) {
            ++coverage.resolved_events;
            coverage.resolved_ns = saturating_add(coverage.resolved_ns, t.ns);
            if (annotate) {
                if (e.has_sdscprov_arg) {
                    diagnose_event(ProfileCode::already_annotated, slot, e,
                                   "args.sdscprov is there already: the event is left as it is");
                } else if (e.args_state != FieldState::wrong_type) {
                    last_annotated = &bundle.bundle;
                }
            }
        }
    }

    void ideal_event(DeviceTime& t, std::uint32_t bundle, const TraceEvent& e) {
        const BundleIdeal& ideal = *bundles[bundle].bundle.ideal;
        if (t.ideal.add_event(t.ns, ideal.ns)) {
            diagnose_event(ProfileCode::util_over_100, bundle, e,
                           "the ideal of " + std::to_string(ideal.ns) + " ns (" +
                               std::to_string(ideal.kernel.cycles) + " cycles at " +
                               std::to_string(ideals.core_mhz()) + " MHz, " + ideal.kernel_dir +
                               "/" + std::string(ideal_cycles_path) +
                               ") is longer than the measured dur: over 100% utilization");
        }
    }

    // ---- the report -------------------------------------------------------------------------

    // Each bundle's row label (ProfileBundle::label): the kernel and what tells it apart.
    static void label_rows(std::vector<ProfileBundle>& bundles) {
        auto dir_name = [](std::string_view path) {
            while (path.size() > 1 && path.back() == '/') {
                path.remove_suffix(1);
            }
            auto slash = path.rfind('/');
            return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
        };
        // The event name (the kernel when no kernel name is known) ends with the key already.
        auto by_key = [](const ProfileBundle& b) {
            return b.kernel_names.empty() ? b.kernel_label : b.kernel_label + "@" + b.key;
        };
        std::map<std::string, std::size_t> uses;
        for (auto& b : bundles) {
            if (b.resolution == Resolution::unresolved) {
                b.label = b.kernel_label;
            } else if (b.kernel_dirs.size() == 1) {
                b.label = b.kernel_label + "@" + dir_name(b.kernel_dirs.front());
            } else {
                b.label = by_key(b);
            }
            ++uses[b.label];
        }
        for (auto& b : bundles) {
            if (uses[b.label] < 2) {
                continue;
            }
            if (b.resolution != Resolution::unresolved) {
                b.label = by_key(b); // keys are distinct among paired bundles
            } else if (b.reason) {
                b.label += " [" + std::string(to_string(*b.reason)) + "]";
            }
        }
    }

    static bool heavier(const DeviceTime& a, const DeviceTime& b) {
        return a.ns != b.ns ? a.ns > b.ns : a.events > b.events;
    }

    static void sort_rows(std::vector<ProfileRow>& rows) {
        std::sort(rows.begin(), rows.end(), [](const ProfileRow& a, const ProfileRow& b) {
            if (a.time.ns != b.time.ns || a.time.events != b.time.events) {
                return heavier(a.time, b.time);
            }
            return a.label < b.label;
        });
    }

    ProfileReport finish(const TraceReadResult& read) {
        ProfileReport r;
        r.trace = path;
        r.gzip = read.stats.gzip;
        r.trace_bytes = read.stats.bytes;
        for (const auto& doc : sources.sidecars) {
            r.sidecars.push_back(doc.path);
        }
        r.coverage = coverage;
        r.stages = stages;
        if (overflow_group) {
            ProfileBundle& other = bundles[*overflow_group].bundle;
            other.event_name =
                "(other unpaired events: at least " + std::to_string(overflow_names) + " names)";
            label(other);
        }

        std::vector<std::uint32_t> order(bundles.size());
        for (std::uint32_t i = 0; i < order.size(); ++i) {
            order[i] = i;
        }
        std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
            const auto& a = bundles[x].bundle;
            const auto& b = bundles[y].bundle;
            if (a.time.ns != b.time.ns || a.time.events != b.time.events) {
                return heavier(a.time, b.time);
            }
            return std::tie(a.key, a.event_name, a.reason) <
                   std::tie(b.key, b.event_name, b.reason);
        });
        std::optional<StepLog::Attributed> in_steps;
        if (step_log) {
            in_steps = step_log->attribute(bundles.size());
            r.steps = in_steps->summary;
        }
        std::map<std::string, DebugHandle> handles;
        for (auto i : order) {
            // A group that no event reached (only its variant's diagnostics) is left out.
            if (bundles[i].bundle.time.events == 0) {
                continue;
            }
            if (in_steps) {
                bundles[i].bundle.step_ns = in_steps->ns[i];
                bundles[i].bundle.step_events = in_steps->events[i];
            }
            for (auto& h : bundles[i].handles) {
                handles.emplace(h.id, h);
            }
            r.bundles.push_back(bundles[i].bundle);
        }
        label_rows(r.bundles);
        for (auto& [id, h] : handles) {
            r.handles.push_back(std::move(h));
        }
        std::sort(r.handles.begin(), r.handles.end(),
                  [](const DebugHandle& a, const DebugHandle& b) {
                      return a.id.size() != b.id.size() ? a.id.size() < b.id.size() : a.id < b.id;
                  });

        std::map<SourceLine, ProfileRow> lines;
        std::map<std::string, ProfileRow> ops;
        auto add = [](ProfileRow& row, std::string label, const ProfileBundle& b,
                      std::uint32_t index) {
            if (row.bundles.empty()) {
                row.label = std::move(label);
            }
            row.time.add(b.time);
            row.bundles.push_back(index);
        };
        for (std::uint32_t i = 0; i < r.bundles.size(); ++i) {
            const auto& b = r.bundles[i];
            if (b.resolution != Resolution::unresolved && !b.lines.empty()) {
                for (const auto& l : b.lines) {
                    add(lines[l], l.label(), b, i);
                    lines[l].line = l;
                }
            } else {
                add(lines[{b.root_label, 0}], b.root_label, b, i);
            }
            if (b.resolution != Resolution::unresolved && !b.aten_ops.empty()) {
                for (const auto& op : b.aten_ops) {
                    add(ops[op], op, b, i);
                }
            } else {
                add(ops[b.aten_label], b.aten_label, b, i);
            }
            ProfileRow kernel;
            add(kernel, b.label, b, i);
            r.by_kernel.push_back(std::move(kernel));
            if (b.resolution != Resolution::unresolved) {
                ++r.coverage.paired_bundles;
                if (b.kernel_dirs.empty()) {
                    ++r.coverage.dirless_bundles;
                    r.coverage.dirless_events =
                        saturating_add(r.coverage.dirless_events, b.time.events);
                    r.coverage.dirless_ns = saturating_add(r.coverage.dirless_ns, b.time.ns);
                }
            }
        }
        SourceLines texts;
        for (auto& [line, row] : lines) {
            if (row.line) {
                row.text = texts.line(HandleSource{line.file, line.line, 0, {}, {}});
            }
            r.by_line.push_back(std::move(row));
        }
        for (auto& [op, row] : ops) {
            r.by_aten.push_back(std::move(row));
        }
        sort_rows(r.by_line);
        sort_rows(r.by_aten);
        sort_rows(r.by_kernel);
        r.by_category = category_rows(r.bundles);
        r.ideal = ideals.summary();
        r.ideal.time = coverage_ideal;
        r.problems = ideals.take_problems();

        for (const auto& d : diagnostics) {
            if (d.events > 0) {
                r.diagnostics.push_back(d);
            }
        }
        std::stable_sort(r.diagnostics.begin(), r.diagnostics.end(),
                         [](const ProfileDiagnostic& a, const ProfileDiagnostic& b) {
                             return a.first_event != b.first_event ? a.first_event < b.first_event
                                                                   : a.code < b.code;
                         });
        return r;
    }
};

ProfileBuilder::ProfileBuilder(const PairingSources& sources, std::string trace_path,
                               TraceReader& reader, bool annotate)
    : impl_(std::make_unique<Impl>(sources, std::move(trace_path), reader, annotate)) {}

ProfileBuilder::~ProfileBuilder() = default;

void ProfileBuilder::event(const TraceEvent& e) {
    impl_->event(e);
}

void ProfileBuilder::record_steps() {
    impl_->step_log = std::make_unique<StepLog>();
}

const ProfileBundle* ProfileBuilder::annotated_bundle() const {
    return impl_->last_annotated;
}

ProfileReport ProfileBuilder::finish(const TraceReadResult& read) {
    return impl_->finish(read);
}

} // namespace sdscprov
