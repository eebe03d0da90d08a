// The compiler's ideal-cycles file (perf/ideal_cycles.json): the TOTAL and sum rules, the
// category, the members kept, every file that cannot be used (a warning at line:col), the file
// read from a kernel directory as every other file is, and cycles turned into nanoseconds.
#include "sdscprov/profile/ideal.hpp"
#include "temp_dir.hpp"

#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace sdscprov;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t u64_max = std::numeric_limits<std::uint64_t>::max();
const std::string file = "k/perf/ideal_cycles.json";

using Names = std::vector<std::string>;

} // namespace

TEST_CASE("ideal: the kernel's ideal by the TOTAL entry, else by the sum of the entries") {
    struct Case {
        const char* what;
        std::string text;
        std::uint64_t cycles;
        IdealRule rule;
        std::optional<std::string> category;
        std::uint64_t entries;
        Names others;
    };
    const Case cases[] = {
        {"TOTAL among the entries: it gives the ideal, not their sum",
         R"([{"op_category": "matmul", "ideal_cycles": 700},
             {"op_category": "TOTAL", "ideal_cycles": 1000},
             {"op_category": "elementwise", "ideal_cycles": 200}])",
         1000,
         IdealRule::total_entry,
         "matmul",
         3,
         {}},
        {"TOTAL first, below the sum of the others",
         R"([{"op_category": "TOTAL", "ideal_cycles": 50}, {"op_category": "a", "ideal_cycles": 40},
             {"op_category": "b", "ideal_cycles": 41}])",
         50,
         IdealRule::total_entry,
         "b",
         3,
         {}},
        {"no TOTAL: the sum",
         R"([{"op_category": "matmul", "ideal_cycles": 700},
             {"op_category": "elementwise", "ideal_cycles": 200},
             {"op_category": "matmul", "ideal_cycles": 3}])",
         903,
         IdealRule::sum_of_entries,
         "matmul",
         3,
         {}},
        {"a TOTAL entry alone: no category",
         R"([{"op_category": "TOTAL", "ideal_cycles": 9}])",
         9,
         IdealRule::total_entry,
         std::nullopt,
         1,
         {}},
        {"'total' in lower case is an entry like any other",
         R"([{"op_category": "total", "ideal_cycles": 9}, {"op_category": "x", "ideal_cycles": 1}])",
         10,
         IdealRule::sum_of_entries,
         "total",
         2,
         {}},
        {"the category of the largest entry, the first of equal ones",
         R"([{"op_category": "a", "ideal_cycles": 5}, {"op_category": "b", "ideal_cycles": 500},
             {"op_category": "c", "ideal_cycles": 500}, {"op_category": "d", "ideal_cycles": 499}])",
         1504,
         IdealRule::sum_of_entries,
         "b",
         4,
         {}},
        {"zero cycles everywhere: an ideal of zero, not unknown",
         R"([{"op_category": "a", "ideal_cycles": 0}])",
         0,
         IdealRule::sum_of_entries,
         "a",
         1,
         {}},
        {"other members kept by name, each once, in the order first met",
         R"([{"ideal_cycles": 5, "op_category": "a", "op_name": "0_add", "core": 3},
             {"core": 1, "op_category": "TOTAL", "extra": null, "ideal_cycles": 6},
             {"op_name": "1_mul", "ideal_cycles": 1, "op_category": "b", "nested": {"x": [1]}}])",
         6, IdealRule::total_entry, "a", 3, Names{"op_name", "core", "extra", "nested"}},
        {"the largest count there is",
         R"([{"op_category": "a", "ideal_cycles": 18446744073709551615}])",
         u64_max,
         IdealRule::sum_of_entries,
         "a",
         1,
         {}},
        {"a sum past 2^64 does not matter when TOTAL gives the ideal",
         R"([{"op_category": "a", "ideal_cycles": 18446744073709551615},
             {"op_category": "b", "ideal_cycles": 9223372036854775808},
             {"op_category": "TOTAL", "ideal_cycles": 7}])",
         7,
         IdealRule::total_entry,
         "a",
         3,
         {}},
        {"a sum of exactly 2^64-1",
         R"([{"op_category": "a", "ideal_cycles": 18446744073709551614},
             {"op_category": "b", "ideal_cycles": 1}])",
         u64_max,
         IdealRule::sum_of_entries,
         "a",
         2,
         {}},
        {"a byte order mark, CRLF line ends and tabs",
         "\xEF\xBB\xBF[\r\n\t{\"op_category\": \"x\",\r\n\t \"ideal_cycles\": 12},\r\n"
         "\t{\"op_category\": \"TOTAL\", \"ideal_cycles\": 20}\r\n]\r\n",
         20,
         IdealRule::total_entry,
         "x",
         2,
         {}},
        {"a non-ASCII category",
         R"([{"op_category": "r\u00e9duction", "ideal_cycles": 3}])",
         3,
         IdealRule::sum_of_entries,
         "r\xC3\xA9"
         "duction",
         1,
         {}},
    };
    IdealCyclesReader reader;
    for (const auto& c : cases) {
        const std::string what = c.what;
        CAPTURE(what);
        IdealCyclesRead r = reader.parse(file, c.text);
        CHECK_FALSE(r.problem);
        REQUIRE(r.ideal);
        CHECK(r.ideal->cycles == c.cycles);
        CHECK(r.ideal->rule == c.rule);
        CHECK(r.ideal->category == c.category);
        CHECK(r.ideal->entries == c.entries);
        CHECK(r.ideal->other_members == c.others);
        CHECK_FALSE(r.absent());
    }
    CHECK(to_string(IdealRule::total_entry) == "total");
    CHECK(to_string(IdealRule::sum_of_entries) == "sum");
}

