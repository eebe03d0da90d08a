// The sidecar files a compile leaves, read by kind: `--origins` takes any of them.
//  - sdscprov's origins map (docs/origins-map.md): per-op FX origins, handles derived;
//  - torch-spyre's spyre_provenance.json: per-op handles, written verbatim;
//  - PyTorch's provenance node mappings or kernel stack traces: kernel level only,
//    used in reports, never to make a handle.
// The kind is told from the document's top-level members, never from the file name.
#pragma once

#include "sdscprov/core/file_size.hpp"
#include "sdscprov/core/problem.hpp"
#include "sdscprov/sidecars/origins.hpp"
#include "sdscprov/sidecars/spyre_provenance.hpp"
#include "sdscprov/sidecars/upstream.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

enum class SidecarKind { origins_map, spyre_provenance, upstream_mappings, unknown };
std::string_view to_string(SidecarKind k);

// The commands that read a compile's sidecars through --origins, and what each takes: the one
// place that says it (the option's help, the refusal of another kind and the readers follow it).
enum class SidecarCommand { annotate, check, explain, profile };
struct SidecarUse {
    SidecarCommand command;
    bool origins_map;       // sdscprov's origins map
    bool spyre_provenance;  // torch-spyre's spyre_provenance.json
    bool upstream_mappings; // PyTorch's provenance mappings (kernel level)
    std::string_view help;  // --origins' help
    // Why a file of a kind the command does not take is refused (empty: it takes every kind).
    std::string_view refused;
};
const SidecarUse& sidecar_use(SidecarCommand command);
bool takes(const SidecarUse& use, SidecarKind kind);

// The kind of a JSON document by its top-level members: `sdscprov_origins` (origins map),
// `schemaVersion` or another of its members (spyre_provenance.json), the node mappings' members,
// an empty object or one whose first value is a list (upstream mappings: node mappings or kernel
// stack traces). `unknown` for any other object, and when the text is not a JSON object.
SidecarKind sidecar_kind(std::string_view json);

struct Sidecars {
    // Handle sources in precedence order: the order of the files on the command line (the first
    // file that gives a kernel wins; a lower one that gives another handle for the same op is
    // reported as conflicting-origins).
    std::vector<OriginsMap> maps;
    std::vector<UpstreamMappings> upstream; // kernel-level mappings (files and spyre projections)
};

// Reads every file, whatever its kind, into the handle sources and the kernel-level mappings, each
// checked whole; problems at path:line:col. A file that is not regular or has more than
// `max_size` bytes (--max-file-size) is refused unread. A file is loaded once: an origins map
// known from its first bytes is read streaming, any other file is loaded whole, its kind told
// from its members and read in place. With `filter`, the maps hold only the kernels it keeps
// (origins.hpp); the kernel-level mappings are kept whole.
Sidecars read_sidecars_of_any_kind(const std::vector<std::string>& paths,
                                   std::vector<Problem>& problems,
                                   std::uint64_t max_size = default_max_file_size,
                                   const KernelFilter* filter = nullptr);

// The file at `path`, read once, when it is torch-spyre's spyre_provenance.json. `kind` is the
// kind its members tell (nullopt when it cannot be loaded: the result's problems say why, for a
// file that is not regular or has more than `max_size` bytes too); a file of another kind is
// left unread, its result empty.
SpyreReadResult read_spyre_sidecar(const std::string& path, std::optional<SidecarKind>& kind,
                                   std::uint64_t max_size = default_max_file_size);

} // namespace sdscprov
