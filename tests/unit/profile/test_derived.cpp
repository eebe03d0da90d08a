// What the trace reader works out for each event on its parsing thread (ts and dur in ns, the
// timeline's args as whole numbers, the key and hash a kernel event pairs by) is what the event's
// users would work out from its text; and the fast readings of digits agree with the general ones.
#include "../../../src/profile/derived.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/trace.hpp"

#include <array>
#include <charconv>
#include <doctest/doctest.h>
#include <functional>
#include <string>
#include <vector>

using namespace sdscprov;

namespace {

std::uint64_t next(std::uint64_t& seed) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

// The reference: std::from_chars over the whole text, digits only.
std::optional<std::uint64_t> reference_whole(FieldState state, std::string_view text) {
    std::uint64_t v = 0;
    if (state != FieldState::ok || text.empty()) {
        return std::nullopt;
    }
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return v;
}

// The reference: what each cat is to the timeline, told from its text here.
CatKind reference_kind(FieldState state, std::string_view cat) {
    if (state != FieldState::ok) {
        return CatKind::other;
    }
    const std::pair<std::string_view, CatKind> exact[] = {
        {"kernel", CatKind::kernel},       {"gpu_memcpy", CatKind::transfer},
        {"gpu_memset", CatKind::transfer}, {"user_annotation", CatKind::user_annotation},
        {"cpu_op", CatKind::cpu_op},       {"cuda_driver", CatKind::runtime},
    };
    for (const auto& [text, kind] : exact) {
        if (cat == text) {
            return kind;
        }
    }
    return cat.find("runtime") != std::string_view::npos ? CatKind::runtime : CatKind::other;
}

struct Checked {
    std::size_t events = 0;
    std::size_t kinds[7] = {};   // events per CatKind
    std::size_t times_known = 0; // ts or dur the reader converted
    std::size_t numbers = 0;     // args numbers given
    std::size_t keys = 0;        // variant keys given
};

// Checks each event as it comes against what its text says.
struct Check final : TraceHandler {
    Checked seen;
    // Per event: the JSON texts written for args.correlation, queued, submitted and bytes.
    std::vector<std::array<std::string, 4>> args;
    void event(const TraceEvent& e) override {
        ++seen.events;
        CAPTURE(e.index);
        auto expect_time = [](FieldState state, std::string_view text) {
            return state == FieldState::ok ? microseconds_to_ns(text) : std::nullopt;
        };
        CHECK(event_ts_ns(e) == expect_time(e.ts_state, e.ts));
        CHECK(event_dur_ns(e) == expect_time(e.dur_state, e.dur));
        if (e.ts_ns_known) {
            ++seen.times_known;
            CHECK(e.ts_state == FieldState::ok);
            CHECK(std::optional(e.ts_ns) == microseconds_to_ns(e.ts));
        }
        if (e.dur_ns_known) {
            ++seen.times_known;
            CHECK(std::optional(e.dur_ns) == microseconds_to_ns(e.dur));
        }
        REQUIRE(e.cat_kind != CatKind::unknown);
        CHECK(e.cat_kind == reference_kind(e.cat_state, e.cat));
        ++seen.kinds[static_cast<std::size_t>(e.cat_kind)];
        TraceEvent unread = e; // as an event made without the reader: worked out on the spot
        unread.cat_kind = CatKind::unknown;
        CHECK(cat_kind(unread) == e.cat_kind);
        // Each of the timeline's args as a whole number, for every event: a JSON string is of
        // the wrong type, any other text a number's.
        const std::optional<std::uint64_t> numbers[] = {
            arg_number(e, correlation_number), arg_number(e, queued_number),
            arg_number(e, submitted_number), arg_number(e, bytes_number)};
        const FieldState states[] = {e.correlation_state, e.queued_state, e.submitted_state,
                                     e.bytes_state};
        REQUIRE(e.index < args.size());
        for (std::size_t a = 0; a < 4; ++a) {
            CAPTURE(a);
            const std::string& text = args[e.index][a];
            const FieldState written =
                text.starts_with('"') ? FieldState::wrong_type : FieldState::ok;
            CHECK(states[a] == written);
            CHECK(numbers[a] == reference_whole(written, text));
            seen.numbers += numbers[a].has_value() ? 1 : 0;
        }
        CHECK(e.variant_hash_known == pairs(e));
        if (e.variant_hash_known) {
            ++seen.keys;
            std::string key;
            variant_key(e, key); // with the event's debug_handles as they are handed over
            CHECK(e.variant_key == key);
            CHECK(e.variant_hash == std::hash<std::string_view>{}(key));
        }
    }
};

} // namespace

