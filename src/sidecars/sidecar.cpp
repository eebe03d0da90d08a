#include "sdscprov/sidecars/sidecar.hpp"

#include "sdscprov/sidecars/spyre_provenance.hpp"
#include "sidecars/located_json.hpp"
#include "sidecars/padded_readers.hpp"

#include <cerrno>
#include <fcntl.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sdscprov {

namespace {

constexpr SidecarUse sidecar_uses[] = {
    {SidecarCommand::annotate, true, true, true,
     "The compile's sidecar: an origins map (docs/origins-map.md), torch-spyre's "
     "spyre_provenance.json, or PyTorch's provenance node mappings (kernel level, for the "
     "report); may be given more than once, the first file wins",
     ""},
    {SidecarCommand::check, true, true, true,
     "Also check that each handle is the one this sidecar gives (an origins map or "
     "spyre_provenance.json); may be given more than once",
     ""},
    {SidecarCommand::explain, false, true, false,
     "torch-spyre's spyre_provenance.json: which kernel directory a provenance key (KERNEL@KEY) "
     "is; may be given more than once",
     "is not torch-spyre's spyre_provenance.json (explain finds a provenance key's kernel "
     "directory through that sidecar's kernelIdentities)"},
    {SidecarCommand::profile, false, true, false,
     "torch-spyre's spyre_provenance.json of the compile; may be given more than once (the "
     "first that has a key gives it)",
     "is not torch-spyre's spyre_provenance.json (profile pairs trace events through that "
     "sidecar's kernelIdentities)"},
};

} // namespace

const SidecarUse& sidecar_use(SidecarCommand command) {
    return sidecar_uses[static_cast<std::size_t>(command)];
}

bool takes(const SidecarUse& use, SidecarKind kind) {
    switch (kind) {
    case SidecarKind::origins_map:
        return use.origins_map;
    case SidecarKind::spyre_provenance:
        return use.spyre_provenance;
    case SidecarKind::upstream_mappings:
        return use.upstream_mappings;
    case SidecarKind::unknown:
        break;
    }
    return false;
}

std::string_view to_string(SidecarKind k) {
    switch (k) {
    case SidecarKind::origins_map:
        return "origins map";
    case SidecarKind::spyre_provenance:
        return "spyre_provenance.json";
    case SidecarKind::upstream_mappings:
        return "provenance mappings";
    case SidecarKind::unknown:
        return "unknown";
    }
    return "unknown";
}

namespace {

// The kind from the top-level member keys of a JSON object, read without parsing the values: the
// document may be megabytes, and its reader parses it anyway. `object` says whether the text is
// a JSON object at all (an `unknown` object is of no kind we read; anything else is left to the
// origins map reader, which reports why it is not JSON).
SidecarKind kind_of_padded(std::string_view bytes, bool& object) {
    object = false;
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc;
    if (parser.iterate(bytes.data(), bytes.size(), bytes.size() + simdjson::SIMDJSON_PADDING)
            .get(doc) != simdjson::SUCCESS) {
        return SidecarKind::unknown;
    }
    simdjson::ondemand::object obj;
    if (doc.get_object().get(obj) != simdjson::SUCCESS) {
        return SidecarKind::unknown;
    }
    object = true;
    bool first = true;
    bool stack_traces = false; // the first value is a list: kernel name -> stack traces
    SidecarKind kind = SidecarKind::unknown;
    for (auto field : obj) {
        std::string_view key;
        if (field.unescaped_key().get(key) != simdjson::SUCCESS) {
            return SidecarKind::unknown;
        }
        if (key == "sdscprov_origins") {
            return SidecarKind::origins_map;
        }
        if (key == "schemaVersion" || key == "kernelIdentities" || key == "kernelOccurrences" ||
            key == "upstreamProjections" || key == "eventKey") {
            kind = SidecarKind::spyre_provenance;
        } else if (kind == SidecarKind::unknown &&
                   (key == "preToPost" || key == "postToPre" || key == "cppCodeToPost" ||
                    key == "postToCppCode" || key == "version")) {
            kind = SidecarKind::upstream_mappings;
        }
        if (first) {
            simdjson::ondemand::json_type type;
            stack_traces = field.value().type().get(type) == simdjson::SUCCESS &&
                           type == simdjson::ondemand::json_type::array;
            first = false;
        }
    }
    if (kind == SidecarKind::unknown && (first || stack_traces)) {
        kind = SidecarKind::upstream_mappings; // `{}`, or kernel stack traces
    }
    return kind;
}

// Whether `path` is a regular file of at most `max_size` bytes whose first member is
// `sdscprov_origins` (its first bytes are enough): an origins map, whatever follows, so it goes to
// read_origins_map, which reads it streaming, without first loading the whole file to tell its
// kind (with a large map, that load and its index would hold several times the map's size).
bool starts_as_origins_map(const std::string& path, std::uint64_t max_size) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        return false;
    }
    struct stat st {};
    char head[256];
    ssize_t got = -1;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        static_cast<std::uint64_t>(st.st_size) <= max_size) {
        while ((got = ::read(fd, head, sizeof head)) < 0 && errno == EINTR) {
        }
    }
    ::close(fd);
    if (got <= 0) {
        return false;
    }
    std::string_view text(head, static_cast<std::size_t>(got));
    std::size_t i = json_skip_ws(text, 0);
    if (i >= text.size() || text[i] != '{') {
        return false;
    }
    constexpr std::string_view key = "\"sdscprov_origins\"";
    return text.substr(json_skip_ws(text, i + 1), key.size()) == key;
}

