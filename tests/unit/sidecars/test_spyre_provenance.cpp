// spyre_provenance.json (docs/formats.md, "Sidecars"): the reader's three checks in order, and the
// document as origins entries. The documents are testdata/spyre/ (scripts/gen_spyre_provenance.py);
// the invalid variants are mutations written here, one per rule.
#include "sdscprov/sidecars/sidecar.hpp"
#include "sdscprov/sidecars/spyre_provenance.hpp"
#include "sdscprov/write/writer.hpp"
#include "temp_dir.hpp"

#include <doctest/doctest.h>
#include <fstream>
#include <sstream>
#include <string>

using namespace sdscprov;

namespace {

std::string testdata(const std::string& name) {
    std::ifstream in(std::string(SDSCPROV_TESTDATA) + "/spyre/" + name, std::ios::binary);
    REQUIRE(in);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// `text` with the first occurrence of `from` replaced by `to` (which must be there).
std::string mutate(std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, from);
    return text.replace(at, from.size(), to);
}

ProblemCode only_code(const SpyreReadResult& r) {
    REQUIRE_FALSE(r.doc.has_value());
    REQUIRE_FALSE(r.problems.empty());
    for (const auto& p : r.problems) {
        CHECK(p.code == r.problems.front().code);
        CHECK(p.pos.line > 0);
    }
    return r.problems.front().code;
}

// A valid document whose handles "0".."n-1" form a fused_from chain (handle i fused from i-1) or,
// with `shared`, a DAG in which each is also fused from i-2: shared constituents, so expanding
// handle n-1 builds about 1.6^n handles. Only handle 0 has an ATen op; one kernel binds n-1.
std::string fused_document(int n, bool shared, bool cycle = false) {
    std::string handles;
    for (int i = 0; i < n; ++i) {
        std::string fused;
        if (i >= 1) {
            fused = "\"" + std::to_string(i - 1) + "\"";
        } else if (cycle) {
            fused = "\"" + std::to_string(n - 1) + "\""; // 0 from n-1: the chain closes
        }
        if (shared && i >= 2) {
            fused += ",\"" + std::to_string(i - 2) + "\"";
        }
        handles += std::string(i ? "," : "") + "\"" + std::to_string(i) + "\":{\"id\":\"" +
                   std::to_string(i) +
                   "\",\"source\":null,\"aten_op\":" + (i ? "null" : "\"aten.x\"") +
                   ",\"ir_chain\":[],\"fused_from\":[" + fused + "],\"transform_history\":[]}";
    }
    const std::string top = "\"" + std::to_string(n - 1) + "\"";
    const std::string compile(64, 'c');
    return R"({"schemaVersion":1,"eventKey":{"version":1,)"
           R"("algorithm":"sha256-prefix-80-base32-lower","width":16,"stepAttribution":"bundle"},)"
           R"("mergeGeneration":1,"status":"complete",)"
           R"("diagnostics":{},"handles":{)" +
           handles + R"(},"kernelIdentities":{"kkkkkkkkkkkkkkkk":{"directHandleIds":[)" + top +
           R"(],"specHandleBindings":[{"specPath":[0],"handleId":)" + top +
           R"(}],"atenOps":["aten.x"],"eventNameBase":"spyre_kernel_v1_k_kkkkkkkkkkkkkkkk"}},)"
           R"("kernelOccurrences":{")" +
           std::string(64, '0') + R"(":{"identityKey":"kkkkkkkkkkkkkkkk","compileId":")" + compile +
           R"(","compilerKernelName":"sdsc_k","registrations":[]}},"upstreamProjections":{")" +
           compile +
           R"(":{"source":"inductor_provenance_tracking_node_mappings","version":2.0,)"
           R"("producer":{"torchSpyreVersion":"1","torchVersion":"2"},"settings":)"
           R"({"provenanceTrackingLevel":1,"structuredTracing":false},"kernels":)"
           R"([{"compilerKernelName":"sdsc_k","identityKey":"kkkkkkkkkkkkkkkk"}],)"
           R"("uncollectedKernels":[],"upstreamProjectionFailed":false,"upstreamJoin":"ok",)"
           R"("preToPost":{},"postToPre":{},"cppCodeToPost":{},"postToCppCode":{},)"
           R"("kernelStackTraces":{}}}})";
}

} // namespace

