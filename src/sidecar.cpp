#include "sdscprov/sidecar.hpp"

#include "located_json.hpp"
#include "sdscprov/spyre_provenance.hpp"

#include <simdjson.h>

namespace sdscprov {

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

// Top-level member keys of a JSON object, read without parsing the values: the document may be
// megabytes, and the reader parses it anyway. Stops at the first byte it does not expect.
SidecarKind kind_of_padded(std::string_view bytes) {
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
    SidecarKind kind = SidecarKind::upstream_mappings;
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
        }
    }
    return kind;
}

} // namespace

SidecarKind sidecar_kind(std::string_view json) {
    simdjson::padded_string padded(json);
    return kind_of_padded(std::string_view(padded.data(), padded.size()));
}

Sidecars read_sidecars(const std::vector<std::string>& paths, std::vector<Problem>& problems,
                       std::uint64_t max_size) {
    Sidecars out;
    for (const auto& path : paths) {
        auto content = detail::load_padded(path, "origins file", max_size, problems);
        if (!content) {
            continue;
        }
        SidecarKind kind = kind_of_padded(std::string_view(content->data(), content->size()));
        // Each reader loads the file itself, parsing in place: a compile's map is tens of MB,
        // and a second copy of it was the largest part of annotate's peak memory.
        content.reset();
        switch (kind) {
        case SidecarKind::spyre_provenance: {
            auto read = read_spyre_provenance(path, max_size);
            problems.insert(problems.end(), read.problems.begin(), read.problems.end());
            if (read.doc) {
                out.maps.push_back(spyre_origins(*read.doc));
                for (auto& m : spyre_upstream(*read.doc)) {
                    out.upstream.push_back(std::move(m));
                }
            }
            break;
        }
        case SidecarKind::upstream_mappings: {
            auto read = read_upstream_mappings(path, max_size);
            problems.insert(problems.end(), read.problems.begin(), read.problems.end());
            if (read.mappings) {
                out.upstream.push_back(std::move(*read.mappings));
            }
            break;
        }
        case SidecarKind::origins_map:
        case SidecarKind::unknown: {
            // The origins map reader says what is wrong with a file of no known kind.
            auto read = read_origins_map(path, max_size);
            problems.insert(problems.end(), read.problems.begin(), read.problems.end());
            if (read.map) {
                out.maps.push_back(std::move(*read.map));
            }
            break;
        }
        }
    }
    return out;
}

} // namespace sdscprov