TEST_CASE("the reader's own readings of each event are its users' readings of its text") {
    const char* times[] = {"1732000000010.006",
                           "8.61",
                           "0",
                           "0.5",
                           "1e3",
                           "12.3456",
                           "-4",
                           "4611686018427387.905",
                           "12345678901234567",
                           "12345678",
                           "7.0",
                           "\"12\"",
                           "null"};
    const char* numbers[] = {"2",
                             "18446744073709551615",
                             "18446744073709551616",
                             "1.5",
                             "-3",
                             "1e3",
                             "0",
                             "12345678901234567890",
                             "\"7\"",
                             "1732000000010006000"};
    const char* cats[] = {"\"kernel\"",
                          "\"gpu_memcpy\"",
                          "\"gpu_memset\"",
                          "\"cuda_runtime\"",
                          "\"cuda_driver\"",
                          "\"user_annotation\"",
                          "\"cpu_op\"",
                          "\"aiu_runtime_x\"",
                          "\"Trace\"",
                          "\"kernels\"",
                          "\"cpu_op \"",
                          "3",
                          "null"};
    const char* names[] = {"spyre_kernel_v1_fused_add_aaaaaaaaaaaaaaaa#3",
                           "spyre_kernel_v1_fused_add_aaaaaaaaaaaaaaaa#4", "aten::add",
                           "launch_jobplan:sdsc_fused_add_0"};
    std::uint64_t seed = 1234567;
    std::string text = "{\"traceEvents\": [\n";
    std::vector<std::array<std::string, 4>> args;
    for (int i = 0; i < 3000; ++i) {
        auto pick = [&seed](const auto& list) {
            return list[next(seed) % (sizeof(list) / sizeof(list[0]))];
        };
        text += i ? ",\n" : "";
        text += "{";
        if (next(seed) % 8) {
            text += std::string("\"cat\": ") + pick(cats) + ", ";
        }
        auto& given = args.emplace_back();
        for (auto& g : given) {
            g = pick(numbers);
        }
        text += std::string("\"ph\": \"") + (next(seed) % 5 ? "X" : "i") + "\", \"name\": \"" +
                pick(names) + "\", \"ts\": " + pick(times) + ", \"dur\": " + pick(times) +
                ", \"args\": {\"correlation\": " + given[0] + ", \"queued\": " + given[1] +
                ", \"submitted\": " + given[2] + ", \"bytes\": " + given[3];
        if (next(seed) % 4 == 0) { // given again: the last one counts
            given[0] = pick(numbers);
            text += ", \"correlation\": " + given[0];
        }
        if (next(seed) % 2) {
            text += ", \"provenance_key\": \"aaaaaaaaaaaaaaaa\"";
        }
        if (next(seed) % 3) {
            text += ", \"debug_handles\": [\"" + std::to_string(next(seed) % 7) + "\", \"" +
                    std::to_string(next(seed) % 7) + "\"]";
        }
        text += "}}";
    }
    text += "\n]}\n";
    for (unsigned threads : {1U, 2U}) {
        CAPTURE(threads);
        TraceReaderOptions options;
        options.chunk_bytes = 4096; // many batches, each with its own keys
        options.threads = threads;
        TraceReader reader(options);
        Check check;
        check.args = args;
        auto result = reader.read_bytes(text, check);
        REQUIRE_FALSE(result.error);
        CHECK(check.seen.events == 3000);
        // Each reading was given for many events, not only worked out on the spot.
        CHECK(check.seen.times_known > 2000);
        CHECK(check.seen.numbers > 3000);
        CHECK(check.seen.keys > 1000);
        for (std::size_t k = 1; k < 7; ++k) { // each kind given (unknown: never)
            CAPTURE(k);
            CHECK(check.seen.kinds[k] > 100);
        }
    }
}

TEST_CASE("whole numbers read eight digits at a time are std::from_chars's") {
    std::uint64_t seed = 99991;
    for (int n = 0; n < 50000; ++n) {
        const std::size_t length = 1 + next(seed) % 22;
        std::string text;
        for (std::size_t i = 0; i < length; ++i) {
            text += static_cast<char>('0' + next(seed) % 10);
        }
        if (next(seed) % 4 == 0) { // a byte that is not a digit somewhere
            const char others[] = {'.', 'e', '-', '/', ':', ' ', 'a'};
            text[next(seed) % length] = others[next(seed) % sizeof(others)];
        }
        CAPTURE(text);
        CHECK(whole_number(FieldState::ok, text) == reference_whole(FieldState::ok, text));
    }
    CHECK(whole_number(FieldState::ok, "18446744073709551615") == 18446744073709551615ULL);
    CHECK_FALSE(whole_number(FieldState::ok, "18446744073709551616"));
    CHECK_FALSE(whole_number(FieldState::wrong_type, "12"));
    CHECK_FALSE(whole_number(FieldState::ok, ""));
}

TEST_CASE("the reader's conversion of times answers for JSON's plain form, as microseconds_to_ns") {
    std::uint64_t seed = 4242;
    std::size_t answered = 0;
    for (int n = 0; n < 50000; ++n) {
        std::string text = std::to_string(next(seed) >> (next(seed) % 64));
        if (next(seed) % 2) {
            text += '.';
            for (std::uint64_t d = 0, k = 1 + next(seed) % 4; d < k; ++d) {
                text += static_cast<char>('0' + next(seed) % 10);
            }
        }
        CAPTURE(text);
        std::uint64_t ns = 0;
        if (plain_microseconds_to_ns(text, ns)) {
            ++answered;
            CHECK(std::optional(ns) == microseconds_to_ns(text));
        }
    }
    CHECK(answered > 20000);
    const struct {
        const char* text;
        std::optional<std::uint64_t> ns; // nullopt: not this form
    } edges[] = {
        {"0", 0},
        {"0.5", 500},
        {"12345678", 12345678000ULL},                 // eight digits: one chunk
        {"1234567890123456", 1234567890123456000ULL}, // sixteen: two
        {"4611686018427387.904", 4611686018427387904ULL},
        {"007.5", std::nullopt}, // JSON allows no leading zero
        {"00", std::nullopt},
        {"12345678901234567", std::nullopt}, // seventeen digits
        {"1.2345", std::nullopt},
        {"-1", std::nullopt},
        {"1e3", std::nullopt},
        {"12.", std::nullopt},
        {"4611686018427387.905", std::nullopt}, // over 2^62 ns
    };
    for (const auto& c : edges) {
        CAPTURE(c.text);
        std::uint64_t ns = 0;
        const bool plain = plain_microseconds_to_ns(c.text, ns);
        CHECK(plain == c.ns.has_value());
        if (plain) {
            CHECK(ns == *c.ns);
        }
    }
}