TEST_CASE("ideal: a file that cannot be used is a warning at its line and column, and no ideal") {
    struct Case {
        const char* what;
        std::string text;
        std::size_t line, col;
        const char* says;
    };
    const Case cases[] = {
        {"an empty file", "", 1, 1, "empty document"},
        {"not JSON: a missing bracket", "[{\"op_category\": \"a\", \"ideal_cycles\": 1}\n", 2, 1,
         "unexpected end of input"},
        {"not JSON: a missing comma on line 2",
         "[\n  {\"op_category\": \"a\" \"ideal_cycles\": 1}]", 2, 23,
         "expected ',' or '}' after object member"},
        {"valid JSON, then more", R"([{"op_category": "a", "ideal_cycles": 1}] x)", 1, 43,
         "unexpected content after the JSON value"},
        {"a truncated file", R"([{"op_category": "a", "ideal_cycles": 1}, {"op_cat)", 1, 51,
         "unterminated string"},
        {"a string that is not UTF-8", "[{\"op_category\": \"\xC3(\", \"ideal_cycles\": 1}]", 1, 19,
         "invalid UTF-8"},
        {"cycles past 2^64", R"([{"op_category": "a", "ideal_cycles": 18446744073709551616}])", 1,
         39, "integer out of range"},
        {"an object, not an array", R"({"op_category": "TOTAL", "ideal_cycles": 1})", 1, 1,
         "must be an array"},
        {"an empty array", "  []", 1, 3, "empty array"},
        {"an entry that is not an object", R"([{"op_category": "a", "ideal_cycles": 1}, 7])", 1, 43,
         "entry 2 must be an object"},
        {"an entry without ideal_cycles", "[\n {\"op_category\": \"a\"}]", 2, 2,
         "entry 1 has no ideal_cycles"},
        {"an entry without op_category", "[{\"ideal_cycles\": 3}]", 1, 2,
         "entry 1 has no op_category"},
        {"negative cycles", R"([{"op_category": "a", "ideal_cycles": -5}])", 1, 39,
         "entry 1's ideal_cycles must be a non-negative integer, not -5"},
        {"fractional cycles", R"([{"op_category": "a", "ideal_cycles": 12.5}])", 1, 39,
         "non-negative integer, not 12.5"},
        {"an integer written with a fraction", R"([{"op_category": "a", "ideal_cycles": 12.0}])", 1,
         39, "not 12.0"},
        {"an integer written with an exponent", R"([{"op_category": "a", "ideal_cycles": 1e3}])", 1,
         39, "not 1e3"},
        {"cycles as a string", R"([{"op_category": "a", "ideal_cycles": "12"}])", 1, 39,
         "not \"12\""},
        {"cycles null", R"([{"op_category": "a", "ideal_cycles": null}])", 1, 39, "not null"},
        {"a long value is shown cut",
         R"([{"op_category": "a", "ideal_cycles": [1111111111, 2222222222, 3333333333, 4444444444]}])",
         1, 39, "not [1111111111, 2222222222, 3333333333, 444..."},
        {"op_category not a string", R"([{"op_category": 5, "ideal_cycles": 1}])", 1, 18,
         "entry 1's op_category must be a string"},
        {"a member twice in an entry",
         R"([{"op_category": "a", "ideal_cycles": 1, "ideal_cycles": 2}])", 1, 42,
         "duplicate member 'ideal_cycles'"},
        {"two TOTAL entries",
         "[\n {\"op_category\": \"TOTAL\", \"ideal_cycles\": 4},\n"
         " {\"op_category\": \"TOTAL\", \"ideal_cycles\": 4}\n]",
         3, 2, "a second \"TOTAL\" entry (the first is at 2:2)"},
        {"entries adding up past 2^64 with no TOTAL",
         R"([{"op_category": "a", "ideal_cycles": 18446744073709551615},
             {"op_category": "b", "ideal_cycles": 1}])",
         1, 1, "add up to more than 18446744073709551615 cycles"},
        {"after a byte order mark, on a CRLF line 2",
         "\xEF\xBB\xBF[\r\n{\"op_category\": \"a\", \"ideal_cycles\": -1}]", 2, 38, "not -1"},
        {"the first problem only, in text order",
         R"([{"op_category": "a", "ideal_cycles": -1}, {"ideal_cycles": 1}])", 1, 39, "not -1"},
    };
    IdealCyclesReader reader;
    for (const auto& c : cases) {
        const std::string what = c.what;
        CAPTURE(what);
        IdealCyclesRead r = reader.parse(file, c.text);
        CHECK_FALSE(r.ideal);
        CHECK_FALSE(r.absent());
        REQUIRE(r.problem);
        CHECK(r.problem->path == file);
        CHECK(r.problem->code == ProblemCode::bad_ideal_cycles);
        CHECK(r.problem->severity == Severity::warning);
        CHECK(r.problem->pos.line == c.line);
        CHECK(r.problem->pos.col == c.col);
        CAPTURE(r.problem->message);
        CHECK(r.problem->message.find(c.says) != std::string::npos);
        CHECK(r.problem->message.ends_with(": the kernel has no ideal"));
    }
    CHECK(to_string(ProblemCode::bad_ideal_cycles) == "bad-ideal-cycles");
}

