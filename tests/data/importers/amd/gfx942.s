	.text
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.amdhsa_code_object_version 5
	.protected	add                     ; -- Begin function add
	.globl	add
	.p2align	8
	.type	add,@function
add:                                    ; @add
; %bb.0:
	s_load_dword s3, s[0:1], 0x10
	v_lshl_add_u32 v0, s2, 8, v0
	s_waitcnt lgkmcnt(0)
	v_cmp_gt_i32_e32 vcc, s3, v0
	s_and_saveexec_b64 s[2:3], vcc
	s_cbranch_execz .LBB0_2
; %bb.1:
	s_load_dwordx4 s[0:3], s[0:1], 0x0
	v_ashrrev_i32_e32 v1, 31, v0
	v_lshlrev_b64 v[0:1], 2, v[0:1]
	s_waitcnt lgkmcnt(0)
	v_lshl_add_u64 v[2:3], s[0:1], 0, v[0:1]
	v_lshl_add_u64 v[0:1], s[2:3], 0, v[0:1]
	global_load_dword v4, v[0:1], off
	global_load_dword v5, v[2:3], off
	s_waitcnt vmcnt(0)
	v_add_f32_e32 v0, v4, v5
	global_store_dword v[2:3], v0, off
.LBB0_2:
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel add
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 20
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 6
		.amdhsa_next_free_sgpr 4
		.amdhsa_accum_offset 8
		.amdhsa_reserve_vcc 1
		.amdhsa_reserve_xnack_mask 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end0:
	.size	add, .Lfunc_end0-add
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 108
; NumSgprs: 10
; NumVgprs: 6
; NumAgprs: 0
; TotalNumVgprs: 6
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 1
; VGPRBlocks: 0
; NumSGPRsForWavesPerEU: 10
; NumVGPRsForWavesPerEU: 6
; AccumOffset: 8
; Occupancy: 8
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 2
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 1
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.section	.text._Z3ldsILi1024EEvPf,"axG",@progbits,_Z3ldsILi1024EEvPf,comdat
	.protected	_Z3ldsILi1024EEvPf      ; -- Begin function _Z3ldsILi1024EEvPf
	.globl	_Z3ldsILi1024EEvPf
	.p2align	8
	.type	_Z3ldsILi1024EEvPf,@function
_Z3ldsILi1024EEvPf:                     ; @_Z3ldsILi1024EEvPf
; %bb.0:
	s_load_dwordx2 s[0:1], s[0:1], 0x0
	v_lshlrev_b32_e32 v1, 2, v0
	v_add_u32_e32 v0, 1, v0
	v_and_b32_e32 v0, 0x3ff, v0
	v_lshlrev_b32_e32 v0, 2, v0
	s_waitcnt lgkmcnt(0)
	global_load_dword v2, v1, s[0:1]
	s_waitcnt vmcnt(0)
	ds_write_b32 v1, v2
	s_barrier
	ds_read_b32 v0, v0
	s_waitcnt lgkmcnt(0)
	global_store_dword v1, v0, s[0:1]
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel _Z3ldsILi1024EEvPf
		.amdhsa_group_segment_fixed_size 4096
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 8
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 3
		.amdhsa_next_free_sgpr 2
		.amdhsa_accum_offset 4
		.amdhsa_reserve_vcc 0
		.amdhsa_reserve_xnack_mask 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.section	.text._Z3ldsILi1024EEvPf,"axG",@progbits,_Z3ldsILi1024EEvPf,comdat
.Lfunc_end1:
	.size	_Z3ldsILi1024EEvPf, .Lfunc_end1-_Z3ldsILi1024EEvPf
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 80
; NumSgprs: 8
; NumVgprs: 3
; NumAgprs: 0
; TotalNumVgprs: 3
; ScratchSize: 0
; MemoryBound: 0
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 4096 bytes/workgroup (compile time only)
; SGPRBlocks: 0
; VGPRBlocks: 0
; NumSGPRsForWavesPerEU: 8
; NumVGPRsForWavesPerEU: 3
; AccumOffset: 4
; Occupancy: 8
; WaveLimiterHint : 0
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 0
; COMPUTE_PGM_RSRC2:USER_SGPR: 2
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 0
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.protected	_Z7scratchPfi           ; -- Begin function _Z7scratchPfi
	.globl	_Z7scratchPfi
	.p2align	8
	.type	_Z7scratchPfi,@function
