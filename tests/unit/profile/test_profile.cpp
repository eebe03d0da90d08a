// Profile's pairing and aggregation: nanoseconds from decimal text, counter stages, the handle
// index of a cache, and reports built from small traces whose sums are spelled out here; the
// printers' formats.
#include "../temp_dir.hpp"
#include "sdscprov/join/handle_index.hpp"
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/trace.hpp"
#include "sdscprov/report/profile_printers.hpp"
#include "sdscprov/sidecars/spyre_provenance.hpp"

#include <doctest/doctest.h>
#include <map>
#include <simdjson.h>
#include <string>

using namespace sdscprov;

namespace {

const std::string sidecar_path = std::string(SDSCPROV_TESTDATA) + "/spyre/spyre_provenance.json";

// The testdata sidecar's bundles: "relu" (four direct handles: lines 11, 12, 13; ops addmm,
// permute, relu; kernel sdsc_fused_addmm_linear_relu_0), "tail" (line 13, addmm,
// sdsc_fused_addmm_1) and "empty" (no handle, sdsc_fused_unknown_2).
const std::string relu = "spyre_kernel_v1_fused_addmm_linear_relu_mlpfcreluaaaaaa2";
const std::string tail = "spyre_kernel_v1_fused_addmm_mlpfcaddbbbbbbb3";
const std::string empty = "spyre_kernel_v1_fused_unknown_mlpemptycccccc47";

PairingSources sidecar_sources() {
    PairingSources s;
    auto read = read_spyre_provenance(sidecar_path);
    REQUIRE(read.doc);
    s.sidecars.push_back(std::move(*read.doc));
    return s;
}

ProfileReport profile(const PairingSources& sources, const std::string& events,
                      std::size_t chunk = 1 << 20) {
    std::string text = "{\"traceEvents\": [\n" + events + "\n]}\n";
    TraceReaderOptions options;
    options.chunk_bytes = chunk;
    TraceReader reader(options);
    ProfileBuilder builder(sources, "t.json", reader);
    auto read = reader.read_bytes(text, builder);
    REQUIRE_FALSE(read.error);
    return builder.finish(read);
}

std::string kernel(const std::string& name, const std::string& dur, const std::string& args = "") {
    return "{\"ph\": \"X\", \"name\": \"" + name + "\", \"dur\": " + dur +
           (args.empty() ? "" : ", \"args\": {" + args + "}") + "}";
}

std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>
table(const std::vector<ProfileRow>& rows) {
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> t;
    for (const auto& r : rows) {
        t[r.label] = {r.time.ns, r.time.events};
    }
    return t;
}

std::vector<std::string> codes(const ProfileReport& r) {
    std::vector<std::string> c;
    for (const auto& d : r.diagnostics) {
        c.emplace_back(to_string(d.code));
    }
    return c;
}

} // namespace

TEST_CASE("microseconds become nanoseconds from their decimal digits") {
    struct Case {
        const char* text;
        std::optional<std::uint64_t> ns;
    };
    const Case cases[] = {
        {"12.345", 12345},
        {"12.3455", 12346}, // half away from zero
        {"12.3454999999", 12345},
        {"12.34549999999999999999999", 12345}, // more digits than a double holds
        {"12.3455000000000000000001", 12346},
        {"0.0005", 1},
        {"0.00049", 0},
        {"0.0004", 0},
        {"0", 0},
        {"-0", 0},
        {"-0.0", 0},
        {"12", 12000},
        {"1e3", 1000000},
        {"1E+3", 1000000},
        {"1.5e-3", 2},
        {"2.5e-3", 3},
        {"1.2345e1", 12345},
        {"0.000000000000000000000000001", 0},
        {"123456789012.345678", 123456789012346ULL},
        {"4611686018427387.904", 4611686018427387904ULL}, // 2^62 ns
        {"4611686018427387.905", std::nullopt},
        {"1e20", std::nullopt},
        {"1e400", std::nullopt},
        {"-1", std::nullopt},
        {"-0.001", std::nullopt},
        {"abc", std::nullopt},
        {"1e", std::nullopt},
        {"", std::nullopt},
    };
    for (const auto& c : cases) {
        std::string text = c.text;
        CAPTURE(text);
        CHECK(microseconds_to_ns(text) == c.ns);
    }
}

