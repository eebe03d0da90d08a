// A ranking is data (profile/ranking.hpp): a view of its own made from one row builder and one row
// of the table, with nothing else written for it, is built over a report's bundles and shown by
// `--by` in text, in JSON and in CSV as the built-in rankings are.
#include "sdscprov/profile/profile.hpp"
#include "sdscprov/profile/ranking.hpp"
#include "sdscprov/report/csv_printers.hpp"
#include "sdscprov/report/profile_printers.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <set>
#include <simdjson.h>
#include <vector>

using namespace sdscprov;

namespace {

// The new view: by source file, a bundle counting fully for each file its lines are in.
void file_keys(const ProfileBundle& b, std::vector<RowKey>& out) {
    std::set<std::string> files;
    for (const auto& l : b.lines) {
        files.insert(l.file);
    }
    for (const auto& f : files) {
        out.push_back({f, nullptr});
    }
    if (files.empty()) {
        out.push_back({"[no source]", nullptr});
    }
}

ProfileBundle bundle(std::string key, std::vector<SourceLine> lines, std::uint64_t ns) {
    ProfileBundle b;
    b.key = std::move(key);
    b.resolution = Resolution::sidecar;
    b.lines = std::move(lines);
    b.aten_ops = {"aten.mm.default"};
    b.kernel_names = {"sdsc_fused_mm_" + b.key};
    b.time.events = 2;
    b.time.ns = ns;
    ProfileBuilder::label_frames(b);
    return b;
}

} // namespace

TEST_CASE("ranking table: a new view from a row builder and a table row, in text, JSON, CSV and --by") {
    std::vector<RankingSpec> table(builtin_rankings().begin(), builtin_rankings().end());
    table.push_back({.word = "file",
                     .json_key = "by_file",
                     .json_name = "file",
                     .kind = RowKind::name,
                     .name = "Source files",
                     .change_title = "By source file",
                     .page_title = "Source files",
                     .column = "source file",
                     .page_column = "source file",
                     .plural = "files",
                     .note = "a bundle counts fully for each of its files: the rows can add up to "
                             "more than",
                     .shares_whole = true,
                     .keys = file_keys});

    ProfileReport report;
    report.trace = "t.json";
    report.bundles = {bundle("aaaaaaaaaaaaaaaa", {{"/m/a.py", 3}, {"/m/b.py", 9}}, 700),
                      bundle("bbbbbbbbbbbbbbbb", {{"/m/a.py", 5}}, 200),
                      bundle("cccccccccccccccc", {}, 100)};
    ProfileBuilder::label_bundles(report.bundles);
    report.coverage.kernel_events = 6;
    report.coverage.kernel_ns = 1000;
    build_rankings(report, table, {});

    REQUIRE(report.rankings.size() == table.size());
    const Ranking* files = report.ranking(table.back());
    REQUIRE(files != nullptr);
    REQUIRE(files->rows.size() == 3);
    CHECK(files->rows[0].label == "/m/a.py"); // 700 + 200
    CHECK(files->rows[0].time.ns == 900);
    CHECK(files->rows[0].bundles == std::vector<std::uint32_t>{0, 1});
    CHECK(files->rows[1].label == "/m/b.py");
    CHECK(files->rows[1].time.ns == 700);
    CHECK(files->rows[2].label == "[no source]");

    // --by takes its word, with the built-in ones and the orders.
    RankingChoice by;
    std::string unknown;
    REQUIRE(choose_by({"file", "lost"}, table, by, unknown));
    CHECK(by.tables == std::vector<const RankingSpec*>{&table.back()});
    CHECK(by.order == ProfileOrder::lost);
    CHECK_FALSE(choose_by({"module"}, table, by, unknown));
    CHECK(unknown == "module");
    CHECK(by_words(table).size() == table.size() + 4); // and time, lost, spread, idle
    REQUIRE(choose_by({"idle"}, table, by, unknown));
    CHECK(by.order == ProfileOrder::idle);

    // Text: its table, titled and headed from its row, alone when --by names it alone.
    ProfileTextOptions text;
    text.shorten = false;
    choose_rankings(text, RankingChoice{{&table.back()}, ProfileOrder::time}, report);
    std::string shown = render_profile_text(report, text);
    CHECK(shown.find("Source files by device time") != std::string::npos);
    CHECK(shown.find("source file") != std::string::npos);
    CHECK(shown.find("/m/b.py") != std::string::npos);
    CHECK(shown.find("Source lines by device time") == std::string::npos);
    // Without --by: every ranking of the report, the new one among them.
    ProfileTextOptions all;
    choose_rankings(all, RankingChoice{}, report);
    CHECK(render_profile_text(report, all).find("Source files by device time") !=
          std::string::npos);

    // JSON: its rows under its key, named by its member.
    simdjson::dom::parser parser;
    std::string json = render_profile_json(report);
    simdjson::dom::element doc = parser.parse(json);
    simdjson::dom::array rows;
    REQUIRE_FALSE(doc["by_file"].get(rows));
    REQUIRE(rows.size() == 3);
    std::string_view name;
    REQUIRE_FALSE(rows.at(1)["file"].get(name));
    CHECK(name == "/m/b.py");
    std::uint64_t ns = 0;
    REQUIRE_FALSE(rows.at(0)["device_ns"].get(ns));
    CHECK(ns == 900);
    CHECK(rows.at(2)["file"].is_null()); // a "[...]" row names nothing

    // CSV: its rows, the name column named by its member (empty for a "[...]" row), its file.
    const std::string csv = render_ranking_csv(report, table.back());
    CHECK(csv.starts_with("label,file,device_ns,share,events,stages.DMI.ticks,"));
    CHECK(csv.find("\n/m/a.py,/m/a.py,900,0.9,4,") != std::string::npos);
    CHECK(csv.find("\n/m/b.py,/m/b.py,700,0.7,2,") != std::string::npos);
    CHECK(csv.find("\n[no source],,100,0.1,2,") != std::string::npos);
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 4);
    CHECK(ranking_csv_name(table.back()) == "file.csv");
}
