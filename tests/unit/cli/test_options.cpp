// The command line converted into the library's option types, through the commands' own option
// definitions: --format into Format, --shard into Shard, the walk's flags into DiscoverOptions,
// the write flags and --durability into WriteSettings, --color and --value into their enums,
// profile's --by into the tables and their order; every numeric option a plain decimal number in
// its range, through one parser.
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/profile.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <doctest/doctest.h>
#include <initializer_list>
#include <string>
#include <vector>

using namespace sdscprov;
using namespace sdscprov::cli;

namespace {

// Parses `args` (after the program name) into `options` with the `add` definitions of `command`;
// the parse error's message, empty when the line is accepted.
template <class Options, class Add>
std::string parse(const char* command, Add add, Options& options,
                  std::initializer_list<const char*> args) {
    CLI::App app{"test", "sdscprov"};
    add(*app.add_subcommand(command, "the command"), options);
    std::vector<std::string> argv{command};
    argv.insert(argv.end(), args.begin(), args.end());
    std::reverse(argv.begin(), argv.end()); // CLI11 takes a reversed vector of arguments
    try {
        app.parse(argv);
    } catch (const CLI::ParseError& e) {
        return e.what();
    }
    return {};
}

} // namespace

TEST_CASE("options: every format name stands for its own format and back") {
    struct Named {
        const char* name;
        Format format;
    };
    for (const Named& named : {Named{"text", Format::text}, Named{"json", Format::json},
                               Named{"markdown", Format::markdown}, Named{"html", Format::html},
                               Named{"sarif", Format::sarif}, Named{"github", Format::github},
                               Named{"junit", Format::junit}, Named{"folded", Format::folded},
                               Named{"csv", Format::csv},
                               Named{"acelyzer-categories", Format::acelyzer_categories}}) {
        const std::string_view name = named.name;
        const Format format = named.format;
        CAPTURE(name);
        CHECK(format_from_name(name) == format);
        CHECK(to_string(format) == name);
    }
    CHECK_FALSE(format_from_name("xml"));
    CHECK_FALSE(format_from_name("JSON"));
}

TEST_CASE("options: scan's --format, --shard and walk flags reach the pipeline's own types") {
    CommonOptions o;
    CHECK(parse("scan", add_scan_options, o,
                {"--format", "markdown", "--shard", "2/3", "--include-incomplete",
                 "--follow-symlinks", "-j", "3", "--max-file-size", "1000", "--color", "never",
                 "cache"})
              .empty());
    CHECK(o.format == Format::markdown);
    CHECK(o.color == ColorMode::never);
    REQUIRE(o.shard);
    CHECK(o.shard->index == 2);
    CHECK(o.shard->count == 3);
    PipelineOptions p = pipeline_options(o);
    REQUIRE(p.shard);
    CHECK(p.shard->index == 2);
    CHECK(p.shard->count == 3);
    CHECK(p.jobs == 3);
    CHECK(p.discover.include_incomplete);
    CHECK(p.discover.follow_symlinks);
    CHECK_FALSE(p.discover.find_temps);
    CHECK(p.scan.max_file_size == 1000);
    CHECK(o.paths == std::vector<std::string>{"cache"});
}

TEST_CASE("options: without the options, the defaults") {
    CommonOptions o;
    CHECK(parse("scan", add_scan_options, o, {"cache"}).empty());
    CHECK(o.format == Format::text);
    CHECK(o.color == ColorMode::automatic);
    CHECK_FALSE(o.shard);
    PipelineOptions p = pipeline_options(o);
    CHECK_FALSE(p.shard);
    CHECK_FALSE(p.discover.include_incomplete);
    CHECK_FALSE(p.discover.follow_symlinks);
}

TEST_CASE("options: a format or shard outside the accepted is refused with the reason") {
    CommonOptions o;
    CHECK(parse("scan", add_scan_options, o, {"--format", "sarif", "cache"}) ==
          "--format: sarif not in {text,json,markdown,html,csv}");
    CHECK(parse("scan", add_scan_options, o, {"--shard", "4/3", "cache"}) ==
          "--shard: '4/3': I must be from 1 to 3 (shards are numbered from 1)");
    CheckCli check;
    CHECK(parse("check", add_check_options, check, {"--format", "markdown", "cache"}) ==
          "--format: markdown not in {text,json,sarif,github,junit,html,csv}");
}