TEST_CASE("ideal: one reader reads file after file, a bad one leaving nothing behind") {
    IdealCyclesReader reader;
    CHECK(reader.parse(file, R"([{"op_category": "a", "ideal_cycles": 4},)").problem);
    IdealCyclesRead good = reader.parse(file, R"([{"op_category": "b", "ideal_cycles": 2}])");
    REQUIRE(good.ideal);
    CHECK(good.ideal->cycles == 2);
    CHECK(good.ideal->category == "b");
    CHECK(reader.parse(file, R"([{"op_category": "TOTAL", "ideal_cycles": 1}, 3])").problem);
    IdealCyclesRead again = reader.parse(file, R"([{"op_category": "c", "ideal_cycles": 8}])");
    REQUIRE(again.ideal);
    CHECK(again.ideal->rule == IdealRule::sum_of_entries); // the TOTAL before is forgotten
    CHECK(again.ideal->cycles == 8);
}

TEST_CASE("ideal: the file of a kernel directory, read with the safety of every read") {
    test::TempDir t("sdscprov-ideal");
    const std::string good = R"([{"op_category": "matmul", "ideal_cycles": 300}])";
    IdealCyclesReader reader;
    auto read = [&](const std::string& dir, IdealReadOptions options = {}) {
        return reader.read((t.root / dir).string(), options);
    };
    auto refused = [&](const std::string& dir, const char* says, IdealReadOptions options = {}) {
        CAPTURE(dir);
        IdealCyclesRead r = read(dir, options);
        CHECK_FALSE(r.ideal);
        REQUIRE(r.problem);
        CHECK(r.problem->path == (t.root / dir / "perf/ideal_cycles.json").string());
        CHECK(r.problem->code == ProblemCode::bad_ideal_cycles);
        CHECK(r.problem->severity == Severity::warning);
        CAPTURE(r.problem->message);
        CHECK(r.problem->message.find(says) != std::string::npos);
    };

    t.file("plain/sdsc_0.json");
    t.file("empty_perf/perf/other.json");
    CHECK(read("plain").absent()); // the compile ran without SENPERFORMANCE=2
    CHECK(read("empty_perf").absent());
    CHECK(read("gone").absent());

    t.file("ok/perf/ideal_cycles.json", good);
    IdealCyclesRead ok = read("ok");
    REQUIRE(ok.ideal);
    CHECK(ok.ideal->cycles == 300);
    CHECK_FALSE(ok.problem);

    t.file("bad/perf/ideal_cycles.json", "[\n  {\"op_category\": \"a\", \"ideal_cycles\": -3}]");
    refused("bad", "not -3");
    CHECK(read("bad").problem->pos.line == 2);
    CHECK(read("bad").problem->pos.col == 40);

    // Refused by size before a byte is read.
    IdealReadOptions small;
    small.max_file_size = good.size() - 1;
    refused("ok", "more than --max-file-size", small);
    small.max_file_size = good.size();
    CHECK(read("ok", small).ideal);

    // A fifo has no writer: refused at once, not waited on.
    fs::create_directories(t.root / "fifo/perf");
    REQUIRE(::mkfifo((t.root / "fifo/perf/ideal_cycles.json").c_str(), 0600) == 0);
    refused("fifo", "is a fifo");
    fs::create_directories(t.root / "dir/perf/ideal_cycles.json");
    refused("dir", "is a directory");
    t.file("perf_file/perf", "not a directory");
    refused("perf_file", "Not a directory");

    // Symbolic links, at the file or at perf/, lead anywhere: refused unless followed.
    fs::create_directories(t.root / "link/perf");
    fs::create_symlink(t.root / "ok/perf/ideal_cycles.json",
                       t.root / "link/perf/ideal_cycles.json");
    refused("link", "it is a symbolic link, not followed");
    fs::create_directories(t.root / "perf_link");
    fs::create_directory_symlink(t.root / "ok/perf", t.root / "perf_link/perf");
    refused("perf_link", "its directory perf is a symbolic link");
    IdealReadOptions follow;
    follow.follow_symlinks = true;
    CHECK(read("link", follow).ideal);
    CHECK(read("perf_link", follow).ideal);
    fs::create_directories(t.root / "dangling/perf");
    fs::create_symlink(t.root / "nowhere", t.root / "dangling/perf/ideal_cycles.json");
    refused("dangling", "it is a symbolic link");
    refused("dangling", "cannot read", follow);

    if (::geteuid() != 0) { // root reads whatever the mode says
        t.file("unreadable/perf/ideal_cycles.json", good);
        fs::permissions(t.root / "unreadable/perf/ideal_cycles.json", fs::perms::none);
        refused("unreadable", "cannot read ideal cycles file: Permission denied");
    }
}