_Z7scratchPfi:                          ; @_Z7scratchPfi
; %bb.0:
	s_load_dwordx2 s[2:3], s[0:1], 0x0
	s_load_dword s4, s[0:1], 0x8
	s_mov_b64 s[0:1], src_private_base
	v_mov_b32_e32 v0, 0
	v_mov_b32_e32 v1, s1
	s_waitcnt lgkmcnt(0)
	s_load_dword s5, s[2:3], 0x0
	v_mov_b32_e32 v4, 0
	v_mov_b32_e32 v3, s1
	s_lshl_b32 s0, s4, 2
	s_waitcnt lgkmcnt(0)
	v_mov_b32_e32 v2, s5
	flat_store_dword v[0:1], v2 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:4
	v_or_b32_e32 v2, 4, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:8
	v_or_b32_e32 v2, 8, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:12
	v_or_b32_e32 v2, 12, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:16
	v_add_u32_e32 v2, 16, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:20
	v_add_u32_e32 v2, 20, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:24
	v_add_u32_e32 v2, 24, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:28
	v_add_u32_e32 v2, 28, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:32
	v_add_u32_e32 v2, 32, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:36
	v_add_u32_e32 v2, 36, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:40
	v_add_u32_e32 v2, 40, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:44
	v_add_u32_e32 v2, 44, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:48
	v_add_u32_e32 v2, 48, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:52
	v_add_u32_e32 v2, 52, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:56
	v_add_u32_e32 v2, 56, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:60
	v_add_u32_e32 v2, 60, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:64
	v_add_u32_e32 v2, 64, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:68
	v_add_u32_e32 v2, 0x44, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:72
	v_add_u32_e32 v2, 0x48, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:76
	v_add_u32_e32 v2, 0x4c, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:80
	v_add_u32_e32 v2, 0x50, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:84
	v_add_u32_e32 v2, 0x54, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:88
	v_add_u32_e32 v2, 0x58, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:92
	v_add_u32_e32 v2, 0x5c, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:96
	v_add_u32_e32 v2, 0x60, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:100
	v_add_u32_e32 v2, 0x64, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:104
	v_add_u32_e32 v2, 0x68, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:108
	v_add_u32_e32 v2, 0x6c, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:112
	v_add_u32_e32 v2, 0x70, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:116
	v_add_u32_e32 v2, 0x74, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:120
	v_add_u32_e32 v2, 0x78, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:124
	v_add_u32_e32 v2, 0x7c, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:128
	v_add_u32_e32 v2, 0x80, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:132
	v_add_u32_e32 v2, 0x84, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:136
	v_add_u32_e32 v2, 0x88, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:140
	v_add_u32_e32 v2, 0x8c, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:144
	v_add_u32_e32 v2, 0x90, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:148
	v_add_u32_e32 v2, 0x94, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:152
	v_add_u32_e32 v2, 0x98, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:156
	v_add_u32_e32 v2, 0x9c, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:160
	v_add_u32_e32 v2, 0xa0, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:164
	v_add_u32_e32 v2, 0xa4, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:168
	v_add_u32_e32 v2, 0xa8, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:172
	v_add_u32_e32 v2, 0xac, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:176
	v_add_u32_e32 v2, 0xb0, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:180
	v_add_u32_e32 v2, 0xb4, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:184
	v_add_u32_e32 v2, 0xb8, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:188
	v_add_u32_e32 v2, 0xbc, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:192
	v_add_u32_e32 v2, 0xc0, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:196
	v_add_u32_e32 v2, 0xc4, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:200
	v_add_u32_e32 v2, 0xc8, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:204
	v_add_u32_e32 v2, 0xcc, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:208
	v_add_u32_e32 v2, 0xd0, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:212
	v_add_u32_e32 v2, 0xd4, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:216
	v_add_u32_e32 v2, 0xd8, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:220
	v_add_u32_e32 v2, 0xdc, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:224
	v_add_u32_e32 v2, 0xe0, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:228
	v_add_u32_e32 v2, 0xe4, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:232
	v_add_u32_e32 v2, 0xe8, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:236
	v_add_u32_e32 v2, 0xec, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:240
	v_add_u32_e32 v2, 0xf0, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:244
	v_add_u32_e32 v2, 0xf4, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:248
	v_add_u32_e32 v2, 0xf8, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	global_load_dword v5, v4, s[2:3] offset:252
	v_add_u32_e32 v2, 0xfc, v0
	v_add_u32_e32 v0, s0, v0
	s_waitcnt vmcnt(0)
	flat_store_dword v[2:3], v5 sc0 sc1
	s_waitcnt vmcnt(0)
	flat_load_dword v0, v[0:1] sc0 sc1
	s_waitcnt vmcnt(0) lgkmcnt(0)
	global_store_dword v4, v0, s[2:3]
	s_endpgm
	.section	.rodata,"a",@progbits
	.p2align	6, 0x0
	.amdhsa_kernel _Z7scratchPfi
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 272
		.amdhsa_kernarg_size 12
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_kernarg_preload_length 0
		.amdhsa_user_sgpr_kernarg_preload_offset 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 6
		.amdhsa_next_free_sgpr 6
		.amdhsa_accum_offset 8
		.amdhsa_reserve_vcc 0
		.amdhsa_reserve_xnack_mask 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_tg_split 0
		.amdhsa_exception_fp_ieee_invalid_op 0
		.amdhsa_exception_fp_denorm_src 0
		.amdhsa_exception_fp_ieee_div_zero 0
		.amdhsa_exception_fp_ieee_overflow 0
		.amdhsa_exception_fp_ieee_underflow 0
		.amdhsa_exception_fp_ieee_inexact 0
		.amdhsa_exception_int_div_zero 0
	.end_amdhsa_kernel
	.text
