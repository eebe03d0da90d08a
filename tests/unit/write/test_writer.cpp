// The writer puts debug_handle_ into SDSC bytes exactly as torch-spyre's json.dump(indent=2) would
// have written it, in the file's own style, and touches no other byte.
#include "sdscprov/write/writer.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>
#include <simdjson.h>
#include <sstream>
#include <stdexcept>

using namespace sdscprov;
using namespace std::string_literals;

namespace {

// Expected bytes, written by Python itself (never by the code under test). Every raw string below
// is the output of this program, run with `python3 gen.py` (Python 3.11.7):
//
//     import json
//
//     def src(file, line, col=0, el=None, ec=None):
//         return {"file": file, "start_line": line, "start_col": col,
//                 "end_line": el, "end_col": ec}
//
//     def h(id, source, aten, chain, fused=(), history=(), fc=False, fcv=None):
//         d = {"id": id, "source": source, "aten_op": aten, "ir_chain": list(chain),
//              "fused_from": list(fused)}
//         if fc:
//             d["fusion_context"] = fcv
//         else:
//             d["transform_history"] = list(history)
//         return d
//
//     ADD_SRC = src("/home/senuser/compile_add.py", 11)
//     H_ADD = h("8249498605557491263", ADD_SRC, "aten.add.Tensor", ["add", "buf0"])
//     CHILD_MUL = h("1234567890123456789", src("/home/senuser/mlp.py", 20), "aten.mul.Tensor",
//                   ["mul"])
//     CHILD_SILU = h("42", None, "aten.silu.default", ["silu"])
//     H_FUSED = h("9223372036854775807", src("/home/senuser/mlp.py", 20, 0, 21, 37), None,
//                 ["mul", "silu", "buf3"], [CHILD_MUL, CHILD_SILU])
//     H_NULLS = h("6460594415264223131", None, None, ["clone_60", "buf312"])
//     H_STRINGS = h("0", src("/home/us\u00e9r/\U0001F600/m\"o\\d\nx\x7f.py", 3), "a/b\t\\u00E9",
//                   ["\u2028", "buf\x00\x1f"])
//     H_HISTORY = h("17", src("/w/m.py", -5), "aten.mm.default", ["mm", "buf1"], history=[
//         {"kind": "rewrite", "pass_name": "insert_restickify", "reason": None},
//         {"kind": "fuse", "pass_name": "fuse_pointwise", "reason": "merged into \"buf2\""}])
//     H_FC_NULL = h("8249498605557491263", ADD_SRC, "aten.add.Tensor", ["add", "buf0"], fc=True)
//     H_FC_STR = h("5", None, None, ["buf7"], [h("6", None, None, ["a"], fc=True, fcv="x")],
//                  fc=True, fcv="fused with buf1 (pointwise)")
//
//     OP = {"sdscFoldProps_": [{"factor_": 1, "label_": "time"}], "numCoresUsed_": 32,
//           "coreIdToDsc_": {"0": 0, "1": 0},
//           "dscs_": [{"add": {"labeledDs_": [], "constantInfo_": "{}"}}]}
//     OP1 = {"x": 1}
//
//     def doc(op, handle="absent"):
//         inner = {} if handle == "absent" else {"debug_handle_": handle}
//         inner.update(op)
//         return {"0_add": inner}
//
//     def lit(name, text):
//         print(f'const std::string {name} = R"py({text})py";')
//
//     P = dict(indent=2)
//     lit("kAbsent", json.dumps(doc(OP), **P))
//     lit("kNull", json.dumps(doc(OP, None), **P))
//     for n, hd in [("Add", H_ADD), ("Fused", H_FUSED), ("Nulls", H_NULLS),
//                   ("Strings", H_STRINGS), ("History", H_HISTORY), ("FcNull", H_FC_NULL),
//                   ("FcStr", H_FC_STR)]:
//         lit("kWith" + n, json.dumps(doc(OP, hd), **P))
//     print("// styles")
//     B = dict(indent=4, separators=(",", " : "))
//     lit("kBackendAbsent", json.dumps(doc(OP), **B))
//     lit("kBackendWithAdd", json.dumps(doc(OP, H_ADD), **B))
//     T = dict(separators=(",", ":"))
//     lit("kTightAbsent", json.dumps(doc(OP1), **T))
//     lit("kTightWithAdd", json.dumps(doc(OP1, H_ADD), **T))
//     lit("kSpacedAbsent", json.dumps(doc(OP1)))
//     lit("kSpacedWithAdd", json.dumps(doc(OP1, H_ADD)))
//     lit("kSpacedBigAbsent", json.dumps(doc(OP)))
//     lit("kSpacedBigWithAdd", json.dumps(doc(OP, H_ADD)))
//     lit("kEmptyAbsent", json.dumps(doc({}), indent=2))
//     lit("kEmptyWithAdd", json.dumps(doc({}, H_ADD), indent=2))
//     lit("kTightEmptyAbsent", json.dumps(doc({}), **T))
//     lit("kTightEmptyWithAdd", json.dumps(doc({}, H_ADD), **T))
//     print("// escapes")
//     allc = "".join(chr(c) for c in range(0x80)) + ("\u0080\u00ff\u07ff\u0800\ud7ff\ue000"
//                                                    "\ufeff\uffff\U00010000\U0001F600\U0010FFFF")
//     H_ALL = h("1", None, allc, ["x"])
//     lit("kAllCharsCompact", json.dumps(H_ALL, **T))
//
// k*Absent are files without a handle, kNull one with `"debug_handle_": null` first, kWith* the
// same document with the handle as the op object's first member, as torch-spyre writes it.
const std::string kAbsent = R"py({
  "0_add": {
    "sdscFoldProps_": [
      {
        "factor_": 1,
        "label_": "time"
      }
    ],
    "numCoresUsed_": 32,
    "coreIdToDsc_": {
      "0": 0,
      "1": 0
    },
    "dscs_": [
      {
        "add": {
          "labeledDs_": [],
          "constantInfo_": "{}"
        }
      }
    ]
  }
})py";
const std::string kNull = R"py({
  "0_add": {
    "debug_handle_": null,
    "sdscFoldProps_": [
      {
        "factor_": 1,
        "label_": "time"
      }
    ],
    "numCoresUsed_": 32,
    "coreIdToDsc_": {
      "0": 0,
      "1": 0
    },
    "dscs_": [
      {
        "add": {
          "labeledDs_": [],
          "constantInfo_": "{}"
        }
      }
    ]
  }
})py";
const std::string kWithAdd = R"py({
  "0_add": {
    "debug_handle_": {
      "id": "8249498605557491263",
      "source": {
        "file": "/home/senuser/compile_add.py",
        "start_line": 11,
        "start_col": 0,
        "end_line": null,
        "end_col": null
      },
      "aten_op": "aten.add.Tensor",
      "ir_chain": [
        "add",
        "buf0"
      ],
      "fused_from": [],
      "transform_history": []
    },
    "sdscFoldProps_": [
      {
        "factor_": 1,
        "label_": "time"
      }
    ],
    "numCoresUsed_": 32,
    "coreIdToDsc_": {
      "0": 0,
      "1": 0
    },
    "dscs_": [
      {
        "add": {
          "labeledDs_": [],
          "constantInfo_": "{}"
        }
      }
    ]
  }
})py";
const std::string kWithFused = R"py({
  "0_add": {
    "debug_handle_": {
      "id": "9223372036854775807",
      "source": {
        "file": "/home/senuser/mlp.py",
        "start_line": 20,
        "start_col": 0,
        "end_line": 21,
        "end_col": 37
      },
      "aten_op": null,
      "ir_chain": [
        "mul",
        "silu",
        "buf3"
      ],
      "fused_from": [
        {
          "id": "1234567890123456789",
          "source": {
            "file": "/home/senuser/mlp.py",
            "start_line": 20,
            "start_col": 0,
            "end_line": null,
            "end_col": null
          },
          "aten_op": "aten.mul.Tensor",
          "ir_chain": [
            "mul"
          ],
          "fused_from": [],
          "transform_history": []
        },
        {
          "id": "42",
          "source": null,
          "aten_op": "aten.silu.default",
          "ir_chain": [
            "silu"
          ],
          "fused_from": [],
          "transform_history": []
        }
      ],
      "transform_history": []
    },
    "sdscFoldProps_": [
      {
        "factor_": 1,
        "label_": "time"
      }
    ],
    "numCoresUsed_": 32,
    "coreIdToDsc_": {
      "0": 0,
      "1": 0
    },
    "dscs_": [
      {
        "add": {
          "labeledDs_": [],
          "constantInfo_": "{}"
        }
      }
    ]
  }
})py";
const std::string kWithNulls = R"py({
  "0_add": {
    "debug_handle_": {
      "id": "6460594415264223131",
      "source": null,
      "aten_op": null,
      "ir_chain": [
        "clone_60",
        "buf312"
      ],
      "fused_from": [],
      "transform_history": []
    },
    "sdscFoldProps_": [
      {
        "factor_": 1,
        "label_": "time"
      }
    ],
    "numCoresUsed_": 32,
    "coreIdToDsc_": {
      "0": 0,
      "1": 0
    },
    "dscs_": [
      {
        "add": {
          "labeledDs_": [],
          "constantInfo_": "{}"
        }
      }
    ]
  }
})py";
const std::string kWithStrings = R"py({
  "0_add": {
    "debug_handle_": {
      "id": "0",
      "source": {
        "file": "/home/us\u00e9r/\ud83d\ude00/m\"o\\d\nx\u007f.py",
        "start_line": 3,
        "start_col": 0,
        "end_line": null,
        "end_col": null
      },
      "aten_op": "a/b\t\\u00E9",
      "ir_chain": [
        "\u2028",
        "buf\u0000\u001f"
      ],
      "fused_from": [],
      "transform_history": []
    },
    "sdscFoldProps_": [
      {
        "factor_": 1,
        "label_": "time"
      }
    ],
    "numCoresUsed_": 32,
    "coreIdToDsc_": {
      "0": 0,
      "1": 0
    },
    "dscs_": [
      {
        "add": {
          "labeledDs_": [],
          "constantInfo_": "{}"
        }
      }
    ]
  }
})py";
const std::string kWithHistory = R"py({
  "0_add": {
    "debug_handle_": {
      "id": "17",
      "source": {
        "file": "/w/m.py",
        "start_line": -5,
        "start_col": 0,
        "end_line": null,
        "end_col": null
      },
      "aten_op": "aten.mm.default",
      "ir_chain": [
        "mm",
        "buf1"
      ],
      "fused_from": [],
      "transform_history": [
        {
          "kind": "rewrite",
          "pass_name": "insert_restickify",
          "reason": null
        },
        {
          "kind": "fuse",
          "pass_name": "fuse_pointwise",
          "reason": "merged into \"buf2\""
        }
      ]
    },
    "sdscFoldProps_": [
      {
        "factor_": 1,
        "label_": "time"
      }
    ],
    "numCoresUsed_": 32,
    "coreIdToDsc_": {
      "0": 0,
      "1": 0
    },
    "dscs_": [
      {
        "add": {
          "labeledDs_": [],
          "constantInfo_": "{}"
        }
      }
    ]
  }
})py";
const std::string kWithFcNull = R"py({
  "0_add": {
    "debug_handle_": {
      "id": "8249498605557491263",
      "source": {
        "file": "/home/senuser/compile_add.py",
        "start_line": 11,
        "start_col": 0,
        "end_line": null,
        "end_col": null
      },
      "aten_op": "aten.add.Tensor",
      "ir_chain": [
        "add",
        "buf0"
      ],
      "fused_from": [],
      "fusion_context": null
    },
    "sdscFoldProps_": [
      {
        "factor_": 1,
        "label_": "time"
      }
    ],
    "numCoresUsed_": 32,
    "coreIdToDsc_": {
      "0": 0,
      "1": 0
    },
    "dscs_": [
      {
        "add": {
          "labeledDs_": [],
          "constantInfo_": "{}"
        }
      }
    ]
  }
})py";
const std::string kWithFcStr = R"py({
  "0_add": {
    "debug_handle_": {
      "id": "5",
      "source": null,
      "aten_op": null,
      "ir_chain": [
        "buf7"
      ],
      "fused_from": [
        {
          "id": "6",
          "source": null,
          "aten_op": null,
          "ir_chain": [
            "a"
          ],
          "fused_from": [],
          "fusion_context": "x"
        }
      ],
      "fusion_context": "fused with buf1 (pointwise)"
    },
    "sdscFoldProps_": [
      {
        "factor_": 1,
        "label_": "time"
      }
    ],
    "numCoresUsed_": 32,
    "coreIdToDsc_": {
      "0": 0,
      "1": 0
    },
    "dscs_": [
      {
        "add": {
          "labeledDs_": [],
          "constantInfo_": "{}"
        }
      }
    ]
  }
})py";
// styles
const std::string kBackendAbsent = R"py({
    "0_add" : {
        "sdscFoldProps_" : [
            {
                "factor_" : 1,
                "label_" : "time"
            }
        ],
        "numCoresUsed_" : 32,
        "coreIdToDsc_" : {
            "0" : 0,
            "1" : 0
        },
        "dscs_" : [
            {
                "add" : {
                    "labeledDs_" : [],
                    "constantInfo_" : "{}"
                }
            }
        ]
    }
})py";
const std::string kBackendWithAdd = R"py({
    "0_add" : {
        "debug_handle_" : {
            "id" : "8249498605557491263",
            "source" : {
                "file" : "/home/senuser/compile_add.py",
                "start_line" : 11,
                "start_col" : 0,
                "end_line" : null,
                "end_col" : null
            },
            "aten_op" : "aten.add.Tensor",
            "ir_chain" : [
                "add",
                "buf0"
            ],
            "fused_from" : [],
            "transform_history" : []
        },
        "sdscFoldProps_" : [
            {
                "factor_" : 1,
                "label_" : "time"
            }
        ],
        "numCoresUsed_" : 32,
        "coreIdToDsc_" : {
            "0" : 0,
            "1" : 0
        },
        "dscs_" : [
            {
                "add" : {
                    "labeledDs_" : [],
                    "constantInfo_" : "{}"
                }
            }
        ]
    }
})py";
const std::string kTightAbsent = R"py({"0_add":{"x":1}})py";
const std::string kTightWithAdd =
    R"py({"0_add":{"debug_handle_":{"id":"8249498605557491263","source":{"file":"/home/senuser/compile_add.py","start_line":11,"start_col":0,"end_line":null,"end_col":null},"aten_op":"aten.add.Tensor","ir_chain":["add","buf0"],"fused_from":[],"transform_history":[]},"x":1}})py";
