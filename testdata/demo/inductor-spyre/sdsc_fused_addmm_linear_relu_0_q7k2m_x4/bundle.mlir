module {
	func.func @sdsc_bundle(%arg_0_base_addr: !sdscbundle.input_arg<index>) {
		%arg_0 = sdscbundle.input_arg_extract value from %arg_0_base_addr : !sdscbundle.input_arg<index> -> index
		%arg_0_core_offset_2048 = arith.constant 2048 : index
		%arg_0_core_2048 = arith.addi %arg_0, %arg_0_core_offset_2048 : index
		%arg_0_core_offset_4096 = arith.constant 4096 : index
		%arg_0_core_4096 = arith.addi %arg_0, %arg_0_core_offset_4096 : index
		%arg_0_core_offset_6144 = arith.constant 6144 : index
		%arg_0_core_6144 = arith.addi %arg_0, %arg_0_core_offset_6144 : index
		%arg_0_core_offset_8192 = arith.constant 8192 : index
		%arg_0_core_8192 = arith.addi %arg_0, %arg_0_core_offset_8192 : index
		%arg_0_core_offset_10240 = arith.constant 10240 : index
		%arg_0_core_10240 = arith.addi %arg_0, %arg_0_core_offset_10240 : index
		%arg_0_core_offset_12288 = arith.constant 12288 : index
		%arg_0_core_12288 = arith.addi %arg_0, %arg_0_core_offset_12288 : index
		%arg_0_core_offset_14336 = arith.constant 14336 : index
		%arg_0_core_14336 = arith.addi %arg_0, %arg_0_core_offset_14336 : index
		%arg_0_core_offset_16384 = arith.constant 16384 : index
		%arg_0_core_16384 = arith.addi %arg_0, %arg_0_core_offset_16384 : index
		%arg_0_core_offset_18432 = arith.constant 18432 : index
		%arg_0_core_18432 = arith.addi %arg_0, %arg_0_core_offset_18432 : index
		%arg_0_core_offset_20480 = arith.constant 20480 : index
		%arg_0_core_20480 = arith.addi %arg_0, %arg_0_core_offset_20480 : index
		%arg_0_core_offset_22528 = arith.constant 22528 : index
		%arg_0_core_22528 = arith.addi %arg_0, %arg_0_core_offset_22528 : index
		%arg_0_core_offset_24576 = arith.constant 24576 : index
		%arg_0_core_24576 = arith.addi %arg_0, %arg_0_core_offset_24576 : index
		%arg_0_core_offset_26624 = arith.constant 26624 : index
		%arg_0_core_26624 = arith.addi %arg_0, %arg_0_core_offset_26624 : index
		%arg_0_core_offset_28672 = arith.constant 28672 : index
		%arg_0_core_28672 = arith.addi %arg_0, %arg_0_core_offset_28672 : index
		%arg_0_core_offset_30720 = arith.constant 30720 : index
		%arg_0_core_30720 = arith.addi %arg_0, %arg_0_core_offset_30720 : index
		%arg_0_core_offset_32768 = arith.constant 32768 : index
		%arg_0_core_32768 = arith.addi %arg_0, %arg_0_core_offset_32768 : index
		%arg_0_core_offset_34816 = arith.constant 34816 : index
		%arg_0_core_34816 = arith.addi %arg_0, %arg_0_core_offset_34816 : index
		%arg_0_core_offset_36864 = arith.constant 36864 : index
		%arg_0_core_36864 = arith.addi %arg_0, %arg_0_core_offset_36864 : index
		%arg_0_core_offset_38912 = arith.constant 38912 : index
		%arg_0_core_38912 = arith.addi %arg_0, %arg_0_core_offset_38912 : index
		%arg_0_core_offset_40960 = arith.constant 40960 : index
		%arg_0_core_40960 = arith.addi %arg_0, %arg_0_core_offset_40960 : index
		%arg_0_core_offset_43008 = arith.constant 43008 : index
		%arg_0_core_43008 = arith.addi %arg_0, %arg_0_core_offset_43008 : index
		%arg_0_core_offset_45056 = arith.constant 45056 : index
		%arg_0_core_45056 = arith.addi %arg_0, %arg_0_core_offset_45056 : index
		%arg_0_core_offset_47104 = arith.constant 47104 : index
		%arg_0_core_47104 = arith.addi %arg_0, %arg_0_core_offset_47104 : index
		%arg_0_core_offset_49152 = arith.constant 49152 : index
		%arg_0_core_49152 = arith.addi %arg_0, %arg_0_core_offset_49152 : index
		%arg_0_core_offset_51200 = arith.constant 51200 : index
		%arg_0_core_51200 = arith.addi %arg_0, %arg_0_core_offset_51200 : index
		%arg_0_core_offset_53248 = arith.constant 53248 : index
		%arg_0_core_53248 = arith.addi %arg_0, %arg_0_core_offset_53248 : index
		%arg_0_core_offset_55296 = arith.constant 55296 : index
		%arg_0_core_55296 = arith.addi %arg_0, %arg_0_core_offset_55296 : index
		%arg_0_core_offset_57344 = arith.constant 57344 : index
		%arg_0_core_57344 = arith.addi %arg_0, %arg_0_core_offset_57344 : index
		%arg_0_core_offset_59392 = arith.constant 59392 : index
		%arg_0_core_59392 = arith.addi %arg_0, %arg_0_core_offset_59392 : index
		%arg_0_core_offset_61440 = arith.constant 61440 : index
		%arg_0_core_61440 = arith.addi %arg_0, %arg_0_core_offset_61440 : index
		%arg_0_core_offset_63488 = arith.constant 63488 : index
		%arg_0_core_63488 = arith.addi %arg_0, %arg_0_core_offset_63488 : index
		sdscbundle.sdsc_execute (%arg_0, %arg_0_core_2048, %arg_0_core_4096, %arg_0_core_6144, %arg_0_core_8192, %arg_0_core_10240, %arg_0_core_12288, %arg_0_core_14336, %arg_0_core_16384, %arg_0_core_18432, %arg_0_core_20480, %arg_0_core_22528, %arg_0_core_24576, %arg_0_core_26624, %arg_0_core_28672, %arg_0_core_30720, %arg_0_core_32768, %arg_0_core_34816, %arg_0_core_36864, %arg_0_core_38912, %arg_0_core_40960, %arg_0_core_43008, %arg_0_core_45056, %arg_0_core_47104, %arg_0_core_49152, %arg_0_core_51200, %arg_0_core_53248, %arg_0_core_55296, %arg_0_core_57344, %arg_0_core_59392, %arg_0_core_61440, %arg_0_core_63488) {sdsc_filename="sdsc_0.json", "symbol_ids"=[-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16, -17, -18, -19, -20, -21, -22, -23, -24, -25, -26, -27, -28, -29, -30, -31, -32]}
		sdscbundle.sdsc_execute () {sdsc_filename="sdsc_1.json", "symbol_ids"=[]}
		sdscbundle.sdsc_execute () {sdsc_filename="sdsc_2.json", "symbol_ids"=[]}
		sdscbundle.sdsc_execute () {sdsc_filename="sdsc_3.json", "symbol_ids"=[]}
		return
	}
}