TEST_CASE("spyre_provenance: the valid documents, v1 and the early draft") {
    for (const char* name : {"spyre_provenance.json", "cache_replay.json", "early_draft.json"}) {
        CAPTURE(name);
        auto r = parse_spyre_provenance(name, testdata(name));
        for (const auto& p : r.problems) {
            CAPTURE(p.message);
            CHECK(false);
        }
        REQUIRE(r.doc.has_value());
        CHECK(r.doc->early_draft == (std::string(name) == "early_draft.json"));
    }
    auto r = parse_spyre_provenance("p", testdata("spyre_provenance.json"));
    REQUIRE(r.doc);
    CHECK(r.doc->handles.size() == 7);
    CHECK(r.doc->identities.size() == 3);
    CHECK(r.doc->occurrences.size() == 4);
    CHECK(r.doc->projections.size() == 2);
    CHECK(r.doc->status == "partial");
}

TEST_CASE("spyre_provenance: schemaVersion is checked before anything else") {
    std::string text = testdata("spyre_provenance.json");
    auto forward = mutate(mutate(text, "\"schemaVersion\": 1", "\"schemaVersion\": 2"),
                          "\"status\": \"partial\"", "\"status\": 7");
    auto r = parse_spyre_provenance("p", forward);
    CHECK(only_code(r) == ProblemCode::unsupported_schema_version);
    CHECK(r.problems.size() == 1);
    CHECK(only_code(parse_spyre_provenance("p", "{\"handles\": {}}")) ==
          ProblemCode::unsupported_schema_version);
    CHECK(only_code(parse_spyre_provenance(
              "p", mutate(text, "\"schemaVersion\": 1", "\"schemaVersion\": \"1\""))) ==
          ProblemCode::unsupported_schema_version);
}