TEST_CASE("trace times in the form profilers write: exact, as the general reading gives them") {
    // Digits and at most three after the point, each number's ns by integer arithmetic; and the
    // forms at the edges of the short reading (16 characters, the limit, 4 fraction digits).
    std::uint64_t seed = 88172645463325252ULL;
    auto next = [&seed] {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        return seed;
    };
    for (int n = 0; n < 20000; ++n) {
        const std::uint64_t whole = next() % 4000000000000000ULL >> (next() % 52);
        const std::size_t digits = next() % 4;
        std::string text = std::to_string(whole);
        std::uint64_t frac = 0;
        if (digits > 0) {
            text += '.';
            for (std::size_t d = 0; d < digits; ++d) {
                const std::uint64_t digit = next() % 10;
                text += static_cast<char>('0' + digit);
                frac = frac * 10 + digit;
            }
        }
        for (std::size_t d = digits; d < 3; ++d) {
            frac *= 10;
        }
        CAPTURE(text);
        CHECK(microseconds_to_ns(text) == whole * 1000 + frac);
    }
    const struct {
        const char* text;
        std::optional<std::uint64_t> ns;
    } edges[] = {
        {"4611686018427387", 4611686018427387000ULL}, // 16 digits
        {"4611686018427387.904", 4611686018427387904ULL}, // 2^62 ns
        {"4611686018427387.905", std::nullopt},           // over it
        {"9999999999999999.999", std::nullopt},
        {"12345678901234567", std::nullopt}, // 17 digits: the general reading, over 2^62 ns
        {"1731999999999.800", 1731999999999800ULL},
        {"4611686018427.3875", 4611686018427388ULL}, // 4 fraction digits: the general reading
        {"12.", 12000},
        {"12.0", 12000},
        {"0.0005", 1},
        {"1.2345", 1235},
        {"007.5", 7500},
        {"7.5.", std::nullopt},
        {".5", std::nullopt},
        {"1 ", std::nullopt},
    };
    for (const auto& c : edges) {
        std::string text = c.text;
        CAPTURE(text);
        CHECK(microseconds_to_ns(text) == c.ns);
    }
}

TEST_CASE("stages come from non-zero counter readings, modulo 2^32") {
    auto s = stages_of({4294967000U, 4294967196U, 100, 400, 500});
    CHECK(s.ticks == std::array<std::uint64_t, 4>{196, 200, 300, 100});
    CHECK(s.events == std::array<std::uint64_t, 4>{1, 1, 1, 1});
    auto dmai = stages_of({10, 30, 0, 0, 0}); // async DMAI: TS1-TS2 only
    CHECK(dmai.ticks == std::array<std::uint64_t, 4>{20, 0, 0, 0});
    CHECK(dmai.events == std::array<std::uint64_t, 4>{1, 0, 0, 0});
    auto dmao = stages_of({0, 0, 0, 7, 9}); // DMAO: TS4-TS5 only
    CHECK(dmao.events == std::array<std::uint64_t, 4>{0, 0, 0, 1});
    CHECK(dmao.ticks[3] == 2);
}

