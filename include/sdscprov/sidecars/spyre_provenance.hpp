// torch-spyre's `spyre_provenance.json` (schema v1 and its early draft): the
// handles of a compile, which OpSpec of which kernel holds which handle, and a filtered copy of
// the upstream mappings per compile. Read the way torch-spyre's own reader does: `schemaVersion`
// first (unsupported-schema-version), then the schema's structure (schema-validation-failure),
// then meaning (semantic-validation-failure), each problem at path:line:col.
#pragma once

#include "sdscprov/handle/debug_handle.hpp"
#include "sdscprov/core/file_size.hpp"
#include "sdscprov/sidecars/origins.hpp"
#include "sdscprov/core/problem.hpp"
#include "sdscprov/sidecars/upstream.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

struct SpyreHandle {
    DebugHandle handle;                 // fused_from empty: the constituents are by id below
    std::vector<std::string> fused_ids; // `fused_from` as stored: constituent handle ids
    TextPosition pos;
};

struct SpyreBinding {
    std::vector<std::uint64_t> spec_path; // position in the OpSpec/LoopSpec tree
    std::string handle_id;
    TextPosition pos;
};

struct SpyreIdentity {
    std::vector<std::string> direct_handle_ids;
    std::vector<SpyreBinding> bindings; // depth-first OpSpec order
    std::vector<std::string> aten_ops;
    std::string event_name_base;
    TextPosition pos;
};

struct SpyreOccurrence {
    std::string identity_key;
    std::string compile_id;
    std::string kernel_name;          // compilerKernelName, "sdsc_..."
    std::vector<std::string> aliases; // registrations: "<kernel>:<ordinal>"
    TextPosition pos;
};

struct SpyreProjection {
    std::vector<std::pair<std::string, std::string>> kernels; // (compilerKernelName, identityKey)
    std::vector<TextPosition> kernel_pos;                     // where each is in the file
    std::vector<std::string> uncollected;                     // uncollectedKernels (v1)
    bool failed = false;                                      // upstreamProjectionFailed (v1)
    std::string upstream_join; // ok | partial | unavailable-provenance-level-0 | ...
    UpstreamMappings mappings; // the filtered upstream mappings, stack traces by alias
    TextPosition pos;
};

struct SpyreProvenance {
    std::string path;
    bool early_draft = false; // projections without uncollectedKernels/upstreamProjectionFailed
    std::string status;       // complete | partial
    std::map<std::string, std::int64_t> diagnostics;
    std::map<std::string, SpyreHandle> handles;
    std::map<std::string, SpyreIdentity> identities;
    std::map<std::string, SpyreOccurrence> occurrences;
    std::map<std::string, SpyreProjection> projections;
};

struct SpyreReadResult {
    std::optional<SpyreProvenance> doc; // set when the file passed all three checks
    std::vector<Problem> problems;
};

SpyreReadResult read_spyre_provenance(const std::string& path,
                                      std::uint64_t max_size = default_max_file_size);
SpyreReadResult parse_spyre_provenance(const std::string& path, std::string_view bytes);

// Handle `id` with its fused_from ids expanded into nested handles, as SDSC files hold them. The
// document must have passed the reader (every id resolves, no cycles).
DebugHandle expand_handle(const SpyreProvenance& doc, const std::string& id);

// The document as origins map entries: one kernel per (compilerKernelName, identity), its ops the
// identity's spec bindings in order, each with its handle expanded and its spec path; the
// kernel's `identity` names the identity. Handles are taken verbatim (their stored ids).
OriginsMap spyre_origins(const SpyreProvenance& doc);

// The upstream mappings of every compile in the document, for kernel-level reports.
std::vector<UpstreamMappings> spyre_upstream(const SpyreProvenance& doc);

} // namespace sdscprov
