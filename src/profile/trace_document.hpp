// Internal: the trace reader's document (trace.cpp): the outer object read byte by byte from the
// window (it is small: a few members beside traceEvents), or the bare array. traceEvents goes to
// the batch pool; every other member's value is found without parsing it, copied and validated
// whole as the array `[value]` by an On-Demand parser of its own (distributedInfo's rank kept).
#pragma once

#include "profile/trace_batch.hpp"
#include "profile/trace_pool.hpp"
#include "profile/trace_window.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <simdjson.h>
#include <string>
#include <string_view>
#include <vector>

namespace sdscprov {

class TraceDocument {
public:
    // A member value other than traceEvents larger than `max_value_bytes` is refused.
    TraceDocument(TraceWindow& window, BatchPool& events, std::size_t max_value_bytes)
        : window_(window), events_(events), max_value_bytes_(max_value_bytes) {}

    // Reads the whole document; false with the window's error set.
    bool read();

    // The whole document is the array (Chrome's JSON Array Format).
    bool bare_array() const { return bare_array_; }
    // distributedInfo.rank: an integer, else nullopt.
    std::optional<std::int64_t> distributed_rank() const { return distributed_rank_; }

    // The parser's and the copy's buffers freed (not needed after the read).
    void release();

private:
    std::optional<std::uint64_t> value_end(std::uint64_t pos);
    std::optional<trace_batch::od::json_type> validated(std::uint64_t pos, std::uint64_t end,
                                                        std::string* string_value = nullptr);
    std::optional<std::int64_t> rank_of_copy();
    bool truncated(std::uint64_t at_offset, std::string_view what);
    bool not_an_object(std::uint64_t pos);
    std::optional<std::uint64_t> member_value(std::uint64_t pos, const std::string& key,
                                              std::uint64_t key_pos, bool& seen_events);
    bool finish(std::uint64_t pos);

    TraceWindow& window_;
    BatchPool& events_;
    std::size_t max_value_bytes_;
    trace_batch::od::parser parser_;
    std::vector<char> scratch_; // a member value other than traceEvents, copied to be validated
    bool bare_array_ = false;
    std::optional<std::int64_t> distributed_rank_;
};

} // namespace sdscprov
