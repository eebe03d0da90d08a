// libFuzzer target: the spyre_provenance.json reader (parse_spyre_provenance), what a document it
// accepts converts to (expand_handle, spyre_origins, spyre_upstream), and sidecar_kind on the same
// bytes. The properties are PropertyChecks::spyre in checks.hpp; scripts/fuzz.sh builds and runs
// it.
#include "checks.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static sdscprov::fuzz::PropertyChecks checks;
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    sdscprov::fuzz::abort_on_violation([&] { checks.spyre(bytes); });
    return 0;
}
