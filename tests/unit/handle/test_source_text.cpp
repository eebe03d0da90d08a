// The source-text rule (source_text.hpp): what a handle's path may be read for its text, the
// mapping of paths from another machine, and what a report says of the files it did not read.
#include "sdscprov/handle/source_text.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <unistd.h>

using namespace sdscprov;

TEST_CASE("source text: the verdict on the file opened") {
    const std::vector<std::string> roots{"/work/model", "/srv"};
    struct Case {
        const char* what;
        OpenedSource opened;
        std::optional<SourceRefusal> verdict;
    };
    const Case cases[] = {
        {"a source under a root", {"/work/model/m.py", true, 10, false}, std::nullopt},
        {"the root's own name ends the match",
         {"/work/model2/m.py", true, 10, false},
         SourceRefusal::outside_roots},
        {"under no root", {"/root/.ssh/x.py", true, 10, false}, SourceRefusal::outside_roots},
        {"a private key (a link x.py to it)",
         {"/work/model/id_ed25519", true, 400, false},
         SourceRefusal::not_python},
        {"a directory", {"/srv/pkg.py", false, 4096, false}, SourceRefusal::not_regular},
        {"a file of procfs", {"/srv/x.py", true, 0, true}, SourceRefusal::not_regular},
        {"too large",
         {"/srv/x.py", true, max_source_file_size + 1, false},
         SourceRefusal::too_large},
        {"at the size limit", {"/srv/x.py", true, max_source_file_size, false}, std::nullopt},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        CHECK(judge_opened_source(c.opened, roots) == c.verdict);
    }
    CHECK(judge_opened_source({"/anywhere/x.py", true, 1, false}, {"/"}) == std::nullopt);
    CHECK(judge_opened_source({"/anywhere/x.py", true, 1, false}, {}) ==
          SourceRefusal::outside_roots);
}

TEST_CASE("source text: --source-map values") {
    std::string error;
    auto m = parse_source_mapping("/workspace/=/home/me/src/", error);
    REQUIRE(m);
    CHECK(m->from == "/workspace");
    CHECK(m->to == "/home/me/src");
    m = parse_source_mapping("/a=b=c", error);
    REQUIRE(m);
    CHECK(m->from == "/a");
    CHECK(m->to == "b=c");
    m = parse_source_mapping("/=/", error);
    REQUIRE(m);
    CHECK(m->from == "/");
    CHECK(m->to == "/");
    for (const char* bad : {"", "/workspace", "=/x", "/x=", "="}) {
        CAPTURE(bad);
        error.clear();
        CHECK_FALSE(parse_source_mapping(bad, error));
        CHECK(error.find("'" + std::string(bad) + "': FROM=TO is needed") == 0);
    }
}

namespace {

struct Tree {
    test::TempDir allowed{"sdscprov-src-allowed"};
    test::TempDir outside{"sdscprov-src-outside"};
    SourceTextOptions rule;

    Tree() {
        allowed.file("m.py", "first\nsecond\nthird\n");
        outside.file("secret.py", "TOKEN = 1\n");
        outside.file("id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n");
        rule.roots = {allowed.root.string()};
    }
    std::string in(const std::string& name) const { return (allowed.root / name).string(); }
    std::string out(const std::string& name) const { return (outside.root / name).string(); }
};

} // namespace

TEST_CASE("source text: only Python files under the allowed roots are read") {
    Tree t;
    std::filesystem::create_symlink(t.out("id_ed25519"), t.in("x.py"));
    std::filesystem::create_symlink(t.out("secret.py"), t.in("y.py"));
    std::filesystem::create_symlink(t.in("m.py"), t.out("link.py"));
    SourceLines lines(t.rule);
    CHECK(lines.line(t.in("m.py"), 2) == "second");
    CHECK_FALSE(lines.line(t.in("m.py"), 4)); // no such line: not a refusal
    // A link named .py to a private file, a link to a source outside, a source outside.
    CHECK_FALSE(lines.line(t.in("x.py"), 1));
    CHECK_FALSE(lines.line(t.in("y.py"), 1));
    CHECK_FALSE(lines.line(t.out("secret.py"), 1));
    CHECK_FALSE(lines.line(t.out("id_ed25519"), 1));
    // A link from outside to a source inside: the file opened is inside.
    CHECK(lines.line(t.out("link.py"), 1) == "first");
    // /proc: a file of procfs, and a way round to a source outside the roots.
    CHECK_FALSE(lines.line("/proc/self/environ", 1));
    std::string around = "/proc/self/root" + t.out("secret.py");
    CHECK_FALSE(lines.line(around, 1));
    std::string cwd_way = "/proc/self/root" + t.in("m.py");
    CHECK(lines.line(cwd_way, 3) == "third");

    const auto& note = lines.note();
    CHECK(note.read);
    CHECK(note.not_shown ==
          std::map<std::string, SourceRefusal>{{t.in("x.py"), SourceRefusal::not_python},
                                               {t.in("y.py"), SourceRefusal::outside_roots},
                                               {t.out("secret.py"), SourceRefusal::outside_roots},
                                               {t.out("id_ed25519"), SourceRefusal::not_python},
                                               {"/proc/self/environ", SourceRefusal::not_python},
                                               {around, SourceRefusal::outside_roots}});
    CHECK(note.unreadable_prefixes.empty());

    // The same source outside, allowed by a root of its own.
    t.rule.roots.push_back(t.outside.root.string());
    SourceLines more(t.rule);
    CHECK(more.line(t.out("secret.py"), 1) == "TOKEN = 1");
    CHECK_FALSE(more.line(t.in("x.py"), 1)); // still not a Python file
}