TEST_CASE("options: each command's formats map to their own values") {
    for (const char* name : {"text", "json", "sarif", "github", "junit", "html"}) {
        CAPTURE(name);
        CheckCli check;
        REQUIRE(parse("check", add_check_options, check, {"--format", name, "cache"}).empty());
        CHECK(to_string(check.common.format) == name);
    }
    for (const char* name : {"text", "json", "folded", "html", "junit", "github", "sarif"}) {
        CAPTURE(name);
        ProfileCli profile;
        REQUIRE(
            parse("profile", add_profile_options, profile, {"--format", name, "t.json"}).empty());
        CHECK(to_string(profile.format) == name);
    }
    ExplainCli explain;
    REQUIRE(parse("explain", add_explain_options, explain,
                  {"--format", "html", "--include-incomplete", "--color", "always", "k"})
                .empty());
    CHECK(explain.format == Format::html);
    CHECK(explain.color == ColorMode::always);
    CHECK(explain.discover.include_incomplete);
    CHECK_FALSE(explain.discover.follow_symlinks);
}

TEST_CASE("options: profile's --value and walk flags") {
    ProfileCli o;
    REQUIRE(
        parse("profile", add_profile_options, o, {"--value", "lost", "--follow-symlinks", "t.json"})
            .empty());
    CHECK(o.value == FoldedValue::lost);
    CHECK(o.discover.follow_symlinks);
    CHECK_FALSE(o.discover.include_incomplete);
    ProfileCli ideal;
    REQUIRE(parse("profile", add_profile_options, ideal, {"--value", "ideal", "t.json"}).empty());
    CHECK(ideal.value == FoldedValue::ideal);
    ProfileCli plain;
    REQUIRE(parse("profile", add_profile_options, plain, {"t.json"}).empty());
    CHECK(plain.value == FoldedValue::time);
}

TEST_CASE("options: profile's --by becomes the tables in the order given and the last order") {
    ProfileCli o;
    REQUIRE(parse("profile", add_profile_options, o,
                  {"--by", "kernel,lost", "--by", "aten", "--by", "line,time,lost", "t.json"})
                .empty());
    CHECK(o.by.tables == std::vector<const RankingSpec*>{&ranking_spec(ProfileRanking::kernel),
                                                         &ranking_spec(ProfileRanking::aten),
                                                         &ranking_spec(ProfileRanking::line)});
    CHECK(o.by.order == ProfileOrder::lost);
    ProfileCli order_only;
    REQUIRE(parse("profile", add_profile_options, order_only, {"--by", "lost", "t.json"}).empty());
    CHECK(order_only.by.tables.empty());
    CHECK(order_only.by.order == ProfileOrder::lost);
    ProfileCli plain;
    REQUIRE(parse("profile", add_profile_options, plain, {"t.json"}).empty());
    CHECK(plain.by.tables.empty());
    CHECK(plain.by.order == ProfileOrder::time);
    ProfileCli bad;
    CHECK(parse("profile", add_profile_options, bad, {"--by", "line,speed", "t.json"})
              .find("speed") != std::string::npos);
    // One word list each time: the trace after it, and an option after that, are not taken for
    // more of its words.
    ProfileCli before_trace;
    REQUIRE(parse("profile", add_profile_options, before_trace,
                  {"--by", "idle", "t.json", "--top", "3"}) == "");
    CHECK(before_trace.trace == "t.json");
    CHECK(before_trace.by.order == ProfileOrder::idle);
}

TEST_CASE("options: strip's write flags become one WriteSettings, and a writing run finds temps") {
    struct Case {
        std::initializer_list<const char*> args;
        WriteMode mode;
        Durability durability;
        bool diff;
    };
    for (const auto& c : {
             Case{{"cache"}, WriteMode::write, Durability::batch, false},
             Case{{"--dry-run", "cache"}, WriteMode::dry_run, Durability::batch, false},
             Case{{"--diff", "cache"}, WriteMode::dry_run, Durability::batch, true},
             Case{{"--check", "--diff", "cache"}, WriteMode::check, Durability::batch, true},
             Case{{"--check", "--dry-run", "cache"}, WriteMode::check, Durability::batch, false},
             Case{{"--durability", "none", "cache"}, WriteMode::write, Durability::none, false},
             Case{{"--durability", "full", "cache"}, WriteMode::write, Durability::full, false},
         }) {
        StripCli o;
        REQUIRE(parse("strip", add_strip_options, o, c.args).empty());
        CHECK(o.strip.write.mode == c.mode);
        CHECK(o.strip.write.durability == c.durability);
        CHECK(o.strip.write.diff == c.diff);
        CHECK(o.common.discover.find_temps == (c.mode == WriteMode::write));
        CHECK_FALSE(o.strip.remove);
    }
    StripCli removing;
    REQUIRE(parse("strip", add_strip_options, removing, {"--remove", "cache"}).empty());
    CHECK(removing.strip.remove);
    StripCli bad;
    CHECK(parse("strip", add_strip_options, bad, {"--durability", "some", "cache"}) ==
          "--durability: some not in {none,batch,full}");
}

