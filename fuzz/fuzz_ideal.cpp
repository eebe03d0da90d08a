// libFuzzer target: the ideal-cycles reader (IdealCyclesReader::parse, then ideal_ns).
// The properties are PropertyChecks::ideal in checks.hpp; scripts/fuzz.sh builds and runs it.
#include "checks.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static sdscprov::fuzz::PropertyChecks checks; // one reader and parser, reused like a worker's
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    sdscprov::fuzz::abort_on_violation([&] { checks.ideal(bytes); });
    return 0;
}
