// The trace reader: events and bytes the same whatever the chunking, every malformed trace an
// error at its line:col, gzip read like plain text, and the splitter's block scan equal to its
// byte-by-byte reference.
#include "../../../src/profile/json_split.hpp"
#include "sdscprov/core/problem.hpp"
#include "sdscprov/profile/trace.hpp"

#include <doctest/doctest.h>
#include <random>
#include <string>
#include <vector>
#include <zlib.h>

using namespace sdscprov;

namespace {

std::pair<std::size_t, std::size_t> line_col(TextPosition p) {
    return {p.line, p.col};
}

struct SeenEvent {
    std::uint64_t index = 0;
    std::uint64_t offset = 0;
    std::uint64_t end = 0;
    bool object = false;
    std::string ph;
    std::string name;
    std::string dur;
    FieldState dur_state = FieldState::absent;
    FieldState args_state = FieldState::absent;
    std::uint64_t args_open = 0;
    bool args_empty = true;
    std::string provenance_key;
    FieldState debug_handles_state = FieldState::absent;
    std::vector<std::string> debug_handles;
    FieldState cycles_state = FieldState::absent;
    std::size_t cycles_count = 0;
    bool counters = true;
    std::array<std::uint32_t, 5> cycles{};
    bool sdscprov_arg = false;
    std::pair<std::size_t, std::size_t> pos; // line, col
    bool operator==(const SeenEvent&) const = default;
};

struct Collect final : TraceHandler {
    explicit Collect(TraceReader& r) : reader(r) {}
    TraceReader& reader;
    std::vector<SeenEvent> events;
    std::string text;
    void event(const TraceEvent& e) override {
        SeenEvent s;
        s.index = e.index;
        s.offset = e.offset;
        s.end = e.end;
        s.object = e.object;
        s.ph = e.ph;
        s.name = e.name;
        s.dur = e.dur;
        s.dur_state = e.dur_state;
        s.args_state = e.args_state;
        s.args_open = e.args_open;
        s.args_empty = e.args_empty;
        s.provenance_key = e.provenance_key;
        s.debug_handles_state = e.debug_handles_state;
        s.debug_handles.assign(e.debug_handles.begin(), e.debug_handles.end());
        s.cycles_state = e.cycles_ts_state;
        s.cycles_count = e.cycles_ts_count;
        s.counters = e.cycles_ts_counters;
        s.cycles = e.cycles_ts;
        s.sdscprov_arg = e.has_sdscprov_arg;
        s.pos = line_col(reader.position(e.offset));
        events.push_back(std::move(s));
    }
    void bytes(std::string_view t) override { text.append(t); }
    // events_end(): the offset given, the events and bytes had by then.
    void events_end(std::uint64_t offset) override {
        ends.push_back({offset, events.size(), text.size()});
    }
    struct End {
        std::uint64_t offset;
        std::size_t events;
        std::size_t bytes;
        bool operator==(const End&) const = default;
    };
    std::vector<End> ends;
};

struct Read {
    TraceReadResult result;
    std::vector<SeenEvent> events;
    std::string text;
    std::vector<Collect::End> ends;
};

Read read(std::string_view bytes, std::size_t chunk = 1 << 20, std::size_t max_value = 32 << 20,
          unsigned threads = 0) {
    TraceReaderOptions options;
    options.chunk_bytes = chunk;
    options.max_value_bytes = max_value;
    options.threads = threads;
    TraceReader reader(options);
    Collect c(reader);
    Read r;
    r.result = reader.read_bytes(bytes, c);
    r.events = std::move(c.events);
    r.text = std::move(c.text);
    r.ends = std::move(c.ends);
    return r;
}

std::string gzipped(std::string_view text) {
    z_stream z{};
    REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

// A trace with what the reader must get right: a byte order mark, members before and after
// traceEvents, escapes (also in a member name), non-ASCII text, an element that is not an
// object, nested args, an empty args, members given twice.
const std::string sample =
    "\xEF\xBB\xBF{\n"
    "  \"schemaVersion\": 1,\n"
    "  \"deviceProperties\": [{\"name\": \"Spyre \\\"0\\\" [x]\", \"n\": [1, {\"a\": []}]}],\n"
    "  \"trace\\u0045vents\": [\n"
    "  {\"ph\": \"X\", \"name\": \"spyre_kernel_v1_fused_add_aaaaaaaaaaaaaaaa#3\", \"dur\": 12.5,"
    " \"args\": {\"provenance_key\": \"aaaaaaaaaaaaaaaa\", \"debug_handles\": [\"1\", \"22\"],"
    " \"cycles_ts\": [1, 2, 3, 4, 4294967295], \"nested\": {\"x\": [{\"}\": \"]\"}]}}},\n"
    "  {\"ph\": \"X\", \"name\": \"\\u0073pyre_kernel_v1_x_bbbbbbbbbbbbbbbb\", \"dur\": 1e3,"
    " \"args\": {}},\n"
    "  [1, 2, {\"a\": \"b\"}],\n"
    "  \"a string\",\n"
    "  {\"ph\": \"B\", \"name\": \"r\xC3\xA9sum\xC3\xA9 \xE2\x82\xAC\", \"name\": \"second\","
    " \"dur\": \"12\", \"args\": {\"cycles_ts\": [1, -2, 3.5, \"4\", 5, 6], \"sdscprov\": {}}},\n"
    "  {\"args\": 7, \"dur\": null},\n"
    "  {}\n"
    "  ],\n"
    "  \"traceName\": \"t\"\n"
    "}\n";

} // namespace

TEST_CASE("the splitter's block scan finds what the byte-by-byte scan finds") {
    std::mt19937 rng(20261201);
    const char alphabet[] = {'"', '\\', '{', '}', '[', ']', 'a', ' ', ',', '"', '{', '}'};
    std::uniform_int_distribution<std::size_t> pick(0, sizeof alphabet - 1);
    std::uniform_int_distribution<std::size_t> blocks(1, 12);
    for (int round = 0; round < 3000; ++round) {
        std::string text(blocks(rng) * json_split::block, ' ');
        for (auto& c : text) {
            c = alphabet[pick(rng)];
        }
        json_split::Splitter fast;
        json_split::Splitter slow;
        std::vector<std::uint64_t> fast_ends;
        std::vector<std::uint64_t> slow_ends;
        auto fast_end = fast.scan(text.data(), text.size() / json_split::block, 1000, fast_ends);
        auto slow_end = slow.scan_bytes(text.data(), text.size(), 1000, slow_ends);
        CAPTURE(text);
        CHECK(fast_end == slow_end);
        CHECK(fast_ends == slow_ends);
        if (!slow_end) {
            CHECK(fast.depth == slow.depth);
            CHECK(fast.in_string == slow.in_string);
            CHECK(fast.escaped == slow.escaped);
        }
    }
}

TEST_CASE("bytes and code points are counted as one at a time would") {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> byte(0, 255);
    for (std::size_t n : {0, 1, 15, 16, 17, 100, 4079, 4080, 4081, 20000}) {
        std::string text(n, ' ');
        for (auto& c : text) {
            c = static_cast<char>(byte(rng) < 40 ? '\n' : byte(rng));
        }
        std::size_t newlines = 0;
        std::size_t points = 0;
        for (char c : text) {
            newlines += c == '\n';
            points += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
        }
        CAPTURE(n);
        CHECK(json_split::count_byte(text.data(), n, '\n') == newlines);
        CHECK(json_split::count_code_points(text.data(), n) == points);
    }
}

TEST_CASE("the splitter carries strings and escapes across blocks") {
    // A backslash as the last byte of a block escapes the quote that starts the next one.
    std::string text(128, ' ');
    text[0] = '{';
    text[10] = '"';
    text[63] = '\\';
    text[64] = '"'; // escaped: still inside the string
    text[70] = '}'; // inside the string: not a bracket
    text[80] = '"';
    text[90] = '}';
    json_split::Splitter s;
    std::vector<std::uint64_t> ends;
    CHECK_FALSE(s.scan(text.data(), 2, 0, ends));
    CHECK(ends == std::vector<std::uint64_t>{90});
}

TEST_CASE("events and bytes are the same whatever the chunk size") {
    Read whole = read(sample);
    REQUIRE_FALSE(whole.result.error);
    CHECK(whole.text == sample);
    REQUIRE(whole.events.size() == 7);
    const auto& first = whole.events[0];
    CHECK(first.object);
    CHECK(first.ph == "X");
    CHECK(first.name == "spyre_kernel_v1_fused_add_aaaaaaaaaaaaaaaa#3");
    CHECK(first.dur == "12.5");
    CHECK(first.dur_state == FieldState::ok);
    CHECK(first.args_state == FieldState::ok);
    CHECK(sample[first.args_open] == '{');
    CHECK_FALSE(first.args_empty);
    CHECK(first.provenance_key == "aaaaaaaaaaaaaaaa");
    CHECK(first.debug_handles == std::vector<std::string>{"1", "22"});
    CHECK(first.cycles_state == FieldState::ok);
    CHECK(first.cycles_count == 5);
    CHECK(first.counters);
    CHECK(first.cycles == std::array<std::uint32_t, 5>{1, 2, 3, 4, 4294967295U});
    CHECK(sample[first.offset] == '{');
    CHECK(sample[first.end] == '}');
    CHECK(sample.substr(first.end + 1, 2) == ",\n");
    CHECK(whole.events[1].name == "spyre_kernel_v1_x_bbbbbbbbbbbbbbbb"); // unescaped
    CHECK(whole.events[1].dur == "1e3");
    CHECK(whole.events[1].args_empty);
    CHECK_FALSE(whole.events[2].object); // an array
    CHECK_FALSE(whole.events[3].object); // a string
    const auto& fifth = whole.events[4];
    CHECK(fifth.name == "second"); // the last of two
    CHECK(fifth.dur_state == FieldState::wrong_type);
    CHECK(fifth.cycles_count == 6);
    CHECK_FALSE(fifth.counters);
    CHECK(fifth.sdscprov_arg);
    CHECK(whole.events[5].args_state == FieldState::wrong_type);
    CHECK(whole.events[5].dur_state == FieldState::wrong_type);
    CHECK(whole.events[6].args_state == FieldState::absent);
    CHECK(whole.result.stats.elements == 7);
    CHECK(whole.result.stats.bytes == sample.size());
    for (std::size_t i = 0; i < whole.events.size(); ++i) {
        CHECK(whole.events[i].index == i);
        CHECK(whole.events[i].pos == line_col(position_at(sample, whole.events[i].offset)));
    }
    for (std::size_t chunk : {1, 2, 3, 7, 63, 64, 65, 100, 333, 4096}) {
        CAPTURE(chunk);
        Read r = read(sample, chunk);
        REQUIRE_FALSE(r.result.error);
        CHECK(r.events == whole.events);
        CHECK(r.text == sample);
    }
}

TEST_CASE(
    "the end of traceEvents is told once, at its bracket, after every event and before its bytes") {
    // The bracket that closes traceEvents in the sample: the first "]" of the line "  ],".
    const std::uint64_t close = sample.find("\n  ],\n") + 3;
    REQUIRE(sample[close] == ']');
    const std::size_t sample_events = read(sample).events.size();
    for (std::size_t chunk : {1, 7, 64, 4096, 1 << 20}) {
        for (unsigned threads : {1U, 3U}) {
            Read r = read(sample, chunk, 32 << 20, threads);
            REQUIRE_FALSE(r.result.error);
            REQUIRE(r.ends.size() == 1);
            CHECK(r.ends[0].offset == close);
            CHECK(r.ends[0].events == sample_events);
            CHECK(r.ends[0].bytes <= close);
        }
    }
    std::string bare = "[{\"ph\": \"X\"}, {}]  ";
    Read b = read(bare, 3);
    REQUIRE(b.ends.size() == 1);
    CHECK(b.ends[0].offset == bare.find(']'));
    std::string empty = "{\"traceEvents\": [ ], \"x\": 1}";
    Read e = read(empty);
    REQUIRE(e.ends.size() == 1);
    CHECK(e.ends[0].offset == empty.find(']'));
    CHECK(e.ends[0].events == 0);
    // Not read to its end: never told.
    for (std::string cut : {std::string("{\"traceEvents\": [{}, {\"a\": 1}"),
                            std::string("{\"traceEvents\": [{}, tru]}")}) {
        Read c = read(cut, 4);
        CHECK(c.result.error);
        CHECK(c.ends.empty());
    }
}

TEST_CASE("a bare array is a trace too, and gzip is read like plain text") {
    std::string bare = "[{\"ph\": \"X\", \"name\": \"a\"}, {\"ph\": \"X\"}]";
    Read r = read(bare, 5);
    REQUIRE_FALSE(r.result.error);
    CHECK(r.result.stats.bare_array);
    CHECK(r.events.size() == 2);
    CHECK(r.text == bare);

    Read plain = read(sample);
    for (std::size_t chunk : {1, 16, 4096}) {
        Read z = read(gzipped(sample), chunk);
        REQUIRE_FALSE(z.result.error);
        CHECK(z.result.stats.gzip);
        CHECK(z.events == plain.events);
        CHECK(z.text == sample);
    }
    // Concatenated members, as gzip -d reads them.
    std::string half = sample.substr(0, 200);
    Read two = read(gzipped(half) + gzipped(sample.substr(200)), 64);
    REQUIRE_FALSE(two.result.error);
    CHECK(two.events == plain.events);

    std::string cut = gzipped(sample);
    cut.resize(cut.size() - 20);
    Read truncated = read(cut, 64);
    REQUIRE(truncated.result.error);
    CHECK(to_string(truncated.result.error->code) == "bad-gzip");
    // A wrong checksum: the text is all there, the gzip error comes at its end.
    std::string corrupt = gzipped(sample);
    corrupt[corrupt.size() - 6] = static_cast<char>(corrupt[corrupt.size() - 6] ^ 0x55);
    Read bad = read(corrupt, 64);
    REQUIRE(bad.result.error);
    CHECK(to_string(bad.result.error->code) == "bad-gzip");
    CHECK(bad.result.error_offset == sample.size());
    // A byte changed inside the compressed data: the first error in the text it inflates to,
    // the same whatever the reads' sizes.
    std::string garbled = gzipped(sample);
    garbled[garbled.size() / 2] = static_cast<char>(garbled[garbled.size() / 2] ^ 0x55);
    Read g1 = read(garbled, 1);
    REQUIRE(g1.result.error);
    for (std::size_t chunk : {7, 64, 4096}) {
        Read g = read(garbled, chunk);
        REQUIRE(g.result.error);
        CHECK(g.result.error_offset == g1.result.error_offset);
        CHECK(g.result.error->code == g1.result.error->code);
    }
    Read trailing = read(gzipped(sample) + "garbage", 64);
    REQUIRE(trailing.result.error);
    CHECK(to_string(trailing.result.error->code) == "bad-gzip");
}

TEST_CASE("every malformed trace is an error at its byte") {
    struct Case {
        std::string text;
        std::string at; // the error is at the last occurrence of this (empty: the end)
        std::string code;
    };
    const std::string head = "{\"traceEvents\": [{\"ph\": \"X\"}, ";
    std::string accented;
    for (int i = 0; i < 40; ++i) {
        accented += "\xC3\xA9";
    }
    for (int i = 0; i < 10; ++i) {
        accented += "\xE2\x82\xAC";
    }
    const std::vector<Case> cases = {
        {"", "", "parse-error"},
        {"   \n ", "", "parse-error"},
        {"{\"traceEvents\": [{\"ph\": \"X\"}", "", "parse-error"},
        {"{\"traceEvents\": [{\"ph\": \"X\"}]", "", "parse-error"},
        {"{\"traceEvents\": [{\"ph\": \"X", "", "parse-error"},
        {head + "{\"cat\": tru}]}", "tru}", "parse-error"},
        // Columns count code points: 40 two-byte and 10 three-byte characters before the error.
        {head + "{\"name\": \"" + accented + "\", \"dur\": x}]}", "x}", "parse-error"},
        {head + "{\"ph\": tru}]}", "tru}", "parse-error"},
        {head + "{\"cat\": [1 2]}]}", "2]", "parse-error"},
        {head + "{\"args\": {\"debug_handles\": [\"1\" \"2\"]}}]}", "\"2\"]", "parse-error"},
        {head + "{\"cat\" 1}]}", "1}", "parse-error"},
        {head + "{\"cat\": 1 \"ph\": 2}]}", "\"ph\": 2", "parse-error"},
        {head + "{\"dur\": 1.2.3}]}", "1.2.3", "parse-error"},
        // Numbers as JSON's grammar has them, wherever the reader keeps their text.
        {head + "{\"ts\": 01}]}", "01", "parse-error"},
        {head + "{\"ts\": -01}]}", "-01", "parse-error"},
        {head + "{\"ts\": 1.}]}", "1.", "parse-error"},
        {head + "{\"dur\": -}]}", "-", "parse-error"},
        {head + "{\"dur\": .5}]}", ".5", "parse-error"},
        {head + "{\"dur\": +1}]}", "+1", "parse-error"},
        {head + "{\"dur\": 1e400}]}", "1e400", "parse-error"},
        {head + "{\"ts\": 0x10}]}", "0x10", "parse-error"},
        {head + "{\"pid\": 00}]}", "00", "parse-error"},
        {head + "{\"args\": {\"correlation\": 1.}}]}", "1.", "parse-error"},
        {head + "{\"args\": {\"correlation\": 007}}]}", "007", "parse-error"},
        {head + "{\"args\": {\"bytes\": 00}}]}", "00", "parse-error"},
        {head + "{\"args\": {\"device\": 012}}]}", "012", "parse-error"},
        {head + "{\"args\": {\"cycles_ts\": [1, 2-]}}]}", "2-", "parse-error"},
        {head + "{\"a\": 1}{\"b\": 2}]}", "{\"b\"", "parse-error"},
        {head + "{\"a\": 1},]}", "]}", "parse-error"},
        {head + "{\"a\": 1},,{}]}", ",{}", "parse-error"},
        {head + "{\"a\": [}]}", "}]}", "parse-error"},
        {head + "{\"a\": 1}}}", "}}", "parse-error"},
        {"[{\"a\": 1}}", "}", "parse-error"},
        {head + "{\"a\": \"\x01\"}]}", "\x01", "parse-error"},
        {head + "{\"a\": \"\xC3\"}]}", "\xC3", "parse-error"},
        {head + "{\"a\": \"\\q\"}]}", "\\q", "parse-error"},
        {head + "{\"name\": \"\\q\"}]}", "\\q", "parse-error"},
        {head + "{\"n\\ame\": 1}]}", "\\ame", "parse-error"},
        {"{\"traceEvents\": []} x", "x", "parse-error"},
        {"{\"traceEvents\": [], \"other\": tru}", "tru", "parse-error"},
        {"{\"traceEvents\": [] \"other\": 1}", "\"other", "parse-error"},
        {"{\"schemaVersion\": 1}", "}", "not-a-trace"},
        {"{}", "}", "not-a-trace"},
        {"{\"traceEvents\": {}}", "{}", "not-a-trace"},
        {"{\"traceEvents\": 5}", "5", "not-a-trace"},
        {"{\"traceEvents\": [], \"traceEvents\": []}", "\"traceEvents\": []}", "not-a-trace"},
        {"17", "17", "not-a-trace"},
        {"nul", "nul", "parse-error"},
    };
    for (const auto& c : cases) {
        for (std::size_t chunk : {1, 4, 1 << 20}) {
            CAPTURE(c.text);
            CAPTURE(chunk);
            Read r = read(c.text, chunk);
            REQUIRE(r.result.error);
            CHECK(to_string(r.result.error->code) == c.code);
            std::size_t offset = c.at.empty() ? c.text.size() : c.text.rfind(c.at);
            CHECK(r.result.error_offset == offset);
            CHECK(line_col(r.result.error->pos) == line_col(position_at(c.text, offset)));
        }
    }
}

TEST_CASE("an event larger than the limit is refused, not held") {
    std::string big = "{\"traceEvents\": [{\"a\": 1}, {\"pad\": \"" + std::string(10000, 'x') +
                      "\"}, {\"b\": 2}]}";
    Read r = read(big, 1000, 4096);
    REQUIRE(r.result.error);
    CHECK(to_string(r.result.error->code) == "value-too-large");
    CHECK(r.result.error_offset == big.find("{\"pad\"") - 2); // at the ',' before it
    CHECK(r.events.size() == 1);
    Read ok = read(big, 1000, 20000);
    CHECK_FALSE(ok.result.error);
    CHECK(ok.events.size() == 3);
    std::string member = "{\"other\": \"" + std::string(10000, 'y') + "\", \"traceEvents\": []}";
    Read m = read(member, 1000, 4096);
    REQUIRE(m.result.error);
    CHECK(to_string(m.result.error->code) == "value-too-large");
}

TEST_CASE("deep nesting: refused past 1024 levels, without recursion") {
    std::string deep =
        "{\"traceEvents\": [{\"a\": " + std::string(2000, '[') + std::string(2000, ']') + "}]}";
    Read r = read(deep);
    REQUIRE(r.result.error);
    CHECK(to_string(r.result.error->code) == "parse-error");
    // The bracket that opens level 1025 of the batch [event, ...]: the event is level 2, its
    // member's first bracket level 3.
    CHECK(r.result.error_offset == deep.find("[[") + 1022);
    std::string ok =
        "{\"traceEvents\": [{\"a\": " + std::string(500, '[') + std::string(500, ']') + "}]}";
    CHECK_FALSE(read(ok).result.error);
    // Far deeper than any stack would take, in a member profile reads or not: an error, no crash.
    std::string deeper = "{\"traceEvents\": [{\"a\": " + std::string(1000000, '[') +
                         std::string(1000000, ']') + "}]}";
    CHECK(read(deeper).result.error);
    std::string args = "{\"traceEvents\": [{\"args\": {\"cycles_ts\": [" +
                       std::string(1000000, '[') + std::string(1000000, ']') + "]}}]}";
    CHECK(read(args).result.error);
}

TEST_CASE("many batches on several threads: the same events, bytes and first error") {
    std::string text = "{\"traceEvents\": [\n";
    for (int i = 0; i < 20000; ++i) {
        text += std::string(i ? ",\n" : "") + "{\"ph\": \"X\", \"name\": \"e" + std::to_string(i) +
                "\", \"dur\": " + std::to_string(i % 97) + ".5, \"args\": {\"debug_handles\": [\"" +
                std::to_string(i) + "\"], \"s\": \"\\u00e9" + std::to_string(i) + "\"}}";
    }
    text += "\n]}\n";
    Read one = read(text, 8192, 32 << 20, 1);
    REQUIRE_FALSE(one.result.error);
    REQUIRE(one.events.size() == 20000);
    CHECK(one.events[12345].name == "e12345");
    CHECK(one.events[12345].debug_handles == std::vector<std::string>{"12345"});
    CHECK(one.text == text);
    for (unsigned threads : {2U, 4U, 8U}) {
        for (std::size_t chunk : {4096, 8192, 100000}) {
            CAPTURE(threads);
            CAPTURE(chunk);
            Read r = read(text, chunk, 32 << 20, threads);
            REQUIRE_FALSE(r.result.error);
            CHECK(r.events == one.events);
            CHECK(r.text == text);
        }
    }
    // Two errors far apart: the first one is reported, whichever batch is parsed first.
    std::string bad = text;
    auto first = bad.find("\"e3000\"");
    auto second = bad.find("\"e15000\"");
    bad[second + 2] = '\x01';
    bad.replace(first, 2, "tr");
    for (unsigned threads : {1U, 2U, 8U}) {
        CAPTURE(threads);
        Read r = read(bad, 4096, 32 << 20, threads);
        REQUIRE(r.result.error);
        CHECK(r.result.error_offset == first);
        CHECK(line_col(r.result.error->pos) == line_col(position_at(bad, first)));
        CHECK(r.events.size() < 3001);
    }
    // An error the reading thread finds (after the last event) waits for the batches before it.
    std::string cut = text.substr(0, text.size() - 4);
    Read c = read(cut, 4096, 32 << 20, 8);
    REQUIRE(c.result.error);
    CHECK(c.result.error_offset == cut.size());
    CHECK(to_string(c.result.error->code) == "parse-error");
}
