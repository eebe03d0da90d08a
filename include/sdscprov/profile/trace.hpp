// Profiler traces: a streaming reader of the Chrome trace that `torch.profiler` writes
// (`prof.export_chrome_trace`, or `.json.gz` from `tensorboard_trace_handler`). The trace is read
// in chunks, plain or gzip (told from its first bytes, not its name), and each element of
// `traceEvents` is handed over on its own: memory is bounded by the largest event, never by the
// trace's size. Every byte is validated as JSON (RFC 8259, with simdjson's limits): a truncated or
// garbled trace is an error at path:line:col of the (decompressed) text. docs/profile.md says
// what the reader accepts.
#pragma once

#include "sdscprov/core/problem.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

// How one member of an event was found.
enum class FieldState : std::uint8_t {
    absent,
    ok,         // present, of the expected JSON type
    wrong_type, // present, of another type (e.g. a string where a number belongs)
};

// What an event's cat is to the timeline (unknown: not worked out yet; cat_kind(), derived).
enum class CatKind : std::uint8_t {
    unknown,
    other,           // absent, not a string, or none of these
    kernel,          // "kernel"
    transfer,        // "gpu_memcpy", "gpu_memset"
    runtime,         // holds "runtime" (e.g. "cuda_runtime"), or "cuda_driver"
    user_annotation, // "user_annotation"
    cpu_op,          // "cpu_op"
};

// The members of one trace event that profile reads, as views into the reader's buffers: valid
// during TraceHandler::event() only. Other members are validated and skipped. When a member is
// given twice, the last one counts (as with Python's json module).
struct TraceEvent {
    // The states (1 byte each) come first, together, then the texts, then the numbers: no
    // padding between them (the reader hands over about a million of these per 300 MB).
    bool object = false; // false: an element that is not an object (nothing else is set)
    bool empty = true;   // the object has no members
    FieldState ph_state = FieldState::absent;
    FieldState name_state = FieldState::absent;
    FieldState dur_state = FieldState::absent;
    FieldState ts_state = FieldState::absent;
    FieldState cat_state = FieldState::absent;
    FieldState pid_state = FieldState::absent;
    FieldState args_state = FieldState::absent;
    bool args_empty = true;
    FieldState provenance_key_state = FieldState::absent;
    FieldState dir_prefix_state = FieldState::absent;
    FieldState debug_handles_state = FieldState::absent;
    FieldState cycles_ts_state = FieldState::absent;
    bool cycles_ts_counters = true;
    bool has_sdscprov_arg = false; // args.sdscprov (a trace annotated before)
    FieldState correlation_state = FieldState::absent;
    FieldState device_state = FieldState::absent;
    FieldState queued_state = FieldState::absent;
    FieldState submitted_state = FieldState::absent;
    FieldState bytes_state = FieldState::absent;
    // Worked out by the reader on the thread that parsed the event (so that the one thread that
    // hands the events over does less), each false (unknown) when not: dur and ts in ns (the form
    // profilers write; event_dur_ns() and event_ts_ns() convert the text otherwise), the hash of
    // what a kernel event pairs by (Pairing), and what cat is to the timeline (cat_kind, compared
    // once instead of by each user). Their users work them out themselves when not given.
    bool dur_ns_known = false;
    bool ts_ns_known = false;
    bool variant_hash_known = false;
    // The timeline's args that are whole numbers (a number's text of digits alone), as the
    // numbers below: args_number bits. Their texts are not kept (an event is read by the
    // timeline only as a number).
    std::uint8_t args_numbers = 0;
    CatKind cat_kind = CatKind::unknown; // what cat is to the timeline

    std::uint64_t index = 0;  // position in traceEvents, 0-based
    std::uint64_t offset = 0; // byte offset of the element's first byte in the trace's text
    std::uint64_t end = 0;    // byte offset of the object's closing '}'

    std::string_view ph;
    std::string_view name;
    std::string_view dur; // the number's JSON text, e.g. "12.345" (ok)
    std::string_view ts;  // likewise
    std::string_view cat;
    // pid: a number (its JSON text) or a string (its value): ok either way.
    std::string_view pid;

    // args: an object (ok, args_state), with the offset of its '{' and whether it has no members.
    std::uint64_t args_open = 0;
    std::string_view provenance_key; // args.provenance_key: a string
    // args.sdsc_bundle_dir_prefix: a string (the `<8 hex>` prefix of the bundle's directory).
    std::string_view dir_prefix;
    // args.debug_handles: an array (ok) whose elements are all strings (else wrong_type).
    std::span<const std::string_view> debug_handles; // the string elements, in order
    // args.cycles_ts: an array (ok); how many elements, whether every one is an integer in
    // [0, 2^32) (cycles_ts_counters), and the first five of those.
    std::size_t cycles_ts_count = 0;
    std::array<std::uint32_t, 5> cycles_ts{};
    // The timeline's args (timeline.hpp): args.device, a number's JSON text when ok; and (as
    // whole numbers below, with their states above) args.correlation (a runtime event and the
    // device work it launched), args.queued and args.submitted (the runtime's own clock, ns),
    // args.bytes (of a transfer).
    std::string_view device;

