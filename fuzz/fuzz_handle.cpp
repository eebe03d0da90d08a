// libFuzzer target: the debug_handle_ reader (read_debug_handle) on any JSON value, and the
// writer's rendering of what it reads. The properties are PropertyChecks::handle in checks.hpp;
// scripts/fuzz.sh builds and runs it.
#include "checks.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static sdscprov::fuzz::PropertyChecks checks; // one scanner and parser, reused like a worker's
    std::string_view bytes(reinterpret_cast<const char*>(data), size);
    sdscprov::fuzz::abort_on_violation([&] { checks.handle(bytes); });
    return 0;
}
