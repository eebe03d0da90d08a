module {
  func.func @sdsc_bundle() {
    sdscbundle.sdsc_execute () {sdsc_filename="sdsc_0.json", "symbol_ids"=[]}
    sdscbundle.sdsc_execute () {other_sdsc_filename="x", sdsc_filename="sdsc_1.json"}
    sdscbundle.sdsc_execute () {sdsc_filename="sdsc_0.json"}
    return
  }
}