TEST_CASE("a bundle counts fully for each of its lines and ops, once in the kernels") {
    auto sources = sidecar_sources();
    ProfileReport r =
        profile(sources, kernel(relu + "#1", "10") + ",\n" + kernel(relu + "#5", "0.0015") + ",\n" +
                             kernel(tail + "#2", "3.25") + ",\n" + kernel(empty, "1") + ",\n" +
                             "{\"ph\": \"X\", \"name\": \"aten::mm\", \"dur\": 50}");
    // relu: 10000 + 2 ns; tail: 3250 ns; empty: 1000 ns.
    CHECK(r.coverage.kernel_events == 4);
    CHECK(r.coverage.resolved_events == 4);
    CHECK(r.coverage.kernel_ns == 14252);
    CHECK(r.coverage.trace_events == 5);
    CHECK(table(r.rows(ProfileRanking::line)) == std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>{
                                  {"/home/user/simple_mlp.py:11", {10002, 2}},
                                  {"/home/user/simple_mlp.py:12", {10002, 2}},
                                  {"/home/user/simple_mlp.py:13", {13252, 3}},
                                  {"[no source]", {1000, 1}}});
    CHECK(table(r.rows(ProfileRanking::aten)) == std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>{
                                  {"aten.addmm.default", {13252, 3}},
                                  {"aten.permute.default", {10002, 2}},
                                  {"aten.relu.default", {10002, 2}},
                                  {"[no aten op]", {1000, 1}}});
    // No cache: each bundle is told apart by its key.
    CHECK(table(r.rows(ProfileRanking::kernel)) == std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>{
                                    {"sdsc_fused_addmm_linear_relu_0@mlpfcreluaaaaaa2", {10002, 2}},
                                    {"sdsc_fused_addmm_1@mlpfcaddbbbbbbb3", {3250, 1}},
                                    {"sdsc_fused_unknown_2@mlpemptycccccc47", {1000, 1}}});
    CHECK(r.coverage.paired_bundles == 3);
    CHECK(r.coverage.dirless_bundles == 3);
    CHECK(r.coverage.dirless_events == 4);
    CHECK(r.coverage.dirless_ns == 14252);
    // Ranked by time, largest first.
    REQUIRE(r.rows(ProfileRanking::line).size() == 4);
    CHECK(r.rows(ProfileRanking::line)[0].label == "/home/user/simple_mlp.py:13");
    CHECK(r.rows(ProfileRanking::line)[3].label == "[no source]");
    REQUIRE(r.bundles.size() == 3);
    CHECK(r.bundles[0].key == "mlpfcreluaaaaaa2");
    CHECK(r.bundles[0].handle_ids.size() == 4);
    CHECK(r.bundles[0].resolution == Resolution::sidecar);
    // Every direct handle once, fused_from expanded.
    CHECK(r.handles.size() == 5);
    CHECK(codes(r).empty());
    // The folded stacks.
    CHECK(
        render_profile_folded(r) ==
        "/home/user/simple_mlp.py:11+/home/user/simple_mlp.py:12+/home/user/simple_mlp.py:13;"
        "aten.addmm.default+aten.permute.default+aten.relu.default;"
        "sdsc_fused_addmm_linear_relu_0@mlpfcreluaaaaaa2 10002\n"
        "/home/user/simple_mlp.py:13;aten.addmm.default;sdsc_fused_addmm_1@mlpfcaddbbbbbbb3 3250\n"
        "[no source];[no aten op];sdsc_fused_unknown_2@mlpemptycccccc47 1000\n");
    // The same whatever the chunking of the trace.
    ProfileReport small =
        profile(sources,
                kernel(relu + "#1", "10") + ",\n" + kernel(relu + "#5", "0.0015") + ",\n" +
                    kernel(tail + "#2", "3.25") + ",\n" + kernel(empty, "1"),
                7);
    CHECK(render_profile_folded(small) == render_profile_folded(r));
}

TEST_CASE("pairing diagnostics: each case, its severity and what becomes of the event") {
    auto sources = sidecar_sources();
    struct Case {
        std::string event;
        std::string code;
        Severity severity;
        bool paired;
    };
    const std::string other = "spyre_kernel_v1_fused_x_cccccccccccccccc";
    const std::vector<Case> cases = {
        {kernel(relu, "1", "\"provenance_key\": \"mlpfcaddbbbbbbb3\""), "carrier-conflict",
         Severity::error, false},
        {kernel("spyre_kernel_v1_fused_relu_mlpfcreluaaaaaa2", "1"), "collision", Severity::error,
         false},
        {kernel(other, "1"), "unknown-key", Severity::warning, false},
        {kernel("spyre_kernel_v1_fused_mlpfcreluaaaaaA2", "1"), "unparsable-name",
         Severity::warning, false},
        {kernel(relu + "#x", "1"), "unparsable-name", Severity::warning, false},
        {kernel(relu, "1", "\"provenance_key\": 7"), "malformed-provenance-key", Severity::warning,
         true},
        {kernel(relu, "1", "\"debug_handles\": [1]"), "malformed-debug-handles", Severity::warning,
         true},
        {kernel(relu, "1", "\"debug_handles\": [\"6462719854013895214\"]"),
         "native-handle-disagreement", Severity::warning, true},
        {kernel(relu, "\"1\""), "bad-duration", Severity::error, true},
        {kernel(relu, "1", "\"cycles_ts\": [1, 2, 3, 4, \"5\"]"), "bad-cycles-ts", Severity::error,
         true},
        {"7", "not-an-event", Severity::warning, false},
    };
    for (const auto& c : cases) {
        CAPTURE(c.event);
        ProfileReport r = profile(sources, kernel(tail, "2") + ",\n" + c.event);
        REQUIRE(codes(r) == std::vector<std::string>{c.code});
        const auto& d = r.diagnostics[0];
        CHECK(d.severity == c.severity);
        CHECK(d.events == 1);
        CHECK(d.first_event == 1);
        CHECK(d.pos.line == 3);
        CHECK(d.pos.col == 1);
        CHECK(d.path == "t.json");
        CHECK(r.coverage.resolved_events == (c.paired ? 2 : 1));
    }
    // An event counts in its diagnostic however often it repeats.
    ProfileReport r = profile(sources, kernel(other + "#1", "1") + ",\n" +
                                           kernel(other + "#2", "1") + ",\n" + kernel(other, "1"));
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].events == 3);
    CHECK(r.bundles.size() == 1);
    CHECK(r.bundles[0].reason == ProblemCode::unknown_key);
    CHECK(r.bundles[0].root_label == "[unresolved]");
    CHECK(r.bundles[0].kernel_label == other);
}

