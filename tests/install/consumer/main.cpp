// Uses the installed library for real: recognises a file name and scans a small SDSC document.
// Prints what it found (checked by test_install.sh) and exits non-zero when anything is wrong.
#include <iostream>
#include <sdscprov/walk/discover.hpp>
#include <sdscprov/sdsc/scan.hpp>
#include <string_view>

namespace {

constexpr std::string_view document = R"({
  "3_add": {
    "debug_handle_": {
      "id": "8249498605557491263",
      "source": {"file": "/w/model.py", "start_line": 11, "start_col": 0,
                 "end_line": null, "end_col": null},
      "aten_op": "aten.add.Tensor",
      "ir_chain": ["add", "buf0"],
      "fused_from": [],
      "transform_history": []
    },
    "numCoresUsed_": 32,
    "dscs_": [{"add": {}}]
  }
})";

} // namespace

int main() {
    auto name = sdscprov::match_sdsc_file_name("sdsc_3.json");
    if (!name || name->naming != sdscprov::FileNaming::indexed || name->index != 3) {
        std::cerr << "consumer: sdsc_3.json not recognised as indexed file 3\n";
        return 1;
    }
    std::cout << "name: " << sdscprov::to_string(name->naming) << ' ' << *name->index << '\n';

    sdscprov::Scanner scanner;
    auto r = scanner.scan_bytes(sdscprov::SdscFile{"k/sdsc_3.json", *name}, document);
    std::cout << "scan: " << sdscprov::to_string(r.status) << ' ' << r.op_key << ' '
              << sdscprov::to_string(r.handle_state) << ' ' << (r.handle ? r.handle->id : "-")
              << " problems=" << r.problems.size() << '\n';
    bool right = r.status == sdscprov::FileStatus::ok && r.op_key == "3_add" && r.index == 3 &&
                 r.opfunc == "add" && r.handle_state == sdscprov::HandleState::populated &&
                 r.handle && r.handle->id == "8249498605557491263" && r.problems.empty();
    if (!right) {
        std::cerr << "consumer: the scan result is wrong\n";
        return 1;
    }
    std::cout << "version: " << SDSCPROV_VERSION << '\n';
    return 0;
}
