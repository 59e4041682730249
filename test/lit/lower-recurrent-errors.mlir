// gdr-lower-recurrent needs a schedule, and the symbol beside the kernel's
// for its body.
// RUN: gdr-opt %s -split-input-file -gdr-lower-recurrent -verify-diagnostics

// expected-error @+1 {{'gdr.kernel' op has no schedule: run gdr-attach-schedule first}}
gdr.kernel @k problem <k = 16, v = 16, element_type = f32, route = recurrent>

// -----

// @a next to @a_body was redefined after the whole conversion (a review).
// expected-error @+1 {{'gdr.kernel' op needs the symbol @a_body for its body, and the module has one}}
gdr.kernel @a problem <k = 16, v = 16, element_type = f32, route = recurrent> schedule <vector_width = 4, v_tile = 16>
gdr.kernel @a_body problem <k = 16, v = 16, element_type = f32, route = recurrent> schedule <vector_width = 4, v_tile = 16>

// -----

// The lowering adds the entry point to the module it runs on: a kernel in
// a nested one failed late, with a dump of the IR (a review).
module {
  module @inner {
    // expected-error @+1 {{'gdr.kernel' op must be at the top level of the module the passes run on}}
    gdr.kernel @k problem <k = 16, v = 16, element_type = f32, route = recurrent> schedule <vector_width = 4, v_tile = 16>
  }
}

// -----

// The other order: @a_body lowered first was gone when @a was looked at.
gdr.kernel @a_body problem <k = 16, v = 16, element_type = f32, route = recurrent> schedule <vector_width = 4, v_tile = 16>
// expected-error @+1 {{'gdr.kernel' op needs the symbol @a_body for its body, and the module has one}}
gdr.kernel @a problem <k = 16, v = 16, element_type = f32, route = recurrent> schedule <vector_width = 4, v_tile = 16>
