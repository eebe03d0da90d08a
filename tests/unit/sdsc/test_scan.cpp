// Scan: one file's bytes in, a ScanResult out. Table-driven over small hand-written documents.
#include "sdscprov/sdsc/scan.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <simdjson.h>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace sdscprov;

namespace {

SdscFile named(std::string path) {
    auto name = match_sdsc_file_name(path.substr(path.rfind('/') + 1));
    return SdscFile{path, name ? *name : SdscName{}};
}

ScanResult scan(std::string_view bytes, std::string path = "k/sdsc_0.json") {
    Scanner scanner;
    return scanner.scan_bytes(named(std::move(path)), bytes);
}

const std::string handle_json = R"({
      "id": "8249498605557491263",
      "source": {
        "file": "/w/model.py",
        "start_line": 11,
        "start_col": 0,
        "end_line": null,
        "end_col": null
      },
      "aten_op": "aten.add.Tensor",
      "ir_chain": [
        "add",
        "buf0"
      ],
      "fused_from": [],
      "transform_history": []
    })";

std::string doc_with_handle(const std::string& member) {
    return "{\n  \"0_add\": {\n    " + member +
           ",\n    \"numCoresUsed_\": 32,\n    \"dscs_\": [\n      {\n        \"add\": {}\n      "
           "}\n    ]\n  }\n}";
}

} // namespace

TEST_CASE("scan: handle states") {
    struct Case {
        const char* what;
        std::string doc;
        HandleState state;
        std::size_t problems;
    };
    const Case cases[] = {
        {"absent", "{\n  \"0_add\": {\n    \"numCoresUsed_\": 32\n  }\n}", HandleState::absent, 0},
        {"null", doc_with_handle("\"debug_handle_\": null"), HandleState::null, 0},
        {"populated", doc_with_handle("\"debug_handle_\": " + handle_json), HandleState::populated,
         0},
        {"string", doc_with_handle("\"debug_handle_\": \"8249498605557491263\""),
         HandleState::malformed, 1},
        {"empty object", doc_with_handle("\"debug_handle_\": {}"), HandleState::malformed, 1},
        {"twice", doc_with_handle("\"debug_handle_\": null,\n    \"debug_handle_\": null"),
         HandleState::malformed, 1},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        auto r = scan(c.doc);
        CHECK(r.status == FileStatus::ok);
        CHECK(r.handle_state == c.state);
        CHECK(r.problems.size() == c.problems);
        CHECK(r.op_key == "0_add");
        CHECK(r.index == 0);
        CHECK(r.opfunc == "add");
    }
}

TEST_CASE("scan: populated handle fields are read") {
    auto r = scan(doc_with_handle("\"debug_handle_\": " + handle_json));
    REQUIRE(r.handle);
    CHECK(r.handle->id == "8249498605557491263");
    REQUIRE(r.handle->source);
    CHECK(r.handle->source->file == "/w/model.py");
    CHECK(r.handle->source->start_line == 11);
    CHECK(r.handle->aten_op == "aten.add.Tensor");
    CHECK(r.handle->ir_chain == std::vector<std::string>{"add", "buf0"});
    CHECK(r.handle->history_shape == HistoryShape::transform_history);
    CHECK(r.has(ProvenanceMember::debug_handle));
}

TEST_CASE("scan: byte spans point at the op object and the handle member") {
    std::string doc = doc_with_handle("\"debug_handle_\": null");
    auto r = scan(doc);
    CHECK(doc.substr(r.op_key_offset, 7) == "\"0_add\"");
    CHECK(doc[r.op_object_open] == '{');
    REQUIRE(r.handle_member);
    CHECK(doc.substr(r.handle_member->begin, r.handle_member->end - r.handle_member->begin) ==
          "\"debug_handle_\": null");
    CHECK(r.handle_member_index == 0);
    CHECK(r.op_key_pos.line == 2);
    CHECK(r.op_key_pos.col == 3);
    CHECK(r.handle_pos.line == 3);
    CHECK(r.handle_pos.col == 5);

    std::string populated = doc_with_handle("\"debug_handle_\": " + handle_json);
    auto p = scan(populated);
    REQUIRE(p.handle_member);
    CHECK(populated.substr(p.handle_member->begin, p.handle_member->end - p.handle_member->begin) ==
          "\"debug_handle_\": " + handle_json);
}

