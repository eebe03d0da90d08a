// annotate's run (annotate_run.hpp) over a small cache and map, and the Annotator on one kernel
// directory: handles written, a dry run that writes nothing, the sidecars' problems in their own
// field, notes on the map's kernels without a directory, unmatched directories left alone.
#include "sdscprov/commands/annotate_run.hpp"
#include "sdscprov/commands/pending_writes.hpp"
#include "sdscprov/sidecars/origins.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <fstream>
#include <sstream>

using namespace sdscprov;

namespace {

std::string read(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

const std::string relu_dir = "c/sdsc_fused_relu_0_abcdefgh";
const std::string other_dir = "c/sdsc_other_2_zzzzzzzz";
const std::string relu_file = "{\"0_relufwd\": {\"x\": 1}}";
const std::string other_file = "{\"0_add\": {\"x\": 1}}";

// A map of three kernels: one with the cache's relu directory, two with no directory in it (the
// second of them naming an origin that is not in 'nodes': a warning of the map); `extra` goes
// into the map's object (an unknown member makes it an error).
std::string map_text(const std::string& extra = "") {
    return R"({"sdscprov_origins": 1,)" + extra + R"(
 "nodes": {"relu_1": {"original_aten": "aten.relu.default",
   "stack_trace": "  File \"/m.py\", line 3, in forward\n    h = torch.relu(x)\n"}},
 "kernels": [
  {"name": "sdsc_fused_relu_0", "dir": "sdsc_fused_relu_0_abcdefgh",
   "ops": [{"opfunc": "relufwd", "buffer": "buf0", "origins": ["relu_1"]}]},
  {"name": "sdsc_gone_1", "ops": [{"opfunc": "add", "buffer": "buf1", "origins": ["relu_1"]}]},
  {"name": "sdsc_gone_3", "ops": [{"opfunc": "add", "buffer": "buf1", "origins": ["nowhere"]}]}
 ]})";
}

struct Fixture {
    test::TempDir t;
    std::string map;
    Fixture(const std::string& extra = "") {
        t.file(relu_dir + "/sdsc_0.json", relu_file);
        t.file(other_dir + "/sdsc_0.json", other_file);
        t.file("map.json", map_text(extra));
        map = (t.root / "map.json").string();
    }
    AnnotateRunOptions options(WriteMode mode) const {
        AnnotateRunOptions o;
        o.paths = {(t.root / "c").string()};
        o.origins = {map};
        o.pipeline.jobs = 2;
        o.annotate.write.mode = mode;
        o.annotate.write.durability = Durability::none;
        o.note_kernels_without_dir = true;
        return o;
    }
};

std::size_t count_code(const std::vector<Problem>& problems, ProblemCode code) {
    return static_cast<std::size_t>(std::count_if(
        problems.begin(), problems.end(), [&](const Problem& p) { return p.code == code; }));
}

// The index over one map just read.
template <class Read> OriginsIndex index_of(Read& read) {
    REQUIRE(read.map);
    std::vector<OriginsMap> maps;
    maps.push_back(std::move(*read.map));
    return OriginsIndex(std::move(maps));
}

// The kernel directory the walk finds at `dir`, the only one there.
KernelDir only_dir(const std::filesystem::path& dir) {
    std::vector<KernelDir> dirs;
    discover(
        {dir.string()}, {}, [&](KernelDir&& d) { dirs.push_back(std::move(d)); }, [](Problem&&) {});
    REQUIRE(dirs.size() == 1);
    return std::move(dirs[0]);
}

} // namespace

