// Handle ids (docs/formats.md, "The id"). Expected ids come from real handles' test vectors or
// were computed independently with Python's json and hashlib, never by the code under test.
#include "core/sha256.hpp"
#include "sdscprov/handle/handle_id.hpp"

#include <array>
#include <doctest/doctest.h>
#include <string>

using namespace sdscprov;

namespace {

HandleSource at(std::string file, std::int64_t line) {
    return HandleSource{std::move(file), line, 0, std::nullopt, std::nullopt};
}

DebugHandle handle(std::optional<HandleSource> source, std::optional<std::string> aten_op,
                   std::vector<std::string> ir_chain, std::string id = "") {
    DebugHandle h;
    h.id = std::move(id);
    h.source = std::move(source);
    h.aten_op = std::move(aten_op);
    h.ir_chain = std::move(ir_chain);
    return h;
}

} // namespace

TEST_CASE("sha256_hex: the FIPS 180-2 examples") {
    CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("handle_id: the first test vector, text, digest and id") {
    const auto h =
        handle(at("/home/senuser/compile_add.py", 11), "aten.add.Tensor", {"add", "buf0"});
    const std::string text = id_v2_text(h);
    CHECK(text ==
          R"({"aten_op":"aten.add.Tensor","fused_from":[],"ir_chain":["add","buf0"],)"
          R"("source":{"end_col":null,"end_line":null,"file":"/home/senuser/compile_add.py",)"
          R"("start_col":0,"start_line":11},"version":2})");
    CHECK(sha256_hex(text) == "e4f8368c4eab4c7fc1d1eee82ef67227356632d224258918e27ecf6d068c5435");
    CHECK(handle_id_of_text(text) == "8249498605557491263");
    CHECK(handle_id_v2(h) == "8249498605557491263");
}

TEST_CASE("handle_id: the other test vectors") {
    CHECK(handle_id_v2(handle(at("/home/senuser/ex/ops.py", 11), "aten._softmax.default",
                              {"amax", "buf0"})) == "1791139761021750516");
    CHECK(handle_id_v2(handle(std::nullopt, std::nullopt, {"clone_60", "buf312"})) ==
          "6460594415264223131");
    CHECK(handle_id_v2(handle(std::nullopt, std::nullopt, {"batched_matmul_default_1"})) ==
          "8704335446284134785");
}

TEST_CASE("handle_id: python_json_string matches json.dumps(ensure_ascii=True)") {
    // Right column: Python's json.dumps of the left (as UTF-8 decoded with errors="replace").
    struct Case {
        std::string_view in;
        std::string_view out;
    };
    const Case cases[] = {
        {"", R"("")"},
        {"plain a b~", R"("plain a b~")"},
        {"\"", R"("\"")"},
        {"\\", R"("\\")"},
        {"\b\f\n\r\t", R"("\b\f\n\r\t")"},
        {"\x01", R"("\u0001")"},
        {"\x1f", R"("\u001f")"},
        {std::string_view("\0", 1), R"("\u0000")"},
        {"\x7f", R"("\u007f")"},
        {"/a/b.py", R"("/a/b.py")"},                 // '/' is not escaped
        {"\xC3\xA9", R"("\u00e9")"},                 // é
        {"\xE2\x82\xAC", R"("\u20ac")"},             // €, lowercase hex
        {"\xEF\xBF\xBF", R"("\uffff")"},             // U+FFFF, still one escape
        {"\xF0\x9F\x98\x80", R"("\ud83d\ude00")"},   // U+1F600: surrogate pair, lowercase
        {"x\xEF\xBF\xBDy", R"("x\ufffdy")"},         // a real U+FFFD
        {"a\xE2\x82\xFFz", R"("a\ufffd\ufffdz")"},   // truncated sequence, then an invalid byte
        {"\xED\xA0\x80", R"("\ufffd\ufffd\ufffd")"}, // an encoded surrogate is invalid
        {"\xC0\xAF", R"("\ufffd\ufffd")"},           // overlong
        {"\xE0\x80\x80", R"("\ufffd\ufffd\ufffd")"}, // overlong
        {"\xF0\x9F\x98", R"("\ufffd")"},             // truncated at the end
        {"\xF4\x90\x80\x80", R"("\ufffd\ufffd\ufffd\ufffd")"}, // above U+10FFFF
    };
    for (const auto& c : cases) {
        CAPTURE(c.in);
        CHECK(python_json_string(c.in) == c.out);
    }
}

TEST_CASE("handle_id: id_v2 escapes strings and hashes fused_from ids and end positions") {
    // Ids computed with Python:
    //   json.dumps({"version": 2, "source": ..., "aten_op": ..., "ir_chain": [...],
    //               "fused_from": [...]}, ensure_ascii=True, sort_keys=True,
    //               separators=(",", ":")), then int.from_bytes(sha256(text)[:8], "big") >> 1.
    SUBCASE("non-ASCII, quote and backslash in the path") {
        const auto h =
            handle(at("/home/jos\xC3\xA9/\"q\"\\m.py", 7), "aten.relu.default", {"relu", "buf1"});
        CHECK(id_v2_text(h) ==
              R"({"aten_op":"aten.relu.default","fused_from":[],"ir_chain":["relu","buf1"],)"
              R"("source":{"end_col":null,"end_line":null,"file":"/home/jos\u00e9/\"q\"\\m.py",)"
              R"("start_col":0,"start_line":7},"version":2})");
        CHECK(handle_id_v2(h) == "3463665534038382102");
    }
    SUBCASE("constituents hash as their id strings, in order") {
        auto h = handle(std::nullopt, std::nullopt, {"linear", "relu", "buf0"});
        h.fused_from = {handle(std::nullopt, std::nullopt, {"linear"}, "101"),
                        handle(std::nullopt, std::nullopt, {"relu"}, "102")};
        CHECK(id_v2_text(h) == R"({"aten_op":null,"fused_from":["101","102"],)"
                               R"("ir_chain":["linear","relu","buf0"],"source":null,"version":2})");
        CHECK(handle_id_v2(h) == "1730075875978442260");
    }
    SUBCASE("end line and column are hashed") {
        auto h = handle(HandleSource{"/w/m.py", 3, 4, 5, 6}, "aten.add.Tensor", {"add", "buf0"});
        CHECK(handle_id_v2(h) == "4457604402289615344");
    }
    SUBCASE("transform_history is not hashed") {
        auto h = handle(at("/home/senuser/compile_add.py", 11), "aten.add.Tensor", {"add", "buf0"});
        h.transform_history = {{"rewrite", "insert_restickify", std::nullopt}};
        CHECK(handle_id_v2(h) == "8249498605557491263");
    }
}