TEST_CASE("scan: a handle that is not the first member is found") {
    std::string doc =
        "{\"3_mul\":{\"a\":[1,{\"x\":\"}]\\\"\"}],\"debug_handle_\" : null,\"b\":{}}}";
    auto r = scan(doc, "k/sdsc_3.json");
    CHECK(r.handle_state == HandleState::null);
    CHECK(r.handle_member_index == 1);
    REQUIRE(r.handle_member);
    CHECK(doc.substr(r.handle_member->begin, r.handle_member->end - r.handle_member->begin) ==
          "\"debug_handle_\" : null");
}

TEST_CASE("scan: documents that are not SDSC") {
    struct Case {
        const char* what;
        const char* doc;
        std::size_t line;
        std::size_t col;
    };
    const Case cases[] = {
        {"array", "[1, 2]", 1, 1},
        {"scalar", "  42", 1, 3},
        {"empty object", "{}", 1, 1},
        {"two members", "{\n  \"0_add\": {},\n  \"1_add\": {}\n}", 3, 3},
        {"summary", "{\"loc_counts\": {\"lx\": 8}}", 1, 2},
        {"op not an object", "{\"0_add\": [1]}", 1, 11},
        {"key without index", "{\"add\": {}}", 1, 2},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        auto r = scan(c.doc);
        CHECK(r.status == FileStatus::not_sdsc);
        REQUIRE(r.problems.size() == 1);
        CHECK(r.problems[0].code == ProblemCode::not_sdsc);
        CHECK(r.problems[0].severity == Severity::error);
        CHECK(r.problems[0].message.find("not an SDSC document") == 0);
        CHECK(r.problems[0].pos.line == c.line);
        CHECK(r.problems[0].pos.col == c.col);
    }
}

TEST_CASE("scan: invalid JSON gives line and column") {
    std::string doc = "{\n  \"0_add\": {\n    \"numCoresUsed_\": 32,\n    \"x\": \"abc";
    auto r = scan(doc);
    CHECK(r.status == FileStatus::invalid_json);
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].code == ProblemCode::parse_error);
    CHECK(r.problems[0].pos.line == 4);
    CHECK(r.problems[0].pos.col == 14); // end of input, after "abc
}

TEST_CASE("scan: index and opfunc are checked against the file name") {
    auto r = scan("{\"2_add\": {}}", "k/sdsc_3.json");
    CHECK(r.status == FileStatus::ok);
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].code == ProblemCode::index_mismatch);
    CHECK(r.problems[0].severity == Severity::warning);

    auto o = scan("{\"1_add\": {}}", "k/sdsc_1_mul.json");
    REQUIRE(o.problems.size() == 1);
    CHECK(o.problems[0].code == ProblemCode::opfunc_mismatch);

    auto ok = scan("{\"1_ReStickifyOpHBM\": {}}", "k/sdsc_1_ReStickifyOpHBM.json");
    CHECK(ok.problems.empty());
}

TEST_CASE("scan: byte order mark, CRLF and tabs") {
    std::string doc = "\xEF\xBB\xBF{\r\n\t\"0_add\": {\r\n\t\t\"debug_handle_\": null\r\n\t}\r\n}";
    auto r = scan(doc);
    CHECK(r.status == FileStatus::ok);
    CHECK(r.bom == 3);
    CHECK(r.handle_state == HandleState::null);
    CHECK(doc.substr(r.op_key_offset, 7) == "\"0_add\"");
    CHECK(r.op_key_pos.line == 2);
    CHECK(r.op_key_pos.col == 2);
    REQUIRE(r.handle_member);
    CHECK(doc.substr(r.handle_member->begin, r.handle_member->end - r.handle_member->begin) ==
          "\"debug_handle_\": null");
}