const std::string kSpacedAbsent = R"py({"0_add": {"x": 1}})py";
const std::string kSpacedWithAdd =
    R"py({"0_add": {"debug_handle_": {"id": "8249498605557491263", "source": {"file": "/home/senuser/compile_add.py", "start_line": 11, "start_col": 0, "end_line": null, "end_col": null}, "aten_op": "aten.add.Tensor", "ir_chain": ["add", "buf0"], "fused_from": [], "transform_history": []}, "x": 1}})py";
const std::string kSpacedBigAbsent =
    R"py({"0_add": {"sdscFoldProps_": [{"factor_": 1, "label_": "time"}], "numCoresUsed_": 32, "coreIdToDsc_": {"0": 0, "1": 0}, "dscs_": [{"add": {"labeledDs_": [], "constantInfo_": "{}"}}]}})py";
const std::string kSpacedBigWithAdd =
    R"py({"0_add": {"debug_handle_": {"id": "8249498605557491263", "source": {"file": "/home/senuser/compile_add.py", "start_line": 11, "start_col": 0, "end_line": null, "end_col": null}, "aten_op": "aten.add.Tensor", "ir_chain": ["add", "buf0"], "fused_from": [], "transform_history": []}, "sdscFoldProps_": [{"factor_": 1, "label_": "time"}], "numCoresUsed_": 32, "coreIdToDsc_": {"0": 0, "1": 0}, "dscs_": [{"add": {"labeledDs_": [], "constantInfo_": "{}"}}]}})py";
