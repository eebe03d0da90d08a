// libFuzzer target: the bundle.mlir reader (parse_bundle).
// The properties are PropertyChecks::bundle in checks.hpp; scripts/fuzz.sh builds and runs it.
#include "checks.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static sdscprov::fuzz::PropertyChecks checks; // one scanner and parser, reused like a worker's
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    sdscprov::fuzz::abort_on_violation([&] { checks.bundle(bytes); });
    return 0;
}
