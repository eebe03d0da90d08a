// The checks of meaning on a spyre_provenance.json whose structure is sound: references that
// resolve, no fused_from cycle, bounded expansions, occurrences, projections, counts and status
// that agree with the rest of the document.
#include "sidecars/spyre_meaning.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace sdscprov {

namespace {

class MeaningChecker {
public:
    MeaningChecker(SpyrePositions& at, const std::function<void(TextPosition, std::string)>& report)
        : at_(at), report_(report) {}

    void check(SpyreProvenance& doc) {
        for (const auto& m : at_.id_mismatch) {
            semantic(m.first, m.second);
        }
        check_handles(doc);
        check_identities(doc);
        check_occurrences(doc);
        check_projections(doc);
        check_status(doc);
    }

    void check_handles(const SpyreProvenance& doc) {
        check_fused_references(doc);
        if (no_fused_cycle(doc)) {
            check_expansions(doc);
        }
    }

    // A walk's frame over the fused_from graph. The walks keep their own stacks: a fused_from
    // chain is as deep as the document says, and a hostile one must not overflow the call stack.
    struct Frame {
        const std::string* id;
        const SpyreHandle* handle;
        std::size_t next = 0; // the next constituent to visit
    };

    void check_fused_references(const SpyreProvenance& doc) {
        for (const auto& [id, h] : doc.handles) {
            const auto& positions = at_.fused_positions[id];
            for (std::size_t i = 0; i < h.fused_ids.size(); ++i) {
                if (doc.handles.count(h.fused_ids[i]) == 0) {
                    semantic(positions[i], "handle '" + id + "' is fused from '" + h.fused_ids[i] +
                                               "', which is not in 'handles'");
                }
            }
        }
    }

    // No handle may be fused from itself, directly or not: expanding it would not end. False when
    // one is (reported).
    bool no_fused_cycle(const SpyreProvenance& doc) {
        std::map<std::string, int> state; // 1: on the path, 2: done
        std::vector<Frame> path;
        for (const auto& [root, h] : doc.handles) {
            if (state[root] != 0) {
                continue;
            }
            state[root] = 1;
            path.push_back({&root, &h});
            while (!path.empty()) {
                Frame& top = path.back();
                if (top.next == top.handle->fused_ids.size()) {
                    state[*top.id] = 2;
                    path.pop_back();
                    continue;
                }
                const std::string& child = top.handle->fused_ids[top.next++];
                auto it = doc.handles.find(child);
                if (it == doc.handles.end()) {
                    continue; // reported by check_fused_references
                }
                int& s = state[child];
                if (s == 1) {
                    semantic(it->second.pos,
                             "handle '" + child + "' is fused, directly or not, from itself");
                    return false;
                }
                if (s == 0) {
                    s = 1;
                    path.push_back({&it->first, &it->second});
                }
            }
        }
        return true;
    }

    // No handle may expand to more handles than a caller can build: constituents shared in the
    // fused_from DAG are repeated in the nested handles, so a few kilobytes could expand to 2^N.
    // Nor nest deeper than an SDSC file can hold (debug_handle.hpp): found here, a chain a few
    // hundred handles deep stops the run before its first write, not halfway. Sizes and nestings
    // are computed constituents first (the graph has no cycle now), sizes capped past the limit.
    void check_expansions(const SpyreProvenance& doc) {
        std::vector<Frame> path;
        struct Expansion {
            std::uint64_t size = 1;
            std::size_t nesting = 0;
        };
        std::map<std::string, Expansion> expansions;
        for (const auto& [root, h] : doc.handles) {
            if (expansions.count(root) != 0) {
                continue;
            }
            path.push_back({&root, &h});
            while (!path.empty()) {
                Frame& top = path.back();
                if (top.next < top.handle->fused_ids.size()) {
                    const std::string& child = top.handle->fused_ids[top.next++];
                    auto it = doc.handles.find(child);
                    if (it != doc.handles.end() && expansions.count(child) == 0) {
                        path.push_back({&it->first, &it->second});
                    }
                    continue;
                }
                Expansion e;
                e.nesting = own_nesting(top.handle->handle);
                for (const auto& child : top.handle->fused_ids) {
                    auto known = expansions.find(child);
                    e.size = std::min(e.size + (known == expansions.end() ? 1 : known->second.size),
                                      max_expanded_handles + 1);
                    if (known != expansions.end()) {
                        e.nesting = std::max(e.nesting, known->second.nesting + 2);
                    }
                }
                expansions[*top.id] = e;
                path.pop_back();
            }
            const Expansion& e = expansions[root];
            if (e.size > max_expanded_handles) {
                semantic(h.pos, "handle '" + root + "' expands through fused_from to more than " +
                                    std::to_string(max_expanded_handles) + " nested handles");
                return;
            }
            if (e.nesting > max_handle_nesting) {
                semantic(h.pos, "handle '" + root + "' nests " + std::to_string(e.nesting) +
                                    " levels deep through fused_from: an SDSC file holds at most " +
                                    std::to_string(max_handle_nesting) + " (JSON nests at most " +
                                    std::to_string(max_json_depth) +
                                    " levels, and the handle is 2 levels in)");
                return;
            }
        }
    }