TEST_CASE("annotate run: the handle written, the unmatched directory left alone") {
    Fixture f;
    std::vector<std::string> delivered;
    std::uint64_t walked = 0;
    auto result = annotate(f.options(WriteMode::write),
                           {[&](const KernelReport& k) { delivered.push_back(*k.dir.kernel); },
                            [&](std::uint64_t files) { walked = files; }});
    REQUIRE(result.run);
    CHECK(walked == 2);
    CHECK(delivered == std::vector<std::string>{"sdsc_fused_relu_0", "sdsc_other_2"});
    const auto& totals = result.run->totals.rewrites;
    CHECK(totals.added == 1);
    CHECK(totals.written == 1);
    CHECK(totals.kernels_matched == 1);
    CHECK(totals.kernels_not_in_map == 1);
    const std::string written = read(f.t.root / relu_dir / "sdsc_0.json");
    CHECK(written.find("\"debug_handle_\"") != std::string::npos);
    CHECK(written.find("aten.relu.default") != std::string::npos);
    CHECK(read(f.t.root / other_dir / "sdsc_0.json") == other_file);
    // Only the map's kernel with a directory in the cache is held.
    REQUIRE(result.index != nullptr);
    REQUIRE(result.index->kernels().size() == 1);
    CHECK(result.index->kernels()[0].kernel->name == "sdsc_fused_relu_0");
}

TEST_CASE("annotate run: a dry run writes nothing and says so") {
    Fixture f;
    struct Seen {
        bool dry_run;
        std::size_t pending;
        std::vector<FileOutcome> files;
    };
    std::vector<Seen> seen;
    auto result = annotate(
        f.options(WriteMode::dry_run), {[&](const KernelReport& k) {
            seen.push_back({k.rewrite->dry_run, pending_count(*k.rewrite), k.rewrite->files});
        }});
    REQUIRE(result.run);
    REQUIRE(seen.size() == 2);
    CHECK(seen[0].dry_run);
    CHECK(seen[0].pending == 0); // no temporary file either
    REQUIRE(seen[0].files.size() == 1);
    CHECK(seen[0].files[0].action == FileAction::add);
    CHECK(seen[0].files[0].changes);
    CHECK_FALSE(seen[0].files[0].written);
    CHECK(seen[1].files[0].action == FileAction::unmatched);
    CHECK(result.run->totals.rewrites.added == 1);
    CHECK(read(f.t.root / relu_dir / "sdsc_0.json") == relu_file);
    CHECK(read(f.t.root / other_dir / "sdsc_0.json") == other_file);
}

TEST_CASE("annotate run: the sidecars' problems in their field, the notes in the run's") {
    Fixture f;
    auto result = annotate(f.options(WriteMode::dry_run));
    REQUIRE(result.run);
    // The map's warning (an origin not in 'nodes') is the sidecar's, once, and not the run's.
    REQUIRE(result.sidecar_problems.size() == 1);
    CHECK(result.sidecar_problems[0].code == ProblemCode::bad_origins);
    CHECK(result.sidecar_problems[0].path == f.map);
    CHECK(count_code(result.run->problems, ProblemCode::bad_origins) == 0);
    // The two kernels without a directory, in map order, first of the run's problems.
    const auto& problems = result.run->problems;
    REQUIRE(problems.size() >= 2);
    CHECK(problems[0].code == ProblemCode::kernel_without_dir);
    CHECK(problems[0].message.find("'sdsc_gone_1'") != std::string::npos);
    CHECK(problems[0].pos.line == 7);
    CHECK(problems[1].code == ProblemCode::kernel_without_dir);
    CHECK(problems[1].message.find("'sdsc_gone_3'") != std::string::npos);
    CHECK(count_code(problems, ProblemCode::kernel_without_dir) == 2);
    auto all = result.all_problems();
    REQUIRE(all.size() == 1 + problems.size());
    CHECK(all[0].code == ProblemCode::bad_origins);
    CHECK(all[1].code == ProblemCode::kernel_without_dir);
}

TEST_CASE(
    "annotate run: no kernel-without-dir notes for files named one by one or when not asked") {
    Fixture f;
    auto named = f.options(WriteMode::dry_run);
    named.paths = {(f.t.root / relu_dir / "sdsc_0.json").string()};
    auto result = annotate(named);
    REQUIRE(result.run);
    CHECK(count_code(result.run->problems, ProblemCode::kernel_without_dir) == 0);
    CHECK(result.run->totals.rewrites.added == 1);

    auto quiet = f.options(WriteMode::dry_run);
    quiet.note_kernels_without_dir = false;
    result = annotate(quiet);
    REQUIRE(result.run);
    CHECK(count_code(result.run->problems, ProblemCode::kernel_without_dir) == 0);
}

