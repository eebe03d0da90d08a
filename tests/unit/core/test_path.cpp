#include "sdscprov/core/path.hpp"

#include <doctest/doctest.h>

using namespace sdscprov;

TEST_CASE("path: the name and the parent of a path") {
    struct Case {
        std::string_view path;
        std::string_view base;   // base_name: trailing slashes ignored
        std::string_view file;   // file_name_of: after the last slash, as is
        std::string_view parent; // parent_dir
    };
    const Case cases[] = {
        {"", "", "", "."},        {"name", "name", "name", "."},
        {"a/b", "b", "b", "a"},   {"a/b/c.json", "c.json", "c.json", "a/b"},
        {"a/b/", "b", "", "a/b"}, {"a/b//", "b", "", "a/b/"},
        {"/b", "b", "b", "/"},    {"/", "", "", "/"},
        {"//", "", "", "/"},      {"./k", "k", "k", "."},
    };
    for (const auto& c : cases) {
        CAPTURE(c.path);
        CHECK(base_name(c.path) == c.base);
        CHECK(file_name_of(c.path) == c.file);
        CHECK(parent_dir(c.path) == c.parent);
    }
}

TEST_CASE("path: the file name is a view into the path") {
    const std::string path = "dir/sdsc_0.json";
    auto name = file_name_of(path);
    CHECK(name.data() == path.data() + 4);
    CHECK(name.data()[name.size()] == '\0');
    CHECK(base_name(path).data() == name.data());
}
