// Internal: each kind's reader over a sidecar already loaded whole (located_json.hpp's
// load_padded: followed by simdjson::SIMDJSON_PADDING readable bytes), parsed in place, so that a
// file whose kind was told from its bytes is not loaded again to be read.
#pragma once

#include "sdscprov/sidecars/origins.hpp"
#include "sdscprov/sidecars/spyre_provenance.hpp"
#include "sdscprov/sidecars/upstream.hpp"

#include <string>
#include <string_view>

namespace sdscprov::detail {

OriginsReadResult parse_origins_padded(const std::string& path, std::string_view bytes,
                                       const KernelFilter* filter = nullptr);
SpyreReadResult parse_spyre_padded(const std::string& path, std::string_view bytes);
UpstreamReadResult parse_upstream_padded(const std::string& path, std::string_view bytes);

} // namespace sdscprov::detail
