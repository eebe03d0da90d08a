// Unified diffs for --diff. Every expected text below is the output of GNU diffutils'
// `diff -u --label a/<path> --label b/<path> before after` on the same two texts, pasted in.
#include "sdscprov/write/diff.hpp"

#include <doctest/doctest.h>
#include <string>

using namespace sdscprov;

TEST_CASE("diff: equal texts give an empty diff") {
    const char* texts[] = {"", "a\n", "a\nb", "{\n  \"0_add\": {}\n}\n"};
    for (const char* t : texts) {
        CAPTURE(t);
        CHECK(unified_diff("k/sdsc_0.json", t, t).empty());
    }
}

TEST_CASE("diff: one region, against diff -u") {
    struct Case {
        const char* what;
        std::string before;
        std::string after;
        std::string expected;
    };
    const Case cases[] = {
        {"a block inserted in the middle",
         "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\n",
         "line 1\nline 2\nline 3\nline 4\nline 5\nnew a\nnew b\nline 6\nline 7\nline 8\nline "
         "9\nline 10\n",
         "--- a/f\n"
         "+++ b/f\n"
         "@@ -3,6 +3,8 @@\n"
         " line 3\n"
         " line 4\n"
         " line 5\n"
         "+new a\n"
         "+new b\n"
         " line 6\n"
         " line 7\n"
         " line 8\n"},
        {"a change at the first line", "a\nb\nc\nd\ne\nf\n", "A\nb\nc\nd\ne\nf\n",
         "--- a/f\n"
         "+++ b/f\n"
         "@@ -1,4 +1,4 @@\n"
         "-a\n"
         "+A\n"
         " b\n"
         " c\n"
         " d\n"},
        {"a change at the end, no newline at the end", "1\n2\n3\n4\n5", "1\n2\n3\n4\nfive",
         "--- a/f\n"
         "+++ b/f\n"
         "@@ -2,4 +2,4 @@\n"
         " 2\n"
         " 3\n"
         " 4\n"
         "-5\n"
         "\\ No newline at end of file\n"
         "+five\n"
         "\\ No newline at end of file\n"},
        {"a newline added at the end", "a\nb", "a\nb\n",
         "--- a/f\n"
         "+++ b/f\n"
         "@@ -1,2 +1,2 @@\n"
         " a\n"
         "-b\n"
         "\\ No newline at end of file\n"
         "+b\n"},
        {"a pure deletion, 3 lines of context", "1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n6\n7\n8\n",
         "--- a/f\n"
         "+++ b/f\n"
         "@@ -1,8 +1,6 @@\n"
         " 1\n"
         " 2\n"
         " 3\n"
         "-4\n"
         "-5\n"
         " 6\n"
         " 7\n"
         " 8\n"},
        {"a pure deletion, more lines around", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
         "1\n2\n3\n4\n5\n6\n8\n9\n10\n",
         "--- a/f\n"
         "+++ b/f\n"
         "@@ -4,7 +4,6 @@\n"
         " 4\n"
         " 5\n"
         " 6\n"
         "-7\n"
         " 8\n"
         " 9\n"
         " 10\n"},
        {"everything deleted", "a\n", "",
         "--- a/f\n"
         "+++ b/f\n"
         "@@ -1 +0,0 @@\n"
         "-a\n"},
        {"from an empty file", "", "a\n",
         "--- a/f\n"
         "+++ b/f\n"
         "@@ -0,0 +1 @@\n"
         "+a\n"},
        {"a line appended", "a\nb\nc\n", "a\nb\nc\nd\n",
         "--- a/f\n"
         "+++ b/f\n"
         "@@ -1,3 +1,4 @@\n"
         " a\n"
         " b\n"
         " c\n"
         "+d\n"},
        {"a handle inserted, context ending without newline",
         "{\n  \"0_add\": {\n    \"numCoresUsed_\": 32\n  }\n}",
         "{\n  \"0_add\": {\n    \"debug_handle_\": null,\n    \"numCoresUsed_\": 32\n  }\n}",
         "--- a/f\n"
         "+++ b/f\n"
         "@@ -1,5 +1,6 @@\n"
         " {\n"
         "   \"0_add\": {\n"
         "+    \"debug_handle_\": null,\n"
         "     \"numCoresUsed_\": 32\n"
         "   }\n"
         " }\n"
         "\\ No newline at end of file\n"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        CHECK(unified_diff("f", c.before, c.after) == c.expected);
    }
}

TEST_CASE("diff: the path is in both header lines") {
    const std::string d = unified_diff("cache/k_1/sdsc_0.json", "a\n", "b\n");
    CHECK(d == "--- a/cache/k_1/sdsc_0.json\n"
               "+++ b/cache/k_1/sdsc_0.json\n"
               "@@ -1 +1 @@\n"
               "-a\n"
               "+b\n");
}