    std::uint64_t dur_ns = 0;
    std::uint64_t ts_ns = 0;
    std::uint64_t variant_hash = 0;
    std::string_view variant_key; // the bytes hashed (the reader's copy)
    std::uint64_t correlation_n = 0;
    std::uint64_t queued_n = 0;
    std::uint64_t submitted_n = 0;
    std::uint64_t bytes_n = 0;
};

// TraceEvent::args_numbers: which of correlation_n, queued_n, submitted_n and bytes_n are given.
enum ArgsNumber : std::uint8_t {
    correlation_number = 1,
    queued_number = 2,
    submitted_number = 4,
    bytes_number = 8,
};

// Receives the trace as it is read.
class TraceHandler {
public:
    virtual ~TraceHandler() = default;
    // Each element of traceEvents, in order.
    virtual void event(const TraceEvent& e) = 0;
    // Every byte of the trace's text, in order, each exactly once; bytes holding an event are
    // passed only after event() was called for it.
    virtual void bytes(std::string_view text) { (void)text; }
    // The byte offset of traceEvents' closing ']', once every event was given to event() and
    // before the bytes holding it are passed to bytes(). Not called when the array is not read
    // to its end.
    virtual void events_end(std::uint64_t offset) { (void)offset; }
};

struct TraceStats {
    std::uint64_t bytes = 0;    // of the trace's text (decompressed)
    std::uint64_t elements = 0; // of traceEvents
    bool gzip = false;
    bool bare_array = false; // the whole document is the array (Chrome's JSON Array Format)
    // distributedInfo.rank (torch.profiler writes it for a distributed run): an integer, else
    // nullopt.
    std::optional<std::int64_t> distributed_rank;
};

// `error`: a fatal problem, nothing after it was read: parse-error (not JSON), not-a-trace (JSON,
// but no traceEvents array), value-too-large, bad-gzip or io-error, at its line:col (0:0 when
// there is no position, e.g. the file cannot be opened), its path the trace's (empty for a trace
// read from memory); `error_offset` is its byte offset in the trace's text.
struct TraceReadResult {
    TraceStats stats;
    std::optional<Problem> error;
    std::uint64_t error_offset = 0;
};

struct TraceReaderOptions {
    std::size_t chunk_bytes = std::size_t{1} << 20; // read (or inflated) at a time
    // A single event, or a member of the document other than traceEvents, larger than this is
    // refused (value-too-large): it bounds the memory a hostile trace can ask for.
    std::size_t max_value_bytes = std::size_t{32} << 20;
    // Threads parsing batches of events (the reading thread is one of them); 0: one per core, at
    // most 8. Events are handed over in order, from the reading thread, whatever the number.
    unsigned threads = 0;
};

// A trace given by path, opened once: what its first bytes say it is, and the open file the
// reader goes on from (the bytes read to tell are read again from the start, not twice from
// disk). A regular file is opened at once and its first MiB read: gzip (1f 8b), or JSON whose
// first token is '[' (Chrome's JSON Array Format) or whose first MiB names "traceEvents" is a
// trace; any other regular file is not. "-" (standard input) is a trace, not read ahead. A
// directory is `directory`; what cannot be opened, and a special file (a pipe, a FIFO, a device:
// opened by the reader, which waits for its writer), is `unknown`.
class TraceFile {
public:
    enum class Kind : std::uint8_t { trace, other, directory, unknown };

    static TraceFile open(const std::string& path);
    TraceFile(TraceFile&&) noexcept;
    TraceFile& operator=(TraceFile&&) noexcept;
    ~TraceFile();

    const std::string& path() const;
    Kind kind() const;
    // The size of the trace's text when it is known before reading: a regular file that is not
    // gzip; 0 otherwise (gzip, standard input, a pipe).
    std::uint64_t text_size() const;

private:
    friend class TraceReader;
    struct Impl;
    explicit TraceFile(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

class TraceReader {
public:
    explicit TraceReader(TraceReaderOptions options = {});
    ~TraceReader();
    TraceReader(const TraceReader&) = delete;
    TraceReader& operator=(const TraceReader&) = delete;

    // Reads the trace `file` was opened on (its kind unchecked: what is not a trace is an error
    // of the read, at its position).
    TraceReadResult read(TraceFile file, TraceHandler& handler);
    // Reads the trace at `path` ("-" is standard input): read(TraceFile::open(path), handler).
    TraceReadResult read(const std::string& path, TraceHandler& handler);
    // Reads a trace held in memory (plain or gzip bytes), in chunks as a file would be.
    TraceReadResult read_bytes(std::string_view bytes, TraceHandler& handler);

    // Line and column (1-based; columns count code points) of `offset` in the trace's text.
    // During TraceHandler::event(): any offset from that event on, up to the end of what has been
    // read.
    TextPosition position(std::uint64_t offset);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace sdscprov
