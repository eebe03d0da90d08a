// The splice check proves the writer's edits without scanning the new bytes, and proves nothing
// for an edit that is wrong: each broken edit below is also rejected by a full scan, which is
// what annotate falls back to.
#include "sdscprov/core/json_layout.hpp"
#include "sdscprov/write/splice_check.hpp"
#include "sdscprov/write/writer.hpp"

#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace sdscprov;

namespace {

SdscFile file_named(const std::string& name) {
    SdscFile f;
    f.path = "/cache/k/" + name;
    f.name = match_sdsc_file_name(name).value();
    return f;
}

DebugHandle test_handle(const std::string& id = "8249498605557491263") {
    DebugHandle h;
    h.id = id;
    h.source = HandleSource{"/home/u/m.py", 11, 0, std::nullopt, std::nullopt};
    h.aten_op = "aten.add.Tensor";
    h.ir_chain = {"add", "buf0"};
    return h;
}

// Documents in the layouts the writer meets: pretty (2 spaces, 4 spaces, tabs, CRLF), compact
// with and without spaces, an empty op object, `{ }`, and the handle first, middle and last.
const std::vector<std::string> pretty_docs = {
    "{\n  \"0_add\": {\n    \"numCoresUsed_\": 32,\n    \"x\": [1, 2]\n  }\n}",
    "{\n    \"0_add\": {\n        \"numCoresUsed_\": 32\n    }\n}\n",
    "{\r\n\t\"0_add\": {\r\n\t\t\"a\": {\"b\": null}\r\n\t}\r\n}",
    "{\"0_add\": {\"numCoresUsed_\": 32, \"x\": {}}}",
    "{\"0_add\":{\"numCoresUsed_\":32}}",
    "{\n  \"0_add\": {}\n}",
    "{\"0_add\": { }}",
};

const std::vector<std::string> handle_docs = {
    "{\n  \"0_add\": {\n    \"debug_handle_\": null,\n    \"numCoresUsed_\": 32\n  }\n}",
    "{\n  \"0_add\": {\n    \"a\": 1,\n    \"debug_handle_\": null,\n    \"b\": 2\n  }\n}",
    "{\n  \"0_add\": {\n    \"a\": 1,\n    \"debug_handle_\": null\n  }\n}",
    "{\"0_add\": {\"debug_handle_\": null}}",
    "{\"0_add\": { \"debug_handle_\" : null }}",
};

struct Checked {
    bool proved = false;
    bool full_scan_ok = false; // what the full scan of the new bytes says
};

Checked check(Scanner& scanner, SpliceChecker& checker, const std::string& doc,
              const Splice& splice, HandleState expected, const DebugHandle* handle) {
    SdscFile f = file_named("sdsc_0.json");
    ScanResult before = scanner.scan_bytes(f, doc);
    REQUIRE(before.status == FileStatus::ok);
    Checked out;
    out.proved = checker.proves(doc, before, splice, expected, handle);
    ScanResult after = scanner.scan_bytes(f, apply_splice(doc, splice));
    out.full_scan_ok = after.status == FileStatus::ok && after.op_key == before.op_key &&
                       after.handle_state == expected &&
                       (handle == nullptr || after.handle == *handle);
    return out;
}

ScanResult scan_of(Scanner& scanner, const std::string& doc) {
    return scanner.scan_bytes(file_named("sdsc_0.json"), doc);
}

} // namespace

TEST_CASE("splice check: every edit the writer makes is proved, and a full scan agrees") {
    Scanner scanner;
    SpliceChecker checker;
    const DebugHandle h = test_handle();
    for (const std::string& doc : pretty_docs) {
        CAPTURE(doc);
        Splice s = handle_splice(doc, scan_of(scanner, doc), h);
        Checked c = check(scanner, checker, doc, s, HandleState::populated, &h);
        CHECK(c.proved);
        CHECK(c.full_scan_ok);
        // Written, then stripped and removed again: those edits are proved too.
        std::string annotated = apply_splice(doc, s);
        ScanResult after = scan_of(scanner, annotated);
        for (bool remove : {false, true}) {
            Splice back = remove ? remove_splice(annotated, after) : null_splice(annotated, after);
            Checked b = check(scanner, checker, annotated, back,
                              remove ? HandleState::absent : HandleState::null, nullptr);
            CHECK(b.proved);
            CHECK(b.full_scan_ok);
        }
    }
    for (const std::string& doc : handle_docs) {
        CAPTURE(doc);
        ScanResult before = scan_of(scanner, doc);
        Checked set =
            check(scanner, checker, doc, handle_splice(doc, before, h), HandleState::populated, &h);
        CHECK(set.proved);
        CHECK(set.full_scan_ok);
        before = scan_of(scanner, doc);
        Checked removed =
            check(scanner, checker, doc, remove_splice(doc, before), HandleState::absent, nullptr);
        CHECK(removed.proved);
        CHECK(removed.full_scan_ok);
    }
}