const std::string kEmptyAbsent = R"py({
  "0_add": {}
})py";
const std::string kEmptyWithAdd = R"py({
  "0_add": {
    "debug_handle_": {
      "id": "8249498605557491263",
      "source": {
        "file": "/home/senuser/compile_add.py",
        "start_line": 11,
        "start_col": 0,
        "end_line": null,
        "end_col": null
      },
      "aten_op": "aten.add.Tensor",
      "ir_chain": [
        "add",
        "buf0"
      ],
      "fused_from": [],
      "transform_history": []
    }
  }
})py";
const std::string kTightEmptyAbsent = R"py({"0_add":{}})py";
const std::string kTightEmptyWithAdd =
    R"py({"0_add":{"debug_handle_":{"id":"8249498605557491263","source":{"file":"/home/senuser/compile_add.py","start_line":11,"start_col":0,"end_line":null,"end_col":null},"aten_op":"aten.add.Tensor","ir_chain":["add","buf0"],"fused_from":[],"transform_history":[]}}})py";
// escapes
const std::string kAllCharsCompact =
    R"py({"id":"1","source":null,"aten_op":"\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\u007f\u0080\u00ff\u07ff\u0800\ud7ff\ue000\ufeff\uffff\ud800\udc00\ud83d\ude00\udbff\udfff","ir_chain":["x"],"fused_from":[],"transform_history":[]})py";

// ---- The handles of the Python program above, built independently in C++ ----------------------

HandleSource src(std::string file, std::int64_t line, std::int64_t col = 0,
                 std::optional<std::int64_t> end_line = {},
                 std::optional<std::int64_t> end_col = {}) {
    return HandleSource{std::move(file), line, col, end_line, end_col};
}

DebugHandle h(std::string id, std::optional<HandleSource> source, std::optional<std::string> aten,
              std::vector<std::string> chain, std::vector<DebugHandle> fused = {},
              std::vector<TransformStep> history = {}) {
    DebugHandle d;
    d.id = std::move(id);
    d.source = std::move(source);
    d.aten_op = std::move(aten);
    d.ir_chain = std::move(chain);
    d.fused_from = std::move(fused);
    d.transform_history = std::move(history);
    return d;
}

DebugHandle with_fusion_context(DebugHandle d, std::optional<std::string> context) {
    d.history_shape = HistoryShape::fusion_context;
    d.fusion_context = std::move(context);
    return d;
}

DebugHandle h_add() {
    return h("8249498605557491263", src("/home/senuser/compile_add.py", 11), "aten.add.Tensor",
             {"add", "buf0"});
}

DebugHandle h_fused() {
    return h("9223372036854775807", src("/home/senuser/mlp.py", 20, 0, 21, 37), std::nullopt,
             {"mul", "silu", "buf3"},
             {h("1234567890123456789", src("/home/senuser/mlp.py", 20), "aten.mul.Tensor", {"mul"}),
              h("42", std::nullopt, "aten.silu.default", {"silu"})});
}

DebugHandle h_nulls() {
    return h("6460594415264223131", std::nullopt, std::nullopt, {"clone_60", "buf312"});
}

DebugHandle h_strings() {
    // e acute, U+1F600 (a surrogate pair), quote, backslash, newline, DEL; a literal "\u00E9"
    // (backslash, u, uppercase hex: not an escape), U+2028, NUL and U+001F.
    return h("0", src("/home/us\xC3\xA9r/\xF0\x9F\x98\x80/m\"o\\d\nx\x7F.py", 3), "a/b\t\\u00E9",
             {"\xE2\x80\xA8", "buf\0\x1F"s});
}

