// libFuzzer target: the SDSC scanner (Scanner::scan_bytes) on arbitrary bytes, under three file
// namings. The properties are PropertyChecks::scan in checks.hpp; scripts/fuzz.sh builds and runs
// it.
#include "checks.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static sdscprov::fuzz::PropertyChecks checks; // one scanner and parser, reused like a worker's
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    sdscprov::fuzz::abort_on_violation([&] { checks.scan(bytes); });
    return 0;
}