TEST_CASE("handle_id: id_v1 hashes the joined UTF-8 text") {
    // Ids computed with Python, as torch-spyre's v1 _stable_id:
    //   text = "|".join([f"{file}:{line}:{col}" or "", aten_op or "", ",".join(ir_chain)])
    //   int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") >> 1
    SUBCASE("with a source") {
        const auto h =
            handle(at("/w/model.py", 25), "aten.mm.default", {"mm_default", "permute_1", "op3"});
        CHECK(id_v1_text(h) == "/w/model.py:25:0|aten.mm.default|mm_default,permute_1,op3");
        CHECK(handle_id_v1(h) == "3966861356231667228");
    }
    SUBCASE("without source or aten op") {
        const auto h = handle(std::nullopt, std::nullopt, {"clone_60", "buf312"});
        CHECK(id_v1_text(h) == "||clone_60,buf312");
        CHECK(handle_id_v1(h) == "4548376614778228519");
    }
    SUBCASE("non-ASCII is hashed as UTF-8, not escaped") {
        const auto h =
            handle(at("/home/jos\xC3\xA9/m.py", 7), "aten.relu.default", {"relu", "buf1"});
        CHECK(id_v1_text(h) == "/home/jos\xC3\xA9/m.py:7:0|aten.relu.default|relu,buf1");
        CHECK(handle_id_v1(h) == "1722175038565059033");
    }
    SUBCASE("invalid UTF-8 becomes U+FFFD, as a Python str could hold no such bytes") {
        const auto h = handle(std::nullopt, std::nullopt, {"a\xFFz", "b\xE2\x82"});
        CHECK(id_v1_text(h) == "||a\xEF\xBF\xBDz,b\xEF\xBF\xBD");
    }
}

TEST_CASE("handle_id: verify_handle_id tells v2, v1 and rewritten content apart") {
    auto h = handle(at("/home/senuser/compile_add.py", 11), "aten.add.Tensor", {"add", "buf0"});
    h.id = "8249498605557491263"; // a test vector, version 2
    CHECK(verify_handle_id(h) == IdVersion::v2);
    // Python: sha256(b"/home/senuser/compile_add.py:11:0|aten.add.Tensor|add,buf0"), as above.
    h.id = "246574225953862352";
    CHECK(verify_handle_id(h) == IdVersion::v1);
    h.history_shape = HistoryShape::fusion_context; // the shape does not change the hashed content
    CHECK(verify_handle_id(h) == IdVersion::v1);
    h.id = "8249498605557491263";
    h.source->file = "/rewritten/compile_add.py";
    CHECK(verify_handle_id(h) == IdVersion::none);
}