DebugHandle h_history() {
    return h("17", src("/w/m.py", -5), "aten.mm.default", {"mm", "buf1"}, {},
             {TransformStep{"rewrite", "insert_restickify", std::nullopt},
              TransformStep{"fuse", "fuse_pointwise", "merged into \"buf2\""}});
}

DebugHandle h_fc_null() {
    return with_fusion_context(h_add(), std::nullopt);
}

DebugHandle h_fc_str() {
    return with_fusion_context(
        h("5", std::nullopt, std::nullopt, {"buf7"},
          {with_fusion_context(h("6", std::nullopt, std::nullopt, {"a"}), "x")}),
        "fused with buf1 (pointwise)");
}

// ---- Helpers ------------------------------------------------------------------------------------

const std::string kBom = "\xEF\xBB\xBF";

ScanResult scan(std::string_view bytes) {
    Scanner scanner;
    return scanner.scan_bytes(SdscFile{"test.json", {}}, bytes);
}

// Python's json.dumps(obj, indent=2) output with "\r\n" line ends (`.replace("\n", "\r\n")`: the
// texts hold no raw newline inside strings).
std::string crlf(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '\n') {
            out += '\r';
        }
        out += c;
    }
    return out;
}

// json.dumps(obj, indent=2) -> json.dumps(obj, indent="\t"): each two leading spaces a tab.
std::string retab(std::string_view s) {
    std::string out;
    bool line_start = true;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (line_start && s[i] == ' ' && i + 1 < s.size() && s[i + 1] == ' ') {
            out += '\t';
            ++i;
            continue;
        }
        line_start = s[i] == '\n';
        out += s[i];
    }
    return out;
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// set_handle on a file without a handle: the result parses (simdjson), reads back `handle`, and
// every byte of the input is still there around the inserted member.
std::string insert_and_check(const std::string& before, const DebugHandle& handle) {
    ScanResult s = scan(before);
    REQUIRE(s.status == FileStatus::ok);
    REQUIRE(s.handle_state == HandleState::absent);
    std::string after = set_handle(before, s, handle);

    simdjson::dom::parser parser;
    std::string_view doc = std::string_view(after).substr(s.bom);
    simdjson::dom::element root;
    CHECK(parser.parse(doc.data(), doc.size()).get(root) == simdjson::SUCCESS);
    ScanResult back = scan(after);
    CHECK(back.status == FileStatus::ok);
    CHECK(back.handle_state == HandleState::populated);
    CHECK(back.handle_member_index == 0);
    REQUIRE(back.handle);
    CHECK(*back.handle == handle);

    std::size_t open = s.op_object_open + 1;
    std::size_t first = open;
    while (first < before.size() &&
           std::string_view(" \t\r\n").find(before[first]) != std::string_view::npos) {
        ++first;
    }
    bool empty = before[first] == '}';
    // An empty object's inner whitespace is the only thing that may go.
    std::string_view suffix = std::string_view(before).substr(empty ? first : open);
    CHECK(after.size() > before.size());
    CHECK(std::string_view(after).substr(0, open) == std::string_view(before).substr(0, open));
    CHECK(std::string_view(after).ends_with(suffix));
    return after;
}

} // namespace

// ---- 1. Fidelity against torch-spyre's (Python's) own output ------------------------------------

TEST_CASE("writer: set_handle writes what json.dump(indent=2) writes") {
    struct Case {
        const char* name;
        DebugHandle handle;
        const std::string& expected;
    };
    const Case cases[] = {
        {"add", h_add(), kWithAdd},
        {"fused_from with 2 children", h_fused(), kWithFused},
        {"source and aten_op null", h_nulls(), kWithNulls},
        {"escaped strings", h_strings(), kWithStrings},
        {"transform_history steps", h_history(), kWithHistory},
        {"fusion_context null", h_fc_null(), kWithFcNull},
        {"fusion_context string, nested", h_fc_str(), kWithFcStr},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        // The C++ handle is the one Python wrote (checked by the scanner, not by the writer).
        ScanResult expected_scan = scan(c.expected);
        REQUIRE(expected_scan.handle);
        CHECK(*expected_scan.handle == c.handle);

        ScanResult absent = scan(kAbsent);
        REQUIRE(absent.handle_state == HandleState::absent);
        CHECK(set_handle(kAbsent, absent, c.handle) == c.expected);

        ScanResult null = scan(kNull);
        REQUIRE(null.handle_state == HandleState::null);
        CHECK(set_handle(kNull, null, c.handle) == c.expected);
    }
}

TEST_CASE("writer: render_handle escapes strings as json.dumps(ensure_ascii=True)") {
    // Every ASCII character, and non-ASCII code points at the UTF-8 and UTF-16 boundaries.
    std::string all;
    for (int c = 0; c < 0x80; ++c) {
        all += static_cast<char>(c);
    }
    all += "\xC2\x80"           // U+0080
           "\xC3\xBF"           // U+00FF
           "\xDF\xBF"           // U+07FF
           "\xE0\xA0\x80"       // U+0800
           "\xED\x9F\xBF"       // U+D7FF
           "\xEE\x80\x80"       // U+E000
           "\xEF\xBB\xBF"       // U+FEFF
           "\xEF\xBF\xBF"       // U+FFFF
           "\xF0\x90\x80\x80"   // U+10000
           "\xF0\x9F\x98\x80"   // U+1F600
           "\xF4\x8F\xBF\xBF"s; // U+10FFFF
    REQUIRE(all.size() == 0x80 + 2 * 3 + 3 * 5 + 4 * 3);
    FileStyle compact;
    compact.pretty = false;
    compact.key_separator = ":";
    compact.item_separator = ",";
    CHECK(render_handle(h("1", std::nullopt, all, {"x"}), compact, 0) == kAllCharsCompact);
}

TEST_CASE("writer: render_handle escapes a lone DEL or non-ASCII character in a string") {
    // Strings without any other escape: DEL and a non-ASCII code point each still come out as
    // json.dumps writes them, whichever string they are in.
    FileStyle compact;
    compact.pretty = false;
    compact.key_separator = ":";
    compact.item_separator = ",";
    CHECK(
        render_handle(h("1", std::nullopt,
                        "a\x7f"
                        "b",
                        {"c\x7f"}),
                      compact, 0) ==
        R"({"id":"1","source":null,"aten_op":"a\u007fb","ir_chain":["c\u007f"],"fused_from":[],"transform_history":[]})");
    CHECK(
        render_handle(h("1", src("/m\xC3\xA9.py", 3), std::nullopt, {"\xE2\x82\xAC"}), compact,
                      0) ==
        R"({"id":"1","source":{"file":"/m\u00e9.py","start_line":3,"start_col":0,"end_line":null,"end_col":null},"aten_op":null,"ir_chain":["\u20ac"],"fused_from":[],"transform_history":[]})");
}