TEST_CASE("the caches' handles pair events without a sidecar, at any depth of a file") {
    test::TempDir tmp("sdscprov-profile");
    auto handle = [](const std::string& id, int line, const std::string& op) {
        return "{\"id\": \"" + id +
               "\", \"source\": {\"file\": \"/m.py\", \"start_line\": " + std::to_string(line) +
               ", \"start_col\": 0, \"end_line\": null, \"end_col\": null}, \"aten_op\": \"" + op +
               "\", \"ir_chain\": [\"x\"], \"fused_from\": [], \"transform_history\": []}";
    };
    tmp.file("inductor-spyre/sdsc_fused_add_0_aaaaaaaa/sdsc_0.json",
             "{\"0_add\": {\"debug_handle_\": " + handle("11", 1, "aten.add.Tensor") + "}}");
    // A second handle nested deeper in a file of another kernel.
    tmp.file("inductor-spyre/sdsc_fused_mul_1_bbbbbbbb/sdsc_0.json",
             "{\"0_mul\": {\"debug_handle_\": " + handle("21", 2, "aten.mul.Tensor") +
                 ", \"dscs_\": [{\"mul\": {\"debug_handle_\": " +
                 handle("22", 3, "aten.mul.Tensor") + "}}]}}");
    auto indexed = index_handles({tmp.root.string()});
    CHECK(indexed.problems.empty());
    CHECK(indexed.index.dirs.size() == 2);
    CHECK(indexed.index.handles.size() == 3);
    REQUIRE(indexed.index.find("22") != nullptr);
    CHECK(indexed.index.find("22")->dirs == std::vector<std::uint32_t>{1});

    PairingSources sources;
    sources.caches = std::move(indexed.index);
    const std::string a = "spyre_kernel_v1_fused_add_aaaaaaaaaaaaaaaa";
    const std::string b = "spyre_kernel_v1_fused_mul_bbbbbbbbbbbbbbbb";
    ProfileReport r =
        profile(sources, kernel(a + "#1", "1", "\"debug_handles\": [\"11\"]") + ",\n" +
                             kernel(b + "#1", "2", "\"debug_handles\": [\"22\"]") + ",\n" +
                             kernel(b + "#2", "4") + ",\n" +
                             kernel(a + "#2", "8", "\"debug_handles\": [\"99\"]"));
    CHECK(table(r.rows(ProfileRanking::line)) ==
          std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>{
              {"/m.py:1", {1000, 1}}, {"/m.py:3", {2000, 1}}, {"[unresolved]", {12000, 2}}});
    CHECK(table(r.rows(ProfileRanking::kernel)) == std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>{
                                    {"sdsc_fused_add_0@sdsc_fused_add_0_aaaaaaaa", {1000, 1}},
                                    {"sdsc_fused_mul_1@sdsc_fused_mul_1_bbbbbbbb", {2000, 1}},
                                    {a, {8000, 1}},
                                    {b, {4000, 1}}});
    CHECK(r.coverage.paired_bundles == 2);
    CHECK(r.coverage.dirless_bundles == 0);
    CHECK(codes(r) == std::vector<std::string>{"no-handles", "unknown-handle"});
    for (const auto& bundle : r.bundles) {
        if (bundle.resolution == Resolution::caches) {
            REQUIRE(bundle.kernel_dirs.size() == 1);
            CHECK(bundle.kernel_dirs[0].find(bundle.kernel_names[0]) != std::string::npos);
        }
    }
}

