// The trace reader: three parts of its own, wired here. The window (trace_window) holds the
// bytes read from the source, counts line:col at the bytes passed on and keeps the read's first
// error at its position. The document (trace_document) reads the outer object byte by byte (it
// is small: a few members beside traceEvents), copying and validating each member but
// traceEvents whole. The batch pool (trace_pool) cuts traceEvents by json_split into batches of
// whole elements, each a copy of its text parsed with simdjson On-Demand as the array
// `[e1, ..., en]` (the ',' before its first element replaced by '[' and a ']' put after its last),
// by worker threads or the reading thread, whichever is free; its events are handed over in order
// by the reading thread. On-Demand validates only what is read: every value is visited, the
// members profile uses read, the others validated (validate()). Errors are located again by
// locate_json_error for the exact byte and a plain message.
#include "sdscprov/profile/trace.hpp"

#include "profile/trace_document.hpp"
#include "profile/trace_pool.hpp"
#include "profile/trace_source.hpp"
#include "profile/trace_window.hpp"

#include <algorithm>
#include <utility>

namespace sdscprov {

struct TraceReader::Impl {
    TraceReaderOptions options;
    TraceWindow window;
    BatchPool events;
    TraceDocument document;

    explicit Impl(TraceReaderOptions o)
        : options(normalized(o)), window(options.chunk_bytes), events(window, options),
          document(window, events, options.max_value_bytes) {}

    static TraceReaderOptions normalized(TraceReaderOptions o) {
        o.chunk_bytes = std::max<std::size_t>(o.chunk_bytes, 1);
        o.max_value_bytes = std::max<std::size_t>(o.max_value_bytes, 64);
        return o;
    }

    TraceReadResult run(TraceHandler& h) {
        window.pass_to(h);
        events.hand_to(h);
        TraceReadResult result;
        result.stats.gzip = window.gzip();
        document.read();
        events.stop();
        // The batches and the parsers' buffers are not needed any more (a report is built and
        // printed after the read); the text held in the window stays for position().
        window.release_held();
        events.release();
        document.release();
        result.stats.bytes = window.bytes_read();
        result.stats.elements = events.elements();
        result.stats.bare_array = document.bare_array();
        result.stats.distributed_rank = document.distributed_rank();
        result.error = window.error();
        result.error_offset = window.error_offset();
        return result;
    }
};

TraceReader::TraceReader(TraceReaderOptions options) : impl_(std::make_unique<Impl>(options)) {}

TraceReader::~TraceReader() = default;

TraceReadResult TraceReader::read(TraceFile file, TraceHandler& handler) {
    impl_ = std::make_unique<Impl>(impl_->options);
    TraceFile::Impl& opened = *file.impl_;
    std::unique_ptr<trace_source::ByteSource> source;
    if (opened.fd >= 0) {
        source = trace_source::open_descriptor(std::exchange(opened.fd, -1), true,
                                               impl_->options.chunk_bytes);
    } else {
        std::string error;
        source = trace_source::open_file(opened.path, impl_->options.chunk_bytes, error);
        if (!source) {
            TraceReadResult result;
            result.error = make_problem(opened.path, {}, ProblemCode::io_error, error);
            return result;
        }
    }
    impl_->window.open(opened.path, std::move(source));
    return impl_->run(handler);
}

TraceReadResult TraceReader::read(const std::string& path, TraceHandler& handler) {
    return read(TraceFile::open(path), handler);
}

TraceReadResult TraceReader::read_bytes(std::string_view bytes, TraceHandler& handler) {
    impl_ = std::make_unique<Impl>(impl_->options);
    impl_->window.open({}, trace_source::open_memory(bytes, impl_->options.chunk_bytes));
    return impl_->run(handler);
}

TextPosition TraceReader::position(std::uint64_t offset) {
    return impl_->window.position(offset);
}

} // namespace sdscprov