TEST_CASE("writer: render_handle lays out at the given depth, without outer indentation") {
    FileStyle pretty; // torch-spyre's defaults
    std::string text = render_handle(h_nulls(), pretty, 0);
    CHECK(text == R"({
  "id": "6460594415264223131",
  "source": null,
  "aten_op": null,
  "ir_chain": [
    "clone_60",
    "buf312"
  ],
  "fused_from": [],
  "transform_history": []
})");
    FileStyle crlf_tabs;
    crlf_tabs.newline = "\r\n";
    crlf_tabs.indent_unit = "\t";
    CHECK(render_handle(h_nulls(), crlf_tabs, 1) ==
          "{\r\n\t\t\"id\": \"6460594415264223131\",\r\n\t\t\"source\": null,\r\n\t\t\"aten_op\": "
          "null,\r\n\t\t\"ir_chain\": [\r\n\t\t\t\"clone_60\",\r\n\t\t\t\"buf312\"\r\n\t\t],\r\n"
          "\t\t\"fused_from\": [],\r\n\t\t\"transform_history\": []\r\n\t}");
}

TEST_CASE("writer: strings that are not UTF-8 are refused, never written") {
    FileStyle style;
    for (std::string bad :
         {"\xC3"s, "ab\xF0"s, "\xF0\x9F\x98"s, "\xED\xA0\x80"s, "\xC0\xAF"s, "\xE0\x80\xAF"s,
          "\xF4\x90\x80\x80"s, "\xF8\x88\x80\x80\x80"s, "\x80"s, "\xC3\x28"s}) {
        CAPTURE(bad);
        DebugHandle bad_file = h_add();
        bad_file.source->file = bad;
        CHECK_THROWS_AS(render_handle(bad_file, style, 2), std::invalid_argument);
        DebugHandle bad_step = h_history();
        bad_step.transform_history[1].reason = bad;
        CHECK_THROWS_AS(render_handle(bad_step, style, 2), std::invalid_argument);
    }
}

// ---- 2. Styles --------------------------------------------------------------------------------

TEST_CASE("writer: detect_style reads the file's own layout") {
    auto style_of = [](const std::string& bytes) {
        ScanResult s = scan(bytes);
        REQUIRE(s.status == FileStatus::ok);
        return detect_style(bytes, s);
    };
    FileStyle s = style_of(kAbsent);
    CHECK(s.pretty);
    CHECK(s.newline == "\n");
    CHECK(s.indent_unit == "  ");
    CHECK(s.key_separator == ": ");
    CHECK(s.item_separator == ",");

    s = style_of(crlf(kWithAdd));
    CHECK(s.pretty);
    CHECK(s.newline == "\r\n");
    CHECK(s.indent_unit == "  ");

    s = style_of(kBom + retab(kAbsent));
    CHECK(s.pretty);
    CHECK(s.newline == "\n");
    CHECK(s.indent_unit == "\t");

    s = style_of(kBackendAbsent);
    CHECK(s.pretty);
    CHECK(s.indent_unit == "    ");
    CHECK(s.key_separator == " : ");
    CHECK(s.item_separator == ",");

    s = style_of(kTightAbsent);
    CHECK_FALSE(s.pretty);
    CHECK(s.key_separator == ":");
    CHECK(s.item_separator == ",");

    s = style_of(kSpacedAbsent); // one member: no ',' to look at
    CHECK_FALSE(s.pretty);
    CHECK(s.key_separator == ": ");
    CHECK(s.item_separator == ", ");

    s = style_of(kSpacedBigAbsent);
    CHECK_FALSE(s.pretty);
    CHECK(s.item_separator == ", ");

    s = style_of(R"({"0_add":{"x":[1, 2]}})"); // a ',' deeper in the op object
    CHECK(s.key_separator == ":");
    CHECK(s.item_separator == ", ");

    s = style_of(R"({"0_add": {"a": 1,"b": 2}})"); // the ',' after the first member decides
    CHECK(s.item_separator == ",");

    // Python 2's json.dump(indent=...) left ", " at line ends.
    s = style_of("{\n  \"0_add\": {\n    \"a\": 1, \n    \"b\": 2\n  }\n}");
    CHECK(s.pretty);
    CHECK(s.item_separator == ", ");

    s = style_of("\r\n{\n\t\t\"0_add\"\t:\t{\"a\": 1}}"); // the file's first '\n' decides
    CHECK(s.pretty);
    CHECK(s.newline == "\r\n");
    CHECK(s.indent_unit == "\t\t");
    CHECK(s.key_separator == "\t:\t");
}

TEST_CASE("writer: set_handle in other writers' styles") {
    struct Case {
        const char* name;
        std::string before;
        std::string expected;
    };
    const Case cases[] = {
        {"CRLF", crlf(kAbsent), crlf(kWithAdd)},
        {"tab indent", retab(kAbsent), retab(kWithAdd)},
        {"backend \" : \", indent 4", kBackendAbsent, kBackendWithAdd},
        {"compact", kTightAbsent, kTightWithAdd},
        {"compact with spaces, one member", kSpacedAbsent, kSpacedWithAdd},
        {"compact with spaces", kSpacedBigAbsent, kSpacedBigWithAdd},
        {"byte order mark", kBom + kAbsent, kBom + kWithAdd},
        {"byte order mark, CRLF, tabs", kBom + crlf(retab(kAbsent)), kBom + crlf(retab(kWithAdd))},
        {"empty op object", kEmptyAbsent, kEmptyWithAdd},
        {"empty op object, compact", kTightEmptyAbsent, kTightEmptyWithAdd},
        {"empty op object, CRLF", crlf(kEmptyAbsent), crlf(kEmptyWithAdd)},
    };
    for (const Case& c : cases) {
        CAPTURE(c.name);
        std::string after = insert_and_check(c.before, h_add());
        CHECK(after == c.expected);
    }
}

