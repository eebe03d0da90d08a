sdscbundle.sdsc_execute () {sdsc_filename="a/b.json"}
