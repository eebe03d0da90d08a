// Internal: profile's pairing of kernel events with their provenance (profile.cpp; the rules are
// profile.hpp's): events that pair alike (same name without #<step>, provenance key and
// handles) are one variant, classified once: a paired bundle, or an unresolved group.
#pragma once

#include "profile/aggregation.hpp"
#include "profile/diagnostic_log.hpp"
#include "sdscprov/join/bundle_dirs.hpp"
#include "sdscprov/profile/profile.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sdscprov {

struct Variant {
    std::uint32_t bundle = 0;           // a paired bundle, unless `group`
    std::optional<UnpairedGroup> group; // unpaired: the group, looked up at each event (evictions)
    bool kernel = false;
    std::vector<std::uint32_t> diagnostics; // of the log, counted at each of its events
};

class Pairing {
public:
    // Variants kept for reuse; beyond it a variant is classified again at each of its events (a
    // trace of distinct names).
    static constexpr std::size_t max_cached_variants = std::size_t{1} << 16;

    Pairing(const PairingSources& sources, Aggregation& aggregation, DiagnosticLog& log);

    // The variant of a complete event: the one kept, or one classified into `uncached`.
    const Variant& variant(const TraceEvent& e, std::optional<Variant>& uncached);

private:
    struct Names; // what an event's name and args say of its key
    Variant classify(const TraceEvent& e);
    std::optional<std::string_view> native_key(Variant& v, const TraceEvent& e);
    std::optional<std::vector<std::string>> native_handles(Variant& v, const TraceEvent& e);
    bool by_sidecar(Variant& v, const TraceEvent& e, const Names& n,
                    const std::optional<std::vector<std::string>>& handles);
    void by_caches(Variant& v, const TraceEvent& e, const Names& n,
                   const std::optional<std::vector<std::string>>& handles);
    std::uint32_t paired_bundle(Variant& v, const TraceEvent& e, const Names& n, Resolution how,
                                const SpyreProvenance* doc, std::size_t doc_index,
                                const std::vector<std::string>& ids);
    std::optional<std::string> dir_prefix(Variant& v, const TraceEvent& e);
    void kernel_dirs(BundleState& state, const TraceEvent& e, const SpyreProvenance* doc,
                     const BundleDirs& where);
    void ideal(BundleState& state, const TraceEvent& e);

    const PairingSources& sources_;
    Aggregation& aggregation_;
    DiagnosticLog& log_;
    HandleHolders holders_;
    NamedDirs named_;
    std::vector<std::multimap<std::string, const SpyreOccurrence*>> occurrences_; // per sidecar
    // By the key's bytes and their hash (worked out once, by the reader's parsing thread).
    struct VariantKey {
        std::string bytes;
        std::uint64_t hash;
    };
    struct VariantKeyRef {
        std::string_view bytes;
        std::uint64_t hash;
    };
    struct VariantKeyHash {
        using is_transparent = void;
        std::size_t operator()(const VariantKey& k) const { return k.hash; }
        std::size_t operator()(const VariantKeyRef& k) const { return k.hash; }
    };
    struct VariantKeyEqual {
        using is_transparent = void;
        template <class A, class B> bool operator()(const A& a, const B& b) const {
            return a.hash == b.hash && std::string_view(a.bytes) == std::string_view(b.bytes);
        }
    };
    std::unordered_map<VariantKey, std::uint32_t, VariantKeyHash, VariantKeyEqual> variant_of_;
    std::vector<Variant> variants_;
    std::unordered_map<std::string, std::uint32_t> resolved_by_key_;
    std::string key_buf_;
};

} // namespace sdscprov
