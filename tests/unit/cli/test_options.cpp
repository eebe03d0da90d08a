// The command line converted into the library's option types, through the commands' own option
// definitions: --format into Format, --shard into Shard, the walk's flags into DiscoverOptions,
// the write flags and --durability into WriteSettings, --color and --value into their enums,
// profile's --by into the tables and their order.
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/profile.hpp"

#include <algorithm>
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
                               Named{"junit", Format::junit}, Named{"folded", Format::folded}}) {
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
          "--format: sarif not in {text,json,markdown,html}");
    std::string error;
    parse_shard("4/3", error);
    CHECK(parse("scan", add_scan_options, o, {"--shard", "4/3", "cache"}) == "--shard: " + error);
    CheckCli check;
    CHECK(parse("check", add_check_options, check, {"--format", "markdown", "cache"}) ==
          "--format: markdown not in {text,json,sarif,github,junit,html}");
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
    CHECK(o.by.tables == std::vector<ProfileRanking>{ProfileRanking::kernel, ProfileRanking::aten,
                                                     ProfileRanking::line});
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