TEST_CASE("options: --help lists a choice's names with the default's name") {
    CLI::App app{"test", "sdscprov"};
    StripCli strip;
    auto* cmd = app.add_subcommand("strip", "the command");
    add_strip_options(*cmd, strip);
    std::string help = cmd->help();
    CHECK(help.find("--format TEXT:{text,json}=text") != std::string::npos);
    CHECK(help.find("--color TEXT:{auto,always,never}=auto") != std::string::npos);
    CHECK(help.find("--durability TEXT:{none,batch,full}=batch") != std::string::npos);
    CHECK(help.find("--shard I/N") != std::string::npos);
}

TEST_CASE("options: a plain decimal number: digits, and a point for a real one, in the range") {
    std::string why;
    const WholeRange upto_1024{0, 1024};
    CHECK(parse_decimal("0", upto_1024, why) == 0U);
    CHECK(parse_decimal("7", upto_1024, why) == 7U);
    CHECK(parse_decimal("007", upto_1024, why) == 7U); // leading zeros: decimal, not octal
    CHECK(parse_decimal("1024", upto_1024, why) == 1024U);
    CHECK(parse_decimal("18446744073709551615", WholeRange{}, why) == UINT64_MAX);
    CHECK(why.empty());
    for (const char* bad : {"nan", "NaN", "-nan", " 5", "5 ", "0x10", "1e3", "", "-1", "+5", "1.5",
                            "1025", "inf", "5\n", "18446744073709551616"}) {
        const std::string given = bad;
        CAPTURE(given);
        why.clear();
        CHECK_FALSE(parse_decimal(bad, WholeRange{0, 1024}, why));
        CHECK(why == "a whole number from 0 to 1024 is needed (decimal digits)");
    }
    CHECK_FALSE(parse_decimal("0", WholeRange{1, 1024}, why)); // the low end too
    for (const auto& [text, value] : std::initializer_list<std::pair<const char*, double>>{
             {"0", 0}, {"2.5", 2.5}, {"100", 100}, {"100.000", 100}, {"007.50", 7.5}}) {
        const std::string given = text;
        CAPTURE(given);
        auto n = parse_decimal(text, RealRange{0, 100}, why);
        REQUIRE(n);
        CHECK(*n == value);
    }
    for (const char* bad : {"nan", "NaN", "-nan", " 5", "5 ", "0x10", "0x1p3", "1e3", "1E3", "",
                            "-1", "-0", "+5", ".5", "5.", "1.2.3", "inf", "infinity", "100.5",
                            "1,5"}) {
        const std::string given = bad;
        CAPTURE(given);
        why.clear();
        CHECK_FALSE(parse_decimal(bad, RealRange{0, 100}, why));
        CHECK(why == "a number from 0 to 100 is needed (decimal digits, with a point for a "
                     "fraction: 2.5)");
    }
    // No upper end: any plain number a double holds.
    CHECK(parse_decimal("100000", RealRange{}, why) == 100000.0);
    CHECK_FALSE(parse_decimal(std::string(400, '9'), RealRange{}, why));
    CHECK(why == "a number of at least 0 is needed (decimal digits, with a point for a fraction: "
                 "2.5)");
    CHECK(decimal_text(2.5) == "2.5");
    CHECK(decimal_text(1.0) == "1");
    CHECK(decimal_text(std::uint64_t{20}) == "20");
}