TEST_CASE("the JSON report parses and the text table fits its width") {
    auto sources = sidecar_sources();
    ProfileReport r = profile(sources, kernel(relu + "#1", "10") + ",\n" + kernel(tail, "3"));
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    std::string json = render_profile_json(r);
    REQUIRE_FALSE(parser.parse(json).get(doc));
    std::uint64_t version = 0;
    CHECK_FALSE(doc["sdscprov_profile"].get(version));
    CHECK(version == 2);
    simdjson::dom::array lines;
    REQUIRE_FALSE(doc["by_line"].get(lines));
    CHECK(lines.size() == 3);
    CHECK(render_profile_json(r) == json);

    ProfileTextOptions options;
    options.width = 60;
    options.top = 1;
    std::string text = render_profile_text(r, options);
    std::size_t rows_shown = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        std::string_view line(text.data() + start, end - start);
        std::size_t columns = 0;
        for (char c : line) {
            columns += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
        }
        CHECK(columns <= 60);
        rows_shown += line.find("  (") == 0 && line.find(" more ") != std::string_view::npos;
        start = end + 1;
    }
    CHECK(rows_shown == 3); // one "(N more ...)" line under each table
}

TEST_CASE("folded frames cannot break the format") {
    ProfileReport r;
    ProfileBundle b;
    b.root_label = "/a;b.py:1";
    b.aten_label = "aten.x";
    b.kernel_label = "k\nname";
    b.label = b.kernel_label;
    b.time.ns = 5;
    r.bundles.push_back(b);
    b.root_label = "/z.py:1";
    b.time.ns = 0; // nothing to draw
    r.bundles.push_back(b);
    CHECK(render_profile_folded(r) == "/a,b.py:1;aten.x;k?name 5\n");
}

