// The fuzz targets' properties (fuzz/checks.hpp) on every input kept for them: the hand-written
// seeds (fuzz/seeds/<target>/), the demo cache's files of the target's format, and every input a
// fuzzer once crashed on (fuzz/regressions/<target>/, none yet is fine). Here without sanitizers,
// compiled by the ordinary build, so a fixed crash stays fixed.
#include "../../fuzz/checks.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace sdscprov::fuzz;

namespace {

namespace fs = std::filesystem;

// tests/CMakeLists.txt gives the tests testdata/; fuzz/ is beside it.
const fs::path repo = fs::path(SDSCPROV_TESTDATA).parent_path();

// Regular files under `dir` (recursively), sorted; none when it does not exist.
std::vector<fs::path> files_under(const fs::path& dir) {
    std::vector<fs::path> out;
    if (fs::is_directory(dir)) {
        for (const auto& entry : fs::recursive_directory_iterator(dir)) {
            if (entry.is_regular_file()) {
                out.push_back(entry.path());
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

// Files of the demo cache whose name `matches`.
std::vector<fs::path> testdata_files(bool (*matches)(const std::string& name)) {
    std::vector<fs::path> out;
    for (const auto& path : files_under(repo / "testdata")) {
        if (matches(path.filename().string())) {
            out.push_back(path);
        }
    }
    return out;
}

std::string read_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

using Check = void (PropertyChecks::*)(std::string_view);

// The seeds scripts/fuzz.sh starts `target` from: its own, the scan seeds for the writer too, and
// the demo cache's files of its format.
std::vector<fs::path> seeds_of(const std::string& target) {
    std::vector<fs::path> seeds = files_under(repo / "fuzz" / "seeds" / target);
    auto add = [&](std::vector<fs::path> more) {
        seeds.insert(seeds.end(), more.begin(), more.end());
    };
    if (target == "writer") {
        add(files_under(repo / "fuzz" / "seeds" / "scan"));
    }
    if (target == "scan" || target == "writer") {
        add(testdata_files(
            [](const std::string& n) { return n.starts_with("sdsc_") && n.ends_with(".json"); }));
    } else if (target == "origins") {
        add(testdata_files([](const std::string& n) { return n == "origins.json"; }));
    } else if (target == "bundle") {
        add(testdata_files([](const std::string& n) { return n == "bundle.mlir"; }));
    }
    return seeds;
}

void check_inputs(const std::string& target, Check check) {
    PropertyChecks checks;
    std::vector<fs::path> seeds = seeds_of(target);
    REQUIRE_MESSAGE(!seeds.empty(), "no seeds for fuzz target " << target);
    std::vector<fs::path> inputs = seeds;
    for (const auto& path : files_under(repo / "fuzz" / "regressions" / target)) {
        inputs.push_back(path);
    }
    for (const auto& path : inputs) {
        CAPTURE(path.string());
        std::string bytes = read_bytes(path);
        try {
            (checks.*check)(bytes);
        } catch (const std::exception& e) {
            FAIL_CHECK(path.string() << ": " << std::string(e.what()));
        }
    }
}

} // namespace

TEST_CASE("fuzz regressions: scan") {
    check_inputs("scan", &PropertyChecks::scan);
}

TEST_CASE("fuzz regressions: handle") {
    check_inputs("handle", &PropertyChecks::handle);
}

TEST_CASE("fuzz regressions: origins") {
    check_inputs("origins", &PropertyChecks::origins);
}

TEST_CASE("fuzz regressions: bundle") {
    check_inputs("bundle", &PropertyChecks::bundle);
}

TEST_CASE("fuzz regressions: upstream") {
    check_inputs("upstream", &PropertyChecks::upstream);
}

TEST_CASE("fuzz regressions: writer") {
    check_inputs("writer", &PropertyChecks::writer);
}

// The checks are not vacuous: each of them rejects an input that breaks its property.
TEST_CASE("fuzz regressions: the checks catch a violated property") {
    CHECK_THROWS_AS(require(false, "x"), PropertyViolation);
    // A handle the writer cannot write (invalid UTF-8) is allowed only when it really is invalid.
    sdscprov::DebugHandle h = fixed_handle();
    CHECK(strings_valid_utf8(h));
    h.ir_chain.push_back("\xC3");
    CHECK_FALSE(strings_valid_utf8(h));
    // Positions outside the text are caught.
    CHECK_THROWS_AS(require_position("ab\ncd", sdscprov::TextPosition{3, 1}, "p"),
                    PropertyViolation);
    CHECK_NOTHROW(require_position("ab\ncd", sdscprov::TextPosition{2, 3}, "p"));
}