namespace {

using ParseInto = std::function<std::string(std::initializer_list<const char*>)>;

// One numeric option of one command: a value it takes, and the refusal's reason.
struct NumericOption {
    const char* command;
    const char* option;
    const char* valid;
    std::string needed;
    ParseInto parse_into;
};

// Parses a command line into a fresh Options; when it is accepted, what `get` reads of the
// options must be `expected`.
template <class Options, class Add, class Get, class T>
ParseInto into(const char* command, Add add, Get get, T expected) {
    return [=](std::initializer_list<const char*> args) {
        Options o;
        std::string error = parse(command, add, o, args);
        if (error.empty()) {
            CHECK(get(o) == expected);
        }
        return error;
    };
}

std::string whole(const char* range) {
    return std::string("a whole number from ") + range + " is needed (decimal digits)";
}

} // namespace

TEST_CASE("options: every numeric option of every command takes a plain decimal number only") {
    const std::string jobs = whole("1 to 1024");
    const std::string size = whole("0 to 9223372036854775807");
    const std::string top = whole("0 to 18446744073709551615");
    const std::string mhz = whole("1 to 1000000");
    const std::string percent =
        "a number from 0 to 100 is needed (decimal digits, with a point for a fraction: 2.5)";
    const std::string over =
        "a number of at least 0 is needed (decimal digits, with a point for a fraction: 2.5)";
    auto jobs_of = [](const CommonOptions& o) { return o.jobs; };
    auto size_of = [](const CommonOptions& o) { return o.max_file_size; };
    const NumericOption options[] = {
        {"scan", "--jobs", "3", jobs, into<CommonOptions>("scan", add_scan_options, jobs_of, 3U)},
        {"scan", "-j", "1024", jobs,
         into<CommonOptions>("scan", add_scan_options, jobs_of, 1024U)},
        {"scan", "--max-file-size", "100", size,
         into<CommonOptions>("scan", add_scan_options, size_of, std::uint64_t{100})},
        {"annotate", "-j", "2", jobs,
         into<AnnotateCli>(
             "annotate", add_annotate_options, [&](const AnnotateCli& o) { return o.common.jobs; },
             2U)},
        {"strip", "--jobs", "5", jobs,
         into<StripCli>(
             "strip", add_strip_options, [&](const StripCli& o) { return o.common.jobs; }, 5U)},
        {"check", "--max-file-size", "0", size,
         into<CheckCli>(
             "check", add_check_options,
             [&](const CheckCli& o) { return o.common.max_file_size; }, std::uint64_t{0})},
        {"explain", "--max-file-size", "9223372036854775807", size,
         into<ExplainCli>(
             "explain", add_explain_options, [](const ExplainCli& o) { return o.max_file_size; },
             std::uint64_t{9223372036854775807})},
        {"profile", "--top", "0", top,
         into<ProfileCli>(
             "profile", add_profile_options, [](const ProfileCli& o) { return o.top; },
             std::size_t{0})},
        {"profile", "--core-mhz", "1000000", mhz,
         into<ProfileCli>(
             "profile", add_profile_options, [](const ProfileCli& o) { return o.core_mhz; },
             1000000U)},
        {"profile", "--jobs", "7", jobs,
         into<ProfileCli>(
             "profile", add_profile_options, [](const ProfileCli& o) { return o.jobs; }, 7U)},
        {"profile", "--max-file-size", "12", size,
         into<ProfileCli>(
             "profile", add_profile_options, [](const ProfileCli& o) { return o.max_file_size; },
             std::uint64_t{12})},
        {"profile", "--fail-over", "2.5", over,
         into<ProfileCli>(
             "profile", add_profile_options, [](const ProfileCli& o) { return o.fail_over; },
             std::optional<double>(2.5))},
        {"profile", "--fail-min-share", "0.5", percent,
         into<ProfileCli>(
             "profile", add_profile_options, [](const ProfileCli& o) { return o.fail_min_share; },
             0.5)},
    };
    for (const auto& o : options) {
        const std::string option = o.option;
        const std::string shown = option == "-j" ? "--jobs" : option;
        const std::string command = o.command;
        CAPTURE(command);
        CAPTURE(option);
        const char* path = command == "explain" ? "k" : command == "profile" ? "t.json" : "cache";
        auto run = [&](const char* value) {
            // annotate's --origins must name a file that exists (CLI::ExistingFile).
            return command == "annotate"
                       ? o.parse_into({option.c_str(), value, "--origins", "/dev/null", path})
                       : o.parse_into({option.c_str(), value, path});
        };
        CHECK(run(o.valid).empty());
        for (const char* bad : {"nan", "NaN", "-nan", " 5", "0x10", "1e3", "", "-1", "+5", "inf"}) {
            const std::string given = bad;
            CAPTURE(given);
            CHECK(run(bad) == shown + ": '" + bad + "': " + o.needed);
        }
    }
    // Out of range at either end.
    CommonOptions scan;
    CHECK(parse("scan", add_scan_options, scan, {"-j", "0", "cache"}) == "--jobs: '0': " + jobs);
    CHECK(parse("scan", add_scan_options, scan, {"-j", "1025", "cache"}) ==
          "--jobs: '1025': " + jobs);
    CHECK(parse("scan", add_scan_options, scan, {"--max-file-size", "9223372036854775808",
                                                 "cache"}) ==
          "--max-file-size: '9223372036854775808': " + size);
    ProfileCli profile;
    CHECK(parse("profile", add_profile_options, profile, {"--core-mhz", "0", "t.json"}) ==
          "--core-mhz: '0': " + mhz);
    CHECK(parse("profile", add_profile_options, profile, {"--fail-min-share", "100.01", "t.json"}) ==
          "--fail-min-share: '100.01': " + percent);
    // What is given is shown escaped: nothing of it reaches the terminal as a control sequence.
    CHECK(parse("profile", add_profile_options, profile, {"--top", "\x1b[31m5", "t.json"}) ==
          "--top: '\\033[31m5': " + top);
}