TEST_CASE("writer: set_handle keeps a real backend file's own layout around the handle") {
    // The layout of the backend's dcg-out*/sdsc.json: " : ", 4 spaces, small objects inline.
    const std::string before = "{\n    \"0_add\" : {\n        \"sdscFoldProps_\" : [\n"
                               "            {\"factor_\" : 1, \"label_\" : \"time\"}\n"
                               "        ],\n        \"numCoresUsed_\" : 1\n    }\n}";
    std::string after = insert_and_check(before, h_fused());
    CHECK(after.starts_with("{\n    \"0_add\" : {\n        \"debug_handle_\" : {\n"
                            "            \"id\" : \"9223372036854775807\",\n"
                            "            \"source\" : {\n"
                            "                \"file\" : \"/home/senuser/mlp.py\",\n"));
    CHECK(after.ends_with("            \"transform_history\" : []\n        },\n"
                          "        \"sdscFoldProps_\" : [\n"
                          "            {\"factor_\" : 1, \"label_\" : \"time\"}\n"
                          "        ],\n        \"numCoresUsed_\" : 1\n    }\n}"));

    // Inside the handle too, strings are escaped as torch-spyre writes them.
    after = insert_and_check(before, h_strings());
    CHECK(after.find(R"("file" : "/home/us\u00e9r/\ud83d\ude00/m\"o\\d\nx\u007f.py")") !=
          std::string::npos);
}

TEST_CASE("writer: odd but valid layouts") {
    // An empty op object: `{}` takes json.dump's one-member layout; whitespace inside `{ }`
    // (json.dump never writes it) is kept after the member, so that strip gives it back.
    std::string after = insert_and_check("{\n  \"0_add\": {}\n}", h_nulls());
    CHECK(after.starts_with("{\n  \"0_add\": {\n    \"debug_handle_\": {\n      \"id\": "));
    CHECK(after.ends_with("\"transform_history\": []\n    }\n  }\n}"));
    const std::string spaced = "{\n  \"0_add\": {  \n  }\n}";
    after = insert_and_check(spaced, h_nulls());
    CHECK(after.starts_with("{\n  \"0_add\": {\"debug_handle_\": {\n"));
    CHECK(after.ends_with("\"transform_history\": []\n    }  \n  }\n}"));
    CHECK(remove_handle(after, scan(after)) == spaced);
    // Trailing newline and spaces before the op key.
    insert_and_check("  {\n  \"0_add\": {\"x\": 1}}\n", h_fused());
    // A key separator broken over lines: torch-spyre's ": " is used for the handle.
    after = insert_and_check("{\n  \"0_add\"\n  :\n  {\"x\": 1}}", h_nulls());
    CHECK(after.find("\"debug_handle_\": {") != std::string::npos);
    // Execute-era op keys are anything.
    ScanResult s;
    Scanner scanner;
    std::string execute = "{\"out_valid1\": {\"x\": 1}}";
    s = scanner.scan_bytes(SdscFile{"sdsc.json", {FileNaming::execute, {}, {}}}, execute);
    REQUIRE(s.status == FileStatus::ok);
    CHECK(set_handle(execute, s, h_nulls()) ==
          R"({"out_valid1": {"debug_handle_": {"id": "6460594415264223131", "source": null, )"
          R"("aten_op": null, "ir_chain": ["clone_60", "buf312"], "fused_from": [], )"
          R"("transform_history": []}, "x": 1}})");
}

// ---- 3. Replacing, nulling, removing; round trips ---------------------------------------------

TEST_CASE("writer: set_handle_null and remove_handle give back the Python texts") {
    const std::string* with[] = {&kWithAdd,     &kWithFused,  &kWithNulls, &kWithStrings,
                                 &kWithHistory, &kWithFcNull, &kWithFcStr};
    for (const std::string* w : with) {
        ScanResult s = scan(*w);
        REQUIRE(s.handle_state == HandleState::populated);
        CHECK(set_handle_null(*w, s) == kNull);
        CHECK(remove_handle(*w, s) == kAbsent);
    }
    ScanResult s = scan(kNull);
    CHECK(remove_handle(kNull, s) == kAbsent);
    CHECK(set_handle_null(kNull, s) == kNull);
    // No handle: nothing to strip.
    s = scan(kAbsent);
    CHECK(set_handle_null(kAbsent, s) == kAbsent);
    CHECK(remove_handle(kAbsent, s) == kAbsent);
    // Other styles, the handle the only member.
    s = scan(kEmptyWithAdd);
    CHECK(remove_handle(kEmptyWithAdd, s) == kEmptyAbsent);
    s = scan(kTightEmptyWithAdd);
    CHECK(remove_handle(kTightEmptyWithAdd, s) == kTightEmptyAbsent);
    s = scan(kSpacedBigWithAdd);
    CHECK(remove_handle(kSpacedBigWithAdd, s) == kSpacedBigAbsent);
    s = scan(kBackendWithAdd);
    CHECK(remove_handle(kBackendWithAdd, s) == kBackendAbsent);
}

TEST_CASE("writer: set_handle then remove_handle gives back the original bytes") {
    const std::string originals[] = {
        kAbsent,
        crlf(kAbsent),
        retab(kAbsent),
        kBom + crlf(retab(kAbsent)),
        kBackendAbsent,
        kTightAbsent,
        kSpacedAbsent,
        kSpacedBigAbsent,
        kEmptyAbsent,
        kTightEmptyAbsent,
        kBom + kTightEmptyAbsent,
        "{\n  \"0_add\": {\n    \"a\": 1, \n    \"b\": 2\n  }\n}", // Python 2 trailing spaces
        "{\"0_add\":{ \"a\":1,  \"b\":2}}",                        // spaces kept before "a"
        "{\"0_add\":{\n\"a\":1}}",
    };
    for (const std::string& original : originals) {
        CAPTURE(original);
        for (const DebugHandle& handle : {h_add(), h_fused(), h_strings(), h_fc_str()}) {
            std::string with = insert_and_check(original, handle);
            CHECK(remove_handle(with, scan(with)) == original);
        }
    }
}

TEST_CASE("writer: set_handle then set_handle_null gives back a null file") {
    const std::string originals[] = {
        kNull,
        crlf(kNull),
        kBom + retab(kNull),
        R"({"0_add":{"debug_handle_":null,"x":1}})",
        R"({"0_add": {"x": 1, "debug_handle_" : null}})",
        "{\n    \"0_add\" : {\n        \"x\" : 1,\n        \"debug_handle_\" :  null  \n    }\n}",
    };
    for (const std::string& original : originals) {
        CAPTURE(original);
        ScanResult s = scan(original);
        REQUIRE(s.handle_state == HandleState::null);
        std::string with = set_handle(original, s, h_fused());
        ScanResult back = scan(with);
        REQUIRE(back.handle);
        CHECK(*back.handle == h_fused());
        // Only the value changed.
        std::size_t value_at = original.find("null");
        CHECK(with.substr(0, value_at) == original.substr(0, value_at));
        CHECK(std::string_view(with).ends_with(std::string_view(original).substr(value_at + 4)));
        CHECK(set_handle_null(with, back) == original);
    }
}