TEST_CASE("ideal: cycles to nanoseconds at the core clock, exact and rounded half up") {
    struct Case {
        std::uint64_t cycles;
        std::uint32_t mhz;
        std::uint64_t ns;
    };
    const Case cases[] = {
        {0, 1100, 0},
        {1100, 1100, 1000},
        {1650, 1100, 1500},
        {11, 1100, 10},
        {1, 1100, 1}, // 0.909...
        {6, 1100, 5}, // 5.4545...
        {1, 2000, 1}, // 0.5: half up
        {3, 2000, 2}, // 1.5
        {1, 2001, 0}, // 0.49975
        {2, 3000, 1}, // 0.666...
        {1, 3000, 0}, // 0.333...
        {5, 1000, 5},
        {7, 1, 7000},
        {12345678901234, 1100, 11223344455667}, // 11223344455667.27...
        {u64_max, 1000, u64_max},
        {u64_max, 1100, 16769767339735956014ULL}, // 16769767339735956013.6...
        {u64_max, 999, u64_max},                  // does not fit: the largest
        {u64_max / 1000 + 1, 1, u64_max},
        {42, 0, u64_max}, // never divides by zero
    };
    for (const auto& c : cases) {
        CAPTURE(c.cycles);
        CAPTURE(c.mhz);
        CHECK(ideal_ns(c.cycles, c.mhz) == c.ns);
    }
    CHECK(default_core_mhz == 1100);
}

