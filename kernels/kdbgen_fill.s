// kdbgen demo kernel, GCN/RDNA assembly: out[i] = value for i < n.
// Kernel arguments: uint* out (offset 0), uint value (8), uint n (12).
// One source for gfx9, gfx10, gfx11 and gfx12: instruction spellings, the
// wave size and kernel-descriptor fields differ by generation, as in
// MIOpen's own multi-generation assembly kernels.
.ifndef KDBGEN_FILL_GROUP_SIZE
.set KDBGEN_FILL_GROUP_SIZE, 256
.endif

.set GEN, .amdgcn.gfx_generation_number
.set HAS_ACCUM_VGPRS, (GEN == 9) && ((.amdgcn.gfx_generation_minor == 4) || ((.amdgcn.gfx_generation_minor == 0) && (.amdgcn.gfx_generation_stepping == 10)))

.text
.globl KdbgenFill
.p2align 8
.type KdbgenFill,@function
KdbgenFill:
    // s[0:1] kernarg pointer, s2 workgroup id x, v0 work-item id x
.if GEN >= 11
    s_load_b64 s[4:5], s[0:1], 0x0
    s_load_b64 s[6:7], s[0:1], 0x8
.else
    s_load_dwordx2 s[4:5], s[0:1], 0x0
    s_load_dwordx2 s[6:7], s[0:1], 0x8
.endif
    s_mul_i32 s2, s2, KDBGEN_FILL_GROUP_SIZE
.if GEN >= 10
    v_add_nc_u32 v0, s2, v0
.elseif GEN == 9
    v_add_u32 v0, s2, v0
.else
    v_add_u32 v0, vcc, s2, v0
.endif
.if GEN >= 12
    s_wait_kmcnt 0
.else
    s_waitcnt lgkmcnt(0)
.endif
.if GEN >= 10
    v_cmp_gt_u32 vcc_lo, s7, v0
    s_and_saveexec_b32 s8, vcc_lo
.else
    v_cmp_gt_u32 vcc, s7, v0
    s_and_saveexec_b64 s[8:9], vcc
.endif
    s_cbranch_execz .Ldone
    v_lshlrev_b32 v1, 2, v0
    v_mov_b32 v2, s6
.if GEN >= 11
    global_store_b32 v1, v2, s[4:5]
.elseif GEN >= 9
    global_store_dword v1, v2, s[4:5]
.else
    // gfx8 has no global instructions: a flat store to out + 4 * i.
    v_mov_b32 v3, s5
    v_add_u32 v1, vcc, s4, v1
    v_addc_u32 v3, vcc, v3, 0, vcc
    v_mov_b32 v4, v3
    v_mov_b32 v3, v1
    flat_store_dword v[3:4], v2
.endif
.Ldone:
    s_endpgm
.Lfill_end:
.size KdbgenFill, .Lfill_end - KdbgenFill

.rodata
.p2align 6
.if HAS_ACCUM_VGPRS
.amdhsa_kernel KdbgenFill
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_next_free_vgpr 5
    .amdhsa_next_free_sgpr 10
    .amdhsa_accum_offset 8
.end_amdhsa_kernel
.else
.amdhsa_kernel KdbgenFill
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_next_free_vgpr 5
    .amdhsa_next_free_sgpr 10
.end_amdhsa_kernel
.endif

// The metadata block is YAML, read whole: it cannot hold an .if, so it is
// given once per wave size.
.if GEN >= 10
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: KdbgenFill
    .symbol: KdbgenFill.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 32
    .sgpr_count: 10
    .vgpr_count: 5
    .max_flat_workgroup_size: 256
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global, .name: out_buffer }
      - { .size: 4, .offset: 8, .value_kind: by_value, .name: fill_value }
      - { .size: 4, .offset: 12, .value_kind: by_value, .name: item_count }
...
.end_amdgpu_metadata
.else
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: KdbgenFill
    .symbol: KdbgenFill.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 10
    .vgpr_count: 5
    .max_flat_workgroup_size: 256
    .args:
      - { .size: 8, .offset: 0, .value_kind: global_buffer, .address_space: global, .name: out_buffer }
      - { .size: 4, .offset: 8, .value_kind: by_value, .name: fill_value }
      - { .size: 4, .offset: 12, .value_kind: by_value, .name: item_count }
...
.end_amdgpu_metadata
.endif