TEST_CASE("scan: provenance members at any depth (the coverage column)") {
    struct Case {
        const char* doc;
        ProvenanceMember member;
        bool populated;
    };
    const Case cases[] = {
        {R"({"0_add": {"a": [{"b": {"stack_trace": "File x"}}]}})", ProvenanceMember::stack_trace,
         true},
        {R"({"0_add": {"stack_trace": ""}})", ProvenanceMember::stack_trace, false},
        {R"({"0_add": {"origins": []}})", ProvenanceMember::origins, false},
        {R"({"0_add": {"origins": ["mm"]}})", ProvenanceMember::origins, true},
        {R"({"0_add": {"provenance": {}}})", ProvenanceMember::provenance, false},
        {R"({"0_add": {"traceback": 0}})", ProvenanceMember::traceback, true},
        {R"({"0_add": {"origin_node": null}})", ProvenanceMember::origin_node, false},
        {R"({"0_add": {"x": {"original_aten": "aten.mm"}}})", ProvenanceMember::original_aten,
         true},
        {R"({"0_add": {"from_node": [{"name": "x"}]}})", ProvenanceMember::from_node, true},
        {R"({"0_add": {"debug_handle_": null}})", ProvenanceMember::debug_handle, false},
        {R"({"0_add": {"stack_tracex": "y"}})", ProvenanceMember::stack_trace, false},
    };
    for (const auto& c : cases) {
        CAPTURE(c.doc);
        auto r = scan(c.doc);
        REQUIRE(r.status == FileStatus::ok);
        CHECK(r.has(c.member) == c.populated);
    }
}

