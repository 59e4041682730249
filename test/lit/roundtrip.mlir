// Every op and attribute prints in a form that parses back to itself.
// RUN: gdr-opt %s | gdr-opt | FileCheck %s

// CHECK: gdr.kernel @bare problem <k = 128, v = 128, element_type = f32, gate = channelwise, route = auto>
gdr.kernel @bare problem <k = 128, v = 128, element_type = f32>

// Keys may come in any order; unroll defaults to 1, prefetch to 0 (not printed).
// CHECK: gdr.kernel @scheduled problem <k = 64, v = 80, element_type = f32, gate = channelwise, route = recurrent> schedule <vector_width = 8, v_tile = 32, unroll = 1>
gdr.kernel @scheduled problem <route = recurrent, v = 80, k = 64, element_type = f32> schedule <v_tile = 32, vector_width = 8>

// CHECK: gdr.kernel @full problem <k = 96, v = 48, element_type = f32, gate = channelwise, route = chunked> schedule <vector_width = 16, v_tile = 128, unroll = 4> target <cpu = "icelake-client", vector_bits = 512>
gdr.kernel @full problem <k = 96, v = 48, element_type = f32, gate = channelwise, route = chunked> schedule <vector_width = 16, v_tile = 128, unroll = 4> target <cpu = "icelake-client", vector_bits = 512>

// CHECK: gdr.kernel @prefetching problem <k = 64, v = 64, element_type = f32, gate = channelwise, route = recurrent> schedule <vector_width = 16, v_tile = 64, unroll = 1, prefetch = 3>
gdr.kernel @prefetching problem <k = 64, v = 64, element_type = f32, route = recurrent> schedule <prefetch = 3, vector_width = 16, v_tile = 64>

// sweep_tokens defaults to 2 (pairs, not printed).
// CHECK: gdr.kernel @single_token problem <k = 64, v = 64, element_type = f32, gate = channelwise, route = recurrent> schedule <vector_width = 8, v_tile = 32, unroll = 1, sweep_tokens = 1>
gdr.kernel @single_token problem <k = 64, v = 64, element_type = f32, route = recurrent> schedule <sweep_tokens = 1, vector_width = 8, v_tile = 32>
// CHECK: gdr.kernel @pairs problem <k = 64, v = 64, element_type = f32, gate = channelwise, route = recurrent> schedule <vector_width = 8, v_tile = 32, unroll = 1>{{$}}
gdr.kernel @pairs problem <k = 64, v = 64, element_type = f32, route = recurrent> schedule <vector_width = 8, v_tile = 32, sweep_tokens = 2>

// The attributes also stand alone, e.g. in a generic attribute dictionary.
// CHECK: gdr.kernel @generic problem <k = 16, v = 16, element_type = f32, gate = channelwise, route = recurrent> schedule <vector_width = 4, v_tile = 4, unroll = 2> {note = #gdr.target<cpu = "znver3", vector_bits = 256>}
"gdr.kernel"() {sym_name = "generic", problem = #gdr.problem<k = 16, v = 16, element_type = f32, route = recurrent>, schedule = #gdr.schedule<vector_width = 4, v_tile = 4, unroll = 2>, note = #gdr.target<cpu = "znver3", vector_bits = 256>} : () -> ()

// Scalar decay and grouped readout; readouts is printed only when not 1.
// CHECK: gdr.kernel @forms problem <k = 64, v = 64, element_type = f32, gate = scalar, readouts = 2, route = recurrent>
gdr.kernel @forms problem <readouts = 2, k = 64, v = 64, element_type = f32, gate = scalar, route = recurrent>

// The recurrent sweep's accumulators at their limit: 16 vectors, two sets
// (readouts = 1) = 32 registers.
// CHECK: gdr.kernel @widest problem <k = 16, v = 256, element_type = f32, gate = channelwise, route = recurrent> schedule <vector_width = 16, v_tile = 256, unroll = 1>
gdr.kernel @widest problem <k = 16, v = 256, element_type = f32, readouts = 1, route = recurrent> schedule <vector_width = 16, v_tile = 256>

// A CPU name is printed escaped: with a quote in it, it printed unparseable (a review).
// CHECK: gdr.kernel @quoted problem <k = 16, v = 16, element_type = f32, gate = channelwise, route = recurrent> target <cpu = "a\22b", vector_bits = 256>
gdr.kernel @quoted problem <k = 16, v = 16, element_type = f32, route = recurrent> target <cpu = "a\"b", vector_bits = 256>
