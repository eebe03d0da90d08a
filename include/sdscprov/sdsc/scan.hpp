// Scan: one SDSC file's bytes in, a ScanResult out. The document is fully validated (simdjson
// DOM); the result keeps byte offsets into the original bytes so that the writer can change the
// `debug_handle_` member and nothing else.
#pragma once

#include "sdscprov/handle/debug_handle.hpp"
#include "sdscprov/walk/discover.hpp"
#include "sdscprov/core/file_size.hpp"
#include "sdscprov/core/problem.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct stat;

namespace sdscprov {

enum class HandleState { absent, null, populated, malformed };
std::string_view to_string(HandleState s);

enum class FileStatus {
    ok,           // an SDSC document
    unreadable,   // could not be read (I/O error, not a regular file, too large)
    invalid_json, // not valid JSON
    not_sdsc,     // valid JSON, not an SDSC document
};
std::string_view to_string(FileStatus s);

// The members the coverage column looks for at any depth (docs/formats.md).
enum class ProvenanceMember : std::uint8_t {
    stack_trace,
    original_aten,
    from_node,
    origins,
    origin_node,
    traceback,
    provenance,
    debug_handle,
};
inline constexpr std::size_t provenance_member_count = 8;
std::string_view to_string(ProvenanceMember m); // the member's name in the file

struct ByteSpan {
    std::size_t begin = 0;
    std::size_t end = 0; // one past the last byte
};

// Identity of the bytes that were scanned, to detect a file changed behind our back.
struct FileStamp {
    std::uint64_t device = 0;
    std::uint64_t inode = 0;
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::int64_t ctime_ns = 0; // moves with any change of mode, owner or extended attributes
    std::uint32_t mode = 0;
    std::uint32_t uid = 0;
    std::uint32_t gid = 0;
    std::uint32_t links = 0; // names of the file (hard links)
    bool operator==(const FileStamp&) const = default;
};

// The stamp of what fstat/lstat gave.
FileStamp file_stamp(const struct stat& st);

// A debug_handle_ member below the op object's own members (in one of their values, at any
// depth). It is not the op's handle (handle_state, check and annotate know only that one; the
// profile's handle index pairs events with nested ones too), but it holds what a handle holds
// (source paths), the coverage column counts it, and strip must leave none behind. Only the
// outermost ones are listed: a handle inside one goes with it.
struct NestedHandle {
    ByteSpan member;             // its key's opening quote to the end of its value
    std::size_t value = 0;       // its value's first byte
    std::size_t object_open = 0; // the '{' of the object that holds it
    TextPosition pos;            // line:col of its key
    bool null = false;           // its value is null
    bool populated = false;      // its value is populated (as the coverage column counts)
    std::string op_member;       // the op's member it is in (as written, between the quotes)
};

struct ScanResult {
    SdscFile file;
    FileStatus status = FileStatus::unreadable;
    FileStamp stamp;

    // The op object (status ok).
    std::string op_key;                 // "<N>_<opfunc>"
    std::optional<std::uint64_t> index; // N from the op key
    std::string opfunc;                 // opfunc from the op key
    HandleState handle_state = HandleState::absent;
    std::optional<DebugHandle> handle; // when populated
    std::uint8_t provenance = 0;       // bit i set: ProvenanceMember i populated somewhere

    // Layout, offsets into the file's bytes (a leading byte order mark included).
    std::size_t bom = 0;                   // 3 when the file starts with a UTF-8 BOM
    std::size_t op_key_offset = 0;         // the op key's opening quote
    std::size_t op_object_open = 0;        // the op object's '{'
    std::optional<ByteSpan> handle_member; // "debug_handle_" key's quote to the end of its value
    std::size_t handle_member_index = 0;   // 0 when the handle is the first member
    TextPosition op_key_pos;               // line:col of the op key
    TextPosition handle_pos;               // line:col of the handle's key (when present)
    std::vector<NestedHandle> nested_handles; // in text order; each also a nested-handle problem

    std::vector<Problem> problems;

    bool has(ProvenanceMember m) const { return (provenance >> static_cast<unsigned>(m)) & 1U; }
};

struct ScanOptions {
    std::uint64_t max_file_size = default_max_file_size; // larger files are not read
    // fstat every file before reading it, filling ScanResult::stamp (annotate's change check).
    // Off, a file discovery saw as regular is read without it (stamp: size only) unless it turns
    // out larger than the read buffer.
    bool fstat_before_read = true;
};

// Scans files one after the other with one simdjson parser and one read buffer, both reused.
// Not thread-safe: use one Scanner per thread.
class Scanner {
public:
    explicit Scanner(ScanOptions options = {});
    ~Scanner();
    Scanner(const Scanner&) = delete;
    Scanner& operator=(const Scanner&) = delete;

    // Reads and scans a file. The bytes stay available through bytes() until the next call.
    ScanResult scan_file(const SdscFile& file);

    // Opens `files` ahead in groups, one system call per group to open them and one to close
    // them (io_uring); each is then read (and, with ScanOptions::fstat_before_read, fstat'ed
    // through its descriptor) as usual. scan_file() takes each file from there as long as it is
    // asked for them in this order; any other file, or one that could not be opened there, is
    // opened the ordinary way, with the same results. The pointed-to files must stay in place until
    // scanned. A no-op where io_uring is not available.
    void prefetch(std::vector<const SdscFile*> files);

    // Scans bytes already in memory (tests, fuzzers, the writer's read-back check).
    ScanResult scan_bytes(const SdscFile& file, std::string_view bytes);

    // The bytes of the file last read by scan_file().
    std::string_view bytes() const;

    // A descriptor of the file scan_file() read last, while it is still open because it was
    // opened ahead (prefetch()); -1 otherwise. Owned by the scanner, read-only, and valid until
    // the next scan_file() or prefetch(): for what else is wanted of the very file that was read
    // (its extended attributes, when annotate replaces it).
    int descriptor() const;

    const ScanOptions& options() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace sdscprov