TEST_CASE("spyre_provenance: structure (schema-validation-failure) before meaning") {
    std::string text = testdata("spyre_provenance.json");
    struct Case {
        const char* what;
        std::string from;
        std::string to;
    };
    const Case cases[] = {
        {"unknown top-level member", "\"diagnostics\": {}", "\"diagnostics\": {}, \"x\": 1"},
        {"unknown diagnostic", "\"diagnostics\": {}", "\"diagnostics\": {\"other\": 1}"},
        {"mergeGeneration 0", "\"mergeGeneration\": 2", "\"mergeGeneration\": 0"},
        {"status not in the enum", "\"status\": \"partial\"", "\"status\": \"done\""},
        {"eventKey width", "\"width\": 16", "\"width\": 15"},
        {"empty spec path", "\"specPath\": [\n", "\"specPath\": [],\"x\": [\n"},
        {"handle key not decimal", "\"handles\": {\n    \"", "\"handles\": {\n    \"x"},
        {"start_line 0", "\"start_line\": 11", "\"start_line\": 0"},
        {"transform kind", "\"kind\": \"fusion\"", "\"kind\": \"merge\""},
        {"registration alias", "\"alias\": \"sdsc_fused_addmm_1:2\"", "\"alias\": \"x\""},
        {"identity key", "\"identityKey\": \"mlpfcaddbbbbbbb3\"", "\"identityKey\": \"MLP\""},
        {"projection version", "\"version\": 2.0", "\"version\": 3.0"},
        {"duplicate member", "\"mergeGeneration\": 2",
         "\"mergeGeneration\": 2, \"mergeGeneration\": 2"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        auto r = parse_spyre_provenance("p", mutate(text, c.from, c.to));
        CHECK(only_code(r) == ProblemCode::schema_validation_failure);
    }
}

TEST_CASE("spyre_provenance: meaning (semantic-validation-failure)") {
    std::string text = testdata("spyre_provenance.json");
    struct Case {
        const char* what;
        std::string from;
        std::string to;
    };
    const Case cases[] = {
        {"status complete with a level-0 projection", "\"status\": \"partial\"",
         "\"status\": \"complete\""},
        {"diagnostics that the projections do not count", "\"diagnostics\": {}",
         "\"diagnostics\": {\"collection-failure\": 1}"},
        {"a binding to a handle that does not exist", "\"handleId\": \"",
         "\"handleId\": \"12345\", \"x\": \""},
        {"an alias that is not its kernel's", "\"alias\": \"sdsc_fused_addmm_1:2\"",
         "\"alias\": \"sdsc_fused_addmm_1:3\""},
        {"eventNameBase of another key", "_mlpfcaddbbbbbbb3\"", "_mlpfcaddbbbbbbb4\""},
        {"reverse mappings that disagree", "\"relu\": [\n          \"relu\"",
         "\"relu\": [\n          \"relu\", \"mm\""},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        std::string mutated = mutate(text, c.from, c.to);
        // The first two cases' mutations of a binding produce an unknown member: fix that up.
        auto x = mutated.find(", \"x\": \"");
        if (x != std::string::npos) {
            auto end = mutated.find('"', x + 8);
            mutated.erase(x, end + 1 - x);
        }
        auto r = parse_spyre_provenance("p", mutated);
        CHECK(only_code(r) == ProblemCode::semantic_validation_failure);
    }
}

TEST_CASE("spyre_provenance: fused handles are expanded, kernels deduplicated by identity") {
    auto r = parse_spyre_provenance("p", testdata("spyre_provenance.json"));
    REQUIRE(r.doc);
    OriginsMap map = spyre_origins(*r.doc);
    // sdsc_fused_addmm_linear_relu_0 occurs in both compiles with one identity: one entry.
    REQUIRE(map.kernels.size() == 3);
    const OriginsKernel* main = nullptr;
    for (const auto& k : map.kernels) {
        CHECK(k.identity.has_value());
        if (k.name == "sdsc_fused_addmm_linear_relu_0") {
            main = &k;
        }
    }
    REQUIRE(main != nullptr);
    REQUIRE(main->ops.size() == 4);
    const DebugHandle& relu = *main->ops[2].handle;
    CHECK(main->ops[2].spec_path == std::vector<std::uint64_t>{2});
    REQUIRE(relu.fused_from.size() == 2);
    CHECK(relu.fused_from[0].aten_op == "aten.permute.default");
    CHECK(relu.fused_from[1].aten_op == "aten.relu.default");
    CHECK(relu.ir_chain == std::vector<std::string>{"permute", "relu", "buf2"});
    CHECK(spyre_upstream(*r.doc).size() == 2);
}

TEST_CASE("sidecar: the kind is told by the document's members") {
    CHECK(sidecar_kind(R"({"sdscprov_origins": 1, "nodes": {}, "kernels": []})") ==
          SidecarKind::origins_map);
    CHECK(sidecar_kind(R"({"handles": {}, "schemaVersion": 3})") == SidecarKind::spyre_provenance);
    CHECK(sidecar_kind(R"({"kernelOccurrences": {}})") == SidecarKind::spyre_provenance);
    CHECK(sidecar_kind(R"({"preToPost": {}, "version": 2.0})") == SidecarKind::upstream_mappings);
    CHECK(sidecar_kind("[1]") == SidecarKind::unknown);
    CHECK(sidecar_kind("{") == SidecarKind::unknown);
    // Kernel stack traces (kernel -> list), and the empty files PyTorch writes.
    CHECK(sidecar_kind(R"({"sdsc_fused_mm_1": ["File ..."]})") == SidecarKind::upstream_mappings);
    CHECK(sidecar_kind("{}") == SidecarKind::upstream_mappings);
    CHECK(sidecar_kind(R"({"version": 2.0})") == SidecarKind::upstream_mappings);
    // An object of no known kind is not read as stack traces.
    CHECK(sidecar_kind(R"({"nodes": {}, "kernels": []})") == SidecarKind::unknown);
    CHECK(sidecar_kind(R"({"k": "v"})") == SidecarKind::unknown);
}

TEST_CASE("sidecar: a document of no known kind is an error naming the kinds") {
    test::TempDir dir;
    dir.file("other.json", "\n  {\"nodes\": {}, \"kernels\": []}");
    std::string path = (dir.root / "other.json").string();
    std::vector<Problem> problems;
    auto sidecars = read_sidecars_of_any_kind({path}, problems);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].code == ProblemCode::unknown_sidecar);
    CHECK(problems[0].severity == Severity::error);
    CHECK(problems[0].pos.line == 2);
    CHECK(problems[0].pos.col == 3);
    for (const char* kind : {"sdscprov_origins", "schemaVersion", "preToPost", "stack traces"}) {
        CHECK(problems[0].message.find(kind) != std::string::npos);
    }
    CHECK(sidecars.maps.empty());
    CHECK(sidecars.upstream.empty());
}