TEST_CASE("scan: files that cannot be read") {
    Scanner scanner;
    auto missing = scanner.scan_file(named("/nonexistent/dir/sdsc_0.json"));
    CHECK(missing.status == FileStatus::unreadable);
    REQUIRE(missing.problems.size() == 1);
    CHECK(missing.problems[0].code == ProblemCode::io_error);

    auto dir = scanner.scan_file(SdscFile{"/", {}});
    CHECK(dir.status == FileStatus::unreadable);
    REQUIRE(dir.problems.size() == 1);
    CHECK(dir.problems[0].code == ProblemCode::not_regular_file);

    // A unix socket cannot even be opened (ENXIO): it is reported as what it is, like a fifo.
    test::TempDir tmp;
    const std::string socket_path = (tmp.root / "sdsc_0.json").string();
    int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
    REQUIRE(sock >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    REQUIRE(socket_path.size() < sizeof addr.sun_path);
    socket_path.copy(addr.sun_path, socket_path.size());
    REQUIRE(::bind(sock, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0);
    auto socket_file = scanner.scan_file(named(socket_path));
    ::close(sock);
    CHECK(socket_file.status == FileStatus::unreadable);
    REQUIRE(socket_file.problems.size() == 1);
    CHECK(socket_file.problems[0].code == ProblemCode::not_regular_file);
    CHECK(socket_file.problems[0].message == "is a socket, not a regular file");

    Scanner small(ScanOptions{4});
    auto big = small.scan_file(SdscFile{"/proc/self/exe", {}});
    CHECK(big.status == FileStatus::unreadable);
    REQUIRE(big.problems.size() == 1);
    CHECK(big.problems[0].code == ProblemCode::file_too_large);
}

TEST_CASE("scan: --max-file-size holds for files read without fstat, whatever the buffer") {
    // scan reads a file the walk saw as regular without fstat, into a buffer that is at least
    // 64 KiB and grows with the largest file read: the limit must hold below both.
    test::TempDir tmp;
    auto file_of = [&](const std::string& name, std::size_t size) {
        std::string doc = "{\"0_add\": {\"x\": \"" + std::string(size - 20, 'a') + "\"}}";
        REQUIRE(doc.size() == size);
        tmp.file(name, doc);
        SdscFile f = named((tmp.root / name).string());
        f.regular = true;
        return f;
    };
    Scanner tiny(ScanOptions{100, false});
    auto small = tiny.scan_file(file_of("sdsc_0.json", 200));
    REQUIRE(small.problems.size() == 1);
    CHECK(small.problems[0].code == ProblemCode::file_too_large);
    CHECK(small.problems[0].message == "file is 200 bytes, more than --max-file-size (100)");
    CHECK(tiny.scan_file(file_of("sdsc_1.json", 100)).status == FileStatus::ok);

    Scanner grown(ScanOptions{150000, false});
    CHECK(grown.scan_file(file_of("sdsc_2.json", 100000)).status == FileStatus::ok);
    auto over = grown.scan_file(file_of("sdsc_3.json", 160000));
    CHECK(over.status == FileStatus::unreadable);
    REQUIRE(over.problems.size() == 1);
    CHECK(over.problems[0].code == ProblemCode::file_too_large);
}

TEST_CASE("scan: the scanner is reused across files") {
    Scanner scanner;
    auto a = scanner.scan_bytes(named("k/sdsc_0.json"), doc_with_handle("\"debug_handle_\": null"));
    auto b = scanner.scan_bytes(named("k/sdsc_0.json"), "{\"0_add\": {}}");
    auto c = scanner.scan_bytes(named("k/sdsc_0.json"), "{\"0_add\": {");
    auto d = scanner.scan_bytes(named("k/sdsc_0.json"), doc_with_handle("\"debug_handle_\": null"));
    CHECK(a.handle_state == HandleState::null);
    CHECK(b.handle_state == HandleState::absent);
    CHECK(c.status == FileStatus::invalid_json);
    CHECK(d.handle_state == HandleState::null);
}

namespace {

// The reference for the coverage column (docs/formats.md): a plain recursive walk over simdjson's
// DOM. The scanner reads simdjson's tape, for speed; this oracle keeps it honest.
bool populated(const simdjson::dom::element& e) {
    switch (e.type()) {
    case simdjson::dom::element_type::NULL_VALUE:
        return false;
    case simdjson::dom::element_type::STRING:
        return !std::string_view(e).empty();
    case simdjson::dom::element_type::ARRAY:
        return simdjson::dom::array(e).size() != 0;
    case simdjson::dom::element_type::OBJECT:
        return simdjson::dom::object(e).size() != 0;
    default:
        return true;
    }
}

void reference_provenance(const simdjson::dom::element& e, std::uint8_t& bits) {
    static const std::string_view names[] = {"stack_trace", "original_aten", "from_node",
                                             "origins",     "origin_node",   "traceback",
                                             "provenance",  "debug_handle_"};
    if (e.is_object()) {
        for (auto [key, value] : simdjson::dom::object(e)) {
            for (std::size_t m = 0; m < 8; ++m) {
                if (key == names[m] && populated(value)) {
                    bits = static_cast<std::uint8_t>(bits | (1U << m));
                }
            }
            reference_provenance(value, bits);
        }
    } else if (e.is_array()) {
        for (auto value : simdjson::dom::array(e)) {
            reference_provenance(value, bits);
        }
    }
}

} // namespace

TEST_CASE("scan: provenance from the tape equals a DOM walk") {
    // Every combination of the members at several depths, in objects and arrays, with empty and
    // populated values, numbers taking two tape words, and keys that only look similar.
    const char* values[] = {"null", "\"\"", "\"x\"", "[]", "[0]", "{}", "{\"a\":1}", "0", "-1",
                            "1.5", "18446744073709551615", "false",
                            // 0x2200000000000000: a number whose raw word looks like a string's
                            "2449958197289549824"};
    const char* names[] = {"stack_trace", "original_aten", "from_node",  "origins",
                           "origin_node", "traceback",     "provenance", "debug_handle_",
                           "origin",      "stack_trac"};
    Scanner scanner;
    simdjson::dom::parser parser;
    int checked = 0;
    for (std::size_t n = 0; n < std::size(names); ++n) {
        for (std::size_t v = 0; v < std::size(values); ++v) {
            std::string inner = std::string("{\"") + names[n] + "\": " + values[v] + "}";
            const std::string docs[] = {
                "{\"0_add\": " + inner + "}",
                "{\"0_add\": {\"a\": [1, 2.5, " + inner + ", [[" + inner +
                    "]]], \"b\": " + values[(v + 3) % std::size(values)] + "}}",
                "{\"0_add\": {\"x\": {\"y\": {\"z\": [" + inner + "]}}, \"" + names[(n + 1) % 10] +
                    "\": " + values[(v + 5) % std::size(values)] + "}}",
                "{\"0_add\": {\"x\": " + inner + ", \"n\": 2449958197289549824}}",
            };
            for (const auto& doc : docs) {
                CAPTURE(doc);
                auto r = scanner.scan_bytes(SdscFile{"k/sdsc_0.json", {}}, doc);
                REQUIRE(r.status == FileStatus::ok);
                std::uint8_t want = 0;
                reference_provenance(parser.parse(doc).value(), want);
                CHECK(r.provenance == want);
                ++checked;
            }
        }
    }
    CHECK(checked == 520);
}

TEST_CASE("scan: without stamps, files the walk saw as regular are read without fstat") {
    test::TempDir t;
    // One small file, and one larger than the read buffer the scanner starts with (64 KiB): the
    // second is read whole, its size found on the way.
    std::string small = doc_with_handle("\"debug_handle_\": null");
    std::string padding(200 * 1024, ' ');
    std::string large =
        "{\"0_add\": {\"pad\": \"" + std::string(150 * 1024, 'x') + "\"}}" + padding;
    t.file("k/sdsc_0.json", small);
    t.file("k/sdsc_1.json", large);
    ScanOptions options;
    options.fstat_before_read = false;
    Scanner scanner(options);
    for (const auto& item : {std::pair{"sdsc_0.json", small}, std::pair{"sdsc_1.json", large}}) {
        const char* name = item.first; // not a structured binding: CAPTURE's lambda takes it
        const std::string& bytes = item.second;
        SdscFile f = named((t.root / "k" / name).string());
        f.regular = true;
        auto r = scanner.scan_file(f);
        CAPTURE(name);
        CHECK(r.status == FileStatus::ok);
        CHECK(scanner.bytes() == bytes);
        CHECK(r.stamp.size == bytes.size());
        // Not stat'ed when it fit the buffer; the large one was, once it outgrew it.
        CHECK((r.stamp.inode == 0) == (bytes.size() < 64 * 1024));
    }

    // A large file over --max-file-size is refused by its size, found once it outgrows the buffer.
    options.max_file_size = 100 * 1024;
    Scanner limited(options);
    SdscFile f = named((t.root / "k" / "sdsc_1.json").string());
    f.regular = true;
    auto big = limited.scan_file(f);
    REQUIRE(big.problems.size() == 1);
    CHECK(big.problems[0].code == ProblemCode::file_too_large);

    // Replaced by a directory since the walk: the read fails and says what it is now.
    SdscFile gone = named((t.root / "k").string());
    gone.regular = true;
    auto dir = scanner.scan_file(gone);
    REQUIRE(dir.problems.size() == 1);
    CHECK(dir.problems[0].code == ProblemCode::not_regular_file);

    // With stamps (annotate), the same file carries its identity.
    Scanner stamped;
    auto r = stamped.scan_file(named((t.root / "k" / "sdsc_0.json").string()));
    struct stat st {};
    REQUIRE(::stat((t.root / "k" / "sdsc_0.json").c_str(), &st) == 0);
    CHECK(r.stamp.inode == static_cast<std::uint64_t>(st.st_ino));
    CHECK(r.stamp.size == small.size());
}

TEST_CASE("scan: a debug_handle_ nested below the op's members is listed, with a nested-handle "
          "problem at its line:col") {
    struct Case {
        std::string what;
        std::string doc;
        std::vector<TextPosition> at; // the outermost nested handles' keys
        std::vector<bool> populated;
        std::string op_member; // of the first one
    };
    const std::string nested_secret =
        "{\n  \"0_add\": {\n    \"debug_handle_\": null,\n    \"sub_\": {\n      "
        "\"debug_handle_\": {\n        \"source\": {\"file\": \"/home/secret/other.py\"}\n"
        "      }\n    }\n  }\n}";
    const Case cases[] = {
        {"in a member object, the op's own handle null", nested_secret, {{5, 7}}, {true}, "sub_"},
        {"in an array element",
         R"({"0_add": {"dscs_": [{"add": {"x": 1, "debug_handle_": "/p.py"}}]}})", {{1, 39}},
         {true}, "dscs_"},
        {"its key written with an escape",
         R"({"0_add": {"s": {"debug\u005fhandle_": null}}})", {{1, 18}}, {false}, "s"},
        {"two in one object, one in an object between them, each empty or not",
         R"({"0_add": {"a": {"debug_handle_": {}, "b": {"debug_handle_": [1]}, "debug_handle_": 0}}})",
         {{1, 18}, {1, 45}, {1, 68}}, {false, true, true}, "a"},
        {"only the outer of two, one inside the other",
         R"({"0_add": {"a": {"debug_handle_": {"debug_handle_": "/x.py"}}}})", {{1, 18}}, {true},
         "a"},
        {"beside another provenance member (the tape's structural pass)",
         R"({"0_add": {"origins": ["n"], "a": [{"debug_handle_": "/x.py"}]}})", {{1, 37}}, {true},
         "a"},
        {"after a byte order mark, CRLF and a two-byte character",
         "\xEF\xBB\xBF{\r\n\"0_add\": {\"\xC3\xA9\": 1, \"a\": {\"debug_handle_\": 1}}}", {{2, 25}},
         {true}, "a"},
        {"on the line of a byte order mark, which is no column",
         "\xEF\xBB\xBF{\"0_add\": {\"a\": {\"debug_handle_\": 1}}}", {{1, 18}}, {true}, "a"},
        {"inside the op's own handle: part of that handle, not nested",
         R"({"0_add": {"debug_handle_": {"debug_handle_": "/x.py"}, "x": 1}})", {}, {}, ""},
        {"a string value of that name is no member",
         R"({"0_add": {"debug_handle_": null, "x": ["debug_handle_"]}})", {}, {}, ""},
        {"none at all", doc_with_handle("\"debug_handle_\": " + handle_json), {}, {}, ""},
    };
    for (const Case& c : cases) {
        CAPTURE(c.what);
        ScanResult r = scan(c.doc);
        REQUIRE(r.status == FileStatus::ok);
        REQUIRE(r.nested_handles.size() == c.at.size());
        std::size_t problems = 0;
        for (std::size_t k = 0; k < c.at.size(); ++k) {
            const NestedHandle& h = r.nested_handles[k];
            CAPTURE(k);
            CHECK(h.pos.line == c.at[k].line);
            CHECK(h.pos.col == c.at[k].col);
            CHECK(h.populated == c.populated[k]);
            CHECK(c.doc[h.member.begin] == '"');
            CHECK(c.doc[h.object_open] == '{');
            CHECK(h.null == (c.doc.compare(h.value, 4, "null") == 0));
            // The span is the whole member: what follows it is ',' or '}' (after whitespace).
            char after = c.doc[c.doc.find_first_not_of(" \r\n\t", h.member.end)];
            CHECK((after == ',' || after == '}'));
        }
        for (const Problem& p : r.problems) {
            if (p.code == ProblemCode::nested_handle) {
                CHECK(p.severity == Severity::warning);
                REQUIRE(problems < c.at.size());
                CHECK(p.pos.line == c.at[problems].line);
                CHECK(p.pos.col == c.at[problems].col);
                CHECK(p.message.find("'" + c.op_member + "'") != std::string::npos);
                ++problems;
            }
        }
        CHECK(problems == c.at.size());
        // The position agrees with the one every other problem is given.
        for (const NestedHandle& h : r.nested_handles) {
            TextPosition p = position_at(c.doc, h.member.begin);
            CHECK(p.line == h.pos.line);
            CHECK(p.col == h.pos.col);
        }
    }
}

TEST_CASE("scan: past 16 nested handles one problem counts the rest") {
    std::string doc = R"({"0_add": {"debug_handle_": null, "a": [)";
    for (int i = 0; i < 40; ++i) {
        doc += std::string(i ? "," : "") + R"({"debug_handle_": "/home/secret/x.py"})";
    }
    doc += "]}}";
    ScanResult r = scan(doc);
    CHECK(r.nested_handles.size() == 40);
    std::vector<const Problem*> nested;
    for (const Problem& p : r.problems) {
        if (p.code == ProblemCode::nested_handle) {
            nested.push_back(&p);
        }
    }
    REQUIRE(nested.size() == 17);
    CHECK(nested.back()->message.find("24 more") != std::string::npos);
    CHECK(nested.back()->pos.col == r.nested_handles[16].pos.col);
}
