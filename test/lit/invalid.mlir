// Every verifier error, each naming the attribute it rejects.
// RUN: gdr-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{#gdr.problem 'k' must be positive, got 0}}
gdr.kernel @k problem <k = 0, v = 128, element_type = f32>

// -----

// expected-error @+1 {{#gdr.problem 'v' must be positive, got -4}}
gdr.kernel @k problem <k = 16, v = -4, element_type = f32>

// -----

// expected-error @+1 {{#gdr.problem 'k' and 'v' must be at most 1048576, got k = 16, v = 1048577}}
gdr.kernel @k problem <k = 16, v = 1048577, element_type = f32>

// -----

// expected-error @+1 {{#gdr.problem 'k' must be at most 1024 for route recurrent (its code is unrolled over K), got 1025}}
gdr.kernel @k problem <k = 1025, v = 16, element_type = f32, route = recurrent>

// -----

// expected-error @+1 {{#gdr.problem 'element_type' must be f32, got 'f16'}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f16>

// -----

// expected-error @+1 {{#gdr.problem 'gate' must be channelwise or scalar, got diagonal}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32, gate = diagonal>

// -----

// expected-error @+1 {{#gdr.problem 'readouts' must be from 1 to 8, got 0}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32, readouts = 0>

// -----

// expected-error @+1 {{#gdr.problem 'readouts' must be from 1 to 8, got 9}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32, readouts = 9>

// -----

// expected-error @+1 {{#gdr.problem 'route' must be auto, recurrent or chunked, got fastest}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32, route = fastest>

// -----

// expected-error @+1 {{#gdr.problem needs 'element_type'}}
gdr.kernel @k problem <k = 16, v = 16>

// -----

// expected-error @+1 {{unknown key 'chunk' in #gdr.schedule}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32> schedule <chunk = 64, vector_width = 16, v_tile = 16>

// -----

// expected-error @+1 {{key 'k' given twice in #gdr.problem}}
gdr.kernel @k problem <k = 16, k = 32, v = 16, element_type = f32>

// -----

// expected-error @+1 {{#gdr.schedule 'vector_width' must be a power of two from 1 to 16, got 12}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32> schedule <vector_width = 12, v_tile = 48>

// -----

// expected-error @+1 {{#gdr.schedule 'vector_width' must be a power of two from 1 to 16, got 32}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32> schedule <vector_width = 32, v_tile = 64>

// -----

// expected-error @+1 {{#gdr.schedule 'v_tile' must be a positive multiple of vector_width (16), got 40}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32> schedule <vector_width = 16, v_tile = 40>

// -----

// expected-error @+1 {{#gdr.schedule 'v_tile' must be at most 16 vectors (64 columns), got 128}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32> schedule <vector_width = 4, v_tile = 128>

// -----

// expected-error @+1 {{#gdr.schedule 'unroll' must be from 1 to 16, got 0}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32> schedule <vector_width = 4, v_tile = 16, unroll = 0>

// -----

// expected-error @+1 {{#gdr.schedule 'prefetch' must be from 0 to 64 tokens, got 65}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32> schedule <vector_width = 4, v_tile = 16, prefetch = 65>

// -----

// expected-error @+1 {{#gdr.schedule 'prefetch' must be from 0 to 64 tokens, got -1}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32> schedule <vector_width = 4, v_tile = 16, prefetch = -1>

// -----

// expected-error @+1 {{#gdr.schedule 'sweep_tokens' must be 1 or 2, got 3}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32> schedule <vector_width = 4, v_tile = 16, sweep_tokens = 3>

// -----

// expected-error @+1 {{#gdr.target 'vector_bits' must be 128, 256 or 512, got 1024}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32> target <cpu = "x", vector_bits = 1024>

// -----

// expected-error @+1 {{#gdr.target 'cpu' must not be empty}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32> target <cpu = "", vector_bits = 256>

// -----

// expected-error @+1 {{#gdr.target 'vector_registers' must be 16 or 32, got 8}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32> target <cpu = "x86-64", vector_bits = 128, vector_registers = 8>

// -----

// expected-error @+1 {{#gdr.target 'vector_registers' must be 16 or 32, got 0}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32> target <cpu = "x86-64", vector_bits = 128, vector_registers = 0>

// -----

// expected-error @+1 {{'gdr.kernel' op schedule 'vector_width' = 16 needs 512-bit vectors but target 'znver3' has 256}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32> schedule <vector_width = 16, v_tile = 16> target <cpu = "znver3", vector_bits = 256>

// -----

// expected-error @+1 {{'gdr.kernel' op schedule 'vector_width' = 1 is too narrow for k = 1024: the recurrent route unrolls k / vector_width = 1024 vectors a row, at most 256 (vector_width >= 4)}}
gdr.kernel @k problem <k = 1024, v = 16, element_type = f32, route = recurrent> schedule <vector_width = 1, v_tile = 1>

// -----

// expected-error @+1 {{'gdr.kernel' op schedule 'unroll' = 8 exceeds the problem's k = 4}}
gdr.kernel @k problem <k = 4, v = 16, element_type = f32> schedule <vector_width = 4, v_tile = 16, unroll = 8>

// -----

// The recurrent sweep keeps (1 + readouts) accumulators per vector of the
// tile: 11 vectors with readouts = 2 need 33 (16 vectors with readouts = 1,
// exactly 32, pass: roundtrip.mlir).
// expected-error @+1 {{'gdr.kernel' op schedule 'v_tile' = 176 needs 33 accumulators with readouts = 2, more than the 32 vector registers}}
gdr.kernel @k problem <k = 16, v = 256, element_type = f32, readouts = 2, route = recurrent> schedule <vector_width = 16, v_tile = 176>

// -----

// A kernel is a module's symbol.
func @f() {
  // expected-error @+1 {{'gdr.kernel' op must be in a module, not in 'builtin.func'}}
  gdr.kernel @k problem <k = 16, v = 16, element_type = f32, route = recurrent>
  return
}