TEST_CASE("annotate run: a sidecar with an error stops it before any file is read") {
    Fixture f(R"( "kernel": [],)");
    std::size_t delivered = 0;
    auto result =
        annotate(f.options(WriteMode::write), {[&](const KernelReport&) { ++delivered; }});
    CHECK_FALSE(result.run);
    CHECK(delivered == 0);
    REQUIRE_FALSE(result.sidecar_problems.empty());
    CHECK(result.sidecar_problems[0].severity == Severity::error);
    CHECK(result.sidecar_problems[0].path == f.map);
    CHECK(result.sidecar_problems[0].pos.line == 1);
    CHECK(read(f.t.root / relu_dir / "sdsc_0.json") == relu_file);
}

TEST_CASE("Annotator: a stale handle is warned about and kept, --refresh replaces it") {
    Fixture f;
    // The relu file, annotated once, then given another id: another compile's handle.
    REQUIRE(annotate(f.options(WriteMode::write)).run);
    std::string text = read(f.t.root / relu_dir / "sdsc_0.json");
    auto id = text.find("\"id\": \"");
    REQUIRE(id != std::string::npos);
    text.replace(id + 7, text.find('"', id + 7) - (id + 7), "1");
    f.t.file(relu_dir + "/sdsc_0.json", text);

    auto read_map = read_origins_map(f.map);
    OriginsIndex index = index_of(read_map);
    KernelDir dir = only_dir(f.t.root / relu_dir);
    for (bool refresh : {false, true}) {
        for (bool warnings : {false, true}) {
            CAPTURE(refresh);
            CAPTURE(warnings);
            AnnotateOptions options;
            options.join.refresh = refresh;
            options.stale_warnings = warnings;
            options.write.mode = WriteMode::dry_run;
            Annotator annotator(index, {{"sdsc_fused_relu_0", 1}}, options);
            KernelReport k;
            k.dir = dir;
            Scanner scanner;
            annotator.annotate_kernel(k, scanner);
            REQUIRE(k.rewrite);
            CHECK(k.rewrite->join->match == KernelMatch::matched);
            CHECK(k.rewrite->dry_run);
            REQUIRE(k.rewrite->files.size() == 1);
            CHECK(k.rewrite->files[0].action ==
                  (refresh ? FileAction::refresh : FileAction::differs));
            CHECK(count_code(k.problems, ProblemCode::stale_handle) ==
                  (!refresh && warnings ? 1U : 0U));
            CHECK(pending_count(*k.rewrite) == 0);
        }
    }
    CHECK(read(f.t.root / relu_dir / "sdsc_0.json") == text);
}

TEST_CASE("Annotator: two directories of one kernel name without dir in the map are ambiguous") {
    Fixture f;
    auto read_map = parse_origins_map("m.json", R"({"sdscprov_origins": 1, "nodes": {},
        "kernels": [{"name": "sdsc_fused_relu_0", "ops": [{"opfunc": "relufwd",
        "buffer": "b", "origins": []}]}]})");
    OriginsIndex index = index_of(read_map);
    KernelDir dir = only_dir(f.t.root / relu_dir);
    for (std::size_t same_name : {1U, 2U}) {
        CAPTURE(same_name);
        Annotator annotator(index, {{"sdsc_fused_relu_0", same_name}}, AnnotateOptions{});
        KernelReport k;
        k.dir = dir;
        Scanner scanner;
        annotator.annotate_kernel(k, scanner);
        CHECK(k.rewrite->join->match == (same_name == 1 ? KernelMatch::matched : KernelMatch::ambiguous));
        CHECK(k.rewrite->files[0].action ==
              (same_name == 1 ? FileAction::no_origin : FileAction::unmatched));
        CHECK_FALSE(k.rewrite->dry_run);
    }
    CHECK(read(f.t.root / relu_dir / "sdsc_0.json") == relu_file);
}
