// Finding where JSON values end without parsing them: the trace reader cuts the traceEvents array
// into batches of whole events with this, 64 bytes at a time (SSE2 where the compiler has it, the
// same logic byte by byte elsewhere). It tracks strings (quotes, backslash escapes) and bracket
// depth only; whatever it is given is validated afterwards by the parser, batch by batch, so
// invalid JSON is never accepted: it can only be cut in other places. Internal to the library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace sdscprov::json_split {

inline constexpr std::size_t block = 64;

// The scan's state between blocks. depth counts the brackets opened since the scan started.
struct Splitter {
    std::uint64_t in_string = 0; // all ones while inside a string at the end of the last block
    std::uint64_t escaped = 0;   // 1 when the last block ended with an unescaped backslash
    std::int64_t depth = 0;

    // Scans `blocks` blocks of 64 bytes at `p`, whose first byte is at offset `base`. Appends to
    // `ends` the offset of each closing bracket (outside strings) that brings the depth back to
    // 0: where a value that started at depth 0 ends. Returns the offset of a closing bracket that
    // takes the depth below 0 (the end of the enclosing container) and stops there; nullopt when
    // every block was scanned.
    std::optional<std::uint64_t> scan(const char* p, std::size_t blocks, std::uint64_t base,
                                      std::vector<std::uint64_t>& ends);

    // The same, byte by byte (the reference the block scan is tested against).
    std::optional<std::uint64_t> scan_bytes(const char* p, std::size_t n, std::uint64_t base,
                                            std::vector<std::uint64_t>& ends);
};

// How many bytes of [p, p + n) are `c`; how many are not UTF-8 continuation bytes (code points,
// for columns).
std::size_t count_byte(const char* p, std::size_t n, char c);
std::size_t count_code_points(const char* p, std::size_t n);

} // namespace sdscprov::json_split
