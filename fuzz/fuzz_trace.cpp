// libFuzzer target: the profiler trace reader (TraceReader::read_bytes) in both validation modes,
// chunked and on several threads, and ProfileBuilder with the printers on what it reads. The
// properties are PropertyChecks::trace in checks.hpp; scripts/fuzz.sh builds and runs it.
#include "checks.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static sdscprov::fuzz::PropertyChecks checks;
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    sdscprov::fuzz::abort_on_violation([&] { checks.trace(bytes); });
    return 0;
}
