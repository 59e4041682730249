// gdr-attach-schedule takes the vector widths targets have (0 divided by
// zero, 96 gave vector<3xf32>: a review).
// RUN: gdr-opt %s -gdr-attach-schedule=vector-bits=0 -verify-diagnostics
// RUN: not gdr-opt %s -gdr-attach-schedule=vector-bits=96 2>&1 | FileCheck %s

// CHECK: error: gdr-attach-schedule: vector-bits must be 128, 256 or 512, got 96
// expected-error @+1 {{gdr-attach-schedule: vector-bits must be 128, 256 or 512, got 0}}
module {
  gdr.kernel @k problem <k = 16, v = 16, element_type = f32, route = recurrent>
}
