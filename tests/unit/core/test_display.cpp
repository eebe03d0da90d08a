// Names and texts from the tree in each output format: text quoting as git's, JSON paths as
// base64 bytes when they are not UTF-8, texts made valid UTF-8.
#include "sdscprov/commands/check.hpp"
#include "report/check_documents.hpp"
#include "sdscprov/core/display.hpp"
#include "sdscprov/report/merge.hpp"
#include "sdscprov/report/report.hpp"

#include <cctype>
#include <doctest/doctest.h>
#include <simdjson.h>
#include <sstream>

using namespace sdscprov;

TEST_CASE("display: quote_path quotes as git does, keeping valid UTF-8") {
    struct Case {
        std::string path;
        std::string shown;
    };
    const Case cases[] = {
        {"cache/sdsc_0.json", "cache/sdsc_0.json"},
        {"c/caf\xC3\xA9 \xE2\x9C\x85/sdsc_0.json", "c/caf\xC3\xA9 \xE2\x9C\x85/sdsc_0.json"},
        {"c/a\nb", "\"c/a\\nb\""},
        {"c/\x1B[31mred", "\"c/\\033[31mred\""},
        {"c/tab\there\r", "\"c/tab\\there\\r\""},
        {"c/bell\a\b\v\f", "\"c/bell\\a\\b\\v\\f\""},
        {"c/del\x7F", "\"c/del\\177\""},
        {"c/\xFF\xFE.json", "\"c/\\377\\376.json\""},
        {"c/\xC3(", "\"c/\\303(\""}, // a lead byte without its continuation
        {"c/\xC2\x9B"
         "2J",
         "\"c/\\302\\2332J\""}, // C1 CSI, a terminal escape
        {"c/say \"hi\"\\", "\"c/say \\\"hi\\\"\\\\\""},
        {"", ""},
    };
    for (const auto& c : cases) {
        CAPTURE(c.path);
        CHECK(quote_path(c.path) == c.shown);
    }
    CHECK(printable_text("bad \x1B]0;title\a\n name \xFF") == "bad \\033]0;title\\a\\n name \\377");
    CHECK(printable_text("say \"x\" \\ ok") == "say \"x\" \\ ok");
    CHECK(quoted_location("c/a\nb", {3, 4}) == "\"c/a\\nb\":3:4");
    CHECK(quoted_location("c/a", {}) == "c/a");
}

TEST_CASE("display: bidirectional formatting characters are shown as <U+XXXX>") {
    // Each of them, raw, reorders what follows it on screen: a name displays reversed.
    const std::pair<std::string, std::string> bidi[] = {
        {"\xE2\x80\xAA", "<U+202A>"}, {"\xE2\x80\xAB", "<U+202B>"}, {"\xE2\x80\xAC", "<U+202C>"},
        {"\xE2\x80\xAD", "<U+202D>"}, {"\xE2\x80\xAE", "<U+202E>"}, {"\xE2\x81\xA6", "<U+2066>"},
        {"\xE2\x81\xA7", "<U+2067>"}, {"\xE2\x81\xA8", "<U+2068>"}, {"\xE2\x81\xA9", "<U+2069>"},
        {"\xE2\x80\x8E", "<U+200E>"}, {"\xE2\x80\x8F", "<U+200F>"}, {"\xD8\x9C", "<U+061C>"},
    };
    for (const auto& [raw, shown] : bidi) {
        const std::string& escaped = shown; // CAPTURE's lambda cannot take a binding (clang)
        CAPTURE(escaped);
        CHECK(quote_path("c/sdsc_k" + raw + "exe.py") == "\"c/sdsc_k" + shown + "exe.py\"");
        CHECK(printable_text("name " + raw + "txt") == "name " + shown + "txt");
        CHECK(masked_text("name " + raw + "txt") == "name " + shown + "txt");
    }
    // Their neighbours are text: kept as they are, unquoted.
    for (std::string kept : {"\xE2\x80\xAF", "\xE2\x80\x8D", "\xE2\x81\xA5", "\xE2\x81\xAA",
                             "\xE2\x80\xA9", "\xD8\x9B", "\xE2\x82\xAC"}) {
        CAPTURE(kept);
        CHECK(quote_path("c/" + kept) == "c/" + kept);
        CHECK(printable_text(kept) == kept);
        CHECK(masked_text(kept) == kept);
    }
    // C1 and a bidi override together, as the trial's directory name holds them.
    CHECK(quote_path("c/sdsc_k\xC2\x9B\xE2\x80\xAE"
                     "exe.py_0") == "\"c/sdsc_k\\302\\233<U+202E>exe.py_0\"");
    CHECK(printable_text("k\xC2\x9B\xE2\x80\xAE") == "k\\302\\233<U+202E>");
    // A diff's header: git's escapes only, which `git apply` reads back.
    CHECK(git_quoted_path("a/k\xC2\x9B\xE2\x80\xAE"
                          "x") == "\"a/k\\302\\233\\342\\200\\256x\"");
    CHECK(git_quoted_path("a/caf\xC3\xA9") == "a/caf\xC3\xA9");
    CHECK(git_quoted_path("a/x\ny") == quote_path("a/x\ny"));
}