// The generator's ideal-cycles files (scripts/gen_cache.py --ideal-cycles): every kernel
// directory reads as its manifest says, computed by the generator with its own arithmetic.
TEST_CASE("ideal: the files of a generated cache read as its manifest says") {
    test::TempDir t("sdscprov-ideal-gen");
    const fs::path repo = fs::path(SDSCPROV_TESTDATA).parent_path();
    const std::string command = std::string(SDSCPROV_PYTHON) + " '" +
                                (repo / "scripts/gen_cache.py").string() + "' '" +
                                (t.root / "cache").string() +
                                "' --files 400 --seed 4 --layout mixed --jobs 1 "
                                "--ideal-cycles 0.85 --ideal-malformed 0.3 --manifest '" +
                                (t.root / "manifest.json").string() + "' 2>/dev/null";
    REQUIRE(std::system(command.c_str()) == 0);
    simdjson::dom::parser parser;
    simdjson::dom::element manifest;
    REQUIRE(parser.load((t.root / "manifest.json").string()).get(manifest) == simdjson::SUCCESS);

    IdealCyclesReader reader;
    std::size_t ok = 0, malformed = 0, absent = 0;
    for (simdjson::dom::element entry : manifest["kernel_dirs"].get_array()) {
        const std::string dir(std::string_view(entry["dir"].get_string()));
        CAPTURE(dir);
        simdjson::dom::element want = entry["ideal"];
        const std::string_view state = want["state"].get_string();
        IdealCyclesRead r = reader.read((t.root / "cache" / dir).string());
        if (state == "absent") {
            CHECK(r.absent());
            ++absent;
        } else if (state == "malformed") {
            REQUIRE(r.problem);
            CAPTURE(r.problem->message);
            CHECK(r.problem->pos.line == std::uint64_t(want["line"].get_uint64()));
            CHECK(r.problem->pos.col == std::uint64_t(want["col"].get_uint64()));
            CHECK_FALSE(r.ideal);
            ++malformed;
        } else {
            REQUIRE(r.ideal);
            CHECK(r.ideal->cycles == std::uint64_t(want["cycles"].get_uint64()));
            CHECK(to_string(r.ideal->rule) == std::string_view(want["rule"].get_string()));
            if (want["category"].is_null()) {
                CHECK_FALSE(r.ideal->category);
            } else {
                CHECK(r.ideal->category == std::string_view(want["category"].get_string()));
            }
            CHECK(r.ideal->entries == std::uint64_t(want["entries"].get_uint64()));
            Names others;
            for (simdjson::dom::element name : want["other_members"].get_array()) {
                others.emplace_back(std::string_view(name.get_string()));
            }
            CHECK(r.ideal->other_members == others);
            ++ok;
        }
    }
    // The cache holds every state, so the loop above checked each.
    CHECK(ok > 10);
    CHECK(malformed >= 9); // every kind of unusable file, drawn in turn
    CHECK(absent > 0);
}