TEST_CASE("source text: --source-map reads another machine's paths here") {
    Tree t;
    t.allowed.file("pkg/deep/model.py", "deep\n");
    t.rule.map = {{"/nowhere-sdscprov", t.outside.root.string()},
                  {"/nowhere-sdscprov/pkg", (t.allowed.root / "pkg").string()}};
    SourceLines lines(t.rule);
    // The longest FROM applies; a FROM matches whole names only.
    CHECK(lines.line("/nowhere-sdscprov/pkg/deep/model.py", 1) == "deep");
    CHECK_FALSE(lines.line("/nowhere-sdscprov/pkgs/model.py", 1));
    // A TO is not a root by itself here (the command line adds it): the outside one is refused.
    CHECK_FALSE(lines.line("/nowhere-sdscprov/secret.py", 1));
    CHECK(lines.note().not_shown.at("/nowhere-sdscprov/secret.py") == SourceRefusal::outside_roots);
    // Missing through a map: counted, no prefix (the map already names it).
    CHECK(lines.note().not_shown.at("/nowhere-sdscprov/pkgs/model.py") == SourceRefusal::missing);
    CHECK(lines.note().unreadable_prefixes.empty());
}

TEST_CASE("source text: missing files name the first directory that is not here") {
    Tree t;
    SourceLines lines(t.rule);
    CHECK_FALSE(lines.line("/nowhere-sdscprov/ws/a.py", 1));
    CHECK_FALSE(lines.line("/nowhere-sdscprov/b.py", 1));
    CHECK_FALSE(lines.line(t.in("gone.py"), 1));
    CHECK_FALSE(lines.line("bare-name-sdscprov.py", 1));
    CHECK(lines.note().unreadable_prefixes ==
          std::set<std::string>{"/nowhere-sdscprov/", t.allowed.root.string() + "/"});
    auto said = source_text_sentences(lines.note());
    REQUIRE(said.size() == 3);
    CHECK(said[0] == "source text: 4 files not shown: 4 not found here");
    CHECK(said[1] == "lines under /nowhere-sdscprov/ are not readable here: --source-map "
                     "/nowhere-sdscprov=DIR");
    CHECK(said[2] == "lines under " + t.allowed.root.string() +
                         "/ are not readable here: --source-map " + t.allowed.root.string() +
                         "=DIR");
}

TEST_CASE("source text: --no-source-text opens nothing") {
    Tree t;
    t.rule.read = false;
    SourceLines lines(t.rule);
    CHECK_FALSE(lines.line(t.in("m.py"), 1));
    CHECK_FALSE(lines.note().read);
    CHECK(lines.note().not_shown.empty());
    CHECK(source_text_sentences(lines.note()) ==
          std::vector<std::string>{"source text: not read (--no-source-text)"});
}

TEST_CASE("source text: the note counts each file once, by reason, in a fixed order") {
    SourceTextNote note;
    CHECK(note.empty());
    CHECK(source_text_sentences(note).empty());
    note.not_shown = {{"/a.txt", SourceRefusal::not_python},
                      {"/b.py", SourceRefusal::outside_roots},
                      {"/c.py", SourceRefusal::outside_roots}};
    CHECK(source_text_sentences(note) ==
          std::vector<std::string>{"source text: 3 files not shown: 2 outside the allowed roots "
                                   "(--source-root DIR), 1 not a Python file"});
    SourceTextNote other;
    other.not_shown = {{"/b.py", SourceRefusal::outside_roots}, {"/d", SourceRefusal::not_python}};
    for (int i = 0; i < 7; ++i) {
        other.unreadable_prefixes.insert("/p" + std::to_string(i) + "/");
    }
    note.merge(other);
    auto said = source_text_sentences(note);
    REQUIRE(said.size() == 7); // the head, 5 prefixes, how many more
    CHECK(said[0].starts_with("source text: 4 files not shown: "));
    CHECK(said[6] == "and 2 more unreadable prefixes");
}