TEST_CASE("writer: replacing a populated or malformed handle changes only its value") {
    ScanResult s = scan(kWithAdd);
    std::string fused = set_handle(kWithAdd, s, h_fused());
    CHECK(fused == kWithFused);
    std::string again = set_handle(fused, scan(fused), h_add());
    CHECK(again == kWithAdd);

    // Malformed values of every kind are replaced whole.
    for (std::string bad : {R"({"id": 5})", "[1, 2]", R"("text")", "0", "{}"}) {
        CAPTURE(bad);
        std::string malformed = kNull;
        malformed.replace(malformed.find("null"), 4, bad);
        ScanResult m = scan(malformed);
        REQUIRE(m.handle_state == HandleState::malformed);
        CHECK(set_handle(malformed, m, h_add()) == kWithAdd);
        CHECK(set_handle_null(malformed, m) == kNull);
        CHECK(remove_handle(malformed, m) == kAbsent);
    }
}

TEST_CASE("writer: remove_handle takes one adjoining separator") {
    struct Case {
        std::string with;
        std::string without;
    };
    const Case cases[] = {
        // last
        {"{\n  \"0_add\": {\n    \"x\": 1,\n    \"debug_handle_\": null\n  }\n}",
         "{\n  \"0_add\": {\n    \"x\": 1\n  }\n}"},
        {"{\r\n\t\"0_add\": {\r\n\t\t\"x\": [],\r\n\t\t\"debug_handle_\": {\"id\": 1}\r\n\t}\r\n}",
         "{\r\n\t\"0_add\": {\r\n\t\t\"x\": []\r\n\t}\r\n}"},
        {R"({"0_add":{"x":1,"debug_handle_":null}})", R"({"0_add":{"x":1}})"},
        {R"({"0_add": {"x": 1, "debug_handle_": null}})", R"({"0_add": {"x": 1}})"},
        // middle
        {"{\n  \"0_add\": {\n    \"x\": 1,\n    \"debug_handle_\": null,\n    \"y\": 2\n  }\n}",
         "{\n  \"0_add\": {\n    \"x\": 1,\n    \"y\": 2\n  }\n}"},
        {R"({"0_add": {"x": 1, "debug_handle_": [1, 2], "y": 2}})",
         R"({"0_add": {"x": 1, "y": 2}})"},
        {R"({"0_add":{"x":1,"debug_handle_":"a,b","y":2}})", R"({"0_add":{"x":1,"y":2}})"},
        // first and only, with whitespace
        {"{\"0_add\": { \"debug_handle_\" : null }}", "{\"0_add\": { }}"},
        // first and only, as json.dump lays out a one-member object: `{}`
        {"{\n  \"0_add\": {\n    \"debug_handle_\": null\n  }\n}", "{\n  \"0_add\": {}\n}"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.with);
        ScanResult s = scan(c.with);
        REQUIRE(s.handle_member);
        CHECK(remove_handle(c.with, s) == c.without);
    }
}

TEST_CASE("writer: a scan of other bytes is refused") {
    ScanResult s = scan(kWithAdd);
    CHECK_THROWS_AS(set_handle(kTightAbsent, s, h_add()), std::invalid_argument);
    CHECK_THROWS_AS(set_handle_null(kTightAbsent, s), std::invalid_argument);
    CHECK_THROWS_AS(remove_handle(kTightAbsent, s), std::invalid_argument);
    ScanResult bad = scan("[1]");
    REQUIRE(bad.status != FileStatus::ok);
    CHECK_THROWS_AS(set_handle("[1]", bad, h_add()), std::invalid_argument);
}

// ---- 4. Files torch-spyre wrote -----------------------------------------------------------------

TEST_CASE("writer: torch-spyre's own files come back byte for byte") {
    // Real files outside the project: skipped where they are not present.
    const std::filesystem::path corpus = "/work/shared/corpus/spyre-cli";
    for (const char* name : {"add/sdsc_0.json", "softmax/sdsc_1.json"}) {
        std::filesystem::path path = corpus / name;
        if (!std::filesystem::exists(path)) {
            MESSAGE("skipped: " << path.string() << " is not here");
            continue;
        }
        CAPTURE(path.string());
        std::string original = read_file(path);
        ScanResult s = scan(original);
        REQUIRE(s.handle_state == HandleState::populated);
        REQUIRE(s.handle_member_index == 0);
        const DebugHandle& handle = *s.handle;

        std::string removed = remove_handle(original, s);
        CHECK(removed.find("debug_handle_") == std::string::npos);
        ScanResult r = scan(removed);
        REQUIRE(r.handle_state == HandleState::absent);
        CHECK(set_handle(removed, r, handle) == original);

        std::string nulled = set_handle_null(original, s);
        ScanResult n = scan(nulled);
        REQUIRE(n.handle_state == HandleState::null);
        CHECK(set_handle(nulled, n, handle) == original);
        // Also from scratch: the whole document as torch-spyre laid it out.
        CHECK(original.starts_with("{\n  \"" + s.op_key + "\": {\n    \"debug_handle_\": " +
                                   render_handle(handle, FileStyle{}, 2) + ",\n    \""));
    }
}

TEST_CASE("writer: max_handle_nesting is the depth the parser really takes") {
    // A chain of `links` handles below the top one, the last with `leaf` own nesting (1: scalars
    // only, 2: a source, 3: a transform step).
    auto chain = [](std::size_t links, int leaf) {
        DebugHandle h{"1", std::nullopt, std::nullopt, {}, {}};
        if (leaf >= 2) {
            h.source = HandleSource{"/m.py", 1, 0, std::nullopt, std::nullopt};
        }
        if (leaf >= 3) {
            h.transform_history.push_back({"fuse", "p", std::nullopt});
        }
        CHECK(own_nesting(h) == static_cast<std::size_t>(leaf));
        for (std::size_t i = 0; i < links; ++i) {
            DebugHandle parent{"1", std::nullopt, std::nullopt, {}, {}};
            parent.fused_from.push_back(std::move(h));
            h = std::move(parent);
        }
        return h;
    };
    struct Case {
        std::size_t links;
        int leaf;
        std::size_t nesting;
    };
    const Case cases[] = {
        {0, 1, 1}, {510, 1, 1021}, {510, 2, 1022}, {509, 3, 1021}, {510, 3, 1023}};
    const std::string doc = "{\"0_add\": {\"x\": 1}}";
    for (const auto& c : cases) {
        CAPTURE(c.links);
        CAPTURE(c.leaf);
        DebugHandle h = chain(c.links, c.leaf);
        CHECK(handle_nesting(h) == c.nesting);
        std::string written = set_handle(doc, scan(doc), h);
        ScanResult back = scan(written);
        if (c.nesting <= max_handle_nesting) {
            REQUIRE(back.status == FileStatus::ok);
            CHECK(back.handle_state == HandleState::populated);
            CHECK(back.handle == h);
        } else {
            CHECK(back.status == FileStatus::invalid_json);
        }
    }
}