TEST_CASE("display: masked_text replaces control characters, keeps tab and text") {
    CHECK(masked_text("x = self.fc1(x)  # ok") == "x = self.fc1(x)  # ok");
    CHECK(masked_text("a\x1B[2Jb\tc\nd\x7F") == "a?[2Jb\tc?d?");
    CHECK(masked_text("csi \xC2\x9B"
                      "2J, nel \xC2\x85, nbsp \xC2\xA0") == "csi ?2J, nel ?, nbsp \xC2\xA0");
    CHECK(masked_text("bad \xFF byte, caf\xC3\xA9") == "bad ? byte, caf\xC3\xA9");
    CHECK(masked_text("") == "");
}

TEST_CASE("display: display_width counts the columns of the escapes") {
    CHECK(display_width("sdsc_0.json") == 11);
    CHECK(display_width("caf\xC3\xA9 \xE2\x9C\x85") == 6);
    // A bidi override takes no column raw; its escape takes eight, which the table counts.
    CHECK(display_width(printable_text("a\xE2\x80\xAE"
                                       "b")) == 10);
    CHECK(display_width(masked_text("a\xC2\x9B"
                                    "b")) == 3);
    CHECK(display_width(quote_path("c/\xC2\x9B")) == std::string("\"c/\\302\\233\"").size());
}

// The code spans of one line of Markdown as CommonMark reads them (backslash escapes outside
// them, a backtick string closed by the next one of the same length, one space stripped each side
// when both ends have one), and the text outside them.
namespace {
std::pair<std::vector<std::string>, std::string> code_spans(const std::string& line) {
    std::vector<std::string> spans;
    std::string outside;
    auto run_at = [&](std::size_t i) {
        std::size_t n = 0;
        while (i + n < line.size() && line[i + n] == '`') {
            ++n;
        }
        return n;
    };
    for (std::size_t i = 0; i < line.size();) {
        if (line[i] == '\\' && i + 1 < line.size() &&
            std::ispunct(static_cast<unsigned char>(line[i + 1]))) {
            outside += line.substr(i, 2);
            i += 2;
            continue;
        }
        if (line[i] != '`') {
            outside.push_back(line[i++]);
            continue;
        }
        std::size_t n = run_at(i);
        std::size_t j = i + n;
        std::size_t close = std::string::npos;
        while (j < line.size()) {
            if (line[j] != '`') {
                ++j;
                continue;
            }
            std::size_t m = run_at(j);
            if (m == n) {
                close = j;
                break;
            }
            j += m;
        }
        if (close == std::string::npos) {
            outside += line.substr(i, n);
            i += n;
            continue;
        }
        std::string content = line.substr(i + n, close - i - n);
        if (content.size() >= 2 && content.front() == ' ' && content.back() == ' ' &&
            content.find_first_not_of(' ') != std::string::npos) {
            content = content.substr(1, content.size() - 2);
        }
        spans.push_back(content);
        i = close + n;
    }
    return {spans, outside};
}
} // namespace

TEST_CASE("display: markdown_code is one code span of the text, whatever it holds") {
    const std::string texts[] = {
        "sdsc_0.json",
        "a`b",
        "`starts",
        "ends`",
        "two `` and three ```",
        " lead space",
        "both ",
        " both ",
        "   ",
        "<img src=x> | *bold* [link](x) &amp;",
        "k``<img src=x>``",
    };
    for (const auto& text : texts) {
        CAPTURE(text);
        std::string line = "- x: " + markdown_code(text) + " (y)";
        auto [spans, outside] = code_spans(line);
        REQUIRE(spans.size() == 1);
        CHECK(spans[0] == text);
        CHECK(outside == "- x:  (y)");
    }
    // Control characters are escaped inside (a line end would end the list item).
    CHECK(markdown_code("a\nb\xE2\x80\xAE") == "`a\\nb<U+202E>`");
    CHECK(markdown_code("") == "` `");
}

