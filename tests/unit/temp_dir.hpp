// A temporary directory for tests that need real files: made with mkdtemp, removed with all its
// contents when the test ends.
#pragma once

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <stdlib.h>
#include <string>

namespace sdscprov::test {

class TempDir {
public:
    explicit TempDir(const std::string& name = "sdscprov-test") {
        std::string pattern =
            (std::filesystem::temp_directory_path() / (name + "-XXXXXX")).string();
        REQUIRE(::mkdtemp(pattern.data()) != nullptr);
        root = pattern;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(root, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    // Writes `content` to `relative` under the root, creating directories on the way.
    void file(const std::string& relative, const std::string& content = "{}") const {
        std::filesystem::create_directories((root / relative).parent_path());
        std::ofstream out(root / relative, std::ios::binary | std::ios::trunc);
        out << content;
        out.close();
        REQUIRE(out.good());
    }

    std::filesystem::path root;
};

} // namespace sdscprov::test