    // The ATen ops reachable from a handle through fused_from. `seen`: the handles visited, each
    // once (a shared constituent would otherwise be walked once per path to it: 2^N walks).
    void aten_ops_of(const SpyreProvenance& doc, const std::string& id, std::set<std::string>& out,
                     std::set<std::string>& seen) const {
        std::vector<const std::string*> pending = {&id};
        while (!pending.empty()) {
            const std::string& next = *pending.back();
            pending.pop_back();
            auto it = doc.handles.find(next);
            if (it == doc.handles.end() || !seen.insert(next).second) {
                continue;
            }
            if (it->second.handle.aten_op) {
                out.insert(*it->second.handle.aten_op);
            }
            for (const auto& child : it->second.fused_ids) {
                pending.push_back(&child);
            }
        }
    }

    void check_identities(const SpyreProvenance& doc) {
        for (const auto& [key, identity] : doc.identities) {
            std::string where = "kernel identity '" + key + "'";
            std::vector<std::string> first_seen;
            for (const auto& b : identity.bindings) {
                if (doc.handles.count(b.handle_id) == 0) {
                    semantic(b.pos, where + " binds handle '" + b.handle_id +
                                        "', which is not in 'handles'");
                }
                if (std::find(first_seen.begin(), first_seen.end(), b.handle_id) ==
                    first_seen.end()) {
                    first_seen.push_back(b.handle_id);
                }
            }
            for (const auto& id : identity.direct_handle_ids) {
                if (doc.handles.count(id) == 0) {
                    semantic(identity.pos, where + " lists direct handle '" + id +
                                               "', which is not in 'handles'");
                }
            }
            if (identity.direct_handle_ids != first_seen) {
                semantic(identity.pos,
                         where + ": directHandleIds is not the handles of specHandleBindings in "
                                 "order of first appearance");
            }
            std::set<std::string> aten;
            std::set<std::string> seen;
            for (const auto& id : identity.direct_handle_ids) {
                aten_ops_of(doc, id, aten, seen);
            }
            if (std::vector<std::string>(aten.begin(), aten.end()) != identity.aten_ops) {
                semantic(identity.pos, where + ": atenOps is not the sorted ATen ops reachable "
                                               "from its direct handles");
            }
            if (identity.event_name_base.size() < 16 ||
                identity.event_name_base.substr(identity.event_name_base.size() - 16) != key) {
                semantic(identity.pos, where + ": eventNameBase does not end with its key");
            }
            std::set<std::vector<std::uint64_t>> paths;
            for (const auto& b : identity.bindings) {
                if (!paths.insert(b.spec_path).second) {
                    semantic(b.pos, where + " binds two handles at one spec path");
                }
            }
        }
    }

