// Internal: the trace reader's window on the text (trace.cpp): the bytes [base, base + len) read
// from the source and not dropped yet, with room for simdjson's padding; the line:col count at
// the bytes passed on so far; and the read's first error, located at its byte offset. Outside
// traceEvents the bytes dropped are passed on by the window; inside it, by the batches holding
// them (BatchPool), which the window follows for positions.
#pragma once

#include "profile/trace_batch.hpp"
#include "profile/trace_source.hpp"
#include "sdscprov/core/problem.hpp"
#include "sdscprov/profile/trace.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sdscprov {

class TraceWindow {
public:
    // Reads `chunk_bytes` (at least 1) at a time.
    explicit TraceWindow(std::size_t chunk_bytes) : chunk_bytes_(chunk_bytes) {}

    // The input, and the trace's path that its errors name (empty for a trace in memory).
    void open(std::string path, std::unique_ptr<trace_source::ByteSource> source) {
        path_ = std::move(path);
        source_ = std::move(source);
    }
    // Where the bytes dropped outside traceEvents are passed on.
    void pass_to(TraceHandler& handler) { handler_ = &handler; }

    bool gzip() const { return source_->gzip(); }
    std::uint64_t bytes_read() const { return bytes_read_; }

    // ---- the window ---------------------------------------------------------------------

    char* at(std::uint64_t offset) { return buf_.data() + (offset - base_); }
    std::uint64_t end_offset() const { return base_ + len_; }

    // Reads more bytes; false at the end of the input or on an error (then failed()).
    bool fill();
    // Makes the byte at `offset` available; false at the end of the input.
    bool have(std::uint64_t offset) {
        while (offset >= end_offset()) {
            if (!fill()) {
                return false;
            }
        }
        return true;
    }
    // The byte at `offset`, or -1 at the end of the input.
    int peek(std::uint64_t offset) {
        return have(offset) ? static_cast<unsigned char>(*at(offset)) : -1;
    }
    // The first byte from `pos` on that is not whitespace (the whitespace may be dropped).
    std::uint64_t skip_ws(std::uint64_t pos);
    // Where the text starts: after a byte order mark (which has no column of its own, and is not
    // JSON), else 0.
    std::uint64_t skip_byte_order_mark();

    // Bytes before `offset` may be dropped when more are read.
    void keep_from(std::uint64_t offset) { keep_from_ = offset; }
    // Drops the bytes before `upto` (passing them on first, outside traceEvents).
    void drop(std::uint64_t upto);
    // Inside traceEvents (false) the bytes dropped are not passed on: the batches holding them
    // pass them on, in order, with their events.
    void pass_on_drop(bool pass) { pass_on_drop_ = pass; }

    // ---- the batch being handed over ----------------------------------------------------

    // Positions are asked in `b` while its events are handed over; every byte before it was
    // passed on.
    void hold(const trace_batch::Batch& b) {
        held_ = &b;
        checkpoint_ = cursor_; // at b.seg
    }
    // The bytes of the batch held were passed on: the count moves over them.
    void passed_held() {
        const trace_batch::Batch& b = *held_;
        if (cursor_.offset < b.seg + b.size) {
            cursor_.advance(b.bytes.data() + (cursor_.offset - b.seg),
                            static_cast<std::size_t>(b.seg + b.size - cursor_.offset));
        }
    }
    // Positions are asked in the window again.
    void release_held() { held_ = nullptr; }

    // ---- positions and errors -----------------------------------------------------------

    // Where `offset` is: in the batch being handed over, else in the window.
    TextPosition position(std::uint64_t offset);

    // The read's error at `offset` (kept when it is the first); false. What looks cut short at
    // the end is the input that could not be read on: that error instead.
    bool fail(std::uint64_t offset, ProblemCode code, std::string message);
    // The first syntax error in `text` (whose first byte is at `offset`, or is a '[' put in place
    // of the byte there), as a parse-error; false when the text itself is valid.
    bool fail_located(std::string_view text, std::uint64_t offset);
    // An error found before `offset` (in a '[' put in place of the byte before it) is at
    // `offset`.
    void move_error_to(std::uint64_t offset);
    // At the end of the text: the error that ended the input early, if any (false then).
    bool source_read_whole();

    bool failed() const { return error_.has_value(); }
    const std::optional<Problem>& error() const { return error_; }
    std::uint64_t error_offset() const { return error_offset_; }

private:
    std::size_t chunk_bytes_;
    std::string path_; // for the error's Problem
    std::unique_ptr<trace_source::ByteSource> source_;
    TraceHandler* handler_ = nullptr;
    std::uint64_t bytes_read_ = 0;

    // The window: bytes [base_, base_ + len_) of the text, with room for simdjson's padding.
    std::vector<char> buf_;
    std::size_t len_ = 0;
    std::uint64_t base_ = 0;
    std::uint64_t keep_from_ = 0;
    bool eof_ = false;
    bool pass_on_drop_ = true;

    // The line:col count, at the bytes passed on so far, and where the batch being handed over
    // starts (positions are asked from there on).
    trace_batch::TextCursor cursor_;
    trace_batch::TextCursor checkpoint_;
    const trace_batch::Batch* held_ = nullptr;

    std::optional<Problem> error_;
    std::uint64_t error_offset_ = 0;
    std::optional<std::pair<ProblemCode, std::string>> source_error_; // code, message
};

} // namespace sdscprov