TEST_CASE("one kernel row per compiled bundle: a name of two compiles is two rows") {
    test::TempDir tmp("sdscprov-profile");
    auto handle = [](const std::string& id, int line) {
        return "{\"id\": \"" + id +
               "\", \"source\": {\"file\": \"/m.py\", \"start_line\": " + std::to_string(line) +
               ", \"start_col\": 0, \"end_line\": null, \"end_col\": null}, \"aten_op\": "
               "\"aten.add.Tensor\", \"ir_chain\": [\"x\"], \"fused_from\": [], "
               "\"transform_history\": []}";
    };
    auto op = [&](const std::string& id, int line) {
        return "{\"0_add\": {\"debug_handle_\": " + handle(id, line) + "}}";
    };
    // Two compiles that both named a kernel sdsc_fused_add_0, and a third bundle whose
    // directory the cache kept twice (the same handle in both).
    tmp.file("inductor-spyre/sdsc_fused_add_0_aaaaaaaa/sdsc_0.json", op("11", 1));
    tmp.file("inductor-spyre/sdsc_fused_add_0_cccccccc/sdsc_0.json", op("12", 2));
    tmp.file("inductor-spyre/sdsc_fused_mul_1_dddddddd/sdsc_0.json", op("13", 3));
    tmp.file("inductor-spyre/sdsc_fused_mul_1_eeeeeeee/sdsc_0.json", op("13", 3));
    auto indexed = index_handles({tmp.root.string()});
    REQUIRE(indexed.problems.empty());
    PairingSources sources;
    sources.caches = std::move(indexed.index);
    const std::string a = "spyre_kernel_v1_fused_add_aaaaaaaaaaaaaaaa";
    const std::string c = "spyre_kernel_v1_fused_add_cccccccccccccccc";
    const std::string d = "spyre_kernel_v1_fused_mul_dddddddddddddddd";
    ProfileReport r =
        profile(sources, kernel(a + "#1", "1", "\"debug_handles\": [\"11\"]") + ",\n" +
                             kernel(c + "#1", "2", "\"debug_handles\": [\"12\"]") + ",\n" +
                             kernel(c + "#2", "4", "\"debug_handles\": [\"12\"]") + ",\n" +
                             kernel(d + "#1", "8", "\"debug_handles\": [\"13\"]"));
    CHECK(table(r.rows(ProfileRanking::kernel)) == std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>{
                                    {"sdsc_fused_add_0@sdsc_fused_add_0_aaaaaaaa", {1000, 1}},
                                    {"sdsc_fused_add_0@sdsc_fused_add_0_cccccccc", {6000, 2}},
                                    {"sdsc_fused_mul_1@dddddddddddddddd", {8000, 1}}});
    REQUIRE(r.rows(ProfileRanking::kernel).size() == 3);
    for (const auto& row : r.rows(ProfileRanking::kernel)) {
        REQUIRE(row.bundles.size() == 1);
        CHECK(r.bundles[row.bundles[0]].label == row.label);
    }
    // The bundle found in two directories is one row that lists both.
    const auto& twice = r.bundles[r.rows(ProfileRanking::kernel)[0].bundles[0]];
    CHECK(twice.key == "dddddddddddddddd");
    CHECK(twice.kernel_dirs.size() == 2);
    CHECK(render_profile_folded(r) ==
          "/m.py:1;aten.add.Tensor;sdsc_fused_add_0@sdsc_fused_add_0_aaaaaaaa 1000\n"
          "/m.py:2;aten.add.Tensor;sdsc_fused_add_0@sdsc_fused_add_0_cccccccc 6000\n"
          "/m.py:3;aten.add.Tensor;sdsc_fused_mul_1@dddddddddddddddd 8000\n");
    ProfileTextOptions options;
    options.rankings = {&ranking_spec(ProfileRanking::kernel)};
    options.shorten = false;
    std::string text = render_profile_text(r, options);
    CHECK(text.find("sdsc_fused_mul_1@dddddddddddddddd\n") != std::string::npos);
    CHECK(text.find("sdsc_fused_mul_1_dddddddd\n") != std::string::npos);
    CHECK(text.find("sdsc_fused_mul_1_eeeeeeee\n") != std::string::npos);
    std::string json = render_profile_json(r);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    REQUIRE_FALSE(parser.parse(json).get(doc));
    std::string_view label;
    REQUIRE_FALSE(doc["by_kernel"].at(0)["label"].get(label));
    CHECK(label == "sdsc_fused_mul_1@dddddddddddddddd");
    simdjson::dom::array dirs;
    REQUIRE_FALSE(doc["by_kernel"].at(0)["kernel_dirs"].get(dirs));
    CHECK(dirs.size() == 2);
}

TEST_CASE("a trace without device kernel events says where torch-spyre writes them") {
    PairingSources sources;
    ProfileReport r = profile(sources, "{\"ph\": \"X\", \"name\": \"aten::mm\", \"dur\": 50}");
    CHECK(r.coverage.kernel_events == 0);
    ProfileTextOptions options;
    options.width = 60;
    std::string text = render_profile_text(r, options);
    CHECK(text.find("no device kernel event found in the trace") != std::string::npos);
    CHECK(text.find("ProfilerActivity.PrivateUse1") != std::string::npos);
    ProfileReport some = profile(sources, kernel("spyre_kernel_v1_fused_x_aaaaaaaaaaaaaaaa", "1"));
    CHECK(render_profile_text(some, options).find("no device kernel event") == std::string::npos);
    CHECK(render_profile_text(some, options).find("no torch-spyre kernel") == std::string::npos);
}

TEST_CASE("a trace of another device's kernels says none is torch-spyre's, not where they are "
          "written") {
    PairingSources sources;
    ProfileReport r = profile(sources, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
                                       "\"ampere_sgemm_128x64_nn\", \"ts\": 10, \"dur\": 50},\n"
                                       "{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": "
                                       "\"Memcpy HtoD\", \"ts\": 70, \"dur\": 5}");
    CHECK(r.coverage.kernel_events == 0);
    ProfileTextOptions options;
    options.width = 1000;
    std::string text = render_profile_text(r, options);
    CHECK(text.find("no torch-spyre kernel event in the trace: none of its 2 device activities") !=
          std::string::npos);
    CHECK(text.find("no device kernel event found") == std::string::npos);
}
