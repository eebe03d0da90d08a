// libFuzzer target: the origins map reader (parse_origins_map) and the handles derived from a valid
// map. The properties are PropertyChecks::origins in checks.hpp; scripts/fuzz.sh builds and runs
// it.
#include "checks.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static sdscprov::fuzz::PropertyChecks checks; // one scanner and parser, reused like a worker's
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    sdscprov::fuzz::abort_on_violation([&] { checks.origins(bytes); });
    return 0;
}