TEST_CASE("sidecar: profile's read of one file tells its kind and reads only spyre_provenance") {
    test::TempDir dir;
    dir.file("spyre.json", testdata("spyre_provenance.json"));
    // An origins map with an unknown member: read as a map it would be an error.
    dir.file("map.json", R"({"sdscprov_origins": 1, "nodes": {}, "kernels": [], "typo": 1})");
    std::optional<SidecarKind> kind;
    auto spyre = read_spyre_sidecar((dir.root / "spyre.json").string(), kind);
    CHECK(kind == SidecarKind::spyre_provenance);
    CHECK(spyre.problems.empty());
    REQUIRE(spyre.doc);
    CHECK(spyre.doc->path == (dir.root / "spyre.json").string());
    CHECK(spyre_origins(*spyre.doc).kernels.size() ==
          spyre_origins(*parse_spyre_provenance("p", testdata("spyre_provenance.json")).doc)
              .kernels.size());

    auto map = read_spyre_sidecar((dir.root / "map.json").string(), kind);
    CHECK(kind == SidecarKind::origins_map);
    CHECK(map.problems.empty()); // left unread
    CHECK_FALSE(map.doc);

    auto missing = read_spyre_sidecar((dir.root / "gone.json").string(), kind);
    CHECK_FALSE(kind);
    REQUIRE(missing.problems.size() == 1);
    CHECK(missing.problems[0].severity == Severity::error);
    auto large = read_spyre_sidecar((dir.root / "spyre.json").string(), kind, 10);
    CHECK_FALSE(kind);
    REQUIRE(large.problems.size() == 1);
    CHECK(large.problems[0].code == ProblemCode::file_too_large);
}

TEST_CASE("sidecar: annotate's read of files of each kind, loaded once") {
    test::TempDir dir;
    dir.file("spyre.json", testdata("spyre_provenance.json"));
    dir.file("stacks.json", R"({"sdsc_fused_mm_1": ["File \"m.py\", line 1"]})");
    // An origins map whose version is not its first member: loaded whole, then read in place.
    dir.file("map.json", R"({"nodes": {}, "kernels": [{"name": "k", "ops": []}],
        "sdscprov_origins": 1})");
    std::vector<Problem> problems;
    auto sidecars = read_sidecars_of_any_kind({(dir.root / "spyre.json").string(),
                                               (dir.root / "stacks.json").string(),
                                               (dir.root / "map.json").string()},
                                              problems);
    for (const auto& p : problems) {
        CAPTURE(p.message);
        CHECK(false);
    }
    REQUIRE(sidecars.maps.size() == 2);
    CHECK(sidecars.maps[0].path == (dir.root / "spyre.json").string());
    CHECK_FALSE(sidecars.maps[0].kernels.empty());
    CHECK(sidecars.maps[1].path == (dir.root / "map.json").string());
    REQUIRE(sidecars.maps[1].kernels.size() == 1);
    CHECK(sidecars.maps[1].kernels[0].pos.line == 1);
    CHECK(sidecars.upstream.size() == 3); // the spyre file's two, the stack traces
}