TEST_CASE("splice check: an edit broken on purpose is not proved, and a full scan rejects it") {
    Scanner scanner;
    SpliceChecker checker;
    const DebugHandle h = test_handle();
    const std::string doc = pretty_docs[0];
    const Splice good = handle_splice(doc, scan_of(scanner, doc), h);
    REQUIRE(good.text.back() == ','); // inserted before the first member

    std::vector<std::pair<std::string, Splice>> broken;
    Splice s = good;
    s.text.pop_back(); // the separator forgotten
    broken.emplace_back("no separator", s);
    s = good;
    s.text += ","; // two separators
    broken.emplace_back("two separators", s);
    s = good;
    s.begin = s.end = good.begin - 1; // before the op object's '{'
    broken.emplace_back("one byte early", s);
    s = good;
    s.begin = s.end = doc.find("numCoresUsed_"); // inside the first key
    broken.emplace_back("inside a key", s);
    s = good;
    s.end = good.begin + 7; // eats the start of the first member
    broken.emplace_back("eats a member", s);
    s = good;
    s.text.erase(s.text.rfind('}'), 1); // the handle's closing brace lost
    broken.emplace_back("truncated handle", s);
    s = good;
    s.text.insert(s.text.size() - 1, "}"); // one brace too many: closes the op object
    broken.emplace_back("closes the op object", s);
    for (const auto& [why, edit] : broken) {
        const std::string& reason = why; // CAPTURE's lambda cannot take a binding (clang)
        CAPTURE(reason);
        Checked c = check(scanner, checker, doc, edit, HandleState::populated, &h);
        CHECK_FALSE(c.proved);
        CHECK_FALSE(c.full_scan_ok);
    }

    // A member more than the handle: valid JSON, which a full scan accepts, but not the edit the
    // writer makes: not proved (annotate would then scan in full).
    Splice more = good;
    more.text.insert(more.text.size() - 1, ", \"x\": 1");
    CHECK_FALSE(check(scanner, checker, doc, more, HandleState::populated, &h).proved);

    // Another handle than the one expected: valid JSON, but not what was to be written.
    const DebugHandle other = test_handle("42");
    Checked wrong_handle =
        check(scanner, checker, doc, handle_splice(doc, scan_of(scanner, doc), other),
              HandleState::populated, &h);
    CHECK_FALSE(wrong_handle.proved);
    CHECK_FALSE(wrong_handle.full_scan_ok);
}

TEST_CASE("splice check: a value or a removal broken on purpose is not proved") {
    Scanner scanner;
    SpliceChecker checker;
    const DebugHandle h = test_handle();
    const std::string doc = handle_docs[1]; // the handle between two members
    const ScanResult before = scan_of(scanner, doc);
    const Splice value = handle_splice(doc, before, h);
    const Splice removal = remove_splice(doc, before);

    std::vector<std::tuple<std::string, Splice, HandleState>> broken;
    Splice s = value;
    s.text = "1, \"y\": 2"; // a value and a member
    broken.emplace_back("value and member", s, HandleState::populated);
    s = value;
    s.text = "null}, \"z\": {\"w\": 0"; // closes the op object and opens another member
    broken.emplace_back("closes the op", s, HandleState::null);
    s = value;
    s.end += 1; // eats the ',' after the value
    broken.emplace_back("eats the separator", s, HandleState::populated);
    s = removal;
    s.end = json_skip_ws(doc, s.end) + 1; // eats the next key's quote
    broken.emplace_back("removal eats the next key", s, HandleState::absent);
    s = removal;
    s.begin -= 1; // ... and the separator before: both separators go
    while (json_is_ws(doc[s.begin])) {
        --s.begin;
    }
    broken.emplace_back("removal of both separators", s, HandleState::absent);
    s = removal;
    s.end = before.handle_member->end; // the member alone: `"a": 1,\n    ,\n    "b": 2`
    s.begin = before.handle_member->begin;
    broken.emplace_back("removal keeps both separators", s, HandleState::absent);
    for (const auto& [why, edit, expected] : broken) {
        const std::string& reason = why; // CAPTURE's lambda cannot take a binding (clang)
        CAPTURE(reason);
        Checked c = check(scanner, checker, doc, edit, expected,
                          expected == HandleState::populated ? &h : nullptr);
        CHECK_FALSE(c.proved);
        CHECK_FALSE(c.full_scan_ok);
    }
}
