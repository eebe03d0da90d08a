// Where the trace reader's bytes come from: a file or memory, plain or gzip. gzip is told from
// the first two bytes (1f 8b), never from a name; concatenated gzip members are read one after
// the other, as gzip -d does. Internal to the library.
#pragma once

#include "sdscprov/profile/trace.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace sdscprov::trace_source {

class ByteSource {
public:
    virtual ~ByteSource() = default;
    // Up to `n` bytes into `out`; 0 at the end. On failure returns -1 and error() says why
    // ("the gzip data is truncated", "cannot read: Input/output error").
    virtual std::ptrdiff_t read(char* out, std::size_t n) = 0;
    virtual bool gzip() const { return false; }
    const std::string& error() const { return error_; }

protected:
    std::string error_;
};

// Opens `path` ("-": standard input). nullptr with `error` set when it cannot be opened or is a
// directory.
std::unique_ptr<ByteSource> open_file(const std::string& path, std::size_t chunk_bytes,
                                      std::string& error);

// Reads on from `fd` (a regular file at offset 0), closing it at the end when `owned`.
std::unique_ptr<ByteSource> open_descriptor(int fd, bool owned, std::size_t chunk_bytes);

// Bytes in memory, handed out at most `chunk_bytes` at a time.
std::unique_ptr<ByteSource> open_memory(std::string_view bytes, std::size_t chunk_bytes);

} // namespace sdscprov::trace_source

namespace sdscprov {

// TraceFile's state: the descriptor of a regular file, told by its first bytes (offset 0 again
// after that), or the path alone (standard input, a special file, a directory, an open error).
struct TraceFile::Impl {
    std::string path;
    Kind kind = Kind::unknown;
    int fd = -1; // owned
    std::uint64_t text_size = 0;
    ~Impl();
};

} // namespace sdscprov