// fuzz/regressions/spyre/fused-from-dag-exponential-expansion.json: a 5.6 KB document whose
// fused_from DAG shares constituents. The atenOps check walked every path (2^N), and its 40
// handles would expand to ~10^8 nested ones in spyre_origins.
TEST_CASE("spyre_provenance: shared constituents are walked once, expansions are bounded") {
    // A chain deeper than 64: handle 0's ATen op is reachable from the top.
    auto chain = parse_spyre_provenance("p", fused_document(100, false));
    for (const auto& p : chain.problems) {
        CAPTURE(p.message);
        CHECK(false);
    }
    REQUIRE(chain.doc);
    CHECK(spyre_origins(*chain.doc).kernels.at(0).ops.at(0).handle->fused_from.size() == 1);

    // A DAG small enough to expand: handle 11 expands to 287 handles.
    auto small = parse_spyre_provenance("p", fused_document(12, true));
    REQUIRE(small.doc);
    CHECK(small.problems.empty());
    CHECK(expand_handle(*small.doc, "11").fused_from.size() == 2);

    // A cycle, long or short: rejected, naming a handle on it.
    for (int n : {2, 5000}) {
        auto cyclic = parse_spyre_provenance("p", fused_document(n, false, true));
        CAPTURE(n);
        CHECK(only_code(cyclic) == ProblemCode::semantic_validation_failure);
        REQUIRE(cyclic.problems.size() == 1);
        CHECK(cyclic.problems[0].message == "handle '0' is fused, directly or not, from itself");
    }

    // 40 handles: rejected, once, at the first handle that expands to more than 4096.
    auto big = parse_spyre_provenance("p", fused_document(40, true));
    CHECK(only_code(big) == ProblemCode::semantic_validation_failure);
    REQUIRE(big.problems.size() == 1);
    CHECK(big.problems[0].message.find("expands through fused_from to more than 4096") !=
          std::string::npos);
}

TEST_CASE("spyre_provenance: a fused_from chain deeper than an SDSC file can hold is refused") {
    // In fused_document each handle is its own scalars (nesting 1) fused from the one before:
    // handle i nests 2 i + 1 levels. 511 handles: the top one nests 1021, the most a file holds.
    auto deepest = parse_spyre_provenance("p", fused_document(511, false));
    CHECK(deepest.problems.empty());
    REQUIRE(deepest.doc);
    DebugHandle top = expand_handle(*deepest.doc, "510");
    CHECK(handle_nesting(top) == max_handle_nesting);
    Scanner scanner;
    const std::string doc = "{\"0_add\": {\"x\": 1}}";
    ScanResult before = scanner.scan_bytes(SdscFile{"sdsc_0.json", {}}, doc);
    ScanResult after =
        scanner.scan_bytes(SdscFile{"sdsc_0.json", {}}, set_handle(doc, before, top));
    CHECK(after.status == FileStatus::ok);
    CHECK(after.handle == top);

    auto deeper = parse_spyre_provenance("p", fused_document(512, false));
    CHECK_FALSE(deeper.doc);
    REQUIRE(deeper.problems.size() == 1);
    CHECK(deeper.problems[0].code == ProblemCode::semantic_validation_failure);
    CHECK(deeper.problems[0].message ==
          "handle '511' nests 1023 levels deep through fused_from: an SDSC file holds at most 1021 "
          "(JSON nests at most 1024 levels, and the handle is 2 levels in)");
    CHECK(deeper.problems[0].pos.line == 1); // the handle's key
    CHECK(deeper.problems[0].pos.col > 1);
}

TEST_CASE("spyre_provenance: a fused_from chain as deep as the file allows") {
    // 200,000 handles (27 MB), each fused from the one before: the checks walk it with their own
    // stacks (recursion this deep overflows the call stack), and it is rejected by its depth, at
    // the first handle in id order that nests too deep ('1000': 2001 levels, 1001 handles).
    auto deep = parse_spyre_provenance("p", fused_document(200000, false));
    CHECK(only_code(deep) == ProblemCode::semantic_validation_failure);
    REQUIRE(deep.problems.size() == 1);
    CHECK(deep.problems[0].message.find("handle '1000' nests 2001 levels deep") == 0);
    auto cyclic = parse_spyre_provenance("p", fused_document(200000, false, true));
    REQUIRE(cyclic.problems.size() == 1);
    CHECK(cyclic.problems[0].message == "handle '0' is fused, directly or not, from itself");
}
