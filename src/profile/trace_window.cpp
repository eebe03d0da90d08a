#include "profile/trace_window.hpp"

#include "sdscprov/core/json_error.hpp"

#include <algorithm>
#include <cstring>

namespace sdscprov {

using trace_batch::is_ws;
using trace_batch::padding;

bool TraceWindow::fill() {
    if (eof_ || error_) {
        return false;
    }
    if (keep_from_ > base_) {
        drop(keep_from_);
    }
    std::size_t want = chunk_bytes_;
    if (buf_.size() < len_ + want + padding + 1) {
        buf_.resize(std::max(buf_.size() * 2, len_ + want + padding + 1));
    }
    auto got = source_->read(buf_.data() + len_, want);
    if (got < 0) {
        // Read as the end of the text: an error in what was read comes first, else this one
        // (fail() puts it at the end).
        source_error_.emplace(source_->gzip() ? ProblemCode::bad_gzip : ProblemCode::io_error,
                              source_->error());
        eof_ = true;
        return false;
    }
    if (got == 0) {
        eof_ = true;
        return false;
    }
    len_ += static_cast<std::size_t>(got);
    bytes_read_ += static_cast<std::uint64_t>(got);
    return true;
}

std::uint64_t TraceWindow::skip_ws(std::uint64_t pos) {
    while (true) {
        int c = peek(pos);
        if (c < 0 || !is_ws(static_cast<char>(c))) {
            return pos;
        }
        ++pos;
        keep_from_ = pos;
    }
}

std::uint64_t TraceWindow::skip_byte_order_mark() {
    if (have(2) && std::memcmp(at(0), "\xEF\xBB\xBF", 3) == 0) {
        cursor_.offset = 3;
        checkpoint_ = cursor_;
        return 3;
    }
    return 0;
}

void TraceWindow::drop(std::uint64_t upto) {
    auto n = static_cast<std::size_t>(upto - base_);
    if (n == 0) {
        return;
    }
    if (pass_on_drop_) {
        if (cursor_.offset < upto) {
            cursor_.advance(at(cursor_.offset), static_cast<std::size_t>(upto - cursor_.offset));
        }
        if (checkpoint_.offset < upto) {
            checkpoint_ = cursor_;
        }
        handler_->bytes(std::string_view(buf_.data(), n));
    }
    std::memmove(buf_.data(), buf_.data() + n, len_ - n);
    len_ -= n;
    base_ = upto;
}

TextPosition TraceWindow::position(std::uint64_t offset) {
    const char* held = held_ ? held_->bytes.data() : buf_.data();
    std::uint64_t held_base = held_ ? held_->seg : base_;
    std::uint64_t held_end = held_ ? held_->seg + held_->size : end_offset();
    offset = std::min(offset, held_end);
    if (offset < cursor_.offset) {
        if (checkpoint_.offset > offset || checkpoint_.offset < held_base) {
            return {};
        }
        cursor_ = checkpoint_;
    }
    if (cursor_.offset < held_base) {
        return {}; // bytes not held any more (never asked for)
    }
    cursor_.advance(held + (cursor_.offset - held_base),
                    static_cast<std::size_t>(offset - cursor_.offset));
    return {cursor_.line, cursor_.col};
}

bool TraceWindow::fail(std::uint64_t offset, ProblemCode code, std::string message) {
    if (source_error_ && offset >= end_offset()) {
        code = source_error_->first;
        message = source_error_->second;
    }
    if (!error_) {
        error_ = make_problem(path_, position(offset), code, std::move(message));
        error_offset_ = offset;
    }
    return false;
}

bool TraceWindow::fail_located(std::string_view text, std::uint64_t offset) {
    auto located = locate_json_error(text);
    if (!located) {
        return false;
    }
    return fail(offset + located->offset, ProblemCode::parse_error, located->message);
}

void TraceWindow::move_error_to(std::uint64_t offset) {
    if (error_ && error_offset_ < offset) {
        error_->pos = position(offset);
        error_offset_ = offset;
    }
}

bool TraceWindow::source_read_whole() {
    if (source_error_) {
        return fail(end_offset(), source_error_->first, source_error_->second);
    }
    return true;
}

} // namespace sdscprov