TEST_CASE("display: shorten_middle keeps the tail that tells kernels apart") {
    const std::string name = "sdsc_fused__softmax_clone_mul_split_with_sizes_view_11";
    CHECK(shorten_middle(name, name.size()) == name);
    CHECK(shorten_middle(name, unlimited_width) == name);
    // 30 columns: 9 of the head, the ellipsis, 20 of the tail.
    std::string short_name = shorten_middle(name, 30);
    CHECK(short_name == "sdsc_fuse\xE2\x80\xA6t_with_sizes_view_11");
    const std::string dir = "old/inductor-spyre/029fa1b2_sdsc_fused_unsqueeze_2_3_fnecka0b";
    CHECK(shorten_middle(dir, 40) == "old/inductor-\xE2\x80\xA6sed_unsqueeze_2_3_fnecka0b");
    // Code points, not bytes: a multi-byte name is cut between characters.
    CHECK(shorten_middle("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 5) ==
          "\xC3\xA9\xE2\x80\xA6\xC3\xA9\xC3\xA9\xC3\xA9");
}

TEST_CASE("display: valid_utf8 and base64") {
    CHECK(valid_utf8("ok \xC3\xA9") == "ok \xC3\xA9");
    CHECK(valid_utf8("a\xFF"
                     "b\xC3") == "a\xEF\xBF\xBD"
                                 "b\xEF\xBF\xBD");
    CHECK(valid_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"); // a surrogate
    CHECK(is_valid_utf8("ok \xC3\xA9"));
    CHECK_FALSE(is_valid_utf8("\xC0\xAF"));
    // RFC 4648's test vectors, and bytes that are not text.
    const std::pair<std::string, std::string> vectors[] = {
        {"", ""},
        {"f", "Zg=="},
        {"fo", "Zm8="},
        {"foo", "Zm9v"},
        {"foob", "Zm9vYg=="},
        {"fooba", "Zm9vYmE="},
        {"foobar", "Zm9vYmFy"},
        {"c/\xFF\xFE\n", "Yy///go="},
    };
    for (const auto& vector : vectors) {
        const std::string& bytes = vector.first;
        const std::string& text = vector.second;
        CAPTURE(text);
        CHECK(base64_encode(bytes) == text);
        CHECK(base64_decode(text) == bytes);
    }
    for (const char* bad : {"Zg=", "Zg=a", "Z===", "Zm9v!A==", "=Zg="}) {
        CAPTURE(bad);
        CHECK_FALSE(base64_decode(bad).has_value());
    }
}

namespace {

const std::string bad_dir = "cache/sdsc_k\xFF_0_aaaaaaaa";       // not UTF-8
const std::string escape_dir = "cache/sdsc_k\x1B[2J_0_aaaaaaaa"; // a terminal escape

KernelReport kernel_at(const std::string& dir) {
    KernelReport k;
    k.dir.path = dir;
    SdscFile f{dir + "/sdsc_0.json", SdscName{FileNaming::indexed, 0, {}}};
    k.dir.files.push_back(f);
    Scanner scanner;
    k.files.push_back(scanner.scan_bytes(f, R"({"0_add": {"x": 1}})"));
    k.counts.add(k.files.back());
    return k;
}

std::string print(ReportFormat format, const KernelReport& k, const std::vector<Problem>& problems,
                  bool all = true) {
    std::ostringstream out;
    PrinterOptions options;
    options.command = ReportCommand::scan;
    options.all = all; // text: one row per directory, named by its path
    auto printer = make_printer(format, out, options);
    printer->item(k);
    Totals totals;
    totals.kernels = 1;
    totals.counts = k.counts;
    printer->end({totals, problems});
    return out.str();
}

} // namespace

TEST_CASE("display: a JSON report of a non-UTF-8 name is JSON and keeps the name's bytes") {
    KernelReport k = kernel_at(bad_dir);
    std::vector<Problem> problems{make_problem(bad_dir + "/sdsc_0.json", {1, 2},
                                               ProblemCode::parse_error, "message \xFF of bytes")};
    const std::string json = print(ReportFormat::json, k, problems);
    CHECK(is_valid_utf8(json));
    simdjson::dom::parser parser;
    simdjson::dom::element root;
    REQUIRE(parser.parse(json).get(root) == simdjson::SUCCESS);
    std::string_view encoded;
    REQUIRE(root["kernels"].at(0)["dir"]["bytes"].get(encoded) == simdjson::SUCCESS);
    CHECK(base64_decode(encoded) == bad_dir);
    REQUIRE(root["kernels"].at(0)["files"].at(0)["path"]["bytes"].get(encoded) ==
            simdjson::SUCCESS);
    CHECK(base64_decode(encoded) == bad_dir + "/sdsc_0.json");
    REQUIRE(root["problems"].at(0)["path"]["bytes"].get(encoded) == simdjson::SUCCESS);
    CHECK(base64_decode(encoded) == bad_dir + "/sdsc_0.json");
    std::string_view message;
    REQUIRE(root["problems"].at(0)["message"].get(message) == simdjson::SUCCESS);
    CHECK(message == "message \xEF\xBF\xBD of bytes");
    // A UTF-8 name stays a plain string.
    const std::string plain = print(ReportFormat::json, kernel_at("cache/k"), {});
    CHECK(plain.find("\"dir\": \"cache/k\"") != std::string::npos);

    // merge reads the bytes back: a sharded run's reports merge into the one-run report.
    KernelReport sharded = kernel_at(bad_dir);
    sharded.dir.position = 0;
    std::ostringstream out;
    PrinterOptions options;
    options.command = ReportCommand::scan;
    auto printer = make_printer(ReportFormat::json, out, options);
    printer->item(sharded);
    Totals totals;
    totals.kernels = 1;
    totals.counts = sharded.counts;
    totals.shard = ShardWalk{Shard{shard_of(bad_dir, 1), 1}, 1, 1};
    printer->end({totals, {}});
    auto merged = merge_reports({{"shard-1.json", out.str()}});
    CHECK_FALSE(merged.problem);
    CHECK(merged.report.find(base64_encode(bad_dir)) != std::string::npos);
}

TEST_CASE("display: text and Markdown quote names, JUnit stays well-formed UTF-8 XML") {
    for (const std::string& dir : {bad_dir, escape_dir}) {
        CAPTURE(quote_path(dir));
        KernelReport k = kernel_at(dir);
        std::vector<Problem> problems{make_problem(dir + "/sdsc_0.json", {1, 2},
                                                   ProblemCode::parse_error, "bad \x1B[1m here")};
        // The default text report names the kernel (here: the directory's name), escaped.
        const std::string summary = print(ReportFormat::text, k, problems, false);
        CHECK(summary.find(dir) == std::string::npos);
        CHECK(summary.find('\x1B') == std::string::npos);
        CHECK(summary.find(printable_text(dir.substr(dir.rfind('/') + 1))) != std::string::npos);
        for (ReportFormat format : {ReportFormat::text, ReportFormat::markdown}) {
            const std::string text = print(format, k, problems);
            CHECK(text.find(dir) == std::string::npos);
            CHECK(text.find(quote_path(dir)) != std::string::npos);
            CHECK(text.find('\x1B') == std::string::npos);
            // The text report counts problems (the CLI prints them on standard error, escaped
            // the same way); Markdown lists them.
            if (format == ReportFormat::markdown) {
                CHECK(text.find("bad \\033[1m here") != std::string::npos);
            }
        }
        CheckResult r;
        CheckedKernel checked;
        checked.dir = dir;
        checked.files = 1;
        checked.findings.push_back({dir + "/sdsc_0.json", {1, 2}, CheckRule::missing_handle, "m"});
        checked.problems = problems;
        r.kernels.push_back(checked);
        r.problems = problems;
        std::ostringstream junit;
        write_check_junit(junit, r);
        CHECK(is_valid_utf8(junit.str()));
        CHECK(junit.str().find('\x1B') == std::string::npos);
        std::string quoted_in_xml;
        for (char c : quote_path(dir)) {
            quoted_in_xml += c == '"' ? std::string("&quot;") : std::string(1, c);
        }
        CHECK(junit.str().find("name=\"" + quoted_in_xml + "\"") != std::string::npos);
        std::ostringstream github;
        write_check_github(github, r);
        CHECK(github.str().find('\x1B') == std::string::npos);
        CHECK(is_valid_utf8(github.str()));
        std::ostringstream json;
        write_check_json(json, r.kernels[0].findings, r.problems, 1);
        CHECK(is_valid_utf8(json.str()));
    }
}