// A file that its first bytes do not show to be an origins map: loaded once, its kind told from
// its members, then read in place by that kind's reader.
void read_loaded(const std::string& path, std::uint64_t max_size, const KernelFilter* filter,
                 Sidecars& out, std::vector<Problem>& problems) {
    auto content = detail::load_padded(path, "origins file", max_size, problems);
    if (!content) {
        return;
    }
    const std::string_view bytes(content->data(), content->size());
    bool object = false;
    SidecarKind kind = kind_of_padded(bytes, object);
    if (kind == SidecarKind::unknown && object) {
        problems.push_back(
            make_problem(path, position_at(bytes, bytes.find('{')), ProblemCode::unknown_sidecar,
                         "not a sidecar sdscprov reads: an origins map has 'sdscprov_origins'; "
                         "torch-spyre's "
                         "spyre_provenance.json has 'schemaVersion'; " +
                             std::string(upstream_kinds)));
        return;
    }
    switch (kind) {
    case SidecarKind::spyre_provenance: {
        auto read = detail::parse_spyre_padded(path, bytes);
        problems.insert(problems.end(), read.problems.begin(), read.problems.end());
        if (read.doc) {
            out.maps.push_back(spyre_origins(*read.doc));
            if (filter != nullptr) {
                filter_kernels(out.maps.back(), *filter);
            }
            for (auto& m : spyre_upstream(*read.doc)) {
                out.upstream.push_back(std::move(m));
            }
        }
        return;
    }
    case SidecarKind::upstream_mappings: {
        auto read = detail::parse_upstream_padded(path, bytes);
        problems.insert(problems.end(), read.problems.begin(), read.problems.end());
        if (read.mappings) {
            out.upstream.push_back(std::move(*read.mappings));
        }
        return;
    }
    case SidecarKind::origins_map:
    case SidecarKind::unknown: {
        // The origins map reader says why a text that is no JSON object cannot be read.
        auto read = detail::parse_origins_padded(path, bytes, filter);
        problems.insert(problems.end(), read.problems.begin(), read.problems.end());
        if (read.map) {
            out.maps.push_back(std::move(*read.map));
        }
        return;
    }
    }
}

} // namespace

SidecarKind sidecar_kind(std::string_view json) {
    simdjson::padded_string padded(json);
    bool object = false;
    return kind_of_padded(std::string_view(padded.data(), padded.size()), object);
}

SpyreReadResult read_spyre_sidecar(const std::string& path, std::optional<SidecarKind>& kind,
                                   std::uint64_t max_size) {
    SpyreReadResult result;
    kind.reset();
    auto content = detail::load_padded(path, "sidecar", max_size, result.problems);
    if (!content) {
        return result;
    }
    const std::string_view bytes(content->data(), content->size());
    bool object = false;
    kind = kind_of_padded(bytes, object);
    if (*kind != SidecarKind::spyre_provenance) {
        return result;
    }
    return detail::parse_spyre_padded(path, bytes);
}

Sidecars read_sidecars_of_any_kind(const std::vector<std::string>& paths,
                                   std::vector<Problem>& problems, std::uint64_t max_size,
                                   const KernelFilter* filter) {
    Sidecars out;
    for (const auto& path : paths) {
        if (!starts_as_origins_map(path, max_size)) {
            read_loaded(path, max_size, filter, out, problems);
            continue;
        }
        auto read = read_origins_map(path, max_size, filter);
        problems.insert(problems.end(), read.problems.begin(), read.problems.end());
        if (read.map) {
            out.maps.push_back(std::move(*read.map));
        }
    }
    return out;
}

} // namespace sdscprov
