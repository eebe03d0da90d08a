// Compiler-generated ops (docs/formats.md, "Compiler-generated ops"): the table of source-less
// creation passes and opfunc families, and the forms an op is recognised by from its file.
#include "sdscprov/handle/compiler_generated.hpp"

#include <doctest/doctest.h>
#include <string>

using namespace sdscprov;

namespace {

DebugHandle sourceless(std::string pass) {
    DebugHandle h;
    h.id = "1";
    h.ir_chain = {"buf3"};
    h.transform_history.push_back({"rewrite", std::move(pass), std::nullopt});
    return h;
}

} // namespace

TEST_CASE("compiler_generated: every source-less creation pass of the table is recognised") {
    for (const auto& pass : sourceless_creation_passes) {
        const std::string name(pass.pass_name);
        CAPTURE(name);
        CHECK(is_sourceless_creation_pass(name));
        const DebugHandle h = sourceless(name);
        CHECK(is_sourceless_handle(h));
        CHECK(compiler_generated("add", &h) == GeneratedForm::sourceless_handle);
    }
    CHECK(is_sourceless_creation_pass("insert_restickify"));
    CHECK(is_sourceless_creation_pass("insert_post_mutation_restickify"));
    CHECK(is_sourceless_creation_pass("insert_bmm_padding"));
    // An intentional removal, not a creation; and near misses.
    CHECK_FALSE(is_sourceless_creation_pass("deadcode_elimination"));
    CHECK_FALSE(is_sourceless_creation_pass("insert_restickify_x"));
    CHECK_FALSE(is_sourceless_creation_pass(""));
}

TEST_CASE("compiler_generated: a handle with a source, or without such a pass, is not") {
    DebugHandle h = sourceless("insert_restickify");
    h.source = HandleSource{"/m.py", 3, 0, std::nullopt, std::nullopt};
    CHECK_FALSE(is_sourceless_handle(h));
    CHECK(compiler_generated("ReStickifyOpHBM", &h) == GeneratedForm::none);
    DebugHandle fused = sourceless("fuse_pointwise");
    CHECK_FALSE(is_sourceless_handle(fused));
    DebugHandle bare;
    bare.id = "2";
    CHECK_FALSE(is_sourceless_handle(bare)); // source null, but no pass says why
    CHECK(compiler_generated("add", &bare) == GeneratedForm::none);
}

TEST_CASE("compiler_generated: an opfunc of the restickify or padding family without a handle") {
    for (const char* opfunc : {"ReStickifyOpHBM", "ReStickifyOpLx", "restickify",
                               "MixedReStickifyOpWithPTLxConsumer_2048",
                               "CrossBundleProducerStreamingReStickifyOpWithPTLx", "BmmPadding"}) {
        CAPTURE(opfunc);
        CHECK(is_sourceless_opfunc(opfunc));
        CHECK(compiler_generated(opfunc, nullptr) == GeneratedForm::layout_opfunc);
    }
    for (const char* opfunc : {"add", "batchmatmul", "ReStick", "LXRelayoutSTCDPOpLx", "pad", ""}) {
        CAPTURE(opfunc);
        CHECK_FALSE(is_sourceless_opfunc(opfunc));
        CHECK(compiler_generated(opfunc, nullptr) == GeneratedForm::none);
    }
}