.Lfunc_end2:
	.size	_Z7scratchPfi, .Lfunc_end2-_Z7scratchPfi
                                        ; -- End function
	.section	.AMDGPU.csdata,"",@progbits
; Kernel info:
; codeLenInByte = 2052
; NumSgprs: 12
; NumVgprs: 6
; NumAgprs: 0
; TotalNumVgprs: 6
; ScratchSize: 272
; MemoryBound: 1
; FloatMode: 240
; IeeeMode: 1
; LDSByteSize: 0 bytes/workgroup (compile time only)
; SGPRBlocks: 1
; VGPRBlocks: 0
; NumSGPRsForWavesPerEU: 12
; NumVGPRsForWavesPerEU: 6
; AccumOffset: 8
; Occupancy: 8
; WaveLimiterHint : 1
; COMPUTE_PGM_RSRC2:SCRATCH_EN: 1
; COMPUTE_PGM_RSRC2:USER_SGPR: 2
; COMPUTE_PGM_RSRC2:TRAP_HANDLER: 0
; COMPUTE_PGM_RSRC2:TGID_X_EN: 1
; COMPUTE_PGM_RSRC2:TGID_Y_EN: 0
; COMPUTE_PGM_RSRC2:TGID_Z_EN: 0
; COMPUTE_PGM_RSRC2:TIDIG_COMP_CNT: 0
; COMPUTE_PGM_RSRC3_GFX90A:ACCUM_OFFSET: 1
; COMPUTE_PGM_RSRC3_GFX90A:TG_SPLIT: 0
	.text
	.p2alignl 6, 3212836864
	.fill 256, 4, 3212836864
	.type	__hip_cuid_b4eefb061da682dd,@object ; @__hip_cuid_b4eefb061da682dd
	.section	.bss,"aw",@nobits
	.globl	__hip_cuid_b4eefb061da682dd
__hip_cuid_b4eefb061da682dd:
	.byte	0                               ; 0x0
	.size	__hip_cuid_b4eefb061da682dd, 1

	.ident	"Debian clang version 19.1.7 (3~deb12u1)"
	.section	".note.GNU-stack","",@progbits
	.addrsig
	.addrsig_sym __hip_cuid_b4eefb061da682dd
	.amdgpu_metadata
---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .address_space:  global
        .offset:         8
        .size:           8
        .value_kind:     global_buffer
      - .offset:         16
        .size:           4
        .value_kind:     by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 20
    .max_flat_workgroup_size: 1024
    .name:           add
    .private_segment_fixed_size: 0
    .sgpr_count:     10
    .sgpr_spill_count: 0
    .symbol:         add.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     6
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
    .group_segment_fixed_size: 4096
    .kernarg_segment_align: 8
    .kernarg_segment_size: 8
    .max_flat_workgroup_size: 1024
    .name:           _Z3ldsILi1024EEvPf
    .private_segment_fixed_size: 0
    .sgpr_count:     8
    .sgpr_spill_count: 0
    .symbol:         _Z3ldsILi1024EEvPf.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     3
    .vgpr_spill_count: 0
    .wavefront_size: 64
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .offset:         8
        .size:           4
        .value_kind:     by_value
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 12
    .max_flat_workgroup_size: 128
    .name:           _Z7scratchPfi
    .private_segment_fixed_size: 272
    .sgpr_count:     12
    .sgpr_spill_count: 0
    .symbol:         _Z7scratchPfi.kd
    .uniform_work_group_size: 1
    .uses_dynamic_stack: false
    .vgpr_count:     6
    .vgpr_spill_count: 0
    .wavefront_size: 64
amdhsa.target:   amdgcn-amd-amdhsa--gfx942
amdhsa.version:
  - 1
  - 2
...

	.end_amdgpu_metadata