    void check_occurrences(const SpyreProvenance& doc) {
        for (const auto& [key, occ] : doc.occurrences) {
            std::string where = "kernel occurrence '" + key.substr(0, 12) + "...'";
            if (doc.identities.count(occ.identity_key) == 0) {
                semantic(occ.pos, where + " names identity '" + occ.identity_key +
                                      "', which is not in 'kernelIdentities'");
            }
            auto p = doc.projections.find(occ.compile_id);
            if (p == doc.projections.end()) {
                semantic(occ.pos, where + " names compile '" + occ.compile_id.substr(0, 12) +
                                      "...', which is not in 'upstreamProjections'");
            } else if (std::find(p->second.kernels.begin(), p->second.kernels.end(),
                                 std::make_pair(occ.kernel_name, occ.identity_key)) ==
                       p->second.kernels.end()) {
                semantic(occ.pos, where + " (" + occ.kernel_name +
                                      ") is not among the kernels of its compile");
            }
        }
        for (std::size_t i = 0; i < at_.registrations.size(); ++i) {
            const auto& r = at_.registrations[i];
            const std::string& kernel = at_.registration_owner[i]->kernel_name;
            if (r.alias != kernel + ":" + std::to_string(r.ordinal)) {
                semantic(r.pos, "registration alias '" + r.alias + "' is not '" + kernel + ":" +
                                    std::to_string(r.ordinal) + "'");
            }
        }
    }

    void check_projections(const SpyreProvenance& doc) {
        std::int64_t uncollected = 0;
        std::int64_t failed = 0;
        for (const auto& [compile, p] : doc.projections) {
            for (std::size_t k = 0; k < p.kernels.size(); ++k) {
                const auto& [name, identity] = p.kernels[k];
                TextPosition pos = p.kernel_pos[k];
                // Init-captures: clang before 16 cannot capture structured bindings.
                bool found = std::any_of(
                    doc.occurrences.begin(), doc.occurrences.end(),
                    [&compile = compile, &name = name, &identity = identity](const auto& o) {
                        return o.second.compile_id == compile && o.second.kernel_name == name &&
                               o.second.identity_key == identity;
                    });
                if (!found) {
                    semantic(pos, "kernel '" + name + "' of compile '" + compile.substr(0, 12) +
                                      "...' has no occurrence in 'kernelOccurrences'");
                }
            }
            uncollected += static_cast<std::int64_t>(p.uncollected.size());
            failed += p.failed ? 1 : 0;
            check_reverse(p.mappings.pre_to_post, p.mappings.post_to_pre, p.pos,
                          "preToPost and postToPre");
            check_reverse(p.mappings.code_to_post, p.mappings.post_to_code, p.pos,
                          "cppCodeToPost and postToCppCode");
        }
        if (!doc.early_draft) {
            check_count(doc, "collection-failure", uncollected);
            check_count(doc, "upstream-projection-failure", failed);
        }
    }

    // Two maps that must be each other's reverse, as sets of pairs.
    void check_reverse(const NameLists& forward, const NameLists& backward, TextPosition pos,
                       std::string_view what) {
        std::set<std::pair<std::string, std::string>> a;
        std::set<std::pair<std::string, std::string>> b;
        for (const auto& [from, tos] : forward) {
            for (const auto& to : tos) {
                a.insert({from, to});
            }
        }
        for (const auto& [from, tos] : backward) {
            for (const auto& to : tos) {
                b.insert({to, from});
            }
        }
        if (a != b) {
            semantic(pos, std::string(what) + " are not each other's reverse");
        }
    }

    void check_count(const SpyreProvenance& doc, const std::string& name, std::int64_t expected) {
        auto it = doc.diagnostics.find(name);
        std::int64_t stored = it == doc.diagnostics.end() ? 0 : it->second;
        if (stored != expected) {
            semantic(at_.diagnostics_pos,
                     "diagnostics '" + name + "' is " + std::to_string(stored) +
                         " but the projections count " + std::to_string(expected));
        }
    }

    void check_status(const SpyreProvenance& doc) {
        bool all_ok = std::all_of(doc.projections.begin(), doc.projections.end(),
                                  [](const auto& p) { return p.second.upstream_join == "ok"; });
        std::string expected = doc.diagnostics.empty() && all_ok ? "complete" : "partial";
        if (doc.status != expected) {
            semantic(at_.status_pos, "status is '" + doc.status + "' but must be '" + expected +
                                         "' (complete only when 'diagnostics' is empty and every "
                                         "upstream projection is ok)");
        }
    }

private:
    void semantic(TextPosition pos, std::string message) { report_(pos, std::move(message)); }

    SpyrePositions& at_;
    const std::function<void(TextPosition, std::string)>& report_;
};

} // namespace

void check_spyre_meaning(SpyreProvenance& doc, SpyrePositions& at,
                         const std::function<void(TextPosition, std::string)>& semantic) {
    MeaningChecker(at, semantic).check(doc);
}

} // namespace sdscprov
