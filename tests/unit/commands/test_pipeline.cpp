// The pipeline delivers kernel results in discovery order, whatever the number of threads.
#include "sdscprov/commands/pipeline.hpp"
#include "sdscprov/report/report.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <unistd.h>

using namespace sdscprov;
namespace fs = std::filesystem;

namespace {

struct Tree : test::TempDir {
    Tree() : test::TempDir("sdscprov-pipeline") {
        // 120 kernel directories with 1..5 files each; some bad files among them.
        for (int k = 0; k < 120; ++k) {
            fs::path dir =
                root / "inductor-spyre" / ("sdsc_fused_k" + std::to_string(k) + "_0_abcdefgh");
            fs::create_directories(dir);
            for (int i = 0; i <= k % 5; ++i) {
                std::ofstream out(dir / ("sdsc_" + std::to_string(i) + ".json"));
                if ((k * 7 + i) % 23 == 0) {
                    out << "{\"" << i << "_add\": {\"x\": [1, 2"; // truncated
                } else if (i % 2 == 0) {
                    out << "{\"" << i << "_add\": {\"debug_handle_\": null, \"x\": 1}}";
                } else {
                    out << "{\"" << i << "_mul\": {\"x\": 1}}";
                }
            }
        }
    }
};

std::string run(const Tree& t, unsigned jobs, PipelineResult& result) {
    std::ostringstream out;
    PipelineOptions options;
    options.jobs = jobs;
    auto printer = make_printer(ReportFormat::json, out, {});
    result = run_pipeline(discover_source({t.root.string()}, {}), options, scan_kernel,
                          [&](const KernelReport& k) { printer->item(k); });
    printer->end({result.totals, result.problems});
    return out.str();
}

} // namespace

TEST_CASE("pipeline: output is identical whatever the number of threads") {
    Tree t;
    PipelineResult one;
    PipelineResult many;
    std::string a = run(t, 1, one);
    std::string b = run(t, 7, many);
    CHECK(a == b);
    CHECK(one.totals.kernels == 120);
    CHECK(one.totals.counts.files == 360);
    CHECK(one.totals.counts.invalid_json > 0);
    CHECK(one.totals.counts.invalid_json == one.problems.size());
    CHECK(one.totals.counts.null + one.totals.counts.absent + one.totals.counts.invalid_json ==
          360);
}

TEST_CASE("pipeline: an exception in the work reaches the caller") {
    Tree t;
    PipelineOptions options;
    options.jobs = 3;
    int delivered = 0;
    auto throwing = [](KernelReport& k, Scanner&) {
        if (k.dir.path.find("k50_") != std::string::npos) {
            throw std::runtime_error("boom");
        }
    };
    CHECK_THROWS_AS(run_pipeline(discover_source({t.root.string()}, {}), options, throwing,
                                 [&](const KernelReport&) { ++delivered; }),
                    std::runtime_error);
}

TEST_CASE("pipeline: a batch holds at most batch_files files, or one kernel directory alone") {
    Tree t;
    // A kernel directory wider than any batch, among the others.
    fs::path wide = t.root / "inductor-spyre" / "sdsc_fused_kwide_0_abcdefgh";
    fs::create_directories(wide);
    for (int i = 0; i < 40; ++i) {
        std::ofstream(wide / ("sdsc_" + std::to_string(i) + ".json")) << "{\"0_add\": {}}";
    }
    for (std::size_t batch_files : {1, 7, 16, 64}) {
        CAPTURE(batch_files);
        PipelineOptions options;
        options.jobs = 2;
        options.batch_files = batch_files;
        std::mutex mutex;
        std::vector<std::pair<std::size_t, std::size_t>> batches; // kernels, files
        std::size_t kernels = 0;
        run_pipeline(
            discover_source({t.root.string()}, {}), options, scan_kernel,
            [&](const KernelReport&) { ++kernels; },
            [&](std::vector<KernelReport>& batch) {
                std::size_t files = 0;
                for (const auto& k : batch) {
                    files += k.files.size();
                }
                std::lock_guard lock(mutex);
                batches.emplace_back(batch.size(), files);
            });
        CHECK(kernels == 121);
        for (const auto& batch : batches) {
            // Plain copies: clang before 16 cannot capture structured bindings (CAPTURE does).
            const std::size_t dirs = batch.first;
            const std::size_t files = batch.second;
            CAPTURE(dirs);
            CAPTURE(files);
            CHECK((files <= batch_files || dirs == 1));
            CHECK(dirs <= std::min<std::size_t>(32, batch_files));
        }
    }
}
