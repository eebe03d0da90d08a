// Internal: reads groups of small files with one system call per group instead of three per file
// (open, read, close), through io_uring. On this project's 2-core VMs a system call's entry and
// exit cost more than the path lookup behind it; the benchmark (README, "Speed") measures it.
//
// Every file of a group gets its own slot: a buffer of `slot_size` bytes plus simdjson's padding,
// and a direct descriptor that never enters the process's descriptor table. A file that does not
// come back whole (any error, or as large as its slot) is left to the caller's ordinary read,
// which reports what went wrong in the usual words; this reader never reports anything itself.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace sdscprov {

class BatchReader {
public:
    // Files per group. Measured on the 10,000-file benchmark cache (2 cores): 4 and 8 are as
    // fast, 16 is 3% and 32 5% slower: the group's bytes no longer stay in the core's cache
    // until they are parsed.
    static constexpr std::size_t slots = 8;
    static constexpr std::size_t slot_size = 64 * 1024; // larger files are left to the caller
    static constexpr std::size_t slot_padding = 64;     // simdjson::SIMDJSON_PADDING (3.0.1)

    // Sets up the ring. When the kernel refuses io_uring (too old, disabled by sysctl, filtered by
    // seccomp), or SDSCPROV_IO_URING=0 is set, available() is false and read() reads nothing.
    BatchReader();
    ~BatchReader();
    BatchReader(const BatchReader&) = delete;
    BatchReader& operator=(const BatchReader&) = delete;

    bool available() const;

    // Reads the files at `paths` (at most `slots`; nullptr: skip that slot) into slots 0...
    // Afterwards bytes(i) is the whole content of paths[i], followed by `slot_padding` readable
    // bytes, or nullopt when the caller must read it itself.
    void read(std::span<const std::string* const> paths);
    std::optional<std::string_view> bytes(std::size_t slot) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace sdscprov