// ---- 5. Handles nested below the op's members (strip) -------------------------------------------

TEST_CASE("writer: strip_splice sets every nested handle to null, or removes it, as json.dump "
          "would write the object") {
    struct Case {
        std::string what;
        std::string with;
        std::string nulled;
        std::string removed;
    };
    // The pretty texts are json.dumps(obj, indent=2) of the documents before and after.
    const Case cases[] = {
        {"the secret below an op member, the op's own handle populated",
         "{\n  \"0_add\": {\n    \"debug_handle_\": {\n      \"id\": \"1\"\n    },\n    \"sub_\": "
         "{\n      \"debug_handle_\": {\n        \"source\": {\n          \"file\": "
         "\"/home/secret/other.py\"\n        }\n      },\n      \"x\": 1\n    }\n  }\n}",
         "{\n  \"0_add\": {\n    \"debug_handle_\": null,\n    \"sub_\": {\n      "
         "\"debug_handle_\": null,\n      \"x\": 1\n    }\n  }\n}",
         "{\n  \"0_add\": {\n    \"sub_\": {\n      \"x\": 1\n    }\n  }\n}"},
        {"the only member of its object, the op's own handle absent",
         "{\n  \"0_add\": {\n    \"dscs_\": [\n      {\n        \"add\": {\n          "
         "\"debug_handle_\": \"/home/secret/x.py\"\n        }\n      }\n    ]\n  }\n}",
         "{\n  \"0_add\": {\n    \"dscs_\": [\n      {\n        \"add\": {\n          "
         "\"debug_handle_\": null\n        }\n      }\n    ]\n  }\n}",
         "{\n  \"0_add\": {\n    \"dscs_\": [\n      {\n        \"add\": {}\n      }\n    ]\n  "
         "}\n}"},
        {"last of its object",
         "{\n  \"0_add\": {\n    \"a\": {\n      \"x\": 1,\n      \"debug_handle_\": 2\n    }\n  "
         "}\n}",
         "{\n  \"0_add\": {\n    \"a\": {\n      \"x\": 1,\n      \"debug_handle_\": null\n    "
         "}\n  }\n}",
         "{\n  \"0_add\": {\n    \"a\": {\n      \"x\": 1\n    }\n  }\n}"},
        {"first, middle and last of one object, another object's between them (compact)",
         R"({"0_add":{"a":{"debug_handle_":1,"x":{"debug_handle_":2},"debug_handle_":3,"y":4,"debug_handle_":{"z":[5]}}}})",
         R"({"0_add":{"a":{"debug_handle_":null,"x":{"debug_handle_":null},"debug_handle_":null,"y":4,"debug_handle_":null}}})",
         R"({"0_add":{"a":{"x":{},"y":4}}})"},
        {"the last two of an object, CRLF and tabs",
         "{\r\n\t\"0_add\": {\r\n\t\t\"a\": {\r\n\t\t\t\"x\": 1,\r\n\t\t\t\"debug_handle_\": 2,"
         "\r\n\t\t\t\"debug\\u005fhandle_\": 3\r\n\t\t}\r\n\t}\r\n}",
         "{\r\n\t\"0_add\": {\r\n\t\t\"a\": {\r\n\t\t\t\"x\": 1,\r\n\t\t\t\"debug_handle_\": null,"
         "\r\n\t\t\t\"debug\\u005fhandle_\": null\r\n\t\t}\r\n\t}\r\n}",
         "{\r\n\t\"0_add\": {\r\n\t\t\"a\": {\r\n\t\t\t\"x\": 1\r\n\t\t}\r\n\t}\r\n}"},
        {"already null: only --remove changes it",
         R"({"0_add": {"debug_handle_": null, "a": {"debug_handle_": null, "b": 1}}})",
         R"({"0_add": {"debug_handle_": null, "a": {"debug_handle_": null, "b": 1}}})",
         R"({"0_add": {"a": {"b": 1}}})"},
    };
    Scanner scanner;
    for (const Case& c : cases) {
        CAPTURE(c.what);
        ScanResult s = scan(c.with);
        REQUIRE(s.status == FileStatus::ok);
        REQUIRE_FALSE(s.nested_handles.empty());
        for (bool remove : {false, true}) {
            CAPTURE(remove);
            const Splice edit = strip_splice(c.with, s, remove);
            const std::string out = apply_splice(c.with, edit);
            CHECK(out == (remove ? c.removed : c.nulled));
            CHECK(changes(c.with, edit) == (out != c.with));
            // What strip leaves: nothing nested but nulls (or nothing), no secret path.
            ScanResult after = scanner.scan_bytes(SdscFile{"test.json", {}}, out);
            REQUIRE(after.status == FileStatus::ok);
            CHECK(after.op_key == s.op_key);
            for (const NestedHandle& h : after.nested_handles) {
                CHECK_FALSE(remove);
                CHECK(h.null);
            }
            CHECK(out.find("secret") == std::string::npos);
        }
    }
}

TEST_CASE("writer: without nested handles strip_splice is the op's own edit") {
    for (const std::string& doc : {std::string(kWithAdd), std::string(kNull), std::string(kAbsent),
                                   std::string(kTightEmptyWithAdd)}) {
        CAPTURE(doc);
        ScanResult s = scan(doc);
        REQUIRE(s.nested_handles.empty());
        for (bool remove : {false, true}) {
            const Splice mine = strip_splice(doc, s, remove);
            const Splice op = remove ? remove_splice(doc, s) : null_splice(doc, s);
            CHECK(mine.begin == op.begin);
            CHECK(mine.end == op.end);
            CHECK(mine.text == op.text);
        }
    }
}

TEST_CASE("writer: strip_splice refuses a scan of other bytes") {
    const std::string doc = R"({"0_add": {"a": {"debug_handle_": 1}}})";
    ScanResult s = scan(doc);
    REQUIRE(s.nested_handles.size() == 1);
    const std::string other = R"({"0_add": {"b": 1, "c": 2, "d": 3, "e": 4}})";
    CHECK_THROWS_AS(strip_splice(other, s, false), std::invalid_argument);
}