TEST_CASE("options: --shard's numbers are plain decimal numbers, its value shown escaped") {
    for (const char* bad : {"a/b", "", "3", "/3", "1/", "-1/3", "+1/3", " 1/3", "1/3 ", "1/3/4",
                            "1.0/3", "0x1/3", "1e0/3", "nan/3", "1/99999999999999999999"}) {
        const std::string given = bad;
        CAPTURE(given);
        CommonOptions o;
        CHECK(parse("scan", add_scan_options, o, {"--shard", bad, "cache"}) ==
              std::string("--shard: '") + bad +
                  "': expected I/N with 1 <= I <= N (shard I of N, 1-based), e.g. 1/3");
        CHECK_FALSE(o.shard);
    }
    CommonOptions o;
    CHECK(parse("scan", add_scan_options, o, {"--shard", "1/4294967297", "cache"}) ==
          "--shard: '1/4294967297': N must be at most 1000000");
    CHECK(parse("scan", add_scan_options, o, {"--shard", "1/\x1b[2J", "cache"}) ==
          "--shard: '1/\\033[2J': expected I/N with 1 <= I <= N (shard I of N, 1-based), e.g. 1/3");
    REQUIRE(parse("scan", add_scan_options, o, {"--shard", "02/03", "cache"}).empty());
    REQUIRE(o.shard);
    CHECK(o.shard->index == 2);
    CHECK(o.shard->count == 3);
}

TEST_CASE("options: a numeric option's default is shown when it is one the option takes") {
    CLI::App app{"test", "sdscprov"};
    ProfileCli profile;
    auto* cmd = app.add_subcommand("profile", "the command");
    add_profile_options(*cmd, profile);
    CHECK(cmd->get_option("--top")->get_default_str() == "20");
    CHECK(cmd->get_option("--core-mhz")->get_default_str() == "1100");
    CHECK(cmd->get_option("--max-file-size")->get_default_str() == "1073741824");
    CHECK(cmd->get_option("--fail-min-share")->get_default_str() == "1");
    CHECK(cmd->get_option("--fail-over")->get_default_str().empty()); // unset until given
    CHECK(cmd->get_option("--jobs")->get_default_str().empty());      // 0: all cores
    std::string help = cmd->help();
    CHECK(help.find("--top N=20") != std::string::npos);
    CHECK(help.find("--core-mhz MHZ=1100") != std::string::npos);
    CHECK(help.find("--fail-over PCT") != std::string::npos);
    CHECK(help.find("--fail-min-share PCT=1") != std::string::npos);
    CHECK(help.find("-j,--jobs N ") != std::string::npos);
    CHECK(help.find("--max-file-size SIZE=1073741824") != std::string::npos);
}

TEST_CASE("options: --annotate-trace '' is refused: no file has an empty name") {
    ProfileCli o;
    CHECK(parse("profile", add_profile_options, o, {"--annotate-trace", "", "t.json"}) ==
          "--annotate-trace: '': no file has an empty name: the annotated trace is not written");
    ProfileCli given;
    CHECK(parse("profile", add_profile_options, given, {"--annotate-trace", "-", "t.json"}).empty());
    CHECK(given.annotate_trace == "-");
}
